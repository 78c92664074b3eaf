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
 *   - The cost of an access, flat model (mem.overlap = 0, the default of
 *     every profile but desktop and desktop-kvm; a speed option):
 *     1/mem.loads_per_cycle (the core issues that many independent loads per
 *     cycle), plus tlb.stlb_hit_cycles for an L1 miss, plus the page walk
 *     divided by tlb.page_walkers for an STLB miss (independent random
 *     loads keep that many walks in flight; tlb_walk_stall_cycles()).
 *   - Overlap model (mem.overlap = 1): the data load and every page-table
 *     reference of a walk go through the vCPU's data caches
 *     (include/mmsim/cache.h) and cost the latency of the level holding
 *     their line; a batch of independent accesses takes the largest of its
 *     issue time, its data's L1D-miss latency over the fill buffers
 *     (mem.line_fill_buffers, the count the memory system's bulk flows
 *     use), its walk latency over the walkers and its loads' whole latency
 *     over the load buffer (struct user_access).
 *   - One model of memory: a batch's lines from DRAM (data and walk
 *     references) are read traffic of the memory system
 *     (src/hw/memsys.c, memsys_read()), and the DRAM latency the next
 *     batch on the vCPU sees is the node's loaded latency at that time
 *     (mm_memory_latency_cycles()), which rises with the node's demand
 *     and, beyond its bandwidth, in proportion to the excess.
 *     A nested walk reads its entries through the same caches: 24 for a 4K
 *     guest page with the host's EPT in 4K pages, 19 with it in 2M pages
 *     (tlb.ept_page_kib).
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
 *     flushes that CPU's TLB model: a full flush of the mm's PCID above
 *     tlb_single_page_flush_ceiling, else INVLPG per page.
 *
 * What it leaves out
 *   - Flat model: the data caches (the data access costs its issue slot,
 *     1/mem.loads_per_cycle).
 *   - Overlap model: the nested TLB (guest-physical mappings); the sizes
 *     of the paging-structure caches that no source gives (0 entries; the
 *     desktop profiles have a sourced 4-entry PDPTE cache, docs/tlb.md);
 *     physical addresses (lines are named
 *     by address space and virtual address, and guest-physical addresses of
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
	struct mmu_caches *psc;		/* by vCPU */
	int nr_cores, nr_sockets, nr_cpus;
} dcaches;

/*
 * A paging-structure cache of @entries entries is fully associative up to
 * 16 entries, else 4-way; 0 entries is no cache.
 */
static uint32_t psc_ways(uint64_t entries)
{
	return entries <= TLB_MAX_WAYS ? (uint32_t)entries : 4;
}

static bool psc_geometry_ok(uint64_t entries)
{
	return !entries || !(entries % psc_ways(entries));
}

/* One paging-structure cache; 0 entries: an array with no sets. */
static int psc_array_init(struct tlb_array *a, uint64_t entries)
{
	if (!entries) {
		memset(a, 0, sizeof(*a));
		return 0;
	}
	if (!psc_geometry_ok(entries))
		return -EINVAL;
	return tlb_array_alloc(a, entries / psc_ways(entries), psc_ways(entries));
}

static int mmu_caches_init(struct mmu_caches *c, const struct sim_profile *p)
{
	const uint64_t entries[PSC_NR_LEVELS] = {
		[PSC_PDE] = p->tlb_pde_cache_entries,
		[PSC_PDPTE] = p->tlb_pdpte_cache_entries,
		[PSC_PML4] = p->tlb_pml4_cache_entries,
	};
	int d, l, ret = 0;

	for (d = 0; d < 2; d++)
		for (l = 0; l < PSC_NR_LEVELS && !ret; l++)
			ret = psc_array_init(&c->lvl[d][l], entries[l]);
	return ret;
}

