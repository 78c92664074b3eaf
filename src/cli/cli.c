// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command line: subcommands, options, and running a scenario.
 *
 *   mmsim list | show SCENARIO | run SCENARIO [options]
 *         reproduce [SCENARIO...] | profiles [NAME] | live ... | compare ...
 *
 * The subcommands (cli_cmds[]) and the options (CLI_OPTIONS) are tables;
 * the help text and every "unknown ..." error are generated from them and
 * from the scenario registry, which is a parameter so that tests can pass
 * their own.  A user's mistake travels back as -1 with one line of text;
 * mmsim_main() prints it as "mmsim: error: ..." and returns 2.  A
 * scenario's run() failing is an internal failure: exit code 1.
 *
 * The host clock (CLOCK_MONOTONIC) is read here and only here, around the
 * runs, for the "host time" line and the JSON "host" object.  Nothing it
 * returns reaches the table, the CSV or the model.
 */
#include <inttypes.h>
#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "live/live.h"
#include "live/live_internal.h"	/* live_host_profile() */
#include "mm/access.h"
#include "mm/mm.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/trace.h"

/* X(id, name, argument, subcommands, help) */
#define CLI_OPTIONS(X)                                                          \
	X(SET, "--set", "KEY=VALUE", CLI_RUN | CLI_SWEEP | CLI_REPRO,           \
	  "a parameter; repeatable; values with units (16M, 2G, 10ms)")       \
	X(VARIANT, "--variant", "NAME", CLI_RUN | CLI_SWEEP,                    \
	  "run only this variant; repeatable; default: all variants")         \
	X(PROFILE, "--profile", "NAME|FILE", CLI_RUN | CLI_SWEEP | CLI_REPRO,   \
	  "another machine: a builtin profile or an INI file")                \
	X(COST, "--cost", "SECTION.KEY=VALUE", CLI_RUN | CLI_SWEEP | CLI_REPRO, \
	  "override one value of the profile (e.g. "                          \
	  "cache.remote_transfer_ns=100); repeatable; the header shows it")   \
	X(SEED, "--seed", "N", CLI_RUN | CLI_REPRO | CLI_SWEEP,                 \
	  "random seed; default 1 (sweep: the base of every point's seed)")   \
	X(JSON, "--json", "FILE", CLI_RUN | CLI_REPRO,                          \
	  "write the results as JSON (\"-\": standard output, no table)")     \
	X(CSV, "--csv", "FILE", CLI_RUN | CLI_REPRO | CLI_SWEEP | CLI_MERGE,    \
	  "one row per variant and metric (\"-\": standard output, no table)") \
	X(QUIET, "--quiet", NULL, CLI_RUN | CLI_REPRO, "only the table")         \
	X(CHECK, "--check", NULL, CLI_RUN | CLI_REPRO | CLI_SWEEP,              \
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
	X(JOBS, "--jobs", "J", CLI_SWEEP | CLI_RUN | CLI_REPRO,                 \
	  "run up to J points (sweep) or variants (run, reproduce) at a time, " \
	  "each in its own process; default 1 for sweep, the host's CPUs for " \
	  "run and reproduce (the results do not depend on it)")              \
	X(PLOT, "--plot", "FILE|DIR", CLI_SWEEP | CLI_REPRO,                    \
	  "sweep: FILE.svg or .png through gnuplot; reproduce: DIR/SCENARIO.svg") \
	X(SHARD, "--shard", "I/N", CLI_SWEEP,                                   \
	  "run only the I-th (1-based) of N equal parts of the points")       \
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
	X(LOCKS_FORMAT, "--locks-format", "perf|lock_stat", CLI_RUN | CLI_REPRO, \
	  "the lock table as perf lock contention prints it (default: "       \
	  "contended locks by total wait) or as /proc/lock_stat (every lock taken)")

enum cli_opt_id {
#define CLI_OPT_ENUM(id, name, arg, cmds, help) CLI_OPT_##id,
	CLI_OPTIONS(CLI_OPT_ENUM)
#undef CLI_OPT_ENUM
	NR_CLI_OPTS
};

struct cli_opt_desc {
	const char *name;
	const char *arg;		/* NULL: a flag */
	unsigned cmds;			/* CLI_RUN, CLI_REPRO, CLI_SWEEP, CLI_MERGE */
	const char *help;
};

static const struct cli_opt_desc cli_opts[NR_CLI_OPTS] = {
#define CLI_OPT_ROW(id, n, a, c, h) [CLI_OPT_##id] = { n, a, c, h },
	CLI_OPTIONS(CLI_OPT_ROW)
#undef CLI_OPT_ROW
};

struct cli_cmd {
	const char *name;
	const char *usage;
	const char *help;
	int (*fn)(struct cli *c, int argc, char **argv);
};

static const struct cli_cmd cli_cmds[];
static int cmd_live(struct cli *c, int argc, char **argv);
static int cmd_compare(struct cli *c, int argc, char **argv);

/**
 * cli_fail() - remember a user's mistake
 * @c: the invocation
 * @fmt: printf format of the line, without "mmsim: error: "
 *
 * Return: 2, the exit code of bad input.
 */
int cli_fail(struct cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return 2;
}

/* ---- look-ups over the registry ---------------------------------------- */

/**
 * cli_find_scenario() - a scenario of the registry by name
 * @c: the invocation; c->msg gets the error
 * @name: the name the user gave
 *
 * Return: the scenario, or NULL with c->msg naming the expected ones.
 */
const struct scenario_ops *cli_find_scenario(struct cli *c, const char *name)
{
	int i;
	size_t n;

	for (i = 0; c->registry[i]; i++)
		if (!strcmp(c->registry[i]->name, name))
			return c->registry[i];
	if (!c->registry[0]) {
		snprintf(c->msg, sizeof(c->msg),
			 "unknown scenario %s: no scenario is built yet", name);
		return NULL;
	}
	n = (size_t)snprintf(c->msg, sizeof(c->msg),
			     "unknown scenario %s: expected one of", name);
	for (i = 0; c->registry[i] && n < sizeof(c->msg); i++)
		n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
				      i ? "," : "", c->registry[i]->name);
	return NULL;
}

/**
 * cli_append_names() - append " a, b, c" to c->msg
 * @c: the invocation
 * @names: NULL-terminated names
 */
static void cli_append_names(struct cli *c, const char *const *names)
{
	size_t n = strlen(c->msg);
	int i;

	for (i = 0; names && names[i] && n < sizeof(c->msg); i++)
		n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
				      i ? "," : "", names[i]);
}

/* ---- options -------------------------------------------------------------- */

static int cli_parse_seed(struct cli *c, const char *text, uint64_t *seed)
{
	static const struct sim_param seed_param = {
		.key = "--seed", .type = SIM_PARAM_COUNT, .min = 0,
		.max = UINT64_MAX,
	};

	if (sim_param_parse(&seed_param, text, seed, c->msg, sizeof(c->msg)))
		return -1;
	return 0;
}

/*
 * Append @val to a repeatable option's list (@list, *@nr of @max used).
 * Returns 0, or 2 with c->msg set when the list is full.
 */
static int cli_push(struct cli *c, const char **list, int *nr, int max, const char *opt,
		    const char *val)
{
	if (*nr >= max)
		return cli_fail(c, "%s %s: too many %s (at most %d)", opt, val, opt, max);
	list[(*nr)++] = val;
	return 0;
}

/**
 * cli_parse_args() - parse the options and operands of a subcommand
 * @c: the invocation
 * @argc: argument count, argv[0] is the subcommand
 * @argv: the arguments
 * @cmd: the subcommand's bit (CLI_RUN, CLI_REPRO, CLI_SWEEP, CLI_MERGE)
 * @cmd_name: its name, for errors
 * @a: the result
 *
 * Options take "--opt VALUE" or "--opt=VALUE".
 *
 * Return: 0, or 2 with c->msg filled.
 */
