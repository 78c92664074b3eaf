// SPDX-License-Identifier: GPL-2.0-only
/*
 * khugepaged (mm/khugepaged.c): the kernel thread that collapses runs of
 * small anonymous pages into PMD-mapped transparent huge pages.
 *
 * Read: torvalds/linux mm/khugepaged.c at commit 00f58104 (the v6.14-era
 * text with TVA_ENFORCE_SYSFS and folio_likely_mapped_shared()), and the
 * seed 004 patch (Vernon Yang, Dec 2025) for khugepaged_move_tail(), whose
 * context is a v6.19 tree with the same scan loop; the series as merged in
 * April 2026 (v7.1: "mm: khugepaged: skip lazy-free folios") from its
 * postings, for variant skip-lazyfree.
 *
 * Mirrors
 *   __khugepaged_enter()         -> khugepaged_enter_raw(): registration, FIFO
 *   khugepaged_enter_vma()       at the first fault of an eligible VMA
 *   __khugepaged_exit()          -> khugepaged_exit_raw()
 *   khugepaged_move_tail()       the seed's patch (variant `after` calls it)
 *   khugepaged()                 the thread: do_scan, then wait_work
 *   khugepaged_do_scan()         budget of pages_to_scan progress units,
 *                                pass_through_head, lru_add_drain_all()
 *   khugepaged_scan_mm_slot()    one mm from the cursor: +1 per mm visit,
 *                                +1 per ineligible VMA, +HPAGE_PMD_NR per
 *                                PMD range whatever the result (v6.14;
 *                                the variant's khugepaged_pmd_progress), or
 *                                the entries looked at (the merged series,
 *                                variant skip-lazyfree), stop after a
 *                                collapse attempt
 *   hpage_collapse_scan_pmd()    the 512-PTE checks and enum scan_result;
 *                                SCAN_PAGE_LAZYFREE (the merged series)
 *   collapse_huge_page()         allocate and charge 2M, mmap_lock for
 *                                writing, clear the PMD and flush (IPIs),
 *                                isolate, copy, free the small folios,
 *                                install the huge PMD
 *   collect_mm_slot()
 *
 * Leaves out
 *   - mm_slots_hash: mm_slot_lookup() walks the list (three to a few mms;
 *     the order of the list, which is what matters, is the kernel's).
 *   - File and shmem collapse, swap-in before collapse (the model has no
 *     swap entries here), uffd-wp, NUMA node choice (one node), the
 *     anon_vma lock and MMU notifiers, tlb_remove_table_sync_one(),
 *     the deposit of the page table, mTHP collapse.
 *   - A PTE table that exists but holds no entries: the model's tables are
 *     preallocated, so an all-none range is reported as pmd_none()
 *     (SCAN_PMD_NONE), as an untouched range is in the kernel.
 *   - The wait queue: the thread notices a wake-up (a registration into an
 *     empty list, a stop) within KHUGEPAGED_POLL of virtual time; its
 *     first pass starts at first_wake_millisecs (a running system's
 *     khugepaged is somewhere in its sleep when a test starts).
 *   - The flush of collapse_huge_page() is charged as a full flush of the
 *     mm (a 2M range is above the 33-page ceiling in 4K pages); the kernel
 *     flushes one 2M entry (stride PMD_SHIFT).  Same IPIs, more refills.
 *
 * Lock order (as the kernel's):
 *   khugepaged_mm_lock (spinlock, IRQs on; dropped before any mm is touched)
 *   mmap_lock (read trylock for the scan; read, then write for a collapse)
 *     PTL of the PMD range (pmd_lock and pte lock are the same lock here)
 *       lruvec->lru_lock (isolation, folio_add_lru)
 */
#include <string.h>

#include "mm/khugepaged.h"

#define KHUGEPAGED_POLL		(1 * SIM_MS)	/* wake-up granularity, model only */
#define MMF_SIM_EXITING		1		/* model: mm_users reached 0 */

/*
 * A registered mm (mm/mm_slot.h, without the hash node).
 * Invariant: on khugepaged_scan.mm_head iff MMF_VM_HUGEPAGE is set in mm.
 */
struct mm_slot {
	struct list_head mm_node;	/* on khugepaged_scan.mm_head */
	struct mm_struct *mm;
};

/*
 * The one scan cursor.
 * Invariant: mm_slot == NULL or mm_slot is on mm_head; all under
 * khugepaged_mm_lock.
 */
struct khugepaged_scan {
	struct list_head mm_head;	/* registered mms, FIFO */
	struct mm_slot *mm_slot;	/* the mm being scanned */
	uint64_t address;		/* next address to scan in it */
};

