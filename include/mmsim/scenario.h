/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scenarios: named experiments with variants, parameters, metrics and the
 * published numbers they reproduce.  Each scenario is a const
 * struct scenario_ops in its folder src/experiments/NAME/, listed once
 * in the registry (src/experiments/registry.c).  `mmsim list`, `show`,
 * the help text and the "unknown scenario" errors are generated from
 * that table.
 */
#ifndef MMSIM_SCENARIO_H
#define MMSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmsim/counters.h"
#include "mmsim/sim.h"

#define SIM_MAX_PARAMS		24
#define SIM_MAX_METRICS		12
#define SIM_MAX_VARIANTS	6
#define SIM_MAX_LOCKS		16

enum sim_param_type {
	SIM_PARAM_COUNT,	/* a plain integer */
	SIM_PARAM_SIZE,		/* bytes; accepts K, M, G, T suffixes */
	SIM_PARAM_TIME,		/* ns; accepts ns, us, ms, s suffixes */
	SIM_PARAM_BOOL,		/* 0/1, yes/no, on/off */
	SIM_PARAM_ENUM,		/* one of choices[], stored as its index */
};

struct sim_param {
	const char *key;
	enum sim_param_type type;
	uint64_t def;			/* default */
	uint64_t min, max;		/* accepted range (inclusive) */
	const char *help;
	const char *const *choices;	/* SIM_PARAM_ENUM: NULL-terminated */
	bool cpus_default;		/* unless set: the profile's CPUs (capped to max) */
	/*
	 * Live runs (`mmsim live`, `mmsim compare`, docs/live.md).  @live: the
	 * live workload takes this parameter too, with the same name, values
	 * and meaning; else it is the model's alone (`live` refuses it,
	 * `compare` gives it to the simulated side only).  @has_live_def: a
	 * live run, and the simulated side of `compare`, default to @live_def
	 * rather than @def (a workload sized for a small machine: 2 threads,
	 * not 80).
	 */
	bool live;
	bool has_live_def;
	uint64_t live_def;
};

struct sim_metric {
	const char *key;		/* contract name, snake_case */
	const char *label;		/* row label in the table */
	int decimals;			/* digits after the point in the table */
	const char *unit;		/* of its value: "s", "%", "pages" */
	/*
	 * Live runs: @live_counter, the change over the run of a kernel
	 * counter ("TLB" and "CAL": rows of /proc/interrupts; else a
	 * /proc/vmstat counter); or @no_live, why no live run can measure it;
	 * neither: the live workload (or live mode's perf lock) measures it.
	 */
	const char *live_counter;
	const char *no_live;
	/*
	 * A metric the scenario's finish() computes against the run of this
	 * variant (deferred-split's queueing cost against "unqueued"): unset
	 * when that variant does not run.  NULL: none.
	 */
	const char *relative_to;
};

/* An interval [lo, hi]; lo == hi == 0: none declared. */
struct sim_band {
	double lo, hi;
};

/*
 * A published number: metric @metric of variant @variant was @value.  The
 * bands say when the simulation agrees with it (docs/uncertainty.md), as
 * data, from the issue or the post that sets them:
 * @ratio: simulated / published must lie in it;
 * @change_pct: on the changed variant's entry, when the baseline's is
 *	published too: the change (changed / baseline - 1, in %) must lie in it.
 */
struct sim_published {
	const char *variant;
	const char *metric;
	double value;
	struct sim_band ratio;
	struct sim_band change_pct;
};

/* One read/write state of a lock class (lock_stat's rows); times in ps. */
struct sim_lock_side {
	uint64_t acquisitions, contentions;
	uint64_t wait_total, wait_min, wait_max;	/* min: shortest nonzero */
	uint64_t hold_total, hold_min, hold_max;
};

/* One lock class's statistics, as printed in the lock table. */
struct sim_lock_result {
	char name[48];
	uint64_t acquisitions, contentions;	/* both sides */
	double wait_total_s, wait_max_us, wait_avg_ns;
	double hold_total_s, hold_avg_ns;
	bool rwsem;
	struct sim_lock_side side[2];		/* [0] spinlock or rwsem:W, [1] rwsem:R */
};

