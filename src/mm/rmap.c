// SPDX-License-Identifier: GPL-2.0-only
/*
 * Anonymous reverse mapping (mm/rmap.c), reduced to what the scenarios
 * use: a folio of a private anonymous mapping is mapped by one mm, so the
 * rmap is (folio->mm, folio->index) and the mapcount.
 * Mirrors folio_add_new_anon_rmap(), folio_remove_rmap_ptes() and
 * folio_remove_rmap_pmd(); a large
 * anon folio that stays partly mapped is queued for deferred split, as
 * __folio_remove_rmap() does.
 * Page cache folios (issue 30): folio_add_file_rmap_ptes() and the
 * NR_FILE_MAPPED accounting; rmap_walk() visits a file's i_mmap, or the
 * anon_vma that fork shares (anon_vma_fork(), below).
 * Left out: the anon_vma tree (a list per fork family), per-page
 * mapcounts.
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
 * folio_add_file_rmap_ptes - @nr PTEs now map the page cache folio @folio
 * @folio: a page cache folio
 * @nr: PTEs
 * @vma: the VMA they are in
 *
 * The first mapping counts the folio in NR_FILE_MAPPED (__folio_add_rmap()).
 * Context: PTL held.
 */
void folio_add_file_rmap_ptes(struct folio *folio, int nr, struct vm_area_struct *vma)
{
	(void)vma;
	if (folio->_mapcount == 0)
		node_stat_mod_folio(folio, NR_FILE_MAPPED, folio_nr_pages(folio));
	folio->_mapcount += nr;
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
	/*
	 * __folio_remove_rmap(): atomic_add_negative(-1, &page->_mapcount) on
	 * the folio's first page (every page of a large one), whose struct
	 * page line holds the flags, the LRU links and _refcount too: the
	 * zap takes the line before the folio is freed under the lru_lock.
	 */
	sim_line_rmw_measured(&folio->line);	/* the atomic's time: mm.rmap_del_ns */
	folio->_mapcount -= nr;
	SIM_BUG_ON_FOLIO(folio->_mapcount < 0, folio);
	sim_cost_cpu_ps(sim_mm->rmap_del_ps);	/* mm.rmap_del_ns */
	/* __folio_mod_stat(): a page cache folio no PTE maps any more (order 0) */
	if (folio_test(folio, PG_file) && folio->_mapcount == 0)
		node_stat_mod_folio(folio, NR_FILE_MAPPED, -folio_nr_pages(folio));
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

/*
 * vma_address(): where @vma maps @folio's first page, or 0 when it does
 * not span it.  A page cache folio is at its file offset; an anonymous one
 * at the same address in every VMA of its anon_vma (fork keeps addresses).
 */
static uint64_t vma_address(const struct folio *folio, const struct vm_area_struct *vma)
{
	uint64_t addr;

	if (folio_test(folio, PG_file)) {
		uint64_t pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;

		if (folio->index < vma->vm_pgoff || folio->index >= vma->vm_pgoff + pages)
			return 0;
		return vma->vm_start + ((folio->index - vma->vm_pgoff) << PAGE_SHIFT);
	}
	addr = folio->index << PAGE_SHIFT;
	return addr >= vma->vm_start && addr < vma->vm_end ? addr : 0;
}

/*
 * The folio's pages that @vma can map from @addr on: a large page cache
 * folio may pass the VMA's end (its PTEs then map only the pages inside;
 * one that starts before the VMA is not reached: vma_address() says 0).
 */
static long rmap_nr_in_vma(const struct folio *folio, const struct vm_area_struct *vma,
			   uint64_t addr)
{
	long nr = folio_nr_pages(folio);
	uint64_t left = (vma->vm_end - addr) >> PAGE_SHIFT;

	return (uint64_t)nr > left ? (long)left : nr;
}

typedef void (*rmap_one_t)(struct folio *folio, struct vm_area_struct *vma, uint64_t addr,
			   void *arg);

/*
 * rmap_walk(): call @one for each VMA that may map @folio.  A page cache
 * folio: the VMAs of the file's i_mmap under i_mmap_rwsem
 * (rmap_walk_file()); an anonymous folio: the VMA of folio->mm at its
 * address, and when fork gave that VMA an anon_vma, every VMA of it under
 * the anon_vma's rwsem (rmap_walk_anon()).
 */
static void rmap_walk(struct folio *folio, rmap_one_t one, void *arg)
{
	struct vm_area_struct *vma;
	struct anon_vma *av;
	struct list_head *pos;

	if (folio_test(folio, PG_file)) {
		struct address_space *mapping = folio->mapping;

		down_read(&mapping->i_mmap_rwsem);	/* i_mmap_lock_read() */
		list_for_each(pos, &mapping->i_mmap) {
			uint64_t addr;

			vma = list_entry(pos, struct vm_area_struct, shared_node);
			addr = vma_address(folio, vma);
			if (addr)
				one(folio, vma, addr, arg);
		}
		up_read(&mapping->i_mmap_rwsem);
		return;
	}
	if (!folio->mm)
		return;
	vma = find_vma(folio->mm, folio->index << PAGE_SHIFT);
	if (!vma)
		return;
	if (!vma->anon_vma) {
		one(folio, vma, folio->index << PAGE_SHIFT, arg);
		return;
	}
	av = vma->anon_vma;
	down_read(&av->rwsem);			/* anon_vma_lock_read() */
	list_for_each(pos, &av->vmas) {
		uint64_t addr;

		vma = list_entry(pos, struct vm_area_struct, anon_vma_node);
		addr = vma_address(folio, vma);
		if (addr)
			one(folio, vma, addr, arg);
	}
	up_read(&av->rwsem);
}

/* folio_referenced_one(): the young PTEs of @folio in one VMA. */
static void folio_referenced_one(struct folio *folio, struct vm_area_struct *vma, uint64_t addr,
				 void *arg)
{
	int *referenced = arg;
	struct spinlock *ptl;
	pte_t *pte;
	long i, nr = rmap_nr_in_vma(folio, vma, addr);

	pte = vma_pte_lookup(vma, addr);
	ptl = pte_lockptr_lookup(vma, addr);
	spin_lock(ptl);
	for (i = 0; i < nr; i++) {
		if (!pte_present(pte[i]) || pte_folio(pte[i]) != folio)
			continue;
		/* MGLRU: a young PTE's neighbours are likely young too */
		if (sim_mm->lru_gen_enabled && (pte[i] & PTE_YOUNG)) {
			lru_gen_look_around(vma, addr + ((uint64_t)i << PAGE_SHIFT), &pte[i]);
			(*referenced)++;
		}
		/* ptep_clear_flush_young(): x86 does not flush for this */
		if (pte[i] & PTE_YOUNG) {
			pte[i] &= ~PTE_YOUNG;
			(*referenced)++;
		}
	}
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)nr + sim_mm->folio_op_ps);
	spin_unlock(ptl);
}

