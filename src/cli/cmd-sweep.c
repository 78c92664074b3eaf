// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim sweep`: a scenario over a grid of parameter
 * values and seeds, each point in its own process, one CSV for all.
 *
 *   mmsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--seeds N]
 *               [--jobs J] [--csv FILE] [--plot FILE] [--shard I/N]
 *               [--emit-jobs N] [--set ...] [--variant ...] [--profile ...]
 *               [--seed BASE] [--check] [--emit-jobs N [--slurm DIR [--submit]]]
 *               [--merge N]
 *
 * The charts of --plot are drawn by cmd-sweep-plot.c.
 *
 * Models nothing of the kernel.  The order of everything is fixed before
 * anything runs:
 *   grid   the product of the --vary lists, the first --vary outermost
 *          (slowest), the last innermost, values in the order given;
 *   runs   grid point, then seed index 1..N: run r = g * N + (i - 1);
 *   rows   per run, the variants in the scenario's order, then metrics.
 * A run's seed is a function of its configuration alone, never of the
 * order in which runs finish: the 64-bit FNV-1a hash of the text
 *   "SCENARIO;KEY1=VALUE1;...;seed=BASE/I"
 * (the varied keys in --vary order, values in mmsim's canonical form, as
 * the CSV prints them; BASE is --seed, default 1), masked to 53 bits so
 * that JSON and gnuplot hold it exactly.  `mmsim run SCENARIO --set
 * KEY=VALUE... --seed SEED` repeats any row.
 *
 * Each run is a job of the harness's process pool (src/harness/pool.c):
 * a fork()ed child that runs the scenario in-process and sends its CSV
 * rows back through a pipe, so a crash is contained and reported as that
 * point's failure; at most --jobs children run at once.
 * The rows are put back in run order, so the CSV is the same bytes for
 * any --jobs.  A failed run's rows are missing; the sweep then still
 * writes the CSV and exits 1 naming the first failed point.
 *
 * Shards: --shard I/N runs the runs [floor((I-1)P/N), floor(IP/N)) of the
 * P runs, a contiguous block, so the shards' CSVs given to `mmsim merge`
 * in the order 1..N are the unsharded CSV, byte for byte.  --emit-jobs N
 * prints the N shard commands, one per line, with zero-padded part names
 * so that a shell glob lists them in order; with --slurm DIR it writes
 * them as a Slurm job array (cluster.c).  --merge N joins the N parts,
 * each checked row by row against its shard's runs, and names every
 * shard whose part is missing or short, with its runs; nothing is
 * written until all are whole.  `mmsim merge` over files named as parts
 * checks that shards 1..N are all there.
 *
 * Limit: a sweep has at most SWEEP_MAX_RUNS runs (grid points x seeds).
 * The host clock is read only for the progress line (progress.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_impl.h"
#include "cli/sweep.h"
#include "mmsim/profile.h"


/**
 * cli_path_insert() - PATH with ".@ins" put before its extension
 * @path: a file name, e.g. "out.csv"
 * @ins: what to insert, e.g. "before"
 * @buf: the result, e.g. "out.before.csv" ("out.before" without an extension)
 * @len: size of @buf
 */
void cli_path_insert(const char *path, const char *ins, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');

	if (!dot || dot == (slash ? slash + 1 : path))
		snprintf(buf, len, "%s.%s", path, ins);
	else
		snprintf(buf, len, "%.*s.%s%s", (int)(dot - path), path, ins, dot);
}

/* 64-bit FNV-1a, the documented hash of a run's seed. */
static uint64_t fnv1a64(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

static void sweep_free(struct sweep *sw)
{
	int k;

	for (k = 0; k < sw->nr_axes; k++) {
		free(sw->axis[k].val);
		free(sw->axis[k].text);
		if (sw->axis[k].param < 0)
			free((char *)sw->axis[k].key);
	}
	plan_scenario_release(&sw->plan);
	memset(sw, 0, sizeof(*sw));
}

/* The values of axis @k of grid point @g (the last axis varies fastest). */
int sweep_axis_index(const struct sweep *sw, uint64_t g, int k)
{
	int j;

	for (j = sw->nr_axes - 1; j > k; j--)
		g /= (uint64_t)sw->axis[j].nr;
	return (int)(g % (uint64_t)sw->axis[k].nr);
}

/*
 * The configuration and seed of run @r.  With a profile key among the
 * axes, cfg->profile points to a copy of the profile with the point's
 * values, valid until the next call.
 */
static void sweep_config(const struct sweep *sw, uint64_t r,
			 struct sim_run_config *cfg)
{
	static struct sim_profile point_prof;
	uint64_t g = r / sw->nr_seeds, i = r % sw->nr_seeds + 1;
	uint64_t h = 14695981039346656037ULL;
	char part[SWEEP_TEXT + 72], err[CLI_ERR];
	bool copied = false;
	int k;

	*cfg = sw->plan.cfg;
	h = fnv1a64(sw->s->name, h);
	for (k = 0; k < sw->nr_axes; k++) {
		int j = sweep_axis_index(sw, g, k);

		if (sw->axis[k].param < 0) {
			if (!copied)
				point_prof = *sw->plan.prof;
			copied = true;
			snprintf(part, sizeof(part), "%s=%s", sw->axis[k].key, sw->axis[k].text[j]);
			/* Checked when the axis was parsed: it cannot fail here. */
			if (sim_profile_set(&point_prof, part, err, sizeof(err)))
				abort();
			cfg->profile = &point_prof;
		} else {
			cfg->params[sw->axis[k].param] = sw->axis[k].val[j];
		}
		snprintf(part, sizeof(part), ";%s=%s", sw->axis[k].key, sw->axis[k].text[j]);
		h = fnv1a64(part, h);
	}
	snprintf(part, sizeof(part), ";seed=%" PRIu64 "/%" PRIu64, sw->base_seed, i);
	h = fnv1a64(part, h);
	cfg->seed = h & ((1ULL << 53) - 1);
}

/* "cpus=4, seed 123" for errors. */
static void sweep_point_name(const struct sweep *sw, uint64_t r, char *buf,
			     size_t len)
{
	struct sim_run_config cfg;
	uint64_t g = r / sw->nr_seeds;
	size_t n = 0;
	int k;

	sweep_config(sw, r, &cfg);
	for (k = 0; k < sw->nr_axes && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s=%s ", sw->axis[k].key,
				      sw->axis[k].text[sweep_axis_index(sw, g, k)]);
	if (n < len)
		snprintf(buf + n, len - n, "seed %" PRIu64, cfg.seed);
}

/*
 * One value of an axis: parse @val into *@v and its canonical text into
 * @text (SWEEP_TEXT bytes).  Returns 0, or 2 with c->msg set.
 */
typedef int (*sweep_value_fn)(struct cli *c, struct sweep *sw, const struct sweep_axis *ax,
			      const char *arg, const char *val, uint64_t *v, char *text);

/*
 * Fill axis @ax (already counted in sw->nr_axes, so that sweep_free()
 * frees it) with the values of @list, "V1,V2,...", each parsed by @parse.
 * Returns 0, 2 for bad input or 1 for an internal failure, with c->msg set.
 */
static int sweep_axis_fill(struct cli *c, struct sweep *sw, struct sweep_axis *ax,
			   const char *arg, const char *list, sweep_value_fn parse)
{
	char val[SWEEP_TEXT];
	const char *p;
	int k, cap = 1;

	for (p = list; *p; p++)
		cap += *p == ',';
	if (cap > SWEEP_MAX_RUNS)
		return cli_fail(c, "--vary %s: %d values: expected at most %d", ax->key, cap,
				SWEEP_MAX_RUNS);
	ax->val = calloc((size_t)cap, sizeof(*ax->val));
	ax->text = calloc((size_t)cap, sizeof(*ax->text));
	if (!ax->val || !ax->text)
		return cli_fail(c, "out of memory") - 1;
	for (p = list; ; p++) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		uint64_t v = 0;

		if (!n || n >= sizeof(val))
			return cli_fail(c, "--vary %s: an empty or overlong value at position %d: expected KEY=V1,V2,...",
					arg, ax->nr + 1);
		memcpy(val, p, n);
		val[n] = '\0';
		if (parse(c, sw, ax, arg, val, &v, ax->text[ax->nr]))
			return 2;
		for (k = 0; k < ax->nr; k++)
			if (ax->val[k] == v)
				return cli_fail(c, "--vary %s: value %s given twice: expected each value once",
						arg, val);
		ax->val[ax->nr++] = v;
		if (!end)
			break;
		p = end;
	}
	return 0;
}

/* A value of a profile axis: checked on a copy of the profile, as --cost checks it. */
static int sweep_profile_value(struct cli *c, struct sweep *sw, const struct sweep_axis *ax,
			       const char *arg, const char *val, uint64_t *v, char *text)
{
	static struct sim_profile scratch;
	char assign[SWEEP_TEXT + 72], why[CLI_ERR];
	char *stop;

	scratch = *sw->plan.prof;
	snprintf(assign, sizeof(assign), "%s=%s", ax->key, val);
	if (sim_profile_set(&scratch, assign, why, sizeof(why)))
		return cli_fail(c, "--vary %s: %s", arg, why);
	*v = strtoull(val, &stop, 10);
	if (*stop)
		return cli_fail(c, "--vary %s: %s: expected a number to vary", arg, val);
	snprintf(text, SWEEP_TEXT, "%" PRIu64, *v);
	return 0;
}

/* A value of a scenario parameter's axis, as --set parses it. */
static int sweep_param_value(struct cli *c, struct sweep *sw, const struct sweep_axis *ax,
			     const char *arg, const char *val, uint64_t *v, char *text)
{
	const struct sim_param *prm = &sw->s->params[ax->param];

	(void)arg;
	if (sim_param_parse(prm, val, v, c->msg, sizeof(c->msg)))
		return 2;
	sim_param_format(prm, *v, text, SWEEP_TEXT);
	return 0;
}

/*
 * Is @key already varied, or fixed by one of the @nr assignments @given
 * ("KEY=VALUE" of option @opt)?  Returns 0, or 2 with c->msg set.
 */
static int sweep_key_taken(struct cli *c, const struct sweep *sw, const char *arg,
			   const char *key, const char *opt, const char *const *given, int nr)
{
	size_t n = strlen(key);
	int k;

	for (k = 0; k < sw->nr_axes; k++)
		if (!strcmp(sw->axis[k].key, key))
			return cli_fail(c, "--vary %s: %s is varied twice: expected each key once",
					arg, key);
	for (k = 0; k < nr; k++)
		if (!strncmp(given[k], key, n) && given[k][n] == '=')
			return cli_fail(c, "--vary %s: %s is also given with %s %s: expected one of them",
					arg, key, opt, given[k]);
	return 0;
}

/* --vary SECTION.KEY=V1,V2,...: an axis over one value of the profile. */
static int sweep_parse_profile_axis(struct cli *c, struct sweep *sw, const char *arg,
				    const char *key, const char *list,
				    const struct plan_args *a)
{
	struct sweep_axis *ax = &sw->axis[sw->nr_axes];

	if (sweep_key_taken(c, sw, arg, key, "--cost", a->costs, a->nr_costs))
		return 2;
	ax->param = -1;
	ax->key = strdup(key);
	sw->nr_axes++;		/* sweep_free() frees it from here on */
	if (!ax->key)
		return cli_fail(c, "out of memory") - 1;
	return sweep_axis_fill(c, sw, ax, arg, list, sweep_profile_value);
}

/* Parse one --vary KEY=V1,V2,... into the next axis. */
static int sweep_parse_axis(struct cli *c, struct sweep *sw, const char *arg,
			    const struct plan_args *a)
{
	const struct scenario_ops *s = sw->s;
	const char *eq = strchr(arg, '=');
	struct sweep_axis *ax = &sw->axis[sw->nr_axes];
	char key[64];
	size_t n;
	int i;

	if (!eq || eq == arg || !eq[1])
		return cli_fail(c, "--vary %s: expected KEY=V1,V2,... with at least one value",
				arg);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
	if (strchr(key, '.'))
		return sweep_parse_profile_axis(c, sw, arg, key, eq + 1, a);
	n = (size_t)snprintf(c->msg, sizeof(c->msg), "--vary %s: ", arg);
	if (n >= sizeof(c->msg))
		n = sizeof(c->msg) - 1;
	i = sim_scenario_param_lookup(s, key, c->msg + n, sizeof(c->msg) - n);
	if (i < 0)
		return 2;
	c->msg[0] = '\0';
	if (sweep_key_taken(c, sw, arg, s->params[i].key, "--set", a->sets, a->nr_sets))
		return 2;
	ax->param = i;
	ax->key = s->params[i].key;
	sw->nr_axes++;		/* sweep_free() frees it from here on */
	return sweep_axis_fill(c, sw, ax, arg, eq + 1, sweep_param_value);
}

/* Add (or, given again, replace) the fixed column @key = @text. */
static void sweep_fix(struct sweep *sw, const char *key, size_t keylen, const char *text)
{
	int k;

	for (k = 0; k < sw->nr_fixed; k++)
		if (strlen(sw->fixed[k].key) == keylen && !strncmp(sw->fixed[k].key, key, keylen))
			break;
	if (k == sw->nr_fixed) {
		if (sw->nr_fixed == (int)(sizeof(sw->fixed) / sizeof(sw->fixed[0])))
			return;
		sw->nr_fixed++;
	}
	snprintf(sw->fixed[k].key, sizeof(sw->fixed[k].key), "%.*s", (int)keylen, key);
	snprintf(sw->fixed[k].text, sizeof(sw->fixed[k].text), "%s", text);
}

/*
 * The CSV's fixed columns: each --set parameter at its value (canonical, as
 * the varied keys print), then each --cost key at the profile's value, so
 * that a row says every value it was run with that is not a default.
 */
static void sweep_fixed_columns(struct sweep *sw, const struct plan_args *a)
{
	char text[SWEEP_TEXT];
	uint64_t v;
	int k, i;

	for (k = 0; k < a->nr_sets; k++) {
		const char *eq = strchr(a->sets[k], '=');
		char key[64];

		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - a->sets[k]) : 0, a->sets[k]);
		i = sim_scenario_param_index(sw->s, key);
		if (i < 0)
			continue;
		sim_param_format(&sw->s->params[i], sw->plan.cfg.params[i], text, sizeof(text));
		sweep_fix(sw, sw->s->params[i].key, strlen(sw->s->params[i].key), text);
	}
	for (k = 0; k < a->nr_costs; k++) {
		const char *eq = strchr(a->costs[k], '=');
		char key[64];

		if (!eq)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - a->costs[k]), a->costs[k]);
		if (sim_profile_get(sw->plan.prof, key, &v))
			continue;	/* --cost takes numeric keys only */
		snprintf(text, sizeof(text), "%" PRIu64, v);
		sweep_fix(sw, a->costs[k], (size_t)(eq - a->costs[k]), text);
	}
}

