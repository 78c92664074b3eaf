/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef MMSIM_WORKLOAD_STRESS_VM_H
#define MMSIM_WORKLOAD_STRESS_VM_H
#include <stdint.h>

#include "mmsim/sim.h"

struct mm_struct;

/* One stress-ng vm worker: its own process (mm) and its share of --vm-bytes. */
struct stress_vm_worker {
	struct mm_struct *mm;
	uint64_t bytes;			/* --vm-bytes / instances, page aligned */
	sim_time_t duration;		/* --timeout */
	uint64_t counter;		/* stress-ng's bogo counter before >> VM_BOGO_SHIFT */
	uint64_t oom;			/* faults that could not be resolved */
};

void stress_vm_worker(void *arg);
/* bogo ops of a worker as stress-ng reports them */
uint64_t stress_vm_bogo_ops(const struct stress_vm_worker *w);

#endif