int cli_parse_args(struct cli *c, int argc, char **argv, unsigned cmd,
			  const char *cmd_name, struct cli_args *a)
{
	int i, k, id;

	memset(a, 0, sizeof(*a));
	a->seed = 1;
	a->seeds = 1;
	a->jobs = 0;		/* set after parsing: see cli_default_jobs() */
	a->trace_limit = 1000000;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		char jobs[64];
		size_t n;

		if (!strncmp(arg, "-j", 2)) {	/* -j N and -jN, as make's */
			snprintf(jobs, sizeof(jobs), "--jobs%s%.40s", arg[2] ? "=" : "", arg + 2);
			arg = jobs;
		}

		if (arg[0] != '-' || !strcmp(arg, "-")) {
			if (a->nr_pos >= CLI_MAX_POS)
				return cli_fail(c, "%s: too many operands (at most %d)",
						cmd_name, CLI_MAX_POS);
			a->pos[a->nr_pos++] = arg;
			continue;
		}
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		for (id = 0; id < NR_CLI_OPTS; id++)
			if (strlen(cli_opts[id].name) == n &&
			    !strncmp(cli_opts[id].name, arg, n))
				break;
		if (id == NR_CLI_OPTS || !(cli_opts[id].cmds & cmd)) {
			size_t m;

			m = (size_t)snprintf(c->msg, sizeof(c->msg),
					     "unknown option %.*s for %s: expected one of",
					     (int)n, arg, cmd_name);
			for (k = 0, id = 0; id < NR_CLI_OPTS && m < sizeof(c->msg); id++)
				if (cli_opts[id].cmds & cmd)
					m += (size_t)snprintf(c->msg + m, sizeof(c->msg) - m,
							      "%s %s", k++ ? "," : "",
							      cli_opts[id].name);
			return 2;
		}
		if (cli_opts[id].arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return cli_fail(c, "%s: expected %s after it",
						cli_opts[id].name, cli_opts[id].arg);
		} else if (eq) {
			return cli_fail(c, "%s: takes no value, got %s",
					cli_opts[id].name, eq + 1);
		}
		switch ((enum cli_opt_id)id) {
		case CLI_OPT_SET:
			if (!strchr(val, '=') || val[0] == '=')
				return cli_fail(c, "--set %s: expected KEY=VALUE", val);
			if (cli_push(c, a->sets, &a->nr_sets, CLI_MAX_SETS, "--set", val))
				return 2;
			break;
		case CLI_OPT_COST:
			if (cli_push(c, a->costs, &a->nr_costs, CLI_MAX_SETS, "--cost", val))
				return 2;
			break;
		case CLI_OPT_VARIANT:
			for (k = 0; k < a->nr_variants; k++)
				if (!strcmp(a->variants[k], val))
					return cli_fail(c, "--variant %s: given twice", val);
			if (a->nr_variants >= SIM_MAX_VARIANTS)
				return cli_fail(c, "--variant %s: too many variants (at most %d)",
						val, SIM_MAX_VARIANTS);
			a->variants[a->nr_variants++] = val;
			break;
		case CLI_OPT_BASELINE:
		case CLI_OPT_PROFILE:
		case CLI_OPT_JSON:
		case CLI_OPT_CSV:
		case CLI_OPT_PLOT:
		case CLI_OPT_SLURM:
		case CLI_OPT_TRACE: {
			const char **slot = id == CLI_OPT_BASELINE ? &a->baseline :
					    id == CLI_OPT_PROFILE ? &a->profile :
					    id == CLI_OPT_JSON ? &a->json :
					    id == CLI_OPT_CSV ? &a->csv :
					    id == CLI_OPT_PLOT ? &a->plot :
					    id == CLI_OPT_SLURM ? &a->slurm : &a->trace;

			if (*slot)
				return cli_fail(c, "%s %s: given twice (first %s)",
						cli_opts[id].name, val, *slot);
			if (!*val)
				return cli_fail(c, "%s: expected %s, got an empty value",
						cli_opts[id].name, cli_opts[id].arg);
			*slot = val;
			break;
		}
		case CLI_OPT_SEED:
			if (a->seed_given)
				return cli_fail(c, "--seed %s: given twice", val);
			if (cli_parse_seed(c, val, &a->seed))
				return 2;
			a->seed_given = true;
			break;
		case CLI_OPT_QUIET:
			a->quiet = true;
			break;
		case CLI_OPT_VMSTAT:
			a->vmstat = true;
			break;
		case CLI_OPT_LOCKS_FORMAT:
			if (!strcmp(val, "perf"))
				a->locks_format = SIM_LOCKS_PERF;
			else if (!strcmp(val, "lock_stat"))
				a->locks_format = SIM_LOCKS_LOCK_STAT;
			else
				return cli_fail(c, "--locks-format %s: expected perf or lock_stat", val);
			break;
		case CLI_OPT_VARY:
			if (cli_push(c, a->vary, &a->nr_vary, SIM_MAX_PARAMS, "--vary", val))
				return 2;
			break;
		case CLI_OPT_SEEDS:
		case CLI_OPT_JOBS:
		case CLI_OPT_EMIT_JOBS:
		case CLI_OPT_MERGE_N:
		case CLI_OPT_TRACE_LIMIT: {
			struct sim_param np = {
				.key = cli_opts[id].name, .type = SIM_PARAM_COUNT,
				.min = 1, .max = id == CLI_OPT_TRACE_LIMIT ? 100000000 : 10000,
			};
			uint64_t *slot = id == CLI_OPT_SEEDS ? &a->seeds :
					 id == CLI_OPT_JOBS ? &a->jobs :
					 id == CLI_OPT_EMIT_JOBS ? &a->emit_jobs :
					 id == CLI_OPT_MERGE_N ? &a->merge_n :
					 &a->trace_limit;

			if (sim_param_parse(&np, val, slot, c->msg, sizeof(c->msg)))
				return 2;
			break;
		}
		case CLI_OPT_SHARD: {
			char *end;
			unsigned long long i, n;

			errno = 0;
			i = strtoull(val, &end, 10);
			if (val[0] < '0' || val[0] > '9' || *end != '/' ||
			    end[1] < '0' || end[1] > '9')
				return cli_fail(c, "--shard %s: expected I/N, e.g. 2/4", val);
			n = strtoull(end + 1, &end, 10);
			if (*end || errno || n < 1 || n > 10000 || i < 1 || i > n)
				return cli_fail(c, "--shard %s: expected I/N with 1 <= I <= N <= 10000",
						val);
			a->shard_i = i;
			a->shard_n = n;
			break;
		}
		case CLI_OPT_CHECK:
			a->check = true;
			break;
		case CLI_OPT_SUBMIT:
			a->submit = true;
			break;
		case NR_CLI_OPTS:
			break;
		}
	}
	if (a->json && a->csv && !strcmp(a->json, "-") && !strcmp(a->csv, "-"))
		return cli_fail(c, "--json - and --csv -: expected at most one of them on standard output");
	if (a->json && a->csv && strcmp(a->json, "-") && !strcmp(a->json, a->csv))
		return cli_fail(c, "--json %s and --csv %s: expected two different files",
				a->json, a->csv);
	return 0;
}

/* ---- running a scenario --------------------------------------------------- */

/**
 * cli_host_seconds() - the host's monotonic clock, in seconds
 *
 * Only the command line reads the host clock; nothing it returns reaches
 * the model or a result file.
 *
 * Return: seconds since an arbitrary start.
 */
double cli_host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Host bytes of model state per page mapped at once: its PTE and, at worst
 * (order-0 folios), a struct folio of its own; per 512 pages (a PMD) a
 * page-table lock, a huge-folio pointer and a flag byte (vma_alloc()).
 */
#define CLI_HOST_BYTES_PER_PAGE	(sizeof(pte_t) + sizeof(struct folio))
#define CLI_HOST_BYTES_PER_PMD	(sizeof(struct spinlock) + sizeof(struct folio *) + 1)
/* What a run needs whatever it maps: engine, stacks, TLBs, tables. */
#define CLI_HOST_BYTES_BASE	((uint64_t)64 << 20)

/**
 * cli_host_bytes_estimate() - host memory one run of @cfg needs, roughly
 * @cfg: the run's configuration
 *
 * The model's state grows with the memory the run maps at once (the
 * scenario's mapped_bytes()), and with the data caches of the overlap model
 * (one 8-byte tag per 64-byte line of every L1D, L2 and L3).
 * Return: bytes.
 */
uint64_t cli_host_bytes_estimate(const struct sim_run_config *cfg)
{
	const struct scenario_ops *s = cfg->scenario;
	const struct sim_profile *p = cfg->profile;
	uint64_t pages = s->mapped_bytes ? s->mapped_bytes(cfg) >> PAGE_SHIFT : 0;
	uint64_t bytes = CLI_HOST_BYTES_BASE + pages * CLI_HOST_BYTES_PER_PAGE +
			 (pages >> HPAGE_PMD_ORDER) * CLI_HOST_BYTES_PER_PMD;

	if (p && p->mem_overlap) {
		uint64_t cores = p->topology_sockets * p->topology_cores_per_socket;
		uint64_t kib = cores * (p->cache_l1d_kib + p->cache_l2_kib) +
			       p->topology_sockets * p->cache_l3_kib;

		bytes += kib * 1024 / 64 * sizeof(uint64_t);
	}
	return bytes;
}

/* Physical memory of this host, bytes; UINT64_MAX when unknown. */
static uint64_t cli_host_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);

	if (pages <= 0 || size <= 0)
		return UINT64_MAX;
	return (uint64_t)pages * (uint64_t)size;
}

/**
 * cli_validate() - the scenario's checks of @cfg, then whether it fits
 * @c: the invocation (c->msg gets the error)
 * @cfg: a run's configuration
 *
 * A run whose model state cannot fit in this host's memory would grow until
 * an allocation fails; it is refused before it starts, with the estimate.
 * Return: 0, or 2 with c->msg set.
 */
