// SPDX-License-Identifier: GPL-2.0-only
/*
 * User memory accesses through the per-CPU TLB model, and the wiring of
 * that model (src/hw/tlb.c) under the kernel's TLB flushes.
 *
 * What it models
 *   - The MMU on a data access: a lookup in the vCPU's TLB, tagged with
 *     the mm's PCID (mm->asid); on an STLB miss a page walk that reads the
 *     huge PMD or the PTE and sets its accessed bit (and dirty bit for a
 *     store), as the hardware does; a walk that finds no mapping (PTE none,
 *     or a PMD that collapse has cleared) raises a fault, which runs
 *     handle_mm_fault() under mmap_lock and retries the access.
 *   - The cost of an access, flat model (mem.loads_in_flight = 0, every
 *     profile's default): mem.access_cycles, plus tlb.stlb_hit_cycles for
 *     an L1 miss, plus the page walk divided by tlb.page_walkers for an
 *     STLB miss (independent random loads keep that many walks in flight;
 *     tlb_walk_stall_cycles()).
 *   - Overlap model (mem.loads_in_flight > 0): the data load and every
 *     page-table reference of a walk go through the vCPU's data caches
 *     (include/mmsim/cache.h) and cost the latency of the level holding
 *     their line; a batch of independent accesses takes the largest of
 *     its issue time, its L1D-miss latency over loads_in_flight, and its
 *     walk latency over page_walkers (struct user_access).  A nested walk
 *     reads its 24 (19 for a 2M guest page) entries through the same
 *     caches, with the host's EPT mapping the guest in 4K pages.
 *   - Costs are summed per access and charged to virtual time in bulk
 *     (user_access_charge()).
 *   - dtlb_load_misses: one per completed walk (stats.walks of the TLB).
 *   - arch_tlb_flush_hook: flush_tlb_func() (src/mm/tlb.c) on a CPU also
 *     flushes that CPU's TLB model: a full flush of the mm's PCID above
 *     tlb_single_page_flush_ceiling, else INVLPG per page.
 *
 * What it leaves out
 *   - The dirty bit of a store that hits the TLB on a clean entry (the
 *     hardware re-walks to set it): our workloads' stores fault their pages
 *     in, so their entries are dirty from the start.
 *   - Flat model: the data caches (the data access costs mem.access_cycles).
 *   - Overlap model: paging-structure caches and the nested TLB (their
 *     sizes are not published); physical addresses (lines are named by
 *     address space and virtual address, and guest-physical addresses of
 *     data are taken as contiguous with the virtual ones); stores; kernel
 *     accesses (faults, khugepaged's copies) do not pass through the caches.
 *   - Several VMAs per user_access (each state covers one VMA).
 *
 * Lock order: a fault takes mmap_lock (read) -> PTL -> lru_lock, as
 * handle_mm_fault() documents.  TLB lookups and walks take no lock: the
 * MMU does not, and the walk sees the page tables as they are.
 */
#include <errno.h>
#include <string.h>

#include "mm/access.h"

/* The data caches of the overlap model: L1D and L2 per core, L3 per socket. */
static struct {
	struct cache_array *l1, *l2;	/* by core (sim_vcpu.core) */
	struct cache_array *l3;		/* by socket */
	struct cache_path *paths;	/* by vCPU */
	int nr_cores, nr_sockets;
} dcaches;

static void mm_dcache_destroy(struct sim_engine *e)
{
	int i;

	for (i = 0; i < dcaches.nr_cores; i++) {
		cache_array_destroy(&dcaches.l1[i]);
		cache_array_destroy(&dcaches.l2[i]);
	}
	for (i = 0; i < dcaches.nr_sockets; i++)
		cache_array_destroy(&dcaches.l3[i]);
	free(dcaches.l1);
	free(dcaches.l2);
	free(dcaches.l3);
	free(dcaches.paths);
	memset(&dcaches, 0, sizeof(dcaches));
	for (i = 0; i < sim_engine_nr_cpus(e); i++)
		sim_engine_vcpu(e, i)->dcache = NULL;
}