/* Everything a sweep needs, checked before anything runs. */
static int sweep_setup(struct cli *c, const struct plan_args *a, struct sweep *sw)
{
	uint64_t r;
	int k, ret;

	memset(sw, 0, sizeof(*sw));
	if (a->nr_pos != 1)
		return cli_fail(c, "sweep: expected one scenario, got %d operands", a->nr_pos);
	sw->s = cli_find_scenario(c, a->pos[0]);
	if (!sw->s)
		return 2;
	if (!a->nr_vary)
		return cli_fail(c, "sweep %s: expected at least one --vary KEY=V1,V2,...",
				sw->s->name);
	ret = plan_scenario_prepare(sw->s, a, &sw->plan, c->msg, sizeof(c->msg));
	if (ret)
		return ret;
	sweep_fixed_columns(sw, a);
	for (sw->nr_metrics = 0; sw->s->metrics[sw->nr_metrics].key &&
	     sw->nr_metrics < SIM_MAX_METRICS; sw->nr_metrics++)
		;
	sw->base_seed = a->seed;
	sw->nr_seeds = a->seeds;
	sw->nr_grid = 1;
	for (k = 0; k < a->nr_vary; k++) {
		ret = sweep_parse_axis(c, sw, a->vary[k], a);
		if (ret)
			return ret;
		sw->nr_grid *= (uint64_t)sw->axis[k].nr;
		if (sw->nr_grid * sw->nr_seeds > SWEEP_MAX_RUNS)
			break;
	}
	if (sw->nr_grid * sw->nr_seeds > SWEEP_MAX_RUNS) {
		size_t n = (size_t)snprintf(c->msg, sizeof(c->msg), "sweep %s: the grid",
					    sw->s->name);

		for (k = 0; k < a->nr_vary && n < sizeof(c->msg); k++)
			n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
					      k ? " x" : "", a->vary[k]);
		if (n < sizeof(c->msg))
			snprintf(c->msg + n, sizeof(c->msg) - n,
				 " x %" PRIu64 " seeds has %s%" PRIu64 " runs: expected at most %d",
				 sw->nr_seeds, k < a->nr_vary ? "more than " : "",
				 sw->nr_grid * sw->nr_seeds, SWEEP_MAX_RUNS);
		return 2;
	}
	sw->nr_runs = sw->nr_grid * sw->nr_seeds;
	sw->first = 0;
	sw->last = sw->nr_runs;
	if (a->shard_n) {
		sw->first = (a->shard_i - 1) * sw->nr_runs / a->shard_n;
		sw->last = a->shard_i * sw->nr_runs / a->shard_n;
	}
	/* The scenario's own checks, for every point, before any work. */
	for (r = 0; r < sw->nr_runs; r += sw->nr_seeds) {
		struct sim_run_config cfg;
		char point[256];

		sweep_config(sw, r, &cfg);
		if (plan_validate(&cfg, c->msg, sizeof(c->msg))) {
			char why[CLI_ERR];

			snprintf(why, sizeof(why), "%s", c->msg);
			sweep_point_name(sw, r, point, sizeof(point));
			return cli_fail(c, "sweep point %s: %s", point, why);
		}
	}
	return 0;
}

