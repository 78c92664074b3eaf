// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON of a run, a reproduce report and its verdicts (DESIGN.md's
 * output contract): every parameter, every variant's metrics, counters and
 * locks, with the seeds written unsigned.  The text printers are in
 * report.c.  Models nothing of the kernel; nothing here runs inside the
 * engine.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/output.h"
#include "mmsim/profile.h"

#ifndef MMSIM_VERSION
#define MMSIM_VERSION "unknown"
#endif

/* ---- JSON --------------------------------------------------------------- */

/* JSON has no NaN or infinity: they become null. */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *param_json(const struct sim_param *p, uint64_t v)
{
	switch (p->type) {
	case SIM_PARAM_BOOL:
		return json_boolean(v);
	case SIM_PARAM_ENUM: {
		char buf[64];

		sim_param_format(p, v, buf, sizeof(buf));
		return json_string(buf);
	}
	default:
		return json_integer((json_int_t)v);
	}
}

static json_t *variant_json(const struct scenario_ops *s,
			    const struct sim_variant_result *res)
{
	json_t *vj = json_object(), *mj = json_object(), *cj = json_object();
	json_t *lj = json_array();
	int m, c, i;

	json_object_set_new(vj, "name", json_string(res->name));
	for (m = 0; s->metrics[m].key && m < SIM_MAX_METRICS; m++)
		json_object_set_new(mj, s->metrics[m].key,
				    res->has_metric[m] ? jreal(res->metrics[m])
						       : json_null());
	json_object_set_new(vj, "metrics", mj);
	for (c = 0; c < NR_SIM_COUNTERS; c++)
		json_object_set_new(cj, sim_counter_names[c],
				    json_integer((json_int_t)res->counters[c]));
	json_object_set_new(vj, "counters", cj);
	for (i = 0; i < res->nr_locks && i < SIM_MAX_LOCKS; i++) {
		const struct sim_lock_result *l = &res->locks[i];
		json_t *one = json_object();

		json_object_set_new(one, "name", json_string(l->name));
		json_object_set_new(one, "acquisitions",
				    json_integer((json_int_t)l->acquisitions));
		json_object_set_new(one, "contentions",
				    json_integer((json_int_t)l->contentions));
		json_object_set_new(one, "wait_total_s", jreal(l->wait_total_s));
		json_object_set_new(one, "wait_max_us", jreal(l->wait_max_us));
		json_object_set_new(one, "wait_avg_ns", jreal(l->wait_avg_ns));
		json_object_set_new(one, "hold_total_s", jreal(l->hold_total_s));
		json_object_set_new(one, "hold_avg_ns", jreal(l->hold_avg_ns));
		json_array_append_new(lj, one);
	}
	json_object_set_new(vj, "locks", lj);
	if (res->functions.nr) {
		json_object_set_new(vj, "cpu_time_s", jreal((double)res->functions.cpu_ps / 1e12));
		json_object_set_new(vj, "spinning_s", jreal((double)res->functions.spin_ps / 1e12));
		json_object_set_new(vj, "functions", sim_functions_json(&res->functions));
	}
	return vj;
}

/**
 * sim_report_json() - the JSON document of a run
 * @r: the results
 *
 * Keys in a fixed order: mmsim_version, scenario, profile, profile_overrides
 * (only after --cost), seed, params
 * (in the scenario's order; sizes in bytes, times in ns, bools as true or
 * false, enums by name), variants (name, metrics, counters, locks),
 * then in reproduce mode published {source, VARIANT: {metric: value}} and
 * verdict (sim_verdict_json()),
 * and last host {cpu_seconds, processes, wall_seconds, events} (the "host
 * time" line's).  A metric a variant did not set is null.
 *
 * Return: a new reference, or NULL when out of memory.
 */
struct json_t *sim_report_json(const struct sim_report *r)
{
	const struct sim_run_config *cfg = r->cfg;
	const struct scenario_ops *s = cfg->scenario;
	json_t *doc = json_object(), *pj = json_object(), *vj = json_array();
	json_t *hj = json_object();
	int i;