static void mm_dcache_destroy(struct sim_engine *e)
{
	int i;

	for (i = 0; i < dcaches.nr_cores; i++) {
		cache_array_destroy(&dcaches.l1[i]);
		cache_array_destroy(&dcaches.l2[i]);
	}
	for (i = 0; i < dcaches.nr_sockets; i++)
		cache_array_destroy(&dcaches.l3[i]);
	for (i = 0; dcaches.psc && i < dcaches.nr_cpus; i++)
		for (int d = 0; d < 2; d++)
			for (int l = 0; l < PSC_NR_LEVELS; l++)
				tlb_array_free(&dcaches.psc[i].lvl[d][l]);
	free(dcaches.psc);
	free(dcaches.l1);
	free(dcaches.l2);
	free(dcaches.l3);
	free(dcaches.paths);
	memset(&dcaches, 0, sizeof(dcaches));
	for (i = 0; i < sim_engine_nr_cpus(e); i++)
		sim_engine_vcpu(e, i)->dcache = NULL;
}

/**
 * mm_memory_latency_cycles - load-to-use latency of a line from memory
 * @p: the profile
 * @ms: the memory system; NULL: the idle latency (before the run)
 * @cpu: the CPU that loads
 * @nid: the node loaded from
 * @now: when
 *
 * The one place the overlap model asks what a load from DRAM costs: the
 * memory system's loaded latency of @nid at @now for @cpu
 * (memsys_loaded_latency_ps(): the idle cache.dram_local_ns times the
 * mem.loaded_latency curve at the node's utilisation, plus any backlog),
 * rounded up to whole cycles.
 * Context: any.
 * Return: cycles at clock.mhz.
 */
uint32_t mm_memory_latency_cycles(const struct sim_profile *p, const struct memsys *ms, int cpu,
				  int nid, sim_time_t now)
{
	sim_time_t ps = ms ? memsys_loaded_latency_ps(ms, cpu, nid, now) :
			p->cache_dram_local_ns * SIM_NS;

	return (uint32_t)((ps * p->clock_mhz + 999999) / 1000000);
}

/* The caches of the overlap model, when the profile turns it on. */
static int mm_dcache_init(struct sim_engine *e)
{
	const struct sim_profile *p = sim_engine_profile(e);
	int i, ret = 0;

	if (!p->mem_overlap)
		return 0;
	dcaches.nr_sockets = (int)p->topology_sockets;
	dcaches.nr_cores = (int)(p->topology_sockets * p->topology_cores_per_socket);
	dcaches.l1 = calloc((size_t)dcaches.nr_cores, sizeof(*dcaches.l1));
	dcaches.l2 = calloc((size_t)dcaches.nr_cores, sizeof(*dcaches.l2));
	dcaches.l3 = calloc((size_t)dcaches.nr_sockets, sizeof(*dcaches.l3));
	dcaches.nr_cpus = sim_engine_nr_cpus(e);
	dcaches.paths = calloc((size_t)dcaches.nr_cpus, sizeof(*dcaches.paths));
	dcaches.psc = calloc((size_t)dcaches.nr_cpus, sizeof(*dcaches.psc));
	if (!dcaches.l1 || !dcaches.l2 || !dcaches.l3 || !dcaches.paths || !dcaches.psc) {
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
	for (i = 0; i < dcaches.nr_cpus && !ret; i++)
		ret = mmu_caches_init(&dcaches.psc[i], p);
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
		cp->cycles[CACHE_DRAM] = mm_memory_latency_cycles(p, NULL, i, v->node, 0);
		v->dcache = cp;
	}
	return 0;
}

/* The vCPU's paging-structure caches, or NULL without the overlap model. */
static struct mmu_caches *mm_psc_of(int cpu)
{
	return dcaches.psc ? &dcaches.psc[cpu] : NULL;
}

/*
 * flush_tlb_func()'s hook: drop what this CPU's TLB caches of [start, end)
 * in @mm's address space.  Runs on @cpu (locally or in the IPI handler).
 */
static void mm_tlb_flush_hook(int cpu, struct mm_struct *mm, uint64_t start, uint64_t end)
{
	struct tlb *t = sim_engine_vcpu(sim_engine_current, cpu)->tlb;
	struct mmu_caches *psc = mm_psc_of(cpu);

	if (!t || !mm)
		return;
	/* INVLPG and a CR3 write both drop the PCID's paging-structure caches. */
	if (psc)
		for (int l = 0; l < PSC_NR_LEVELS; l++)
			if (psc->lvl[0][l].nr_sets)
				tlb_array_flush_asid(&psc->lvl[0][l], mm->asid);
	if (end == TLB_FLUSH_ALL)
		tlb_flush_asid(t, mm->asid);
	else
		tlb_flush_range(t, mm->asid, start, end,
				sim_mm->prof->tlb_single_page_flush_ceiling);
}