/* The header row: scenario,KEY1,...,SET1,...,COST1,...,seed,variant,metric,value */
static void sweep_print_header(const struct sweep *sw, struct sim_out *o)
{
	int k;

	sim_out_printf(o, "scenario");
	for (k = 0; k < sw->nr_axes; k++)
		sim_out_printf(o, ",%s", sw->axis[k].key);
	for (k = 0; k < sw->nr_fixed; k++)
		sim_out_printf(o, ",%s", sw->fixed[k].key);
	sim_out_printf(o, ",seed,variant,metric,value\n");
}

/* In the child: run @r and put its rows (or the error) in @o. */
static int sweep_child_run(const struct sweep *sw, uint64_t r, struct sim_out *o)
{
	const struct scenario_ops *s = sw->s;
	struct sim_variant_result *res;
	struct sim_run_config cfg;
	uint64_t g = r / sw->nr_seeds;
	int i, m, k;

	sweep_config(sw, r, &cfg);
	res = calloc((size_t)sw->plan.nr, sizeof(*res));
	if (!res) {
		sim_out_printf(o, "out of memory");
		return 1;
	}
	for (i = 0; i < sw->plan.nr; i++) {
		char err[CLI_ERR] = "";

		res[i].name = s->variants[sw->plan.idx[i]].name;
		if (plan_run_variant(&sw->plan, &cfg, i, &res[i], err, sizeof(err))) {
			sim_out_printf(o, "variant %s: %s", res[i].name,
				       err[0] ? err : "the run failed");
			free(res);
			return 1;
		}
	}
	if (s->finish)
		s->finish(&cfg, res, sw->plan.nr);
	for (i = 0; i < sw->plan.nr; i++)
		for (m = 0; m < sw->nr_metrics; m++) {
			sim_out_printf(o, "%s", s->name);
			for (k = 0; k < sw->nr_axes; k++)
				sim_out_printf(o, ",%s",
					       sw->axis[k].text[sweep_axis_index(sw, g, k)]);
			for (k = 0; k < sw->nr_fixed; k++)
				sim_out_printf(o, ",%s", sw->fixed[k].text);
			sim_out_printf(o, ",%" PRIu64 ",%s,%s,", cfg.seed, res[i].name,
				       s->metrics[m].key);
			/* every cell has a value: NA for a metric the variant did not set */
			if (res[i].has_metric[m])
				sim_out_printf(o, "%.15g\n", res[i].metrics[m]);
			else
				sim_out_printf(o, "NA\n");
		}
	free(res);
	return o->failed ? 1 : 0;
}

