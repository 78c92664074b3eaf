// SPDX-License-Identifier: GPL-2.0-only
/*
 * Anonymous reverse mapping (mm/rmap.c), reduced to what the scenarios
 * use: a folio of a private anonymous mapping is mapped by one mm, so the
 * rmap is (folio->mm, folio->index) and the mapcount.
 * Mirrors folio_add_new_anon_rmap(), folio_remove_rmap_ptes() and
 * folio_remove_rmap_pmd(); a large
 * anon folio that stays partly mapped is queued for deferred split, as
 * __folio_remove_rmap() does.
 * Left out: anon_vma trees and forks (no sharing), per-page mapcounts.
 */
#include "mm/mm.h"

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, uint64_t addr)
{
	folio->mm = vma->vm_mm;
	folio->index = addr >> PAGE_SHIFT;
	folio->_mapcount = (int32_t)folio_nr_pages(folio);
	folio_set(folio, PG_swapbacked);
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
}

/**
 * folio_remove_rmap_ptes - @nr PTEs that mapped @folio were cleared
 * @folio: the folio
 * @nr: pages unmapped
 * @vma: the VMA they were in
 *
 * Context: PTL held.
 */
void folio_remove_rmap_ptes(struct folio *folio, int nr, struct vm_area_struct *vma)
{
	(void)vma;
	folio->_mapcount -= nr;
	SIM_BUG_ON_FOLIO(folio->_mapcount < 0, folio);
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	if (folio_test_large(folio) && folio->_mapcount > 0 &&
	    folio_test(folio, PG_swapbacked))
		deferred_split_folio(folio, true);
}

/* ---- reclaim's side of the rmap (seed 003) ---------------------------------------
 *
 * Read at torvalds/linux v6.15 mm/rmap.c and include/linux/mm_types_task.h.
 * Mirrors folio_referenced() -> folio_referenced_one() (clears the young
 * bit of each PTE; on x86 without a TLB flush; with MGLRU a young PTE's
 * neighbours are looked at too, lru_gen_look_around() in vmscan.c),
 * try_to_unmap() -> try_to_unmap_one() for an anon folio in the swap cache (swap PTE, swap
 * count, MM_SWAPENTS, the mapping's references dropped), should_defer_flush(),
 * set_tlb_ubc_flush_pending(), try_to_unmap_flush() and
 * try_to_unmap_flush_dirty().  The folio lock (PG_locked) is here too.
 *
 * The deferred flush protocol (batch-then-flush):
 *
 *   reclaimer (CPU A)                         owner of the mm (CPU B)
 *   PTL; clear PTE (dirty, writable)          B's TLB may still hold the
 *   batch.cpumask |= mm_cpumask = {B}           writable entry: B can write
 *   writable = true; unlock PTL                  to the page until flushed
 *   try_to_unmap_flush_dirty():
 *     IPI B, wait  --------------------------> flush_tlb_func(): full flush
 *   <------------------------------------------ done
 *   pageout(): I/O starts; B can no longer write to the page
 *
 * The model marks each folio whose dirty PTE was cleared with a deferred
 * flush (PG_stale_tlb) until the flush completes; pageout() checks it.
 * Left out: anon_vma (a folio has one mapping: folio->mm at folio->index),
 * the mmu notifiers, TTU_SPLIT_HUGE_PMD (order-0 folios only), mlock.
 * Lock order: folio lock -> PTL.
 */

/**
 * current_tlb_ubc - the running task's tlbflush_unmap_batch (current->tlb_ubc)
 *
 * Return: the batch, created on first use.
 */
struct tlbflush_unmap_batch *current_tlb_ubc(void)
{
	int pid = sim_current()->pid;

	if (pid >= sim_mm->nr_tlb_ubc) {
		int n = pid + 16;
		struct tlbflush_unmap_batch **a = realloc(sim_mm->tlb_ubc, (size_t)n * sizeof(*a));
		int i;

		if (!a)
			abort();
		for (i = sim_mm->nr_tlb_ubc; i < n; i++)
			a[i] = NULL;
		sim_mm->tlb_ubc = a;
		sim_mm->nr_tlb_ubc = n;
	}
	if (!sim_mm->tlb_ubc[pid]) {
		sim_mm->tlb_ubc[pid] = calloc(1, sizeof(struct tlbflush_unmap_batch));
		if (!sim_mm->tlb_ubc[pid])
			abort();
	}
	return sim_mm->tlb_ubc[pid];
}