static struct khugepaged_scan khugepaged_scan;
static struct spinlock khugepaged_mm_lock;
static struct khugepaged_tunables khugepaged_tun;
static unsigned int khugepaged_pages_collapsed;
static unsigned int khugepaged_full_scans;
static bool khugepaged_should_stop;	/* kthread_should_stop() */
static bool khugepaged_has_exited;

/* enum scan_result -> the model's counter of that tracepoint status. */
static enum sim_counter scan_result_counter(enum scan_result r)
{
	switch (r) {
	case SCAN_SUCCEED:		return SIM_SCAN_PMD_SUCCEED;
	case SCAN_PMD_NONE:		return SIM_SCAN_PMD_PMD_NONE;
	case SCAN_PMD_MAPPED:		return SIM_SCAN_PMD_PMD_MAPPED;
	case SCAN_EXCEED_NONE_PTE:	return SIM_SCAN_PMD_EXCEED_NONE_PTE;
	case SCAN_EXCEED_SWAP_PTE:	return SIM_SCAN_PMD_EXCEED_SWAP_PTE;
	case SCAN_EXCEED_SHARED_PTE:	return SIM_SCAN_PMD_EXCEED_SHARED_PTE;
	case SCAN_PAGE_RO:		return SIM_SCAN_PMD_PAGE_RO;
	case SCAN_LACK_REFERENCED_PAGE:	return SIM_SCAN_PMD_LACK_REFERENCED;
	case SCAN_PAGE_LRU:		return SIM_SCAN_PMD_PAGE_LRU;
	case SCAN_PAGE_COUNT:		return SIM_SCAN_PMD_PAGE_COUNT;
	case SCAN_PAGE_LAZYFREE:	return SIM_SCAN_PMD_PAGE_LAZYFREE;
	default:			return SIM_SCAN_PMD_OTHER;
	}
}

/**
 * khugepaged_default_tunables - the kernel's defaults
 * @t: filled with khugepaged_init()'s values (v6.14)
 *
 * first_wake_millisecs, the model's own, defaults to scan_sleep_millisecs.
 */
void khugepaged_default_tunables(struct khugepaged_tunables *t)
{
	t->pages_to_scan = HPAGE_PMD_NR * 8;
	t->scan_sleep_millisecs = 10000;
	t->alloc_sleep_millisecs = 60000;
	t->max_ptes_none = HPAGE_PMD_NR - 1;
	t->max_ptes_swap = HPAGE_PMD_NR / 8;
	t->max_ptes_shared = HPAGE_PMD_NR / 2;
	t->first_wake_millisecs = t->scan_sleep_millisecs;
}

/**
 * khugepaged_init - reset khugepaged's state for a new model
 * @t: the tunables (sysfs values) of this run
 *
 * Also turns PMD THP on (hugepage_pmd_enabled()), so that faults register.
 * Context: after mm_model_create(), before the engine runs.
 */
void khugepaged_init(const struct khugepaged_tunables *t)
{
	INIT_LIST_HEAD(&khugepaged_scan.mm_head);
	khugepaged_scan.mm_slot = NULL;
	khugepaged_scan.address = 0;
	spin_lock_init_named(&khugepaged_mm_lock, "khugepaged_mm_lock");
	khugepaged_tun = *t;
	khugepaged_pages_collapsed = 0;
	khugepaged_full_scans = 0;
	khugepaged_should_stop = false;
	khugepaged_has_exited = false;
	sim_mm->thp_pmd_enabled = true;
}

/**
 * khugepaged_destroy - free the slots left on the list
 *
 * Context: after the engine has run.
 */
void khugepaged_destroy(void)
{
	while (khugepaged_scan.mm_head.next && !list_empty(&khugepaged_scan.mm_head)) {
		struct mm_slot *slot = list_first_entry(&khugepaged_scan.mm_head,
							struct mm_slot, mm_node);

		list_del_init(&slot->mm_node);
		slot->mm->flags &= ~(1UL << MMF_VM_HUGEPAGE);
		free(slot);
	}
	khugepaged_scan.mm_slot = NULL;
}

unsigned int khugepaged_pages_collapsed_read(void)
{
	return khugepaged_pages_collapsed;
}

unsigned int khugepaged_full_scans_read(void)
{
	return khugepaged_full_scans;
}

/**
 * khugepaged_list - the registered mms in scan order
 * @mms: filled with up to @max mms
 * @max: size of @mms
 * @cursor: set to the index of the cursor's mm, or -1
 *
 * Context: any; for tests and reports (reads without the lock).
 * Return: the number of registered mms.
 */