int cli_validate(struct cli *c, const struct sim_run_config *cfg)
{
	const struct scenario_ops *s = cfg->scenario;
	uint64_t need, have;

	if (s->validate && s->validate(cfg, c->msg, sizeof(c->msg)))
		return 2;
	need = cli_host_bytes_estimate(cfg);
	have = cli_host_memory();
	if (need > have)
		return cli_fail(c, "the run needs about %.1f GiB of host memory for the model's state (%" PRIu64
				" MiB mapped at once, %zu bytes per page): this host has %.1f GiB: expected a smaller run",
				(double)need / (double)(1ULL << 30),
				(s->mapped_bytes ? s->mapped_bytes(cfg) : 0) >> 20,
				CLI_HOST_BYTES_PER_PAGE, (double)have / (double)(1ULL << 30));
	return 0;
}

/**
 * cli_configure() - the configuration of a run: defaults, --set, checks
 * @c: the invocation
 * @s: the scenario
 * @a: the options
 * @cfg: the result; cfg->profile is left as the caller set it
 *
 * Return: 0, or 2 with c->msg filled.
 */
int cli_configure(struct cli *c, const struct scenario_ops *s,
			 const struct cli_args *a, struct sim_run_config *cfg)
{
	bool given[SIM_MAX_PARAMS] = { false };
	int i, k;

	sim_run_config_init(cfg, s, cfg->profile, a->seed);
	cfg->check = a->check;
	for (k = 0; k < a->nr_sets; k++) {
		i = sim_run_config_set(cfg, a->sets[k], c->msg, sizeof(c->msg));
		if (i < 0)
			return 2;
		if (given[i])
			return cli_fail(c, "--set %s: %s given twice", a->sets[k], s->params[i].key);
		given[i] = true;
	}
	return cli_validate(c, cfg);
}

/**
 * cli_select_variants() - the variants to run, in the scenario's order
 * @c: the invocation
 * @s: the scenario
 * @a: the options (--variant)
 * @idx: the result, SIM_MAX_VARIANTS indices into s->variants
 *
 * Return: their count, or -1 with c->msg filled.
 */
int cli_select_variants(struct cli *c, const struct scenario_ops *s,
			       const struct cli_args *a, int *idx)
{
	int i, k, nr = 0;

	for (k = 0; k < a->nr_variants; k++)
		if (sim_scenario_variant_index(s, a->variants[k]) < 0) {
			snprintf(c->msg, sizeof(c->msg),
				 "unknown variant %s for scenario %s: expected one of",
				 a->variants[k], s->name);
			cli_append_names(c, s->variants);
			return -1;
		}
	for (i = 0; s->variants && s->variants[i] && nr < SIM_MAX_VARIANTS; i++) {
		bool take = !a->nr_variants;

		for (k = 0; k < a->nr_variants; k++)
			take |= !strcmp(a->variants[k], s->variants[i]);
		if (take)
			idx[nr++] = i;
	}
	if (!nr) {
		snprintf(c->msg, sizeof(c->msg), "scenario %s has no variants", s->name);
		return -1;
	}
	return nr;
}


/*
 * --jobs when not given: one process for a sweep (its documented default),
 * the host's online CPUs for run and reproduce.  Only speed depends on it.
 */
uint64_t cli_default_jobs(const struct cli_args *a, bool sweep)
{
	long n;

	if (a->jobs)
		return a->jobs;
	if (sweep)
		return 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (uint64_t)n : 1;
}

/* What a child sends back for one variant: its return code, error and result. */
struct cli_variant_msg {
	int rc;
	char err[CLI_ERR];
	struct sim_variant_result res;
	double host_s;			/* host seconds the run took */
};

static int cli_read_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}


/* One variant run in a child process. */
struct cli_job {
	struct cli_prep *p;
	int v;				/* index into p->idx and p->res */
	int seq;			/* place in the order of a sequential run */
	pid_t pid;
	int fd;				/* read end of the result pipe */
};

static void cli_job_child(struct cli_job *j, int wfd)
{
	static struct cli_variant_msg msg;
	const struct scenario_ops *s = j->p->s;
	double t0 = cli_host_seconds();

	memset(&msg, 0, sizeof(msg));
	msg.res.name = s->variants[j->p->idx[j->v]];
	msg.rc = s->run(&j->p->cfg, j->p->idx[j->v], &msg.res, msg.err, sizeof(msg.err));
	msg.host_s = cli_host_seconds() - t0;
	_exit(write(wfd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg) ? 0 : 1);
}

/**
 * cli_child_dies_with() - end this forked child when its parent ends
 * @parent: the parent's pid, taken before fork()
 *
 * A pool child left running after mmsim is killed would run on alone; the
 * kernel sends it SIGKILL when the parent dies (PR_SET_PDEATHSIG), and if
 * the parent died before that was set, it ends now.
 */
void cli_child_dies_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
}

/* Collect job @j, whose result is ready (or whose process died). */
static int cli_job_reap(struct cli *c, struct cli_job *j)
{
	static struct cli_variant_msg msg;
	const struct scenario_ops *s = j->p->s;
	const char *vname = s->variants[j->p->idx[j->v]];
	int ret = 0;

	if (cli_read_all(j->fd, &msg, sizeof(msg))) {
		snprintf(c->msg, sizeof(c->msg), "%s, variant %s: the run's process died",
			 s->name, vname);
		ret = 1;
	} else if (msg.rc) {
		snprintf(c->msg, sizeof(c->msg), "%s, variant %s: %.300s", s->name, vname,
			 msg.err[0] ? msg.err : "the run failed");
		ret = 1;
	} else {
		j->p->res[j->v] = msg.res;
		j->p->host_s += msg.host_s;
	}
	close(j->fd);
	waitpid(j->pid, NULL, 0);
	j->pid = 0;
	return ret;
}

/*
 * Run every variant of the @nr_prep scenarios in child processes, at most
 * @jobs at a time, starting the next one as soon as any finishes.  Each
 * child runs one variant in-process and writes its result back through a
 * pipe.  Every variant is an independent simulation, so the results are
 * those of a sequential run, and so is a failure: the one reported is the
 * failed variant a sequential run would have reached first.  Once one has
 * failed, no variant after it (in that order) is started; the ones before
 * it still run, since one of them may fail too.
 * Returns 0, or 1 with c->msg set.
 */
int cli_run_pool(struct cli *c, struct cli_prep *prep, int nr_prep,
			uint64_t jobs, const char *what)
{
	static char fail_msg[sizeof(c->msg)];
	struct cli_job *job;
	struct pollfd *pfd;
	int nr = 0, next = 0, done = 0, running = 0, ret = 0, i, v;
	int first_fail = INT_MAX;	/* seq of the earliest failed variant */
	pid_t parent;

	for (i = 0; i < nr_prep; i++)
		nr += prep[i].nr;
	job = calloc((size_t)nr, sizeof(*job));
	pfd = calloc((size_t)nr, sizeof(*pfd));
	if (!job || !pfd) {
		free(job);
		free(pfd);
		snprintf(c->msg, sizeof(c->msg), "out of memory");
		return 1;
	}
	/*
	 * The first variant of every scenario, then the second, and so on:
	 * the first is the baseline, usually the longer run when the change
	 * under test is an improvement, and the longest runs should start
	 * first, so that no process is left running alone at the end.
	 */
	for (v = 0, nr = 0; v < SIM_MAX_VARIANTS; v++) {
		int seq0 = 0;

		for (i = 0; i < nr_prep; i++) {
			if (v < prep[i].nr) {
				job[nr].p = &prep[i];
				job[nr].v = v;
				job[nr].seq = seq0 + v;
				nr++;
			}
			seq0 += prep[i].nr;
		}
	}
	cli_progress_begin(c, what, nr);
	fflush(NULL);
	parent = getpid();
	for (;;) {
		int n = 0;

		while (next < nr && (uint64_t)running < jobs) {
			int p[2];

			if (job[next].seq > first_fail) {
				next++;			/* a sequential run stops before it */
				continue;
			}

			if (pipe(p)) {
				snprintf(c->msg, sizeof(c->msg), "pipe: %s", strerror(errno));
				ret = 1;
				goto out_reap;
			}
			job[next].pid = fork();
			if (job[next].pid < 0) {
				snprintf(c->msg, sizeof(c->msg), "fork: %s", strerror(errno));
				job[next].pid = 0;
				close(p[0]);
				close(p[1]);
				ret = 1;
				goto out_reap;
			}
			if (job[next].pid == 0) {
				close(p[0]);
				cli_child_dies_with(parent);
				cli_job_child(&job[next], p[1]);
			}
			close(p[1]);
			job[next].fd = p[0];
			next++;
			running++;
		}
		if (!running)
			break;
		/* Wait for any running job: its result, or EOF if it died. */
		for (i = 0; i < next; i++) {
			if (!job[i].pid)
				continue;
			pfd[n].fd = job[i].fd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			n++;
		}
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(c->msg, sizeof(c->msg), "poll: %s", strerror(errno));
			ret = 1;
			goto out_reap;
		}
		for (i = 0, n = 0; i < next; i++) {
			if (!job[i].pid)
				continue;
			if (pfd[n++].revents) {
				if (cli_job_reap(c, &job[i]) && job[i].seq < first_fail) {
					first_fail = job[i].seq;
					memcpy(fail_msg, c->msg, sizeof(fail_msg));
				}
				running--;
				done++;
				cli_progress_step(done);
			}
		}
	}
	if (first_fail != INT_MAX) {
		memcpy(c->msg, fail_msg, sizeof(c->msg));
		ret = 1;
		goto out_reap;
	}
	for (i = 0; i < nr_prep; i++)
		prep[i].ran = true;