/* The caches of the overlap model, when the profile turns it on. */
static int mm_dcache_init(struct sim_engine *e)
{
	const struct sim_profile *p = sim_engine_profile(e);
	int i, ret = 0;

	if (!p->mem_loads_in_flight)
		return 0;
	dcaches.nr_sockets = (int)p->topology_sockets;
	dcaches.nr_cores = (int)(p->topology_sockets * p->topology_cores_per_socket);
	dcaches.l1 = calloc((size_t)dcaches.nr_cores, sizeof(*dcaches.l1));
	dcaches.l2 = calloc((size_t)dcaches.nr_cores, sizeof(*dcaches.l2));
	dcaches.l3 = calloc((size_t)dcaches.nr_sockets, sizeof(*dcaches.l3));
	dcaches.paths = calloc((size_t)sim_engine_nr_cpus(e), sizeof(*dcaches.paths));
	if (!dcaches.l1 || !dcaches.l2 || !dcaches.l3 || !dcaches.paths) {
		mm_dcache_destroy(e);
		return -ENOMEM;
	}
	for (i = 0; i < dcaches.nr_cores && !ret; i++) {
		ret = cache_array_init(&dcaches.l1[i], p->cache_l1d_kib, (uint32_t)p->cache_l1d_ways);
		if (!ret)
			ret = cache_array_init(&dcaches.l2[i], p->cache_l2_kib,
					       (uint32_t)p->cache_l2_ways);
	}
	for (i = 0; i < dcaches.nr_sockets && !ret; i++)
		ret = cache_array_init(&dcaches.l3[i], p->cache_l3_kib, (uint32_t)p->cache_l3_ways);
	if (ret) {
		mm_dcache_destroy(e);
		return ret;
	}
	for (i = 0; i < sim_engine_nr_cpus(e); i++) {
		struct sim_vcpu *v = sim_engine_vcpu(e, i);
		struct cache_path *cp = &dcaches.paths[i];

		cp->l1 = &dcaches.l1[v->core];
		cp->l2 = &dcaches.l2[v->core];
		cp->l3 = &dcaches.l3[v->socket];
		cp->cycles[CACHE_L1] = (uint32_t)p->cache_l1d_cycles;
		cp->cycles[CACHE_L2] = (uint32_t)p->cache_l2_cycles;
		cp->cycles[CACHE_L3] = (uint32_t)p->cache_l3_cycles;
		cp->cycles[CACHE_DRAM] = (uint32_t)((p->cache_dram_local_ns * p->clock_mhz + 999) / 1000);
		v->dcache = cp;
	}
	return 0;
}

/*
 * flush_tlb_func()'s hook: drop what this CPU's TLB caches of [start, end)
 * in @mm's address space.  Runs on @cpu (locally or in the IPI handler).
 */
static void mm_tlb_flush_hook(int cpu, struct mm_struct *mm, uint64_t start, uint64_t end)
{
	struct tlb *t = sim_engine_vcpu(sim_engine_current, cpu)->tlb;

	if (!t || !mm)
		return;
	if (end == TLB_FLUSH_ALL)
		tlb_flush_asid(t, mm->asid);
	else
		tlb_flush_range(t, mm->asid, start, end,
				sim_mm->prof->tlb_single_page_flush_ceiling);
}

/**
 * mm_tlb_init - give every vCPU of @e a TLB of the profile's geometry
 * @e: the engine, created with its profile
 *
 * Installs the flush hook so that the kernel's TLB flushes reach the model.
 * With mem.loads_in_flight > 0, also gives every core its L1D and L2 and
 * every socket its L3 (the overlap model).
 * Context: before the engine runs.
 * Return: 0, or a negative errno (-EINVAL for a bad [tlb] or cache geometry).
 */
