/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef MMSIM_WORKLOAD_FAULT_UNMAP_H
#define MMSIM_WORKLOAD_FAULT_UNMAP_H
#include <stdbool.h>
#include <stdint.h>

struct mm_struct;

/* The threads of one process that map, fault in and unmap anonymous memory. */
struct fault_unmap_params {
	struct mm_struct *mm;		/* the process, shared by all threads */
	uint64_t region;		/* bytes mapped per round */
	uint64_t rounds;
	uint64_t step;			/* bytes between touches (the folio size) */
	bool dontneed;			/* madvise(MADV_DONTNEED) instead of munmap() */
	uint64_t start_spread_ps;	/* first round after a random delay below this */
	bool random_phase;		/* begin at a random fault of the round (round_phase=random) */
};

void fault_unmap_thread(void *arg);

#endif