out_reap:
	cli_progress_end();
	for (i = 0; i < next; i++) {
		if (job[i].pid > 0) {
			kill(job[i].pid, SIGKILL);
			close(job[i].fd);
			waitpid(job[i].pid, NULL, 0);
		}
	}
	free(job);
	free(pfd);
	return ret;
}

/* Add the trace of variant run @nth (1-based: its pid) to k->trace and forget it. */
static int cli_add_trace(struct cli *c, const struct scenario_ops *s,
			 const struct sim_run_config *cfg, const char *variant, int nth,
			 const char *path, struct cli_sinks *k)
{
	char pname[160];

	sim_trace_stop();
	snprintf(pname, sizeof(pname), "mmsim %s %s (seed %" PRIu64 ")", s->name,
		 variant, cfg->seed);
	sim_trace_write_process(&k->trace, nth, pname, nth == 1);
	if (sim_trace_truncated())
		fprintf(c->err, "mmsim: note: --trace %s: variant %s: stopped recording after %"
			PRIu64 " events (--trace-limit) at %.6f ms of virtual time\n",
			path, variant, sim_trace_nr_events(),
			(double)sim_trace_stopped_at() / (double)SIM_MS);
	k->trace_events += sim_trace_nr_events();
	k->trace_dropped += sim_trace_dropped();
	k->trace_truncated |= sim_trace_truncated();
	sim_trace_release();
	return k->trace.failed ? cli_fail(c, "out of memory") - 1 : 0;
}

/**
 * cli_apply_costs() - apply every --cost of @a to the loaded profile @p
 * @c: the invocation (c->msg gets the error)
 * @a: the options
 * @p: the profile
 *
 * Then checks what no single value's range can: that the model can build
 * the profile's TLBs and caches.  Every check is here, in the parent,
 * before any process is forked: a bad value is bad input (exit 2), not a
 * failed run.
 *
 * Return: 0, or 2 with c->msg set.
 */
int cli_apply_costs(struct cli *c, const struct cli_args *a, struct sim_profile *p)
{
	char why[CLI_ERR];
	int k;

	for (k = 0; k < a->nr_costs; k++)
		if (sim_profile_set(p, a->costs[k], why, sizeof(why)))
			return cli_fail(c, "--cost %s", why);
	if (sim_profile_check(p, c->msg, sizeof(c->msg)) ||
	    mm_tlb_check_profile(p, c->msg, sizeof(c->msg)))
		return 2;
	return 0;
}

/*
 * Configure @p for scenario @s from @a: profile, parameters, variants.
 * Returns 0; 2 for bad input or 1 for an internal failure, with c->msg set.
 * cli_prep_release() frees what it allocated, whatever it returned.
 */
int cli_prepare(struct cli *c, const struct scenario_ops *s,
		       const struct cli_args *a, struct cli_prep *p)
{
	const char *pname = a->profile ? a->profile : s->profile;

	memset(p, 0, sizeof(*p));
	p->s = s;
	p->prof = calloc(1, sizeof(*p->prof));
	if (!p->prof)
		return cli_fail(c, "out of memory") - 1;
	if (!pname)
		return cli_fail(c, "scenario %s names no profile: expected --profile NAME|FILE",
				s->name);
	if (sim_profile_load(pname, p->prof, c->msg, sizeof(c->msg)))
		return 2;
	if (cli_apply_costs(c, a, p->prof))
		return 2;
	p->cfg.profile = p->prof;
	if (cli_configure(c, s, a, &p->cfg))
		return 2;
	p->nr = cli_select_variants(c, s, a, p->idx);
	if (p->nr < 0) {
		p->nr = 0;
		return 2;
	}
	if (a->baseline) {
		int i, b = sim_scenario_variant_index(s, a->baseline);

		for (i = 0; b >= 0 && i < p->nr && p->idx[i] != b; i++)
			;
		if (b < 0 || i == p->nr) {
			size_t n = (size_t)snprintf(c->msg, sizeof(c->msg),
						    "--baseline %s: expected one of the variants run:",
						    a->baseline);

			for (i = 0; i < p->nr && n < sizeof(c->msg); i++)
				n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
						      i ? "," : "", s->variants[p->idx[i]]);
			return 2;
		}
	}
	p->res = calloc((size_t)p->nr, sizeof(*p->res));
	if (!p->res)
		return cli_fail(c, "out of memory") - 1;
	return 0;
}

void cli_prep_release(struct cli_prep *p)
{
	free(p->res);
	free(p->prof);
	p->res = NULL;
	p->prof = NULL;
}

/**
 * cli_sinks_add_json() - keep one scenario's JSON document
 * @k: the command's sinks
 * @doc: the document (a reference the sinks take)
 * @reproduce: reproduce gathers an array; run keeps the one document
 */
void cli_sinks_add_json(struct cli_sinks *k, json_t *doc, bool reproduce)
{
	if (reproduce) {
		json_array_append_new(k->json, doc);
	} else {
		json_decref(k->json);
		k->json = doc;
	}
}

/**
 * cli_sinks_add_rows() - one scenario's CSV rows and, for reproduce, its chart
 * @c: the command line
 * @a: its options
 * @k: the command's sinks
 * @rep: the scenario's report
 * @reproduce: whether this is reproduce (only it draws)
 *
 * A chart that fails is remembered (k->plot_ret, k->plot_msg) and no more
 * are drawn; the tables are still printed.
 */
void cli_sinks_add_rows(struct cli *c, const struct cli_args *a, struct cli_sinks *k,
			const struct sim_report *rep, bool reproduce)
{
	if (a->csv) {
		sim_print_csv(&k->csv, rep, !k->csv_header_done);
		k->csv_header_done = true;
	}
	if (reproduce && a->plot && !k->plot_ret) {
		k->plot_ret = cli_plot_reproduce(c, a->plot, rep);
		if (k->plot_ret) {
			snprintf(k->plot_msg, sizeof(k->plot_msg), "%s", c->msg);
			c->msg[0] = '\0';
		}
	}
}

/*
 * Run the variants of @p that the process pool has not run (all of them,
 * in this process, one after another), then write its report to @k.
 */
static int cli_run_scenario(struct cli *c, struct cli_prep *p,
			    const struct cli_args *a, bool reproduce,
			    struct cli_sinks *k)
{
	const struct scenario_ops *s = p->s;
	struct sim_variant_result *res = p->res;
	struct sim_run_config cfg = p->cfg;
	struct sim_report rep;
	int *idx = p->idx, nr = p->nr, i, ret = 2;
	double t0;

	if (a->trace) {
		sim_out_init_buffer(&k->trace);
		k->trace_events = k->trace_dropped = 0;
		k->trace_truncated = false;
		if (sim_outfile_open(&k->trace_f, "--trace", a->trace, c->out, c->msg,
				     sizeof(c->msg)))
			goto out_free;
		sim_trace_write_begin(&k->trace);
	}
	if (!p->ran) {
		char what[96];

		snprintf(what, sizeof(what), "%s %s", reproduce ? "reproduce" : "run", s->name);
		cli_progress_begin(c, what, nr);
	}
	t0 = cli_host_seconds();
	memset(&rep, 0, sizeof(rep));
	rep.cfg = &cfg;
	rep.res = res;
	rep.nr_res = nr;
	rep.reproduce = reproduce;
	rep.baseline = a->baseline;
	rep.locks_format = a->locks_format;
	i = p->ran ? nr : 0;	/* the pool ran them: nothing left to do here */
	for (; i < nr; i++) {
		char err[CLI_ERR] = "";

		res[i].name = s->variants[idx[i]];
		if (a->trace)
			sim_trace_start(a->trace_limit);
		if (s->run(&cfg, idx[i], &res[i], err, sizeof(err))) {
			sim_trace_stop();
			cli_progress_end();
			cli_fail(c, "%s, variant %s: %s", s->name, res[i].name,
				 err[0] ? err : "the run failed");
			ret = 1;
			goto out_free;
		}
		rep.host_events += res[i].events;
		cli_progress_step(i + 1);
		if (a->trace && (ret = cli_add_trace(c, s, &cfg, res[i].name, i + 1, a->trace, k)))
			goto out_free;
	}
	if (a->trace) {
		sim_trace_write_end(&k->trace, k->trace_events, a->trace_limit, k->trace_truncated,
				    k->trace_dropped);
		if (k->trace.failed) {
			ret = cli_fail(c, "out of memory") - 1;
			goto out_free;
		}
		if (sim_outfile_commit(&k->trace_f, sim_out_text(&k->trace), k->trace.len, c->msg,
				       sizeof(c->msg))) {
			ret = 1;
			goto out_free;
		}
	}
	if (!p->ran)
		cli_progress_end();
	if (s->finish)
		s->finish(&cfg, res, nr);
	rep.host_seconds = p->ran ? p->host_s : cli_host_seconds() - t0;
	if (p->ran)
		for (i = 0; i < nr; i++)
			rep.host_events += res[i].events;