/**
 * folio_referenced - test and clear the young bits of the PTEs mapping @folio
 * @folio: a locked, isolated folio
 * @is_locked: the caller holds the folio lock
 *
 * Context: takes the PTL of each mapping (and i_mmap_rwsem or the
 * anon_vma's rwsem when more than one VMA may map it).
 * Return: the number of PTEs that were young.
 */
int folio_referenced(struct folio *folio, bool is_locked)
{
	SIM_TRACE_SCOPE("reclaim", "folio_referenced");
	int referenced = 0;

	(void)is_locked;
	if (!folio_mapped(folio))
		return 0;
	rmap_walk(folio, folio_referenced_one, &referenced);
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

/*
 * try_to_unmap_one(): clear the PTEs of @folio in one VMA.  An anonymous
 * folio (in the swap cache) leaves a swap PTE; a page cache folio leaves
 * none, a dirty PTE dirtying it (folio_mark_dirty()).
 */
static void try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma, uint64_t addr,
			     void *arg)
{
	enum ttu_flags flags = *(enum ttu_flags *)arg;
	struct mm_struct *mm = vma->vm_mm;
	bool file = folio_test(folio, PG_file);
	struct spinlock *ptl;
	long i, nr = rmap_nr_in_vma(folio, vma, addr);
	pte_t *pte = vma_pte_lookup(vma, addr);

	ptl = pte_lockptr_lookup(vma, addr);
	spin_lock(ptl);
	for (i = 0; i < nr; i++) {
		pte_t pteval = pte[i];

		if (!pte_present(pteval) || pte_folio(pteval) != folio)
			continue;
		if (!file) {
			/* swap_duplicate() before the PTE changes: the slot is held */
			SIM_BUG_ON_FOLIO(!folio_test(folio, PG_swapcache), folio);
			swap_dup_to_pte(folio->swap - 1);
			pteval = pte[i];	/* re-read after the cluster lock */
		}
		if (should_defer_flush(mm, flags)) {
			pte[i] = 0;			/* ptep_get_and_clear() */
			set_tlb_ubc_flush_pending(mm, pteval, folio);
		} else {
			pte[i] = 0;			/* ptep_clear_flush() */
			flush_tlb_mm_range(mm, addr + (uint64_t)i * PAGE_SIZE,
					   addr + (uint64_t)(i + 1) * PAGE_SIZE, false);
		}
		if (file) {
			if (pteval & PTE_DIRTY)
				folio_mark_dirty(folio);
			if (folio_test(folio, PG_swapbacked))	/* dec_mm_counter(mm_counter_file()) */
				mm->rss_shmem--;
			else
				mm->rss_file--;
		} else {
			if (pteval & PTE_DIRTY)
				folio_set(folio, PG_dirty);	/* folio_mark_dirty() */
			/* an anon folio in the swap cache: install the swap PTE */
			pte[i] = swp_entry_to_pte(folio->swap - 1);
			mm->rss_anon--;
			mm->swapents++;
		}
		folio_remove_rmap_ptes(folio, 1, vma);
		folio_put_testzero(folio);	/* the mapping's reference */
		SIM_BUG_ON_FOLIO(folio->_refcount <= 0, folio);
	}
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)nr);
	spin_unlock(ptl);
}