/**
 * mm_tlb_check_profile - can mm_tlb_init() build @p's TLBs and caches?
 * @p: the profile
 * @err: one line naming the bad value and what is expected
 * @len: its size
 *
 * Checked before a run, so that a bad profile value (a --cost) is bad
 * input, not a failure of the run.
 * Context: any.
 * Return: 0, or -1 with @err set.
 */
int mm_tlb_check_profile(const struct sim_profile *p, char *err, size_t len)
{
	struct memsys_curve curve;
	bool curve_ok = !memsys_parse_curve(p->mem_loaded_latency, &curve);
	/* One row per geometry: its keys and values, whether it can be built, what is expected. */
	const struct {
		const char *key, *key2;		/* key2: NULL for a one-value check */
		uint64_t val, val2;
		bool ok, overlap_only;		/* overlap_only: the caches of the overlap model */
		const char *expected;
	} checks[] = {
#define TLB_ROW(k, e, w) { "tlb." k "_entries", "tlb." k "_ways", e, w, \
			   tlb_array_geometry_ok(e, w), false, \
			   "1 to 16 ways and a power-of-two number of sets" }
#define CACHE_ROW(k, kib, w) { "cache." k "_kib", "cache." k "_ways", kib, w, \
			       cache_geometry_ok(kib, w), true, \
			       "1 to 16 ways that divide the cache's 64-byte lines" }
#define PSC_ROW(k, n) { "tlb." k "_cache_entries", NULL, n, 0, psc_geometry_ok(n), true, \
			"0 to 16, or a multiple of 4 (4-way)" }
		TLB_ROW("l1_4k", p->tlb_l1_4k_entries, p->tlb_l1_4k_ways),
		TLB_ROW("l1_2m", p->tlb_l1_2m_entries, p->tlb_l1_2m_ways),
		TLB_ROW("stlb", p->tlb_stlb_entries, p->tlb_stlb_ways),
		{ "tlb.walk_dims", NULL, p->tlb_walk_dims, 0,
		  p->tlb_walk_dims == 1 || p->tlb_walk_dims == 2, false, "1 or 2" },
		{ "tlb.page_walkers", NULL, p->tlb_page_walkers, 0, p->tlb_page_walkers != 0, false,
		  "at least 1" },
		CACHE_ROW("l1d", p->cache_l1d_kib, p->cache_l1d_ways),
		CACHE_ROW("l2", p->cache_l2_kib, p->cache_l2_ways),
		CACHE_ROW("l3", p->cache_l3_kib, p->cache_l3_ways),
		{ "mem.line_fill_buffers", NULL, p->mem_line_fill_buffers, 0,
		  p->mem_line_fill_buffers >= 1, true,
		  "at least 1 with the overlap model (mem.overlap = 1)" },
		{ "mem.loaded_latency", NULL, 0, 0, curve_ok, false,
		  "none, or util:latency pairs per mille, util rising from 0, latency >= 1000" },
		{ "tlb.ept_page_kib", NULL, p->tlb_ept_page_kib, 0,
		  p->tlb_ept_page_kib == 4 || p->tlb_ept_page_kib == 2048, true, "4 or 2048" },
		PSC_ROW("pml4", p->tlb_pml4_cache_entries),
		PSC_ROW("pdpte", p->tlb_pdpte_cache_entries),
		PSC_ROW("pde", p->tlb_pde_cache_entries),
#undef TLB_ROW
#undef CACHE_ROW
#undef PSC_ROW
	};
	size_t i;

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		if (checks[i].ok || (checks[i].overlap_only && !p->mem_overlap))
			continue;
		if (!strcmp(checks[i].key, "mem.loaded_latency"))
			snprintf(err, len, "profile %s: mem.loaded_latency=%s: expected %s",
				 p->machine_name, p->mem_loaded_latency, checks[i].expected);
		else if (checks[i].key2)
			snprintf(err, len, "profile %s: %s=%llu, %s=%llu: expected %s", p->machine_name,
				 checks[i].key, (unsigned long long)checks[i].val, checks[i].key2,
				 (unsigned long long)checks[i].val2, checks[i].expected);
		else
			snprintf(err, len, "profile %s: %s=%llu: expected %s", p->machine_name,
				 checks[i].key, (unsigned long long)checks[i].val, checks[i].expected);
		return -1;
	}
	return 0;
}