int khugepaged_list(struct mm_struct **mms, int max, int *cursor)
{
	struct list_head *pos;
	int n = 0;

	*cursor = -1;
	list_for_each(pos, &khugepaged_scan.mm_head) {
		struct mm_slot *slot = list_entry(pos, struct mm_slot, mm_node);

		if (slot == khugepaged_scan.mm_slot)
			*cursor = n;
		if (n < max)
			mms[n] = slot->mm;
		n++;
	}
	return n;
}

static bool hpage_collapse_test_exit(const struct mm_struct *mm)
{
	return mm->flags & (1UL << MMF_SIM_EXITING);
}

/* mm_slot_lookup(): the kernel hashes; the model walks the list. */
static struct mm_slot *mm_slot_lookup(struct mm_struct *mm)
{
	struct list_head *pos;

	sim_cost_cpu_ps(sim_mm->list_op_ps);
	list_for_each(pos, &khugepaged_scan.mm_head) {
		struct mm_slot *slot = list_entry(pos, struct mm_slot, mm_node);

		if (slot->mm == mm)
			return slot;
	}
	return NULL;
}

/* thp_vma_allowable_order(vma, ..., PMD_ORDER) for an anonymous VMA. */
static bool thp_vma_allowable_pmd(const struct vm_area_struct *vma)
{
	uint64_t hstart = (vma->vm_start + PMD_SIZE - 1) & ~(PMD_SIZE - 1);

	return vma->thp_eligible && hstart + PMD_SIZE <= vma->vm_end;
}

/**
 * khugepaged_enter_raw - register @mm with khugepaged (__khugepaged_enter())
 * @mm: an mm with an eligible VMA
 *
 * Appends the mm's slot to the scan list: "insert just behind the scanning
 * cursor", so the list order is the order of registration.
 * Context: takes khugepaged_mm_lock.
 */
void khugepaged_enter_raw(struct mm_struct *mm)
{
	struct mm_slot *slot;

	if (mm->flags & (1UL << MMF_VM_HUGEPAGE))	/* test_and_set_bit() */
		return;
	mm->flags |= 1UL << MMF_VM_HUGEPAGE;
	slot = calloc(1, sizeof(*slot));
	if (!slot)
		abort();
	slot->mm = mm;
	sim_cost_cpu_ps(sim_mm->folio_op_ps);		/* mm_slot_alloc() */
	spin_lock(&khugepaged_mm_lock);
	list_add_tail(&slot->mm_node, &khugepaged_scan.mm_head);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	spin_unlock(&khugepaged_mm_lock);
}

/**
 * khugepaged_enter_vma - register the VMA's mm if it may hold PMD THPs
 * @vma: a VMA being faulted or mapped
 *
 * Context: mmap_lock or the VMA lock held.
 */
void khugepaged_enter_vma(struct vm_area_struct *vma)
{
	if (!(vma->vm_mm->flags & (1UL << MMF_VM_HUGEPAGE)) && sim_mm->thp_pmd_enabled &&
	    thp_vma_allowable_pmd(vma))
		khugepaged_enter_raw(vma->vm_mm);
}

/* collect_mm_slot(): free the slot of an exited mm.  khugepaged_mm_lock held. */
static void collect_mm_slot(struct mm_slot *slot)
{
	struct mm_struct *mm = slot->mm;

	if (!hpage_collapse_test_exit(mm))
		return;
	list_del_init(&slot->mm_node);
	mm->flags &= ~(1UL << MMF_VM_HUGEPAGE);
	free(slot);
}

/**
 * khugepaged_exit_raw - @mm is exiting (__khugepaged_exit())
 * @mm: the mm, whose last user is gone
 *
 * Frees the slot unless khugepaged's cursor is on it; then waits for
 * khugepaged to leave the mm (mmap_write_lock/unlock), and the slot is
 * collected by khugepaged.
 * Context: process context; takes khugepaged_mm_lock, maybe mmap_lock.
 */
void khugepaged_exit_raw(struct mm_struct *mm)
{
	struct mm_slot *slot;
	bool freed = false;

	mm->flags |= 1UL << MMF_SIM_EXITING;
	spin_lock(&khugepaged_mm_lock);
	slot = mm_slot_lookup(mm);
	if (slot && khugepaged_scan.mm_slot != slot) {
		list_del_init(&slot->mm_node);
		freed = true;
	}
	spin_unlock(&khugepaged_mm_lock);
	if (freed) {
		mm->flags &= ~(1UL << MMF_VM_HUGEPAGE);
		free(slot);
	} else if (slot) {
		down_write(&mm->mmap_lock);
		up_write(&mm->mmap_lock);
	}
}

/**
 * khugepaged_move_tail - scan @mm last (seed 004)
 * @mm: an mm that the user has just declared cold or free
 *
 * Moves the mm's slot to the tail of the scan list, unless it is the slot
 * under the cursor.  A no-op for an unregistered mm.
 * Context: process context; takes khugepaged_mm_lock.
 */
