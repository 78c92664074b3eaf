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
	unsigned int method;		/* index of the method running (stress_vm_all()'s i - 1) */
	uint64_t calls;			/* methods completed */
};

void stress_vm_worker(void *arg);
/* bogo ops of a worker as stress-ng reports them */
uint64_t stress_vm_bogo_ops(const struct stress_vm_worker *w);

/* The method table of --vm-method all, in stress-ng's order (without "all"). */
unsigned int stress_vm_nr_methods(void);
const char *stress_vm_method_name(unsigned int m);
/* The method stress_vm_all() calls after method @m. */
unsigned int stress_vm_next_method(unsigned int m);
/* The bogo counter (before >> 12) that one call of method @m adds over @pages pages. */
uint64_t stress_vm_method_counter(unsigned int m, uint64_t pages);

#endif
