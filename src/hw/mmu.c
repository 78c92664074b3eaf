// SPDX-License-Identifier: GPL-2.0-only
/*
 * The MMU and the memory system's costs of user accesses: the per-vCPU
 * TLBs and, in the overlap model, the data caches and paging-structure
 * caches that page walks load through, the walk's latency, and a batch's
 * time over the core's limits.  src/mm/access.c is the kernel's side: it
 * looks up the TLB, sets the page tables' bits, faults, and charges.
 *
 * What it models
 *   - The page walk's latency in the overlap model (mem.overlap = 1): the
 *     walk reads each level's entry through the vCPU's data caches
 *     (include/mmsim/cache.h), from the level the paging-structure caches
 *     (Intel SDM vol. 3A 4.10.3) let it skip to; each load costs the
 *     latency of the level holding its line, and the loads add.  A nested
 *     walk reads its entries through the same caches: 24 for a 4K guest
 *     page with the host's EPT in 4K pages, 19 with it in 2M pages
 *     (tlb.ept_page_kib).
 *   - A batch's time (mmu_overlap_cycles()): the largest of its issue
 *     time, its data's L1D-miss latency over the fill buffers
 *     (mem.line_fill_buffers), its walk latency over the walkers and its
 *     loads' whole latency over the load buffer and the reorder buffer
 *     (struct user_access in src/mm/access.h).
 *   - One model of memory: a batch's lines from DRAM (data and walk
 *     references) are read traffic of the memory system
 *     (src/hw/memsys.c, memsys_read()), and the DRAM latency the next
 *     batch on the vCPU sees is the node's loaded latency at that time
 *     (mmu_memory_latency_cycles()), which rises with the node's demand
 *     and, beyond its bandwidth, in proportion to the excess.
 *   - A flush: INVLPG and a CR3 write also drop the PCID's
 *     paging-structure caches (mmu_flush_range(), mmu_flush_asid()).
 *   - The kernel's stores to a user page at a fault: clear_page() of a
 *     new anonymous or tmpfs folio, a copy-on-write copy's destination
 *     (mmu_kernel_store()), written through the faulting CPU's caches
 *     under the page's user address.
 *
 * What it leaves out
 *   - The nested TLB (guest-physical mappings); the sizes of the
 *     paging-structure caches that no source gives (0 entries; the
 *     desktop profiles have a sourced 4-entry PDPTE cache, docs/tlb.md);
 *     physical addresses (lines are named by address space and virtual
 *     address, and guest-physical addresses of data are taken as
 *     contiguous with the virtual ones); stores; the kernel's other
 *     accesses (its page-table and struct page writes, khugepaged's
 *     copies, reclaim's scans, a page cache folio zeroed or read in) do not
 *     pass through the caches, and a collapse does not drop the old pages'
 *     lines (they keep their user address's name).
 *
 * No locks: the MMU takes none, and a walk sees the page tables as they
 * are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmu.h"

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

static void dcache_destroy(struct sim_engine *e)
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
 * mmu_memory_latency_cycles - load-to-use latency of a line from memory
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
uint32_t mmu_memory_latency_cycles(const struct sim_profile *p, const struct memsys *ms, int cpu,
				   int nid, sim_time_t now)
{
	sim_time_t ps = ms ? memsys_loaded_latency_ps(ms, cpu, nid, now) :
			p->cache_dram_local_ns * SIM_NS;

	return (uint32_t)((ps * p->clock_mhz + 999999) / 1000000);
}

/* The caches of the overlap model, when the profile turns it on. */
static int dcache_init(struct sim_engine *e)
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
		dcache_destroy(e);
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
		dcache_destroy(e);
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
		cp->cycles[CACHE_DRAM] = mmu_memory_latency_cycles(p, NULL, i, v->node, 0);
		v->dcache = cp;
	}
	return 0;
}

