// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page faults and unmapping of anonymous memory (mm/memory.c); faults of
 * file mappings, copy-on-write and fork's copy_page_range() in the
 * sections "faults of file mappings" and "fork" below (issue 30).
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
 * Swap (seed 003): do_swap_page() (an exclusive folio mapped writable on
 * a read fault, dirty only on a write fault), do_wp_page(), the zap of
 * swap PTEs.  The hardware's side of a user access, including the dirty
 * bit a store sets through a clean TLB entry, is src/mm/access.c.
 * Left out: page-table page allocation (the tables are preallocated per
 * VMA; free_pgtables() is charged per table), shared anonymous mappings
 * other than as a tmpfs file (shmem_zero_setup() makes them one),
 * userfaultfd, NUMA hinting.
 *
 * Lock order: mmap_lock (or the VMA lock) -> PTL -> lru_lock
 * -> deferred_split_lru sublist lock; a file fault: folio lock -> PTL
 * (finish_fault()), PTL -> i_pages lock (a zap's folio_mark_dirty());
 * fork: the child's PTL -> the parent's.
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
	return &vma->ptl[vma_pmd_index(vma, addr)];
}

static bool pte_range_none(struct vm_area_struct *vma, uint64_t addr, long nr)
{
	pte_t *pte = vma_pte(vma, addr);
	long i;

	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)nr);
	for (i = 0; i < nr; i++)
		if (!pte_none(pte[i]))
			return false;
	return true;
}

/*
 * The order in which process_huge_page() clears a folio's pages: those
 * far from the target page first, then pairs closing in on it from both
 * sides, the target last, so that its lines are the ones the cache keeps
 * (Huang Ying's "clear target sub-page last", Linux 4.14).  Each page's
 * lines go through the running vCPU's caches (mmu_kernel_store()); a vCPU
 * without them (the flat model, a run of faults alone) has nothing to do.
 */
static void zero_pages_in_order(uint16_t asid, uint64_t base, long nr, long target)
{
	long i, lo, l;

	if (!mmu_has_caches())
		return;
	if (2 * target <= nr) {
		lo = 0;
		l = target;
		for (i = nr - 1; i >= 2 * target; i--)
			mmu_kernel_store(asid, base + ((uint64_t)i << PAGE_SHIFT), PAGE_SIZE);
	} else {
		lo = 2 * target - nr;
		l = nr - target;
		for (i = 0; i < lo; i++)
			mmu_kernel_store(asid, base + ((uint64_t)i << PAGE_SHIFT), PAGE_SIZE);
	}
	for (i = 0; i < l; i++) {
		mmu_kernel_store(asid, base + ((uint64_t)(lo + i) << PAGE_SHIFT), PAGE_SIZE);
		mmu_kernel_store(asid, base + ((uint64_t)(lo + 2 * l - 1 - i) << PAGE_SHIFT),
				 PAGE_SIZE);
	}
}

/*
 * folio_zero_user(): clear the folio, within the node's bandwidth, the
 * page of @addr_hint last; the lines stay in the faulting CPU's caches.
 */
void folio_zero_user(struct folio *folio, struct vm_area_struct *vma, uint64_t addr_hint)
{
	long nr = folio_nr_pages(folio);
	uint64_t base = addr_hint & ~(((uint64_t)nr << PAGE_SHIFT) - 1);
	SIM_TRACE_SCOPE("mm", "folio_zero_user");

	mem_zero_pages(folio->nid, (uint64_t)nr << PAGE_SHIFT);
	zero_pages_in_order(vma->vm_mm->asid, base, nr, (long)((addr_hint - base) >> PAGE_SHIFT));
	folio->data = FOLIO_DATA_ZERO;
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
		folio = vma_alloc_folio(order, vma, start);
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
		folio_zero_user(folio, vma, addr);
		return folio;
	}
	return NULL;
}

/*
 * vmf_anon_prepare(): the first fault of a VMA without an anon_vma needs
 * mmap_lock (__anon_vma_prepare() looks at the neighbours).  Under the
 * per-VMA lock it tries mmap_lock for reading; if a writer has it, the
 * fault is retried under mmap_lock.  The anon_vma and its chain link
 * cost two list operations (assumption: allocation and list_add).
 */
static int vmf_anon_prepare(struct vm_area_struct *vma, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;

	if (!vma->merged || vma->merged->anon_vma)
		return 0;
	if (flags & FAULT_FLAG_VMA_LOCK) {
		if (!down_read_trylock(&mm->mmap_lock)) {
			vma_end_read(vma);
			return VM_FAULT_RETRY;
		}
	}
	vma->merged->anon_vma = true;
	sim_cost_cpu_ps(2 * sim_mm->list_op_ps);
	if (flags & FAULT_FLAG_VMA_LOCK)
		up_read(&mm->mmap_lock);
	return 0;
}

static int do_anonymous_page(struct vm_area_struct *vma, uint64_t addr, unsigned int flags)
{
	struct folio *folio;
	struct spinlock *ptl;
	uint64_t start;
	long i, nr;
	pte_t *pte;
	int ret;
	SIM_TRACE_SCOPE("mm", "do_anonymous_page");

	ret = vmf_anon_prepare(vma, flags);
	if (ret)
		return ret;
	folio = alloc_anon_folio(vma, addr);
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
	folio_add_lru_fault(folio);
	pte = vma_pte(vma, start);
	for (i = 0; i < nr; i++)
		pte[i] = mk_pte(folio, PTE_YOUNG | PTE_DIRTY | PTE_WRITE);
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)nr);	/* set_ptes() */
	/*
	 * The mTHP shrinker series: queue every new mTHP (see huge_memory.c).
	 * Where it queues is unpublished (an assumption, docs/results.md):
	 * under the PTL here, or after it is released (queue_after_ptl),
	 * with a reference held across.
	 */
	if (sim_mm->variant->queue_mthp_on_fault && folio->order > 1) {
		if (!sim_mm->queue_after_ptl) {
			deferred_split_folio(folio, false);
		} else {
			folio_get(folio);
			spin_unlock(ptl);
			deferred_split_folio(folio, false);
			folio_put(folio);
			return 0;
		}
	}
	spin_unlock(ptl);
	return 0;
}