/**
 * try_to_unmap - unmap a locked folio from every page table
 * @folio: locked, isolated; an anon folio in the swap cache, or a page
 *         cache folio
 * @flags: TTU_BATCH_FLUSH to defer the TLB flush to the batch
 *
 * Return: true; the caller tests folio_mapped() afterwards.
 */
bool try_to_unmap(struct folio *folio, enum ttu_flags flags)
{
	SIM_TRACE_SCOPE("reclaim", "try_to_unmap");
	SIM_BUG_ON_FOLIO(!folio_test(folio, PG_locked), folio);
	/* fork-shared anon: each swap PTE would hold the slot (count 2), not modelled */
	if (folio_test_anon(folio) && folio->_mapcount > folio_nr_pages(folio))
		return false;
	rmap_walk(folio, try_to_unmap_one, &flags);
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
	sim_cost_cpu_ps(sim_mm->rmap_del_ps);	/* mm.rmap_del_ns */
	if (!folio_test(folio, PG_file))
		return;
	/* __folio_mod_stat(): the PMD-mapped count, a node statistic only */
	node_stat_mod_folio(folio, folio_test(folio, PG_swapbacked) ? NR_SHMEM_PMDMAPPED :
			    NR_FILE_PMDMAPPED, -folio_nr_pages(folio));
	if (folio->_mapcount == 0)
		node_stat_mod_folio(folio, NR_FILE_MAPPED, -folio_nr_pages(folio));
}

/**
 * folio_add_file_rmap_pmd - a PMD now maps the PMD-sized page cache folio @folio
 * @folio: the folio
 * @vma: the VMA
 *
 * Counts once in _mapcount, as folio_remove_rmap_pmd() takes it off; the
 * first mapping counts the folio in NR_FILE_MAPPED, each PMD mapping in
 * NR_FILE_PMDMAPPED (NR_SHMEM_PMDMAPPED for tmpfs).
 * Context: the PMD's lock held.
 */