void khugepaged_move_tail(struct mm_struct *mm)
{
	struct mm_slot *slot;

	if (!(mm->flags & (1UL << MMF_VM_HUGEPAGE)))
		return;
	spin_lock(&khugepaged_mm_lock);
	slot = mm_slot_lookup(mm);
	if (slot && khugepaged_scan.mm_slot != slot) {
		list_move_tail(&slot->mm_node, &khugepaged_scan.mm_head);
		sim_cost_cpu_ps(sim_mm->list_op_ps);
	}
	spin_unlock(&khugepaged_mm_lock);
}

/* ---- collapse ------------------------------------------------------------ */

static inline struct spinlock *vma_ptl(struct vm_area_struct *vma, uint64_t addr)
{
	return &vma->ptl[vma_pmd_index(vma, addr)];
}

static inline pte_t *vma_pte(struct vm_area_struct *vma, uint64_t addr)
{
	return &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT];
}

/* The model has no fork: an anonymous folio is mapped by one mm. */
static bool folio_likely_mapped_shared(const struct folio *folio)
{
	(void)folio;
	return false;
}

/* is_refcount_suitable(): only the mappings (and the swap cache) hold it. */
static bool is_refcount_suitable(const struct folio *folio)
{
	int expected = folio->_mapcount;

	if (folio_test(folio, PG_swapcache))
		expected += (int)folio_nr_pages(folio);
	return folio_ref_count(folio) == expected;
}

/* hugepage_vma_revalidate() + find_pmd_or_thp_or_none(), after relocking. */
static enum scan_result hugepage_vma_revalidate(struct mm_struct *mm, uint64_t address,
						struct vm_area_struct **vmap)
{
	struct vm_area_struct *vma = find_vma(mm, address);

	if (!vma || hpage_collapse_test_exit(mm))
		return SCAN_VMA_NULL;
	if (!thp_vma_allowable_pmd(vma) || address < vma->vm_start ||
	    address + PMD_SIZE > vma->vm_end)
		return SCAN_ADDRESS_RANGE;
	if (vma->pmd_huge[vma_pmd_index(vma, address)])
		return SCAN_PMD_MAPPED;
	*vmap = vma;
	return SCAN_SUCCEED;
}

/* alloc_charge_folio(): a PMD-sized folio, charged to the mm's memcg. */
static enum scan_result alloc_charge_folio(struct folio **foliop, struct mm_struct *mm)
{
	struct folio *folio = folio_alloc_node(HPAGE_PMD_ORDER, sim_mm->preferred_nid);

	*foliop = NULL;
	if (!folio) {
		count_event(SIM_THP_COLLAPSE_ALLOC_FAILED);
		return SCAN_ALLOC_HUGE_PAGE_FAIL;
	}
	count_event(SIM_THP_COLLAPSE_ALLOC);
	if (mem_cgroup_charge(folio, mm->memcg)) {
		folio->_refcount = 0;
		folio->place = FOLIO_GATHER;
		free_frozen_folio(folio);
		return SCAN_CGROUP_CHARGE_FAIL;
	}
	*foliop = folio;
	return SCAN_SUCCEED;
}

/*
 * folio_isolate_lru(): take the folio off its LRU list; false if another
 * CPU has isolated it.  As the kernel's, it claims the folio by clearing
 * PG_lru before it takes lru_lock, so that no CPU that runs while this one
 * waits for the lock can move the folio too.  (The kernel also takes a
 * reference here; the model's collapse keeps the mapping's.)
 */
static bool folio_isolate_lru(struct folio *folio)
{
	struct cpu_fbatches *cpu = &sim_mm->fbatches[smp_processor_id()];
	struct lruvec *lruvec;
	unsigned long flags;

	if (!folio_test_clear(folio, PG_lru))	/* folio_test_clear_lru() */
		return false;
	folio->place = FOLIO_ISOLATED;
	cpu->lru_isolating = folio;		/* on its list until the lock is ours */
	lruvec = folio_lruvec_relock_irqsave(folio, NULL, &flags);
	lruvec_del_folio(lruvec, folio);
	cpu->lru_isolating = NULL;
	lruvec_unlock_irqrestore(lruvec, flags);
	return true;
}

/* folio_putback_lru(): back to the LRU through this CPU's batch. */
static void folio_putback_lru(struct folio *folio)
{
	folio->place = FOLIO_MAPPED;
	folio_add_lru(folio);
}

static bool folio_test_lazyfree(const struct folio *folio);