/**
 * mmu_kernel_store - the kernel's stores to a user range, through this vCPU's caches
 * @asid: the address space the range is mapped in
 * @addr: its first user address
 * @bytes: its length, whole lines
 *
 * clear_page()'s rep stosb (and a copy's destination) writes through the
 * writing core's caches: a user load of a page just faulted finds its
 * lines there (scripts/validation/zero_residency.c: a chain of loads over
 * a page's lines right after its fault costs an L1D hit each, 5-6
 * cycles, and about 60 a 256 MiB region later; docs/validation.md).
 * Each line ends as a user load would leave it (cache_fill()), in address
 * order, evicting what the sets held; nothing is counted.  No-op without
 * the overlap model.
 * Context: a task, on the writing vCPU.
 */
void mmu_kernel_store(uint16_t asid, uint64_t addr, uint64_t bytes)
{
	struct cache_path *cp = sim_this_vcpu()->dcache;
	uint64_t a;

	if (!cp)
		return;
	for (a = addr & ~63ULL; a < addr + bytes; a += 64)
		cache_fill(cp, mmu_data_line(asid, a));
}

/**
 * mmu_psc_of - the paging-structure caches of vCPU @cpu
 * @cpu: the vCPU
 *
 * Context: any, after mmu_init().
 * Return: its caches, or NULL without the overlap model.
 */
struct mmu_caches *mmu_psc_of(int cpu)
{
	return dcaches.psc ? &dcaches.psc[cpu] : NULL;
}

/*
 * What INVLPG and a CR3 write drop besides TLB entries: the PCID's
 * paging-structure caches on @cpu.
 */
static void psc_flush_asid(int cpu, uint16_t asid)
{
	struct mmu_caches *psc = mmu_psc_of(cpu);

	if (psc)
		for (int l = 0; l < PSC_NR_LEVELS; l++)
			if (psc->lvl[0][l].nr_sets)
				tlb_array_flush_asid(&psc->lvl[0][l], asid);
}

/**
 * mmu_flush_asid - a full flush of the PCID @asid on @cpu (a CR3 write)
 * @cpu: the vCPU whose TLB and paging-structure caches are flushed
 * @asid: the PCID
 *
 * Context: on @cpu, locally or in the flush IPI's handler.
 */
void mmu_flush_asid(int cpu, uint16_t asid)
{
	struct tlb *t = sim_engine_vcpu(sim_engine_current, cpu)->tlb;

	if (!t)
		return;
	psc_flush_asid(cpu, asid);
	tlb_flush_asid(t, asid);
}

/**
 * mmu_flush_range - flush [@start, @end) of the PCID @asid on @cpu
 * @cpu: the vCPU whose TLB and paging-structure caches are flushed
 * @asid: the PCID
 * @start: the first address
 * @end: the end of the range
 * @ceiling: above this many pages, a full flush of the PCID instead of
 *	INVLPG per page (tlb_single_page_flush_ceiling)
 *
 * Context: on @cpu, locally or in the flush IPI's handler.
 */
void mmu_flush_range(int cpu, uint16_t asid, uint64_t start, uint64_t end, uint64_t ceiling)
{
	struct tlb *t = sim_engine_vcpu(sim_engine_current, cpu)->tlb;

	if (!t)
		return;
	psc_flush_asid(cpu, asid);
	tlb_flush_range(t, asid, start, end, ceiling);
}

/**
 * mmu_check_profile - can mmu_init() build @p's TLBs and caches?
 * @p: the profile
 * @err: one line naming the bad value and what is expected
 * @len: its size
 *
 * Checked before a run, so that a bad profile value (a --cost) is bad
 * input, not a failure of the run.
 * Context: any.
 * Return: 0, or -1 with @err set.
 */
