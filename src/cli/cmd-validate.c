// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim validate [EXPERIMENT...] [options]`: the model against this
 * machine's kernel, thread count by thread count.
 *
 * For each experiment with a live form and each thread count (1, 2, 4, ...
 * up to this machine's CPUs, or --threads), the experiment runs live
 * --repeat times (after one warm-up run that is not counted: the first
 * touch of memory a guest gave back to its host measures the hypervisor;
 * the thread counts in turn, one run of each a round: validate_exp())
 * and --repeat times simulated, seeds 1..--repeat, on a profile of this
 * machine (--profile, else the one `mmsim calibrate --quick` writes), in
 * the variant that models the running kernel: a seed draws what each live
 * run draws for itself (the workers' relative phase), and the two medians
 * are compared.  Each metric both sides have is judged: sim/live within the band (25% by default), or, where the live
 * median is near zero (below the tolerance of its unit, stated in the
 * report), |sim - live| within that tolerance.  A metric the machine cannot
 * measure is "unavailable", with live mode's reason, and is not judged.
 *
 * Every run is a child process of this binary (`mmsim live ... --json F`,
 * `mmsim run ... --json F`), so that validate reads what a user reads and
 * a crash or a signal in one run cannot leave the machine changed: a live
 * child gets SIGTERM when validate ends (PR_SET_PDEATHSIG) and restores its
 * settings itself.  Their JSON goes to a temporary folder, removed at the
 * end and on SIGINT, SIGTERM and SIGHUP.
 *
 * Output: a table, --json FILE (the whole report), --plot FILE (simulated
 * and live against thread count, one chart per experiment and metric).
 * Exit 0; with --check, 1 when a judged metric misses (`make validate`).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_impl.h"
#include "host/calibrate.h"
#include "host/spawn.h"
#include "mmsim/output.h"
#include "mmsim/workload.h"

#define VALIDATE_MAX_THREADS 16		/* thread counts per experiment */
#define VALIDATE_MAX_REPEAT 50
#define VALIDATE_MAX_EXPS 16

/*
 * An experiment with a live form, as validate runs it: its definition
 * gives the variant that models the running kernel (scenario_ops.mainline,
 * else its baseline), the parameter that counts its tasks (tasks_param;
 * NULL: a fixed set of tasks, run once at its defaults) and the settings
 * of a validation run (validate_sets).
 */
struct validate_exp {
	const char *name;
	const char *arg;		/* what names it to a child: sim_scenario_arg() */
	const char *threads_key;
	const char *variant;
	const char *const *sets;	/* NULL-terminated, or NULL */
};

static void validate_exp_of(const struct scenario_ops *s, struct validate_exp *x)
{
	x->name = s->name;
	x->arg = sim_scenario_arg(s);
	x->threads_key = s->tasks_param;
	x->variant = s->variants[sim_scenario_mainline(s)].name;
	x->sets = s->validate_sets;
}

/*
 * The tolerance of a near-zero live value, by the metric's unit (its
 * sim_metric.unit): a time 1 ms, a percentage 1 point, a count 100 (of
 * shootdowns at one thread, say).  A rate or a ratio ("ops/s", "cycles")
 * has none: it is judged by sim/live alone, and a live 0 agrees only with
 * a simulated 0.
 */
static double validate_abs_tol(const char *exp, const char *key)
{
	const struct scenario_ops *s = sim_scenario_find(exp);
	const char *unit = NULL;

	for (int i = 0; s && s->metrics[i].key; i++)
		if (!strcmp(s->metrics[i].key, key))
			unit = s->metrics[i].unit;
	if (!unit)
		return 0;
	if (!strcmp(unit, "s"))
		return 1e-3;
	if (!strcmp(unit, "%"))
		return 1.0;
	if (strchr(unit, '/') || !strcmp(unit, "cycles") || !strcmp(unit, "ns"))
		return 0;
	return 100.0;
}

/*
 * A workload file's metrics that validate judges: the rate per task (LKP's
 * per_process_ops), the faults and, with op_bytes, the throughput.  The
 * others follow from them (ops, ops_per_s) or from the parameters (a
 * duration loop's runtime_s), or are live mode's lock accounting.
 */
static bool validate_wl_judged(const char *key)
{
	return !strcmp(key, "ops_per_task_s") || !strcmp(key, "faults") ||
	       !strcmp(key, "throughput_bytes_s");
}

struct validate_point {
	const struct validate_exp *x;
	int threads;
	char metric[48];
	double live[VALIDATE_MAX_REPEAT];
	int live_seq[VALIDATE_MAX_REPEAT];	/* each run's place among validate's live runs, from 1 */
	int nr_live;
	double median, lo, hi;
	bool has_sim;
	double sim;			/* the median of the simulated runs */
	double sims[VALIDATE_MAX_REPEAT];	/* one a seed, seeds 1..--repeat in order */
	int nr_sim;
	double sim_lo, sim_hi;
	char why[600];			/* unavailable: live mode's reason */
	bool failed;			/* the point could not run: why */
	json_t *sim_params;		/* the simulated run's parameters (a reference) */
	double xfer_ns;			/* the line transfer the simulated side took, 0: none */
	double live_xfer[VALIDATE_MAX_REPEAT];	/* measured just before each live run, 0: none */
	double xfer_lo, xfer_hi;	/* the experiment's measurements' range, 0: none */
	double trace_ns;		/* the lock recorder's sample the simulated side took, 0: none */
	double trace_begin_ns;		/* its contention_begin sample (with a call chain), 0: none */
	json_t *live_funcs;		/* --report functions: the warm-up run's "functions" */
	json_int_t live_samples;	/* and its "function_samples" */
	json_t *sim_funcs;		/* the simulated run's "functions" */
	int oom[VALIDATE_MAX_REPEAT];	/* each live run's OOM kills (vmstat oom_kill) */
	int nr_oom;
	const char *verdict;		/* agrees, misses, unavailable, not simulated */
};

static struct {
	char dir[64];			/* the temporary folder, "" when none */
	volatile pid_t child;
	int steps;			/* runs done, for the progress line */
} validate_tmp;

static void validate_rm_tmp(void)
{
	DIR *d;
	struct dirent *de;

	if (!validate_tmp.dir[0])
		return;
	d = opendir(validate_tmp.dir);
	while (d && (de = readdir(d))) {
		char p[400];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", validate_tmp.dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(validate_tmp.dir);
	validate_tmp.dir[0] = '\0';
}

static void validate_on_signal(int sig)
{
	pid_t child = validate_tmp.child;

	/* the live child restores what it changed before it exits */
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	validate_rm_tmp();
	_exit(128 + sig);
}

/*
 * Run this binary with @argv (argv[0] is ignored); its standard output to
 * /dev/null, its standard error kept in @err (the last line).  Return its
 * exit status, or -1 when it could not run (@err says why).  host_run()
 * keeps validate_tmp.child, which validate_on_signal() kills, up to date.
 */
static int validate_spawn(char *const argv[], char *err, size_t len)
{
	static char tail[4096];
	char line[401];
	struct host_cmd cmd = { .file = "/proc/self/exe", .argv = argv,
				.pdeathsig = SIGTERM, .quiet = true,
				.child = &validate_tmp.child };
	int status = host_run(&cmd, tail, sizeof(tail));

	host_last_line(tail, line, sizeof(line));
	snprintf(err, len, "%s", line);
	if (status < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The "metrics" object of the first variant of a --json file, or NULL. */
static json_t *validate_metrics(const char *path, json_t **doc, json_t **unavail)
{
	json_t *v;

	*doc = json_load_file(path, 0, NULL);
	if (!*doc)
		return NULL;
	v = json_array_get(json_object_get(*doc, "variants"), 0);
	if (unavail)
		*unavail = json_object_get(v, "unavailable");
	return json_object_get(v, "metrics");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n > 0 values, and the smallest and largest; sorts @x. */
static void median_in_place(double *x, int n, double *med, double *lo, double *hi)
{
	qsort(x, (size_t)n, sizeof(*x), cmp_double);
	*lo = x[0];
	*hi = x[n - 1];
	*med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static struct validate_point *validate_point(struct validate_point **pts, int *nr,
					     int *cap, const struct validate_exp *x,
					     int threads, const char *metric)
{
	struct validate_point *p;

	for (int i = 0; i < *nr; i++)
		if ((*pts)[i].x == x && (*pts)[i].threads == threads &&
		    !strcmp((*pts)[i].metric, metric))
			return &(*pts)[i];
	if (*nr == *cap) {
		int ncap = *cap ? *cap * 2 : 32;
		struct validate_point *n = realloc(*pts, (size_t)ncap * sizeof(*n));

		if (!n)
			return NULL;
		*pts = n;
		*cap = ncap;
	}
	p = &(*pts)[(*nr)++];
	memset(p, 0, sizeof(*p));
	p->x = x;
	p->threads = threads;
	snprintf(p->metric, sizeof(p->metric), "%s", metric);
	return p;
}

struct validate_opts {
	struct validate_exp exps_buf[VALIDATE_MAX_EXPS];
	const struct validate_exp *exps[VALIDATE_MAX_EXPS];
	int nr_exps;
	int threads[VALIDATE_MAX_THREADS];
	int nr_threads;
	int repeat;
	double band;			/* 0.25: sim/live in [0.75, 1.25] */
	const char *profile, *json, *plot;
	const char *sets[32];
	int nr_sets;
	bool check;
	bool functions;			/* --report functions */
};

static int validate_usage(struct cli *c)
{
	fprintf(c->out,
		"usage: mmsim validate [EXPERIMENT...] [--profile FILE] [--threads LIST] [--repeat N]\n"
		"                      [--band PCT] [--set KEY=VALUE]... [--json FILE] [--plot FILE] [--check]\n"
		"                      [--report functions]\n"
		"Runs each experiment that has a live form on this kernel and simulated on a\n"
		"profile of this machine, at each thread count, and judges sim/live per metric.\n"
		"  EXPERIMENT        an experiment with a live form or a workload (default: every\n"
		"                    experiment with a live form and every shipped workload\n"
		"                    with a tasks parameter)\n"
		"  --profile FILE    the simulated side's machine (default: `mmsim calibrate --quick`)\n"
		"  --threads LIST    thread counts, e.g. 1,2,4 (default: 1, 2, 4, ... up to the CPUs)\n"
		"  --repeat N        live runs per point, after one warm-up run, and simulated\n"
		"                    runs, seeds 1..N (default 3); an experiment's thread counts\n"
		"                    take their live runs in turn (1, 2, 1, 2, ...)\n"
		"  --band PCT        sim/live within this many percent agrees (default 25)\n"
		"  --set KEY=VALUE   a parameter of both sides, for every experiment that has it\n"
		"  --json FILE       the whole report (\"-\": standard output, no table)\n"
		"  --plot FILE       simulated and live against thread count (.svg or .png)\n"
		"  --check           exit 1 when a judged metric misses (make validate)\n"
		"  --report functions  also where each point's time goes, by kernel function:\n"
		"                    the warm-up live run's samples beside the simulated run's\n"
		"Live runs change THP settings with --apply when run as root, and restore them.\n");
	return 0;
}

static int validate_parse(struct cli *c, int argc, char **argv, struct validate_opts *o,
			  bool dry)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(o, 0, sizeof(*o));
	o->repeat = 3;
	o->band = 0.25;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return validate_usage(c) - 1;
		if (a[0] != '-') {
			const struct scenario_ops *s = sim_scenario_lookup(c->registry, a, true,
									   c->msg, sizeof(c->msg));

			if (!s)
				return 2;
			if (o->nr_exps == VALIDATE_MAX_EXPS)
				return cli_fail(c, "validate: too many experiments: expected at most %d",
						VALIDATE_MAX_EXPS);
			validate_exp_of(s, &o->exps_buf[o->nr_exps]);
			o->exps[o->nr_exps] = &o->exps_buf[o->nr_exps];
			o->nr_exps++;
			continue;
		}
		if (!strcmp(a, "--check")) {
			o->check = true;
			continue;
		}
		if (strcmp(a, "--profile") && strcmp(a, "--threads") && strcmp(a, "--repeat") &&
		    strcmp(a, "--band") && strcmp(a, "--json") && strcmp(a, "--plot") &&
		    strcmp(a, "--set") && strcmp(a, "--report"))
			return cli_fail(c, "validate: unknown option '%s': expected --profile, "
					"--threads, --repeat, --band, --set, --json, --plot, --report "
					"or --check", a);
		if (!v)
			return cli_fail(c, "validate %s: missing value: expected %s VALUE", a, a);
		i++;
		if (!strcmp(a, "--report")) {
			if (strcmp(v, "functions"))
				return cli_fail(c, "validate --report %s: expected functions", v);
			o->functions = true;
		} else if (!strcmp(a, "--profile")) {
			o->profile = v;
		} else if (!strcmp(a, "--json")) {
			o->json = v;
		} else if (!strcmp(a, "--plot")) {
			o->plot = v;
		} else if (!strcmp(a, "--set")) {
			if (!strchr(v, '=') || o->nr_sets == 32)
				return cli_fail(c, "validate --set %s: expected KEY=VALUE (at most 32)", v);
			o->sets[o->nr_sets++] = v;
		} else if (!strcmp(a, "--repeat")) {
			long n;

			errno = 0;
			n = strtol(v, &end, 10);
			if (errno || *end || end == v || n < 1 || n > VALIDATE_MAX_REPEAT)
				return cli_fail(c, "validate --repeat %s: expected a count from 1 to %d",
						v, VALIDATE_MAX_REPEAT);
			o->repeat = (int)n;
		} else if (!strcmp(a, "--band")) {
			double b;

			errno = 0;
			b = strtod(v, &end);
			if (errno || *end || end == v || !(b > 0 && b < 1000))
				return cli_fail(c, "validate --band %s: expected a percentage above 0 "
						"and below 1000", v);
			o->band = b / 100;
		} else {	/* --threads */
			const char *p = v;

			o->nr_threads = 0;
			while (*p) {
				long n;

				errno = 0;
				n = strtol(p, &end, 10);
				if (errno || end == p || n < 1 || n > 4096 ||
				    (*end && *end != ',') || o->nr_threads == VALIDATE_MAX_THREADS)
					return cli_fail(c, "validate --threads %s: expected a list of "
							"up to %d counts from 1 to 4096, e.g. 1,2,4",
							v, VALIDATE_MAX_THREADS);
				o->threads[o->nr_threads++] = (int)n;
				p = *end ? end + 1 : end;
			}
			if (!o->nr_threads)
				return cli_fail(c, "validate --threads: expected a list such as 1,2,4");
		}
	}
	if (!o->nr_exps) {	/* default: every experiment with a live form */
		for (int k = 0; c->registry[k] && o->nr_exps < VALIDATE_MAX_EXPS; k++) {
			if (!c->registry[k]->live)
				continue;
			validate_exp_of(c->registry[k], &o->exps_buf[o->nr_exps]);
			o->exps[o->nr_exps] = &o->exps_buf[o->nr_exps];
			o->nr_exps++;
		}
		/* and every shipped workload with a parameter that counts its tasks */
		for (int k = 0; c->registry == sim_scenarios && wl_builtins[k].name &&
		     o->nr_exps < VALIDATE_MAX_EXPS; k++) {
			const struct scenario_ops *s = sim_scenario_lookup(c->registry,
									   wl_builtins[k].name, true,
									   c->msg, sizeof(c->msg));

			if (!s)
				return 2;	/* a shipped file is bad: its line */
			if (!workload_of(s) || !s->tasks_param)
				continue;	/* an experiment of that name wins */
			validate_exp_of(s, &o->exps_buf[o->nr_exps]);
			o->exps[o->nr_exps] = &o->exps_buf[o->nr_exps];
			o->nr_exps++;
		}
	}
	if (!o->nr_threads) {
		for (long n = 1; n <= (ncpu > 0 ? ncpu : 1) &&
		     o->nr_threads < VALIDATE_MAX_THREADS; n *= 2)
			o->threads[o->nr_threads++] = (int)n;
		if (ncpu > 1 && o->threads[o->nr_threads - 1] != ncpu &&
		    o->nr_threads < VALIDATE_MAX_THREADS)
			o->threads[o->nr_threads++] = (int)ncpu;
	}
	if (dry)
		return 0;	/* names and values only: no file is read */
	if (o->profile && access(o->profile, R_OK))
		return cli_fail(c, "validate --profile %s: cannot read it (%s): expected a "
				"profile file (mmsim calibrate --out FILE)", o->profile,
				strerror(errno));
	if (o->json && sim_outfile_check("--json", o->json, c->msg, sizeof(c->msg)))
		return 2;
	if (o->plot && cli_plot_check_path(c, o->plot))
		return 2;
	return 0;
}

/* Whether @key=... is among @sets (KEY=VALUE strings, @nr of them). */
static bool validate_set_has(const char *const *sets, int nr, const char *key)
{
	size_t kl = strlen(key);

	for (int j = 0; j < nr; j++)
		if (sets[j] && !strncmp(sets[j], key, kl) && sets[j][kl] == '=')
			return true;
	return false;
}

/*
 * argv for one child: "mmsim", then @pre, then the experiment's and the
 * user's --set.  With @live_defs (the simulated side), every parameter
 * with a live default that nothing sets is given at that default, so that
 * the simulated run is the live run (sim_run_config_init_live(), as
 * compare does): `mmsim run` alone would take the published defaults.
 */
static int validate_argv(char **argv, int max, const char *const *pre,
			 const struct validate_opts *o, const struct validate_exp *x,
			 const char *threads_set, bool live_defs)
{
	static char defs[SIM_MAX_PARAMS][96];
	const struct scenario_ops *s = sim_scenario_find(x->arg);
	int n = 0, nr_x = 0;

	argv[n++] = "mmsim";
	for (; *pre && n < max - 3; pre++)
		argv[n++] = (char *)*pre;
	while (x->sets && x->sets[nr_x])
		nr_x++;
	for (int i = 0; live_defs && s && s->params[i].key && i < SIM_MAX_PARAMS &&
	     n < max - 3; i++) {
		const struct sim_param *p = &s->params[i];
		char v[64];

		if (!p->has_live_def || validate_set_has(x->sets, nr_x, p->key) ||
		    validate_set_has(o->sets, o->nr_sets, p->key) ||
		    (x->threads_key && !strcmp(x->threads_key, p->key)))
			continue;
		sim_param_format(p, p->live_def, v, sizeof(v));
		snprintf(defs[i], sizeof(defs[i]), "%s=%s", p->key, v);
		argv[n++] = "--set";
		argv[n++] = defs[i];
	}
	for (int i = 0; x->sets && x->sets[i] && n < max - 3; i++) {
		bool overridden = false;
		size_t kl = strcspn(x->sets[i], "=");

		for (int j = 0; j < o->nr_sets; j++)
			overridden |= !strncmp(o->sets[j], x->sets[i], kl + 1);
		if (overridden)
			continue;
		argv[n++] = "--set";
		argv[n++] = (char *)x->sets[i];
	}
	for (int j = 0; j < o->nr_sets && n < max - 3; j++) {
		size_t kl = strcspn(o->sets[j], "=");
		bool model_only = false;

		/* a parameter of the model alone goes to the simulated side, as compare's */
		for (int i = 0; !live_defs && s && s->params[i].key; i++)
			if (strlen(s->params[i].key) == kl && !strncmp(s->params[i].key, o->sets[j], kl))
				model_only = !s->params[i].live;
		if (model_only)
			continue;
		argv[n++] = "--set";
		argv[n++] = (char *)o->sets[j];
	}
	if (threads_set && n < max - 3) {
		argv[n++] = "--set";
		argv[n++] = (char *)threads_set;
	}
	argv[n] = NULL;
	return n;
}

/*
 * The model parameters the live run says this machine implies (its
 * "model_params": the stress-ng it has, the swap it used), as "--set"
 * values for the simulated side; a parameter the user or the experiment
 * sets wins.  The last live run's values replace the earlier ones'.
 */
static void validate_model_params(json_t *doc, const struct validate_opts *o,
				  const struct validate_exp *x, char mp[4][112], int *nr)
{
	json_t *v = json_array_get(json_object_get(doc, "variants"), 0);
	json_t *params = json_object_get(v, "model_params"), *val;
	const char *key;
	int nr_x = 0;

	if (!json_is_object(params))
		return;
	while (x->sets && x->sets[nr_x])
		nr_x++;
	*nr = 0;
	json_object_foreach(params, key, val) {
		if (*nr >= 4 || !json_is_string(val) ||
		    validate_set_has(o->sets, o->nr_sets, key) ||
		    validate_set_has(x->sets, nr_x, key))
			continue;
		snprintf(mp[(*nr)++], 112, "%s=%s", key, json_string_value(val));
	}
}

/*
 * One thread count of an experiment while validate_exp() runs it: what its
 * live runs told the simulated side, and whether it failed (why in @why).
 */
struct validate_run {
	int threads;			/* 0: a fixed set of tasks */
	char tset[64];			/* "KEY=N" for the thread count, "" when none */
	char mp[4][112];		/* validate_model_params() */
	int nr_mp;
	bool traced;			/* a live run recorded lock waits */
	json_t *live_funcs;		/* --report functions: the warm-up run's */
	json_int_t live_samples;
	bool failed;
	char why[600];
};

/* One live run of @run (@r == -1: the warm-up, not judged). */
static int validate_live(struct cli *c, const struct validate_opts *o,
			 const struct validate_exp *x, struct validate_run *run, int r,
			 double xfer_now, struct validate_point **pts, int *nr, int *cap)
{
	char jpath[128], err[512];
	char *argv[96];
	/* --report functions: the warm-up run samples (it is not judged) */
	bool prof = o->functions && r < 0;
	const char *pre[8] = { "live", x->arg, "--json", jpath };
	int np = 4, oom, st;
	json_t *doc, *m, *un, *val, *v0, *k;
	const char *key;

	snprintf(jpath, sizeof(jpath), "%s/live.json", validate_tmp.dir);
	if (prof) {
		pre[np++] = "--report";
		pre[np++] = "functions";
	}
	if (geteuid() == 0)
		pre[np++] = "--apply";
	pre[np] = NULL;
	validate_argv(argv, 96, pre, o, x, run->tset[0] ? run->tset : NULL, false);
	st = validate_spawn(argv, err, sizeof(err));
	cli_progress_step(++validate_tmp.steps);
	if (st)
		return cli_fail(c, "the live run failed (exit %d): %s", st, err);
	if (r < 0) {
		if (prof && validate_metrics(jpath, &doc, NULL)) {
			v0 = json_array_get(json_object_get(doc, "variants"), 0);
			run->live_funcs = json_incref(json_object_get(v0, "functions"));
			run->live_samples = json_integer_value(json_object_get(v0,
								"function_samples"));
		}
		if (prof)
			json_decref(doc);
		return 0;
	}
	m = validate_metrics(jpath, &doc, &un);
	if (!m) {
		json_decref(doc);
		return cli_fail(c, "the live run's JSON has no metrics");
	}
	validate_model_params(doc, o, x, run->mp, &run->nr_mp);
	v0 = json_array_get(json_object_get(doc, "variants"), 0);
	run->traced |= json_is_string(json_object_get(v0, "lock_wait_method"));
	k = json_object_get(json_object_get(v0, "counters"), "oom_kill");
	oom = json_is_integer(k) ? (int)json_integer_value(k) : -1;
	json_object_foreach(m, key, val) {
		struct validate_point *p;

		if (workload_of(sim_scenario_find(x->arg)) && !validate_wl_judged(key))
			continue;
		p = validate_point(pts, nr, cap, x, run->threads, key);
		if (!p) {
			json_decref(doc);
			return cli_fail(c, "out of memory");
		}
		if (oom >= 0 && p->nr_oom < VALIDATE_MAX_REPEAT)
			p->oom[p->nr_oom++] = oom;
		if (json_is_number(val)) {
			p->live_seq[p->nr_live] = validate_tmp.steps;
			p->live_xfer[p->nr_live] = xfer_now;
			p->live[p->nr_live++] = json_number_value(val);
		} else {
			json_t *why = json_object_get(un, key);

			snprintf(p->why, sizeof(p->why), "%s", json_is_string(why) ?
				 json_string_value(why) : "live mode gives no value");
		}
	}
	json_decref(doc);
	return 0;
}

/*
 * The simulated side of @run: one run a seed, seeds 1..--repeat, as the
 * live side runs --repeat times (the workers' relative phase is drawn from
 * the seed, as each live run draws its own); --report functions from seed
 * 1's.  @xcost, @tcost and @bcost: the measured costs it takes ("" none).
 */
static int validate_sim(struct cli *c, const struct validate_opts *o,
			const struct validate_exp *x, const struct validate_run *run,
			const char *profile, const char *xcost, double xfer,
			const double xfer_range[2],
			const char *tcost, const char *bcost, const double trace[2],
			struct validate_point **pts, int *nr)
{
	char jpath[128], err[512];
	char *argv[96];
	json_t *sim_funcs = NULL, *doc, *m, *val;

	snprintf(jpath, sizeof(jpath), "%s/sim.json", validate_tmp.dir);
	for (int seed = 1; seed <= o->repeat; seed++) {
		const char *pre[24] = { "run", x->arg, "--variant", x->variant, "--profile",
					profile, "--jobs", "1", "--quiet", "--json", jpath };
		char seedstr[16];
		int np = 11, n, st;

		snprintf(seedstr, sizeof(seedstr), "%d", seed);
		pre[np++] = "--seed";
		pre[np++] = seedstr;
		if (o->functions && seed == 1) {
			pre[np++] = "--report";
			pre[np++] = "functions";
		}
		if (xcost[0]) {
			pre[np++] = "--cost";
			pre[np++] = xcost;
		}
		if (tcost[0]) {
			pre[np++] = "--cost";
			pre[np++] = tcost;
		}
		if (bcost[0]) {
			pre[np++] = "--cost";
			pre[np++] = bcost;
		}
		pre[np] = NULL;
		n = validate_argv(argv, 96, pre, o, x, run->tset[0] ? run->tset : NULL, true);
		for (int i = 0; i < run->nr_mp && n < 96 - 3; i++) {
			argv[n++] = "--set";
			argv[n++] = (char *)run->mp[i];
		}
		argv[n] = NULL;
		st = validate_spawn(argv, err, sizeof(err));
		if (st)
			return cli_fail(c, "the simulated run failed (exit %d): %s", st, err);
		m = validate_metrics(jpath, &doc, NULL);
		if (o->functions && seed == 1)
			sim_funcs = json_object_get(json_array_get(json_object_get(doc,
							"variants"), 0), "functions");
		for (int i = 0; i < *nr; i++) {
			struct validate_point *p = &(*pts)[i];
			json_t *params = json_object_get(doc, "params");

			if (p->x != x || p->threads != run->threads)
				continue;
			if (params && !p->sim_params)
				p->sim_params = json_incref(params);
			p->xfer_ns = xcost[0] ? xfer : 0;
			p->xfer_lo = xcost[0] ? xfer_range[0] : 0;
			p->xfer_hi = xcost[0] ? xfer_range[1] : 0;
			p->trace_ns = tcost[0] ? trace[0] : 0;
			p->trace_begin_ns = bcost[0] ? trace[1] : 0;
			if (run->live_funcs && !p->live_funcs) {
				p->live_funcs = json_incref(run->live_funcs);
				p->live_samples = run->live_samples;
			}
			if (sim_funcs && !p->sim_funcs)
				p->sim_funcs = json_incref(sim_funcs);
			val = m ? json_object_get(m, p->metric) : NULL;
			if (json_is_number(val) && p->nr_sim < VALIDATE_MAX_REPEAT) {
				p->has_sim = true;
				p->sims[p->nr_sim++] = json_number_value(val);
			}
		}
		json_decref(doc);
		sim_funcs = NULL;	/* a reference into the document just freed */
	}
	return 0;
}

/* A thread count that could not run: a "(run)" row saying why. */
static int validate_failed(struct cli *c, struct validate_run *run, const struct validate_exp *x,
			   struct validate_point **pts, int *nr, int *cap)
{
	struct validate_point *p = validate_point(pts, nr, cap, x, run->threads, "(run)");

	run->failed = true;
	snprintf(run->why, sizeof(run->why), "%s", c->msg);
	c->msg[0] = '\0';
	if (!p)
		return cli_fail(c, "out of memory") - 1;	/* exit 1: the machine's */
	p->nr_live = 0;
	p->failed = true;
	snprintf(p->why, sizeof(p->why), "%s", run->why);
	return 0;
}

/*
 * One experiment: its live runs at each thread count, then the simulated
 * ones.  The live runs go in turn, one of each thread count a round (a
 * warm-up of each first), so that a machine whose speed drifts from one
 * minute to the next (a guest's host: page_fault3's one-task rate moved
 * from 1.33 to 1.66 x 10^7 a second between two evenings here) drifts
 * under every thread count alike, and sim/live compares thread counts run
 * under the same conditions.  A thread count that cannot run is a row
 * saying why; the others go on.  Return nonzero only for out of memory.
 */
static int validate_exp(struct cli *c, const struct validate_opts *o,
			const struct validate_exp *x, const char *profile,
			struct validate_point **pts, int *nr, int *cap)
{
	struct validate_run runs[VALIDATE_MAX_THREADS];
	int nt = x->threads_key ? o->nr_threads : 1, ret = 0;
	char err[512], xcost[64] = "", tcost[64] = "", bcost[64] = "";
	bool root = geteuid() == 0, have_xfer, have_trace;
	double xs[(VALIDATE_MAX_REPEAT + 1) * VALIDATE_MAX_THREADS + 2], xnow = 0, xfer = 0;
	double xfer_range[2] = { 0, 0 }, trace[2] = { 0, 0 }, trace_base;
	int nx = 0;

	memset(runs, 0, sizeof(runs));
	for (int t = 0; t < nt; t++) {
		runs[t].threads = x->threads_key ? o->threads[t] : 0;
		if (x->threads_key)
			snprintf(runs[t].tset, sizeof(runs[t].tset), "%s=%d", x->threads_key,
				 runs[t].threads);
	}
	/*
	 * The line transfer between two CPUs, measured just before each live
	 * run and after the last (about 2 ms each): the simulated side takes
	 * their median, for the host may move a guest's vCPUs between core
	 * complexes from one minute to the next (about 40 or about 200 ns on
	 * the development guest; docs/validation.md), and each run keeps its
	 * own (live_run_transfer_ns).
	 */
	have_xfer = !cal_line_transfer_now(&xnow);
	if (have_xfer)
		xs[nx++] = xnow;
	/*
	 * A live run that records lock waits (live mode's recorder: a perf
	 * sample at each lock:contention_begin and _end) takes the _end sample
	 * with the lock just acquired, so each contended hold is longer by one
	 * sample; the simulated side carries that sample's cost, measured here
	 * as calibrate's note measures it (lock.contention_trace_ns).
	 */
	have_trace = root && !cal_trace_sample_now(-1, trace, &trace_base, err, sizeof(err));
	for (int r = -1; r < o->repeat && !ret; r++)	/* r == -1: the warm-ups */
		for (int t = 0; t < nt && !ret; t++) {
			if (runs[t].failed)
				continue;
			if (have_xfer && (r > -1 || t > 0) && !cal_line_transfer_now(&xnow))
				xs[nx++] = xnow;
			if (validate_live(c, o, x, &runs[t], r, have_xfer ? xnow : 0, pts, nr, cap))
				ret = validate_failed(c, &runs[t], x, pts, nr, cap);
		}
	if (have_xfer && !cal_line_transfer_now(&xnow))
		xs[nx++] = xnow;
	if (nx) {
		median_in_place(xs, nx, &xfer, &xfer_range[0], &xfer_range[1]);
		snprintf(xcost, sizeof(xcost), "cache.socket_transfer_ns=%.0f", xfer < 1 ? 1 : xfer);
	}
	for (int t = 0; t < nt && !ret; t++) {
		if (runs[t].failed)
			continue;
		tcost[0] = bcost[0] = '\0';
		if (have_trace && runs[t].traced && trace[0] >= 1)
			snprintf(tcost, sizeof(tcost), "lock.contention_trace_ns=%.0f", trace[0]);
		if (tcost[0] && trace[1] >= 1)
			snprintf(bcost, sizeof(bcost), "lock.contention_begin_ns=%.0f", trace[1]);
		if (validate_sim(c, o, x, &runs[t], profile, xcost, xfer, xfer_range, tcost, bcost,
				 trace, pts, nr))
			ret = validate_failed(c, &runs[t], x, pts, nr, cap);
	}
	for (int t = 0; t < nt; t++)
		json_decref(runs[t].live_funcs);
	return ret;
}

/*
 * --report functions: a point's time by kernel function, the simulated
 * run's rows (of its virtual CPU time) with the warm-up live run's share of
 * its samples for the same function, as compare prints them.
 */
static void validate_print_functions(struct cli *c, const struct validate_point *p)
{
	size_t ns = json_array_size(p->sim_funcs);
	int shown = 0;

	if (p->x->threads_key)
		fprintf(c->out, "functions: %s at %d", p->x->name, p->threads);
	else
		fprintf(c->out, "functions: %s", p->x->name);
	fprintf(c->out, " (children %%, self %%: live of %lld samples, simulated of its "
		"virtual CPU time)\n", (long long)p->live_samples);
	if (!ns) {
		fprintf(c->out, "  (no simulated functions)\n");
		return;
	}
	for (size_t i = 0; i < ns && shown < 12; i++) {
		json_t *r = json_array_get(p->sim_funcs, i), *l;
		const char *name = json_string_value(json_object_get(r, "function"));
		bool spin = json_is_true(json_object_get(r, "lock_wait"));
		char lc[16] = "-", lsf[16] = "-";
		size_t k;

		if (!name)
			continue;
		json_array_foreach(p->live_funcs, k, l) {
			const char *ln = json_string_value(json_object_get(l, "function"));

			if (spin || !ln || strcmp(ln, name) || !p->live_samples)
				continue;
			snprintf(lc, sizeof(lc), "%.1f%%", 100.0 *
				 (double)json_integer_value(json_object_get(l, "children")) /
				 (double)p->live_samples);
			snprintf(lsf, sizeof(lsf), "%.1f%%", 100.0 *
				 (double)json_integer_value(json_object_get(l, "self")) /
				 (double)p->live_samples);
		}
		char row[64];

		snprintf(row, sizeof(row), "%s%s", spin ? "spin: " : "", name);
		fprintf(c->out, "  %-42s live %7s %7s   simulated %6.1f%% %6.1f%%\n", row, lc, lsf,
			json_number_value(json_object_get(r, "children_pct")),
			json_number_value(json_object_get(r, "self_pct")));
		shown++;
	}
}

/* The range of the points' positive values of the double at @off; false if none. */
static bool validate_range(const struct validate_point *pts, int nr, size_t off,
			   double *lo, double *hi)
{
	*lo = *hi = 0;
	for (int i = 0; i < nr; i++) {
		double v;

		memcpy(&v, (const char *)&pts[i] + off, sizeof(v));
		if (v > 0) {
			*lo = *lo == 0 || v < *lo ? v : *lo;
			*hi = v > *hi ? v : *hi;
		}
	}
	return *hi > 0;
}

/* The median of @n runs, and the smallest and largest; @x keeps its order. */
static void validate_median(const double *x, int n, double *med, double *lo, double *hi)
{
	double v[VALIDATE_MAX_REPEAT];

	memcpy(v, x, (size_t)n * sizeof(*v));
	median_in_place(v, n, med, lo, hi);
}

static void validate_judge(struct validate_point *p, double band)
{
	double tol;

	if (p->nr_sim)		/* the seeds' median, judged or not */
		validate_median(p->sims, p->nr_sim, &p->sim, &p->sim_lo, &p->sim_hi);
	if (p->failed) {
		p->verdict = "failed";
		return;
	}
	if (!p->nr_live) {
		p->verdict = "unavailable";
		return;
	}
	validate_median(p->live, p->nr_live, &p->median, &p->lo, &p->hi);
	if (!p->has_sim) {
		p->verdict = "not simulated";
		return;
	}
	tol = validate_abs_tol(p->x->arg, p->metric);
	if (fabs(p->median) < tol || p->median == 0)
		p->verdict = fabs(p->sim - p->median) <= tol ?
			     "agrees (near zero)" : "misses (near zero)";
	else
		p->verdict = fabs(p->sim / p->median - 1) <= band ? "agrees" : "misses";
}

static int validate_plot(struct cli *c, const struct validate_opts *o,
			 struct validate_point *pts, int nr, const char *profile)
{
	struct plot_chart charts[64];
	struct plot_series series[64][2];
	double xs[64][VALIDATE_MAX_THREADS], ys[64][2][3][VALIDATE_MAX_THREADS];
	struct plot_axis axis = { .nr = o->nr_threads, .log2 = true };
	double pos[VALIDATE_MAX_THREADS];
	char text[VALIDATE_MAX_THREADS][32], title[256];
	int nr_c = 0;

	snprintf(axis.label, sizeof(axis.label), "threads");
	for (int t = 0; t < o->nr_threads; t++) {
		pos[t] = o->threads[t];
		snprintf(text[t], sizeof(text[t]), "%d", o->threads[t]);
	}
	axis.pos = pos;
	axis.text = text;
	for (int i = 0; i < nr && nr_c < 64; i++) {
		struct plot_chart *ch;
		int k = 0;

		if (pts[i].threads != o->threads[0] || !pts[i].nr_live || !pts[i].has_sim)
			continue;
		ch = &charts[nr_c];
		memset(ch, 0, sizeof(*ch));
		snprintf(ch->title, sizeof(ch->title), "%s", pts[i].x->name);
		snprintf(ch->ylabel, sizeof(ch->ylabel), "%s", pts[i].metric);
		ch->series = series[nr_c];
		ch->nr_series = 2;
		for (int s = 0; s < 2; s++) {
			memset(&series[nr_c][s], 0, sizeof(series[nr_c][s]));
			snprintf(series[nr_c][s].title, sizeof(series[nr_c][s].title), "%s",
				 s ? "simulated (median, min..max of the seeds)" :
				     "live (median, min..max)");
			series[nr_c][s].x = xs[nr_c];
			series[nr_c][s].mean = ys[nr_c][s][0];
			series[nr_c][s].lo = ys[nr_c][s][1];
			series[nr_c][s].hi = ys[nr_c][s][2];
		}
		for (int j = 0; j < nr; j++) {
			if (pts[j].x != pts[i].x || strcmp(pts[j].metric, pts[i].metric) ||
			    !pts[j].nr_live || !pts[j].has_sim)
				continue;
			xs[nr_c][k] = pts[j].threads;
			ys[nr_c][0][0][k] = pts[j].median;
			ys[nr_c][0][1][k] = pts[j].lo;
			ys[nr_c][0][2][k] = pts[j].hi;
			ys[nr_c][1][0][k] = pts[j].sim;
			ys[nr_c][1][1][k] = pts[j].sim_lo;
			ys[nr_c][1][2][k] = pts[j].sim_hi;
			k++;
		}
		series[nr_c][0].nr = series[nr_c][1].nr = k;
		nr_c++;
	}
	if (!nr_c)
		return 0;
	snprintf(title, sizeof(title), "mmsim validate: simulated (profile %s) and live", profile);
	return cli_plot_sweep(c, o->plot, title, &axis, charts, nr_c);
}

/* The profile of the simulated side: --profile, else `calibrate --quick` now. */
static int validate_profile(struct cli *c, const struct validate_opts *o, char *path,
			    size_t len)
{
	char *argv[] = { "mmsim", "calibrate", "--quick", "--out", path, NULL };
	char err[512];
	int st;

	if (o->profile) {
		snprintf(path, len, "%s", o->profile);
		return 0;
	}
	snprintf(path, len, "%s/host.ini", validate_tmp.dir);
	st = validate_spawn(argv, err, sizeof(err));
	if (st)
		return cli_fail(c, "validate: cannot make this machine's profile (calibrate "
				"exit %d): %s", st, err);
	fprintf(c->err, "mmsim: note: the simulated side runs the profile `mmsim calibrate "
		"--quick` wrote; give --profile FILE to keep one\n");
	return 0;
}

/**
 * cli_validate_dry_run() - parse a validate command line and run nothing
 * @c: the invocation
 * @argc: argument count
 * @argv: arguments; argv[0] is "validate"
 *
 * Return: 0, or 2 with c->msg filled.
 */
int cli_validate_dry_run(struct cli *c, int argc, char **argv)
{
	static struct validate_opts o;
	int ret = validate_parse(c, argc, argv, &o, true);

	return ret < 0 ? 0 : ret;
}

int cmd_validate(struct cli *c, int argc, char **argv)
{
	static struct validate_opts o;
	struct validate_point *pts = NULL;
	int nr = 0, cap = 0, ret, judged = 0, agree = 0, unavail = 0, steps;
	char profile[256];
	struct sigaction sa = { .sa_handler = validate_on_signal };
	json_t *doc = NULL, *arr;
	bool text_on;

	ret = validate_parse(c, argc, argv, &o, false);
	if (ret)
		return ret < 0 ? 0 : ret;
	text_on = !(o.json && !strcmp(o.json, "-"));
	snprintf(validate_tmp.dir, sizeof(validate_tmp.dir), "/tmp/mmsim-validate-XXXXXX");
	if (!mkdtemp(validate_tmp.dir)) {
		validate_tmp.dir[0] = '\0';
		return cli_fail(c, "validate: cannot make a temporary folder in /tmp (%s)",
				strerror(errno)) - 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * No judged metric is a tracepoint count (they are /proc counters, the
	 * workload's own and the lock recorder's), and each counted hit costs
	 * the task that hits it: 0.3-0.4 us a page of case-anon-cow-seq's
	 * copy-on-write faults here (docs/validation.md).  The live runs count
	 * none, unless the caller chose otherwise.
	 */
	setenv("MMSIM_LIVE_TRACEPOINTS", "off", 0);
	ret = validate_profile(c, &o, profile, sizeof(profile));
	steps = 0;
	for (int e = 0; e < o.nr_exps; e++)
		steps += (o.exps[e]->threads_key ? o.nr_threads : 1) * (o.repeat + 1);
	if (!ret && text_on)
		cli_progress_begin(c, "validate", steps);
	for (int e = 0; e < o.nr_exps && !ret; e++)
		ret = validate_exp(c, &o, o.exps[e], profile, &pts, &nr, &cap);
	if (text_on)
		cli_progress_end();
	for (int i = 0; i < nr; i++) {
		validate_judge(&pts[i], o.band);
		if (!strcmp(pts[i].verdict, "unavailable") ||
		    !strcmp(pts[i].verdict, "not simulated") ||
		    !strcmp(pts[i].verdict, "failed")) {
			unavail++;
			continue;
		}
		judged++;
		agree += !strncmp(pts[i].verdict, "agrees", 6);
	}
	if (!ret && text_on) {
		fprintf(c->out, "mmsim validate: profile %s; %d live runs per point (median, "
			"min..max) after one warm-up, and %d simulated, seeds 1..%d (median, "
			"min..max); band sim/live %.0f%%..%.0f%%; a live median "
			"near zero (below 1 ms for a time, 1 point for a percentage, 100 for a "
			"count; rates and ratios have none) is judged by |sim - live| within "
			"that\n", o.profile ? o.profile : "of this machine (made now)",
			o.repeat, o.repeat, o.repeat, 100 * (1 - o.band), 100 * (1 + o.band));
		fprintf(c->out, "%-16s %7s  %-28s %14s %25s %14s %25s %9s  %s\n", "experiment",
			"threads", "metric", "live", "live min..max", "simulated",
			"simulated min..max", "sim/live", "verdict");
		for (int i = 0; i < nr; i++) {
			const struct validate_point *p = &pts[i];
			char lv[32] = "-", range[64] = "-", sv[32] = "-", srange[64] = "-";
			char ratio[16] = "-", th[16];

			snprintf(th, sizeof(th), p->x->threads_key ? "%d" : "-", p->threads);
			if (p->nr_live) {
				snprintf(lv, sizeof(lv), "%.6g", p->median);
				snprintf(range, sizeof(range), "%.4g..%.4g", p->lo, p->hi);
			}
			if (p->has_sim) {
				snprintf(sv, sizeof(sv), "%.6g", p->sim);
				snprintf(srange, sizeof(srange), "%.4g..%.4g", p->sim_lo,
					 p->sim_hi);
			}
			if (p->has_sim && p->nr_live && p->median != 0)
				snprintf(ratio, sizeof(ratio), "%.2f", p->sim / p->median);
			fprintf(c->out, "%-16s %7s  %-28s %14s %25s %14s %25s %9s  %s%s%s\n",
				p->x->name, th, p->metric, lv, range, sv, srange, ratio,
				p->verdict, p->why[0] ? ": " : "", p->why);
		}
		double lo, hi;

		if (validate_range(pts, nr, offsetof(struct validate_point, xfer_ns), &lo, &hi))
			fprintf(c->out, "line transfer between two CPUs before each live run: the "
				"experiments' medians %.0f..%.0f ns (the simulated side takes its "
				"experiment's: --cost cache.socket_transfer_ns)\n", lo, hi);
		/* a host that moved the vCPUs during an experiment's live runs */
		for (int i = 0; i < nr; i++) {
			const struct validate_point *p = &pts[i];

			if (i && pts[i - 1].x == p->x)
				continue;
			if (p->xfer_lo > 0 && p->xfer_hi > 2 * p->xfer_lo)
				fprintf(c->out, "%s: the line transfer went from %.0f to %.0f ns "
					"during its live runs (the host moved the vCPUs): they mix "
					"placements (each run's: live_run_transfer_ns in the JSON)\n",
					p->x->name, p->xfer_lo, p->xfer_hi);
		}
		if (validate_range(pts, nr, offsetof(struct validate_point, trace_ns), &lo, &hi))
			fprintf(c->out, "lock waits recorded live: a perf sample of "
				"lock:contention_end inside each contended hold, %.0f..%.0f ns "
				"measured before each experiment's live runs (the simulated side takes "
				"its experiment's: --cost lock.contention_trace_ns)\n", lo, hi);
		if (validate_range(pts, nr, offsetof(struct validate_point, trace_begin_ns), &lo,
				   &hi))
			fprintf(c->out, "and a sample with a call chain at each lock:contention_begin, "
				"taken by the waiter before it spins and counted in its wait: "
				"%.0f..%.0f ns (the simulated side takes its experiment's: --cost "
				"lock.contention_begin_ns)\n", lo, hi);
		/* the OOM killer in the live runs: the model has none (docs/notes/2026-12-05-oom-kill.md) */
		for (int i = 0; i < nr; i++) {
			const struct validate_point *p = &pts[i];
			int hit = 0, lo = 0, hi = 0;

			if (i && pts[i - 1].x == p->x && pts[i - 1].threads == p->threads)
				continue;
			for (int r = 0; r < p->nr_oom; r++)
				if (p->oom[r] > 0) {
					lo = !hit || p->oom[r] < lo ? p->oom[r] : lo;
					hi = p->oom[r] > hi ? p->oom[r] : hi;
					hit++;
				}
			if (!hit)
				continue;
			if (p->x->threads_key)
				fprintf(c->out, "%s at %d: ", p->x->name, p->threads);
			else
				fprintf(c->out, "%s: ", p->x->name);
			fprintf(c->out, "the OOM killer struck in %d of %d live runs (%d-%d kills, "
				"vmstat oom_kill); the model has no OOM killer\n", hit, p->nr_oom, lo, hi);
		}
		for (int i = 0; o.functions && i < nr; i++)
			if (!i || pts[i - 1].x != pts[i].x || pts[i - 1].threads != pts[i].threads)
				validate_print_functions(c, &pts[i]);
		fprintf(c->out, "validate: %d of %d judged metrics agree, %d miss; %d not "
			"judged (unavailable live, not simulated, or failed to run)\n", agree, judged,
			judged - agree, unavail);
	}
	if (!ret && o.json) {
		struct sim_outfile f;
		char *text;

		doc = json_object();
		json_object_set_new(doc, "profile", json_string(o.profile ? o.profile : "made now"));
		json_object_set_new(doc, "repeat", json_integer(o.repeat));
		json_object_set_new(doc, "band", json_real(o.band));
		arr = json_array();
		for (int i = 0; i < nr; i++) {
			const struct validate_point *p = &pts[i];
			json_t *pt = json_object(), *runs = json_array();

			json_object_set_new(pt, "experiment", json_string(p->x->name));
			json_object_set_new(pt, "threads", p->x->threads_key ?
					    json_integer(p->threads) : json_null());
			json_object_set_new(pt, "metric", json_string(p->metric));
			for (int r = 0; r < p->nr_live; r++)
				json_array_append_new(runs, json_real(p->live[r]));
			json_object_set_new(pt, "live_runs", runs);
			runs = json_array();
			for (int r = 0; r < p->nr_live; r++)
				json_array_append_new(runs, json_integer(p->live_seq[r]));
			json_object_set_new(pt, "live_run_sequence", runs);
			if (p->xfer_ns > 0) {
				runs = json_array();
				for (int r = 0; r < p->nr_live; r++)
					json_array_append_new(runs, json_real(p->live_xfer[r]));
				json_object_set_new(pt, "live_run_transfer_ns", runs);
			}
			json_object_set_new(pt, "live_median", p->nr_live ? json_real(p->median) :
					    json_null());
			json_object_set_new(pt, "simulated", p->has_sim ? json_real(p->sim) :
					    json_null());
			{
				json_t *sr = json_array();

				for (int r = 0; r < p->nr_sim; r++)
					json_array_append_new(sr, json_real(p->sims[r]));
				json_object_set_new(pt, "simulated_runs", sr);
			}
			json_object_set_new(pt, "verdict", json_string(p->verdict));
			if (p->why[0])
				json_object_set_new(pt, "unavailable", json_string(p->why));
			if (p->sim_params)
				json_object_set(pt, "simulated_params", p->sim_params);
			if (o.functions) {
				json_t *fn = json_object();

				json_object_set(fn, "live", p->live_funcs ? p->live_funcs : json_null());
				json_object_set_new(fn, "live_samples", json_integer(p->live_samples));
				json_object_set(fn, "simulated", p->sim_funcs ? p->sim_funcs : json_null());
				json_object_set_new(pt, "functions", fn);
			}
			if (p->xfer_ns > 0)
				json_object_set_new(pt, "line_transfer_ns", json_real(p->xfer_ns));
			if (p->trace_ns > 0)
				json_object_set_new(pt, "contention_trace_ns", json_real(p->trace_ns));
			if (p->trace_begin_ns > 0)
				json_object_set_new(pt, "contention_begin_trace_ns",
						    json_real(p->trace_begin_ns));
			if (p->nr_oom) {
				json_t *k = json_array();

				for (int r = 0; r < p->nr_oom; r++)
					json_array_append_new(k, json_integer(p->oom[r]));
				json_object_set_new(pt, "live_oom_kills", k);
			}
			json_array_append_new(arr, pt);
		}
		json_object_set_new(doc, "points", arr);
		json_object_set_new(doc, "summary", json_pack("{s:i,s:i,s:i}", "judged", judged,
							      "agree", agree, "not_judged", unavail));
		text = json_dumps(doc, JSON_INDENT(2));
		if (!text || sim_outfile_open(&f, "--json", o.json, c->out, c->msg, sizeof(c->msg)) ||
		    sim_outfile_commit(&f, text, strlen(text), c->msg, sizeof(c->msg)))
			ret = 1;
		else if (f.fp == NULL && !strcmp(o.json, "-"))
			fputc('\n', c->out);
		free(text);
		json_decref(doc);
	}
	if (!ret && o.plot)
		ret = validate_plot(c, &o, pts, nr, o.profile ? o.profile : "of this machine");
	validate_rm_tmp();
	for (int i = 0; i < nr; i++) {
		json_decref(pts[i].sim_params);
		json_decref(pts[i].live_funcs);
		json_decref(pts[i].sim_funcs);
	}
	free(pts);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (!ret && o.check && agree < judged)
		return 1;
	return ret;
}