	if (!doc || !pj || !vj || !hj)
		goto out_free;
	json_object_set_new(doc, "mmsim_version", json_string(MMSIM_VERSION));
	json_object_set_new(doc, "scenario", json_string(s->name));
	json_object_set_new(doc, "profile",
			    json_string(cfg->profile ? cfg->profile->origin : ""));
	/* Only when --cost changed the machine: outputs without it are unchanged. */
	if (cfg->profile && cfg->profile->overrides[0])
		json_object_set_new(doc, "profile_overrides",
				    json_string(cfg->profile->overrides));
	json_object_set_new(doc, "seed", json_integer((json_int_t)cfg->seed));
	for (i = 0; s->params && s->params[i].key; i++)
		json_object_set_new(pj, s->params[i].key,
				    param_json(&s->params[i], cfg->params[i]));
	json_object_set_new(doc, "params", pj);
	pj = NULL;
	for (i = 0; i < r->nr_res; i++)
		json_array_append_new(vj, variant_json(s, &r->res[i]));
	json_object_set_new(doc, "variants", vj);
	vj = NULL;
	if (r->reproduce) {
		json_t *pub = json_object();
		const struct sim_published *p;

		json_object_set_new(pub, "source",
				    json_string(s->published_source ?
						s->published_source : ""));
		for (p = s->published; p && p->variant; p++) {
			json_t *one = json_object_get(pub, p->variant);

			if (!one) {
				one = json_object();
				json_object_set_new(pub, p->variant, one);
			}
			json_object_set_new(one, p->metric, jreal(p->value));
		}
		json_object_set_new(doc, "published", pub);
	}
	if (r->reproduce)
		json_object_set_new(doc, "verdict", sim_verdict_json(s, r->res, r->nr_res));
	json_object_set_new(hj, "cpu_seconds", jreal(r->host_cpu_seconds));
	json_object_set_new(hj, "processes", json_integer(r->host_processes));
	json_object_set_new(hj, "wall_seconds", jreal(r->host_wall_seconds));
	json_object_set_new(hj, "events", json_integer((json_int_t)r->host_events));
	json_object_set_new(doc, "host", hj);
	return doc;
out_free:
	json_decref(doc);
	json_decref(pj);
	json_decref(vj);
	json_decref(hj);
	return NULL;
}

/*
 * Write @text, a dumped document, with its seeds unsigned.  A seed is a
 * uint64_t and jansson's integer an int64_t: a seed of 2^63 or more is
 * stored as its two's complement, a negative number, which no run could
 * take back (--seed is unsigned).  Under the keys that hold seeds ("seed",
 * and "first" of "seeds"), a negative number is written as the uint64_t
 * it stands for; `mmsim diff` reads them back so (cmd-diff.c).
 */
static void print_json_seeds(struct sim_out *o, const char *text)
{
	static const char *const keys[] = { "\"seed\": -", "\"first\": -" };
	const char *p = text;

	for (;;) {
		const char *hit = NULL, *h = p;
		size_t klen = 0, k;
		char *end;
		long long v;

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			for (h = p; (h = strstr(h, keys[k])); h++)
				if (h == text || h[-1] != '\\') {	/* not inside a key */
					if (!hit || h < hit) {
						hit = h;
						klen = strlen(keys[k]) - 1;
					}
					break;
				}
		if (!hit)
			break;
		v = strtoll(hit + klen, &end, 10);
		if (*end == '.' || *end == 'e' || *end == 'E') {	/* a real: not a seed */
			sim_out_write(o, p, (size_t)(end - p));
		} else {
			sim_out_write(o, p, (size_t)(hit + klen - p));
			sim_out_printf(o, "%" PRIu64, (uint64_t)v);
		}
		p = end;
	}
	sim_out_write(o, p, strlen(p));
}

/**
 * sim_print_json() - write a JSON document to a sink
 * @o: the sink
 * @json: the document
 *
 * Two-space indent, insertion order, 15 significant digits, a final
 * newline; seeds unsigned (print_json_seeds()).
 *
 * Return: 0, or -1 if it could not be dumped.
 */
int sim_print_json(struct sim_out *o, struct json_t *json)
{
	char *text = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					      JSON_REAL_PRECISION(15));

	if (!text) {
		o->failed = true;
		return -1;
	}
	print_json_seeds(o, text);
	sim_out_write(o, "\n", 1);
	free(text);
	return 0;
}