/* ---- swap-in and write-protect faults (seed 003) -----------------------------------
 *
 * do_swap_page() (read at v6.15): a swap-cache hit maps the cached folio
 * (folio_lock(), then the PTE re-check under the PTL); a miss takes the
 * SWP_SYNCHRONOUS_IO path that skips the swap cache: a new folio is
 * charged (maybe reclaiming), read synchronously, mapped, and its slot
 * freed.  Both count pgmajfault only when I/O was done.
 *
 * Exclusive folios are mapped writable even on a read fault: a fresh
 * folio that never was in the swap cache, or a cached one whose swap PTE
 * was exclusive (in the model every swap PTE is: private anonymous
 * memory, no fork and no KSM, so try_to_unmap_one() would mark each
 * pte_swp_mkexclusive()), unless it is under writeback on a device with
 * stable writes (zram).  Every VMA of the model is VM_WRITE, and neither
 * uffd-wp nor soft-dirty tracking is on, so such a folio gets PTE_WRITE;
 * PTE_DIRTY only for a write fault.  A later store sets the dirty bit
 * through the TLB (src/mm/access.c, user_access_assist()), not by a
 * fault.  A folio that is not exclusive is mapped read-only, and a write
 * fault then goes on to do_wp_page().
 */

/* The swap device's queue has BLK_FEAT_STABLE_WRITES: zram does (zram_add()); the SSD (no integrity) does not. */
static bool swap_stable_writes(void)
{
	return sim_mm->swap->zram;
}

/*
 * mem_cgroup_swap_full() -> vm_swap_full(): less than half the swap space
 * is free (nr_swap_pages * 2 < total_swap_pages).  The model's memcgs set
 * no swap limit, so only the device's fill counts.
 */
static bool mem_cgroup_swap_full(void)
{
	const struct swap_info_struct *si = sim_mm->swap;

	return 2ULL * (si->max - si->inuse_pages) < si->max;
}

/*
 * should_try_to_free_swap(): drop the swap copy of a folio in the swap
 * cache when swap is more than half full (whatever the fault), or for a
 * write fault when the folio looks exclusive (the swap cache's refs and
 * ours only).  No VM_LOCKED, mlock or KSM in the model.
 */
static bool should_try_to_free_swap(struct folio *folio, bool write)
{
	if (!folio_test(folio, PG_swapcache))
		return false;
	if (mem_cgroup_swap_full())
		return true;
	return write && folio->_refcount == 1 + (int32_t)folio_nr_pages(folio);
}

static int wp_page_locked(struct vm_area_struct *vma, uint64_t addr, struct spinlock *ptl,
			  unsigned int flags);

static int do_swap_page(struct vm_area_struct *vma, uint64_t addr, bool write)
{
	pte_t *pte = vma_pte(vma, addr);
	pte_t orig = *pte, bits = PTE_YOUNG;
	uint32_t slot = pte_swp_slot(orig);
	struct spinlock *ptl = pte_lockptr(vma, addr);
	struct folio *folio;
	bool io = false, exclusive;

	folio = swap_cache_get_folio(slot);
	if (folio) {
		count_event(SIM_SIM_SWAPCACHE_HIT);
		folio_lock(folio);
	} else {
		folio = vma_alloc_folio(0, vma, addr);	/* the VMA's policy (interleave) */
		if (!folio)
			return -12;
		if (mem_cgroup_swapin_charge_folio(folio, vma->vm_mm->memcg)) {
			folio->_refcount = 0;
			folio->place = FOLIO_GATHER;
			free_frozen_folio(folio);
			return -12;	/* VM_FAULT_OOM */
		}
		folio_set(folio, PG_locked);
		swap_read_folio(folio, slot);
		io = true;
	}
	spin_lock(ptl);
	if (*pte != orig) {
		/* pte_same() failed: someone else resolved it meanwhile */
		spin_unlock(ptl);
		folio_unlock(folio);
		folio_put(folio);
		return 0;
	}
	if (io)
		count_event(SIM_PGMAJFAULT);
	/*
	 * Under the PTL: a fresh folio is certainly exclusive; a cached one
	 * is as its swap PTE says (exclusive), unless it is under writeback
	 * on a device that needs stable pages.
	 */
	exclusive = io || !(folio_test(folio, PG_writeback) && swap_stable_writes());
	/* the lookup (or allocation) reference becomes the mapping's */
	vma->vm_mm->rss_anon++;
	if (folio->place == FOLIO_PRIVATE) {
		folio_add_new_anon_rmap(folio, vma, addr);
		folio->place = FOLIO_MAPPED;
	} else {
		folio->mm = vma->vm_mm;		/* folio_add_anon_rmap_ptes() */
		folio->index = addr >> PAGE_SHIFT;
		folio->_mapcount++;
		sim_cost_cpu_ps(sim_mm->folio_op_ps);
	}
	/*
	 * As do_wp_page() would: an exclusive folio in a VM_WRITE VMA is
	 * mapped writable.  (The kernel decides after swap_free_nr() and
	 * should_try_to_free_swap(), where a folio that is not exclusive may
	 * have dropped to one reference; the model sets the PTE first, as the
	 * swap PTE must go before the slot's count does, and then looks.)
	 */
	if (exclusive) {
		bits |= PTE_WRITE;
		if (write) {
			bits |= PTE_DIRTY;
			write = false;		/* the write fault is resolved */
		}
	}
	*pte = mk_pte(folio, bits);
	vma->vm_mm->swapents--;
	swap_free(slot);		/* swap_free_nr() */
	if (should_try_to_free_swap(folio, write))
		folio_free_swap(folio);
	if (!exclusive && folio->_refcount == 1) {
		*pte |= PTE_WRITE | (write ? PTE_DIRTY : 0);
		write = false;
	}
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	if (io)
		folio_add_lru_fault(folio);
	if (write) {
		/* Not exclusive: mapped read-only, and the write goes on to do_wp_page(). */
		folio_unlock(folio);
		return wp_page_locked(vma, addr, ptl, 0);
	}
	spin_unlock(ptl);
	folio_unlock(folio);
	return 0;
}

