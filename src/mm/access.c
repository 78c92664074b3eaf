// SPDX-License-Identifier: GPL-2.0-only
/*
 * User memory accesses through the per-CPU TLB model, and the wiring of
 * that model (src/hw/tlb.c, src/hw/mmu.c) under the kernel's TLB flushes:
 * the kernel's side of an access (the page tables a walk reads and the
 * bits it sets, the fault, the charge).
 *
 * What it models
 *   - The MMU on a data access: a lookup in the vCPU's TLB, tagged with
 *     the mm's PCID (mm->asid); on an STLB miss a page walk that reads the
 *     huge PMD or the PTE and sets its accessed bit (and dirty bit for a
 *     store), as the hardware does; a walk that finds no mapping (PTE none,
 *     or a PMD that collapse has cleared) raises a fault, which runs
 *     handle_mm_fault() under mmap_lock and retries the access.
 *   - The cost of an access, flat model (mem.overlap = 0, the default of
 *     every profile but desktop and desktop-kvm; a speed option):
 *     1/mem.loads_per_cycle (the core issues that many independent loads per
 *     cycle), plus tlb.stlb_hit_cycles for an L1 miss, plus the page walk
 *     divided by tlb.page_walkers for an STLB miss (independent random
 *     loads keep that many walks in flight; tlb_walk_stall_cycles()).
 *   - The workload's loop (both models): its own instructions per access
 *     (mem.access_loop, by pattern; ua->loop_mcycles) bound a batch as its
 *     issue slots do: a batch takes at least n times them.
 *   - Overlap model (mem.overlap = 1): the data load and every page-table
 *     reference of a walk go through the vCPU's data caches and cost the
 *     latency of the level holding their line, and a batch of independent
 *     accesses takes the largest of its bounds over the core's limits
 *     (struct user_access); the hardware's side of it (the caches, the
 *     walk's latency, the memory system's loaded latency) is src/hw/mmu.c.
 *   - Costs are summed per access and charged to virtual time in bulk
 *     (user_access_charge()).
 *   - The dirty bit (Intel SDM vol. 3A 4.8): a walk records whether the
 *     entry it fills is dirty (the page writable and its dirty bit set;
 *     tlb_entry_filled()).  A store that hits an entry filled clean (a page
 *     that do_swap_page() mapped writable and clean on a read fault, or
 *     one MADV_FREE cleaned) walks again, sets the dirty bit in memory
 *     with a locked update and marks the entry dirty: no fault, no pgfault
 *     (user_access_assist()).  No source gives the cost of this assist; it
 *     is charged as the walk of an STLB miss of that page size (flat and
 *     overlap model alike) plus lock.atomic_cycles for the locked update
 *     of the PTE's line.  A store whose walk finds the PTE read-only
 *     faults (do_wp_page()).  Reclaim reads the dirty bit as the kernel
 *     does: try_to_unmap_one() takes it from the cleared PTE
 *     (folio_mark_dirty(), and the flush before pageout for a dirty one).
 *   - dtlb_load_misses: one per completed walk (stats.walks of the TLB);
 *     an assist's walk is not one (sim_tlb_dirty_assists counts them, as
 *     the TLB's stats.dirty_assists).
 *   - arch_tlb_flush_hook: flush_tlb_func() (src/mm/tlb.c) on a CPU also
 *     flushes that CPU's TLB model (mmu_flush_range(), mmu_flush_asid()):
 *     a full flush of the mm's PCID above tlb_single_page_flush_ceiling,
 *     else INVLPG per page.
 *
 * What it leaves out
 *   - Flat model: the data caches (the data access costs its issue slot,
 *     1/mem.loads_per_cycle).
 *   - Overlap model: see src/hw/mmu.c.
 *   - Several VMAs per user_access (each state covers one VMA).
 *
 * Lock order: a fault takes mmap_lock (read) -> PTL -> lru_lock, as
 * handle_mm_fault() documents.  TLB lookups and walks take no lock: the
 * MMU does not, and the walk sees the page tables as they are.
 */
#include <errno.h>
#include <string.h>

#include "mm/access.h"

/*
 * flush_tlb_func()'s hook: drop what this CPU's TLB caches of [start, end)
 * in @mm's address space.  Runs on @cpu (locally or in the IPI handler).
 */
