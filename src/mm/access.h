/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User memory accesses through the vCPU's TLB (src/mm/access.c).
 *
 * user_access() is the hot path of every workload that touches its memory:
 * a TLB lookup (include/mmsim/tlb.h) and, on an STLB miss, a page walk
 * that reads the PTE or the huge PMD and sets its accessed bit, as the
 * MMU does; a walk that finds nothing mapped faults.  A store through an
 * entry filled clean sets the dirty bit first (user_access_assist()).  user_access_batch()
 * does the same for a chunk of addresses, faster.  The cycles of each
 * access are summed and charged in bulk by user_access_charge(), so the
 * loop syncs with the engine only when its quantum runs out.
 */
#ifndef MMSIM_MM_ACCESS_H
#define MMSIM_MM_ACCESS_H

#include "mm/mm.h"
#include "mmsim/cache.h"
#include "mmsim/mmu.h"
#include "mmsim/tlb.h"

/*
 * One task's access state over one VMA.
 *
 * Two cost models (docs/tlb.md), chosen by the profile's mem.overlap:
 *
 * Flat (mem.overlap == 0): every access costs its issue slot,
 * 1/P cycles with P == mem.loads_per_cycle, plus its TLB outcome, and walks
 * overlap W == page_walkers at a time.  A unit is 1/(P * W) cycle:
 *   unit[r][huge] == (1 + cost[r][huge] * P) * W
 *                    - walk_cost[huge] * P * (W - 1) for r == TLB_WALK
 *                    i.e. the cycles of an outcome times P * W, with a
 *                    walk's own cost not multiplied by W: walks overlap
 *                    (tlb_walk_stall_cycles())
 *   units == sum of unit[][] over the accesses not yet charged
 *   scale == P * W
 *
 * Overlap (mem.overlap == 1, L == mem.line_fill_buffers, mmu.cache != NULL; docs/tlb.md, "The
 * overlap model"): the data load and each reference of a walk cost the
 * latency of the cache level that holds their line (include/mmsim/cache.h),
 * and independent accesses overlap.  A batch of n accesses takes the
 * largest of four bounds, each Little's law for one of the core's limits:
 *   issue: n / P, or n times the workload loop's own cycles per access
 *           (loop_mcycles, mem.access_loop) where that is more
 *   fill buffers: miss_cycles / L, miss_cycles == the summed memory
 *           latency of the data loads that missed L1D (a load takes a
 *           line fill buffer only once translated, and only on a miss),
 *           and with mem.walk_fill_buffers that of the walks' loads that
 *           missed L1D (the walker's loads go through the L1D and its
 *           fill buffers)
 *   walkers: walk_cycles / W, walk_cycles == the summed walk latencies,
 *           W == page_walkers
 *   window: window_cycles / B, window_cycles == the summed translation +
 *           memory latency of every load, B == mem.load_buffer_entries
 *           (a load holds its load-buffer entry from issue to completion)
 *   reorder buffer: window_cycles * U / R, R == mem.rob_entries, U ==
 *           uops, the micro-ops of the workload's loop per load: each
 *           holds a reorder-buffer entry from allocation until the load
 *           before it retires, so R / U loads are in flight at most
 *   units == that maximum * scale, scale == P * L * W * B * R
 *
 *   charged time == floor(all units * 10^6 / (scale * mhz)) ps
 */
struct user_access {
	struct mmu mmu;			/* this vCPU's MMU, the TLB and caches it charges */
	struct mm_struct *mm;
	struct vm_area_struct *vma;	/* the one VMA accessed */
	struct folio **pmd_huge;	/* vma->pmd_huge (fixed for the VMA's life) */
	uint64_t pmd_base;		/* vma->vm_start rounded down to 2M */
	uint32_t unit[TLB_NR_RESULTS][2]; /* flat: cost per outcome, see above */
	uint64_t units;			/* flat: not yet charged */
	uint64_t rem;			/* remainder of the last conversion */
	uint64_t den;			/* scale * mhz */
	uint64_t scale;			/* units per cycle */
	uint64_t walks_seen;		/* tlb->stats.walks at the last charge */
	uint64_t lookups_seen;		/* tlb_access() calls at the last charge */
	unsigned __int128 units_charged; /* all units charged so far (for metrics) */
	uint64_t miss_cycles;		/* overlap: not yet charged, see above */
	uint64_t walk_cycles;		/* overlap: not yet charged, see above */
	uint64_t window_cycles;		/* overlap: not yet charged, see above */
	uint64_t dram_lines;		/* overlap: lines from DRAM not yet charged */
	uint32_t uops;			/* overlap: the loop's micro-ops per load (U) */
	uint32_t loop_mcycles;		/* the loop's own cycles per access x 1000 (mem.access_loop) */
	bool tlb_2m;			/* a 2M page is a 2M TLB entry; false: 4K ones (splintered) */
	int fault_err;			/* the first fault that failed (-errno), its address */
	uint64_t fault_addr;		/* (the kernel would signal or OOM-kill the task) */
};

void user_access_init(struct user_access *ua, struct vm_area_struct *vma);
void user_access_charge(struct user_access *ua);
void user_access_walk(struct user_access *ua, uint64_t addr, bool huge, bool write);
void user_access_assist(struct user_access *ua, uint64_t addr, bool huge);
void user_access_batch(struct user_access *ua, const uint64_t *addrs, unsigned int n, bool write);
void user_access_overlap(struct user_access *ua, uint64_t addr, enum tlb_result r, bool huge);

/**
 * user_access - one load (or store) of user memory at @addr
 * @ua: the task's access state
 * @addr: an address inside ua->vma
 * @write: a store (sets the dirty bit on a walk, or through an entry filled clean)
 *
 * Context: user context of ua->mm on this vCPU; no lock held.  The cost is
 * charged later by user_access_charge().  Always inline: it is the
 * workloads' innermost loop, and a call would spill the loop's registers.
 */
static inline __attribute__((always_inline))
void user_access(struct user_access *ua, uint64_t addr, bool write)
{
	uint64_t idx = (addr - ua->pmd_base) >> PMD_SHIFT;
	bool huge = ua->pmd_huge[idx] != NULL;
	bool th = huge && ua->tlb_2m;	/* the TLB entry's size */
	enum tlb_result r = tlb_access(ua->mmu.tlb, ua->mmu.asid, addr, th);

	if (ua->mmu.cache)
		user_access_overlap(ua, addr, r, huge);
	else
		ua->units += ua->unit[r][huge];
	if (r == TLB_WALK)
		user_access_walk(ua, addr, huge, write);
	else if (write && tlb_entry_clean(ua->mmu.tlb, ua->mmu.asid, addr, th))
		user_access_assist(ua, addr, huge);
}

/* Cycles spent by the accesses charged so far (all of them, not only the last batch). */
static inline double user_access_cycles(const struct user_access *ua)
{
	return (double)ua->units_charged / (double)ua->scale;
}

int mm_tlb_check_profile(const struct sim_profile *p, char *err, size_t len);
int mm_tlb_init(struct sim_engine *e);
void mm_tlb_destroy(struct sim_engine *e);

#endif /* MMSIM_MM_ACCESS_H */