/*
 * collapse_huge_page(): called with mmap_lock held for reading, returns
 * with it released.  The caller's hpage_collapse_scan_pmd() found the
 * range collapsible.
 *
 *   khugepaged (this CPU)                  the mm's task (its CPU)
 *   mmap_write_lock()
 *   PMD cleared; flush_tlb_mm_range() ---> IPI: flush_tlb_func(): TLB entries go
 *     (waits for the IPI)                  next access to the range walks, sees
 *                                          pmd_none(), faults: mmap_read_lock()
 *   isolate, copy, free small folios         ... sleeps
 *   set_pmd_at(huge PMD)
 *   mmap_write_unlock()           ------>  fault returns; the access walks to the
 *                                          huge PMD and fills a 2M TLB entry
 */
static enum scan_result collapse_huge_page(struct mm_struct *mm, uint64_t address,
					   int referenced, int unmapped)
{
	SIM_TRACE_SCOPE("khugepaged", "collapse_huge_page");
	struct vm_area_struct *vma = NULL;
	struct folio *folio, *old[HPAGE_PMD_NR];
	struct folio_batch fbatch;
	enum scan_result result;
	struct spinlock *ptl;
	int i, nr_old = 0, nr_none = 0;
	uint64_t idx;

	(void)referenced;
	(void)unmapped;		/* no swap entries in the model: no swap-in */
	up_read(&mm->mmap_lock);
	result = alloc_charge_folio(&folio, mm);
	if (result != SCAN_SUCCEED)
		return result;

	down_read(&mm->mmap_lock);
	result = hugepage_vma_revalidate(mm, address, &vma);
	up_read(&mm->mmap_lock);
	if (result != SCAN_SUCCEED)
		goto out_nolock;

	down_write(&mm->mmap_lock);
	result = hugepage_vma_revalidate(mm, address, &vma);
	if (result != SCAN_SUCCEED)
		goto out_up_write;
	idx = vma_pmd_index(vma, address);
	ptl = vma_ptl(vma, address);

	/* pmdp_collapse_flush() under pmd_lock: no walk finds the PTE table now. */
	spin_lock(ptl);
	vma->pmd_flags[idx] |= PMD_CLEARED;
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	flush_tlb_mm_range(mm, address, address + PMD_SIZE, false);
	spin_unlock(ptl);

	/* __collapse_huge_page_isolate() under the PTE lock. */
	spin_lock(ptl);
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		pte_t pte = *vma_pte(vma, address + (uint64_t)i * PAGE_SIZE);
		struct folio *f;

		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		if (pte_none(pte)) {
			nr_none++;
			continue;
		}
		f = pte_folio(pte);
		sim_cost_cpu_ps(sim_mm->folio_op_ps);
		/*
		 * The merged series checks here too: a clean lazyfree folio
		 * (MADV_FREE since the scan) is not collapsed.
		 */
		if (sim_mm->variant->khugepaged_skip_lazyfree && folio_test_lazyfree(f) &&
		    !(pte & PTE_DIRTY)) {
			result = SCAN_PAGE_LAZYFREE;
			break;
		}
		if (!is_refcount_suitable(f) || !folio_isolate_lru(f)) {
			result = SCAN_DEL_PAGE_LRU;
			break;
		}
		old[nr_old++] = f;
	}
	spin_unlock(ptl);
	if (result != SCAN_SUCCEED) {
		/* Put the PMD back as it was: the PTE table is mapped again. */
		while (nr_old)
			folio_putback_lru(old[--nr_old]);
		vma->pmd_flags[idx] &= ~PMD_CLEARED;
		goto out_up_write;
	}

	/*
	 * __collapse_huge_page_copy(): copy the pages (read each small folio
	 * on its node, write the THP on its own), zero the holes.
	 */
	if (nr_old) {
		uint64_t from[SIM_MAX_NODES] = { 0 };
		int n;

		for (i = 0; i < nr_old; i++)
			from[old[i]->nid] += PAGE_SIZE;	/* one per PTE copied */
		for (n = 0; n < SIM_MAX_NODES; n++)
			if (from[n])
				memsys_copy(sim_mm->memsys, n, folio->nid, from[n],
					    sim_mm->prof->mem_copy_gbps);
	}
	if (nr_none)
		mem_zero_pages(folio->nid, (uint64_t)nr_none << PAGE_SHIFT);

	/* __collapse_huge_page_copy_succeeded(): clear the PTEs, drop the old folios. */
	spin_lock(ptl);
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		pte_t *pte = vma_pte(vma, address + (uint64_t)i * PAGE_SIZE);

		if (pte_none(*pte))
			continue;
		folio_remove_rmap_ptes(pte_folio(*pte), 1, vma);
		*pte = 0;
		sim_cost_cpu_ps(sim_mm->pte_op_ps);
	}
	mm->rss_anon -= nr_old;
	spin_unlock(ptl);
	folio_batch_init(&fbatch);
	for (i = 0; i < nr_old; i++) {
		if (folio_batch_add(&fbatch, old[i]) == 0)
			folios_put(&fbatch);
	}
	if (folio_batch_count(&fbatch))
		folios_put(&fbatch);

	/* Install the huge PMD under pmd_lock. */
	spin_lock(ptl);
	folio_add_new_anon_rmap(folio, vma, address);
	folio->_mapcount = 1;		/* one PMD: the kernel's entire mapcount */
	folio->place = FOLIO_MAPPED;
	folio_add_lru(folio);
	vma->pmd_huge[idx] = folio;
	vma->nr_pmd_huge++;
	vma->pmd_flags[idx] = PMD_YOUNG | PMD_DIRTY;	/* mk_huge_pmd(), pmd_mkdirty() */
	mm->rss_anon += HPAGE_PMD_NR;
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	deferred_split_folio(folio, false);
	spin_unlock(ptl);
	folio = NULL;
	result = SCAN_SUCCEED;