void folio_add_file_rmap_pmd(struct folio *folio, struct vm_area_struct *vma)
{
	(void)vma;
	if (folio->_mapcount == 0)
		node_stat_mod_folio(folio, NR_FILE_MAPPED, folio_nr_pages(folio));
	/* __folio_mod_stat(): the PMD-mapped count, a node statistic only */
	node_stat_mod_folio(folio, folio_test(folio, PG_swapbacked) ? NR_SHMEM_PMDMAPPED :
			    NR_FILE_PMDMAPPED, folio_nr_pages(folio));
	folio->_mapcount += 1;
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
}

/* ---- anon_vma: fork's sharing of anonymous folios (issue 30) -----------------------
 *
 * anon_vma_fork() (read at v6.12 mm/rmap.c) gives the child's VMA an
 * anon_vma chained to the parent's, so that rmap_walk_anon() of a folio
 * the parent had finds the child's PTE too.  The model keeps one anon_vma
 * per fork family and lists every VMA in it.  The kernel's folio->mapping
 * points to the anon_vma, which lives on while a VMA in it does; the
 * model's folio->mm names a mm whose VMA leads there, so a zap that
 * leaves a shared folio mapped elsewhere moves folio->mm to a VMA still
 * in the family (sim_anon_rmap_rehome()).
 */

/**
 * anon_vma_fork - put the child's copy @vma in the anon_vma of @pvma
 * @vma: the child's new VMA
 * @pvma: the parent's VMA, which has anonymous folios
 *
 * Context: both mms' mmap_lock held for writing.
 */
void anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma)
{
	struct anon_vma *av = pvma->anon_vma;

	if (!av) {
		av = calloc(1, sizeof(*av));
		if (!av)
			abort();
		init_rwsem_named(&av->rwsem, "&anon_vma->rwsem");
		INIT_LIST_HEAD(&av->vmas);
		list_add_tail(&pvma->anon_vma_node, &av->vmas);
		av->nr_vmas = 1;
		pvma->anon_vma = av;
	}
	down_write(&av->rwsem);			/* anon_vma_lock_write() */
	list_add_tail(&vma->anon_vma_node, &av->vmas);
	av->nr_vmas++;
	vma->anon_vma = av;
	sim_cost_cpu_ps(2 * sim_mm->list_op_ps);	/* anon_vma_chain_link(), the interval tree */
	up_write(&av->rwsem);
}

/**
 * unlink_anon_vmas - take a VMA being freed out of its anon_vma
 * @vma: the VMA, unmapped
 * @locked: take anon_vma->rwsem for the unlink, as the kernel's
 *          unlink_anon_vmas() does (false only for the mm's teardown,
 *          when nothing else can walk the list and no task runs)
 *
 * The anon_vma is freed with its last VMA, after the lock is dropped.
 * Context: mmap_lock held (or the mm's teardown).
 */
void unlink_anon_vmas(struct vm_area_struct *vma, bool locked)
{
	struct anon_vma *av = vma->anon_vma;
	bool last;

	if (!av)
		return;
	if (locked)
		down_write(&av->rwsem);
	list_del_init(&vma->anon_vma_node);
	vma->anon_vma = NULL;
	last = --av->nr_vmas == 0;
	if (locked) {
		sim_cost_cpu_ps(sim_mm->list_op_ps);
		up_write(&av->rwsem);
	}
	if (last)
		free(av);
}

/**
 * sim_anon_rmap_rehome - point folio->mm at another VMA of the anon_vma
 * @folio: a shared anonymous folio still mapped elsewhere
 * @gone: the VMA being zapped, whose mm folio->mm names
 *
 * Context: the PTL of @gone held.
 */
void sim_anon_rmap_rehome(struct folio *folio, struct vm_area_struct *gone)
{
	struct list_head *pos;

	list_for_each(pos, &gone->anon_vma->vmas) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, anon_vma_node);

		if (vma != gone && vma->vm_mm != gone->vm_mm && vma_address(folio, vma)) {
			folio->mm = vma->vm_mm;
			return;
		}
	}
}