bool folio_trylock(struct folio *folio)
{
	sim_line_rmw(&folio->line);
	if (folio_test(folio, PG_locked))
		return false;
	folio_set(folio, PG_locked);
	return true;
}

/*
 * folio_lock(): the kernel sleeps on a hashed wait queue until the bit is
 * cleared; the model polls every sched.wakeup_ns (a wake-up's cost).
 */
void folio_lock(struct folio *folio)
{
	while (!folio_trylock(folio))
		sim_sleep_ps(sim_mm->prof->sched_wakeup_ns * SIM_NS);
}

void folio_unlock(struct folio *folio)
{
	SIM_BUG_ON_FOLIO(!folio_test(folio, PG_locked), folio);
	folio_clear(folio, PG_locked);
	sim_line_write(&folio->line);
}

/* The VMA of @mm that maps @index, and its PTE. */
static pte_t *folio_pte(struct folio *folio, struct vm_area_struct **vmap)
{
	uint64_t addr = folio->index << PAGE_SHIFT;
	struct vm_area_struct *vma = find_vma(folio->mm, addr);

	if (!vma)
		return NULL;
	*vmap = vma;
	return vma_pte_lookup(vma, addr);
}

/**
 * folio_referenced - test and clear the young bits of the PTEs mapping @folio
 * @folio: a locked, isolated folio
 * @is_locked: the caller holds the folio lock
 *
 * Context: takes the PTL of each mapping.
 * Return: the number of PTEs that were young.
 */
int folio_referenced(struct folio *folio, bool is_locked)
{
	struct vm_area_struct *vma;
	struct spinlock *ptl;
	int referenced = 0;
	long i;
	pte_t *pte;

	(void)is_locked;
	if (!folio_mapped(folio) || !folio->mm)
		return 0;
	pte = folio_pte(folio, &vma);
	if (!pte)
		return 0;
	ptl = pte_lockptr_lookup(vma, folio->index << PAGE_SHIFT);
	spin_lock(ptl);
	for (i = 0; i < folio_nr_pages(folio); i++) {
		if (!pte_present(pte[i]) || pte_folio(pte[i]) != folio)
			continue;
		/* MGLRU: a young PTE's neighbours are likely young too */
		if (sim_mm->lru_gen_enabled && (pte[i] & PTE_YOUNG)) {
			lru_gen_look_around(vma, (folio->index + (uint64_t)i) << PAGE_SHIFT,
					    &pte[i]);
			referenced++;
		}
		/* ptep_clear_flush_young(): x86 does not flush for this */
		if (pte[i] & PTE_YOUNG) {
			pte[i] &= ~PTE_YOUNG;
			referenced++;
		}
	}
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)folio_nr_pages(folio) + sim_mm->folio_op_ps);
	spin_unlock(ptl);
	return referenced;
}

/*
 * should_defer_flush(): batch only if another CPU may cache the mm
 * (x86 arch_tlbbatch_should_defer()).
 */
static bool should_defer_flush(struct mm_struct *mm, enum ttu_flags flags)
{
	struct cpumask others;

	if (!(flags & TTU_BATCH_FLUSH))
		return false;
	others = mm->cpumask;
	cpumask_clear_cpu(smp_processor_id(), &others);
	return !cpumask_empty(&others);
}

/* set_tlb_ubc_flush_pending(): remember the mm's CPUs and whether the PTE was dirty. */
static void set_tlb_ubc_flush_pending(struct mm_struct *mm, pte_t pteval, struct folio *folio)
{
	struct tlbflush_unmap_batch *tlb_ubc = current_tlb_ubc();

	if (!pte_present(pteval))	/* !pte_accessible() */
		return;
	/* arch_tlbbatch_add_pending(): inc_mm_tlb_gen(), cpumask_or() */
	mm->tlb_gen++;
	sim_line_rmw(&mm->line);
	cpumask_or(&tlb_ubc->cpumask, &tlb_ubc->cpumask, &mm->cpumask);
	tlb_ubc->unmapped_pages = true;
	tlb_ubc->flush_required = true;
	if (pteval & PTE_DIRTY) {
		tlb_ubc->writable = true;
		if (!folio_test(folio, PG_stale_tlb)) {
			if (tlb_ubc->nr_stale == tlb_ubc->cap) {
				tlb_ubc->cap = tlb_ubc->cap ? 2 * tlb_ubc->cap : 64;
				tlb_ubc->stale = realloc(tlb_ubc->stale,
							 tlb_ubc->cap * sizeof(*tlb_ubc->stale));
				if (!tlb_ubc->stale)
					abort();
			}
			tlb_ubc->stale[tlb_ubc->nr_stale++] = folio;
			folio_set(folio, PG_stale_tlb);
		}
	}
}