/* In the child: run @i of this shard, its rows (or the error) into @o. */
static int sweep_job_run(void *arg, int i, struct sim_out *o)
{
	const struct sweep *sw = arg;

	return sweep_child_run(sw, sw->first + (uint64_t)i, o);
}

static void sweep_job_ended(void *arg, int i, int nr_ended)
{
	(void)arg;
	(void)i;
	cli_progress_step(nr_ended);
}

/*
 * Run this shard's runs in the harness's pool, at most @jobs at a time; every
 * run, also after one failed.  Returns 0 (p->job[r - first] the rows of run r),
 * or 1 with c->msg set when no process could be started.
 */
static int sweep_exec(struct cli *c, struct sweep *sw, struct pool *p, uint64_t jobs)
{
	int ret;

	*p = (struct pool){
		.nr = (int)(sw->last - sw->first), .jobs = jobs,
		.run = sweep_job_run, .ended = sweep_job_ended, .arg = sw,
	};
	cli_progress_begin(c, "sweep", p->nr);
	ret = pool_run(p);
	cli_progress_end();
	if (ret)
		return cli_fail(c, "sweep: cannot start a process (%s)",
				strerror(p->failed_errno)) - 1;
	return 0;
}

/* ---- --emit-jobs ----------------------------------------------------------- */