static void mm_tlb_flush_hook(int cpu, struct mm_struct *mm, uint64_t start, uint64_t end)
{
	if (!mm)
		return;
	if (end == TLB_FLUSH_ALL)
		mmu_flush_asid(cpu, mm->asid);
	else
		mmu_flush_range(cpu, mm->asid, start, end,
				sim_mm->prof->tlb_single_page_flush_ceiling);
}

/**
 * mm_tlb_check_profile - can mm_tlb_init() build @p's TLBs and caches?
 * @p: the profile
 * @err: one line naming the bad value and what is expected
 * @len: its size
 *
 * Checked before a run, so that a bad profile value (a --cost) is bad
 * input, not a failure of the run (mmu_check_profile()).
 * Context: any.
 * Return: 0, or -1 with @err set.
 */
int mm_tlb_check_profile(const struct sim_profile *p, char *err, size_t len)
{
	return mmu_check_profile(p, err, len);
}

/**
 * mm_tlb_init - give every vCPU of @e a TLB of the profile's geometry
 * @e: the engine, created with its profile
 *
 * Builds the MMUs (mmu_init(): the TLBs and, with mem.overlap = 1, the
 * caches of the overlap model) and installs the flush hook so that the
 * kernel's TLB flushes reach them.
 * Context: before the engine runs.
 * Return: 0, or a negative errno (-EINVAL for a bad [tlb] or cache geometry).
 */
int mm_tlb_init(struct sim_engine *e)
{
	int ret = mmu_init(e);

	arch_tlb_flush_hook = ret ? NULL : mm_tlb_flush_hook;
	return ret;
}

/**
 * mm_tlb_destroy - free the TLBs of @e and remove the flush hook
 * @e: the engine
 *
 * Context: after the engine has run.
 */
void mm_tlb_destroy(struct sim_engine *e)
{
	mmu_destroy(e);
	arch_tlb_flush_hook = NULL;
}

/**
 * user_access_init - prepare accesses of the current task to @vma
 * @ua: the state to fill
 * @vma: the VMA the task accesses
 *
 * Context: the task that will access, on its vCPU, after switch_mm.
 */
void user_access_init(struct user_access *ua, struct vm_area_struct *vma)
{
	struct tlb *t = sim_this_vcpu()->tlb;
	uint32_t w = t->geo.page_walkers;
	uint32_t p = (uint32_t)sim_mm->prof->mem_loads_per_cycle;
	int huge;

	memset(ua, 0, sizeof(*ua));
	ua->mmu.tlb = t;
	ua->mm = vma->vm_mm;
	ua->vma = vma;
	ua->pmd_huge = vma->pmd_huge;
	ua->pmd_base = vma->vm_start & ~(PMD_SIZE - 1);
	ua->mmu.asid = vma->vm_mm->asid;
	for (huge = 0; huge < 2; huge++) {
		ua->unit[TLB_L1_HIT][huge] = w;
		ua->unit[TLB_STLB_HIT][huge] = (1 + t->cost[TLB_STLB_HIT][huge] * p) * w;
		ua->unit[TLB_WALK][huge] = (1 + t->cost[TLB_STLB_HIT][huge] * p) * w +
					   t->walk_cost[huge] * p;
	}
	ua->scale = (uint64_t)p * w;
	ua->mmu.cache = sim_this_vcpu()->dcache;
	ua->mmu.psc = mmu_psc_of(smp_processor_id());
	if (ua->mmu.cache) {
		ua->scale = (uint64_t)p * w * sim_mm->prof->mem_line_fill_buffers *
			    sim_mm->prof->mem_load_buffer_entries * sim_mm->prof->mem_rob_entries;
		ua->uops = 1;
		ua->mmu.ept_huge = sim_mm->prof->tlb_ept_page_kib == 2048;
		ua->mmu.walk_fills = sim_mm->prof->mem_walk_fill_buffers;
		ua->mmu.atomic_cycles = (uint32_t)sim_mm->prof->lock_atomic_cycles;
	}
	/*
	 * A guest's 2M page on a host that maps guest memory in 4K pages is
	 * cached as 4K entries, one per 4K page touched (the TLB keeps the
	 * smaller of the two page sizes: "splintering", Pham et al., MICRO
	 * 2015); its walk still ends at the guest's PMD.
	 */
	ua->tlb_2m = !(sim_mm->prof->tlb_walk_dims == 2 && sim_mm->prof->tlb_ept_page_kib == 4);
	ua->den = ua->scale * sim_mm->prof->clock_mhz;
	ua->walks_seen = t->stats.walks;
	ua->lookups_seen = tlb_nr_lookups(t);
}