static int wp_page_copy(struct vm_area_struct *vma, uint64_t addr, struct folio *old_folio,
			unsigned int flags);
static int wp_page_shared(struct vm_area_struct *vma, uint64_t addr, struct spinlock *ptl,
			  struct folio *folio);

/*
 * do_wp_page() with the PTL held; releases it.
 *
 * A page cache folio in a private mapping is copied (wp_page_copy()); in
 * a shared mapping it is made writable after page_mkwrite
 * (wp_page_shared()).  An anonymous folio is reused (wp_page_reuse())
 * unless fork shared it: the kernel decides by the reference count
 * (wp_can_reuse_anon_folio()); the model by the mapcount, a folio mapped
 * by more PTEs than it has pages (fork's copy_present_pte() added one),
 * so that a folio held only by the swap cache or a per-CPU batch is
 * reused as before.
 */
static int wp_page_locked(struct vm_area_struct *vma, uint64_t addr, struct spinlock *ptl,
			  unsigned int flags)
{
	pte_t *pte = vma_pte(vma, addr);
	struct folio *folio;

	if (!pte_present(*pte)) {
		spin_unlock(ptl);
		return 0;		/* unmapped meanwhile: fault again */
	}
	folio = pte_folio(*pte);
	if (folio_test(folio, PG_file)) {
		if (vma->vm_flags & VM_SHARED)
			return wp_page_shared(vma, addr, ptl, folio);
		folio_get(folio);
		spin_unlock(ptl);
		return wp_page_copy(vma, addr, folio, flags);
	}
	if (folio->_mapcount > folio_nr_pages(folio)) {
		folio_get(folio);
		spin_unlock(ptl);
		return wp_page_copy(vma, addr, folio, flags);
	}
	/* wp_can_reuse_anon_folio(): exclusive anon, drop the swap copy */
	if (folio_test(folio, PG_swapcache) && folio_trylock(folio)) {
		if (folio->_refcount == 1 + (int32_t)folio_nr_pages(folio))
			folio_free_swap(folio);
		folio_unlock(folio);
	}
	*pte |= PTE_WRITE | PTE_DIRTY | PTE_YOUNG;	/* wp_page_reuse() */
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	spin_unlock(ptl);
	return 0;
}

static int do_wp_page(struct vm_area_struct *vma, uint64_t addr, unsigned int flags)
{
	struct spinlock *ptl = pte_lockptr(vma, addr);

	spin_lock(ptl);
	return wp_page_locked(vma, addr, ptl, flags);
}

/* ---- faults of file mappings, copy-on-write (issue 30) -------------------------------
 *
 * Read at torvalds/linux v6.12 mm/memory.c.  do_fault() picks by the
 * fault: a read is do_read_fault() (fault-around first:
 * do_fault_around() maps the window of fault_around_bytes = 64 KiB that
 * the page cache already holds through ->map_pages(); then __do_fault()
 * -> ->fault() and finish_fault()); the first write to a private mapping
 * is do_cow_fault() (a new anonymous folio, the page cache folio copied
 * into it, mapped writable, the page cache folio untouched); a write to a
 * shared mapping is do_shared_fault() (->page_mkwrite() when the file
 * system has one, finish_fault() mapping it writable and dirty,
 * fault_dirty_shared_page()).  A write to a present read-only PTE is
 * do_wp_page(): wp_page_copy() (private page cache folio, or an anonymous
 * folio fork shares) or wp_page_shared() (shared mapping: page_mkwrite,
 * then wp_page_reuse()).
 *
 * finish_fault() -> set_pte_range(): the fault's reference becomes the
 * PTE's; a page cache folio is mapped young, writable only when the
 * mapping's vm_page_prot is (a shared writable tmpfs mapping) or the
 * fault writes (then dirty too); a COW folio gets the anon rmap and the
 * LRU.  MM_FILEPAGES or MM_SHMEMPAGES count page cache PTEs.
 *
 * Costs: mm.pte_op_ns per PTE set or looked at; the copy of a page at
 * mem.copy_gbps through the memory system (memsys_copy(), the source
 * folio's node to the new one's); a COW's TLB flush of the old PTE
 * (ptep_clear_flush()) through flush_tlb_mm_range().
 * Left out: the zero page (an anonymous read fault allocates, as before),
 * page-table allocation, VM_FAULT_RETRY of file faults (neither
 * generic_file_vm_ops nor shmem_vm_ops has ->close, so
 * vmf_can_call_fault() lets them run under the VMA lock), large folios
 * of the page cache, uffd, userfaultfd-wp, hugetlb.
 */

#define FAULT_AROUND_PAGES	16	/* fault_around_bytes (64 KiB) >> PAGE_SHIFT */

/* A page cache PTE: MM_SHMEMPAGES for tmpfs, MM_FILEPAGES otherwise (mm_counter_file()). */
static void add_mm_counter_file(struct mm_struct *mm, struct folio *folio, long nr)
{
	if (folio_test(folio, PG_swapbacked))
		mm->rss_shmem += nr;
	else
		mm->rss_file += nr;
}

/*
 * do_fault_around(): the window of FAULT_AROUND_PAGES around the fault,
 * clipped to the VMA and its PTE table.
 */
static int do_fault_around(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	uint64_t pte_off = (vmf->address >> PAGE_SHIFT) & (PTRS_PER_PTE - 1);
	uint64_t vma_off = vmf->pgoff - vma->vm_pgoff;
	uint64_t vma_pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	uint64_t from_pte, to_pte, lo;

	lo = pte_off - (pte_off < vma_off ? pte_off : vma_off);
	from_pte = pte_off & ~(uint64_t)(FAULT_AROUND_PAGES - 1);
	if (from_pte < lo)
		from_pte = lo;
	to_pte = from_pte + FAULT_AROUND_PAGES;
	if (to_pte > PTRS_PER_PTE)
		to_pte = PTRS_PER_PTE;
	if (to_pte > pte_off + vma_pages - vma_off)
		to_pte = pte_off + vma_pages - vma_off;
	return vma->vm_ops->map_pages(vmf, vmf->pgoff + from_pte - pte_off,
				      vmf->pgoff + to_pte - 1 - pte_off);
}