/* The shards of this sweep, for cluster.c: --emit-jobs N, --slurm, --merge N. */
static void sweep_shards(const struct sweep *sw, const struct plan_args *a, int argc,
			 char **argv, uint64_t n, char *base, size_t len,
			 struct cli_shards *sh)
{
	if (a->csv)
		snprintf(base, len, "%s", a->csv);
	else
		snprintf(base, len, "%s-sweep.csv", sw->s->name);
	*sh = (struct cli_shards){
		.cmd = "sweep", .name = sw->s->name, .argc = argc, .argv = argv,
		.n = n, .base = base, .cpus = plan_default_jobs(a, true),
	};
}

static int sweep_emit_jobs(struct cli *c, const struct sweep *sw,
			   const struct plan_args *a, int argc, char **argv)
{
	struct cli_shards sh;
	char base[512];

	sweep_shards(sw, a, argc, argv, a->emit_jobs, base, sizeof(base), &sh);
	if (a->slurm)
		return cli_shards_slurm(c, &sh, a->slurm, a->submit);
	return cli_shards_emit(c, c->out, &sh);
}

static int sweep_merge_shards(struct cli *c, const struct sweep *sw,
			      const struct plan_args *a, int argc, char **argv);

/* ---- the subcommands -------------------------------------------------------- */