/**
 * user_access_charge - charge the accesses made since the last charge
 * @ua: the access state
 *
 * Converts the summed cycles to virtual time (keeping the remainder, so
 * that nothing is lost to rounding), counts the walks as dtlb_load_misses
 * and the accesses as sim_tlb_accesses (the host-speed denominator).  May sync: interrupts (TLB-flush IPIs) are taken here.
 * Context: the accessing task.
 */
void user_access_charge(struct user_access *ua)
{
	uint64_t walks = ua->mmu.tlb->stats.walks;
	uint64_t lookups = tlb_nr_lookups(ua->mmu.tlb);
	uint64_t units = ua->units, lines = 0;
	unsigned __int128 num;		/* units x 10^6: past 64 bits with large limits */
	bool memory_bound = false;
	sim_time_t ps;

	if (ua->mmu.cache) {
		const struct sim_profile *p = sim_mm->prof;
		const struct overlap_limits lim = {
			.loads_per_cycle = p->mem_loads_per_cycle,
			.fill_buffers = p->mem_line_fill_buffers,
			.page_walkers = ua->mmu.tlb->geo.page_walkers,
			.load_buffer = p->mem_load_buffer_entries,
			.rob_entries = p->mem_rob_entries,
			.uops = ua->uops,
			.loop_mcycles = ua->loop_mcycles,
		};
		const struct overlap_batch b = {
			.n = lookups - ua->lookups_seen,
			.miss_cycles = ua->miss_cycles,
			.walk_cycles = ua->walk_cycles,
			.window_cycles = ua->window_cycles,
		};

		units = mmu_overlap_cycles(&b, &lim, &memory_bound);
		ua->miss_cycles = 0;
		ua->walk_cycles = 0;
		ua->window_cycles = 0;
		lines = ua->dram_lines;
		ua->dram_lines = 0;
	} else if (ua->loop_mcycles) {
		/* flat: the loop's own cycles bound the batch as its issue slots do */
		uint64_t loop = (uint64_t)((unsigned __int128)(lookups - ua->lookups_seen) *
					   ua->loop_mcycles * ua->scale / 1000);

		if (loop > units)
			units = loop;
	}
	/*
	 * A user access is an interrupt point: a TLB-flush IPI queued for
	 * this vCPU ends its run-ahead quantum when it arrives, so it is
	 * taken in the charge below.  Without this, a vCPU alone in the
	 * engine's heap (the sender spinning on the answer) ran its user
	 * accesses on to its next kernel sync point first: on 2 CPUs,
	 * khugepaged's collapse waited 95 ms for its flush (docs/validation.md).
	 */
	{
		struct sim_vcpu *v = sim_this_vcpu();

		if (v->csd_head && !v->irq_disabled && v->csd_head->arrival < v->quantum_end)
			v->quantum_end = v->csd_head->arrival > v->now ? v->csd_head->arrival
								       : v->now;
	}
	num = (unsigned __int128)units * 1000000ULL + ua->rem;
	ua->units_charged += units;
	ua->units = 0;
	ua->rem = (uint64_t)(num % ua->den);
	ps = (sim_time_t)(num / ua->den);
	if (ua->mmu.cache)
		mmu_memory_batch(ua->mmu.cache, sim_mm->prof, sim_mm->memsys, lines, ps);
	count_events(SIM_DTLB_LOAD_MISSES, walks - ua->walks_seen);
	ua->walks_seen = walks;
	count_events(SIM_TLB_ACCESSES, lookups - ua->lookups_seen);
	ua->lookups_seen = lookups;
	/* Waiting for memory is not the core's work: SMT does not stretch it. */
	if (memory_bound)
		sim_cost_ps(ps);
	else
		sim_cost_cpu_ps(ps);
}

/**
 * user_access_overlap - the overlap model's account of one access
 * @ua: the access state (ua->mmu.cache set)
 * @addr: the address accessed
 * @r: what the TLB did
 * @huge: the page is 2M
 *
 * Loads the walk's entries (for an STLB miss) and the data line through
 * the caches and adds the latencies to the batch's sums: the data's
 * memory latency to miss_cycles when it missed L1D, the walk's to
 * walk_cycles, and translation + memory latency to window_cycles.  A load
 * that faults is counted as if it had completed (first touches only).
 * Context: the accessing task.
 */