/**
 * try_to_unmap_flush - flush the TLB entries of the unmapped PTEs now
 *
 * Context: no spinlock held (waits for IPIs).
 */
void try_to_unmap_flush(void)
{
	struct tlbflush_unmap_batch *tlb_ubc = current_tlb_ubc();
	unsigned int i;

	if (!tlb_ubc->flush_required)
		return;
	SIM_TRACE_SCOPE_ARG("reclaim", "try_to_unmap_flush", "folios", tlb_ubc->nr_stale);
	arch_tlbbatch_flush(tlb_ubc);
	for (i = 0; i < tlb_ubc->nr_stale; i++)
		folio_clear(tlb_ubc->stale[i], PG_stale_tlb);
	tlb_ubc->nr_stale = 0;
	tlb_ubc->flush_required = false;
	tlb_ubc->writable = false;
}

/**
 * try_to_unmap_flush_dirty - flush iff a writable TLB entry could race with I/O
 *
 * Context: no spinlock held.
 */
void try_to_unmap_flush_dirty(void)
{
	struct tlbflush_unmap_batch *tlb_ubc = current_tlb_ubc();

	count_event(SIM_SIM_TLB_FLUSH_DIRTY);
	if (tlb_ubc->writable)
		try_to_unmap_flush();
}

/* try_to_unmap_one() for the folio's one mapping. */
static bool try_to_unmap_one(struct folio *folio, enum ttu_flags flags)
{
	struct mm_struct *mm = folio->mm;
	struct vm_area_struct *vma;
	struct spinlock *ptl;
	long i, nr = folio_nr_pages(folio);
	pte_t *pte = folio_pte(folio, &vma);
	uint64_t addr = folio->index << PAGE_SHIFT;

	if (!pte)
		return true;
	ptl = pte_lockptr_lookup(vma, addr);
	spin_lock(ptl);
	for (i = 0; i < nr; i++) {
		pte_t pteval = pte[i];

		if (!pte_present(pteval) || pte_folio(pteval) != folio)
			continue;
		/* swap_duplicate() before the PTE changes: the slot is held */
		SIM_BUG_ON_FOLIO(!folio_test(folio, PG_swapcache), folio);
		swap_dup_to_pte(folio->swap - 1);
		pteval = pte[i];	/* re-read after the cluster lock */
		if (should_defer_flush(mm, flags)) {
			pte[i] = 0;			/* ptep_get_and_clear() */
			set_tlb_ubc_flush_pending(mm, pteval, folio);
		} else {
			pte[i] = 0;			/* ptep_clear_flush() */
			flush_tlb_mm_range(mm, addr + (uint64_t)i * PAGE_SIZE,
					   addr + (uint64_t)(i + 1) * PAGE_SIZE, false);
		}
		if (pteval & PTE_DIRTY)
			folio_set(folio, PG_dirty);	/* folio_mark_dirty() */
		/* an anon folio in the swap cache: install the swap PTE */
		pte[i] = swp_entry_to_pte(folio->swap - 1);
		mm->rss_anon--;
		mm->swapents++;
		folio_remove_rmap_ptes(folio, 1, vma);
		folio_put_testzero(folio);	/* the mapping's reference */
		SIM_BUG_ON_FOLIO(folio->_refcount <= 0, folio);
	}
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)nr);
	spin_unlock(ptl);
	return true;
}

/**
 * try_to_unmap - unmap a locked anon folio from every page table
 * @folio: locked, isolated, in the swap cache
 * @flags: TTU_BATCH_FLUSH to defer the TLB flush to the batch
 *
 * Return: true; the caller tests folio_mapped() afterwards.
 */
bool try_to_unmap(struct folio *folio, enum ttu_flags flags)
{
	SIM_BUG_ON_FOLIO(!folio_test(folio, PG_locked), folio);
	if (folio->mm)
		try_to_unmap_one(folio, flags);
	return !folio_mapped(folio);
}

/**
 * folio_remove_rmap_pmd - the PMD that mapped a PMD-sized @folio was cleared
 * @folio: the folio
 * @vma: the VMA it was in
 *
 * A PMD mapping counts once in _mapcount (the kernel's entire mapcount).
 * Context: the PMD's lock held.
 */
void folio_remove_rmap_pmd(struct folio *folio, struct vm_area_struct *vma)
{
	(void)vma;
	folio->_mapcount -= 1;
	SIM_BUG_ON_FOLIO(folio->_mapcount < 0, folio);
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
}
