// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim sensitivity SCENARIO [options]`: how much the scenario's answer
 * depends on what is assumed.  The points, one run of every variant each:
 *
 *   default          the configuration as given (--set, --cost, --profile)
 *   KEY=LO, KEY=HI   each value of the profile's [ranges] (the values
 *                    docs/costs.md marks as assumptions) at both ends of its
 *                    range, one at a time (an end equal to the value is
 *                    left out: it is the default point)
 *   PARAM=VALUE      each other value of each parameter the post does not
 *                    publish (the scenario's `unpublished` list): every
 *                    other choice of an enum, the other value of a boolean,
 *                    half and twice the value of a count (within its range)
 *
 * At each point, each published change (a metric published for the
 * baseline and the changed variant) gives two conclusions: its sign (the
 * simulated change has the published sign) and its band (the simulated
 * change lies in the band the scenario's table declares).  The output is
 * the change at every point, then per conclusion "holds at X of Y points"
 * with the points where it fails; --json the same as data; --plot a
 * tornado chart per published change.  The points run in parallel in the
 * process pool (--jobs, default the host's CPUs); --shard I/N runs every
 * N-th point from the I-th, for spreading a sensitivity over machines.
 * Same options, same bytes, whatever --jobs.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"

#define SENS_MAX_POINTS	128
#define SENS_LIST_FAILS	8	/* failing points named in the text */

struct sens_point {
	char name[96];			/* "default", "cache.remote_transfer_ns=100" */
	const char *kind;		/* "default", "range", "unpublished" */
	char key[64];			/* the range's or parameter's key, "" for default */
	bool hi;			/* the upper end of a range (or a later choice) */
	struct plan_scenario prep;
	struct sim_judgement j[SIM_MAX_METRICS];
	int nr_j;
};

/* The published changes: judgement slots that have a change. */
static int sens_changes(const struct sens_point *p, int *slot)
{
	int i, n = 0;

	for (i = 0; i < p->nr_j; i++)
		if (p->j[i].has_change)
			slot[n++] = i;
	return n;
}

static int sens_add(struct cli *c, struct sens_point *pts, int *nr, const char *kind,
		    const char *key, bool hi, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static int sens_add(struct cli *c, struct sens_point *pts, int *nr, const char *kind,
		    const char *key, bool hi, const char *fmt, ...)
{
	va_list ap;

	if (*nr >= SENS_MAX_POINTS)
		return cli_fail(c, "sensitivity: more than %d points: expected fewer", SENS_MAX_POINTS);
	memset(&pts[*nr], 0, sizeof(pts[*nr]));
	pts[*nr].kind = kind;
	pts[*nr].hi = hi;
	snprintf(pts[*nr].key, sizeof(pts[*nr].key), "%s", key);
	va_start(ap, fmt);
	vsnprintf(pts[*nr].name, sizeof(pts[*nr].name), fmt, ap);
	va_end(ap);
	(*nr)++;
	return 0;
}

/* Configure point @pt from @a and its own change. Returns 0, or 2/1 with c->msg. */
static int sens_prepare(struct cli *c, const struct scenario_ops *s,
			const struct plan_args *a, struct sens_point *pt)
{
	int ret = plan_scenario_prepare(s, a, &pt->prep, c->msg, sizeof(c->msg));
	const char *eq = strchr(pt->name, '=');
	char why[CLI_ERR];

	if (ret || !strcmp(pt->kind, "default"))
		return ret;
	if (!strcmp(pt->kind, "range")) {
		if (sim_profile_set(pt->prep.prof, pt->name, why, sizeof(why)) ||
		    sim_profile_check(pt->prep.prof, why, sizeof(why)))
			return cli_fail(c, "sensitivity: point %s: %s", pt->name, why);
	} else {
		int i = sim_scenario_param_index(s, pt->key);

		if (i < 0 || sim_param_parse(&s->params[i], eq + 1, &pt->prep.cfg.params[i],
					     why, sizeof(why)))
			return cli_fail(c, "sensitivity: point %s: %s", pt->name, why);
	}
	if (s->validate && s->validate(&pt->prep.cfg, why, sizeof(why)))
		return cli_fail(c, "sensitivity: point %s: %s", pt->name, why);
	return 0;
}

/* The points of @s on @prof with @a: 0, or 2 with c->msg. */
static int sens_points(struct cli *c, const struct scenario_ops *s,
		       const struct sim_profile *prof, const struct sim_run_config *cfg,
		       struct sens_point *pts, int *nr)
{
	int r, k, i;

	*nr = 0;
	if (sens_add(c, pts, nr, "default", "", false, "default"))
		return 2;
	for (r = 0; r < prof->nr_ranges; r++) {
		const struct sim_profile_range *rg = &prof->ranges[r];
		uint64_t v = 0;

		sim_profile_get(prof, rg->key, &v);
		if (rg->lo != v && sens_add(c, pts, nr, "range", rg->key, false,
					    "%s=%" PRIu64, rg->key, rg->lo))
			return 2;
		if (rg->hi != v && sens_add(c, pts, nr, "range", rg->key, true,
					    "%s=%" PRIu64, rg->key, rg->hi))
			return 2;
	}
	for (k = 0; s->unpublished && s->unpublished[k]; k++) {
		const struct sim_param *p;

		i = sim_scenario_param_index(s, s->unpublished[k]);
		if (i < 0)
			return cli_fail(c, "sensitivity: scenario %s names %s as unpublished, "
					"which is not one of its parameters", s->name,
					s->unpublished[k]);
		p = &s->params[i];
		if (p->type == SIM_PARAM_ENUM) {
			int ch;

			for (ch = 0; p->choices[ch]; ch++)
				if ((uint64_t)ch != cfg->params[i] &&
				    sens_add(c, pts, nr, "unpublished", p->key, true,
					     "%s=%s", p->key, p->choices[ch]))
					return 2;
		} else if (p->type == SIM_PARAM_BOOL) {
			if (sens_add(c, pts, nr, "unpublished", p->key, true, "%s=%s", p->key,
				     cfg->params[i] ? "no" : "yes"))
				return 2;
		} else if (p->type == SIM_PARAM_COUNT) {
			uint64_t v = cfg->params[i];

			if (v / 2 >= p->min && v / 2 != v &&
			    sens_add(c, pts, nr, "unpublished", p->key, false,
				     "%s=%" PRIu64, p->key, v / 2))
				return 2;
			if (v <= p->max / 2 &&
			    sens_add(c, pts, nr, "unpublished", p->key, true,
				     "%s=%" PRIu64, p->key, v * 2))
				return 2;
		} else {
			return cli_fail(c, "sensitivity: scenario %s: unpublished parameter %s: "
					"expected an enum, a boolean or a count", s->name, p->key);
		}
	}
	return 0;
}

static bool sens_sign(const struct sim_judgement *j)
{
	return j->verdict != SIM_NOT_JUDGED && j->sign_holds;
}

static bool sens_band(const struct sim_judgement *j)
{
	return j->verdict != SIM_NOT_JUDGED && j->in_band;
}

/* The tornado charts: one per published change, one bar per key. */
/*
 * The charts' title: the scenario, the profile and the seed, and on a
 * second line the run's --set and --cost as given (as sweep's charts).
 */
static void sens_plot_title(const struct plan_args *a, const struct scenario_ops *s,
			    const struct sens_point *pt0, char *buf, size_t len)
{
	char settings[512];

	cli_settings_text(a, settings, sizeof(settings));
	snprintf(buf, len, "mmsim sensitivity %s, %s, seed %" PRIu64 "%s%s", s->name,
		 pt0->prep.prof->origin, a->seed, settings[0] ? "\n" : "", settings);
}

static int sens_plot(struct cli *c, const char *path, const char *title,
		     const struct scenario_ops *s, struct sens_point *pts, int nr)
{
	struct cli_tornado charts[SIM_MAX_METRICS];
	int slot[SIM_MAX_METRICS], nr_c = sens_changes(&pts[0], slot), k, i, b, ret;

	memset(charts, 0, sizeof(charts));
	for (k = 0; k < nr_c; k++) {
		const struct sim_metric *mt = &s->metrics[pts[0].j[slot[k]].metric];
		struct cli_tornado *t = &charts[k];

		snprintf(t->title, sizeof(t->title), "%s: change %s -> %s (%%), published %+.1f%%",
			 mt->label ? mt->label : mt->key, s->baseline, s->changed,
			 pts[0].j[slot[k]].pub_change_pct);
		t->base = pts[0].j[slot[k]].sim_change_pct;
		t->pub = pts[0].j[slot[k]].pub_change_pct;
		t->bars = calloc((size_t)nr, sizeof(*t->bars));
		if (!t->bars) {
			ret = cli_fail(c, "out of memory") - 1;
			goto out;
		}
		for (i = 1; i < nr; i++) {
			double x = pts[i].j[slot[k]].sim_change_pct;

			for (b = 0; b < t->nr; b++)
				if (!strcmp(t->bars[b].label, pts[i].key))
					break;
			if (b == t->nr) {
				snprintf(t->bars[b].label, sizeof(t->bars[b].label), "%s", pts[i].key);
				t->bars[b].lo = t->bars[b].hi = t->base;
				t->nr++;
			}
			if (pts[i].hi)
				t->bars[b].hi = x;
			else
				t->bars[b].lo = x;
		}
	}
	ret = cli_plot_tornado(c, path, title, charts, nr_c);
out:
	for (k = 0; k < nr_c; k++)
		free(charts[k].bars);
	return ret;
}

/*
 * A scenario that publishes no change (spinlock): its first variant's
 * metrics at every point, and a tornado chart of each.
 */
static int sens_values(struct cli *c, struct sim_out *o, const struct scenario_ops *s,
		       struct sens_point *pts, const int *sel, int nr, int nr_all,
		       const struct plan_args *a, struct sim_outfile *json_f)
{
	struct cli_tornado charts[SIM_MAX_METRICS];
	int nr_m = 0, m, k, b, ret = 0;
	json_t *doc = NULL, *pj;
	size_t w = strlen("point");

	while (s->metrics[nr_m].key && nr_m < SIM_MAX_METRICS)
		nr_m++;
	for (k = 0; k < nr; k++)
		if (strlen(pts[sel[k]].name) > w)
			w = strlen(pts[sel[k]].name);
	if (!(a->json && !strcmp(a->json, "-"))) {
		sim_out_printf(o, "sensitivity: %s, profile %s, seed %" PRIu64 ": %d of %d points; "
			       "it publishes no change, so: variant %s's metrics at every point\n\n",
			       s->name, pts[sel[0]].prep.prof->origin, a->seed, nr, nr_all,
			       pts[sel[0]].prep.res[0].name);
		sim_out_printf(o, "%-*s", (int)w, "point");
		for (m = 0; m < nr_m; m++)
			sim_out_printf(o, "  %18.18s", s->metrics[m].key);
		sim_out_printf(o, "\n");
		for (k = 0; k < nr; k++) {
			const struct sim_variant_result *r = &pts[sel[k]].prep.res[0];

			sim_out_printf(o, "%-*s", (int)w, pts[sel[k]].name);
			for (m = 0; m < nr_m; m++) {
				if (r->has_metric[m])
					sim_out_printf(o, "  %18.*f", s->metrics[m].decimals,
						       r->metrics[m]);
				else
					sim_out_printf(o, "  %18s", "-");
			}
			sim_out_printf(o, "\n");
		}
	}
	if (a->json) {
		doc = json_object();
		pj = json_array();
		json_object_set_new(doc, "mmsim_version", json_string(MMSIM_VERSION));
		json_object_set_new(doc, "scenario", json_string(s->name));
		json_object_set_new(doc, "profile", json_string(pts[sel[0]].prep.prof->origin));
		json_object_set_new(doc, "seed", json_integer((json_int_t)a->seed));
		json_object_set_new(doc, "points_total", json_integer(nr_all));
		json_object_set_new(doc, "variant", json_string(pts[sel[0]].prep.res[0].name));
		for (k = 0; k < nr; k++) {
			const struct sim_variant_result *r = &pts[sel[k]].prep.res[0];
			json_t *one = json_object(), *vj = json_object();

			json_object_set_new(one, "name", json_string(pts[sel[k]].name));
			json_object_set_new(one, "kind", json_string(pts[sel[k]].kind));
			json_object_set_new(one, "index", json_integer(sel[k]));
			for (m = 0; m < nr_m; m++)
				json_object_set_new(vj, s->metrics[m].key,
						    r->has_metric[m] && isfinite(r->metrics[m]) ?
						    json_real(r->metrics[m]) : json_null());
			json_object_set_new(one, "values", vj);
			json_array_append_new(pj, one);
		}
		json_object_set_new(doc, "points", pj);
		json_object_set_new(doc, "conclusions", json_array());
	}
	if (a->plot && nr == nr_all) {
		memset(charts, 0, sizeof(charts));
		for (m = 0; m < nr_m && !ret; m++) {
			struct cli_tornado *t = &charts[m];

			snprintf(t->title, sizeof(t->title), "%s (%s)", s->metrics[m].label ?
				 s->metrics[m].label : s->metrics[m].key, pts[0].prep.res[0].name);
			t->base = pts[0].prep.res[0].metrics[m];
			t->pub = NAN;
			t->bars = calloc((size_t)nr, sizeof(*t->bars));
			if (!t->bars) {
				ret = cli_fail(c, "out of memory") - 1;
				break;
			}
			for (k = 1; k < nr; k++) {
				for (b = 0; b < t->nr; b++)
					if (!strcmp(t->bars[b].label, pts[k].key))
						break;
				if (b == t->nr) {
					snprintf(t->bars[b].label, sizeof(t->bars[b].label), "%s",
						 pts[k].key);
					t->bars[b].lo = t->bars[b].hi = t->base;
					t->nr++;
				}
				*(pts[k].hi ? &t->bars[b].hi : &t->bars[b].lo) =
					pts[k].prep.res[0].metrics[m];
			}
		}
		if (!ret) {
			char title[1024];

			sens_plot_title(a, s, &pts[0], title, sizeof(title));
			ret = cli_plot_tornado(c, a->plot, title, charts, nr_m);
		}
		for (m = 0; m < nr_m; m++)
			free(charts[m].bars);
	}
	if (!ret && doc) {
		struct sim_out js;

		sim_out_init_buffer(&js);
		sim_print_json(&js, doc);
		if (js.failed)
			ret = cli_fail(c, "out of memory") - 1;
		else if (sim_outfile_commit(json_f, sim_out_text(&js), js.len, c->msg,
					    sizeof(c->msg)))
			ret = 1;
		sim_out_release(&js);
	}
	json_decref(doc);
	if (!ret && (o->failed || fflush(c->out)))
		ret = cli_fail(c, "writing to standard output failed") - 1;
	return ret;
}

/**
 * cmd_sensitivity() - `mmsim sensitivity SCENARIO [options]`
 * @c: the invocation
 * @argc: argument count, argv[0] is "sensitivity"
 * @argv: the scenario and the options
 *
 * Every point is configured (and so checked) before any runs.
 *
 * Return: 0; 2 with c->msg for bad input; 1 for a failed run or output.
 */
int cmd_sensitivity(struct cli *c, int argc, char **argv)
{
	const struct scenario_ops *s;
	struct sens_point *pts = NULL;
	struct sim_outfile json_f;
	struct plan_scenario *prep = NULL;
	struct plan_args a;
	struct sim_out o;
	int nr_all = 0, nr = 0, i, k, ret, slot[SIM_MAX_METRICS], nr_c;
	int *sel = NULL;
	json_t *doc = NULL;

	memset(&json_f, 0, sizeof(json_f));
	sim_out_init_file(&o, c->out);
	/* its options: the CLI_SENS rows of CLI_OPTIONS (the parser refuses others) */
	if ((ret = cli_parse_args(c, argc, argv, CLI_SENS, "sensitivity", &a)))
		return ret;
	if (a.nr_pos != 1)
		return cli_fail(c, "sensitivity: expected one scenario, got %d operands", a.nr_pos);
	s = cli_find_scenario(c, a.pos[0]);
	if (!s)
		return 2;
	if (a.plot && (ret = cli_plot_check_path(c, a.plot)))
		return ret;
	pts = calloc(SENS_MAX_POINTS, sizeof(*pts));
	sel = calloc(SENS_MAX_POINTS, sizeof(*sel));
	prep = calloc(SENS_MAX_POINTS, sizeof(*prep));
	if (!pts || !sel || !prep) {
		ret = cli_fail(c, "out of memory") - 1;
		goto out;
	}
	/* The default configuration, to know the points. */
	{
		struct plan_scenario p0;

		if ((ret = plan_scenario_prepare(s, &a, &p0, c->msg, sizeof(c->msg)))) {
			plan_scenario_release(&p0);
			goto out;
		}
		ret = sens_points(c, s, p0.prof, &p0.cfg, pts, &nr_all);
		plan_scenario_release(&p0);
		if (ret)
			goto out;
	}
	for (i = 0; i < nr_all; i++)
		if (!a.shard_n || (uint64_t)i % a.shard_n == a.shard_i - 1)
			sel[nr++] = i;
	if (a.json && sim_outfile_open(&json_f, "--json", a.json, c->out, c->msg,
				       sizeof(c->msg))) {
		ret = 2;
		goto out;
	}
	for (k = 0; k < nr; k++)
		if ((ret = sens_prepare(c, s, &a, &pts[sel[k]])))
			goto out;
	for (k = 0; k < nr; k++)
		prep[k] = pts[sel[k]].prep;
	ret = cli_run_pool(c, prep, nr, plan_default_jobs(&a, false), "sensitivity");
	for (k = 0; k < nr; k++)
		pts[sel[k]].prep = prep[k];
	if (ret)
		goto out;
	for (k = 0; k < nr; k++) {
		struct sens_point *pt = &pts[sel[k]];

		if (s->finish)
			s->finish(&pt->prep.cfg, pt->prep.res, pt->prep.nr);
		pt->nr_j = sim_judge(s, pt->prep.res, pt->prep.nr, pt->j);
	}
	nr_c = sens_changes(&pts[sel[0]], slot);
	if (!nr_c) {
		ret = sens_values(c, &o, s, pts, sel, nr, nr_all, &a, &json_f);
		goto out;
	}

	/* The text: the change at every point, then the conclusions. */
	if (!(a.json && !strcmp(a.json, "-"))) {
		size_t w = strlen("point");

		for (k = 0; k < nr; k++)
			if (strlen(pts[sel[k]].name) > w)
				w = strlen(pts[sel[k]].name);
		sim_out_printf(&o, "sensitivity: %s, profile %s, seed %" PRIu64 ": %d of %d points "
			       "(the defaults; each [ranges] value of the profile at both ends; "
			       "each other value of a parameter the post does not publish)\n",
			       s->name, pts[sel[0]].prep.prof->origin, a.seed, nr, nr_all);
		if (pts[sel[0]].prep.prof->overrides[0])
			sim_out_printf(&o, "profile overrides: %s\n", pts[sel[0]].prep.prof->overrides);
		sim_out_printf(&o, "\nsimulated change %s -> %s, %%; * sign differs from the "
			       "post's, ! outside the band\n", s->baseline, s->changed);
		sim_out_printf(&o, "%-*s", (int)w, "point");
		for (i = 0; i < nr_c; i++)
			sim_out_printf(&o, "  %22.22s", s->metrics[pts[sel[0]].j[slot[i]].metric].key);
		sim_out_printf(&o, "\n%-*s", (int)w, "published");
		for (i = 0; i < nr_c; i++)
			sim_out_printf(&o, "  %21.1f%%", pts[sel[0]].j[slot[i]].pub_change_pct);
		sim_out_printf(&o, "\n");
		for (k = 0; k < nr; k++) {
			const struct sens_point *pt = &pts[sel[k]];

			sim_out_printf(&o, "%-*s", (int)w, pt->name);
			for (i = 0; i < nr_c; i++) {
				const struct sim_judgement *j = &pt->j[slot[i]];

				if (j->verdict == SIM_NOT_JUDGED)
					sim_out_printf(&o, "  %22s", "-");
				else
					sim_out_printf(&o, "  %19.1f%% %s", j->sim_change_pct,
						       !sens_sign(j) ? "*" :
						       j->has_band && !j->in_band ? "!" : " ");
			}
			sim_out_printf(&o, "\n");
		}
		sim_out_printf(&o, "\nconclusion                                      holds at  fails at\n");
		for (i = 0; i < nr_c; i++) {
			const struct sim_judgement *j0 = &pts[sel[0]].j[slot[i]];
			const char *key = s->metrics[j0->metric].key;
			int pass;

			for (int kind = 0; kind < 2; kind++) {
				char what[96], fails[1024] = "";
				size_t n = 0;

				if (kind == 1 && !j0->has_band)
					continue;
				if (kind == 0)
					snprintf(what, sizeof(what), "%s %s", key,
						 j0->pub_change_pct < 0 ? "falls" : "rises");
				else
					snprintf(what, sizeof(what), "%s in %+.1f..%+.1f%%", key,
						 j0->change_band.lo, j0->change_band.hi);
				for (k = 0, pass = 0; k < nr; k++) {
					const struct sim_judgement *j = &pts[sel[k]].j[slot[i]];
					bool ok = kind == 0 ? sens_sign(j) : sens_band(j);

					if (ok)
						pass++;
					else if (k - pass < SENS_LIST_FAILS && n < sizeof(fails) - 1)
						n += (size_t)snprintf(fails + n, sizeof(fails) - n, "%s%s",
								      n ? ", " : "", pts[sel[k]].name);
				}
				if (!pass)
					snprintf(fails, sizeof(fails), "every point");
				else if (nr - pass > SENS_LIST_FAILS && n < sizeof(fails) - 1)
					snprintf(fails + n, sizeof(fails) - n, " and %d more (--json)",
						 nr - pass - SENS_LIST_FAILS);
				sim_out_printf(&o, "%-46s  %3d of %-3d  %s\n", what, pass, nr,
					       pass < nr ? fails : "-");
			}
		}
	}
	if (a.json) {
		json_t *pj = json_array(), *cj = json_array();

		doc = json_object();
		json_object_set_new(doc, "mmsim_version", json_string(MMSIM_VERSION));
		json_object_set_new(doc, "scenario", json_string(s->name));
		json_object_set_new(doc, "profile", json_string(pts[sel[0]].prep.prof->origin));
		json_object_set_new(doc, "seed", json_integer((json_int_t)a.seed));
		json_object_set_new(doc, "points_total", json_integer(nr_all));
		if (a.shard_n) {
			json_t *sh = json_array();

			json_array_append_new(sh, json_integer((json_int_t)a.shard_i));
			json_array_append_new(sh, json_integer((json_int_t)a.shard_n));
			json_object_set_new(doc, "shard", sh);
		}
		for (k = 0; k < nr; k++) {
			const struct sens_point *pt = &pts[sel[k]];
			json_t *one = json_object(), *ch = json_object();

			json_object_set_new(one, "name", json_string(pt->name));
			json_object_set_new(one, "kind", json_string(pt->kind));
			json_object_set_new(one, "index", json_integer(sel[k]));
			for (i = 0; i < nr_c; i++) {
				const struct sim_judgement *j = &pt->j[slot[i]];
				json_t *m = json_object();

				json_object_set_new(m, "simulated_change_pct",
						    j->verdict != SIM_NOT_JUDGED &&
						    isfinite(j->sim_change_pct) ?
						    json_real(j->sim_change_pct) : json_null());
				json_object_set_new(m, "sign_holds", json_boolean(sens_sign(j)));
				json_object_set_new(m, "in_band", j->has_band ?
						    json_boolean(sens_band(j)) : json_null());
				json_object_set_new(ch, s->metrics[j->metric].key, m);
			}
			json_object_set_new(one, "changes", ch);
			json_array_append_new(pj, one);
		}
		json_object_set_new(doc, "points", pj);
		for (i = 0; i < nr_c; i++) {
			const struct sim_judgement *j0 = &pts[sel[0]].j[slot[i]];

			for (int kind = 0; kind < 2; kind++) {
				json_t *one, *fl = json_array();
				int pass = 0;

				if (kind == 1 && !j0->has_band) {
					json_decref(fl);
					continue;
				}
				one = json_object();
				json_object_set_new(one, "metric",
						    json_string(s->metrics[j0->metric].key));
				json_object_set_new(one, "kind", json_string(kind ? "band" : "sign"));
				json_object_set_new(one, "published_change_pct",
						    json_real(j0->pub_change_pct));
				if (kind) {
					json_t *b = json_array();

					json_array_append_new(b, json_real(j0->change_band.lo));
					json_array_append_new(b, json_real(j0->change_band.hi));
					json_object_set_new(one, "band_pct", b);
				}
				for (k = 0; k < nr; k++) {
					const struct sim_judgement *j = &pts[sel[k]].j[slot[i]];

					if (kind == 0 ? sens_sign(j) : sens_band(j))
						pass++;
					else
						json_array_append_new(fl, json_string(pts[sel[k]].name));
				}
				json_object_set_new(one, "holds", json_integer(pass));
				json_object_set_new(one, "of", json_integer(nr));
				json_object_set_new(one, "fails_at", fl);
				json_array_append_new(cj, one);
			}
		}
		json_object_set_new(doc, "conclusions", cj);
	}
	if (a.plot && nr == nr_all) {
		char title[1024];

		sens_plot_title(&a, s, &pts[0], title, sizeof(title));
		if ((ret = sens_plot(c, a.plot, title, s, pts, nr)))
			goto out;
	}
	if (a.plot && nr != nr_all)
		fprintf(c->err, "mmsim: note: --plot %s: a shard draws no chart\n", a.plot);
	if (doc) {
		struct sim_out js;

		sim_out_init_buffer(&js);
		sim_print_json(&js, doc);
		if (js.failed)
			ret = cli_fail(c, "out of memory") - 1;
		else if (sim_outfile_commit(&json_f, sim_out_text(&js), js.len, c->msg,
					    sizeof(c->msg)))
			ret = 1;
		sim_out_release(&js);
		if (ret)
			goto out;
	}
	if (o.failed || fflush(c->out))
		ret = cli_fail(c, "writing to standard output failed") - 1;
out:
	sim_outfile_abort(&json_f);
	json_decref(doc);
	for (i = 0; pts && i < nr_all; i++)
		plan_scenario_release(&pts[i].prep);
	free(pts);
	free(sel);
	free(prep);
	return ret;
}