void user_access_overlap(struct user_access *ua, uint64_t addr, enum tlb_result r, bool huge)
{
	struct mmu_sums s = { 0 };
	uint64_t dram = ua->mmu.cache->loads[CACHE_DRAM];

	mmu_overlap_one(&ua->mmu, ua->mmu.cache, addr, r, huge, &s);
	ua->dram_lines += ua->mmu.cache->loads[CACHE_DRAM] - dram;
	ua->miss_cycles += s.miss;
	ua->walk_cycles += s.walk;
	ua->window_cycles += s.window;
}

/*
 * The walk found no translation: the MMU caches none, but tlb_access()
 * filled one.  Drop it again without counting a flush.
 */
static void tlb_unfill(struct tlb *t, uint16_t asid, uint64_t addr)
{
	struct tlb_stats saved = t->stats;

	tlb_flush_one(t, asid, addr);
	t->stats = saved;
}

/* A fault on @addr: handle_mm_fault() under mmap_lock, as the #PF handler does. */
/*
 * A fault that fails (no memory for a copy-on-write or a page cache
 * folio, an address past a truncated file's end) is where the kernel
 * would OOM-kill the task or send it SIGBUS: the access is not run again
 * (it would fault again, for ever) and the first failure is kept in
 * ua->fault_err for the caller to report.
 */
static void user_access_fault(struct user_access *ua, uint64_t addr, bool write)
{
	struct mm_struct *mm = ua->mm;
	int ret;

	tlb_unfill(ua->mmu.tlb, ua->mmu.asid, addr);
	user_access_charge(ua);
	/* The per-VMA lock is write-locked by a collapse: fall back to mmap_lock. */
	down_read(&mm->mmap_lock);
	ret = handle_mm_fault(ua->vma, addr, write);
	up_read(&mm->mmap_lock);
	if (ret) {
		if (!ua->fault_err) {
			ua->fault_err = ret;
			ua->fault_addr = addr;
		}
		return;
	}
	/* The instruction runs again. */
	user_access(ua, addr, write);
}

/* The bits a walk sets in a huge PMD and in a PTE: accessed, and dirty for a store. */
#define WALK_PMD_BITS(write)	((uint8_t)(PMD_YOUNG | ((write) ? PMD_DIRTY : 0)))
#define WALK_PTE_BITS(write)	((pte_t)(PTE_YOUNG | ((write) ? PTE_DIRTY : 0)))

/* What a walk found: nothing it may use (a fault), or a mapping it cached clean or dirty. */
enum walk_fill {
	WALK_FAULT,
	WALK_CLEAN,			/* not writable, or its dirty bit clear */
	WALK_DIRTY,			/* writable and dirty: a store may use it as it is */
};

/*
 * The walk's own work for an access that missed the STLB: set @pmd_bits
 * in the huge PMD or @pte_bits in the PTE, as the MMU does.  @pmd_flags
 * and @pte are the VMA's entry for the PMD and the page (the caller keeps
 * the arrays in registers: a byte store could alias the VMA).  Returns
 * WALK_FAULT when nothing is mapped (a PMD that collapse has cleared, or
 * no present PTE) or a store finds the PTE read-only: the access faults.
 * Otherwise whether the entry the TLB caches is dirty (a huge PMD is
 * always writable in the model).
 */
static inline __attribute__((always_inline))
enum walk_fill walk_set_bits(uint8_t *pmd_flags, pte_t *pte, bool huge, bool write,
			     uint8_t pmd_bits, pte_t pte_bits)
{
	if (huge) {
		*pmd_flags |= pmd_bits;
		return (*pmd_flags & PMD_DIRTY) ? WALK_DIRTY : WALK_CLEAN;
	}
	if (*pmd_flags & PMD_CLEARED)
		return WALK_FAULT;
	*pmd_flags |= PMD_NONLEAF_YOUNG;	/* the walk went through the PMD */
	if (!pte_present(*pte) || (write && !(*pte & PTE_WRITE)))
		return WALK_FAULT;
	*pte |= pte_bits;
	return (~*pte & (PTE_WRITE | PTE_DIRTY)) ? WALK_CLEAN : WALK_DIRTY;
}