/* __do_fault(): the file system's ->fault(); a locked folio comes back. */
static int do_fault_locked(struct vm_fault *vmf)
{
	int ret = vmf->vma->vm_ops->fault(vmf);

	if (ret & (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_NOPAGE | VM_FAULT_RETRY))
		return ret;
	SIM_BUG_ON_FOLIO(!folio_test(vmf->folio, PG_locked), vmf->folio);
	return ret;
}

/*
 * do_set_pmd(): map a PMD-sized page cache folio by one PMD, when the
 * VMA covers the whole aligned range at the file offset the folio has
 * (thp_vma_suitable_order()) and no PTE of the range is set (the model's
 * pmd_none(): its PTE tables are preallocated).  The fault's reference
 * becomes the PMD's.  Return: 0, or VM_FAULT_FALLBACK.
 */
static int do_set_pmd(struct vm_fault *vmf, struct folio *folio)
{
	struct vm_area_struct *vma = vmf->vma;
	uint64_t haddr = vmf->address & ~(PMD_SIZE - 1), idx = vma_pmd_index(vma, haddr);
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	pte_t *pte;
	int i;

	if (folio_order(folio) != HPAGE_PMD_ORDER || haddr < vma->vm_start ||
	    haddr + PMD_SIZE > vma->vm_end ||
	    linear_page_index(vma, haddr) != folio->index)
		return VM_FAULT_FALLBACK;
	/*
	 * A huge PMD that a later write would have to split (a read fault in
	 * a writable mapping: do_huge_pmd_wp_page() splits a file PMD) is
	 * left to PTEs: the model has no write-protect fault of a huge PMD.
	 */
	if (!write && (vma->vm_flags & VM_WRITE))
		return VM_FAULT_FALLBACK;
	pte = vma_pte(vma, haddr);
	for (i = 0; i < HPAGE_PMD_NR; i++)
		if (!pte_none(pte[i]))
			return VM_FAULT_FALLBACK;
	vma->pmd_huge[idx] = folio;
	vma->nr_pmd_huge++;
	vma->pmd_flags[idx] = PMD_YOUNG | (write ? PMD_DIRTY : 0);
	folio_add_file_rmap_pmd(folio, vma);
	add_mm_counter_file(vma->vm_mm, folio, HPAGE_PMD_NR);
	sim_cost_cpu_ps(sim_mm->pte_op_ps);	/* set_pmd_at() */
	count_event(SIM_THP_FILE_MAPPED);
	return 0;
}

/*
 * finish_fault(): map vmf->cow_folio (a private write) or vmf->folio at
 * vmf->address under the PTL, the fault's reference becoming the PTE's.
 * A large page cache folio is mapped whole, as v6.18 does for any file:
 * by one PMD where do_set_pmd() can, else by a PTE for each of its pages
 * when it lies inside the VMA and the fault's PTE table (else the
 * faulting page alone).
 * Return: 0, or VM_FAULT_NOPAGE when someone mapped it meanwhile.
 */
static int finish_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	bool is_cow = write && !(vma->vm_flags & VM_SHARED);
	struct folio *folio = is_cow ? vmf->cow_folio : vmf->folio;
	uint64_t addr = vmf->address;
	struct spinlock *ptl;
	pte_t *pte, bits = PTE_YOUNG;
	long nr = 1, i;

	if (!is_cow && folio_test_large(folio)) {
		uint64_t idx = vmf->pgoff - folio->index;
		uint64_t vma_off = vmf->pgoff - vma->vm_pgoff;
		uint64_t pte_off = (vmf->address >> PAGE_SHIFT) & (PTRS_PER_PTE - 1);
		uint64_t vma_pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
		uint64_t rest = (uint64_t)folio_nr_pages(folio) - idx;

		ptl = pte_lockptr(vma, vmf->address);
		spin_lock(ptl);				/* pmd_lock() */
		if (do_set_pmd(vmf, folio) == 0) {
			spin_unlock(ptl);
			return 0;
		}
		spin_unlock(ptl);
		if (vma_off >= idx && vma_off + rest <= vma_pages &&
		    pte_off >= idx && pte_off + rest <= PTRS_PER_PTE) {
			nr = folio_nr_pages(folio);
			addr = vmf->address - idx * PAGE_SIZE;
		}
	}
	ptl = pte_lockptr(vma, addr);
	pte = vma_pte(vma, addr);
	spin_lock(ptl);
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	/* the faulting PTE alone: vmf_pte_changed(); a range: pte_range_none() */
	for (i = 0; i < nr; i++)
		if (!pte_none(pte[i])) {
			spin_unlock(ptl);
			return VM_FAULT_NOPAGE;
		}
	/* set_pte_range() */
	if (is_cow) {
		folio_add_new_anon_rmap(folio, vma, vmf->address);
		folio->place = FOLIO_MAPPED;
		folio_add_lru_fault(folio);	/* folio_add_lru_vma() */
		vma->vm_mm->rss_anon++;
	} else {
		folio->_refcount += (int32_t)(nr - 1);	/* folio_ref_add(): a PTE's each */
		folio_add_file_rmap_ptes(folio, (int)nr, vma);
		add_mm_counter_file(vma->vm_mm, folio, nr);
	}
	if (write)
		bits |= PTE_DIRTY | PTE_WRITE;	/* maybe_mkwrite(pte_mkdirty()) */
	else if (!is_cow && vma_page_prot_write(vma))
		bits |= PTE_WRITE;
	for (i = 0; i < nr; i++)
		pte[i] = mk_pte(folio, bits);
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)nr);
	spin_unlock(ptl);
	return 0;
}

