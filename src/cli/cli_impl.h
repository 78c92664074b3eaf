/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command line's private interface, shared by cli.c (dispatch),
 * commands.c (the command table), options.c (the options, parsed into
 * the harness's struct plan_args), runner.c (running scenarios through the
 * harness's plan and pool, src/harness/harness.h), the commands
 * (cmd-NAME.c), plot.c (charts through gnuplot) and progress.c (the
 * progress line).  Nothing here is part of the public API in include/mmsim/.
 */
#ifndef MMSIM_CLI_IMPL_H
#define MMSIM_CLI_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"
#include "harness/harness.h"

#define CLI_ERR		512

struct cli;

/* Which subcommands take an option (struct cli_opt_desc.cmds). */
#define CLI_RUN		0x1
#define CLI_REPRO	0x2
#define CLI_SWEEP	0x4
#define CLI_MERGE	0x8
#define CLI_SENS	0x10	/* sensitivity */


/* X(id, name, argument, subcommands, help) */
#define CLI_OPTIONS(X)                                                          \
	X(SET, "--set", "KEY=VALUE", CLI_RUN | CLI_SWEEP | CLI_REPRO | CLI_SENS, \
	  "a parameter; repeatable; values with units (16M, 2G, 10ms)")       \
	X(VARIANT, "--variant", "NAME", CLI_RUN | CLI_SWEEP,                    \
	  "run only this variant; repeatable; default: all variants")         \
	X(PROFILE, "--profile", "NAME|FILE", CLI_RUN | CLI_SWEEP | CLI_REPRO | CLI_SENS, \
	  "another machine: a builtin profile or an INI file")                \
	X(COST, "--cost", "SECTION.KEY=VALUE", CLI_RUN | CLI_SWEEP | CLI_REPRO | CLI_SENS, \
	  "override one value of the profile (e.g. "                          \
	  "cache.remote_transfer_ns=100); repeatable; the header shows it")   \
	X(SEED, "--seed", "N", CLI_RUN | CLI_REPRO | CLI_SWEEP | CLI_SENS,      \
	  "random seed; default 1 (sweep: the base of every point's seed)")   \
	X(JSON, "--json", "FILE", CLI_RUN | CLI_REPRO | CLI_SENS,               \
	  "write the results as JSON (\"-\": standard output, no table)")     \
	X(CSV, "--csv", "FILE", CLI_RUN | CLI_REPRO | CLI_SWEEP | CLI_MERGE,    \
	  "one row per variant and metric (\"-\": standard output, no table)") \
	X(QUIET, "--quiet", NULL, CLI_RUN | CLI_REPRO, "only the table")         \
	X(CHECK, "--check", NULL, CLI_RUN | CLI_REPRO | CLI_SWEEP | CLI_SENS,   \
	  "run the model's invariant checks (slow)")                          \
	X(VARY, "--vary", "KEY=V1,V2,...", CLI_SWEEP,                           \
	  "a parameter's values; repeatable; the grid is their product")      \
	X(SEEDS, "--seeds", "N", CLI_SWEEP | CLI_RUN | CLI_REPRO,               \
	  "seeds per grid point (sweep), or run every variant with seeds "     \
	  "SEED..SEED+N-1 and print mean +- 95% confidence interval (run, "    \
	  "reproduce); default 1")                                            \
	X(BASELINE, "--baseline", "VARIANT", CLI_RUN,                           \
	  "the change of every other variant from this one (default: the "     \
	  "scenario's before -> after)")                                       \
	X(JOBS, "--jobs", "J", CLI_SWEEP | CLI_RUN | CLI_REPRO | CLI_SENS,      \
	  "run up to J points (sweep, sensitivity) or variants (run, reproduce) at a time, " \
	  "each in its own process; default 1 for sweep, the host's CPUs for " \
	  "the others (the results do not depend on it)")                     \
	X(PLOT, "--plot", "FILE|DIR", CLI_SWEEP | CLI_REPRO | CLI_SENS,         \
	  "sweep, sensitivity: FILE.svg or .png through gnuplot; reproduce: "  \
	  "DIR/SCENARIO.svg")                                                  \
	X(SHARD, "--shard", "I/N", CLI_SWEEP | CLI_SENS,                        \
	  "run only the I-th (1-based) of N parts of the points (sweep: equal " \
	  "blocks; sensitivity: every N-th point from the I-th)")              \
	X(EMIT_JOBS, "--emit-jobs", "N", CLI_SWEEP,                             \
	  "print the N commands of a sweep split into N shards; run nothing")  \
	X(MERGE_N, "--merge", "N", CLI_SWEEP,                                   \
	  "join the N parts --emit-jobs N named into --csv FILE; name any "   \
	  "shard or run that is missing; run nothing")                        \
	X(SLURM, "--slurm", "DIR", CLI_SWEEP,                                   \
	  "with --emit-jobs N: write DIR/jobs.txt, a Slurm array of N tasks " \
	  "(DIR/array.sbatch) and its merge (DIR/merge.sbatch)")              \
	X(SUBMIT, "--submit", NULL, CLI_SWEEP,                                  \
	  "with --slurm: sbatch the array, then the merge after it; print "   \
	  "the job ids")                                                      \
	X(TRACE, "--trace", "FILE", CLI_RUN,                                    \
	  "a Chrome trace-event timeline (Perfetto); one file, a process per variant") \
	X(TRACE_LIMIT, "--trace-limit", "N", CLI_RUN,                           \
	  "stop recording the trace after N events; default 1000000")         \
	X(VMSTAT, "--vmstat", NULL, CLI_RUN | CLI_REPRO,                         \
	  "also print each variant's vmstat counters as /proc/vmstat does")    \
	X(REPORT, "--report", "functions", CLI_RUN | CLI_REPRO,                 \
	  "also print each variant's virtual CPU time by modelled kernel "     \
	  "function, self and children, as perf report --children")            \
	X(LOCKS_FORMAT, "--locks-format", "perf|lock_stat", CLI_RUN | CLI_REPRO, \
	  "the lock table as perf lock contention prints it (default: "       \
	  "contended locks by total wait) or as /proc/lock_stat (every lock taken)")

enum cli_opt_id {
#define CLI_OPT_ENUM(id, name, arg, cmds, help) CLI_OPT_##id,
	CLI_OPTIONS(CLI_OPT_ENUM)
#undef CLI_OPT_ENUM
	NR_CLI_OPTS
};

/* One option: its name, its argument (NULL: a flag), the commands that take it. */
struct cli_opt_desc {
	const char *name;
	const char *arg;		/* NULL: a flag */
	unsigned cmds;			/* CLI_RUN, CLI_REPRO, CLI_SWEEP, CLI_MERGE, CLI_SENS */
	const char *help;
};

extern const struct cli_opt_desc cli_opts[NR_CLI_OPTS];	/* options.c */

/* What a command's operands are, for the completion script. */
enum cli_operand {
	CLI_OPERAND_NONE,
	CLI_OPERAND_SCENARIO,
	CLI_OPERAND_PROFILE,		/* a builtin profile or a file */
	CLI_OPERAND_COMMAND,
	CLI_OPERAND_FILE,
};

/*
 * One command: a row of cli_cmds[] (commands.c), which dispatch, help, man
 * and completion read.  Adding a command is its cmd-NAME.c and one row.
 */
struct cli_cmd {
	const char *name;
	int (*fn)(struct cli *c, int argc, char **argv);	/* argv[0] is the name */
	const char *summary;		/* one line, for help and man */
	const char *usage;		/* its operands and options, "" for none */
	unsigned opts;			/* its bit in cli_opt_desc.cmds, 0: none */
	enum cli_operand operand;	/* what completes its operands */
	bool own_help;			/* parses its own options and --help */
};

extern const struct cli_cmd cli_cmds[];	/* commands.c, ends with a NULL name */

/* The commands, one file each (cmd-NAME.c). */
int cmd_list(struct cli *c, int argc, char **argv);
int cmd_show(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);
int cmd_reproduce(struct cli *c, int argc, char **argv);
int cmd_sweep(struct cli *c, int argc, char **argv);
int cmd_merge(struct cli *c, int argc, char **argv);
int cmd_diff(struct cli *c, int argc, char **argv);
int cmd_sensitivity(struct cli *c, int argc, char **argv);
int cmd_profiles(struct cli *c, int argc, char **argv);
int cmd_calibrate(struct cli *c, int argc, char **argv);
int cmd_live(struct cli *c, int argc, char **argv);
int cmd_compare(struct cli *c, int argc, char **argv);
int cmd_validate(struct cli *c, int argc, char **argv);
int cli_validate_dry_run(struct cli *c, int argc, char **argv);
int cmd_help(struct cli *c, int argc, char **argv);
int cmd_version(struct cli *c, int argc, char **argv);
int cmd_man(struct cli *c, int argc, char **argv);
int cmd_completion(struct cli *c, int argc, char **argv);

/* cmd-help.c: `mmsim help NAME`, also NAME --help; 0 or 2. */
int cli_help_command(struct cli *c, const char *name);

/* The invocation: the registry and the streams. */
struct cli {
	const struct scenario_ops *const *registry;
	FILE *out, *err;
	const char *prog;		/* argv[0], for commands we print */
	char msg[CLI_ERR];		/* the error line, without "mmsim: error: " */
};

/* Where the results of the scenarios of one command go. */
struct cli_sinks {
	struct sim_out text;		/* table and the rest, or nothing */
	bool text_on;
	json_t *json;			/* run: the document; reproduce: an array */
	struct sim_out csv;		/* in memory until the end */
	bool csv_header_done;
	struct sim_outfile trace_f;	/* --trace: one file, a process per variant run */
	struct sim_out trace;		/* its text until the end */
	uint64_t trace_events, trace_dropped;
	bool trace_truncated;
	int plot_ret;			/* reproduce --plot failed: its code */
	char plot_msg[CLI_ERR];
};

/* options.c */
int cli_fail(struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const struct scenario_ops *cli_find_scenario(struct cli *c, const char *name);
void cli_show_params(struct cli *c, const struct scenario_ops *s);
void cli_append_names(struct cli *c, const char *const *names);
/* The run's --set and --cost, as given: "--set a=1 --cost b.c=2", "" for none. */
void cli_settings_text(const struct plan_args *a, char *buf, size_t len);
int cli_parse_args(struct cli *c, int argc, char **argv, unsigned cmd,
		   const char *cmd_name, struct plan_args *a);

/* runner.c */
int cli_run_all(struct cli *c, const struct scenario_ops **scn, int nr_scn,
		const struct plan_args *a, bool reproduce);
void cli_sinks_add_json(struct cli_sinks *k, json_t *doc, bool reproduce);
void cli_sinks_add_rows(struct cli *c, const struct plan_args *a, struct cli_sinks *k,
			const struct sim_report *rep, bool reproduce);
/* Refuse two of the @nr output files @path (given by options @opt) that are one file; 0 or 2. */
int cli_outputs_distinct(struct cli *c, const char *const *opt, const char *const *path, int nr);
/* The "host time: CPU time ... , wall time ..." line of @r, after an empty line. */
void cli_print_host_time(struct sim_out *o, const struct sim_report *r);

/* cmd-sweep.c */
void cli_path_insert(const char *path, const char *ins, char *buf, size_t len);

/* cmd-merge.c: one CSV input of merge, read whole (at most 256 MB). */
struct merge_file {
	const char *path;
	char *text;
	size_t len;
	const char *rows;		/* after the header */
};

int cli_merge_read(struct cli *c, struct merge_file *f);

/* cluster.c: a command split into shards, run by GNU parallel or Slurm. */
struct cli_shards {
	const char *cmd;		/* the subcommand, "sweep" */
	const char *name;		/* for job names: the scenario */
	int argc;			/* the subcommand's arguments, as given */
	char **argv;			/* argv[0] is cmd */
	uint64_t n;			/* shards, >= 1 */
	const char *base;		/* the merged CSV; parts are cli_shard_part() */
	uint64_t cpus;			/* CPUs per shard (its --jobs) */
};

void cli_shard_part(const char *base, uint64_t i, uint64_t n, char *buf, size_t len);
int cli_shards_emit(struct cli *c, FILE *f, const struct cli_shards *sh);
int cli_shards_slurm(struct cli *c, const struct cli_shards *sh, const char *dir,
		     bool submit);
int cli_shards_check(struct cli *c, const struct plan_args *a);

/* plot.c: one line of a sweep chart, as gnuplot draws it. */
struct plot_series {
	char title[128];		/* "before", or "before, mthp=64K" */
	int nr;				/* points */
	double *x, *mean, *lo, *hi;	/* [nr] */
};

/* One chart: a metric against the first varied key. */
struct plot_chart {
	char title[96];			/* above the chart, "": none */
	char ylabel[96];		/* the metric's label, with its unit */
	struct plot_series *series;
	int nr_series;
};

/* The x axis shared by every chart. */
struct plot_axis {
	char label[64];			/* the varied key */
	int nr;
	double *pos;			/* [nr] tic positions */
	char (*text)[32];		/* [nr] tic labels */
	bool log2;			/* logarithmic, base 2 */
};

int cli_plot_sweep(struct cli *c, const char *path, const char *title,
		   const struct plot_axis *axis, const struct plot_chart *charts,
		   int nr_charts);
int cli_plot_reproduce(struct cli *c, const char *dir,
		       const struct sim_report *r, const char *settings);
void cli_plot_tick_label(double v, char *buf, size_t len);
int cli_plot_check_path(struct cli *c, const char *path);

/* A tornado chart: one bar per assumption, from its low end's to its high end's value. */
struct cli_tornado_bar {
	char label[64];
	double lo, hi;			/* the answer at the low and at the high end */
};

struct cli_tornado {
	char title[160];
	double base;			/* the answer at the defaults */
	double pub;			/* the published answer, NAN: none */
	struct cli_tornado_bar *bars;
	int nr;
};

int cli_plot_tornado(struct cli *c, const char *path, const char *title,
		     const struct cli_tornado *charts, int nr_charts);

/* progress.c */
void cli_progress_begin(struct cli *c, const char *what, int nr_steps);
void cli_progress_step(int step);
void cli_progress_end(void);
double cli_progress_eta(double share, double elapsed);
void cli_progress_format(char *buf, size_t len, const char *what, double share,
			 double elapsed);
void cli_progress_set_clock(double (*now)(void));

/* runner.c: plan_run_pool() with the progress line ("run", "reproduce", ...); 0 or 1. */
int cli_run_pool(struct cli *c, struct plan_scenario *scn, int nr, uint64_t jobs,
		 const char *what);

/* stats.c: --seeds N on run and reproduce */
int cli_report_seeds(struct cli *c, struct plan_scenario *p, int nr_seeds,
		     const struct plan_args *a, bool reproduce, struct cli_sinks *k);
double cli_t975(int df);
void cli_stats(const double *x, int n, double *mean, double *sd, double *ci);

#endif /* MMSIM_CLI_IMPL_H */