int mmu_check_profile(const struct sim_profile *p, char *err, size_t len)
{
	struct memsys_curve curve;
	bool curve_ok = !memsys_parse_curve(p->mem_loaded_latency, &curve);
	uint32_t loop[MMU_LOOP_NR];

	if (mmu_parse_access_loop(p->mem_access_loop, loop)) {
		snprintf(err, len, "profile %s: mem.access_loop=%s: expected none, or "
			 "PATTERN:CYCLES pairs (seq, random, shuffled, zipf, hot; cycles in (0, 1000], "
			 "to a thousandth) separated by spaces", p->machine_name, p->mem_access_loop);
		return -1;
	}
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
 * mmu_init - give every vCPU of @e a TLB of the profile's geometry
 * @e: the engine, created with its profile
 *
 * With mem.overlap = 1, also gives every core its L1D and L2, every
 * socket its L3 and every vCPU its paging-structure caches (the overlap
 * model).
 * Context: before the engine runs.
 * Return: 0, or a negative errno (-EINVAL for a bad [tlb] or cache geometry).
 */
int mmu_init(struct sim_engine *e)
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
		ret = dcache_init(e);
	if (ret)
		mmu_destroy(e);	/* what was built: nothing is left behind */
	return ret;
}

/**
 * mmu_destroy - free the TLBs and caches of @e
 * @e: the engine
 *
 * Context: after the engine has run.
 */
void mmu_destroy(struct sim_engine *e)
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
	dcache_destroy(e);
}

/**
 * mmu_memory_batch - the memory system's side of a batch of the overlap model
 * @cp: this vCPU's caches
 * @p: the profile
 * @ms: the memory system
 * @lines: the batch's lines from DRAM
 * @ps: the time the batch took by the core's own limits
 *
 * The lines become read traffic of the vCPU's node from the batch's
 * start, and the vCPU's DRAM latency becomes the node's loaded latency at
 * the batch's end, for the next batch.  A batch so charges the latency of
 * the load before it: cheap (once per batch, not per line, and no sync)
 * and deterministic.
 * Context: the accessing task, before it charges @ps.
 */
void mmu_memory_batch(struct cache_path *cp, const struct sim_profile *p, struct memsys *ms,
		      uint64_t lines, sim_time_t ps)
{
	struct sim_vcpu *v = sim_this_vcpu();
	int cpu = smp_processor_id();

	if (lines)
		memsys_read(ms, cpu, v->node, v->now, lines * 64);
	cp->cycles[CACHE_DRAM] = mmu_memory_latency_cycles(p, ms, cpu, v->node, v->now + ps);
}

/**
 * mmu_overlap_cycles - a batch's time in the overlap model
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
uint64_t mmu_overlap_cycles(const struct overlap_batch *b, const struct overlap_limits *lim,
			    bool *memory_bound)
{
	const uint64_t p = lim->loads_per_cycle, l = lim->fill_buffers;
	const uint64_t w = lim->page_walkers, q = lim->load_buffer, r = lim->rob_entries;
	uint64_t issue = b->n * l * w * q * r;
	/*
	 * the loop's own instructions, where they take longer than the issue
	 * slot (128 bits: a profile's extreme limits would pass 64)
	 */
	unsigned __int128 lp = (unsigned __int128)(b->n * l * w * q * r) * lim->loop_mcycles * p / 1000;
	uint64_t loop = lp > UINT64_MAX ? UINT64_MAX : (uint64_t)lp;
	uint64_t t = b->miss_cycles * p * w * q * r;

	if (b->walk_cycles * p * l * q * r > t)
		t = b->walk_cycles * p * l * q * r;
	if (b->window_cycles * p * l * w * r > t)
		t = b->window_cycles * p * l * w * r;
	if (b->window_cycles * lim->uops * p * l * w * q > t)
		t = b->window_cycles * lim->uops * p * l * w * q;
	if (loop > issue)
		issue = loop;
	*memory_bound = t > issue;
	return *memory_bound ? t : issue;
}

/**
 * mmu_parse_access_loop - read mem.access_loop
 * @s: "none", or space-separated PATTERN:CYCLES pairs (seq, random,
 *     shuffled, zipf, hot; each at most once; cycles a decimal in (0, 1000],
 *     to a thousandth)
 * @mcycles: each pattern's cycles x 1000; 0 for a pattern not named
 *
 * Context: any.
 * Return: 0, or -1 for a string of another form.
 */