	if (k->text_on) {
		if (!a->quiet)
			sim_print_header(&k->text, &rep);
		sim_print_table(&k->text, &rep);
		if (reproduce) {
			sim_out_printf(&k->text, "\n");
			sim_print_verdict(&k->text, &rep);
		}
		if (!a->quiet) {
			sim_print_locks(&k->text, &rep);
			sim_print_counters(&k->text, &rep);
			sim_print_interrupts(&k->text, &rep);
			if (a->vmstat)
				sim_print_vmstat(&k->text, &rep);
			sim_out_printf(&k->text, "\nhost time: %.3f s, %" PRIu64 " events\n",
				       rep.host_seconds, rep.host_events);
		}
		if (reproduce)
			sim_out_printf(&k->text, "\n");
	}
	if (a->json) {
		json_t *doc = sim_report_json(&rep);

		if (!doc) {
			cli_fail(c, "out of memory");
			ret = 1;
			goto out_free;
		}
		cli_sinks_add_json(k, doc, reproduce);
	}
	cli_sinks_add_rows(c, a, k, &rep, reproduce);
	ret = 0;
out_free:
	if (a->trace) {
		sim_outfile_abort(&k->trace_f);
		sim_out_release(&k->trace);
	}
	return ret;
}

/* Path @path resolved, as far as it exists: the directory by realpath(). */
static void cli_resolve_path(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], *real;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	real = realpath(dir, NULL);
	snprintf(buf, len, "%s/%s", real ? real : dir, slash ? slash + 1 : path);
	free(real);
}

/**
 * cli_outputs_distinct() - refuse two output files that are one file
 * @c: the invocation (c->msg gets the error)
 * @opt: the options, "--json" ..., @nr of them
 * @path: their paths ("-" and NULL are skipped)
 * @nr: how many
 *
 * Two outputs at one path would overwrite each other.  Paths are compared
 * resolved (the directory through realpath(), so "x", "./x" and "d/../x"
 * are one), and an existing file also by device and inode (hard links).
 * Return: 0, or 2 with c->msg set.
 */
int cli_outputs_distinct(struct cli *c, const char *const *opt, const char *const *path, int nr)
{
	char ri[PATH_MAX + 256], rj[PATH_MAX + 256];
	struct stat si, sj;
	int i, j;

	for (i = 0; i < nr; i++) {
		if (!path[i] || !strcmp(path[i], "-"))
			continue;
		cli_resolve_path(path[i], ri, sizeof(ri));
		for (j = i + 1; j < nr; j++) {
			if (!path[j] || !strcmp(path[j], "-"))
				continue;
			cli_resolve_path(path[j], rj, sizeof(rj));
			if (!strcmp(ri, rj) ||
			    (!stat(path[i], &si) && !stat(path[j], &sj) &&
			     si.st_dev == sj.st_dev && si.st_ino == sj.st_ino))
				return cli_fail(c, "%s %s and %s %s are one file: expected a file of its own for each output",
						opt[i], path[i], opt[j], path[j]);
		}
	}
	return 0;
}

/* --json, --csv and --trace. */
static int cli_check_outputs(struct cli *c, const struct cli_args *a)
{
	const char *opt[] = { "--json", "--csv", "--trace" };
	const char *path[] = { a->json, a->csv, a->trace };

	return cli_outputs_distinct(c, opt, path, 3);
}

/*
 * Run @scn (nr_scn scenarios) with @a and write the results: the text to
 * c->out, --json and --csv each whole or not at all.
 */
static int cli_run_all(struct cli *c, const struct scenario_ops **scn,
		       int nr_scn, const struct cli_args *a, bool reproduce)
{
	struct sim_outfile json_f, csv_f;
	struct cli_prep *prep = NULL;
	struct cli_sinks k;
	int i, ret = 0, nr_runs = 0, nr_seeds;
	uint64_t jobs;

	memset(&k, 0, sizeof(k));
	memset(&json_f, 0, sizeof(json_f));
	memset(&csv_f, 0, sizeof(csv_f));
	sim_out_init_file(&k.text, c->out);
	sim_out_init_buffer(&k.csv);
	k.text_on = !(a->json && !strcmp(a->json, "-")) &&
		    !(a->csv && !strcmp(a->csv, "-"));
	if (a->json && sim_outfile_open(&json_f, "--json", a->json, c->out,
					c->msg, sizeof(c->msg)))
		return 2;
	if (a->csv && sim_outfile_open(&csv_f, "--csv", a->csv, c->out, c->msg,
				       sizeof(c->msg))) {
		sim_outfile_abort(&json_f);
		return 2;
	}
	if (a->json && reproduce)
		k.json = json_array();
	if (a->plot && reproduce) {
		struct stat st;

		if (mkdir(a->plot, 0777) && errno != EEXIST) {
			sim_outfile_abort(&json_f);
			sim_outfile_abort(&csv_f);
			return cli_fail(c, "--plot %s: cannot create the directory (%s): expected a directory path",
					a->plot, strerror(errno));
		}
		if (stat(a->plot, &st) || !S_ISDIR(st.st_mode)) {
			sim_outfile_abort(&json_f);
			sim_outfile_abort(&csv_f);
			return cli_fail(c, "--plot %s: expected a directory for the charts", a->plot);
		}
	}

	/* --seeds N: N configurations of each scenario, seeds SEED.. SEED+N-1 */
	nr_seeds = (int)a->seeds;
	if (nr_seeds > 1 && a->trace) {
		sim_outfile_abort(&json_f);
		sim_outfile_abort(&csv_f);
		return cli_fail(c, "--trace with --seeds %d: expected one seed (--seeds 1)",
				nr_seeds);
	}
	prep = calloc((size_t)nr_scn * (size_t)nr_seeds, sizeof(*prep));
	if (!prep)
		ret = cli_fail(c, "out of memory") - 1;
	for (i = 0; i < nr_scn * nr_seeds && !ret; i++) {
		ret = cli_prepare(c, scn[i / nr_seeds], a, &prep[i]);
		prep[i].cfg.seed = a->seed + (uint64_t)(i % nr_seeds);
		nr_runs += prep[i].nr;
	}
	if (!ret)
		ret = cli_check_outputs(c, a);
	jobs = cli_default_jobs(a, false);
	if (!ret && ((jobs > 1 && nr_runs > 1 && !a->trace) || nr_seeds > 1))
		ret = cli_run_pool(c, prep, nr_scn * nr_seeds, jobs,
				   reproduce ? "reproduce" : "run");
	for (i = 0; i < nr_scn && !ret; i++)
		ret = nr_seeds > 1 ?
		      cli_report_seeds(c, &prep[i * nr_seeds], nr_seeds, a, reproduce, &k) :
		      cli_run_scenario(c, &prep[i], a, reproduce, &k);
	for (i = 0; prep && i < nr_scn * nr_seeds; i++)
		cli_prep_release(&prep[i]);
	free(prep);

	if (!ret && a->json) {
		struct sim_out js;

		sim_out_init_buffer(&js);
		sim_print_json(&js, k.json);
		if (js.failed) {
			ret = cli_fail(c, "out of memory") - 1;
		} else if (sim_outfile_commit(&json_f, sim_out_text(&js), js.len,
					      c->msg, sizeof(c->msg))) {
			ret = 1;
		}
		sim_out_release(&js);
	}
	if (!ret && a->csv) {
		if (k.csv.failed)
			ret = cli_fail(c, "out of memory") - 1;
		else if (sim_outfile_commit(&csv_f, sim_out_text(&k.csv), k.csv.len,
					    c->msg, sizeof(c->msg)))
			ret = 1;
	}
	sim_outfile_abort(&json_f);
	sim_outfile_abort(&csv_f);
	json_decref(k.json);
	sim_out_release(&k.csv);
	if (!ret && (k.text.failed || fflush(c->out)))
		ret = cli_fail(c, "writing to standard output failed") - 1;
	if (!ret && k.plot_ret) {
		snprintf(c->msg, sizeof(c->msg), "%s", k.plot_msg);
		ret = k.plot_ret;
	}
	return ret;
}

/* ---- subcommands ----------------------------------------------------------- */

