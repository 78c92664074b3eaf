// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page faults and unmapping of anonymous memory (mm/memory.c).
 *
 * Mirrors handle_mm_fault() -> do_anonymous_page() with alloc_anon_folio()
 * (mTHP: the highest enabled order whose aligned range fits the VMA and
 * is all none, then charge, zero), pte_offset_map_lock(), the rmap,
 * folio_add_lru() (which drains at once for a large folio: lru_lock under
 * the PTL), set_ptes(); and unmap_vmas() -> zap_pte_range() under the PTL
 * with folio_remove_rmap_ptes() and the mmu_gather.
 *
 * Costs: mm.fault_entry_ns per fault (exception entry and exit, the
 * per-VMA lock and the page-table walk), mm.pte_op_ns per PTE touched,
 * zeroing at mem.zero_gbps per core within the node's write bandwidth.
 * Left out: page-table page allocation (the tables are preallocated per
 * VMA; free_pgtables() is charged per table), file and shared mappings,
 * userfaultfd, NUMA hinting.
 *
 * Lock order: mmap_lock (or the VMA lock) -> PTL -> lru_lock
 * -> deferred_split_lru sublist lock.
 */
#include "mm/mm.h"
#include "mmsim/trace.h"

struct vm_area_struct *find_vma(struct mm_struct *mm, uint64_t addr)
{
	struct list_head *pos;

	list_for_each(pos, &mm->vmas) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, node);

		if (addr >= vma->vm_start && addr < vma->vm_end)
			return vma;
	}
	return NULL;
}

static inline pte_t *vma_pte(struct vm_area_struct *vma, uint64_t addr)
{
	return &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT];
}

static inline struct spinlock *pte_lockptr(struct vm_area_struct *vma, uint64_t addr)
{
	return &vma->ptl[(addr - (vma->vm_start & ~(PMD_SIZE - 1))) >> PMD_SHIFT];
}

static bool pte_range_none(struct vm_area_struct *vma, uint64_t addr, long nr)
{
	pte_t *pte = vma_pte(vma, addr);
	long i;

	sim_cost_ps(sim_mm->pte_op_ps * (sim_time_t)nr);
	for (i = 0; i < nr; i++)
		if (!pte_none(pte[i]))
			return false;
	return true;
}

