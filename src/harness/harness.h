/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The harness under every command that runs scenarios (docs/design.md,
 * "The harness"): the run plan built once from the parsed command line
 * (plan.c), the process pool that runs it (pool.c), and the report layer
 * (report.c, report_json.c, report_functions.c, whose API is the public
 * include/mmsim/output.h).  The command line (src/cli/)
 * depends on it; it depends on the model's public API (include/mmsim/)
 * and never on src/cli/.  Nothing here is part of the public API.
 */
#ifndef MMSIM_HARNESS_H
#define MMSIM_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <stddef.h>

#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"

/* ---- pool.c: one process pool ---------------------------------------------- */

/*
 * One job of a pool: a fork()ed child that writes bytes to a pipe.
 * Invariant: fd >= 0 iff the child runs and has not been reaped; ended
 * jobs have ok == (the child exited 0 and every byte was kept).
 */
struct pool_job {
	struct sim_out out;		/* the bytes the child wrote, in memory */
	pid_t pid;			/* 0: not started or reaped */
	int fd;				/* read end of its pipe, -1: none */
	bool started, ended, ok;
	char why[96];			/* how it failed when not by its own bytes */
};

/*
 * A pool: @nr jobs, at most @jobs at a time.  The results are in job
 * order whatever the order the children end in; @order only says which
 * to start first (the longest runs, so that none is left alone at the end).
 */
struct pool {
	int nr;				/* jobs */
	const int *order;		/* [nr] the order to start them, NULL: 0..nr-1 */
	uint64_t jobs;			/* children at a time, >= 1 */
	bool stop_at_failure;		/* start no job after (in job order) one that failed */
	/* In the child: run job @i, its bytes into @o.  Return: its exit code. */
	int (*run)(void *arg, int i, struct sim_out *o);
	/* In the parent as job @i ends (the @nr_ended-th to), NULL: none. */
	void (*ended)(void *arg, int i, int nr_ended);
	void *arg;
	/* What pool_run() fills: */
	struct pool_job *job;		/* [nr] */
	int first_failed;		/* the failed job first in job order, -1: none */
	const char *failed_call;	/* pool_run() returned -1: "pipe", "fork" or "poll" */
	int failed_errno;		/* and its errno */
};

int pool_run(struct pool *p);
void pool_release(struct pool *p);
void pool_child_dies_with(pid_t parent);
double harness_host_seconds(void);
double harness_host_cpu_seconds(void);

/* ---- plan.c: one run plan ------------------------------------------------- */

#define PLAN_ERR	512		/* an error line */
#define PLAN_MAX_SETS	(SIM_MAX_PARAMS * 2)
#define PLAN_MAX_POS	64

/*
 * The parsed command line of one subcommand, as src/cli/options.c's one
 * parser fills it: what a plan is built from.
 */
struct plan_args {
	const char *sets[PLAN_MAX_SETS];		/* "KEY=VALUE" */
	int nr_sets;
	const char *costs[PLAN_MAX_SETS];	/* "SECTION.KEY=VALUE" of the profile */
	int nr_costs;
	const char *variants[SIM_MAX_VARIANTS];
	int nr_variants;
	const char *profile, *json, *csv;
	const char *baseline;			/* run --baseline VARIANT, or NULL */
	uint64_t seed;
	bool seed_given, quiet, check;
	const char *pos[PLAN_MAX_POS];		/* operands */
	int nr_pos;
	/* sweep */
	const char *vary[SIM_MAX_PARAMS];	/* "KEY=V1,V2,..." */
	int nr_vary;
	uint64_t seeds;				/* seeds per point, >= 1 */
	uint64_t jobs;				/* processes at a time, >= 1 */
	const char *plot;			/* sweep FILE, reproduce DIR */
	uint64_t shard_i, shard_n;		/* 1-based; 0/0: no --shard */
	uint64_t emit_jobs;			/* parts, 0: run */
	uint64_t merge_n;			/* --merge N: join N parts, 0: run */
	const char *slurm;			/* --slurm DIR, NULL: print the jobs */
	bool submit;				/* --submit: sbatch the array and merge */
	/* run */
	const char *trace;			/* trace file, NULL: none */
	uint64_t trace_limit;			/* events */
	int locks_format;			/* enum sim_locks_format */
	bool vmstat;				/* --vmstat */
	bool report_functions;			/* --report functions */
};

/*
 * One scenario at one seed, configured before anything runs (so that bad
 * input in any of them stops the command before output starts), with its
 * variants' results once they have run.  Invariant: 0 < nr <=
 * SIM_MAX_VARIANTS once prepared; res has nr entries, in idx order.
 */
struct plan_scenario {
	const struct scenario_ops *s;
	struct sim_run_config cfg;
	struct sim_profile *prof;
	int idx[SIM_MAX_VARIANTS];	/* the variants to run, by index */
	int nr;
	struct sim_variant_result *res;	/* nr results, in idx order */
	bool functions;			/* --report functions: res[].functions gathered */
	bool ran;			/* res filled by the process pool */
	/* The host's cost of its variant runs (the "host time" line): */
	double cpu_s;			/* CPU seconds, summed over their processes */
	int nr_procs;			/* the processes that ran them */
	double wall_s;			/* wall seconds from the runs' start to the last one's end */
};

/*
 * What run and reproduce run: every scenario at every seed.
 * Invariant: nr == nr_scenarios * nr_seeds; scn[i * nr_seeds + k] is
 * scenario i at seed --seed + k.
 */
struct plan {
	struct plan_scenario *scn;	/* [nr] */
	int nr;
	int nr_seeds;			/* --seeds, >= 1 */
	uint64_t jobs;			/* --jobs or its default */
	bool pooled;			/* the variants run in the process pool */
};

int plan_build(struct plan *pl, const struct scenario_ops *const *scn, int nr_scn,
	       const struct plan_args *a, char *msg, size_t len);
void plan_release(struct plan *pl);
int plan_scenario_prepare(const struct scenario_ops *s, const struct plan_args *a,
			  struct plan_scenario *p, char *msg, size_t len);
void plan_scenario_release(struct plan_scenario *p);
int plan_apply_costs(const struct plan_args *a, struct sim_profile *p, char *msg,
		     size_t len);
int plan_configure(const struct scenario_ops *s, const struct plan_args *a,
		   struct sim_run_config *cfg, char *msg, size_t len);
int plan_select_variants(const struct scenario_ops *s, const struct plan_args *a,
			 int *idx, char *msg, size_t len);
int plan_validate(const struct sim_run_config *cfg, char *msg, size_t len);
uint64_t plan_host_bytes_estimate(const struct sim_run_config *cfg);
uint64_t plan_default_jobs(const struct plan_args *a, bool sweep);
int plan_run_variant(const struct plan_scenario *p, const struct sim_run_config *cfg, int v,
		     struct sim_variant_result *res, char *err, size_t len);
int plan_run_pool(struct plan_scenario *scn, int nr, uint64_t jobs,
		  void (*step)(int nr_ended), char *msg, size_t len);

#endif /* MMSIM_HARNESS_H */