/**
 * user_access_walk - the page walk of an access that missed the STLB
 * @ua: the access state
 * @addr: the address
 * @huge: the walk ends at a huge PMD
 * @write: a store
 *
 * Sets the accessed (and, for a store, dirty) bit of the PMD or PTE and
 * records whether the new TLB entry is dirty, or faults when nothing is
 * mapped or a store finds the PTE read-only.
 * Context: the accessing task; may sleep on mmap_lock when it faults.
 */
void user_access_walk(struct user_access *ua, uint64_t addr, bool huge, bool write)
{
	struct vm_area_struct *vma = ua->vma;
	enum walk_fill f = walk_set_bits(&vma->pmd_flags[(addr - ua->pmd_base) >> PMD_SHIFT],
					 &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT], huge,
					 write, WALK_PMD_BITS(write), WALK_PTE_BITS(write));

	if (f == WALK_FAULT)
		user_access_fault(ua, addr, write);
	else
		tlb_entry_filled(ua->mmu.tlb, ua->mmu.asid, addr, huge && ua->tlb_2m,
				 f == WALK_DIRTY);
}

/*
 * The flat model's units of a dirty-bit assist (user_access_assist()):
 * the walk of an STLB miss of that page size (tlb.walk_cycles scaled by
 * its references, over the page walkers, as unit[TLB_WALK] charges it)
 * and a locked RMW of the PTE's line (lock.atomic_cycles) in full.
 */
static inline uint64_t ua_assist_units(const struct user_access *ua, bool huge)
{
	const struct sim_profile *p = sim_mm->prof;

	return (uint64_t)ua->mmu.tlb->walk_cost[huge] * p->mem_loads_per_cycle +
	       p->lock_atomic_cycles * ua->scale;
}

/**
 * user_access_assist - a store hit a TLB entry that was filled clean
 * @ua: the access state
 * @addr: the address
 * @huge: a 2M entry
 *
 * The processor cannot write through an entry whose dirty bit is clear
 * (Intel SDM vol. 3A 4.8): it walks again and sets the dirty bit of the
 * PTE (or huge PMD) in memory with a locked update, and the entry it
 * caches is then dirty.  No fault and no pgfault: only if the walk finds
 * the page gone or read-only does the store fault.  Costs a walk of that
 * page size and lock.atomic_cycles (ua_assist_units(),
 * mmu_assist_overlap()); counts the TLB's stats.dirty_assists.
 *
 * Why reclaim may defer the flush of a clean PTE past pageout (only a
 * dirty one makes try_to_unmap_flush_dirty() flush first):
 *
 *   CPU 0 (reclaim)                      CPU 1 (the owner, entry cached clean)
 *   try_to_unmap_one(): PTE cleared,
 *     not dirty: flush deferred
 *   pageout(): writes the folio          store hits the clean entry: the
 *                                        assist walks, finds no PTE: fault,
 *                                        swap-in of what was written
 *
 * Context: the accessing task; may sleep on mmap_lock when it faults.
 */
void user_access_assist(struct user_access *ua, uint64_t addr, bool huge)
{
	struct vm_area_struct *vma = ua->vma;

	if (ua->mmu.cache) {
		struct mmu_sums s = { 0 };
		uint64_t dram = ua->mmu.cache->loads[CACHE_DRAM];

		mmu_assist_overlap(&ua->mmu, addr, huge, &s);
		ua->dram_lines += ua->mmu.cache->loads[CACHE_DRAM] - dram;
		ua->miss_cycles += s.miss;
		ua->walk_cycles += s.walk;
		ua->window_cycles += s.window;
	} else {
		ua->units += ua_assist_units(ua, huge);
	}
	tlb_entry_set_dirty(ua->mmu.tlb, ua->mmu.asid, addr, huge && ua->tlb_2m);
	count_event(SIM_SIM_TLB_DIRTY_ASSISTS);
	if (walk_set_bits(&vma->pmd_flags[(addr - ua->pmd_base) >> PMD_SHIFT],
			  &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT], huge, true,
			  WALK_PMD_BITS(true), WALK_PTE_BITS(true)) == WALK_FAULT)
		user_access_fault(ua, addr, true);
}