/**
 * cmd_sweep() - `mmsim sweep`: a scenario over a grid of values and seeds
 * @c: the invocation
 * @argc: argument count; argv[0] is "sweep"
 * @argv: the arguments
 *
 * Context: the host process; forks one child per run.
 * Return: the exit code: 0, 1 (a run failed), 2 (bad input, or --plot
 * without gnuplot, after the CSV is written).
 */
int cmd_sweep(struct cli *c, int argc, char **argv)
{
	struct sim_outfile csv_f;
	struct pool pool = { 0 };
	struct sim_out csv;
	struct plan_args a;
	struct sweep sw;
	uint64_t r, nr_failed = 0, first_failed = 0;
	int ret;

	ret = cli_parse_args(c, argc, argv, CLI_SWEEP, "sweep", &a);
	if (!ret)
		ret = cli_shards_check(c, &a);
	if (ret)
		return ret;
	memset(&csv_f, 0, sizeof(csv_f));
	sim_out_init_buffer(&csv);
	ret = sweep_setup(c, &a, &sw);
	if (ret)
		goto out_free;
	if (a.emit_jobs) {
		if (a.shard_n) {
			ret = cli_fail(c, "--emit-jobs %" PRIu64 " with --shard %" PRIu64 "/%" PRIu64
				       ": expected one of them", a.emit_jobs, a.shard_i, a.shard_n);
			goto out_free;
		}
		ret = sweep_emit_jobs(c, &sw, &a, argc, argv);
		goto out_free;
	}
	if (a.merge_n) {
		ret = sweep_merge_shards(c, &sw, &a, argc, argv);
		goto out_free;
	}
	if (a.plot && a.csv) {
		const char *opt[] = { "--csv", "--plot" }, *path[] = { a.csv, a.plot };

		if ((ret = cli_outputs_distinct(c, opt, path, 2)))
			goto out_free;
	}
	if (a.plot && (ret = cli_plot_check_path(c, a.plot)))
		goto out_free;
	if (sim_outfile_open(&csv_f, "--csv", a.csv ? a.csv : "-", c->out, c->msg,
			     sizeof(c->msg))) {
		ret = 2;
		goto out_free;
	}
	ret = sweep_exec(c, &sw, &pool, plan_default_jobs(&a, true));
	if (ret)
		goto out_free;
	sweep_print_header(&sw, &csv);
	for (r = sw.first; r < sw.last; r++) {
		struct pool_job *run = &pool.job[r - sw.first];

		if (run->ok) {
			sim_out_write(&csv, sim_out_text(&run->out), run->out.len);
		} else if (!nr_failed++) {
			first_failed = r;
		}
	}
	if (csv.failed) {
		ret = cli_fail(c, "out of memory") - 1;
		goto out_free;
	}
	if (sim_outfile_commit(&csv_f, sim_out_text(&csv), csv.len, c->msg,
			       sizeof(c->msg))) {
		ret = 1;
		goto out_free;
	}
	if (nr_failed) {
		struct pool_job *run = &pool.job[first_failed - sw.first];
		char point[256];

		sweep_point_name(&sw, first_failed, point, sizeof(point));
		ret = cli_fail(c, "sweep %s: %" PRIu64 " of %" PRIu64
			       " runs failed, their rows are missing; the first, %s: %s",
			       sw.s->name, nr_failed, sw.last - sw.first, point,
			       run->why[0] ? run->why : sim_out_text(&run->out)) - 1;
		goto out_free;
	}
	if (a.plot) {
		char settings[512];

		cli_settings_text(&a, settings, sizeof(settings));
		ret = sweep_plot(c, &sw, pool.job, a.plot, settings);
	}
out_free:
	sim_outfile_abort(&csv_f);
	sim_out_release(&csv);
	pool_release(&pool);
	sweep_free(&sw);
	return ret;
}