static int do_read_fault(struct vm_fault *vmf)
{
	struct folio *folio;
	int ret;

	/* should_fault_around(): ->map_pages and fault_around_bytes > PAGE_SIZE */
	if (vmf->vma->vm_ops->map_pages) {
		ret = do_fault_around(vmf);
		if (ret)
			return ret;
	}
	ret = do_fault_locked(vmf);
	if (ret & (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_NOPAGE | VM_FAULT_RETRY))
		return ret;
	folio = vmf->folio;
	ret |= finish_fault(vmf);
	folio_unlock(folio);
	if (ret & VM_FAULT_NOPAGE)
		folio_put(folio);
	return ret;
}

/*
 * copy_mc_user_highpage(): one page through the memory system; the copy's
 * lines stay in the faulting CPU's caches under the page's user address
 * (the source's lines have the same name: the model's caches name lines
 * by user address, src/hw/mmu.c).
 */
static void copy_user_folio(struct folio *dst, struct folio *src, struct vm_area_struct *vma,
			    uint64_t addr)
{
	uint64_t bytes = (uint64_t)folio_nr_pages(dst) << PAGE_SHIFT;

	memsys_copy(sim_mm->memsys, src->nid, dst->nid, bytes, sim_mm->prof->mem_copy_gbps);
	mmu_kernel_store(vma->vm_mm->asid, addr & ~(bytes - 1), bytes);
	dst->data = src->data;
}

/* folio_prealloc(): an order-0 anonymous folio for @vma at @addr, charged. */
static struct folio *folio_prealloc(struct vm_area_struct *vma, uint64_t addr)
{
	struct folio *folio = vma_alloc_folio(0, vma, addr);

	if (!folio)
		return NULL;
	if (mem_cgroup_charge(folio, vma->vm_mm->memcg)) {
		folio->_refcount = 0;
		folio->place = FOLIO_GATHER;
		free_frozen_folio(folio);
		return NULL;
	}
	return folio;
}

static int do_cow_fault(struct vm_fault *vmf, unsigned int flags)
{
	struct vm_area_struct *vma = vmf->vma;
	struct folio *folio;
	int ret = vmf_anon_prepare(vma, flags);

	if (ret)
		return ret;
	folio = folio_prealloc(vma, vmf->address);
	if (!folio)
		return VM_FAULT_OOM;
	vmf->cow_folio = folio;
	ret = do_fault_locked(vmf);
	if (ret & (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_NOPAGE | VM_FAULT_RETRY)) {
		folio_put(folio);
		return ret;
	}
	copy_user_folio(folio, vmf->folio, vma, vmf->address);
	folio_set(folio, PG_uptodate);		/* __folio_mark_uptodate() */
	ret |= finish_fault(vmf);
	folio_unlock(vmf->folio);
	folio_put(vmf->folio);			/* the page cache folio stays cached */
	if (ret & VM_FAULT_NOPAGE)
		folio_put(folio);
	return ret;
}

/*
 * do_page_mkwrite(): ->page_mkwrite() with FAULT_FLAG_MKWRITE; returns
 * with the folio locked unless it was truncated (VM_FAULT_NOPAGE).
 */
static int do_page_mkwrite(struct vm_fault *vmf)
{
	int ret = vmf->vma->vm_ops->page_mkwrite(vmf);

	if (ret & VM_FAULT_NOPAGE)
		return ret;
	return ret | VM_FAULT_LOCKED;
}

/* fault_dirty_shared_page(): dirty the folio (tmpfs: the flag only) and unlock it. */
static void fault_dirty_shared_page(struct vm_fault *vmf)
{
	folio_mark_dirty(vmf->folio);
	folio_unlock(vmf->folio);
	/* balance_dirty_pages_ratelimited(): no throttling in the model */
}

static int do_shared_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct folio *folio;
	int ret, tmp;

	ret = do_fault_locked(vmf);
	if (ret & (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_NOPAGE | VM_FAULT_RETRY))
		return ret;
	folio = vmf->folio;
	if (vma->vm_ops->page_mkwrite) {
		folio_unlock(folio);
		tmp = do_page_mkwrite(vmf);
		if (tmp & VM_FAULT_NOPAGE) {
			folio_put(folio);
			return tmp;
		}
	}
	ret |= finish_fault(vmf);
	if (ret & VM_FAULT_NOPAGE) {
		folio_unlock(folio);
		folio_put(folio);
		return ret;
	}
	fault_dirty_shared_page(vmf);
	return ret;
}

/**
 * do_fault - a fault on a none PTE of a file mapping
 * @vmf: the fault (vma, address, pgoff, flags)
 *
 * Context: the VMA lock or mmap_lock held for reading.
 * Return: VM_FAULT_* bits of the handler.
 */
int do_fault(struct vm_fault *vmf)
{
	if (!vmf->vma->vm_ops || !vmf->vma->vm_ops->fault)
		return VM_FAULT_SIGBUS;
	if (!(vmf->flags & FAULT_FLAG_WRITE))
		return do_read_fault(vmf);
	if (!(vmf->vma->vm_flags & VM_SHARED))
		return do_cow_fault(vmf, vmf->flags & FAULT_FLAG_VMA_LOCK);
	return do_shared_fault(vmf);
}

/* do_fault() for handle_mm_fault(): its VM_FAULT_* bits as the model's errno. */
static int do_fault_at(struct vm_area_struct *vma, uint64_t addr, bool write, unsigned int flags)
{
	struct vm_fault vmf = {
		.vma = vma,
		.address = addr & ~(PAGE_SIZE - 1),
		.pgoff = linear_page_index(vma, addr),
		.flags = (write ? FAULT_FLAG_WRITE : 0) | (flags & FAULT_FLAG_VMA_LOCK),
	};
	int ret = do_fault(&vmf);

	if (ret == VM_FAULT_RETRY)
		return ret;
	if (ret & VM_FAULT_OOM)
		return -12;		/* -ENOMEM */
	if (ret & VM_FAULT_SIGBUS)
		return -14;		/* SIGBUS: beyond the end of the file */
	return 0;
}