int mmu_parse_access_loop(const char *s, uint32_t mcycles[MMU_LOOP_NR])
{
	static const char *const names[MMU_LOOP_NR] = {
		"seq", "random", "shuffled", "zipf", "hot",
	};

	memset(mcycles, 0, MMU_LOOP_NR * sizeof(*mcycles));
	if (!strcmp(s, "none"))
		return 0;
	if (!*s)
		return -1;
	while (*s) {
		const char *colon = strchr(s, ':');
		uint64_t whole = 0, frac = 0, scale = 1000;
		int k;

		if (!colon)
			return -1;
		for (k = 0; k < MMU_LOOP_NR; k++)
			if ((size_t)(colon - s) == strlen(names[k]) &&
			    !strncmp(s, names[k], strlen(names[k])))
				break;
		if (k == MMU_LOOP_NR || mcycles[k])
			return -1;
		s = colon + 1;
		if (*s < '0' || *s > '9')
			return -1;
		while (*s >= '0' && *s <= '9' && whole <= 1000)
			whole = whole * 10 + (uint64_t)(*s++ - '0');
		if (*s == '.') {
			s++;
			if (*s < '0' || *s > '9')
				return -1;
			while (*s >= '0' && *s <= '9') {
				if (scale == 1)
					return -1;	/* past a thousandth */
				scale /= 10;
				frac += (uint64_t)(*s++ - '0') * scale;
			}
		}
		if (whole > 1000 || (whole == 1000 && frac) || (!whole && !frac))
			return -1;
		mcycles[k] = (uint32_t)(whole * 1000 + frac);
		if (*s == ' ')
			s++;
		else if (*s)
			return -1;
		if (!*s && s[-1] == ' ')
			return -1;
	}
	return 0;
}

/*
 * Names of the lines the overlap model loads (63 bits, cache_key()):
 *   data:  bits 62..60 = 0, the address space, the virtual line
 *          (mmu_data_line(), include/mmsim/mmu.h)
 *   guest page-table entry of level l (1 PTE .. 4 PML4E): bits 62..60 = 1
 *   EPT entry of level k for a guest frame: bits 62..60 = 2
 * Entries are 8 bytes, so a line holds 8 of one table.
 */
#define LINE_PT		(1ULL << 60)
#define LINE_EPT	(2ULL << 60)
#define GFN_BITS	30		/* guest frames of one address space: 4 TiB */

/* The line of the level-@l entry that maps @addr (l = 1: the PTE). */
static inline uint64_t pt_line(uint16_t asid, int l, uint64_t addr)
{
	uint64_t entry = (addr & ((1ULL << 48) - 1)) >> (TLB_PAGE_SHIFT + 9 * (l - 1));

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
	return (uint64_t)asid << GFN_BITS | ((addr >> TLB_PAGE_SHIFT) & ((1ULL << GFN_BITS) - 1));
}

