/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workload files (docs/workloads.md): parsed once (src/workload/parse.c),
 * resolved against a run's parameters into a plan of concrete numbers
 * (workload_resolve()), and the plan executed on the model
 * (src/workload/sim.c) or on the running kernel (src/workload/live.c).
 *
 * Both executors read only struct wl_plan: what a step means is decided
 * once, here and in workload_resolve().
 */
#ifndef MMSIM_WORKLOAD_H
#define MMSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmsim/scenario.h"

#define WL_MAX_MEMORY		8
#define WL_MAX_TASKS		8	/* task groups */
#define WL_MAX_STEPS		16	/* per list (setup, loop, teardown) of a group */
#define WL_MAX_KEYS		256	/* raw key lines of a file, includes too */
#define WL_NAME_LEN		32
#define WL_TEXT_LEN		512
#define WL_MAX_ALL_TASKS	4096	/* tasks of all groups together */
#define WL_MAX_INCLUDE_DEPTH	8

/* ---- the parsed file ----------------------------------------------------------- */

/*
 * One `key = value` as written (after includes are merged), with where it
 * was written, resolved later: values may hold ${PARAM}.
 */
struct wl_key {
	char section[16];		/* "workload", "param", "memory", "task", "variant" */
	char name[WL_NAME_LEN];		/* the section's NAME, "" for [workload] */
	char key[WL_NAME_LEN];
	char *value;			/* owned */
	char file[256];			/* the file that wrote it */
	int line;
};

/*
 * A parsed workload: its scenario_ops (parameters, variants and metrics as
 * any experiment's) and the raw keys workload_resolve() reads.
 */
struct workload {
	char name[WL_NAME_LEN];
	char path[256];			/* the file, or "builtin:NAME" for a shipped one */
	struct scenario_ops ops;	/* .run, .live: the interpreters */
	struct sim_param params[SIM_MAX_PARAMS + 1];
	struct sim_variant variants[SIM_MAX_VARIANTS + 1];
	struct sim_metric metrics[8];	/* ops.metrics: the generic ones, throughput_bytes_s
					 * with [workload] op_bytes */
	struct mm_variant *mm_variants;	/* [SIM_MAX_VARIANTS], owned */
	struct wl_key keys[WL_MAX_KEYS];
	int nr_keys;
	/* strings the ops and params point into, owned */
	char *strings;
	size_t strings_len, strings_cap;
};

/* ---- the resolved plan ----------------------------------------------------------- */

enum wl_mem_kind { WL_MEM_ANON, WL_MEM_SHMEM, WL_MEM_FILE };

/*
 * A file is filled (written, or read through when sparse and cached) in
 * read()s and write()s of this size, live and in the model alike: the
 * reads' size decides readahead's windows, hence the folio sizes.
 */
#define WL_FILE_IO_BYTES	(64 * 1024)
enum wl_numa { WL_NUMA_LOCAL, WL_NUMA_BIND, WL_NUMA_INTERLEAVE, WL_NUMA_PREFERRED };
enum wl_thp { WL_THP_MADVISE, WL_THP_ALWAYS, WL_THP_NEVER };

struct wl_memory {
	char name[WL_NAME_LEN];
	enum wl_mem_kind kind;
	uint64_t size;			/* bytes, a multiple of page */
	bool shared;			/* MAP_SHARED */
	uint64_t page;			/* 4096, an mTHP size, or 2M (thp: MADV_HUGEPAGE) */
	bool thp;			/* page == 2M through MADV_HUGEPAGE */
	enum wl_numa numa;
	int node;			/* bind, preferred */
	bool per_workload;		/* one object for all tasks */
	bool cached;			/* file, shmem: in the page cache before the run */
	bool sparse;			/* file: no blocks (ftruncate()): a miss zeroes, no I/O */
};

enum wl_op {
	WL_OP_MMAP, WL_OP_MUNMAP, WL_OP_FAULT, WL_OP_ACCESS, WL_OP_MADVISE,
	WL_OP_MPROTECT, WL_OP_FORK, WL_OP_SLEEP, WL_OP_BARRIER, WL_OP_TRUNCATE,
};

enum wl_order { WL_ORDER_SEQ, WL_ORDER_REVERSE, WL_ORDER_RANDOM };
enum wl_pattern { WL_PAT_SEQ, WL_PAT_RANDOM, WL_PAT_ZIPF, WL_PAT_HOT,
		  WL_PAT_SHUFFLED };	/* shuffled: each pass a new permutation of the slots */

struct wl_step {
	enum wl_op op;
	int mem;			/* index into plan.memory, -1: none */
	bool write;			/* fault, access */
	bool counted;			/* its operations are the workload's */
	enum wl_order order;		/* fault */
	enum wl_pattern pattern;	/* access */
	double zipf_s;			/* access pattern=zipf:S */
	double hot_frac, hot_prob;	/* access pattern=hot:P:F: fraction F of the
					 * memory takes fraction P of the accesses */
	uint64_t stride;		/* fault, access: bytes between addresses (default the page) */
	uint64_t nr;			/* fault: addresses (default size / stride); access: accesses */
	uint64_t offset, len;		/* madvise: the range (default the whole memory) */
	int advice;			/* madvise: MADV_* (src/mm/mm.h's values, the uapi's) */
	unsigned int prot;		/* mprotect: PROT_* */
	int task;			/* fork: the group started */
	uint64_t time_ns;		/* sleep */
	uint64_t size;			/* truncate: the new size */
	uint32_t uops;			/* access: the loop's micro-ops per access (overlap
					 * model's reorder buffer), 0: one */
	int line;			/* where it was written, for messages */
};