/* ---- --merge N: the parts of this sweep's shards, checked run by run ------ */

/* Every column of a row of run @r but the value: "spinlock,4,123,qspinlock,runtime_s," */
static void sweep_row_key(const struct sweep *sw, uint64_t r, uint64_t seed, int v, int m,
			  char *buf, size_t len)
{
	uint64_t g = r / sw->nr_seeds;
	size_t n = (size_t)snprintf(buf, len, "%s", sw->s->name);
	int k;

	for (k = 0; k < sw->nr_axes && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, ",%s",
				      sw->axis[k].text[sweep_axis_index(sw, g, k)]);
	for (k = 0; k < sw->nr_fixed && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, ",%s", sw->fixed[k].text);
	if (n < len)
		snprintf(buf + n, len - n, ",%" PRIu64 ",%s,%s,", seed,
			 sw->s->variants[sw->plan.idx[v]].name, sw->s->metrics[m].key);
}

/*
 * Run @r's rows at *@p: all of them, in order (*@p moves past them, true),
 * or none (a run that failed or never ran: false).  Anything else, rows
 * of another sweep or a part cut short, sets *@bad to the row that does
 * not fit.
 */
static bool sweep_part_has_run(const struct sweep *sw, uint64_t r, const char **p,
			       const char **bad)
{
	struct sim_run_config cfg;
	char key[1024];
	const char *q = *p;
	int v, m;

	sweep_config(sw, r, &cfg);
	for (v = 0; v < sw->plan.nr; v++)
		for (m = 0; m < sw->nr_metrics; m++) {
			size_t n;
			const char *nl;

			sweep_row_key(sw, r, cfg.seed, v, m, key, sizeof(key));
			n = strlen(key);
			nl = strchr(q, '\n');
			if (strncmp(q, key, n) || !nl || memchr(q + n, ',', (size_t)(nl - q - n))) {
				if (q != *p)
					*bad = q;
				return false;
			}
			q = nl + 1;
		}
	*p = q;
	return true;
}

/*
 * One shard's part: @nr_missing of its runs [@first, @last) are absent
 * (all of them when the file is); at most @max of them in @miss.
 * Returns 0, or 2 with c->msg set when the file is not this shard's.
 */
static int sweep_check_part(struct cli *c, const struct sweep *sw, const char *path,
			    const char *header, uint64_t first, uint64_t last,
			    struct merge_file *f, uint64_t *miss, int max,
			    uint64_t *nr_missing)
{
	const char *p, *bad = NULL;
	size_t hlen = strlen(header);
	uint64_t r;

	*nr_missing = 0;
	f->path = path;
	if (access(path, F_OK) && errno == ENOENT) {
		for (r = first; r < last; r++)
			if ((*nr_missing)++ < (uint64_t)max)
				miss[*nr_missing - 1] = r;
		return 0;
	}
	if (cli_merge_read(c, f))
		return 2;
	if (f->len < hlen || memcmp(f->text, header, hlen))
		return cli_fail(c, "merge %s: its header is not this sweep's: expected %.*s",
				path, (int)hlen - 1, header);
	if (f->len && f->text[f->len - 1] != '\n')
		return cli_fail(c, "merge %s: the last line is incomplete: expected a whole CSV",
				path);
	f->rows = p = f->text + hlen;
	for (r = first; r < last && !bad; r++)
		if (!sweep_part_has_run(sw, r, &p, &bad) && !bad)
			if ((*nr_missing)++ < (uint64_t)max)
				miss[*nr_missing - 1] = r;
	if (!bad && *p)
		bad = p;
	if (bad)
		return cli_fail(c, "merge %s: the row %.*s is not one of this shard's runs: expected the part of this sweep's shard",
				path, (int)(strchr(bad, '\n') ? strchr(bad, '\n') - bad : 60), bad);
	return 0;
}