/*
 * --report functions: virtual CPU time by modelled kernel function, as
 * `perf report --children` shows it (src/engine/funcprof.c).
 * Invariant: the rows' self_ps sum to cpu_ps (when nr_left_out == 0);
 * self_ps <= children_ps.
 */
#define SIM_MAX_FUNCTIONS	64
#define SIM_FUNCTION_NAME	48

struct sim_function_row {
	char name[SIM_FUNCTION_NAME];	/* the span's; a lock wait: the lock class */
	bool lock_wait;			/* spinning for that lock ("spin: " in the table) */
	uint64_t calls;			/* spans begun */
	uint64_t self_ps;		/* in it, not in a function it called */
	uint64_t children_ps;		/* in it and in what it called, once per stack */
};

struct sim_functions {
	struct sim_function_row rows[SIM_MAX_FUNCTIONS];	/* by children_ps, largest first */
	int nr;				/* 0: not asked for */
	int nr_left_out;		/* rows past SIM_MAX_FUNCTIONS, the smallest */
	uint64_t cpu_ps;		/* all vCPUs' busy time, spinning included */
	uint64_t spin_ps;		/* of it, spinning */
	uint64_t dropped;		/* spans that ended out of order, not counted */
};

struct sim_variant_result {
	const char *name;
	double metrics[SIM_MAX_METRICS];	/* by the scenario's metric index */
	bool has_metric[SIM_MAX_METRICS];
	uint64_t counters[NR_SIM_COUNTERS];
	struct sim_lock_result locks[SIM_MAX_LOCKS];
	int nr_locks;
	uint64_t events;			/* engine events (host work) */
	double runtime_s;			/* virtual makespan */
	int nr_cpus;				/* vCPUs of the run */
	uint32_t irq_tlb[SIM_MAX_CPUS];		/* TLB shootdowns per CPU (/proc/interrupts) */
	uint32_t irq_call[SIM_MAX_CPUS];	/* function-call interrupts per CPU (CAL) */
	struct sim_functions functions;		/* --report functions */
};

struct mm_variant;
struct live_ops;

/*
 * One variant of an experiment, a column of its table: its name and what
 * it changes in the kernel model (struct mm_variant, src/mm/mm.h), NULL
 * for an experiment of the engine alone.  An experiment's variants are one
 * table of these, terminated by name == NULL.
 */
struct sim_variant {
	const char *name;
	const struct mm_variant *mm;
};

/* The effective configuration of one run. */
struct sim_run_config {
	const struct scenario_ops *scenario;
	const struct sim_profile *profile;
	uint64_t params[SIM_MAX_PARAMS];	/* by the scenario's param index */
	uint64_t seed;
	bool check;				/* model invariant checks */
};

