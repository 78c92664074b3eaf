/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef MMSIM_WORKLOAD_HOT_COLD_H
#define MMSIM_WORKLOAD_HOT_COLD_H
#include <stdbool.h>
#include <stdint.h>

#include "mmsim/sim.h"

struct mm_struct;

enum hot_cold_role { HOT_COLD_HOT1, HOT_COLD_COLD, HOT_COLD_HOT2 };
#define HOT_COLD_NR_ROLES	3
/*
 * How hot1 and hot2 access their regions (docs/results.md, "The access
 * pattern"): uniformly random 8-byte loads; one load per cache line in
 * order; one load per 4K page per pass, at the page's first byte, in page
 * order (pages) or in a new random order each pass (pages-shuffled).
 */
enum hot_cold_pattern {
	HOT_COLD_RANDOM,
	HOT_COLD_SEQUENTIAL,
	HOT_COLD_PAGES,
	HOT_COLD_PAGES_SHUFFLED,
};
enum hot_cold_advice { HOT_COLD_MADV_COLD, HOT_COLD_MADV_FREE };

/* What the three tasks share. */
struct hot_cold_shared {
	bool hot2_done;			/* hot2 has made its measured accesses */
	int registered;			/* tasks that have taken their first fault */
	struct sim_task *waiter[HOT_COLD_NR_ROLES]; /* by role: waits for its turn */
};

/*
 * One task of seed 004's test (a process of its own).
 * Results: the measured accesses of hot2 ran from t_start to t_end, cost
 * `cycles` in the access path and `walks` page walks of its vCPU's TLB.
 */
struct hot_cold_task {
	enum hot_cold_role role;
	struct mm_struct *mm;		/* the task's own process */
	uint64_t size;			/* bytes of its region */
	enum hot_cold_pattern pattern;
	uint32_t loop_uops;		/* micro-ops of the access loop per access */
	enum hot_cold_advice advice;	/* what cold calls */
	uint64_t accesses;		/* hot2: measured accesses */
	sim_time_t measure_at;		/* hot1, hot2: first access after the touch */
	struct hot_cold_shared *shared;
	sim_time_t t_start, t_end;	/* hot2's measured window */
	double cycles;			/* hot2: cycles of the access path in it */
	uint64_t walks;			/* hot2: dtlb_load_misses in it */
	uint64_t done;			/* accesses made after the touch */
	uint32_t *order;		/* pages-shuffled: this pass's page order
					   (size >> PAGE_SHIFT entries, the caller's) */
};

void hot_cold_task(void *arg);

#endif
