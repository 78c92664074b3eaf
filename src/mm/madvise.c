// SPDX-License-Identifier: GPL-2.0-only
/*
 * madvise(MADV_COLD) and madvise(MADV_FREE) on private anonymous memory
 * (mm/madvise.c); MADV_PAGEOUT, MADV_POPULATE_(READ|WRITE) and MADV_(NO)HUGEPAGE
 * (hugepage_madvise(): the VMA's VM_HUGEPAGE) at the end.
 *
 * Read: torvalds/linux mm/madvise.c (2026 text with madvise_behavior and
 * lazy_mmu_mode_enable(), as summarised in the reference notes, 4.2
 * P3-C/P3-D) and the seed 004 patch, which adds khugepaged_move_tail() at
 * the end of madvise_cold() and madvise_free_single_vma().  The call runs
 * only in variants whose mm_variant.khugepaged_move_tail is set.
 *
 * Mirrors
 *   madvise_cold()                      -> madvise_cold()
 *   madvise_cold_or_pageout_pte_range() (pageout = false): per huge PMD,
 *       clear its young bit; per present PTE of an LRU folio mapped once,
 *       clear the young bit (clear_young_dirty_ptes(CYDP_CLEAR_YOUNG)),
 *       gather the TLB range (tlb_remove_tlb_entries()), clear
 *       PG_referenced and PG_young, folio_deactivate()
 *   madvise_free_single_vma()           -> madvise_free()
 *   madvise_free_pte_range(): clear young and dirty, folio_clear_dirty(),
 *       folio_mark_lazyfree()
 *   tlb_finish_mmu() flushes the gathered range (IPIs if the mm runs
 *       elsewhere).
 *
 * Leaves out: splitting large folios that a range covers partly (the
 * ranges here are whole VMAs), the need_resched() restart every 32 PTEs,
 * swap entries (madvise_free drops them; there are none here), MGLRU,
 * the madvise_lock() choice per behaviour (both take
 * mmap_lock for reading, as the kernel does for these two).
 *
 * Lock order: mmap_lock (read) -> PTL -> lruvec->lru_lock (batch drains);
 * khugepaged_mm_lock is taken after the PTLs are dropped.
 */
#include "mm/mm.h"

enum madv_kind {
	MADV_KIND_COLD,
	MADV_KIND_FREE,
};

/*
 * The folio's part of madvise_cold_or_pageout_pte_range() and
 * madvise_free_pte_range(): clear the software referenced and young
 * state, then deactivate (COLD) or mark lazyfree (FREE) through the
 * CPU's batch.
 */
static void madvise_folio(struct folio *folio, int kind)
{
	folio_clear(folio, PG_referenced);
	folio_clear(folio, PG_young);
	if (kind == MADV_KIND_COLD) {
		if (folio_test_active(folio))
			folio_set(folio, PG_workingset);
		folio_deactivate(folio);
	} else {
		folio_clear(folio, PG_dirty);
		folio_mark_lazyfree(folio);
	}
}

static void tlb_gather_range(struct mmu_gather *tlb, uint64_t start, uint64_t end)
{
	if (tlb->start > start)
		tlb->start = start;
	if (tlb->end < end)
		tlb->end = end;
}