/*
 * `mmsim sweep ... --merge N [--csv FILE]`: the N parts that `--emit-jobs
 * N` named (FILE.part-I-of-N.csv), each checked against the runs of its
 * shard, joined into FILE (standard output without --csv).  A part that
 * is missing, or lacks runs (a run failed: the shard wrote the others and
 * exited 1), is named on standard error with those runs, and nothing is
 * written: rerunning only those shards, then merging again, gives the
 * unsharded CSV byte for byte, as the parts are checked row by row
 * against the sweep's own order.  Returns 0, 1 (shards missing) or 2.
 */
static int sweep_merge_shards(struct cli *c, const struct sweep *sw,
			      const struct plan_args *a, int argc, char **argv)
{
	struct sim_outfile out_f;
	struct cli_shards sh;
	struct sim_out all;
	char base[512], path[600], point[256], shards[128], head[1024], range[48];
	uint64_t i, miss[3], nr_missing, nr_bad = 0;
	size_t hlen, ns = 0;
	int ret = 0, k;

	sweep_shards(sw, a, argc, argv, a->merge_n, base, sizeof(base), &sh);
	memset(&out_f, 0, sizeof(out_f));
	sim_out_init_buffer(&all);
	sweep_print_header(sw, &all);
	hlen = all.len;
	snprintf(head, sizeof(head), "%s", sim_out_text(&all));
	shards[0] = '\0';
	for (i = 1; i <= sh.n; i++) {
		uint64_t first = (i - 1) * sw->nr_runs / sh.n, last = i * sw->nr_runs / sh.n;
		struct merge_file f = { 0 };
		bool found;

		cli_shard_part(base, i, sh.n, path, sizeof(path));
		ret = sweep_check_part(c, sw, path, head, first, last, &f, miss, 3, &nr_missing);
		if (!ret && !nr_missing && f.text)
			sim_out_write(&all, f.rows, f.len - hlen);
		found = f.text != NULL;
		free(f.text);
		if (ret)
			goto out;
		if (!nr_missing)
			continue;
		nr_bad++;
		if (ns < sizeof(shards))
			ns += (size_t)snprintf(shards + ns, sizeof(shards) - ns, "%s%" PRIu64,
					       nr_bad > 1 ? "," : "", i);
		if (nr_missing == 1)
			snprintf(range, sizeof(range), "run %" PRIu64, first);
		else
			snprintf(range, sizeof(range), "runs %" PRIu64 "-%" PRIu64, first, last - 1);
		if (found)
			fprintf(c->err, "mmsim: shard %" PRIu64 "/%" PRIu64 " (%s): lacks %" PRIu64
				" of its %" PRIu64 " runs (%" PRIu64 "-%" PRIu64 " of %" PRIu64 "):",
				i, sh.n, path, nr_missing, last - first, first, last - 1,
				sw->nr_runs);
		else
			fprintf(c->err, "mmsim: shard %" PRIu64 "/%" PRIu64 " (%s): missing: its %s of %"
				PRIu64 ",", i, sh.n, path, range, sw->nr_runs);
		for (k = 0; k < 3 && (uint64_t)k < nr_missing; k++) {
			sweep_point_name(sw, miss[k], point, sizeof(point));
			fprintf(c->err, "%s %s", k ? "," : "", point);
		}
		fprintf(c->err, "%s\n", nr_missing > 3 ? ", ..." : "");
	}
	if (nr_bad) {
		ret = cli_fail(c, "sweep %s --merge %" PRIu64 ": the parts of shards %s%s are missing or short (%"
			       PRIu64 " of %" PRIu64 "), nothing written: rerun only those shards (Slurm: sbatch --array=%s%s DIR/array.sbatch), then merge again",
			       sw->s->name, sh.n, shards, ns >= sizeof(shards) ? "..." : "",
			       nr_bad, sh.n, shards, ns >= sizeof(shards) ? "..." : "") - 1;
		goto out;
	}
	if (all.failed) {
		ret = cli_fail(c, "out of memory") - 1;
		goto out;
	}
	if (sim_outfile_open(&out_f, "--csv", a->csv ? a->csv : "-", c->out, c->msg,
			     sizeof(c->msg))) {
		ret = 2;
		goto out;
	}
	if (sim_outfile_commit(&out_f, sim_out_text(&all), all.len, c->msg, sizeof(c->msg)))
		ret = 1;
out:
	sim_out_release(&all);
	sim_outfile_abort(&out_f);
	return ret;
}