/*
 * wp_page_copy(): copy @old_folio (referenced by the caller, not locked)
 * into a new anonymous folio and map that writable in place of the old
 * PTE, which is cleared and flushed first (ptep_clear_flush()).
 */
static int wp_page_copy(struct vm_area_struct *vma, uint64_t addr, struct folio *old_folio,
			unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct spinlock *ptl = pte_lockptr(vma, addr);
	pte_t *pte = vma_pte(vma, addr);
	struct folio *new_folio;
	int ret = vmf_anon_prepare(vma, flags);

	if (ret) {
		folio_put(old_folio);
		return ret;
	}
	new_folio = folio_prealloc(vma, addr);
	if (!new_folio) {
		folio_put(old_folio);
		return -12;
	}
	copy_user_folio(new_folio, old_folio, vma, addr);	/* __wp_page_copy_user() */
	folio_set(new_folio, PG_uptodate);
	spin_lock(ptl);
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	if (!pte_present(*pte) || pte_folio(*pte) != old_folio || (*pte & PTE_WRITE)) {
		/* pte_same() failed: someone else resolved it */
		spin_unlock(ptl);
		folio_put(new_folio);
		folio_put(old_folio);
		return 0;
	}
	if (folio_test(old_folio, PG_file)) {
		add_mm_counter_file(mm, old_folio, -1);
		mm->rss_anon++;
	}
	*pte = 0;				/* ptep_clear_flush() */
	flush_tlb_mm_range(mm, addr & ~(PAGE_SIZE - 1), (addr & ~(PAGE_SIZE - 1)) + PAGE_SIZE,
			   false);
	folio_add_new_anon_rmap(new_folio, vma, addr & ~(PAGE_SIZE - 1));
	new_folio->place = FOLIO_MAPPED;
	folio_add_lru_fault(new_folio);		/* folio_add_lru_vma() */
	*pte = mk_pte(new_folio, PTE_YOUNG | PTE_DIRTY | PTE_WRITE);
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	folio_remove_rmap_ptes(old_folio, 1, vma);
	spin_unlock(ptl);
	folio_put(old_folio);			/* the old PTE's reference */
	folio_put(old_folio);			/* do_wp_page()'s */
	return 0;
}

/*
 * wp_page_shared(): a write to a read-only PTE of a shared file mapping
 * (entered with the PTL held): page_mkwrite when the file system has one,
 * then wp_page_reuse() under the PTL again, and the dirty accounting.
 */
static int wp_page_shared(struct vm_area_struct *vma, uint64_t addr, struct spinlock *ptl,
			  struct folio *folio)
{
	struct vm_fault vmf = {
		.vma = vma,
		.address = addr & ~(PAGE_SIZE - 1),
		.pgoff = linear_page_index(vma, addr),
		.flags = FAULT_FLAG_WRITE,
		.folio = folio,
	};
	pte_t *pte = vma_pte(vma, addr);

	folio_get(folio);
	if (vma->vm_ops->page_mkwrite) {
		spin_unlock(ptl);
		if (do_page_mkwrite(&vmf) & VM_FAULT_NOPAGE) {
			folio_put(folio);
			return 0;
		}
		/* finish_mkwrite_fault(): the PTE may have changed meanwhile */
		spin_lock(ptl);
		if (!pte_present(*pte) || pte_folio(*pte) != folio) {
			spin_unlock(ptl);
			folio_unlock(folio);
			folio_put(folio);
			return 0;
		}
		*pte |= PTE_WRITE | PTE_DIRTY | PTE_YOUNG;	/* wp_page_reuse() */
		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		spin_unlock(ptl);
	} else {
		*pte |= PTE_WRITE | PTE_DIRTY | PTE_YOUNG;	/* wp_page_reuse() */
		sim_cost_cpu_ps(sim_mm->pte_op_ps);
		spin_unlock(ptl);
		folio_lock(folio);
	}
	fault_dirty_shared_page(&vmf);
	folio_put(folio);
	return 0;
}

pte_t *vma_pte_lookup(struct vm_area_struct *vma, uint64_t addr)
{
	return vma_pte(vma, addr);
}

struct spinlock *pte_lockptr_lookup(struct vm_area_struct *vma, uint64_t addr)
{
	return pte_lockptr(vma, addr);
}

/*
 * A fault's fixed cost (exception entry and exit, the walk of
 * handle_mm_fault()): mm.fault_entry_ns, or with mm.fault_spread_ns a draw
 * uniform within +- the spread, from the vCPU's random numbers (the
 * measured spread of single faults on a machine: what keeps two workers
 * from running in lockstep, as the model's identical costs otherwise do).
 */
