// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verdict: does a simulation agree with its post?  For each metric of
 * the scenario's published table (in the table's order):
 *
 *   agrees          the published change (baseline -> changed) has the same
 *                   sign in the simulation, the simulated change lies in the
 *                   entry's change band, and every simulated value with a
 *                   ratio band lies in it; for a metric published for one
 *                   variant only, every ratio band holds
 *   same direction  the change has the published sign, but a band fails or
 *                   none is declared
 *   disagrees       the change has the other sign (or is zero), or a metric
 *                   without a change misses its ratio band
 *   not judged      the variants it needs did not run, or a metric without a
 *                   change declares no band
 *
 * The bands are data in the scenario's table (struct sim_published), never
 * code here.  Models nothing of the kernel.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "mmsim/output.h"

const char *const sim_verdict_names[NR_SIM_VERDICTS] = {
	[SIM_NOT_JUDGED] = "not judged",
	[SIM_AGREES] = "agrees",
	[SIM_SAME_DIRECTION] = "same direction",
	[SIM_DISAGREES] = "disagrees",
};

static bool band_set(const struct sim_band *b)
{
	return b->lo != 0 || b->hi != 0;
}

static bool band_holds(const struct sim_band *b, double x)
{
	return isfinite(x) && x >= b->lo && x <= b->hi;
}

static const struct sim_published *find_pub(const struct scenario_ops *s,
					     const char *variant, const char *metric)
{
	const struct sim_published *p;

	if (!variant)
		return NULL;
	for (p = s->published; p && p->variant; p++)
		if (!strcmp(p->variant, variant) && !strcmp(p->metric, metric))
			return p;
	return NULL;
}

static int find_res(const struct sim_variant_result *res, int nr, const char *name)
{
	int i;

	for (i = 0; name && i < nr; i++)
		if (!strcmp(res[i].name, name))
			return i;
	return -1;
}

/* Judge metric @m of @s, published at least once, on the @nr results @res. */
static void judge_one(const struct scenario_ops *s, int m,
		      const struct sim_variant_result *res, int nr,
		      struct sim_judgement *j)
{
	const char *key = s->metrics[m].key;
	const struct sim_published *pb = find_pub(s, s->baseline, key);
	const struct sim_published *pc = find_pub(s, s->changed, key);
	const struct sim_published *p;
	int rb = find_res(res, nr, s->baseline), rc = find_res(res, nr, s->changed);
	bool bands = true, any_band = false, missing = false;

	memset(j, 0, sizeof(*j));
	j->metric = m;
	/* Every published value of the metric against its ratio band. */
	for (p = s->published; p->variant; p++) {
		int r;
		double ratio;

		if (strcmp(p->metric, key) || !band_set(&p->ratio))
			continue;
		r = find_res(res, nr, p->variant);
		if (!any_band) {
			/* what the row prints when the metric has no change */
			j->value_variant = p->variant;
			j->pub_value = p->value;
			j->value_band.lo = p->ratio.lo * p->value;
			j->value_band.hi = p->ratio.hi * p->value;
			j->has_sim_value = r >= 0 && res[r].has_metric[m];
			if (j->has_sim_value)
				j->sim_value = res[r].metrics[m];
		}
		any_band = true;
		if (r < 0 || !res[r].has_metric[m] || p->value == 0) {
			missing = true;
			continue;
		}
		ratio = res[r].metrics[m] / p->value;
		if (!band_holds(&p->ratio, ratio))
			bands = false;
	}
	j->values_hold = bands;
	if (pb && pc && pb->value != 0) {
		j->has_change = true;
		j->pub_change_pct = (pc->value / pb->value - 1.0) * 100.0;
		j->change_band = pc->change_pct;
		if (rb < 0 || rc < 0 || !res[rb].has_metric[m] || !res[rc].has_metric[m] ||
		    res[rb].metrics[m] == 0) {
			j->verdict = SIM_NOT_JUDGED;
			return;
		}
		j->sim_change_pct = (res[rc].metrics[m] / res[rb].metrics[m] - 1.0) * 100.0;
		j->sign_holds = (j->pub_change_pct > 0 && j->sim_change_pct > 0) ||
				(j->pub_change_pct < 0 && j->sim_change_pct < 0);
		j->has_band = band_set(&pc->change_pct);
		j->in_band = j->has_band && band_holds(&pc->change_pct, j->sim_change_pct);
		if (!j->sign_holds)
			j->verdict = SIM_DISAGREES;
		else if (j->has_band && j->in_band && bands && !missing)
			j->verdict = SIM_AGREES;
		else
			j->verdict = SIM_SAME_DIRECTION;
		return;
	}
	j->has_value = any_band;
	if (!any_band || missing)
		j->verdict = SIM_NOT_JUDGED;
	else
		j->verdict = bands ? SIM_AGREES : SIM_DISAGREES;
}