/* The per-PMD walk of both behaviours, under the PMD's lock. */
static void madvise_pmd_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      uint64_t addr, uint64_t end, enum madv_kind kind)
{
	uint64_t base = vma->vm_start & ~(PMD_SIZE - 1);
	uint64_t idx = (addr - base) >> PMD_SHIFT;
	struct spinlock *ptl = &vma->ptl[idx];
	struct folio *folio;

	spin_lock(ptl);
	folio = vma->pmd_huge[idx];
	if (folio) {
		/* madvise_cold: pmd_mkold(); madvise_free_huge_pmd(): mkold, mkclean */
		uint8_t clear = kind == MADV_KIND_COLD ? PMD_YOUNG : PMD_YOUNG | PMD_DIRTY;

		if (addr & (PMD_SIZE - 1) || end - addr < PMD_SIZE)
			goto out_unlock;	/* would split: not modelled */
		if (vma->pmd_flags[idx] & clear) {
			vma->pmd_flags[idx] &= (uint8_t)~clear;
			tlb_gather_range(tlb, addr, addr + PMD_SIZE);	/* tlb_remove_pmd_tlb_entry() */
		}
		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		madvise_folio(folio, kind);
		goto out_unlock;
	}
	for (; addr < end; addr += PAGE_SIZE) {
		pte_t *pte = &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT];
		pte_t clear = kind == MADV_KIND_COLD ? PTE_YOUNG : PTE_YOUNG | PTE_DIRTY;

		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		if (!pte_present(*pte))
			continue;
		folio = pte_folio(*pte);
		/* Leave folios mapped elsewhere, and folios off the LRU, alone. */
		if (!folio_test_lru(folio) || folio->_mapcount != folio_nr_pages(folio))
			continue;
		if (*pte & clear) {
			*pte &= ~clear;		/* clear_young_dirty_ptes() */
			tlb_gather_range(tlb, addr, addr + PAGE_SIZE); /* tlb_remove_tlb_entries() */
		}
		sim_cost_cpu_ps(sim_mm->folio_op_ps);
		madvise_folio(folio, kind);
	}
out_unlock:
	spin_unlock(ptl);
}

static int madvise_lru_range(struct mm_struct *mm, uint64_t start, uint64_t len,
			     enum madv_kind kind)
{
	uint64_t end = start + len, addr;
	struct vm_area_struct *vma;
	struct mmu_gather tlb;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	down_read(&mm->mmap_lock);
	vma = find_vma(mm, start);
	if (!vma || end > vma->vm_end) {
		up_read(&mm->mmap_lock);
		return -12;		/* -ENOMEM: a hole in the range */
	}
	if (kind == MADV_KIND_FREE && vma->vm_file) {
		up_read(&mm->mmap_lock);
		return -22;		/* -EINVAL: MADV_FREE is for anonymous memory only */
	}
	lru_add_drain();
	tlb_gather_mmu(&tlb, mm);
	for (addr = start; addr < end;) {
		uint64_t next = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE;

		if (next > end)
			next = end;
		madvise_pmd_range(&tlb, vma, addr, next, kind);
		addr = next;
	}
	if (kind == MADV_KIND_FREE && sim_mm->variant->khugepaged_move_tail)
		khugepaged_move_tail(mm);	/* seed 004: end of madvise_free_single_vma() */
	tlb_finish_mmu(&tlb);
	if (kind == MADV_KIND_COLD && sim_mm->variant->khugepaged_move_tail)
		khugepaged_move_tail(mm);	/* seed 004: end of madvise_cold() */
	up_read(&mm->mmap_lock);
	return 0;
}

/**
 * madvise_cold - madvise(@start, @len, MADV_COLD)
 * @mm: the calling process's mm
 * @start: page-aligned start, inside one VMA
 * @len: bytes
 *
 * Clears the accessed bits, deactivates the folios and flushes the TLB;
 * in variant `after`, then moves the mm to the tail of khugepaged's list.
 * Context: process context; takes mmap_lock for reading.
 * Return: 0, or -ENOMEM if the range is not inside one VMA.
 */
int madvise_cold(struct mm_struct *mm, uint64_t start, uint64_t len)
{
	return madvise_lru_range(mm, start, len, MADV_KIND_COLD);
}

/**
 * madvise_free - madvise(@start, @len, MADV_FREE)
 * @mm: the calling process's mm
 * @start: page-aligned start, inside one VMA
 * @len: bytes
 *
 * Clears the accessed and dirty bits, marks the folios lazily freeable and
 * flushes the TLB; in variant `after`, moves the mm to the tail of
 * khugepaged's list (before the flush, as the patch places the call).
 * Context: process context; takes mmap_lock for reading.
 * Return: 0, or -ENOMEM if the range is not inside one VMA.
 */
