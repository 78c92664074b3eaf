// SPDX-License-Identifier: GPL-2.0-only
/*
 * The experiment registry: one line per experiment.  Adding one takes its
 * folder src/experiments/NAME/ (definition, simulated workload, live
 * workload), one line here, and nothing in the build (CMake globs
 * every .c file under src/experiments/).
 */
#include "mmsim/scenario.h"

extern const struct scenario_ops scenario_spinlock;
extern const struct scenario_ops scenario_deferred_split;
extern const struct scenario_ops scenario_reclaim_tlb;
extern const struct scenario_ops scenario_khugepaged_cold;
extern const struct scenario_ops scenario_khugepaged_cold_kvm;

const struct scenario_ops *const sim_scenarios[] = {
	&scenario_spinlock,
	&scenario_deferred_split,
	&scenario_reclaim_tlb,
	&scenario_khugepaged_cold,
	&scenario_khugepaged_cold_kvm,
	NULL,
};
