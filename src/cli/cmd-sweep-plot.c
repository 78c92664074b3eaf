// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim sweep --plot FILE`: one chart per metric against the first varied
 * key, one line per variant (and per value of the other varied keys), the
 * mean over seeds with its 95% interval, drawn by gnuplot (plot.c).  A
 * chart that no run could fill is named on standard error with why.
 * Models nothing of the kernel.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "cli/sweep.h"

/* ---- plotting a sweep ---------------------------------------------------- */

/*
 * One line on standard error per chart that is not drawn, because no run
 * set its metric, and why: a metric computed against a variant
 * (struct sim_metric's relative_to) that the sweep does not run.
 */
static void sweep_plot_notes(struct cli *c, const struct sweep *sw, const char *path,
			     const struct plot_chart *charts)
{
	int m, s, v;

	for (m = 0; m < sw->nr_metrics; m++) {
		const struct sim_metric *mt = &sw->s->metrics[m];
		bool ran = false;

		for (s = 0; s < charts[m].nr_series; s++)
			if (charts[m].series[s].nr)
				break;
		if (s < charts[m].nr_series)
			continue;
		for (v = 0; mt->relative_to && v < sw->plan.nr; v++)
			ran |= !strcmp(sw->s->variants[sw->plan.idx[v]].name, mt->relative_to);
		if (mt->relative_to && !ran)
			fprintf(c->err, "mmsim: note: --plot %s: no chart of %s: it is computed "
				"against variant %s, which this sweep does not run (add --variant %s)\n",
				path, mt->label ? mt->label : mt->key, mt->relative_to,
				mt->relative_to);
		else
			fprintf(c->err, "mmsim: note: --plot %s: no chart of %s: no run set it\n",
				path, mt->label ? mt->label : mt->key);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The value of variant @v, metric @m in a run's rows (NAN for NA). */
static void sweep_parse_values(const struct sweep *sw, const struct pool_job *run,
			       double *vals)
{
	const char *p = sim_out_text(&run->out);
	int k, nr = sw->plan.nr * sw->nr_metrics;

	for (k = 0; k < nr; k++)
		vals[k] = NAN;
	for (k = 0; k < nr && *p; k++) {
		const char *nl = strchr(p, '\n'), *comma;

		if (!nl)
			break;
		for (comma = nl; comma > p && comma[-1] != ','; comma--)
			;
		if (comma < nl && strncmp(comma, "NA\n", 3))
			vals[k] = strtod(comma, NULL);
		p = nl + 1;
	}
}

int sweep_plot(struct cli *c, const struct sweep *sw,
		      const struct pool_job *runs, const char *path, const char *settings)
{
	const struct sweep_axis *x = &sw->axis[0];
	uint64_t stride = sw->nr_grid / (uint64_t)x->nr, rest, r;
	int nr_series = sw->plan.nr * (int)stride, m, v, j, k, ret;
	int per = sw->plan.nr * sw->nr_metrics;
	struct plot_chart *charts;
	struct plot_axis axis;
	double *vals, *tmp;
	char title[1024];
	bool numeric;

	memset(&axis, 0, sizeof(axis));
	charts = calloc((size_t)sw->nr_metrics, sizeof(*charts));
	vals = calloc((size_t)(sw->last - sw->first + 1) * (size_t)per, sizeof(*vals));
	tmp = calloc((size_t)sw->nr_seeds, sizeof(*tmp));
	axis.pos = calloc((size_t)x->nr, sizeof(*axis.pos));
	axis.text = calloc((size_t)x->nr, sizeof(*axis.text));
	if (!charts || !vals || !tmp || !axis.pos || !axis.text) {
		ret = cli_fail(c, "out of memory") - 1;
		goto out_free;
	}
	for (r = sw->first; r < sw->last; r++)
		sweep_parse_values(sw, &runs[r - sw->first], vals + (r - sw->first) * (uint64_t)per);
	snprintf(axis.label, sizeof(axis.label), "%s", x->key);
	axis.nr = x->nr;
	numeric = x->param < 0 || (sw->s->params[x->param].type != SIM_PARAM_ENUM &&
				    sw->s->params[x->param].type != SIM_PARAM_BOOL);
	for (j = 0; j < x->nr; j++) {
		axis.pos[j] = numeric ? (double)x->val[j] : j;
		snprintf(axis.text[j], sizeof(axis.text[j]), "%s", x->text[j]);
	}
	if (numeric) {
		double lo = axis.pos[0], hi = axis.pos[0];

		for (j = 1; j < x->nr; j++) {
			lo = fmin(lo, axis.pos[j]);
			hi = fmax(hi, axis.pos[j]);
		}
		axis.log2 = lo > 0 && hi / lo >= 8;
	}
	for (m = 0; m < sw->nr_metrics; m++) {
		struct plot_chart *ch = &charts[m];

		/* the axis is the metric's title, with its unit; no title above */
		snprintf(ch->ylabel, sizeof(ch->ylabel), "%s", sw->s->metrics[m].label ?
			 sw->s->metrics[m].label : sw->s->metrics[m].key);
		ch->series = calloc((size_t)nr_series, sizeof(*ch->series));
		if (!ch->series) {
			ret = cli_fail(c, "out of memory") - 1;
			goto out_free;
		}
		ch->nr_series = nr_series;
		for (rest = 0; rest < stride; rest++)
			for (v = 0; v < sw->plan.nr; v++) {
				struct plot_series *se = &ch->series[rest * (uint64_t)sw->plan.nr + (uint64_t)v];
				size_t n;

				n = (size_t)snprintf(se->title, sizeof(se->title), "%s",
						     sw->s->variants[sw->plan.idx[v]].name);
				for (k = 1; k < sw->nr_axes && n < sizeof(se->title); k++)
					n += (size_t)snprintf(se->title + n, sizeof(se->title) - n,
							      ", %s=%s", sw->axis[k].key,
							      sw->axis[k].text[sweep_axis_index(sw, rest, k) ]);
				se->x = calloc((size_t)x->nr, sizeof(double));
				se->mean = calloc((size_t)x->nr, sizeof(double));
				se->lo = calloc((size_t)x->nr, sizeof(double));
				se->hi = calloc((size_t)x->nr, sizeof(double));
				if (!se->x || !se->mean || !se->lo || !se->hi) {
					ret = cli_fail(c, "out of memory") - 1;
					goto out_free;
				}
				for (j = 0; j < x->nr; j++) {
					uint64_t g = (uint64_t)j * stride + rest, i;
					int cnt = 0;
					double sum = 0;

					for (i = 0; i < sw->nr_seeds; i++) {
						uint64_t rr = g * sw->nr_seeds + i;
						double val;

						if (rr < sw->first || rr >= sw->last ||
						    !runs[rr - sw->first].ok)
							continue;
						val = vals[(rr - sw->first) * (uint64_t)per +
							   (uint64_t)(v * sw->nr_metrics + m)];
						if (isnan(val))
							continue;
						tmp[cnt++] = val;
						sum += val;
					}
					if (!cnt)
						continue;
					qsort(tmp, (size_t)cnt, sizeof(*tmp), cmp_double);
					se->x[se->nr] = axis.pos[j];
					se->mean[se->nr] = sum / cnt;
					se->lo[se->nr] = tmp[0];
					se->hi[se->nr] = tmp[cnt - 1];
					se->nr++;
				}
			}
	}
	snprintf(title, sizeof(title), "mmsim sweep %s, %s, mean of %" PRIu64
		 " seed%s, bars: min to max%s%s", sw->s->name, sw->plan.prof->origin,
		 sw->nr_seeds, sw->nr_seeds == 1 ? "" : "s", settings[0] ? "\n" : "", settings);
	sweep_plot_notes(c, sw, path, charts);
	ret = cli_plot_sweep(c, path, title, &axis, charts, sw->nr_metrics);
out_free:
	for (m = 0; charts && m < sw->nr_metrics; m++) {
		for (k = 0; charts[m].series && k < charts[m].nr_series; k++) {
			free(charts[m].series[k].x);
			free(charts[m].series[k].mean);
			free(charts[m].series[k].lo);
			free(charts[m].series[k].hi);
		}
		free(charts[m].series);
	}
	free(charts);
	free(vals);
	free(tmp);
	free(axis.pos);
	free(axis.text);
	return ret;
}