static sim_time_t fault_entry_cost(void)
{
	sim_time_t s = sim_mm->fault_spread_ps;

	if (!s)
		return sim_mm->fault_entry_ps;
	return sim_mm->fault_entry_ps - s + (sim_time_t)(sim_rand() % (2 * (uint64_t)s + 1));
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
static int handle_mm_fault_flags(struct vm_area_struct *vma, uint64_t addr, bool write,
				 unsigned int flags)
{
	pte_t *pte = vma_pte(vma, addr);
	int ret = 0;

	/* access_error() in do_user_addr_fault(): a write needs VM_WRITE */
	if (write && !(vma->vm_flags & VM_WRITE))
		return -14;	/* -EFAULT: SIGSEGV */
	sim_trace_begin("mm", "handle_mm_fault");
	count_event(SIM_PGFAULT);
	sim_cost_cpu_ps(fault_entry_cost());
	/* The PMD-THP fault path registers the mm (do_huge_pmd_anonymous_page()). */
	if (vma->thp_eligible && sim_mm->thp_pmd_enabled)
		khugepaged_enter_vma(vma);
	if (vma->pmd_huge[vma_pmd_index(vma, addr)])
		goto out;
	if (pte_none(*pte) && vma->vm_file)
		ret = do_fault_at(vma, addr, write, flags);
	else if (pte_none(*pte))
		ret = do_anonymous_page(vma, addr, flags);
	else if (pte_swap(*pte))
		ret = do_swap_page(vma, addr, write);
	else if (write && !(*pte & PTE_WRITE))
		ret = do_wp_page(vma, addr, flags);
	/*
	 * The store that faulted writes data the model does not know: the
	 * folio is no longer zero (a workload that knows what it stores,
	 * stress-vm, says so after its store).
	 */
	if (!ret && write && pte_present(*pte))
		pte_folio(*pte)->data = FOLIO_DATA_MIXED;
out:
	sim_trace_end();
	return ret;
}

int handle_mm_fault(struct vm_area_struct *vma, uint64_t addr, bool write)
{
	return handle_mm_fault_flags(vma, addr, write, 0);
}

/**
 * do_user_addr_fault - a user page fault at @addr, as arch/x86/mm/fault.c takes it
 * @mm: the faulting task's mm
 * @addr: the address
 * @write: a write fault
 *
 * First under the VMA's own lock (lock_vma_under_rcu()); when the VMA is
 * write-locked, or the fault needs mmap_lock (VM_FAULT_RETRY), again
 * under mmap_lock for reading (lock_mm_and_find_vma()).
 *
 *   CPU 0 (munmap)                      CPU 1 (fault in the same VMA)
 *   mmap_write_lock()
 *   vma_start_write(): seq = mm's       lock_vma_under_rcu(): locked, NULL
 *   split, detach                       mmap_read_lock(): waits
 *   mmap_write_downgrade(): seq++       ... runs, with CPU 0's zap
 *
 * Context: no lock held.
 * Return: 0, or a negative errno (-ENOMEM, -EFAULT).
 */
int do_user_addr_fault(struct mm_struct *mm, uint64_t addr, bool write)
{
	struct vm_area_struct *vma = lock_vma_under_rcu(mm, addr);
	int ret;

	if (vma) {
		ret = handle_mm_fault_flags(vma, addr, write, FAULT_FLAG_VMA_LOCK);
		if (ret != VM_FAULT_RETRY) {
			vma_end_read(vma);
			return ret;
		}
		/* vmf_anon_prepare() released the VMA lock */
		count_event(SIM_VMA_LOCK_RETRY);
	} else {
		count_event(SIM_VMA_LOCK_ABORT);
	}
	down_read(&mm->mmap_lock);
	vma = find_vma(mm, addr);
	ret = vma ? handle_mm_fault_flags(vma, addr, write, 0) : -14;	/* -EFAULT */
	up_read(&mm->mmap_lock);
	return ret;
}

/* zap_pte_range() over one PTE table, under its PTL. */
static uint64_t zap_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      uint64_t addr, uint64_t end)
{
	struct spinlock *ptl = pte_lockptr(vma, addr);
	pte_t dirty = 0;
	SIM_TRACE_SCOPE("mm", "zap_pte_range");

	spin_lock(ptl);
	while (addr < end) {
		pte_t *pte = vma_pte(vma, addr);
		struct folio *folio;
		long i, nr;

		if (pte_none(*pte)) {
			sim_cost_cpu_ps(sim_mm->pte_op_ps);
			addr += PAGE_SIZE;
			continue;
		}
		if (pte_swap(*pte)) {
			/* zap_nonpresent_ptes(): free_swap_and_cache() */
			uint32_t slot = pte_swp_slot(*pte);

			*pte = 0;
			vma->vm_mm->swapents--;
			free_swap_and_cache(slot);
			sim_cost_cpu_ps(sim_mm->pte_op_ps);
			addr += PAGE_SIZE;
			continue;
		}
		folio = pte_folio(*pte);
		/* folio_pte_batch(): the run of PTEs mapping this folio */
		nr = 1;
		while (addr + (uint64_t)nr * PAGE_SIZE < end && pte_present(pte[nr]) &&
		       pte_folio(pte[nr]) == folio)
			nr++;
		for (i = 0; i < nr; i++) {
			dirty |= pte[i];
			pte[i] = 0;		/* get_and_clear_full_ptes() */
		}
		sim_cost_cpu_ps(sim_mm->zap_pte_ps * (sim_time_t)nr);	/* mm.zap_pte_ns */
		if (tlb->start > addr)
			tlb->start = addr;
		if (tlb->end < addr + (uint64_t)nr * PAGE_SIZE)
			tlb->end = addr + (uint64_t)nr * PAGE_SIZE;
		if (folio_test(folio, PG_file)) {
			/* zap_present_folio_ptes(): a dirty PTE dirties the page cache folio */
			if (dirty & PTE_DIRTY)
				folio_mark_dirty(folio);
			add_mm_counter_file(vma->vm_mm, folio, -nr);
		} else {
			vma->vm_mm->rss_anon -= nr;
		}
		dirty = 0;
		folio_remove_rmap_ptes(folio, (int)nr, vma);
		/* the model's anon rmap goes through folio->mm: keep it on a live mapping */
		if (vma->anon_vma && folio_test_anon(folio) && folio_mapped(folio) &&
		    folio->mm == vma->vm_mm)
			sim_anon_rmap_rehome(folio, vma);
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

/* zap_huge_pmd(): unmap a PMD-mapped THP into the gather, under the PMD's lock. */
static void zap_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma, uint64_t addr)
{
	uint64_t idx = vma_pmd_index(vma, addr);
	uint64_t haddr = addr & ~(PMD_SIZE - 1);
	struct spinlock *ptl = pte_lockptr(vma, addr);
	struct folio *folio;

	spin_lock(ptl);
	folio = vma->pmd_huge[idx];
	vma->pmd_huge[idx] = NULL;		/* pmdp_huge_get_and_clear_full() */
	vma->nr_pmd_huge--;
	sim_cost_cpu_ps(sim_mm->pte_op_ps);
	if (tlb->start > haddr)
		tlb->start = haddr;
	if (tlb->end < haddr + PMD_SIZE)
		tlb->end = haddr + PMD_SIZE;
	if (folio_test(folio, PG_file)) {
		/* a page cache folio: a dirty PMD dirties it (zap_huge_pmd()'s file side) */
		if (vma->pmd_flags[idx] & PMD_DIRTY)
			folio_mark_dirty(folio);
		add_mm_counter_file(vma->vm_mm, folio, -HPAGE_PMD_NR);
	} else {
		vma->vm_mm->rss_anon -= HPAGE_PMD_NR;
	}
	vma->pmd_flags[idx] = 0;
	folio_remove_rmap_pmd(folio, vma);
	tlb_remove_folio_pages(tlb, folio, 1);	/* the PMD mapping's one reference */
	spin_unlock(ptl);
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
	SIM_TRACE_SCOPE("mm", "unmap_vmas");

	while (addr < vma->vm_end) {
		uint64_t next = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE;

		if (next > vma->vm_end)
			next = vma->vm_end;
		if (vma->pmd_huge[vma_pmd_index(vma, addr)])
			zap_huge_pmd(tlb, vma, addr);
		else
			zap_pte_range(tlb, vma, addr, next);
		addr = next;
	}
}

/**
 * zap_page_range_single - zap the PTEs of [@address, +@size) in one VMA
 * @vma: the VMA
 * @address: page aligned start inside it
 * @size: bytes
 * @even_cows: zap private anonymous copies too (the model's only case)
 *
 * The VMA stays; the range's folios are freed through an mmu_gather,
 * which flushes the TLB first.
 * Context: mmap_lock or i_mmap_rwsem held (as unmap_mapping_range()).
 */
void zap_page_range_single(struct vm_area_struct *vma, uint64_t address, uint64_t size,
			   bool even_cows)
{
	uint64_t end = address + size;
	struct mmu_gather tlb;

	SIM_BUG_ON(!even_cows);		/* zap_skip_check_mapping() left out */
	lru_add_drain();
	tlb_gather_mmu(&tlb, vma->vm_mm);
	while (address < end) {
		uint64_t next = (address & ~(PMD_SIZE - 1)) + PMD_SIZE;

		if (next > end)
			next = end;
		if (vma->pmd_huge[vma_pmd_index(vma, address)])
			zap_huge_pmd(&tlb, vma, address);
		else
			zap_pte_range(&tlb, vma, address, next);
		address = next;
	}
	tlb_finish_mmu(&tlb);
}

/* ---- fork: copy_page_range() (read at v6.12 mm/memory.c) ---------------------------
 *
 * vma_needs_copy(): only a VMA with anonymous folios (an anon_vma) has its
 * PTEs copied; a file mapping without COWed pages is faulted in again by
 * the child.  copy_pte_range() under the child's PTL, then the parent's
 * (spin_lock_nested()); copy_present_pte() for each present PTE: the
 * folio's mapcount and reference (folio_try_dup_anon_rmap_pte() /
 * folio_dup_file_rmap_pte()), both PTEs write-protected in a COW mapping,
 * the child's made old (and clean in a shared mapping).  dup_mmap()
 * flushes the parent's TLB once at the end.
 * Costs: mm.pte_op_ns per PTE read and per PTE written, mm.folio_op_ns
 * per folio duplicated.  Left out (dup_mmap() refuses the fork):
 * swap PTEs (a swap count above one) and PMD-mapped THPs.
 */

/**
 * copy_page_range - copy the page tables of @src_vma into @dst_vma at fork
 * @dst_vma: the child's copy of the VMA, same range
 * @src_vma: the parent's VMA
 *
 * Context: both mms' mmap_lock held for writing.
 * Return: 0, or -EOPNOTSUPP for a swap PTE or a huge PMD in the range.
 */
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	struct mm_struct *dst_mm = dst_vma->vm_mm;
	bool cow = is_cow_mapping(src_vma->vm_flags);
	uint64_t addr = src_vma->vm_start;

	if (!src_vma->anon_vma && !(src_vma->merged && src_vma->merged->anon_vma))
		return 0;		/* !vma_needs_copy() */
	while (addr < src_vma->vm_end) {
		uint64_t next = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE;
		struct spinlock *dst_ptl = pte_lockptr(dst_vma, addr);
		struct spinlock *src_ptl = pte_lockptr(src_vma, addr);

		if (next > src_vma->vm_end)
			next = src_vma->vm_end;
		if (src_vma->pmd_huge[vma_pmd_index(src_vma, addr)])
			return -95;
		spin_lock(dst_ptl);
		spin_lock(src_ptl);
		for (; addr < next; addr += PAGE_SIZE) {
			pte_t *src_pte = vma_pte(src_vma, addr), *dst_pte = vma_pte(dst_vma, addr);
			struct folio *folio;
			pte_t pte = *src_pte;

			sim_cost_cpu_ps(sim_mm->pte_op_ps);
			if (pte_none(pte))
				continue;
			if (!pte_present(pte)) {
				spin_unlock(src_ptl);
				spin_unlock(dst_ptl);
				return -95;	/* copy_nonpresent_pte(): swap count 2 */
			}
			/* copy_present_pte() */
			folio = pte_folio(pte);
			folio_get(folio);
			folio->_mapcount++;		/* folio_try_dup_anon_rmap_pte(), folio_dup_file_rmap_pte() */
			sim_cost_cpu_ps(sim_mm->folio_op_ps);
			if (folio_test(folio, PG_file))
				add_mm_counter_file(dst_mm, folio, 1);
			else
				dst_mm->rss_anon++;
			if (cow && (pte & PTE_WRITE)) {
				*src_pte = pte & ~PTE_WRITE;	/* ptep_set_wrprotect() */
				pte &= ~PTE_WRITE;
			}
			if (src_vma->vm_flags & VM_SHARED)
				pte &= ~PTE_DIRTY;		/* pte_mkclean() */
			*dst_pte = pte & ~PTE_YOUNG;		/* pte_mkold() */
			sim_cost_cpu_ps(sim_mm->pte_op_ps);
		}
		spin_unlock(src_ptl);
		spin_unlock(dst_ptl);
		addr = next;
	}
	return 0;
}