int mm_tlb_init(struct sim_engine *e)
{
	const struct sim_profile *p = sim_engine_profile(e);
	struct tlb_geometry geo = {
		.l1_4k_entries = (uint32_t)p->tlb_l1_4k_entries,
		.l1_4k_ways = (uint32_t)p->tlb_l1_4k_ways,
		.l1_2m_entries = (uint32_t)p->tlb_l1_2m_entries,
		.l1_2m_ways = (uint32_t)p->tlb_l1_2m_ways,
		.stlb_entries = (uint32_t)p->tlb_stlb_entries,
		.stlb_ways = (uint32_t)p->tlb_stlb_ways,
		.stlb_hit_cycles = (uint32_t)p->tlb_stlb_hit_cycles,
		.walk_cycles = (uint32_t)p->tlb_walk_cycles,
		.walk_dims = (uint32_t)p->tlb_walk_dims,
		.page_walkers = (uint32_t)p->tlb_page_walkers,
	};
	int cpu, ret;

	for (cpu = 0; cpu < sim_engine_nr_cpus(e); cpu++) {
		struct sim_vcpu *v = sim_engine_vcpu(e, cpu);
		struct tlb *t = calloc(1, sizeof(*t));

		if (!t)
			return -12;
		ret = tlb_init(t, &geo);
		if (ret) {
			free(t);
			return ret;
		}
		v->tlb = t;
	}
	ret = mm_dcache_init(e);
	if (ret)
		return ret;
	arch_tlb_flush_hook = mm_tlb_flush_hook;
	return 0;
}

/**
 * mm_tlb_destroy - free the TLBs of @e and remove the flush hook
 * @e: the engine
 *
 * Context: after the engine has run.
 */
void mm_tlb_destroy(struct sim_engine *e)
{
	int cpu;

	for (cpu = 0; cpu < sim_engine_nr_cpus(e); cpu++) {
		struct sim_vcpu *v = sim_engine_vcpu(e, cpu);

		if (v->tlb) {
			tlb_destroy(v->tlb);
			free(v->tlb);
			v->tlb = NULL;
		}
	}
	mm_dcache_destroy(e);
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
	uint32_t base = (uint32_t)sim_mm->prof->mem_access_cycles;
	int huge;

	memset(ua, 0, sizeof(*ua));
	ua->tlb = t;
	ua->mm = vma->vm_mm;
	ua->vma = vma;
	ua->pmd_huge = vma->pmd_huge;
	ua->pmd_base = vma->vm_start & ~(PMD_SIZE - 1);
	ua->asid = vma->vm_mm->asid;
	for (huge = 0; huge < 2; huge++) {
		ua->unit[TLB_L1_HIT][huge] = base * w;
		ua->unit[TLB_STLB_HIT][huge] = (base + t->cost[TLB_STLB_HIT][huge]) * w;
		ua->unit[TLB_WALK][huge] = (base + t->cost[TLB_STLB_HIT][huge]) * w +
					   t->walk_cost[huge];
	}
	ua->scale = w;
	ua->cache = sim_this_vcpu()->dcache;
	if (ua->cache)
		ua->scale = (uint64_t)w * sim_mm->prof->mem_loads_in_flight;
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
	uint64_t walks = ua->tlb->stats.walks;
	uint64_t lookups = tlb_nr_lookups(ua->tlb);
	uint64_t units = ua->units, num;
	bool memory_bound = false;

	if (ua->cache) {
		const struct sim_profile *p = sim_mm->prof;
		uint64_t n = lookups - ua->lookups_seen;
		uint64_t issue = n * p->mem_access_cycles * ua->scale;

		units = user_access_overlap_cycles(n, p->mem_access_cycles, ua->miss_cycles,
						   p->mem_loads_in_flight, ua->walk_cycles,
						   ua->tlb->geo.page_walkers);
		memory_bound = units > issue;
		ua->miss_cycles = 0;
		ua->walk_cycles = 0;
	}
	num = units * 1000000ULL + ua->rem;
	ua->cycles_x_w += units;
	ua->units = 0;
	ua->rem = num % ua->den;
	count_events(SIM_DTLB_LOAD_MISSES, walks - ua->walks_seen);
	ua->walks_seen = walks;
	count_events(SIM_TLB_ACCESSES, lookups - ua->lookups_seen);
	ua->lookups_seen = lookups;
	/* Waiting for memory is not the core's work: SMT does not stretch it. */
	if (memory_bound)
		sim_cost_ps(num / ua->den);
	else
		sim_cost_cpu_ps(num / ua->den);
}

