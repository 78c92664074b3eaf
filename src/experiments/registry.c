// SPDX-License-Identifier: GPL-2.0-only
/*
 * The experiment registry: one line per experiment, in the order `mmsim
 * list` prints them.  Adding one takes its folder src/experiments/NAME/
 * (definition, simulated workload, live workload), one line here, and
 * nothing in the build (CMake globs every .c file under src/experiments/).
 * Each line names the experiment's const struct scenario_ops,
 * scenario_<name>; the list declares each and fills sim_scenarios[].
 */
#include "mmsim/scenario.h"

#define SIM_EXPERIMENTS(X)		\
	X(spinlock)			\
	X(deferred_split)		\
	X(reclaim_tlb)			\
	X(khugepaged_cold)		\
	X(khugepaged_cold_kvm)		\
	/* add an experiment above this line */

#define SIM_EXPERIMENT_DECLARE(name) extern const struct scenario_ops scenario_##name;
SIM_EXPERIMENTS(SIM_EXPERIMENT_DECLARE)
#undef SIM_EXPERIMENT_DECLARE

const struct scenario_ops *const sim_scenarios[] = {
#define SIM_EXPERIMENT_ENTRY(name) &scenario_##name,
	SIM_EXPERIMENTS(SIM_EXPERIMENT_ENTRY)
#undef SIM_EXPERIMENT_ENTRY
	NULL,
};