int madvise_free(struct mm_struct *mm, uint64_t start, uint64_t len)
{
	return madvise_lru_range(mm, start, len, MADV_KIND_FREE);
}

/**
 * madvise_dontneed - madvise(@start, @len, MADV_DONTNEED) on a whole VMA
 * @mm: the calling process's mm
 * @start: the VMA's start
 * @len: its length
 *
 * Zaps the range through an mmu_gather, which flushes the TLB (page tables
 * stay, so lazy CPUs are skipped) and frees the folios; the VMA stays.
 * The 2026 kernel zaps under the per-VMA lock (zap_vma_range_batched());
 * the model takes mmap_lock for reading, which no writer contends here.
 * Context: process context.
 * Return: 0, or -ENOMEM if no VMA covers the range.
 */
int madvise_dontneed(struct mm_struct *mm, uint64_t start, uint64_t len)
{
	struct vm_area_struct *vma;
	struct mmu_gather tlb;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	down_read(&mm->mmap_lock);
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start != start || vma->vm_end != start + len) {
		up_read(&mm->mmap_lock);
		return -12;
	}
	lru_add_drain();
	tlb_gather_mmu(&tlb, mm);
	unmap_vmas(&tlb, vma);
	tlb_finish_mmu(&tlb);
	up_read(&mm->mmap_lock);
	return 0;
}

/* ---- MADV_PAGEOUT and MADV_POPULATE_(READ|WRITE) (issue 30) -----------------------
 *
 * Read at torvalds/linux v6.12 mm/madvise.c and mm/gup.c.
 * madvise_pageout(): lru_add_drain(), then per PMD
 * madvise_cold_or_pageout_pte_range() with pageout set: under the PTL,
 * each present PTE of a folio on the LRU that this mapping alone maps
 * (folio_mapcount() == folio_nr_pages()) has PG_referenced and PG_young
 * cleared (PG_workingset set when active) and is isolated
 * (folio_isolate_lru()); after the PTL is dropped, reclaim_pages()
 * reclaims the list (shrink_folio_list() ignoring references: unmap,
 * swap out anon folios, drop clean page cache folios) and puts back what
 * stays.  A file mapping is paged out too (the model's tasks own their
 * files: can_do_file_pageout()).  Large folios are skipped (the kernel
 * splits them first).
 *
 * madvise_populate(): faultin_page_range() -> __get_user_pages() over the
 * range under mmap_lock (read): each page that follow_page_mask() does not
 * find mapped (or, for a write, writable) is faulted in by
 * handle_mm_fault(); FOLL_TOUCH then marks it accessed (PG_referenced)
 * and, for a write, dirty.  Nothing is accessed from user space: no TLB
 * fill.  Costs: mm.syscall_ns, mm.pte_op_ns per page looked up, the
 * faults' own (each charged mm.fault_entry_ns as a user fault, an
 * overestimate by the exception entry GUP does not take: an assumption).
 * Left out: the VM_FAULT_RETRY loop of GUP (no mmap_lock drop), FOLL_FORCE.
 */

/*
 * vmscan.c's folio_isolate_lru() (it takes a reference); declared here, not
 * in mm.h, because khugepaged.c keeps a static one of its own that does not.
 */
bool folio_isolate_lru(struct folio *folio);

/* The PTE part of madvise_cold_or_pageout_pte_range() with pageout, under the PTL. */
static void madvise_pageout_pmd_range(struct vm_area_struct *vma, uint64_t addr, uint64_t end,
				      struct list_head *folio_list)
{
	struct spinlock *ptl = pte_lockptr_lookup(vma, addr);