out_up_write:
	up_write(&mm->mmap_lock);
out_nolock:
	if (folio)
		folio_put(folio);
	return result;
}

/*
 * folio_test_lazyfree() (include/linux/page-flags.h): an anonymous folio
 * that MADV_FREE moved to the file LRU, PG_swapbacked clear.  Every folio
 * of the model is anonymous.
 */
static bool folio_test_lazyfree(const struct folio *folio)
{
	return !folio_test(folio, PG_swapbacked);
}

/*
 * hpage_collapse_scan_pmd(): may the 2M range at @address be collapsed?
 * Called with mmap_lock held for reading; *mmap_locked becomes false when
 * a collapse was attempted (which drops it).  *cur_progress is what the
 * range adds to the scan's progress: HPAGE_PMD_NR whatever happened (a
 * variant's khugepaged_pmd_progress), or,
 * as the merged series counts it (khugepaged_count_scanned), the entries
 * looked at: 1 for a PMD that maps a THP or no PTE table, else the PTEs
 * up to and including the one that decided the result.
 */
static enum scan_result hpage_collapse_scan_pmd(struct mm_struct *mm,
						struct vm_area_struct *vma,
						uint64_t address, bool *mmap_locked,
						unsigned int *cur_progress)
{
	SIM_TRACE_SCOPE("khugepaged", "hpage_collapse_scan_pmd");
	int none_or_zero = 0, shared = 0, referenced = 0, unmapped = 0, i;
	uint64_t idx = vma_pmd_index(vma, address);
	bool count_scanned = sim_mm->variant->khugepaged_count_scanned;
	bool writable = false;
	enum scan_result result = SCAN_FAIL;
	struct spinlock *ptl;
	pte_t *pte;

	*cur_progress = count_scanned ? 1 : sim_mm->consts.khugepaged_pmd_progress;
	/* find_pmd_or_thp_or_none() */
	if (vma->pmd_huge[idx]) {
		result = SCAN_PMD_MAPPED;
		goto out;
	}
	pte = vma_pte(vma, address);
	for (i = 0; i < HPAGE_PMD_NR && pte_none(pte[i]); i++)
		;
	if (i == HPAGE_PMD_NR) {
		result = SCAN_PMD_NONE;		/* no PTE table yet (SCAN_NO_PTE_TABLE) */
		goto out;
	}

	ptl = vma_ptl(vma, address);
	spin_lock(ptl);				/* pte_offset_map_lock() */
	result = SCAN_SUCCEED;
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		pte_t pteval = pte[i];
		struct folio *folio;

		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		if (pte_none(pteval)) {
			if (++none_or_zero <= (int)khugepaged_tun.max_ptes_none)
				continue;
			result = SCAN_EXCEED_NONE_PTE;
			count_event(SIM_THP_SCAN_EXCEED_NONE_PTE);
			break;
		}
		if (pteval & PTE_SWAP) {
			if (++unmapped <= (int)khugepaged_tun.max_ptes_swap)
				continue;
			result = SCAN_EXCEED_SWAP_PTE;
			count_event(SIM_THP_SCAN_EXCEED_SWAP_PTE);
			break;
		}
		if (!pte_present(pteval)) {
			result = SCAN_PTE_NON_PRESENT;
			break;
		}
		if (pteval & PTE_WRITE)
			writable = true;
		folio = pte_folio(pteval);
		sim_cost_cpu_ps(sim_mm->folio_op_ps);
		/*
		 * The merged series: a clean lazyfree folio ends the scan of
		 * the range, since a collapse would copy it into a THP that is
		 * not lazyfree and that reclaim could no longer drop.  (The
		 * kernel exempts VM_DROPPABLE VMAs, which the model does not
		 * have, and applies it to khugepaged only, as here.)
		 */
		if (sim_mm->variant->khugepaged_skip_lazyfree && folio_test_lazyfree(folio) &&
		    !(pteval & PTE_DIRTY)) {
			result = SCAN_PAGE_LAZYFREE;
			break;
		}
		if (folio_likely_mapped_shared(folio) &&
		    ++shared > (int)khugepaged_tun.max_ptes_shared) {
			result = SCAN_EXCEED_SHARED_PTE;
			count_event(SIM_THP_SCAN_EXCEED_SHARE_PTE);
			break;
		}
		if (!folio_test_lru(folio)) {
			result = SCAN_PAGE_LRU;
			break;
		}
		if (folio_test(folio, PG_locked)) {
			result = SCAN_PAGE_LOCK;
			break;
		}
		if (!is_refcount_suitable(folio)) {
			result = SCAN_PAGE_COUNT;
			break;
		}
		if ((pteval & PTE_YOUNG) || folio_test(folio, PG_young) ||
		    folio_test(folio, PG_referenced))
			referenced++;
	}
	if (count_scanned)
		*cur_progress = (unsigned int)(i < HPAGE_PMD_NR ? i + 1 : HPAGE_PMD_NR);
	if (result == SCAN_SUCCEED) {
		if (!writable)
			result = SCAN_PAGE_RO;
		else if (!referenced || (unmapped && referenced < HPAGE_PMD_NR / 2))
			result = SCAN_LACK_REFERENCED_PAGE;	/* cc->is_khugepaged */
	}
	spin_unlock(ptl);			/* pte_unmap_unlock() */
	if (result == SCAN_SUCCEED) {
		result = collapse_huge_page(mm, address, referenced, unmapped);
		*mmap_locked = false;		/* collapse_huge_page() dropped it */
	}
