/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU of a vCPU and what its accesses cost (src/hw/mmu.c): the TLB
 * (include/mmsim/tlb.h), the paging-structure caches, the page walk's
 * loads through the data caches (include/mmsim/cache.h), native or nested
 * (EPT), and the overlap model's time for a batch of accesses over the
 * core's limits and the memory system's loaded latency
 * (include/mmsim/memsys.h).
 *
 * The kernel's side (which page tables a walk reads, what a fault does,
 * when the TLB is flushed) is src/mm/access.c and src/mm/tlb.c; this
 * header knows addresses and address spaces (PCIDs), not VMAs.
 */
#ifndef MMSIM_MMU_H
#define MMSIM_MMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmsim/cache.h"
#include "mmsim/memsys.h"
#include "mmsim/profile.h"
#include "mmsim/sim.h"
#include "mmsim/tlb.h"

/*
 * The paging-structure caches of one vCPU (Intel SDM vol. 3A 4.10.3), in
 * the overlap model: for each dimension (0: the guest's or native tables,
 * 1: the host's EPT) a PDE, a PDPTE and a PML4 cache.  An entry lets a
 * walk skip the levels above it.  An array with no sets is a cache the
 * profile does not have (0 entries).
 */
enum { PSC_PDE, PSC_PDPTE, PSC_PML4, PSC_NR_LEVELS };

struct mmu_caches {
	struct tlb_array lvl[2][PSC_NR_LEVELS];
	uint64_t nr_misses;		/* lookups that missed a cache it has */
};

/*
 * What user_access_run() keeps of the last page walk it made (the
 * simulator's speed only): the next walk within the same 32 KiB (the same
 * PTE line, so the same entries at every level, guest and EPT) is the
 * same sequence of lookups.  If the remembered walk's paging-structure-
 * cache lookups all hit and it made fewer loads than the L1D has ways,
 * every line it loaded is in the L1D after it; if no load since looked in
 * an L1D set it used, the walk again finds every entry in the L1D and
 * leaves every set as it was: under true LRU a sequence of hits, repeated,
 * changes nothing.  Nothing else touches these caches while the loop runs.
 *
 *   valid => key, sets, nr_loads, cycles describe a walk whose next
 *     repeat is all L1D hits
 *   dirty == a bit (set % 64) for each L1D set a data load looked in
 *     since that walk
 */
struct walk_memo {
	bool on;			/* user_access_run()'s loop is running */
	bool valid;
	uint64_t key;			/* the walk's address >> 15, and its page size */
	uint64_t sets;			/* a bit (set % 64) per L1D set the walk used */
	uint64_t dirty;			/* a bit (set % 64) per L1D set a data load used since */
	uint32_t nr_loads;		/* the walk's loads, all in the L1D after it */
	uint32_t cycles;		/* nr_loads x the L1D's latency */
	uint64_t nr_hits;		/* walks taken from the memo (for tests) */
};

/*
 * One vCPU's MMU as one stream of user accesses sees it (struct
 * user_access holds one): the TLB it looks up, the address space it walks
 * (the PCID), and in the overlap model the caches its walks load through.
 * cache == NULL: the flat model (no data caches, no paging-structure
 * caches, psc == NULL).
 */
struct mmu {
	struct tlb *tlb;		/* this vCPU's TLB */
	uint16_t asid;			/* mm->asid, the PCID */
	struct cache_path *cache;	/* overlap: this vCPU's caches; NULL: flat */
	struct mmu_caches *psc;		/* overlap: its paging-structure caches */
	struct walk_memo memo;		/* overlap: the loop's last walk */
	uint32_t atomic_cycles;		/* overlap: lock.atomic_cycles, a dirty-bit assist's RMW */
	bool walk_fills;		/* overlap: a walk's L1D misses hold fill buffers */
	bool ept_huge;			/* overlap: the host's EPT maps 2M pages */
};

/* The core's limits in the overlap model (struct user_access). */
struct overlap_limits {
	uint64_t loads_per_cycle;	/* P: mem.loads_per_cycle */
	uint64_t fill_buffers;		/* L: mem.line_fill_buffers */
	uint64_t page_walkers;		/* W: tlb.page_walkers */
	uint64_t load_buffer;		/* B: mem.load_buffer_entries */
	uint64_t rob_entries;		/* R: mem.rob_entries */
	uint64_t uops;			/* U: the loop's micro-ops per load */
	uint64_t loop_mcycles;		/* the loop's own cycles per access x 1000; 0: none */
};