/**
 * sim_judge() - the verdict of each published metric
 * @s: the scenario
 * @res: the results of the variants that ran
 * @nr: how many
 * @out: SIM_MAX_METRICS judgements
 *
 * Return: how many metrics are published (one judgement each, in the
 * order of the scenario's metrics).
 */
int sim_judge(const struct scenario_ops *s, const struct sim_variant_result *res,
	      int nr, struct sim_judgement *out)
{
	int m, n = 0;

	for (m = 0; s->metrics[m].key && m < SIM_MAX_METRICS; m++) {
		const struct sim_published *p;

		for (p = s->published; p && p->variant; p++)
			if (!strcmp(p->metric, s->metrics[m].key))
				break;
		if (!p || !p->variant)
			continue;
		judge_one(s, m, res, nr, &out[n++]);
	}
	return n;
}

/* the value band @b in @decimals and @unit ("8.0..22.0%"), after @what */
static void fmt_band(char *buf, size_t len, const char *what, const struct sim_band *b,
		     int decimals, const char *unit)
{
	snprintf(buf, len, "%s %.*f..%.*f%s%s", what, decimals, b->lo, decimals, b->hi,
		 *unit && *unit != '%' ? " " : "", unit);
}

/* @x in @mt's decimals and unit ("15.0%", "491.00 s"), after @what */
static void fmt_value(char *buf, size_t len, const char *what,
		      const struct sim_metric *mt, double x)
{
	const char *unit = mt->unit ? mt->unit : "";

	snprintf(buf, len, "%s %.*f%s%s", what, mt->decimals, x,
		 *unit && *unit != '%' ? " " : "", unit);
}

/**
 * sim_print_verdict() - the verdict table and its one-line summary
 * @o: the sink
 * @r: the results (reproduce)
 *
 * Each row prints what it judged: the change (baseline -> changed) and
 * its band, or for a metric published without a change, its value (the
 * variant's), the simulated value and the value band:
 *
 *   verdict: deferred-split (before -> after; bands: docs/uncertainty.md)
 *   metric            published      simulated      band                 values in band  verdict
 *   lruvec lock ...   change -92.3%  change -86.7%  change -100.0..-80.0%  no  same direction
 *   queueing cost ... before 15.0%   before 49.3%   before 8.0..22.0%      no  disagrees
 *   deferred-split: 0 of 2 published metrics agree, 1 same direction, 1 disagree, ...
 */
