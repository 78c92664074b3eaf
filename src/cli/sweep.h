// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sweep's grid and runs (cmd-sweep.c), shared with its charts
 * (cmd-sweep-plot.c).
 */
#ifndef MMSIM_CLI_SWEEP_H
#define MMSIM_CLI_SWEEP_H

#include "cli/cli_impl.h"
#include "harness/harness.h"

#define SWEEP_MAX_RUNS	10000
#define SWEEP_TEXT	64

/* One varied parameter.  Invariant: nr >= 1, values pairwise different. */
struct sweep_axis {
	int param;			/* index into the scenario's params, -1: a profile key */
	const char *key;		/* the parameter's key, or "section.key" (owned) */
	int nr;				/* values */
	uint64_t *val;			/* [nr] */
	char (*text)[SWEEP_TEXT];	/* [nr] canonical, as the CSV prints */
};

/*
 * A key every run of the sweep has at one value: a --set parameter or a
 * --cost profile key, a column of the CSV after the varied keys.
 */
struct sweep_fixed {
	char key[64];			/* the parameter's key, or "section.key" */
	char text[SWEEP_TEXT];		/* canonical, as the CSV prints */
};

/*
 * A sweep.  Invariants: nr_runs == nr_grid * nr_seeds <= SWEEP_MAX_RUNS;
 * first <= last <= nr_runs (this shard's runs).
 */
struct sweep {
	const struct scenario_ops *s;
	struct plan_scenario plan;	/* profile, defaults and --set, the variants */
	int nr_metrics;
	struct sweep_axis axis[SIM_MAX_PARAMS];
	int nr_axes;
	struct sweep_fixed fixed[PLAN_MAX_SETS * 2];	/* --set, then --cost */
	int nr_fixed;
	uint64_t nr_grid, nr_seeds, nr_runs;
	uint64_t first, last;
	uint64_t base_seed;
};

int sweep_axis_index(const struct sweep *sw, uint64_t g, int k);
int sweep_plot(struct cli *c, const struct sweep *sw,
	       const struct pool_job *runs, const char *path, const char *settings);

#endif /* MMSIM_CLI_SWEEP_H */