/*
 * The patterns of a workload's access loop whose own cost per access
 * mem.access_loop gives (include/mmsim/workload.h maps its patterns).
 */
enum mmu_loop { MMU_LOOP_SEQ, MMU_LOOP_RANDOM, MMU_LOOP_SHUFFLED, MMU_LOOP_ZIPF, MMU_LOOP_HOT,
		MMU_LOOP_NR };

int mmu_parse_access_loop(const char *s, uint32_t mcycles[MMU_LOOP_NR]);

/* What a batch of accesses asked of them. */
struct overlap_batch {
	uint64_t n;			/* accesses */
	uint64_t miss_cycles;		/* memory latency of the data's L1D misses */
	uint64_t walk_cycles;		/* latency of the walks */
	uint64_t window_cycles;		/* translation + memory latency of every load */
};

/*
 * The name of the data line of @addr in address space @asid, as the
 * overlap model's caches know it (cache_key(); src/hw/mmu.c names the
 * page-table lines).
 */
static inline uint64_t mmu_data_line(uint16_t asid, uint64_t addr)
{
	return (uint64_t)asid << 42 | ((addr >> 6) & ((1ULL << 42) - 1));
}

uint32_t mmu_walk_latency(struct mmu *m, uint64_t addr, bool huge);
void mmu_kernel_store(uint16_t asid, uint64_t addr, uint64_t bytes);

/* Whether the running vCPU has the overlap model's data caches. */
static inline bool mmu_has_caches(void)
{
	return sim_this_vcpu()->dcache != NULL;
}

/* The overlap model's sums of the accesses not yet charged (struct user_access). */
struct mmu_sums {
	uint64_t miss, walk, window;
};

/*
 * One access in the overlap model: the walk's entries (for an STLB miss)
 * and the data line through the caches, their latencies added to @s.
 */
static inline __attribute__((always_inline))
void mmu_overlap_one(struct mmu *m, struct cache_path *cp, uint64_t addr,
		     enum tlb_result r, bool huge, struct mmu_sums *s)
{
	uint32_t t = r == TLB_L1_HIT ? 0 : m->tlb->geo.stlb_hit_cycles, lat;
	enum cache_level l;

	if (r == TLB_WALK) {
		uint64_t hits = cp->loads[CACHE_L1];
		uint32_t w = mmu_walk_latency(m, addr, huge);

		t += w;
		s->walk += w;
		/* The walk's loads that missed L1D: all its latency but its L1D hits'. */
		if (m->walk_fills)
			s->miss += w - (uint32_t)(cp->loads[CACHE_L1] - hits) * cp->cycles[CACHE_L1];
	}
	l = cache_load(cp, mmu_data_line(m->asid, addr));
	lat = cp->cycles[l];
	s->window += t + lat;
	if (l != CACHE_L1)
		s->miss += lat;
}

/*
 * The overlap model's account of a dirty-bit assist (user_access_assist()):
 * the walk's entries through the caches (its latency, as an STLB miss's
 * walk) and the locked update of the PTE's line (lock.atomic_cycles),
 * added to the walk and window sums of @s.
 */
static inline void mmu_assist_overlap(struct mmu *m, uint64_t addr, bool huge,
				      struct mmu_sums *s)
{
	struct cache_path *cp = m->cache;
	uint64_t hits = cp->loads[CACHE_L1];
	uint32_t w = mmu_walk_latency(m, addr, huge);

	if (m->walk_fills)
		s->miss += w - (uint32_t)(cp->loads[CACHE_L1] - hits) * cp->cycles[CACHE_L1];
	w += m->atomic_cycles;
	s->walk += w;
	s->window += w;
}

uint64_t mmu_overlap_cycles(const struct overlap_batch *b, const struct overlap_limits *lim,
			    bool *memory_bound);
uint32_t mmu_memory_latency_cycles(const struct sim_profile *p, const struct memsys *ms, int cpu,
				   int nid, sim_time_t now);
void mmu_memory_batch(struct cache_path *cp, const struct sim_profile *p, struct memsys *ms,
		      uint64_t lines, sim_time_t ps);

int mmu_check_profile(const struct sim_profile *p, char *err, size_t len);
int mmu_init(struct sim_engine *e);
void mmu_destroy(struct sim_engine *e);
struct mmu_caches *mmu_psc_of(int cpu);
void mmu_flush_asid(int cpu, uint16_t asid);
void mmu_flush_range(int cpu, uint16_t asid, uint64_t start, uint64_t end, uint64_t ceiling);

#endif /* MMSIM_MMU_H */