void sim_print_verdict(struct sim_out *o, const struct sim_report *r)
{
	const struct scenario_ops *s = r->cfg->scenario;
	struct sim_judgement j[SIM_MAX_METRICS];
	int n = sim_judge(s, r->res, r->nr_res, j), i, count[NR_SIM_VERDICTS] = { 0 };
	size_t w = strlen("metric");

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		const char *l = s->metrics[j[i].metric].label;

		if (strlen(l ? l : s->metrics[j[i].metric].key) > w)
			w = strlen(l ? l : s->metrics[j[i].metric].key);
	}
	sim_out_printf(o, "verdict: %s (%s -> %s; bands: docs/uncertainty.md)\n", s->name,
		       s->baseline ? s->baseline : "-", s->changed ? s->changed : "-");
	sim_out_printf(o, "%-*s  %16s  %16s  %22s  %14s  %s\n", (int)w, "metric",
		       "published", "simulated", "band", "values in band", "verdict");
	for (i = 0; i < n; i++) {
		const struct sim_metric *mt = &s->metrics[j[i].metric];
		char pub[48] = "-", sim[48] = "-", band[64] = "-";

		if (j[i].has_change) {
			snprintf(pub, sizeof(pub), "change %+.1f%%", j[i].pub_change_pct);
			if (j[i].verdict != SIM_NOT_JUDGED)
				snprintf(sim, sizeof(sim), "change %+.1f%%", j[i].sim_change_pct);
			if (band_set(&j[i].change_band))
				snprintf(band, sizeof(band), "change %+.1f..%+.1f%%",
					 j[i].change_band.lo, j[i].change_band.hi);
		} else if (j[i].has_value) {
			fmt_value(pub, sizeof(pub), j[i].value_variant, mt, j[i].pub_value);
			if (j[i].has_sim_value)
				fmt_value(sim, sizeof(sim), j[i].value_variant, mt,
					  j[i].sim_value);
			fmt_band(band, sizeof(band), j[i].value_variant, &j[i].value_band,
				 mt->decimals, mt->unit ? mt->unit : "");
		}
		sim_out_printf(o, "%-*s  %16s  %16s  %22s  %14s  %s\n", (int)w,
			       mt->label ? mt->label : mt->key, pub, sim, band,
			       j[i].values_hold ? "yes" : "no",
			       sim_verdict_names[j[i].verdict]);
		count[j[i].verdict]++;
	}
	sim_out_printf(o, "%s: %d of %d published metrics agree, %d same direction, "
		       "%d disagree, %d not judged\n", s->name, count[SIM_AGREES], n,
		       count[SIM_SAME_DIRECTION], count[SIM_DISAGREES],
		       count[SIM_NOT_JUDGED]);
}

static json_t *band_json(const struct sim_band *b)
{
	json_t *a;

	if (!band_set(b))
		return json_null();
	a = json_array();
	json_array_append_new(a, json_real(b->lo));
	json_array_append_new(a, json_real(b->hi));
	return a;
}

/**
 * sim_verdict_json() - the verdict as JSON
 * @s: the scenario
 * @res: the results
 * @nr: how many
 *
 * {"summary": "...", "metrics": {KEY: {verdict, published_change_pct,
 * simulated_change_pct, change_band_pct, sign_holds, in_band,
 * values_in_band}}}; a change that is not published is null.
 *
 * Return: a new reference.
 */
struct json_t *sim_verdict_json(const struct scenario_ops *s,
				const struct sim_variant_result *res, int nr)
{
	struct sim_judgement j[SIM_MAX_METRICS];
	int n = sim_judge(s, res, nr, j), i, count[NR_SIM_VERDICTS] = { 0 };
	json_t *doc = json_object(), *mj = json_object();
	char line[256];

	for (i = 0; i < n; i++) {
		json_t *one = json_object();
		bool judged = j[i].verdict != SIM_NOT_JUDGED;

		json_object_set_new(one, "verdict",
				    json_string(sim_verdict_names[j[i].verdict]));
		json_object_set_new(one, "published_change_pct", j[i].has_change ?
				    json_real(j[i].pub_change_pct) : json_null());
		json_object_set_new(one, "simulated_change_pct",
				    j[i].has_change && judged && isfinite(j[i].sim_change_pct) ?
				    json_real(j[i].sim_change_pct) : json_null());
		json_object_set_new(one, "change_band_pct", band_json(&j[i].change_band));
		json_object_set_new(one, "sign_holds", j[i].has_change && judged ?
				    json_boolean(j[i].sign_holds) : json_null());
		json_object_set_new(one, "in_band", j[i].has_change && judged && j[i].has_band ?
				    json_boolean(j[i].in_band) : json_null());
		json_object_set_new(one, "values_in_band", json_boolean(j[i].values_hold));
		json_object_set_new(mj, s->metrics[j[i].metric].key, one);
		count[j[i].verdict]++;
	}
	snprintf(line, sizeof(line), "%d of %d published metrics agree, %d same direction, "
		 "%d disagree, %d not judged", count[SIM_AGREES], n,
		 count[SIM_SAME_DIRECTION], count[SIM_DISAGREES], count[SIM_NOT_JUDGED]);
	json_object_set_new(doc, "summary", json_string(line));
	json_object_set_new(doc, "metrics", mj);
	return doc;
}