/**
 * user_access_overlap_cycles - a batch's time in the overlap model
 * @n: accesses in the batch
 * @access_cycles: issue cost of one access (mem.access_cycles)
 * @miss_cycles: summed latency of the accesses whose data missed L1D
 * @loads_in_flight: L1D misses in flight at once (mem.loads_in_flight)
 * @walk_cycles: summed latency of the batch's page walks
 * @page_walkers: walks in flight at once (tlb.page_walkers)
 *
 * Little's law for each of the core's limits: the batch takes at least
 * its issue time, its misses' latency over the misses it overlaps, and
 * its walks' latency over the walkers; it takes the largest of the three.
 *
 * Context: any.
 * Return: that time in cycles x loads_in_flight x page_walkers (exact).
 */
uint64_t user_access_overlap_cycles(uint64_t n, uint64_t access_cycles, uint64_t miss_cycles,
				    uint64_t loads_in_flight, uint64_t walk_cycles,
				    uint64_t page_walkers)
{
	uint64_t issue = n * access_cycles * loads_in_flight * page_walkers;
	uint64_t misses = miss_cycles * page_walkers;
	uint64_t walks = walk_cycles * loads_in_flight;
	uint64_t t = issue > misses ? issue : misses;

	return t > walks ? t : walks;
}

/*
 * Names of the lines the overlap model loads (63 bits, cache_key()):
 *   data:  bits 62..60 = 0, the address space, the virtual line
 *   guest page-table entry of level l (1 PTE .. 4 PML4E): bits 62..60 = 1
 *   EPT entry of level k for a guest frame: bits 62..60 = 2
 * Entries are 8 bytes, so a line holds 8 of one table.
 */
#define LINE_PT		(1ULL << 60)
#define LINE_EPT	(2ULL << 60)
#define GFN_BITS	30		/* guest frames of one address space: 4 TiB */

static inline uint64_t data_line(uint16_t asid, uint64_t addr)
{
	return (uint64_t)asid << 42 | ((addr >> 6) & ((1ULL << 42) - 1));
}

/* The line of the level-@l entry that maps @addr (l = 1: the PTE). */
static inline uint64_t pt_line(uint16_t asid, int l, uint64_t addr)
{
	uint64_t entry = (addr & ((1ULL << 48) - 1)) >> (PAGE_SHIFT + 9 * (l - 1));

	return LINE_PT | (uint64_t)asid << 40 | (uint64_t)l << 37 | entry >> 3;
}

/* The line of the level-@k EPT entry that maps guest frame @gfn. */
static inline uint64_t ept_line(int k, uint64_t gfn)
{
	return LINE_EPT | (uint64_t)k << 50 | (gfn >> (9 * (k - 1))) >> 3;
}

/*
 * Guest frames.  The data of an address space is taken as contiguous (a
 * fresh buddy allocator hands out runs of frames).  Page-table pages come
 * from the same allocator at other times, so each sits at a frame of its
 * own, here a hash of the table into the first 16 GiB of guest memory
 * (the guest's size is not published; assumption).
 */
#define TABLE_GFN_BITS	22		/* 16 GiB of 4K frames */

static inline uint64_t data_gfn(uint16_t asid, uint64_t addr)
{
	return (uint64_t)asid << GFN_BITS | ((addr >> PAGE_SHIFT) & ((1ULL << GFN_BITS) - 1));
}

static inline uint64_t table_gfn(uint16_t asid, int l, uint64_t addr)
{
	uint64_t table = (addr & ((1ULL << 48) - 1)) >> (PAGE_SHIFT + 9 * l);
	uint64_t h = (table << 20 ^ (uint64_t)asid << 4 ^ (uint64_t)l) * 0x9e3779b97f4a7c15ULL;

	return h >> (64 - TABLE_GFN_BITS);
}