static inline uint64_t table_gfn(uint16_t asid, int l, uint64_t addr)
{
	uint64_t table = (addr & ((1ULL << 48) - 1)) >> (TLB_PAGE_SHIFT + 9 * l);
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
uint32_t ept_walk_cycles(struct mmu *m, uint64_t gfn)
{
	struct cache_path *cp = m->cache;
	int last = m->ept_huge ? 2 : 1;
	uint32_t c = 0;

	switch (psc_walk_start(m->psc, 1, 0, gfn << TLB_PAGE_SHIFT, last)) {
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
uint32_t walk_level(struct mmu *m, uint64_t addr, int l, bool nested, bool known)
{
	uint32_t c = 0;

	if (nested && !known)
		c = ept_walk_cycles(m, table_gfn(m->asid, l, addr));
	/*
	 * A native walk's entries are the most recent lines of their L1D sets
	 * (98% of its L1D hits in khugepaged-cold), where the rank-1 compare
	 * would only cost.
	 */
	return c + cache_load_entry_cycles(m->cache, pt_line(m->asid, l, addr), nested);
}

/*
 * mmu_walk_latency() of a native (@nested false) or nested walk; a constant
 * after inlining, so that each kind of walk has its own code.
 */
static inline __attribute__((always_inline))
uint32_t walk_latency_dims(struct mmu *m, uint64_t addr, bool huge, bool nested)
{
	int l = psc_walk_start(m->psc, 0, m->asid, addr, huge ? 2 : 1);
	uint32_t c = 0;

	/*
	 * From level l down, top first (each case falls through).  A hit (l
	 * below the top) gives the table at level l by its host-physical
	 * address.
	 */
	switch (l) {
	case 4:
		c += walk_level(m, addr, 4, nested, false);
		/* fall through */
	case 3:
		c += walk_level(m, addr, 3, nested, l == 3);
		/* fall through */
	case 2:
		c += walk_level(m, addr, 2, nested, l == 2);
		if (huge)
			break;
		/* fall through */
	default:
		c += walk_level(m, addr, 1, nested, l == 1);
	}
	if (nested)
		c += ept_walk_cycles(m, data_gfn(m->asid, addr));
	return c;
}

/**
 * mmu_walk_latency - the latency of the walk for @addr, in cycles
 * @mmu: the MMU, in the overlap model (mmu->cache set)
 * @addr: the address
 * @huge: the walk ends at a huge PMD
 *
 * Each entry's load is a dependent
 * load, so the latencies add.  Native: from the level the paging-structure
 * caches leave, the PML4E, PDPTE, PDE (and the PTE for a 4K page).  Nested:
 * before each guest entry, the host walk of the guest frame holding its
 * table; after them, the host walk of the data's frame.  A guest
 * paging-structure-cache hit is a combined mapping (SDM 3C 28.3.1): it
 * holds the host-physical address of the next guest table, so the first
 * table the walk reads needs no host walk; the tables below it do, since
 * their addresses come from guest entries (guest-physical).
 * Inside user_access_run()'s loop (mmu->memo.on), a walk that repeats the
 * last one may be taken from struct walk_memo.
 * Context: the accessing task.
 */
uint32_t mmu_walk_latency(struct mmu *mmu, uint64_t addr, bool huge)
{
	struct walk_memo *m = &mmu->memo;
	struct cache_path *cp = mmu->cache;
	uint64_t key = addr >> 15 << 1 | huge, loads, misses;
	uint32_t c;

	if (!m->on)
		return mmu->tlb->geo.walk_dims == 2 ? walk_latency_dims(mmu, addr, huge, true) :
							walk_latency_dims(mmu, addr, huge, false);
	if (m->valid && m->key == key && !(m->sets & m->dirty)) {
		/* The remembered walk again (struct walk_memo): all L1D hits now. */
		cp->loads[CACHE_L1] += m->nr_loads;
		m->nr_hits++;
		return m->cycles;
	}
	loads = cache_path_nr_loads(cp);
	misses = mmu->psc->nr_misses;
	cp->entry_sets = 0;
	c = mmu->tlb->geo.walk_dims == 2 ? walk_latency_dims(mmu, addr, huge, true) :
					    walk_latency_dims(mmu, addr, huge, false);
	/*
	 * The next walk of the same entries hits wherever this one found or
	 * filled them, if its paging-structure-cache lookups hit (a miss
	 * fills an entry, and the next walk starts lower) and it made fewer
	 * loads than the L1D has ways (so none of its lines pushed another of
	 * them out of the L1D).
	 */
	loads = cache_path_nr_loads(cp) - loads;
	m->valid = misses == mmu->psc->nr_misses && loads < cp->l1->a.ways;
	m->key = key;
	m->sets = cp->entry_sets;
	m->dirty = 0;
	m->nr_loads = (uint32_t)loads;
	m->cycles = (uint32_t)loads * cp->cycles[CACHE_L1];
	return c;
}