/* folio_zero_user(): clear the folio, within the node's bandwidth. */
void folio_zero_user(struct folio *folio)
{
	mem_write_bandwidth(folio->nid, (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT,
			    sim_mm->prof->mem_zero_gbps);
}

/* alloc_anon_folio(): the largest allowed order first, then order 0. */
static struct folio *alloc_anon_folio(struct vm_area_struct *vma, uint64_t addr)
{
	int order = vma->thp_eligible ? sim_mm->mthp_order : 0;

	for (; order >= 0; order = order ? 0 : -1) {
		uint64_t size = PAGE_SIZE << order;
		uint64_t start = addr & ~(size - 1);
		struct folio *folio;

		if (order && (start < vma->vm_start || start + size > vma->vm_end ||
			      !pte_range_none(vma, start, 1L << order)))
			continue;
		folio = folio_alloc_node(order, sim_mm->preferred_nid);
		if (!folio) {
			if (order)
				count_event(SIM_MTHP_ANON_FAULT_FALLBACK);
			continue;
		}
		if (mem_cgroup_charge(folio, vma->vm_mm->memcg)) {
			folio->_refcount = 0;
			folio->place = FOLIO_GATHER;
			free_frozen_folio(folio);
			if (order)
				count_event(SIM_MTHP_ANON_FAULT_FALLBACK);
			continue;
		}
		folio_zero_user(folio);
		return folio;
	}
	return NULL;
}

static int do_anonymous_page(struct vm_area_struct *vma, uint64_t addr)
{
	struct folio *folio = alloc_anon_folio(vma, addr);
	struct spinlock *ptl;
	uint64_t start;
	long i, nr;
	pte_t *pte;

	if (!folio)
		return -12;	/* VM_FAULT_OOM */
	nr = folio_nr_pages(folio);
	start = addr & ~((PAGE_SIZE << folio->order) - 1);
	ptl = pte_lockptr(vma, start);
	spin_lock(ptl);
	if (!pte_range_none(vma, start, nr)) {
		/* Lost a race: someone mapped it meanwhile. */
		spin_unlock(ptl);
		folio_put(folio);
		return 0;
	}
	folio->_refcount += (int32_t)(nr - 1);	/* folio_ref_add(): one per page */
	vma->vm_mm->rss_anon += nr;
	if (folio->order)
		count_event(SIM_MTHP_ANON_FAULT_ALLOC);
	folio_add_new_anon_rmap(folio, vma, start);
	folio->place = FOLIO_MAPPED;
	folio_add_lru(folio);
	pte = vma_pte(vma, start);
	for (i = 0; i < nr; i++)
		pte[i] = mk_pte(folio, PTE_YOUNG | PTE_DIRTY | PTE_WRITE);
	sim_cost_ps(sim_mm->pte_op_ps * (sim_time_t)nr);	/* set_ptes() */
	/* The mTHP shrinker series: queue every new mTHP (see huge_memory.c). */
	if (sim_mm->variant->queue_mthp_on_fault && folio->order > 1)
		deferred_split_folio(folio, false);
	spin_unlock(ptl);
	return 0;
}

/**
 * handle_mm_fault - resolve a fault at @addr in @vma
 * @vma: the VMA, found under the VMA lock or mmap_lock
 * @addr: the faulting address
 * @write: a write fault
 *
 * Context: the caller holds the VMA (read) or mmap_lock.
 * Return: 0, or a negative errno (-ENOMEM).
 */
int handle_mm_fault(struct vm_area_struct *vma, uint64_t addr, bool write)
{
	pte_t *pte = vma_pte(vma, addr);
	int ret = 0;

	(void)write;
	sim_trace_begin("mm", "handle_mm_fault");
	count_event(SIM_PGFAULT);
	sim_cost_ps(sim_mm->fault_entry_ps);
	if (vma->pmd_huge[(addr - (vma->vm_start & ~(PMD_SIZE - 1))) >> PMD_SHIFT])
		goto out;
	if (pte_none(*pte))
		ret = do_anonymous_page(vma, addr);
out:
	sim_trace_end();
	return ret;
}

/* zap_pte_range() over one PTE table, under its PTL. */
static uint64_t zap_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      uint64_t addr, uint64_t end)
{
	struct spinlock *ptl = pte_lockptr(vma, addr);

	spin_lock(ptl);
	while (addr < end) {
		pte_t *pte = vma_pte(vma, addr);
		struct folio *folio;
		long i, nr;

		if (pte_none(*pte)) {
			sim_cost_ps(sim_mm->pte_op_ps);
			addr += PAGE_SIZE;
			continue;
		}
		folio = pte_folio(*pte);
		/* folio_pte_batch(): the run of PTEs mapping this folio */
		nr = 1;
		while (addr + (uint64_t)nr * PAGE_SIZE < end && pte_present(pte[nr]) &&
		       pte_folio(pte[nr]) == folio)
			nr++;
		for (i = 0; i < nr; i++)
			pte[i] = 0;		/* get_and_clear_full_ptes() */
		sim_cost_ps(sim_mm->pte_op_ps * (sim_time_t)nr);
		if (tlb->start > addr)
			tlb->start = addr;
		if (tlb->end < addr + (uint64_t)nr * PAGE_SIZE)
			tlb->end = addr + (uint64_t)nr * PAGE_SIZE;
		vma->vm_mm->rss_anon -= nr;
		folio_remove_rmap_ptes(folio, (int)nr, vma);
		tlb_remove_folio_pages(tlb, folio, (int)nr);
		addr += (uint64_t)nr * PAGE_SIZE;
		if (tlb->nr >= MMU_GATHER_MAX - 2) {
			/* force_flush: drop the PTL, flush and free, go on */
			spin_unlock(ptl);
			tlb_flush_mmu(tlb);
			spin_lock(ptl);
		}
	}
	spin_unlock(ptl);
	return addr;
}

/**
 * unmap_vmas - zap every mapping of @vma into @tlb
 * @tlb: the gather, which flushes the TLB before it frees
 * @vma: a detached VMA
 *
 * Context: mmap_lock held (read after the munmap downgrade).
 */
void unmap_vmas(struct mmu_gather *tlb, struct vm_area_struct *vma)
{
	uint64_t addr = vma->vm_start;

	while (addr < vma->vm_end) {
		uint64_t next = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE;

		if (next > vma->vm_end)
			next = vma->vm_end;
		zap_pte_range(tlb, vma, addr, next);
		addr = next;
	}
}