	spin_lock(ptl);
	if (vma->pmd_huge[vma_pmd_index(vma, addr)])
		goto out_unlock;		/* a huge PMD: would split, not modelled */
	for (; addr < end; addr += PAGE_SIZE) {
		pte_t *pte = vma_pte_lookup(vma, addr);
		struct folio *folio;

		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		if (!pte_present(*pte))
			continue;
		folio = pte_folio(*pte);
		if (folio_test_large(folio))
			continue;
		/* Do not interfere with other mappings of this folio and non-LRU folio. */
		if (!folio_test_lru(folio) || folio->_mapcount != folio_nr_pages(folio))
			continue;
		folio_clear(folio, PG_referenced);
		folio_clear(folio, PG_young);
		if (folio_test_active(folio))
			folio_set(folio, PG_workingset);
		sim_cost_cpu_ps(sim_mm->folio_op_ps);
		if (folio_isolate_lru(folio)) {
			if (folio_test(folio, PG_unevictable)) {
				struct list_head one;

				INIT_LIST_HEAD(&one);	/* folio_putback_lru() */
				list_add(&folio->lru_node, &one);
				move_folios_to_lru(&one);
			} else {
				list_add(&folio->lru_node, folio_list);
			}
		}
	}
out_unlock:
	spin_unlock(ptl);
}

/**
 * madvise_pageout - madvise(@start, @len, MADV_PAGEOUT)
 * @mm: the calling process's mm
 * @start: page-aligned start, inside one VMA
 * @len: bytes
 *
 * Context: process context; takes mmap_lock for reading.
 * Return: 0, or -ENOMEM if the range is not inside one VMA.
 */
int madvise_pageout(struct mm_struct *mm, uint64_t start, uint64_t len)
{
	uint64_t end = start + len, addr;
	struct vm_area_struct *vma;
	struct mmu_gather tlb;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	down_read(&mm->mmap_lock);
	vma = find_vma(mm, start);
	if (!vma || end > vma->vm_end) {
		up_read(&mm->mmap_lock);
		return -12;
	}
	lru_add_drain();
	tlb_gather_mmu(&tlb, mm);
	for (addr = start; addr < end;) {
		uint64_t next = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE;
		struct reclaim_isolation iso;
		struct list_head folio_list;

		if (next > end)
			next = end;
		INIT_LIST_HEAD(&folio_list);
		iso = (struct reclaim_isolation){ .lists = { &folio_list } };
		list_add_tail(&iso.node, &sim_mm->reclaim_ctxs);	/* for mm/check.c */
		madvise_pageout_pmd_range(vma, addr, next, &folio_list);
		reclaim_pages(&folio_list);
		list_del_init(&iso.node);
		cond_resched();
		addr = next;
	}
	tlb_finish_mmu(&tlb);
	up_read(&mm->mmap_lock);
	return 0;
}

/* follow_page_mask(): is @addr mapped (and writable, for a write)?  Under its PTL. */
static struct folio *follow_page_pte(struct vm_area_struct *vma, uint64_t addr, bool write)
{
	struct spinlock *ptl = pte_lockptr_lookup(vma, addr);
	struct folio *folio = NULL;
	pte_t *pte;

	spin_lock(ptl);
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	if (vma->pmd_huge[vma_pmd_index(vma, addr)]) {
		folio = vma->pmd_huge[vma_pmd_index(vma, addr)];
		goto out_unlock;
	}
	pte = vma_pte_lookup(vma, addr);
	if (!pte_present(*pte) || (write && !(*pte & PTE_WRITE)))
		goto out_unlock;
	folio = pte_folio(*pte);
	/* FOLL_TOUCH: a write dirties, every touch marks accessed */
	if (write && !(*pte & PTE_DIRTY))
		folio_mark_dirty(folio);
	if (!folio_test(folio, PG_referenced))
		folio_set(folio, PG_referenced);	/* folio_mark_accessed(), first touch */
out_unlock:
	spin_unlock(ptl);
	return folio;
}

/**
 * madvise_populate - madvise(@start, @len, MADV_POPULATE_READ or _WRITE)
 * @mm: the calling process's mm
 * @start: page-aligned start
 * @len: bytes
 * @write: MADV_POPULATE_WRITE (fault in writable, breaking COW)
 *
 * Context: process context; takes mmap_lock for reading.
 * Return: 0; -ENOMEM for a hole or an allocation failure; -EFAULT for a
 * write to a mapping without VM_WRITE (check_vma_flags()) or a SIGBUS.
 */