struct scenario_ops {
	const char *name;
	const char *summary;			/* one line for `mmsim list` */
	const char *description;		/* a paragraph for `mmsim show` */
	const char *profile;			/* default profile name */
	const struct sim_variant *variants;	/* terminated by name == NULL */
	const char *baseline;			/* the "before" column */
	const char *changed;			/* the "after" column */
	const struct sim_param *params;		/* terminated by key == NULL */
	const struct sim_metric *metrics;	/* terminated by key == NULL */
	const struct sim_published *published;	/* terminated by variant == NULL */
	const char *published_source;		/* where the numbers come from */
	/*
	 * Parameters the post does not publish (docs/results.md names them):
	 * `mmsim sensitivity` runs each of their other values.  NULL-terminated
	 * keys of @params, or NULL.
	 */
	const char *const *unpublished;
	/* Further checks across parameters and the profile; 0 or -1 with err. */
	int (*validate)(const struct sim_run_config *cfg, char *err, size_t len);
	/*
	 * Optional: the most virtual memory one run maps at once (bytes), from
	 * which `mmsim` estimates the host memory the run needs and refuses a
	 * run that cannot fit (cli_check_host_memory()).  NULL: negligible.
	 */
	uint64_t (*mapped_bytes)(const struct sim_run_config *cfg);
	/* Run one variant; 0, or -1 with err for an internal failure. */
	int (*run)(const struct sim_run_config *cfg, int variant,
		   struct sim_variant_result *res, char *err, size_t len);
	/* Optional: metrics across variants (e.g. relative to a baseline). */
	void (*finish)(const struct sim_run_config *cfg,
		       struct sim_variant_result *res, int nr);
	/*
	 * Optional: the same workload on the running kernel (its live.c,
	 * src/live/live_internal.h), for `mmsim live` and `mmsim compare`.
	 */
	const struct live_ops *live;
	/*
	 * Live runs: the variant that models the running (mainline) kernel,
	 * which `compare` and `validate` simulate beside it (NULL: @baseline);
	 * the parameter that counts the workload's tasks, which `validate`
	 * sets to each thread count (NULL: a fixed set of tasks); and the
	 * KEY=VALUE settings of a validation run (NULL-terminated, or NULL),
	 * long enough for a stable median where a live default is not.
	 */
	const char *mainline;
	const char *tasks_param;
	const char *const *validate_sets;
};

/* The registry. */
extern const struct scenario_ops *const sim_scenarios[];
const struct scenario_ops *sim_scenario_find(const char *name);
/*
 * What names @s on a command line, for a child process that looks it up
 * again: an experiment's name, a workload file's path, a shipped
 * workload's name.
 */
const char *sim_scenario_arg(const struct scenario_ops *s);
int sim_scenario_param_index(const struct scenario_ops *s, const char *key);
/* The index of parameter @key of @s, or -1 with one line in @err listing the keys. */
int sim_scenario_param_lookup(const struct scenario_ops *s, const char *key, char *err,
			      size_t len);
int sim_scenario_metric_index(const struct scenario_ops *s, const char *key);
int sim_scenario_variant_index(const struct scenario_ops *s, const char *name);

/* @cfg zeroed, then @s at its default parameters on @profile with @seed. */
void sim_run_config_init(struct sim_run_config *cfg, const struct scenario_ops *s,
			 const struct sim_profile *profile, uint64_t seed);
/* The same at the defaults of a live run (sim_param.live_def where given). */
void sim_run_config_init_live(struct sim_run_config *cfg, const struct scenario_ops *s,
			      const struct sim_profile *profile, uint64_t seed);

/*
 * The scenario @name of @registry (with @live, only those with a live
 * form), or NULL with one line in @err: "unknown scenario NAME: expected
 * one of a, b, c".
 */
int sim_scenario_mainline(const struct scenario_ops *s);
const struct scenario_ops *sim_scenario_lookup(const struct scenario_ops *const *registry,
					       const char *name, bool live, char *err,
					       size_t len);

/*
 * Set one parameter of @cfg from "KEY=VALUE" (the text of --set).  Returns
 * the parameter's index, or -1 with one line in @err naming what was wrong
 * (an unknown key lists the scenario's keys).
 */
int sim_run_config_set(struct sim_run_config *cfg, const char *assign, char *err, size_t len);

/* Value of parameter @key in @cfg (the key must exist). */
uint64_t sim_param(const struct sim_run_config *cfg, const char *key);

/* Set metric @key of @res. */
void sim_result_set(const struct scenario_ops *s, struct sim_variant_result *res,
		    const char *key, double value);
/* Copy the engine's counters, lock classes and time into @res. */
void sim_result_collect(struct sim_engine *e, struct sim_variant_result *res);

/*
 * Parse @text as a value of @p.  Returns 0, or -1 with one line in @err that
 * names the value and what was expected.
 */
int sim_param_parse(const struct sim_param *p, const char *text, uint64_t *out,
		    char *err, size_t len);
/* Format a value of @p for output ("16M", "2000", "yes"). */
void sim_param_format(const struct sim_param *p, uint64_t v, char *buf,
		      size_t len);

#endif /* MMSIM_SCENARIO_H */