/*
 * What a batch's loop knows about the page size of every address in the
 * VMA: nothing (look at the PMD), or that no PMD or every PMD maps a huge
 * page.  While no access faults, nothing else runs on the engine, so the
 * answer holds until the batch ends or an access faults.
 */
enum ua_sizes {
	UA_MIXED,			/* some PMDs huge, some not */
	UA_SMALL,			/* no huge PMD: every page is 4K */
	UA_HUGE,			/* every PMD huge: every page is 2M */
};

/* How far ahead the loop fetches PTEs (and the caches' sets) into the host's caches. */
#define UA_PREFETCH	4

/* Outcomes of a loop's accesses not yet added to the TLB's counters. */
struct ua_counts {
	uint64_t stlb_hits;		/* L1 misses that hit the STLB */
	uint64_t walks[2];		/* walks of 4K and of 2M pages */
};

static void ua_counts_add(struct tlb *t, const struct ua_counts *c, unsigned int n)
{
	tlb_count(t, TLB_STLB_HIT, false, c->stlb_hits);
	tlb_count(t, TLB_WALK, false, c->walks[0]);
	tlb_count(t, TLB_WALK, true, c->walks[1]);
	tlb_count(t, TLB_L1_HIT, false, n - c->stlb_hits - c->walks[0] - c->walks[1]);
}

/*
 * The loop over @n addresses whose page sizes @sizes describes, in the
 * flat model or (@overlap) the overlap model; both are constants after
 * inlining, so each kind gets its own loop.  It counts the TLB's outcomes
 * (and the overlap model's sums) in registers and adds them at the end.
 * It stops after an access that faulted, since the fault may have slept
 * and changed the page tables.  Returns the number of accesses made.
 */
