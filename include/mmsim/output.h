/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output: one sink for all text, and the printers of a run's results
 * (table, lock table, counters, effective options, JSON, CSV).
 *
 * All printers are deterministic: fixed formats, C locale, no host data
 * except the JSON "host" object.  Tests point a sink at a buffer and
 * compare exact text.
 */
#ifndef MMSIM_OUTPUT_H
#define MMSIM_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmsim/scenario.h"

/*
 * struct sim_out - where text goes: a FILE, or a growing buffer.
 * Invariant: fp == NULL implies buf[len] == '\0' (when buf != NULL).
 */
struct sim_out {
	FILE *fp;			/* the stream, NULL: in memory */
	char *buf;			/* in memory: the text so far */
	size_t len, cap;		/* bytes used, bytes allocated */
	bool failed;			/* a write or an allocation failed */
};

/* The results of one scenario run, as the printers take them. */
struct sim_report {
	const struct sim_run_config *cfg;	/* scenario, profile, params, seed */
	const struct sim_variant_result *res;	/* one per variant run, in column order */
	int nr_res;
	bool reproduce;				/* add the published numbers */
	const char *baseline;			/* --baseline: deltas from it, NULL: the scenario's */
	/* The host's cost (the "host time" line and JSON "host" only): */
	double host_cpu_seconds;		/* CPU, summed over the processes */
	int host_processes;			/* that ran the variants */
	double host_wall_seconds;		/* from the runs' start to the last one's end */
	uint64_t host_events;
	int locks_format;			/* enum sim_locks_format */
};

/* The lock table's layout (--locks-format). */
enum sim_locks_format {
	SIM_LOCKS_PERF,		/* perf lock contention's */
	SIM_LOCKS_LOCK_STAT,	/* /proc/lock_stat's */
};

void sim_out_init_file(struct sim_out *o, FILE *fp);
void sim_out_init_buffer(struct sim_out *o);
void sim_out_release(struct sim_out *o);
/* The text of an in-memory sink ("" when empty). */
const char *sim_out_text(const struct sim_out *o);
void sim_out_write(struct sim_out *o, const char *s, size_t n);
void sim_out_printf(struct sim_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The effective options: scenario, profile, seed, variants, params. */
void sim_print_header(struct sim_out *o, const struct sim_report *r);
/* One row per metric, one column per variant, then delta and published. */
void sim_print_table(struct sim_out *o, const struct sim_report *r);
/* lock_stat-style table of each variant. */
void sim_print_locks(struct sim_out *o, const struct sim_report *r);
void sim_print_lock_stat(struct sim_out *o, const struct sim_report *r);
void sim_print_interrupts(struct sim_out *o, const struct sim_report *r);
void sim_print_vmstat(struct sim_out *o, const struct sim_report *r);
/* --report functions: CPU time by modelled function, one table per variant (output_functions.c). */
void sim_print_functions(struct sim_out *o, const struct sim_report *r);
struct json_t *sim_functions_json(const struct sim_functions *f);
/* The lockdep class name of the model's lock class @name. */
const char *sim_lock_kernel_name(const char *name);
/* Counters that are non-zero in some variant, in enum order. */
void sim_print_counters(struct sim_out *o, const struct sim_report *r);
/* "scenario,variant,metric,value" rows, optionally after a header row. */
void sim_print_csv(struct sim_out *o, const struct sim_report *r, bool header);
/* The JSON document of DESIGN.md section 5 (new reference), NULL on ENOMEM. */
struct json_t *sim_report_json(const struct sim_report *r);
/* Dump @json with mmsim's fixed flags; returns -1 if dumping failed. */
int sim_print_json(struct sim_out *o, struct json_t *json);

/* The published value of @metric for @variant, if the scenario has one. */
bool sim_published_value(const struct scenario_ops *s, const char *variant,
			 const char *metric, double *value);

/* ---- the verdict against the post (src/core/verdict.c) ---- */
enum sim_verdict {
	SIM_NOT_JUDGED,
	SIM_AGREES,
	SIM_SAME_DIRECTION,
	SIM_DISAGREES,
	NR_SIM_VERDICTS
};
extern const char *const sim_verdict_names[NR_SIM_VERDICTS];

/* One published metric, judged. */
struct sim_judgement {
	int metric;			/* index into the scenario's metrics */
	bool has_change;		/* baseline and changed both published */
	double pub_change_pct, sim_change_pct;
	struct sim_band change_band;	/* from the changed variant's entry */
	bool has_band, sign_holds, in_band;
	bool values_hold;		/* every ratio band holds */
	/*
	 * A metric without a change is judged on its values: the first
	 * published value with a ratio band, the simulated value of its
	 * variant, and the band as values (ratio band x published value).
	 */
	bool has_value;			/* !has_change and such a value exists */
	bool has_sim_value;		/* its variant ran and set the metric */
	const char *value_variant;
	double pub_value, sim_value;
	struct sim_band value_band;
	enum sim_verdict verdict;
};

int sim_judge(const struct scenario_ops *s, const struct sim_variant_result *res,
	      int nr, struct sim_judgement *out);
/* The verdict table of a reproduce report and its one-line summary. */
void sim_print_verdict(struct sim_out *o, const struct sim_report *r);
/* {"summary": ..., "metrics": {...}}: a new reference. */
struct json_t *sim_verdict_json(const struct scenario_ops *s,
				const struct sim_variant_result *res, int nr);

/*
 * A result file written whole or not at all: opened at the start of a run
 * (so that a bad path fails before any work) as an unnamed file in PATH's
 * directory, renamed over PATH at the end.  "-" is the caller's standard
 * output; a device or FIFO is written directly and never replaced; a
 * symbolic link is followed (docs/input.md, "Output files").
 */
struct sim_outfile {
	char *path;			/* where it goes: links followed */
	char *tmp;			/* DIR/.mmsim.PID.N.tmp; NULL for "-", direct */
	FILE *fp;			/* tmp file, device, or the stdout stream */
	bool anonymous;			/* O_TMPFILE: tmp is its name only from commit */
	bool direct;			/* a device or FIFO, written in place */
};



int sim_outfile_open(struct sim_outfile *f, const char *opt, const char *path,
		     FILE *stdout_fp, char *err, size_t len);
int sim_outfile_check(const char *opt, const char *path, char *err, size_t len);
int sim_outfile_commit(struct sim_outfile *f, const char *text, size_t n,
		       char *err, size_t len);
void sim_outfile_abort(struct sim_outfile *f);

#endif /* MMSIM_OUTPUT_H */
