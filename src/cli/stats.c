// SPDX-License-Identifier: GPL-2.0-only
/*
 * `run` and `reproduce` with --seeds N: every variant run with the seeds
 * SEED .. SEED+N-1 (through the harness's process pool, plan_run_pool()), and each
 * metric and each change reported as mean +- the half-width of its 95%
 * confidence interval (Student t, N-1 degrees of freedom).  A change is
 * taken seed by seed (the changed variant's run minus the baseline's run
 * of the same seed), so the interval is that of the paired differences.
 * A change whose interval contains zero is marked "(0 in CI)": the seeds do
 * not tell its sign.
 *
 * The text, the CSV (the means) and the JSON (the first seed's document,
 * plus "seeds": every seed's values and the statistics) are deterministic:
 * same options, same bytes, whatever --jobs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"

/**
 * cli_t975() - the 0.975 quantile of Student's t distribution
 * @df: degrees of freedom, >= 1
 *
 * The table's values to 30 degrees of freedom (three decimals, as printed
 * in any statistics text); between its later rows (30, 40, 60, 120) the
 * value of the row above, which is a little larger than the exact one, so
 * an interval is never too narrow.
 *
 * Return: the quantile, NAN for @df < 1.
 */
double cli_t975(int df)
{
	static const double t[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	if (df < 1)
		return NAN;
	if (df <= 30)
		return t[df];
	if (df <= 40)		/* between the table's rows: the row above */
		return t[30];
	if (df <= 60)
		return 2.021;	/* 40 */
	if (df <= 120)
		return 2.000;	/* 60 */
	return 1.980;		/* 120 */
}

/**
 * cli_stats() - mean, sample standard deviation, 95% CI half-width
 * @x: the values
 * @n: how many (>= 1; with 1, sd and ci are 0)
 * @mean: the mean
 * @sd: the sample standard deviation
 * @ci: t(0.975, n-1) x sd / sqrt(n)
 */
void cli_stats(const double *x, int n, double *mean, double *sd, double *ci)
{
	double s = 0, q = 0;
	int i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = n ? s / n : NAN;
	for (i = 0; i < n; i++)
		q += (x[i] - *mean) * (x[i] - *mean);
	*sd = n > 1 ? sqrt(q / (n - 1)) : 0;
	*ci = n > 1 ? cli_t975(n - 1) * *sd / sqrt((double)n) : 0;
}

/* One number over the seeds. */
struct seed_stat {
	bool ok;		/* every seed has it */
	double mean, sd, ci;
	double pct_mean, pct_sd, pct_ci;	/* changes: in % of the baseline */
	bool pct_ok;
};

static void stat_of(double *x, int n, struct seed_stat *st)
{
	st->ok = true;
	cli_stats(x, n, &st->mean, &st->sd, &st->ci);
}

/* A change over the seeds: @chg minus @base, variant indices into p[k].res. */
static void change_of(struct plan_scenario *p, int nr_seeds, int base, int chg, int m,
		      double *d, double *pct, struct seed_stat *st)
{
	int k;

	memset(st, 0, sizeof(*st));
	st->pct_ok = true;
	for (k = 0; k < nr_seeds; k++) {
		const struct sim_variant_result *b = &p[k].res[base], *c = &p[k].res[chg];

		if (!b->has_metric[m] || !c->has_metric[m])
			return;
		d[k] = c->metrics[m] - b->metrics[m];
		if (b->metrics[m] == 0)
			st->pct_ok = false;
		else
			pct[k] = d[k] * 100.0 / b->metrics[m];
	}
	stat_of(d, nr_seeds, st);
	if (st->pct_ok)
		cli_stats(pct, nr_seeds, &st->pct_mean, &st->pct_sd, &st->pct_ci);
}

static bool ci_has_zero(const struct seed_stat *st)
{
	return st->mean - st->ci <= 0 && st->mean + st->ci >= 0;
}

/* The (baseline, changed) pairs of the table, as sim_print_table() takes them. */
static int change_pairs(const struct plan_scenario *p, const struct plan_args *a,
			int *base, int *chg)
{
	const struct scenario_ops *s = p->s;
	int v, n = 0, b = -1, c = -1;

	for (v = 0; v < p->nr; v++) {
		const char *name = s->variants[p->idx[v]].name;

		if (a->baseline ? !strcmp(name, a->baseline) :
				  s->baseline && !strcmp(name, s->baseline))
			b = v;
		if (!a->baseline && s->changed && !strcmp(name, s->changed))
			c = v;
	}
	if (b < 0)
		return 0;
	if (!a->baseline) {
		if (c < 0 || c == b)
			return 0;
		base[0] = b;
		chg[0] = c;
		return 1;
	}
	for (v = 0; v < p->nr; v++)
		if (v != b) {
			base[n] = b;
			chg[n++] = v;
		}
	return n;
}

/* A left-aligned first column, the others right-aligned, two spaces apart. */
struct stab {
	char (*cell)[96];
	int cols, rows;
};

static void stab_print(struct sim_out *o, const struct stab *t)
{
	size_t w[64] = { 0 }, total = 0;
	int r, c;

	for (r = 0; r < t->rows; r++)
		for (c = 0; c < t->cols && c < 64; c++)
			if (strlen(t->cell[r * t->cols + c]) > w[c])
				w[c] = strlen(t->cell[r * t->cols + c]);
	for (c = 0; c < t->cols && c < 64; c++)
		total += w[c] + (c ? 2 : 0);
	for (r = 0; r < t->rows; r++) {
		for (c = 0; c < t->cols && c < 64; c++)
			sim_out_printf(o, c ? "  %*s" : "%-*s", (int)w[c], t->cell[r * t->cols + c]);
		sim_out_printf(o, "\n");
		if (r == 0 || r == t->rows - 1) {
			size_t i;

			for (i = 0; i < total; i++)
				sim_out_write(o, "-", 1);
			sim_out_printf(o, "\n");
		}
	}
}

/**
 * cli_report_seeds() - report one scenario run with @nr_seeds seeds
 * @c: the invocation
 * @p: the scenario's @nr_seeds configurations, in seed order, already run
 * @nr_seeds: N
 * @a: the options
 * @reproduce: add the published numbers and the verdict
 * @k: where the text, JSON and CSV go
 *
 * Return: 0, or 1 with c->msg set.
 */
int cli_report_seeds(struct cli *c, struct plan_scenario *p, int nr_seeds,
		     const struct plan_args *a, bool reproduce, struct cli_sinks *k)
{
	const struct scenario_ops *s = p[0].s;
	int nr = p[0].nr, nr_metrics, v, m, i, kk, base[SIM_MAX_VARIANTS], chg[SIM_MAX_VARIANTS];
	int nr_pairs = change_pairs(&p[0], a, base, chg), cols;
	struct sim_variant_result *mean_res = calloc((size_t)nr, sizeof(*mean_res));
	double *x = calloc((size_t)nr_seeds, sizeof(double));
	double *y = calloc((size_t)nr_seeds, sizeof(double));
	struct seed_stat st;
	struct sim_report rep;
	struct stab t = { 0 };
	int ret = 1;

	for (nr_metrics = 0; s->metrics[nr_metrics].key && nr_metrics < SIM_MAX_METRICS;)
		nr_metrics++;
	cols = 1 + nr + nr_pairs;
	if (reproduce)
		for (v = 0; v < nr; v++) {
			const struct sim_published *pb;

			for (pb = s->published; pb && pb->variant; pb++)
				if (!strcmp(pb->variant, s->variants[p[0].idx[v]].name))
					break;
			if (pb && pb->variant)
				cols += 2;
		}
	t.cols = cols;
	t.cell = calloc((size_t)(cols * (nr_metrics + 1)), sizeof(*t.cell));
	if (!mean_res || !x || !y || !t.cell) {
		cli_fail(c, "out of memory");
		goto out_free;
	}
	for (kk = 0; kk < nr_seeds; kk++) {
		if (s->finish)
			s->finish(&p[kk].cfg, p[kk].res, nr);
	}
	/* The means, as a report of their own: the verdict and the CSV use it. */
	for (v = 0; v < nr; v++) {
		mean_res[v] = p[0].res[v];
		for (m = 0; m < nr_metrics; m++) {
			bool all = true;

			for (kk = 0; kk < nr_seeds; kk++) {
				all &= p[kk].res[v].has_metric[m];
				x[kk] = p[kk].res[v].metrics[m];
			}
			mean_res[v].has_metric[m] = all;
			if (all)
				cli_stats(x, nr_seeds, &mean_res[v].metrics[m], &st.sd, &st.ci);
		}
	}
	memset(&rep, 0, sizeof(rep));
	rep.cfg = &p[0].cfg;
	rep.res = mean_res;
	rep.nr_res = nr;
	rep.reproduce = reproduce;
	rep.baseline = a->baseline;
	/* every seed's processes; the wall time until the last seed's end */
	for (kk = 0; kk < nr_seeds; kk++) {
		rep.host_cpu_seconds += p[kk].cpu_s;
		rep.host_processes += p[kk].nr_procs;
		if (p[kk].wall_s > rep.host_wall_seconds)
			rep.host_wall_seconds = p[kk].wall_s;
		for (v = 0; v < nr; v++)
			rep.host_events += p[kk].res[v].events;
	}

	/* The table: every cell mean +- ci. */
	snprintf(t.cell[0], sizeof(t.cell[0]), "metric (mean +- 95%% CI, %d seeds)", nr_seeds);
	for (v = 0; v < nr; v++)
		snprintf(t.cell[1 + v], sizeof(t.cell[0]), "%s", mean_res[v].name);
	for (i = 0; i < nr_pairs; i++)
		snprintf(t.cell[1 + nr + i], sizeof(t.cell[0]), a->baseline ? "%s-%s" : "delta",
			 mean_res[chg[i]].name, mean_res[base[i]].name);
	for (i = 1 + nr + nr_pairs, v = 0; reproduce && v < nr; v++) {
		bool has = false;
		const struct sim_published *pb;

		for (pb = s->published; pb && pb->variant; pb++)
			has |= !strcmp(pb->variant, mean_res[v].name);
		if (!has)
			continue;
		snprintf(t.cell[i++], sizeof(t.cell[0]), "published %s", mean_res[v].name);
		snprintf(t.cell[i++], sizeof(t.cell[0]), "sim/pub %s", mean_res[v].name);
	}
	for (m = 0; m < nr_metrics; m++) {
		const struct sim_metric *mt = &s->metrics[m];
		char (*r)[96] = &t.cell[(m + 1) * cols];
		int dec = mt->decimals;

		snprintf(r[0], sizeof(r[0]), "%s", mt->label ? mt->label : mt->key);
		for (v = 0; v < nr; v++) {
			bool all = true;

			for (kk = 0; kk < nr_seeds; kk++) {
				all &= p[kk].res[v].has_metric[m];
				x[kk] = p[kk].res[v].metrics[m];
			}
			if (!all) {
				snprintf(r[1 + v], sizeof(r[0]), "-");
				continue;
			}
			stat_of(x, nr_seeds, &st);
			snprintf(r[1 + v], sizeof(r[0]), "%.*f +- %.*f", dec, st.mean, dec, st.ci);
		}
		for (i = 0; i < nr_pairs; i++) {
			change_of(p, nr_seeds, base[i], chg[i], m, x, y, &st);
			if (!st.ok)
				snprintf(r[1 + nr + i], sizeof(r[0]), "-");
			else if (!st.pct_ok)
				snprintf(r[1 + nr + i], sizeof(r[0]), "%+.*f +- %.*f (n/a)%s", dec,
					 st.mean, dec, st.ci, ci_has_zero(&st) ? " (0 in CI)" : "");
			else
				snprintf(r[1 + nr + i], sizeof(r[0]), "%+.*f +- %.*f (%+.1f%% +- %.1f%%)%s",
					 dec, st.mean, dec, st.ci, st.pct_mean, st.pct_ci,
					 ci_has_zero(&st) ? " (0 in CI)" : "");
		}
		for (i = 1 + nr + nr_pairs, v = 0; reproduce && v < nr; v++) {
			const struct sim_published *pb;
			bool has = false;
			double pub;

			for (pb = s->published; pb && pb->variant; pb++)
				has |= !strcmp(pb->variant, mean_res[v].name);
			if (!has)
				continue;
			if (!sim_published_value(s, mean_res[v].name, mt->key, &pub)) {
				snprintf(r[i++], sizeof(r[0]), "-");
				snprintf(r[i++], sizeof(r[0]), "-");
				continue;
			}
			snprintf(r[i++], sizeof(r[0]), "%.*f", dec, pub);
			if (!mean_res[v].has_metric[m] || pub == 0)
				snprintf(r[i++], sizeof(r[0]), "n/a");
			else
				snprintf(r[i++], sizeof(r[0]), "%.2f", mean_res[v].metrics[m] / pub);
		}
	}
	t.rows = nr_metrics + 1;

	if (k->text_on) {
		struct sim_report first = rep;

		first.res = p[0].res;
		if (!a->quiet) {
			sim_print_header(&k->text, &first);
			sim_out_printf(&k->text, "seeds: %d, %" PRIu64 "..%" PRIu64
				       " (each adds --seed to the repeat line)\n\n",
				       nr_seeds, p[0].cfg.seed, p[nr_seeds - 1].cfg.seed);
		}
		stab_print(&k->text, &t);
		sim_out_printf(&k->text, "x +- ci: the mean over the seeds and the half-width of "
			       "its 95%% confidence interval (Student t, %d degrees of freedom); "
			       "a change is taken seed by seed; (0 in CI): its interval contains "
			       "zero, so the seeds do not tell its sign\n", nr_seeds - 1);
		if (reproduce) {
			sim_out_printf(&k->text, "\n");
			sim_print_verdict(&k->text, &rep);
		}
		if (!a->quiet)
			cli_print_host_time(&k->text, &rep);
		if (reproduce)
			sim_out_printf(&k->text, "\n");
	}
	if (a->json) {
		struct sim_report first = rep;
		json_t *doc, *sj, *mj, *cj;

		first.res = p[0].res;
		doc = sim_report_json(&first);
		if (!doc) {
			cli_fail(c, "out of memory");
			goto out_free;
		}
		sj = json_object();
		mj = json_object();
		cj = json_object();
		json_object_set_new(sj, "count", json_integer(nr_seeds));
		json_object_set_new(sj, "first", json_integer((json_int_t)p[0].cfg.seed));
		for (v = 0; v < nr; v++) {
			json_t *vj = json_object();

			for (m = 0; m < nr_metrics; m++) {
				json_t *one = json_object(), *vals = json_array();
				bool all = true;

				for (kk = 0; kk < nr_seeds; kk++) {
					all &= p[kk].res[v].has_metric[m];
					x[kk] = p[kk].res[v].metrics[m];
					json_array_append_new(vals, p[kk].res[v].has_metric[m] &&
							      isfinite(x[kk]) ? json_real(x[kk]) :
							      json_null());
				}
				stat_of(x, nr_seeds, &st);
				json_object_set_new(one, "mean", all && isfinite(st.mean) ?
						    json_real(st.mean) : json_null());
				json_object_set_new(one, "sd", all && isfinite(st.sd) ?
						    json_real(st.sd) : json_null());
				json_object_set_new(one, "ci95", all && isfinite(st.ci) ?
						    json_real(st.ci) : json_null());
				json_object_set_new(one, "values", vals);
				json_object_set_new(vj, s->metrics[m].key, one);
			}
			json_object_set_new(mj, mean_res[v].name, vj);
		}
		json_object_set_new(sj, "metrics", mj);
		for (i = 0; i < nr_pairs; i++) {
			json_t *pj = json_object();
			char name[128];

			for (m = 0; m < nr_metrics; m++) {
				json_t *one = json_object(), *vals = json_array();

				change_of(p, nr_seeds, base[i], chg[i], m, x, y, &st);
				if (!st.ok) {
					json_decref(vals);
					json_decref(one);
					json_object_set_new(pj, s->metrics[m].key, json_null());
					continue;
				}
				for (kk = 0; kk < nr_seeds; kk++)
					json_array_append_new(vals, isfinite(x[kk]) ?
							      json_real(x[kk]) : json_null());
				json_object_set_new(one, "mean", json_real(st.mean));
				json_object_set_new(one, "sd", json_real(st.sd));
				json_object_set_new(one, "ci95", json_real(st.ci));
				json_object_set_new(one, "pct_mean", st.pct_ok && isfinite(st.pct_mean) ?
						    json_real(st.pct_mean) : json_null());
				json_object_set_new(one, "pct_ci95", st.pct_ok && isfinite(st.pct_ci) ?
						    json_real(st.pct_ci) : json_null());
				json_object_set_new(one, "ci_contains_zero", json_boolean(ci_has_zero(&st)));
				json_object_set_new(one, "values", vals);
				json_object_set_new(pj, s->metrics[m].key, one);
			}
			snprintf(name, sizeof(name), "%s-%s", mean_res[chg[i]].name,
				 mean_res[base[i]].name);
			json_object_set_new(cj, name, pj);
		}
		json_object_set_new(sj, "changes", cj);
		json_object_set_new(doc, "seeds", sj);
		if (reproduce)	/* the verdict of the means */
			json_object_set_new(doc, "verdict", sim_verdict_json(s, mean_res, nr));
		cli_sinks_add_json(k, doc, reproduce);
	}
	cli_sinks_add_rows(c, a, k, &rep, reproduce);
	ret = 0;
out_free:
	free(mean_res);
	free(x);
	free(y);
	free(t.cell);
	return ret;
}