out:
	count_event(scan_result_counter(result));
	return result;
}

/* ---- the scan loop ------------------------------------------------------- */

static bool khugepaged_has_work(void)
{
	return !list_empty(&khugepaged_scan.mm_head) && sim_mm->thp_pmd_enabled;
}

/*
 * khugepaged_scan_mm_slot(): scan the cursor's mm from the cursor's
 * address for at most @pages progress units.  Called and returns with
 * khugepaged_mm_lock held; drops it while it works on the mm.
 */
static unsigned int khugepaged_scan_mm_slot(unsigned int pages, enum scan_result *result)
{
	struct vm_area_struct *vma = NULL;
	struct mm_slot *slot;
	struct list_head *pos;
	struct mm_struct *mm;
	unsigned int progress = 0;

	*result = SCAN_FAIL;
	if (khugepaged_scan.mm_slot) {
		slot = khugepaged_scan.mm_slot;
	} else {
		slot = list_first_entry(&khugepaged_scan.mm_head, struct mm_slot, mm_node);
		khugepaged_scan.address = 0;
		khugepaged_scan.mm_slot = slot;
	}
	spin_unlock(&khugepaged_mm_lock);

	mm = slot->mm;
	/* Do not wait for mmap_lock: move on to the next mm. */
	if (!down_read_trylock(&mm->mmap_lock))
		goto breakouterloop_mmap_lock;
	progress++;
	if (hpage_collapse_test_exit(mm))
		goto breakouterloop;

	/* vma_iter_init(&vmi, mm, address); for_each_vma(vmi, vma) */
	for (pos = mm->vmas.next; pos != &mm->vmas; pos = pos->next) {
		uint64_t hstart, hend;

		vma = list_entry(pos, struct vm_area_struct, node);
		if (vma->vm_end <= khugepaged_scan.address)
			continue;
		cond_resched();
		if (hpage_collapse_test_exit(mm)) {
			progress++;
			break;
		}
		hstart = (vma->vm_start + PMD_SIZE - 1) & ~(PMD_SIZE - 1);
		hend = vma->vm_end & ~(PMD_SIZE - 1);
		if (!thp_vma_allowable_pmd(vma) || khugepaged_scan.address > hend) {
			progress++;		/* skip: */
			continue;
		}
		if (khugepaged_scan.address < hstart)
			khugepaged_scan.address = hstart;

		while (khugepaged_scan.address < hend) {
			bool mmap_locked = true;
			unsigned int cur_progress;

			cond_resched();
			if (hpage_collapse_test_exit(mm))
				goto breakouterloop;
			*result = hpage_collapse_scan_pmd(mm, vma, khugepaged_scan.address,
							  &mmap_locked, &cur_progress);
			if (*result == SCAN_SUCCEED) {
				++khugepaged_pages_collapsed;
				count_event(SIM_KHUGEPAGED_PAGES_COLLAPSED);
			}
			/* move to the next address */
			khugepaged_scan.address += PMD_SIZE;
			progress += cur_progress;
			if (!mmap_locked)
				goto breakouterloop_mmap_lock;	/* a collapse was tried */
			if (progress >= pages)
				goto breakouterloop;
		}
	}
	vma = NULL;				/* every VMA was scanned */
breakouterloop:
	up_read(&mm->mmap_lock);
breakouterloop_mmap_lock:
	spin_lock(&khugepaged_mm_lock);
	SIM_BUG_ON(khugepaged_scan.mm_slot != slot);
	/* Release the slot if the mm is exiting or every VMA was scanned. */
	if (hpage_collapse_test_exit(mm) || !vma) {
		if (slot->mm_node.next != &khugepaged_scan.mm_head) {
			khugepaged_scan.mm_slot = list_entry(slot->mm_node.next,
							     struct mm_slot, mm_node);
			khugepaged_scan.address = 0;
		} else {
			khugepaged_scan.mm_slot = NULL;
			khugepaged_full_scans++;
			count_event(SIM_KHUGEPAGED_FULL_SCANS);
		}
		collect_mm_slot(slot);
	}
	count_events(SIM_KHUGEPAGED_PAGES_SCANNED, progress);
	return progress;
}