/* The host's walk of a guest frame: four EPT levels, 4K host pages. */
static uint32_t ept_walk_cycles(struct cache_path *cp, uint64_t gfn)
{
	uint32_t c = 0;
	int k;

	for (k = TLB_WALK_LEVELS; k >= 1; k--)
		c += cache_load_cycles(cp, ept_line(k, gfn));
	return c;
}

/*
 * The latency of the walk for @addr: each entry's load is a dependent
 * load, so the latencies add.  Native: PML4E, PDPTE, PDE (and the PTE for
 * a 4K page).  Nested: before each guest entry, the host walk of the guest
 * frame holding its table; after them, the host walk of the data's frame.
 */
static uint32_t walk_latency(struct user_access *ua, uint64_t addr, bool huge)
{
	struct cache_path *cp = ua->cache;
	bool nested = ua->tlb->geo.walk_dims == 2;
	int l, last = huge ? 2 : 1;
	uint32_t c = 0;

	for (l = TLB_WALK_LEVELS; l >= last; l--) {
		if (nested)
			c += ept_walk_cycles(cp, table_gfn(ua->asid, l, addr));
		c += cache_load_cycles(cp, pt_line(ua->asid, l, addr));
	}
	if (nested)
		c += ept_walk_cycles(cp, data_gfn(ua->asid, addr));
	return c;
}

/**
 * user_access_overlap - the overlap model's account of one access
 * @ua: the access state (ua->cache set)
 * @addr: the address accessed
 * @r: what the TLB did
 * @huge: the page is 2M
 *
 * Loads the walk's entries (for an STLB miss) and the data line through
 * the caches and adds the latencies to the batch's sums; a load that
 * faults is counted as if it had completed (first touches only).
 * Context: the accessing task.
 */
void user_access_overlap(struct user_access *ua, uint64_t addr, enum tlb_result r, bool huge)
{
	struct cache_path *cp = ua->cache;
	uint32_t t = r == TLB_L1_HIT ? 0 : ua->tlb->geo.stlb_hit_cycles;
	enum cache_level l;

	if (r == TLB_WALK) {
		uint32_t w = walk_latency(ua, addr, huge);

		t += w;
		ua->walk_cycles += w;
	}
	l = cache_load(cp, data_line(ua->asid, addr));
	if (l != CACHE_L1)
		ua->miss_cycles += t + cp->cycles[l];
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
static void user_access_fault(struct user_access *ua, uint64_t addr, bool write)
{
	struct mm_struct *mm = ua->mm;

	tlb_unfill(ua->tlb, ua->asid, addr);
	user_access_charge(ua);
	/* The per-VMA lock is write-locked by a collapse: fall back to mmap_lock. */
	down_read(&mm->mmap_lock);
	handle_mm_fault(ua->vma, addr, write);
	up_read(&mm->mmap_lock);
	/* The instruction runs again. */
	user_access(ua, addr, write);
}

/**
 * user_access_walk - the page walk of an access that missed the STLB
 * @ua: the access state
 * @addr: the address
 * @huge: the walk ends at a huge PMD
 * @write: a store
 *
 * Sets the accessed (and, for a store, dirty) bit of the PMD or PTE, or
 * faults when nothing is mapped.
 * Context: the accessing task; may sleep on mmap_lock when it faults.
 */
void user_access_walk(struct user_access *ua, uint64_t addr, bool huge, bool write)
{
	struct vm_area_struct *vma = ua->vma;
	uint64_t idx = (addr - ua->pmd_base) >> PMD_SHIFT;
	pte_t *pte;

	if (huge) {
		vma->pmd_flags[idx] |= PMD_YOUNG | (write ? PMD_DIRTY : 0);
		return;
	}
	if (vma->pmd_flags[idx] & PMD_CLEARED)
		goto fault;
	pte = &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT];
	if (pte_present(*pte)) {
		*pte |= PTE_YOUNG | (write ? PTE_DIRTY : 0);
		return;
	}
fault:
	user_access_fault(ua, addr, write);
}