/**
 * mm_tlb_init - give every vCPU of @e a TLB of the profile's geometry
 * @e: the engine, created with its profile
 *
 * Installs the flush hook so that the kernel's TLB flushes reach the model.
 * With mem.overlap = 1, also gives every core its L1D and L2 and
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
	int cpu, ret = 0;

	for (cpu = 0; cpu < sim_engine_nr_cpus(e) && !ret; cpu++) {
		struct sim_vcpu *v = sim_engine_vcpu(e, cpu);
		struct tlb *t = calloc(1, sizeof(*t));

		ret = t ? tlb_init(t, &geo) : -ENOMEM;
		if (ret)
			free(t);
		else
			v->tlb = t;
	}
	if (!ret)
		ret = mm_dcache_init(e);
	if (ret) {
		mm_tlb_destroy(e);	/* what was built: nothing is left behind */
		return ret;
	}
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
	uint32_t p = (uint32_t)sim_mm->prof->mem_loads_per_cycle;
	int huge;

	memset(ua, 0, sizeof(*ua));
	ua->tlb = t;
	ua->mm = vma->vm_mm;
	ua->vma = vma;
	ua->pmd_huge = vma->pmd_huge;
	ua->pmd_base = vma->vm_start & ~(PMD_SIZE - 1);
	ua->asid = vma->vm_mm->asid;
	for (huge = 0; huge < 2; huge++) {
		ua->unit[TLB_L1_HIT][huge] = w;
		ua->unit[TLB_STLB_HIT][huge] = (1 + t->cost[TLB_STLB_HIT][huge] * p) * w;
		ua->unit[TLB_WALK][huge] = (1 + t->cost[TLB_STLB_HIT][huge] * p) * w +
					   t->walk_cost[huge] * p;
	}
	ua->scale = (uint64_t)p * w;
	ua->cache = sim_this_vcpu()->dcache;
	ua->psc = mm_psc_of(smp_processor_id());
	if (ua->cache) {
		ua->scale = (uint64_t)p * w * sim_mm->prof->mem_line_fill_buffers *
			    sim_mm->prof->mem_load_buffer_entries * sim_mm->prof->mem_rob_entries;
		ua->uops = 1;
		ua->ept_huge = sim_mm->prof->tlb_ept_page_kib == 2048;
		ua->walk_fills = sim_mm->prof->mem_walk_fill_buffers;
	}
	ua->den = ua->scale * sim_mm->prof->clock_mhz;
	ua->walks_seen = t->stats.walks;
	ua->lookups_seen = tlb_nr_lookups(t);
}

/*
 * The memory system's side of a batch of the overlap model that took @ps
 * by the core's own limits: its @lines from DRAM become read traffic of the
 * vCPU's node from the batch's start, and the vCPU's DRAM latency becomes
 * the node's loaded latency at the batch's end, for the next batch.  A
 * batch so charges the latency of the load before it: cheap (once per
 * batch, not per line, and no sync) and deterministic.
 */