static int cmd_list(struct cli *c, int argc, char **argv)
{
	size_t w = 0;
	int i;

	if (argc > 1)
		return cli_fail(c, "list %s: expected no operands", argv[1]);
	for (i = 0; c->registry[i]; i++)
		if (strlen(c->registry[i]->name) > w)
			w = strlen(c->registry[i]->name);
	for (i = 0; c->registry[i]; i++)
		fprintf(c->out, "%-*s  %s\n", (int)w, c->registry[i]->name,
			c->registry[i]->summary ? c->registry[i]->summary : "");
	return 0;
}

static const char *param_type_name(const struct sim_param *p)
{
	switch (p->type) {
	case SIM_PARAM_COUNT:
		return "count";
	case SIM_PARAM_SIZE:
		return "bytes";
	case SIM_PARAM_TIME:
		return "time";
	case SIM_PARAM_BOOL:
		return "bool";
	case SIM_PARAM_ENUM:
		return "choice";
	}
	return "";
}

static int cmd_show(struct cli *c, int argc, char **argv)
{
	const struct scenario_ops *s;
	const struct sim_published *p;
	char def[64], lo[64], hi[64];
	size_t w = 0;
	int i;

	if (argc != 2)
		return cli_fail(c, "show: expected one scenario, got %d operands",
				argc - 1);
	s = cli_find_scenario(c, argv[1]);
	if (!s)
		return 2;
	fprintf(c->out, "%s: %s\n", s->name, s->summary ? s->summary : "");
	if (s->description)
		fprintf(c->out, "\n%s\n", s->description);
	fprintf(c->out, "\nprofile: %s\n", s->profile ? s->profile : "-");
	fprintf(c->out, "variants:");
	for (i = 0; s->variants && s->variants[i]; i++) {
		const char *role = "";

		if (s->baseline && !strcmp(s->variants[i], s->baseline))
			role = " (baseline)";
		if (s->changed && !strcmp(s->variants[i], s->changed))
			role = " (changed)";
		fprintf(c->out, " %s%s", s->variants[i], role);
	}
	fprintf(c->out, "\n\nparameters:\n");
	for (i = 0; s->params && s->params[i].key; i++)
		if (strlen(s->params[i].key) > w)
			w = strlen(s->params[i].key);
	for (i = 0; s->params && s->params[i].key; i++) {
		const struct sim_param *q = &s->params[i];

		sim_param_format(q, q->def, def, sizeof(def));
		fprintf(c->out, "  %-*s  %-10s %-6s ", (int)w, q->key, def,
			param_type_name(q));
		if (q->type == SIM_PARAM_ENUM) {
			int j;

			fprintf(c->out, "[");
			for (j = 0; q->choices && q->choices[j]; j++)
				fprintf(c->out, "%s%s", j ? "|" : "", q->choices[j]);
			fprintf(c->out, "]");
		} else if (q->type != SIM_PARAM_BOOL) {
			sim_param_format(q, q->min, lo, sizeof(lo));
			sim_param_format(q, q->max, hi, sizeof(hi));
			fprintf(c->out, "[%s..%s]", lo, hi);
		}
		fprintf(c->out, "  %s%s\n", q->help ? q->help : "",
			q->cpus_default ? "; default: the profile's CPUs" : "");
	}
	fprintf(c->out, "\nmetrics:\n");
	w = 0;
	for (i = 0; s->metrics && s->metrics[i].key; i++)
		if (strlen(s->metrics[i].key) > w)
			w = strlen(s->metrics[i].key);
	for (i = 0; s->metrics && s->metrics[i].key; i++)
		fprintf(c->out, "  %-*s  %s\n", (int)w, s->metrics[i].key,
			s->metrics[i].label ? s->metrics[i].label : "");
	if (s->published && s->published[0].variant) {
		fprintf(c->out, "\npublished (%s):\n",
			s->published_source ? s->published_source : "no source given");
		for (p = s->published; p->variant; p++)
			fprintf(c->out, "  %s %s = %.15g\n", p->variant, p->metric,
				p->value);
	}
	return 0;
}

static int cmd_run(struct cli *c, int argc, char **argv)
{
	const struct scenario_ops *s;
	struct cli_args a;
	int ret;

	ret = cli_parse_args(c, argc, argv, CLI_RUN, "run", &a);
	if (ret)
		return ret;
	if (a.nr_pos != 1)
		return cli_fail(c, "run: expected one scenario, got %d operands",
				a.nr_pos);
	s = cli_find_scenario(c, a.pos[0]);
	if (!s)
		return 2;
	if (a.trace && !strcmp(a.trace, "-"))
		return cli_fail(c, "--trace -: expected a file name (the trace is not printed)");
	return cli_run_all(c, &s, 1, &a, false);
}

static bool has_published(const struct scenario_ops *s)
{
	return s->published && s->published[0].variant;
}

static int cmd_reproduce(struct cli *c, int argc, char **argv)
{
	const struct scenario_ops *scn[CLI_MAX_POS];
	struct cli_args a;
	int i, k, nr = 0, ret;

	ret = cli_parse_args(c, argc, argv, CLI_REPRO, "reproduce", &a);
	if (ret)
		return ret;
	for (i = 0; i < a.nr_pos; i++) {
		scn[nr] = cli_find_scenario(c, a.pos[i]);
		if (!scn[nr])
			return 2;
		for (k = 0; k < nr; k++)
			if (scn[k] == scn[nr])
				return cli_fail(c, "reproduce %s: given twice", a.pos[i]);
		nr++;
	}
	if (a.nr_sets && a.nr_pos != 1)
		return cli_fail(c, "reproduce --set %s: expected exactly one SCENARIO named, "
				"whose parameter it sets", a.sets[0]);
	if (!a.nr_pos)
		for (i = 0; c->registry[i] && nr < CLI_MAX_POS; i++)
			if (has_published(c->registry[i]))
				scn[nr++] = c->registry[i];
	if (!nr) {
		/* keep standard output clean when it carries JSON or CSV */
		FILE *note = (a.json && !strcmp(a.json, "-")) ||
			     (a.csv && !strcmp(a.csv, "-")) ? c->err : c->out;

		fprintf(note, "no published experiment is modelled yet\n");
		for (i = 0; c->registry[i]; i++)
			if (!strcmp(c->registry[i]->name, "spinlock"))
				scn[nr++] = c->registry[i];
		if (!nr) {
			fprintf(note, "and no spinlock scenario is built: nothing to run\n");
			return 0;
		}
		fprintf(note, "running spinlock at its defaults\n\n");
	}
	return cli_run_all(c, scn, nr, &a, true);
}

