/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef MMSIM_WORKLOAD_STRESS_VM_H
#define MMSIM_WORKLOAD_STRESS_VM_H
#include <stdint.h>

#include "mmsim/sim.h"

struct mm_struct;

/* Which stress-ng's method table: its order changed in 2025. */
enum {
	STRESS_VM_V0_22,		/* 291fc434, August 2026 */
	STRESS_VM_V0_19,		/* V0.19.00, May 2025 */
	STRESS_VM_V0_17,		/* V0.16.00-V0.17.05, July 2023-February 2024: V0.19's
					   order without walk-flush, and the page-in sweeps
					   (reclaim-tlb's default) */
	STRESS_VM_V0_15,		/* V0.15.06 (Debian 12's), as V0.17 but cache-lines
					   counting once a call and the prime-* methods the
					   stride sweeps of before V0.17.02 */
};

/* One stress-ng vm worker: its own process (mm) and its share of --vm-bytes. */
struct stress_vm_worker {
	struct mm_struct *mm;
	uint64_t bytes;			/* --vm-bytes / instances, page aligned */
	sim_time_t duration;		/* --timeout */
	uint64_t counter;		/* stress-ng's bogo counter before >> VM_BOGO_SHIFT */
	uint64_t oom;			/* faults that could not be resolved */
	unsigned int version;		/* STRESS_VM_V0_*: the table's order, the page-in sweeps */
	unsigned int method;		/* index in the table of the method running */
	uint64_t calls;			/* methods completed */
};

void stress_vm_worker(void *arg);
/* bogo ops of a worker as stress-ng reports them */
uint64_t stress_vm_bogo_ops(const struct stress_vm_worker *w);

/* The STRESS_VM_* table that models stress-ng @major.@minor.@patch. */
unsigned int stress_vm_version_of(unsigned int major, unsigned int minor, unsigned int patch);

/* The method table of --vm-method all, in stress-ng's order (without "all"). */
unsigned int stress_vm_nr_methods(void);
const char *stress_vm_method_name(unsigned int m);
/* The method stress_vm_all() of stress-ng @version calls after method @m. */
unsigned int stress_vm_next_method(unsigned int version, unsigned int m);
/* The bogo counter (before >> 12) that one call of method @m adds over @pages pages. */
uint64_t stress_vm_method_counter(unsigned int version, unsigned int m, uint64_t pages);
/*
 * The sweeps over the whole buffer that one call of method @m makes in
 * stress-ng @version: its passes (rowhammer's hammer loop touches no
 * pages), and for STRESS_VM_V0_17 its page-in calls and the one before it.
 */
unsigned int stress_vm_method_sweeps(unsigned int version, unsigned int m);

#endif