static void user_access_memory(struct user_access *ua, uint64_t lines, sim_time_t ps)
{
	struct sim_vcpu *v = sim_this_vcpu();
	int cpu = smp_processor_id();

	if (lines)
		memsys_read(sim_mm->memsys, cpu, v->node, v->now, lines * 64);
	ua->cache->cycles[CACHE_DRAM] = mm_memory_latency_cycles(sim_mm->prof, sim_mm->memsys,
								 cpu, v->node, v->now + ps);
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
	uint64_t units = ua->units, lines = 0;
	unsigned __int128 num;		/* units x 10^6: past 64 bits with large limits */
	bool memory_bound = false;
	sim_time_t ps;

	if (ua->cache) {
		const struct sim_profile *p = sim_mm->prof;
		const struct overlap_limits lim = {
			.loads_per_cycle = p->mem_loads_per_cycle,
			.fill_buffers = p->mem_line_fill_buffers,
			.page_walkers = ua->tlb->geo.page_walkers,
			.load_buffer = p->mem_load_buffer_entries,
			.rob_entries = p->mem_rob_entries,
			.uops = ua->uops,
		};
		const struct overlap_batch b = {
			.n = lookups - ua->lookups_seen,
			.miss_cycles = ua->miss_cycles,
			.walk_cycles = ua->walk_cycles,
			.window_cycles = ua->window_cycles,
		};

		units = user_access_overlap_cycles(&b, &lim, &memory_bound);
		ua->miss_cycles = 0;
		ua->walk_cycles = 0;
		ua->window_cycles = 0;
		lines = ua->dram_lines;
		ua->dram_lines = 0;
	}
	num = (unsigned __int128)units * 1000000ULL + ua->rem;
	ua->units_charged += units;
	ua->units = 0;
	ua->rem = (uint64_t)(num % ua->den);
	ps = (sim_time_t)(num / ua->den);
	if (ua->cache)
		user_access_memory(ua, lines, ps);
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
 * user_access_overlap_cycles - a batch's time in the overlap model
 * @b: what the batch asked: its accesses and its summed latencies
 * @lim: the core's limits
 * @memory_bound: set to whether a memory bound (fill buffers, walkers or
 *	the window), not issue, is the largest (memory time, which an SMT
 *	sibling does not stretch)
 *
 * Little's law for each of the core's limits: the batch takes at least
 * its issue time (n / P), its L1D misses' memory latency over the fill
 * buffers (L), its walks' latency over the walkers (W), its loads' whole
 * latency (translation and memory) over the load buffer (B), and that
 * latency over the loads the reorder buffer holds (R / U: each load
 * brings its loop's U micro-ops, which retire only after it); it takes
 * the largest of the five.
 *
 * Context: any.
 * Return: that time in cycles x P x L x W x B x R (exact).
 */
uint64_t user_access_overlap_cycles(const struct overlap_batch *b, const struct overlap_limits *lim,
				    bool *memory_bound)
{
	const uint64_t p = lim->loads_per_cycle, l = lim->fill_buffers;
	const uint64_t w = lim->page_walkers, q = lim->load_buffer, r = lim->rob_entries;
	uint64_t issue = b->n * l * w * q * r;
	uint64_t t = b->miss_cycles * p * w * q * r;

	if (b->walk_cycles * p * l * q * r > t)
		t = b->walk_cycles * p * l * q * r;
	if (b->window_cycles * p * l * w * r > t)
		t = b->window_cycles * p * l * w * r;
	if (b->window_cycles * lim->uops * p * l * w * q > t)
		t = b->window_cycles * lim->uops * p * l * w * q;
	*memory_bound = t > issue;
	return *memory_bound ? t : issue;
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

/*
 * Look up the entry of @c covering @x (an address, or a guest-physical
 * address for the EPT) at @shift, filling it on a miss, which it counts in
 * @nr_misses (struct walk_memo).  No sets: no cache, and no miss.
 */
static inline bool psc_touch(struct tlb_array *c, uint16_t asid, uint64_t x, int shift,
			     uint64_t *nr_misses)
{
	uint64_t vpn = x >> shift, set = 0;

	if (!c->nr_sets)
		return false;
	/* A fully associative cache (up to 16 entries) has one set: no division. */
	if (c->nr_sets > 1)
		set = vpn % c->nr_sets;
	if (tlb_array_touch_recent(c, tlb_key(asid, vpn, false), set))
		return true;
	++*nr_misses;
	return false;
}

/*
 * The level (4: PML4E .. 1: PTE) at which a walk of @x that ends at level
 * @last starts, given the paging-structure caches of one dimension: a PDE
 * cache hit leaves only the PTE to read, a PDPTE cache hit the PDE and the
 * PTE, a PML4 cache hit three entries.  A PDE that maps a 2M page is never
 * cached there (SDM 3A 4.10.3.1), so a walk that ends at the PDE skips that
 * cache.  A miss fills the entry, as the walk that follows reads it.
 */
static inline __attribute__((always_inline))
int psc_walk_start(struct mmu_caches *psc, int dim, uint16_t asid, uint64_t x, int last)
{
	struct tlb_array *lvl = psc->lvl[dim];

	if (last == 1 && psc_touch(&lvl[PSC_PDE], asid, x, 21, &psc->nr_misses))
		return 1;
	if (psc_touch(&lvl[PSC_PDPTE], asid, x, 30, &psc->nr_misses))
		return 2;
	if (psc_touch(&lvl[PSC_PML4], asid, x, 39, &psc->nr_misses))
		return 3;
	return TLB_WALK_LEVELS;
}

/*
 * The host's walk of a guest frame: the EPT's levels down to the PTE, or
 * down to the PDE when the host maps guest memory with 2M pages
 * (tlb.ept_page_kib; a 2M EPT PDE is not kept in the PDE cache).  The
 * levels from the one the paging-structure caches leave, unrolled: each
 * case falls through to the level below, so the loads are made top down.
 */
static inline __attribute__((always_inline))
uint32_t ept_walk_cycles(struct user_access *ua, uint64_t gfn)
{
	struct cache_path *cp = ua->cache;
	int last = ua->ept_huge ? 2 : 1;
	uint32_t c = 0;

	switch (psc_walk_start(ua->psc, 1, 0, gfn << PAGE_SHIFT, last)) {
	case 4:
		c += cache_load_entry_cycles(cp, ept_line(4, gfn), true);
		/* fall through */
	case 3:
		c += cache_load_entry_cycles(cp, ept_line(3, gfn), true);
		/* fall through */
	case 2:
		c += cache_load_entry_cycles(cp, ept_line(2, gfn), true);
		if (last == 2)
			break;
		/* fall through */
	default:
		c += cache_load_entry_cycles(cp, ept_line(1, gfn), true);
	}
	return c;
}

/*
 * One level @l of a walk of @addr: in a nested walk (@nested) the host's
 * walk of the guest frame of the table, unless the walk already knows the
 * table's host-physical address (@known), then the table's entry.
 */
static inline __attribute__((always_inline))
uint32_t walk_level(struct user_access *ua, uint64_t addr, int l, bool nested, bool known)
{
	uint32_t c = 0;

	if (nested && !known)
		c = ept_walk_cycles(ua, table_gfn(ua->asid, l, addr));
	/*
	 * A native walk's entries are the most recent lines of their L1D sets
	 * (98% of its L1D hits in khugepaged-cold), where the rank-1 compare
	 * would only cost.
	 */
	return c + cache_load_entry_cycles(ua->cache, pt_line(ua->asid, l, addr), nested);
}

/*
 * walk_latency() of a native (@nested false) or nested walk; a constant
 * after inlining, so that each kind of walk has its own code.
 */
static inline __attribute__((always_inline))
uint32_t walk_latency_dims(struct user_access *ua, uint64_t addr, bool huge, bool nested)
{
	int l = psc_walk_start(ua->psc, 0, ua->asid, addr, huge ? 2 : 1);
	uint32_t c = 0;

	/*
	 * From level l down, top first (each case falls through).  A hit (l
	 * below the top) gives the table at level l by its host-physical
	 * address.
	 */
	switch (l) {
	case 4:
		c += walk_level(ua, addr, 4, nested, false);
		/* fall through */
	case 3:
		c += walk_level(ua, addr, 3, nested, l == 3);
		/* fall through */
	case 2:
		c += walk_level(ua, addr, 2, nested, l == 2);
		if (huge)
			break;
		/* fall through */
	default:
		c += walk_level(ua, addr, 1, nested, l == 1);
	}
	if (nested)
		c += ept_walk_cycles(ua, data_gfn(ua->asid, addr));
	return c;
}

/*
 * The latency of the walk for @addr: each entry's load is a dependent
 * load, so the latencies add.  Native: from the level the paging-structure
 * caches leave, the PML4E, PDPTE, PDE (and the PTE for a 4K page).  Nested:
 * before each guest entry, the host walk of the guest frame holding its
 * table; after them, the host walk of the data's frame.  A guest
 * paging-structure-cache hit is a combined mapping (SDM 3C 28.3.1): it
 * holds the host-physical address of the next guest table, so the first
 * table the walk reads needs no host walk; the tables below it do, since
 * their addresses come from guest entries (guest-physical).
 */
static uint32_t walk_latency(struct user_access *ua, uint64_t addr, bool huge)
{
	struct walk_memo *m = &ua->memo;
	struct cache_path *cp = ua->cache;
	uint64_t key = addr >> 15 << 1 | huge, loads, misses;
	uint32_t c;

	if (!m->on)
		return ua->tlb->geo.walk_dims == 2 ? walk_latency_dims(ua, addr, huge, true) :
						      walk_latency_dims(ua, addr, huge, false);
	if (m->valid && m->key == key && !(m->sets & m->dirty)) {
		/* The remembered walk again (struct walk_memo): all L1D hits now. */
		cp->loads[CACHE_L1] += m->nr_loads;
		m->nr_hits++;
		return m->cycles;
	}
	loads = cache_path_nr_loads(cp);
	misses = ua->psc->nr_misses;
	cp->entry_sets = 0;
	c = ua->tlb->geo.walk_dims == 2 ? walk_latency_dims(ua, addr, huge, true) :
					  walk_latency_dims(ua, addr, huge, false);
	/*
	 * The next walk of the same entries hits wherever this one found or
	 * filled them, if its paging-structure-cache lookups hit (a miss
	 * fills an entry, and the next walk starts lower) and it made fewer
	 * loads than the L1D has ways (so none of its lines pushed another of
	 * them out of the L1D).
	 */
	loads = cache_path_nr_loads(cp) - loads;
	m->valid = misses == ua->psc->nr_misses && loads < cp->l1->a.ways;
	m->key = key;
	m->sets = cp->entry_sets;
	m->dirty = 0;
	m->nr_loads = (uint32_t)loads;
	m->cycles = (uint32_t)loads * cp->cycles[CACHE_L1];
	return c;
}

/* The overlap model's sums of the accesses not yet charged (struct user_access). */
struct ua_sums {
	uint64_t miss, walk, window;
};

/*
 * One access in the overlap model: the walk's entries (for an STLB miss)
 * and the data line through the caches, their latencies added to @s.
 */
static inline __attribute__((always_inline))
void ua_overlap_one(struct user_access *ua, struct cache_path *cp, uint64_t addr,
		    enum tlb_result r, bool huge, struct ua_sums *s)
{
	uint32_t t = r == TLB_L1_HIT ? 0 : ua->tlb->geo.stlb_hit_cycles, lat;
	enum cache_level l;

	if (r == TLB_WALK) {
		uint64_t hits = cp->loads[CACHE_L1];
		uint32_t w = walk_latency(ua, addr, huge);

		t += w;
		s->walk += w;
		/* The walk's loads that missed L1D: all its latency but its L1D hits'. */
		if (ua->walk_fills)
			s->miss += w - (uint32_t)(cp->loads[CACHE_L1] - hits) * cp->cycles[CACHE_L1];
	}
	l = cache_load(cp, data_line(ua->asid, addr));
	lat = cp->cycles[l];
	s->window += t + lat;
	if (l != CACHE_L1)
		s->miss += lat;
}

/**
 * user_access_overlap - the overlap model's account of one access
 * @ua: the access state (ua->cache set)
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
	struct ua_sums s = { 0 };
	uint64_t dram = ua->cache->loads[CACHE_DRAM];

	ua_overlap_one(ua, ua->cache, addr, r, huge, &s);
	ua->dram_lines += ua->cache->loads[CACHE_DRAM] - dram;
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
		tlb_entry_filled(ua->tlb, ua->asid, addr, huge, f == WALK_DIRTY);
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

	return (uint64_t)ua->tlb->walk_cost[huge] * p->mem_loads_per_cycle +
	       p->lock_atomic_cycles * ua->scale;
}

/*
 * The overlap model's account of a dirty-bit assist: the walk's entries
 * through the caches (its latency, as an STLB miss's walk) and the locked
 * update of the PTE's line, added to the walk and window sums of @s.
 */
static void ua_assist_overlap(struct user_access *ua, uint64_t addr, bool huge,
			      struct ua_sums *s)
{
	struct cache_path *cp = ua->cache;
	uint64_t hits = cp->loads[CACHE_L1];
	uint32_t w = walk_latency(ua, addr, huge);

	if (ua->walk_fills)
		s->miss += w - (uint32_t)(cp->loads[CACHE_L1] - hits) * cp->cycles[CACHE_L1];
	w += (uint32_t)sim_mm->prof->lock_atomic_cycles;
	s->walk += w;
	s->window += w;
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
 * ua_assist_overlap()); counts the TLB's stats.dirty_assists.
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

	if (ua->cache) {
		struct ua_sums s = { 0 };
		uint64_t dram = ua->cache->loads[CACHE_DRAM];

		ua_assist_overlap(ua, addr, huge, &s);
		ua->dram_lines += ua->cache->loads[CACHE_DRAM] - dram;
		ua->miss_cycles += s.miss;
		ua->walk_cycles += s.walk;
		ua->window_cycles += s.window;
	} else {
		ua->units += ua_assist_units(ua, huge);
	}
	tlb_entry_set_dirty(ua->tlb, ua->asid, addr, huge);
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
	struct tlb *t = ua->tlb;
	struct cache_path *cp = ua->cache;
	struct folio *const *pmd_huge = ua->pmd_huge;
	uint8_t *pmd_flags = vma->pmd_flags;
	pte_t *ptes = vma->ptes;
	const uint64_t pmd_base = ua->pmd_base, start = vma->vm_start;
	const uint16_t asid = ua->asid;
	const uint8_t pmd_bits = WALK_PMD_BITS(write);
	const pte_t pte_bits = WALK_PTE_BITS(write);
	struct ua_counts c = { 0 };
	struct ua_sums sums = { 0 };
	uint64_t units = 0, dram = overlap ? cp->loads[CACHE_DRAM] : 0;
	uint64_t last_key = 0;		/* the previous access's TLB key; 0 is no key */
	/* The L1D sets of the data loads since the last walk (struct walk_memo). */
	uint64_t dirty = 0, l1_page_mask = overlap ? cp->l1->page_mask : 0;
	unsigned int i;
	enum walk_fill f;

	ua->memo.on = overlap;
	ua->memo.valid = false;

	for (i = 0; i < n; i++) {
		uint64_t addr = addrs[i];
		uint64_t idx = (addr - pmd_base) >> PMD_SHIFT;
		bool huge = sizes == UA_HUGE || (sizes == UA_MIXED && pmd_huge[idx]);
		uint64_t key = tlb_key(asid, tlb_vpn(addr, huge), huge);
		enum tlb_result r;

		if (overlap && i + UA_PREFETCH < n)
			cache_path_prefetch(cp, data_line(asid, addrs[i + UA_PREFETCH]));
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
		r = key == last_key ? TLB_L1_HIT : tlb_lookup(t, asid, addr, huge);
		last_key = key;
		if (overlap) {
			if (r == TLB_WALK) {
				ua->memo.dirty |= dirty;
				dirty = 0;
			}
			ua_overlap_one(ua, cp, addr, r, huge, &sums);
			/*
			 * Its data load looked in this L1D set: with 64 sets or
			 * fewer, the line's place in its page (cache_set()).
			 */
			dirty |= 1ULL << (l1_page_mask ? (addr >> 6) & l1_page_mask :
					  cache_set(cp->l1, data_line(asid, addr)) & 63);
		} else {
			units += ua->unit[r][huge];
		}
		if (r != TLB_WALK) {
			c.stlb_hits += r == TLB_STLB_HIT;
			if (!write || !tlb_entry_clean(t, asid, addr, huge))
				continue;
			/* A store through an entry filled clean: user_access_assist(). */
			if (overlap)
				ua_assist_overlap(ua, addr, huge, &sums);
			else
				units += ua_assist_units(ua, huge);
			tlb_entry_set_dirty(t, asid, addr, huge);
			count_event(SIM_SIM_TLB_DIRTY_ASSISTS);
			if (walk_set_bits(&pmd_flags[idx], &ptes[(addr - start) >> PAGE_SHIFT],
					  huge, true, pmd_bits, pte_bits) != WALK_FAULT)
				continue;
		} else {
			c.walks[huge]++;
			f = walk_set_bits(&pmd_flags[idx], &ptes[(addr - start) >> PAGE_SHIFT], huge,
					  write, pmd_bits, pte_bits);
			if (f != WALK_FAULT) {
				tlb_entry_filled(t, asid, addr, huge, f == WALK_DIRTY);
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
		ua->memo.on = false;
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
	ua->memo.on = false;
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

	while (n) {
		bool all_small = vma->nr_pmd_huge == 0;
		bool all_huge = vma->nr_pmd_huge == vma_nr_pmds(vma);

		if (ua->cache)
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
