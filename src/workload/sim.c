// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated executor of workload files: a stub until it lands (its
 * helper's src/workload/sim.c replaces this file).
 */
#include <stdio.h>

#include "mmsim/workload.h"

int workload_sim_run(const struct wl_plan *plan, const struct sim_run_config *cfg,
		     const struct mm_variant *v, const struct wl_sim_hooks *hooks,
		     struct sim_variant_result *res, struct wl_sim_out *out,
		     char *err, size_t len)
{
	snprintf(err, len, "the simulated executor is not built yet");
	return -1;
}