int madvise_populate(struct mm_struct *mm, uint64_t start, uint64_t len, bool write)
{
	uint64_t addr, end = start + len;
	int ret = 0;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	down_read(&mm->mmap_lock);
	for (addr = start; addr < end; addr += PAGE_SIZE) {
		struct vm_area_struct *vma = find_vma(mm, addr);

		if (!vma) {
			ret = -12;
			break;
		}
		if (write && !(vma->vm_flags & VM_WRITE)) {
			ret = -14;
			break;
		}
		while (!follow_page_pte(vma, addr, write)) {
			/* faultin_page() */
			ret = handle_mm_fault(vma, addr, write);
			if (ret < 0)
				goto out;
		}
		cond_resched();
	}
out:
	up_read(&mm->mmap_lock);
	return ret < 0 ? ret : 0;
}

/**
 * hugepage_madvise - madvise(@start, @len, MADV_HUGEPAGE or MADV_NOHUGEPAGE)
 * @mm: the calling process's mm
 * @start: a mapping's start
 * @len: its length (the whole mapping: the model does not split VMAs here)
 * @on: MADV_HUGEPAGE (set VM_HUGEPAGE) or MADV_NOHUGEPAGE (clear it)
 *
 * The model's VM_HUGEPAGE is vma->thp_eligible: the VMA may take the
 * enabled mTHP size at fault (alloc_anon_folio()) and PMD THPs from
 * khugepaged; MADV_HUGEPAGE registers the mm with khugepaged
 * (khugepaged_enter_vma()) as the kernel's hugepage_madvise() caller does.
 * Anonymous private mappings only (the model's page cache is order 0).
 * Context: process context; takes mmap_lock for writing (madvise_need_mmap_write()).
 * Return: 0; -EINVAL for a range that is not one whole anonymous mapping.
 */
static int hugepage_madvise(struct mm_struct *mm, uint64_t start, uint64_t len, bool on)
{
	struct vm_area_struct *vma;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	mmap_write_lock(mm);
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start != start || vma->vm_end != start + len || vma->vm_file ||
	    (vma->vm_flags & VM_SHARED)) {
		mmap_write_unlock(mm);
		return -22;
	}
	if (vma->thp_eligible != on) {
		vma_start_write(vma->merged, mm);
		vma->thp_eligible = on;
	}
	if (on)
		khugepaged_enter_vma(vma);
	mmap_write_unlock(mm);
	return 0;
}

/**
 * do_madvise - madvise(@start, @len, @behavior) by the kernel's advice value
 * @mm: the calling process's mm
 * @start: page-aligned start
 * @len: bytes
 * @behavior: MADV_DONTNEED, MADV_FREE, MADV_COLD, MADV_PAGEOUT,
 *            MADV_POPULATE_READ, MADV_POPULATE_WRITE, MADV_HUGEPAGE or
 *            MADV_NOHUGEPAGE
 *
 * Each advice runs the function above that models it (with that
 * function's limits on the range).
 * Context: process context.
 * Return: that function's result; -EINVAL for another advice.
 */
int do_madvise(struct mm_struct *mm, uint64_t start, uint64_t len, int behavior)
{
	switch (behavior) {
	case MADV_DONTNEED:
		return madvise_dontneed(mm, start, len);
	case MADV_FREE:
		return madvise_free(mm, start, len);
	case MADV_COLD:
		return madvise_cold(mm, start, len);
	case MADV_PAGEOUT:
		return madvise_pageout(mm, start, len);
	case MADV_POPULATE_READ:
		return madvise_populate(mm, start, len, false);
	case MADV_POPULATE_WRITE:
		return madvise_populate(mm, start, len, true);
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
		return hugepage_madvise(mm, start, len, behavior == MADV_HUGEPAGE);
	default:
		return -22;
	}
}