static inline __attribute__((always_inline))
unsigned int user_access_run(struct user_access *ua, const uint64_t *addrs, unsigned int n,
			     bool write, enum ua_sizes sizes, bool overlap)
{
	struct vm_area_struct *vma = ua->vma;
	struct tlb *t = ua->mmu.tlb;
	struct cache_path *cp = ua->mmu.cache;
	struct folio *const *pmd_huge = ua->pmd_huge;
	uint8_t *pmd_flags = vma->pmd_flags;
	pte_t *ptes = vma->ptes;
	const uint64_t pmd_base = ua->pmd_base, start = vma->vm_start;
	const uint16_t asid = ua->mmu.asid;
	const uint8_t pmd_bits = WALK_PMD_BITS(write);
	const pte_t pte_bits = WALK_PTE_BITS(write);
	const bool tlb_2m = ua->tlb_2m;
	struct ua_counts c = { 0 };
	struct mmu_sums sums = { 0 };
	uint64_t units = 0, dram = overlap ? cp->loads[CACHE_DRAM] : 0;
	uint64_t last_key = 0;		/* the previous access's TLB key; 0 is no key */
	/* The L1D sets of the data loads since the last walk (struct walk_memo). */
	uint64_t dirty = 0, l1_page_mask = overlap ? cp->l1->page_mask : 0;
	unsigned int i;
	enum walk_fill f;

	ua->mmu.memo.on = overlap;
	ua->mmu.memo.valid = false;

	for (i = 0; i < n; i++) {
		uint64_t addr = addrs[i];
		uint64_t idx = (addr - pmd_base) >> PMD_SHIFT;
		bool huge = sizes == UA_HUGE || (sizes == UA_MIXED && pmd_huge[idx]);
		bool th = huge && tlb_2m;	/* the TLB entry's size */
		uint64_t key = tlb_key(asid, tlb_vpn(addr, th), th);
		enum tlb_result r;

		if (overlap && i + UA_PREFETCH < n)
			cache_path_prefetch(cp, mmu_data_line(asid, addrs[i + UA_PREFETCH]));
		if (sizes != UA_HUGE && i + UA_PREFETCH < n) {
			uint64_t ahead = addrs[i + UA_PREFETCH];

			if (sizes == UA_SMALL || !pmd_huge[(ahead - pmd_base) >> PMD_SHIFT])
				__builtin_prefetch(&ptes[(ahead - start) >> PAGE_SHIFT]);
		}
		/*
		 * The page of the previous access: every lookup leaves its key
		 * the most recent of its L1 set, where a lookup is a hit that
		 * changes nothing, and nothing else in this loop touches the
		 * TLB.  (In the "pages" pattern on 2M pages, most accesses.)
		 */
		r = key == last_key ? TLB_L1_HIT : tlb_lookup(t, asid, addr, th);
		last_key = key;
		if (overlap) {
			if (r == TLB_WALK) {
				ua->mmu.memo.dirty |= dirty;
				dirty = 0;
			}
			mmu_overlap_one(&ua->mmu, cp, addr, r, huge, &sums);
			/*
			 * Its data load looked in this L1D set: with 64 sets or
			 * fewer, the line's place in its page (cache_set()).
			 */
			dirty |= 1ULL << (l1_page_mask ? (addr >> 6) & l1_page_mask :
					  cache_set(cp->l1, mmu_data_line(asid, addr)) & 63);
		} else {
			units += ua->unit[r][huge];
		}
		if (r != TLB_WALK) {
			c.stlb_hits += r == TLB_STLB_HIT;
			if (!write || !tlb_entry_clean(t, asid, addr, th))
				continue;
			/* A store through an entry filled clean: user_access_assist(). */
			if (overlap)
				mmu_assist_overlap(&ua->mmu, addr, huge, &sums);
			else
				units += ua_assist_units(ua, huge);
			tlb_entry_set_dirty(t, asid, addr, th);
			count_event(SIM_SIM_TLB_DIRTY_ASSISTS);
			if (walk_set_bits(&pmd_flags[idx], &ptes[(addr - start) >> PAGE_SHIFT],
					  huge, true, pmd_bits, pte_bits) != WALK_FAULT)
				continue;
		} else {
			c.walks[th]++;
			f = walk_set_bits(&pmd_flags[idx], &ptes[(addr - start) >> PAGE_SHIFT], huge,
					  write, pmd_bits, pte_bits);
			if (f != WALK_FAULT) {
				tlb_entry_filled(t, asid, addr, th, f == WALK_DIRTY);
				continue;
			}
		}
		/* The access faults: what the loop summed first, then the fault. */
		ua->units += units;
		ua->miss_cycles += sums.miss;
		ua->walk_cycles += sums.walk;
		ua->window_cycles += sums.window;
		if (overlap)
			ua->dram_lines += cp->loads[CACHE_DRAM] - dram;
		ua->mmu.memo.on = false;
		ua_counts_add(t, &c, i + 1);
		user_access_fault(ua, addr, write);
		return i + 1;
	}
	ua->units += units;
	ua->miss_cycles += sums.miss;
	ua->walk_cycles += sums.walk;
	ua->window_cycles += sums.window;
	if (overlap)
		ua->dram_lines += cp->loads[CACHE_DRAM] - dram;
	ua->mmu.memo.on = false;
	ua_counts_add(t, &c, n);
	return n;
}

/**
 * user_access_batch - user_access() for each of @n addresses, in order
 * @ua: the task's access state
 * @addrs: addresses inside ua->vma
 * @n: how many
 * @write: stores (set the dirty bit on a walk, or through a clean entry)
 *
 * Exactly what @n calls of user_access() would do, faster: in the flat
 * model the loop is chosen by what the VMA's PMDs map (all 4K, all 2M or
 * mixed), so that the common cases need not look at the PMD of each
 * access, and the walk's bookkeeping is inline.  The cost is charged
 * later by user_access_charge(), as for user_access().
 *
 * Context: as user_access().
 */
void user_access_batch(struct user_access *ua, const uint64_t *addrs, unsigned int n, bool write)
{
	const struct vm_area_struct *vma = ua->vma;
	unsigned int done;

	while (n && !ua->fault_err) {
		bool all_small = vma->nr_pmd_huge == 0;
		bool all_huge = vma->nr_pmd_huge == vma_nr_pmds(vma);

		if (ua->mmu.cache)
			done = all_small ? user_access_run(ua, addrs, n, write, UA_SMALL, true) :
			       all_huge ? user_access_run(ua, addrs, n, write, UA_HUGE, true) :
			       user_access_run(ua, addrs, n, write, UA_MIXED, true);
		else
			done = all_small ? user_access_run(ua, addrs, n, write, UA_SMALL, false) :
			       all_huge ? user_access_run(ua, addrs, n, write, UA_HUGE, false) :
			       user_access_run(ua, addrs, n, write, UA_MIXED, false);
		addrs += done;
		n -= done;
	}
}