/* Sleep @ps of virtual time, or less if the thread is told to stop. */
static void khugepaged_sleep(sim_time_t ps)
{
	sim_time_t until = sim_now() + ps;

	while (!khugepaged_should_stop && sim_now() < until) {
		sim_time_t left = until - sim_now();

		sim_sleep_ps(left < KHUGEPAGED_POLL ? left : KHUGEPAGED_POLL);
	}
}

/**
 * khugepaged_do_scan - one wake-up's work: scan up to pages_to_scan units
 *
 * Context: the khugepaged thread (tests may call it from any task).
 */
void khugepaged_do_scan(void)
{
	unsigned int progress = 0, pass_through_head = 0;
	unsigned int pages = khugepaged_tun.pages_to_scan;
	enum scan_result result = SCAN_SUCCEED;
	bool wait = true;

	lru_add_drain_all();
	for (;;) {
		cond_resched();
		if (khugepaged_should_stop)
			break;
		spin_lock(&khugepaged_mm_lock);
		if (!khugepaged_scan.mm_slot)
			pass_through_head++;
		if (khugepaged_has_work() && pass_through_head < 2)
			progress += khugepaged_scan_mm_slot(pages - progress, &result);
		else
			progress = pages;
		spin_unlock(&khugepaged_mm_lock);
		if (progress >= pages)
			break;
		if (result == SCAN_ALLOC_HUGE_PAGE_FAIL) {
			/* The first failure sleeps; the second ends this pass. */
			if (!wait)
				break;
			wait = false;
			khugepaged_sleep((sim_time_t)khugepaged_tun.alloc_sleep_millisecs * SIM_MS);
		}
	}
}

/* khugepaged_wait_work(): sleep scan_sleep_millisecs, or until there is work. */
static void khugepaged_wait_work(void)
{
	if (khugepaged_has_work()) {
		khugepaged_sleep((sim_time_t)khugepaged_tun.scan_sleep_millisecs * SIM_MS);
		return;
	}
	while (!khugepaged_should_stop && !khugepaged_has_work())
		sim_sleep_ps(KHUGEPAGED_POLL);
}

/**
 * khugepaged - the kernel thread's body
 * @arg: unused
 *
 * Sleeps until first_wake_millisecs, then scans and sleeps in turn until
 * kthread_stop_khugepaged(); then releases the cursor's slot.
 * Context: a kernel thread on its own vCPU.
 */
void khugepaged(void *arg)
{
	struct mm_slot *slot;

	(void)arg;
	khugepaged_sleep((sim_time_t)khugepaged_tun.first_wake_millisecs * SIM_MS);
	while (!khugepaged_should_stop) {
		khugepaged_do_scan();
		khugepaged_wait_work();
	}
	spin_lock(&khugepaged_mm_lock);
	slot = khugepaged_scan.mm_slot;
	khugepaged_scan.mm_slot = NULL;
	if (slot)
		collect_mm_slot(slot);
	spin_unlock(&khugepaged_mm_lock);
	khugepaged_has_exited = true;
}

/**
 * kthread_stop_khugepaged - ask the thread to stop (kthread_stop())
 *
 * The thread notices within KHUGEPAGED_POLL; khugepaged_exited() tells
 * when it is gone.
 * Context: any task.
 */
void kthread_stop_khugepaged(void)
{
	khugepaged_should_stop = true;
}

bool khugepaged_exited(void)
{
	return khugepaged_has_exited;
}