struct wl_task {
	char name[WL_NAME_LEN];
	int count;
	bool threads;			/* as = threads: one mm for the group */
	int cpu;			/* -1: spread (task i on CPU i % nr_cpus) */
	uint64_t repeat;		/* loop iterations, or 0 with duration_ns */
	uint64_t duration_ns;
	uint64_t start_delay_ns;
	bool start_random_phase;
	bool forked;
	bool until;			/* the loop runs until group until_group's loops end */
	int until_group;
	bool has_loop_at;		/* the loop begins at loop_at_ns after the start */
	uint64_t loop_at_ns;
	struct wl_step setup[WL_MAX_STEPS], loop[WL_MAX_STEPS], teardown[WL_MAX_STEPS];
	int nr_setup, nr_loop, nr_teardown;
};

struct wl_plan {
	const struct workload *w;
	int nr_cpus;			/* of the run */
	uint64_t node_memory;
	enum wl_thp thp;
	int mthp_order;			/* the enabled anon mTHP order, 0: none */
	struct wl_memory memory[WL_MAX_MEMORY];
	int nr_memory;
	struct wl_task task[WL_MAX_TASKS];
	int nr_task;
	int nr_tasks;			/* all tasks of all groups */
	uint64_t op_bytes;		/* [workload] op_bytes: bytes per counted operation, 0: none */
	bool first_fault_in_order;	/* task i's first fault after task i-1's */
	/* khugepaged = yes: the kernel thread runs (sysfs khugepaged/ tunables) */
	bool khugepaged;
	uint64_t khugepaged_pages_to_scan;
	uint64_t khugepaged_scan_sleep_ns;
	uint64_t khugepaged_first_wake_ns;	/* model: its first wake-up */
	uint64_t khugepaged_max_ptes_none;
	int khugepaged_cpu;		/* -1: after the tasks (nr_tasks % nr_cpus) */
};

/* ---- the interface --------------------------------------------------------------- */

/*
 * Parse @path (a file, or a shipped workload's name when it holds no '/'
 * and does not end in .ini), check it by resolving it at its simulated
 * and its live defaults, and build its scenario_ops.  NULL with one line
 * in @err ("FILE:LINE: what was wrong: expected ...").
 */
struct workload *workload_load(const char *path, char *err, size_t len);
void workload_free(struct workload *w);

/* The workload of a scenario built by workload_load(), or NULL for an experiment. */
const struct workload *workload_of(const struct scenario_ops *s);

/*
 * The plan of @w at @cfg's parameters with @nr_cpus CPUs: 0, or -1 with
 * one line in @err naming file, line and what was expected.
 */
int workload_resolve(const struct workload *w, const struct sim_run_config *cfg, int nr_cpus,
		     struct wl_plan *plan, char *err, size_t len);

/*
 * The scenario a command line names, when it is a workload: @name holding
 * '/' or ending in .ini is a file, else a shipped workload's name.  Loaded
 * once per process and kept (the same name gives the same scenario).
 * NULL with @err[0] == '\0' when @name is neither; NULL with one line in
 * @err when the file is bad.
 */
const struct scenario_ops *workload_scenario(const char *name, char *err, size_t len);
/*
 * The plan of shipped workload @name at experiment run @cfg (its parameters
 * by name), on @nr_cpus CPUs: calloc()ed, or NULL with one line in @err.
 */
struct wl_plan *workload_plan_for(const char *name, const struct sim_run_config *cfg,
				  int nr_cpus, char *err, size_t len);
/* Whether @name names a file rather than a scenario (has '/' or ends in .ini). */
bool workload_names_file(const char *name);

/* The live executor (src/workload/live.c): every workload's scenario_ops.live. */
struct live_ops;
extern const struct live_ops workload_live;

/* Shipped workloads (workloads/ *.ini, embedded at build time). */
struct wl_builtin {
	const char *name;		/* the file name without .ini */
	const char *text;
};
extern const struct wl_builtin wl_builtins[];	/* terminated by name == NULL */
/* The text of shipped workload @name, or NULL. */
const char *workload_builtin_text(const char *name);

/*
 * The simulated executor: run @plan on a fresh engine and model of
 * variant @v, counting operations into @out; @collect (optional) is called
 * with the engine and model after the run, before they are freed, for an
 * experiment's own metrics.  0, or -1 with err.
 */
struct sim_engine;
struct mm_model;
struct mm_variant;

struct wl_sim_out {
	uint64_t ops;			/* all tasks' counted operations */
	double ops_per_task_s;		/* mean over tasks of ops / loop time */
	double ops_per_s;
	double runtime_s;		/* the longest counted task's loop (res: the makespan) */
	uint64_t loop_ps;		/* the longest loop of a counted task */
	uint64_t loop_dtlb_walks;	/* page walks of the counted tasks' CPUs' TLBs
					 * during their loops (dtlb_load_misses) */
};

struct wl_sim_hooks {
	/* before the tasks start: model settings an experiment adds */
	void (*setup)(struct mm_model *m, const struct sim_run_config *cfg);
	void (*collect)(struct sim_engine *e, struct mm_model *m,
			const struct sim_run_config *cfg, struct sim_variant_result *res);
};

int workload_sim_run(const struct wl_plan *plan, const struct sim_run_config *cfg,
		     const struct mm_variant *v, const struct wl_sim_hooks *hooks,
		     struct sim_variant_result *res, struct wl_sim_out *out,
		     char *err, size_t len);

/* The live executor's access loop, timed over data in L1 (mmsim calibrate). */
int wl_live_loop_ns(enum wl_pattern pattern, uint64_t accesses, double *ns);

#endif /* MMSIM_WORKLOAD_H */