static void print_profile(struct cli *c, const struct sim_profile *p)
{
	int i;

	fprintf(c->out, "profile %s: %s\n", p->origin, p->machine_description);
	fprintf(c->out, "%d CPUs: %" PRIu64 " sockets x %" PRIu64
		" cores x %" PRIu64 " threads, %" PRIu64 " nodes\n\n",
		sim_profile_nr_cpus(p), p->topology_sockets,
		p->topology_cores_per_socket, p->topology_threads_per_core,
		p->topology_nodes);
#define PROFILE_PRINT_U64(sec, key, unit)                                      \
	fprintf(c->out, "%-32s %10" PRIu64 " %-7s", #sec "." #key, p->sec##_##key, unit)
#define PROFILE_PRINT_STR(sec, key, unit)                                      \
	fprintf(c->out, "%-32s %s", #sec "." #key, p->sec##_##key)
#define PROFILE_PRINT_FIELD(sec, key, type, unit, meaning)                     \
	do {                                                                   \
		const char *src = "no source given";                           \
		size_t kn = strlen(#sec "." #key);                             \
		PROFILE_PRINT_##type(sec, key, unit);                          \
		for (i = 0; i < p->nr_sources; i++)                            \
			if (!strncmp(p->sources[i], #sec "." #key " = ", kn + 3)) \
				src = p->sources[i] + kn + 3;                  \
		fprintf(c->out, "  %s; %s\n", meaning, src);                   \
	} while (0);
	PROFILE_FIELDS(PROFILE_PRINT_FIELD)
#undef PROFILE_PRINT_FIELD
#undef PROFILE_PRINT_STR
#undef PROFILE_PRINT_U64
	if (p->nr_ranges)
		fprintf(c->out, "\nranges of the assumed values (`mmsim sensitivity` runs both ends):\n");
	for (i = 0; i < p->nr_ranges; i++)
		fprintf(c->out, "%-32s %10" PRIu64 "..%-10" PRIu64 " %s\n", p->ranges[i].key,
			p->ranges[i].lo, p->ranges[i].hi, p->ranges[i].reason);
}

/*
 * `mmsim profiles --from-host [FILE]`: the profile of this machine, as
 * `mmsim compare` builds it (live_host_profile(): topology and clock
 * measured, every other value a default with its source), checked as any
 * profile is, to FILE (whole or not at all) or standard output.
 */
static int cmd_profiles_from_host(struct cli *c, int argc, char **argv)
{
	static const char head[] = "; profile \"host\": written by `mmsim profiles --from-host` "
				   "(as `mmsim compare` builds it) from this machine's /sys and /proc\n";
	static char ini[65536], out[65536 + sizeof(head)];
	const char *body;
	struct sim_profile *p;
	struct sim_outfile f;
	int n, ret = 0;

	if (argc > 3)
		return cli_fail(c, "profiles --from-host: expected at most one FILE, got %d",
				argc - 2);
	n = live_host_profile(ini, sizeof(ini));
	if (n < 0)
		return cli_fail(c, "profiles --from-host: cannot describe this machine (%s)",
				strerror(-n)) - 1;
	p = calloc(1, sizeof(*p));
	if (!p)
		return cli_fail(c, "out of memory") - 1;
	if (sim_profile_parse(ini, "host", p, c->msg, sizeof(c->msg)))
		ret = 1;	/* what live_host_profile() wrote does not parse: our bug */
	free(p);
	if (ret)
		return ret;
	/* its first line, a comment, names the command that wrote it */
	body = ini[0] == ';' && strchr(ini, '\n') ? strchr(ini, '\n') + 1 : ini;
	n = snprintf(out, sizeof(out), "%s%s", head, body);
	if (sim_outfile_open(&f, "profiles --from-host", argc == 3 ? argv[2] : "-", c->out,
			     c->msg, sizeof(c->msg)))
		return 2;
	if (sim_outfile_commit(&f, out, (size_t)n, c->msg, sizeof(c->msg)))
		ret = 1;
	sim_outfile_abort(&f);
	return ret;
}

static int cmd_profiles(struct cli *c, int argc, char **argv)
{
	const char *const *names = sim_profile_builtin_names();
	struct sim_profile *p;
	int i, ret = 0;

	if (argc >= 2 && !strcmp(argv[1], "--from-host"))
		return cmd_profiles_from_host(c, argc, argv);
	if (argc > 2)
		return cli_fail(c, "profiles: expected at most one profile, got %d operands",
				argc - 1);
	p = calloc(1, sizeof(*p));
	if (!p)
		return cli_fail(c, "out of memory") - 1;
	if (argc == 2) {
		if (sim_profile_load(argv[1], p, c->msg, sizeof(c->msg)))
			ret = 2;
		else
			print_profile(c, p);
		free(p);
		return ret;
	}
	for (i = 0; names[i]; i++) {
		if (sim_profile_load(names[i], p, c->msg, sizeof(c->msg))) {
			ret = 1;	/* a builtin profile is broken: our bug */
			break;
		}
		fprintf(c->out, "%-16s %4d CPUs  %s\n", names[i],
			sim_profile_nr_cpus(p), p->machine_description);
	}
	free(p);
	return ret;
}

static int cmd_live(struct cli *c, int argc, char **argv)
{
	fflush(c->out);
	return live_cmd_main(argc, argv, c->out, c->err);
}

static int cmd_compare(struct cli *c, int argc, char **argv)
{
	fflush(c->out);
	return compare_cmd_main(argc, argv, c->out, c->err);
}

/* The options of one command, as the help text lists them. */
static void cli_print_options(struct cli *c, unsigned cmd_mask)
{
	static const char *const cmd_names[] = { "run", "reproduce", "sweep", "merge" };
	int i, b;

	for (i = 0; i < NR_CLI_OPTS; i++) {
		char head[64], cmds[48] = "";
		size_t n = 0;

		if (!(cli_opts[i].cmds & cmd_mask))
			continue;
		snprintf(head, sizeof(head), "%s%s%s", cli_opts[i].name, cli_opts[i].arg ? " " : "",
			 cli_opts[i].arg ? cli_opts[i].arg : "");
		for (b = 0; b < 4; b++)
			if (cli_opts[i].cmds & (1u << b))
				n += (size_t)snprintf(cmds + n, sizeof(cmds) - n, "%s%s", n ? "," : "",
						      cmd_names[b]);
		fprintf(c->out, "  %-24s %-26s %s\n", head, cmds, cli_opts[i].help);
	}
}

/* `mmsim help COMMAND`: its usage, what it does and its options. */
static int cmd_help_one(struct cli *c, const char *name)
{
	static const struct { const char *name; unsigned mask; } masks[] = {
		{ "run", CLI_RUN }, { "reproduce", CLI_REPRO }, { "sweep", CLI_SWEEP },
		{ "merge", CLI_MERGE },
	};
	unsigned mask = 0;
	size_t k;
	int i;

	for (i = 0; cli_cmds[i].name; i++)
		if (!strcmp(cli_cmds[i].name, name))
			break;
	if (!cli_cmds[i].name) {
		size_t n = (size_t)snprintf(c->msg, sizeof(c->msg),
					    "help %s: no such command: expected one of", name);

		for (i = 0; cli_cmds[i].name && n < sizeof(c->msg); i++)
			n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
					      i ? "," : "", cli_cmds[i].name);
		return 2;
	}
	fprintf(c->out, "usage: mmsim %s%s%s\n\n%s\n", cli_cmds[i].name,
		cli_cmds[i].usage[0] ? " " : "", cli_cmds[i].usage, cli_cmds[i].help);
	for (k = 0; k < sizeof(masks) / sizeof(masks[0]); k++)
		if (!strcmp(masks[k].name, name))
			mask = masks[k].mask;
	if (mask) {
		fprintf(c->out, "\noptions:\n");
		cli_print_options(c, mask);
		if (cli_opts[CLI_OPT_JOBS].cmds & mask)
			fprintf(c->out, "\n-j N is --jobs N.\n");
	} else if (cli_cmds[i].fn == cmd_live || cli_cmds[i].fn == cmd_compare) {
		fprintf(c->out, "\nits options: mmsim %s --help\n", name);
	}
	return 0;
}

static int cmd_help(struct cli *c, int argc, char **argv)
{
	const char *const *names = sim_profile_builtin_names();
	size_t w = 0;
	int i;

	if (argc > 2)
		return cli_fail(c, "help %s %s: expected at most one COMMAND", argv[1], argv[2]);
	if (argc == 2)
		return cmd_help_one(c, argv[1]);

	fprintf(c->out,
		"mmsim: a deterministic simulator of Linux memory-management hot paths\n\n"
		"usage:\n");
	for (i = 0; cli_cmds[i].name; i++) {
		char head[96];

		snprintf(head, sizeof(head), "mmsim %s%s%s", cli_cmds[i].name,
			 cli_cmds[i].usage[0] ? " " : "", cli_cmds[i].usage);
		fprintf(c->out, "  %-44s %s\n", head, cli_cmds[i].help);
	}
	fprintf(c->out, "\noptions (-j N is --jobs N):\n");
	cli_print_options(c, CLI_RUN | CLI_REPRO | CLI_SWEEP | CLI_MERGE);
	fprintf(c->out, "\nscenarios:\n");
	for (i = 0; c->registry[i]; i++)
		if (strlen(c->registry[i]->name) > w)
			w = strlen(c->registry[i]->name);
	for (i = 0; c->registry[i]; i++)
		fprintf(c->out, "  %-*s  %s\n", (int)w, c->registry[i]->name,
			c->registry[i]->summary ? c->registry[i]->summary : "");
	if (!i)
		fprintf(c->out, "  (none is built yet)\n");
	fprintf(c->out, "\nprofiles:");
	for (i = 0; names[i]; i++)
		fprintf(c->out, "%s %s", i ? "," : "", names[i]);
	fprintf(c->out,
		"\n\nsweep: at most 10000 runs (grid points x seeds); each run's seed is the\n"
		"FNV-1a hash of \"SCENARIO;KEY=VALUE;...;seed=BASE/I\"; rows in grid order\n"
		"(first --vary slowest), then seed, variant, metric; see docs/sweep.md\n"
		"\nexit codes: 0 success, 1 internal failure, 2 bad input\n");
	return 0;
}

/* @s for roff: '-' as "\-", a backslash doubled, a leading '.' or '\'' guarded. */
static void man_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

/*
 * `mmsim man`: the manual page, in roff, from the same tables as the help:
 * commands (cli_cmds), options (CLI_OPTIONS), scenarios and profiles.
 */
static int cmd_man(struct cli *c, int argc, char **argv)
{
	static const char *const cmd_names[] = { "run", "reproduce", "sweep", "merge" };
	const char *const *names = sim_profile_builtin_names();
	FILE *f = c->out;
	int i, b;

	if (argc > 1)
		return cli_fail(c, "man %s: takes no operand", argv[1]);
	fprintf(f, ".TH MMSIM 1 \"\" \"mmsim %s\" \"User Commands\"\n.SH NAME\n", MMSIM_VERSION);
	fprintf(f, "mmsim \\- a deterministic simulator of Linux memory\\-management hot paths\n");
	fprintf(f, ".SH SYNOPSIS\n.B mmsim\n.I COMMAND\n[\\fIoptions\\fR]\n.SH COMMANDS\n");
	for (i = 0; cli_cmds[i].name; i++) {
		fprintf(f, ".TP\n.B ");
		man_text(f, cli_cmds[i].name);
		if (cli_cmds[i].usage[0]) {
			fputs(" ", f);
			man_text(f, cli_cmds[i].usage);
		}
		fputs("\n", f);
		man_text(f, cli_cmds[i].help);
		fputs("\n", f);
	}
	fprintf(f, ".SH OPTIONS\n\\-j N is \\-\\-jobs N.\n");
	for (i = 0; i < NR_CLI_OPTS; i++) {
		fprintf(f, ".TP\n.B ");
		man_text(f, cli_opts[i].name);
		if (cli_opts[i].arg) {
			fputs(" \\fI", f);
			man_text(f, cli_opts[i].arg);
			fputs("\\fR", f);
		}
		fputs("\n(", f);
		for (b = 0; b < 4; b++)
			if (cli_opts[i].cmds & (1u << b))
				fprintf(f, "%s%s", (cli_opts[i].cmds & ((1u << b) - 1)) ? ", " : "",
					cmd_names[b]);
		fputs(") ", f);
		man_text(f, cli_opts[i].help);
		fputs("\n", f);
	}
	fprintf(f, ".SH SCENARIOS\n");
	for (i = 0; c->registry[i]; i++) {
		fprintf(f, ".TP\n.B ");
		man_text(f, c->registry[i]->name);
		fputs("\n", f);
		man_text(f, c->registry[i]->summary ? c->registry[i]->summary : "");
		fputs("\n", f);
	}
	fprintf(f, ".SH PROFILES\n");
	for (i = 0; names[i]; i++) {
		fputs(i ? ", " : "", f);
		man_text(f, names[i]);
	}
	fprintf(f, "; or an INI file (\\fBmmsim profiles\\fR \\fINAME\\fR prints one).\n");
	fprintf(f, ".SH EXIT STATUS\n0 success, 1 internal failure, 2 bad input "
		"(one line on standard error, before any work).\n");
	fprintf(f, ".SH SEE ALSO\nREADME.md and docs/ in the source tree.\n");
	return 0;
}

/*
 * `mmsim completion bash`: a bash completion script, from the same tables:
 * commands, each command's options, scenario and profile names.
 */
static int cmd_completion(struct cli *c, int argc, char **argv)
{
	static const struct { const char *name; unsigned mask; } masks[] = {
		{ "run", CLI_RUN }, { "reproduce", CLI_REPRO }, { "sweep", CLI_SWEEP },
		{ "merge", CLI_MERGE },
	};
	const char *const *names = sim_profile_builtin_names();
	FILE *f = c->out;
	size_t k;
	int i;

	if (argc != 2 || strcmp(argv[1], "bash"))
		return cli_fail(c, "completion%s%s: expected the shell: bash", argc > 1 ? " " : "",
				argc > 1 ? argv[1] : "");
	fprintf(f, "# bash completion for mmsim %s, written by `mmsim completion bash`\n",
		MMSIM_VERSION);
	fprintf(f, "_mmsim()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}"
		   " opts=\n\tlocal cmds=\"");
	for (i = 0; cli_cmds[i].name; i++)
		fprintf(f, "%s%s", i ? " " : "", cli_cmds[i].name);
	fprintf(f, "\"\n\tlocal scenarios=\"");
	for (i = 0; c->registry[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", c->registry[i]->name);
	fprintf(f, "\"\n\tlocal profiles=\"");
	for (i = 0; names[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", names[i]);
	fprintf(f, "\"\n\n\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"$cmds --help --version\" -- \"$cur\"))\n"
		   "\t\treturn\n\tfi\n\tcase $prev in\n"
		   "\t--profile) COMPREPLY=($(compgen -W \"$profiles\" -- \"$cur\") $(compgen -f -- \"$cur\")); return ;;\n"
		   "\t--locks-format) COMPREPLY=($(compgen -W \"perf lock_stat\" -- \"$cur\")); return ;;\n"
		   "\t--json|--csv|--trace|--plot) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
		   "\tesac\n\tcase ${COMP_WORDS[1]} in\n");
	for (k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
		fprintf(f, "\t%s) opts=\"", masks[k].name);
		for (i = 0; i < NR_CLI_OPTS; i++)
			if (cli_opts[i].cmds & masks[k].mask)
				fprintf(f, "%s ", cli_opts[i].name);
		fprintf(f, "--help\" ;;\n");
	}
	fprintf(f, "\tesac\n\tif [[ $cur == -* ]]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		   "\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n"
		   "\trun|show|sweep|reproduce|live|compare) COMPREPLY=($(compgen -W \"$scenarios\" -- \"$cur\")) ;;\n"
		   "\tprofiles) COMPREPLY=($(compgen -W \"$profiles\" -- \"$cur\") $(compgen -f -- \"$cur\")) ;;\n"
		   "\thelp) COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\")) ;;\n"
		   "\tmerge) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
		   "\tesac\n}\ncomplete -F _mmsim mmsim\n");
	return 0;
}

static int cmd_version(struct cli *c, int argc, char **argv)
{
	if (argc > 1)
		return cli_fail(c, "version %s: takes no operand", argv[1]);
	fprintf(c->out, "mmsim %s\n", MMSIM_VERSION);
	return 0;
}

static const struct cli_cmd cli_cmds[] = {
	{ "list", "", "scenarios, one line each", cmd_list },
	{ "show", "SCENARIO", "its variants, parameters, metrics and profile", cmd_show },
	{ "run", "SCENARIO [options]", "run the variants and print the table", cmd_run },
	{ "reproduce", "[SCENARIO...] [options]",
	  "the published experiments, simulated beside published", cmd_reproduce },
	{ "sweep", "SCENARIO --vary K=V1,V2 [options]",
	  "a grid of runs, one process each, as one CSV", cmd_sweep },
	{ "merge", "A.csv B.csv ... [--csv OUT]",
	  "join the CSVs of a sweep's shards, in order", cmd_merge },
	{ "diff", "A.json B.json", "two saved runs side by side, metric by metric and "
	  "lock by lock, with the changes", cmd_diff },
	{ "sensitivity", "SCENARIO [options]",
	  "every assumption at both ends of its range: which conclusions hold",
	  cmd_sensitivity },
	{ "profiles", "[NAME|FILE | --from-host [FILE]]",
	  "list profiles, print one with sources, or write this machine's",
	  cmd_profiles },
	{ "live", "...", "run a workload on this machine's kernel", cmd_live },
	{ "compare", "...", "compare live and simulated results", cmd_compare },
	{ "help", "[COMMAND]", "this text (also --help), or one command's", cmd_help },
	{ "version", "", "the version (also --version)", cmd_version },
	{ "man", "", "the manual page, in roff (man -l <(mmsim man))", cmd_man },
	{ "completion", "bash", "a bash completion script", cmd_completion },
	{ NULL, NULL, NULL, NULL },
};

/**
 * mmsim_main() - the mmsim command line
 * @argc: argument count
 * @argv: arguments; argv[0] is the program name
 * @registry: the scenarios, NULL-terminated (sim_scenarios, or a test's)
 * @out: standard output
 * @err: standard error; gets at most one "mmsim: error: ..." line
 *
 * Context: the host process, outside any engine run.
 * Return: the exit code: 0 success, 1 internal failure, 2 bad input.
 */
int mmsim_main(int argc, char **argv,
	       const struct scenario_ops *const *registry, FILE *out, FILE *err)
{
	struct cli *c;
	const char *cmd;
	size_t n;
	int i, ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(err, "mmsim: error: out of memory\n");
		return 1;
	}
	c->registry = registry;
	c->out = out;
	c->err = err;
	c->prog = argc > 0 ? argv[0] : "mmsim";
	if (argc < 2) {
		ret = cli_fail(c, "expected a command: try mmsim help");
		goto out_report;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		cmd = "help";
	if (!strcmp(cmd, "--version"))
		cmd = "version";
	for (i = 0; cli_cmds[i].name; i++)
		if (!strcmp(cli_cmds[i].name, cmd))
			break;
	if (!cli_cmds[i].name) {
		n = (size_t)snprintf(c->msg, sizeof(c->msg),
				     "unknown command %s: expected one of", cmd);
		for (i = 0; cli_cmds[i].name && n < sizeof(c->msg); i++)
			n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
					      i ? "," : "", cli_cmds[i].name);
		ret = 2;
		goto out_report;
	}
	for (int k = 2; k < argc && cli_cmds[i].fn != cmd_live &&
	     cli_cmds[i].fn != cmd_compare; k++)
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			ret = cli_cmds[i].fn == cmd_help ? cmd_help(c, 1, argv)
							 : cmd_help_one(c, cli_cmds[i].name);
			goto out_report;
		}
	ret = cli_cmds[i].fn(c, argc - 1, argv + 1);
out_report:
	if (ret && c->msg[0])
		fprintf(err, "mmsim: error: %s\n", c->msg);
	fflush(out);
	free(c);
	return ret;
}
