// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim calibrate`: the model's kernel-internal costs (mm.fault_entry_ns,
 * pte_op_ns, folio_op_ns, list_op_ns), solved from the single-thread kernel
 * paths that calibrate_kernel.c timed on this machine.
 *
 * The model runs its own single-thread version of each path: deferred-split
 * with one thread, workers=threads, variant "unqueued" (mainline: an mTHP is
 * not queued at fault), round_phase=together, on the calibrated profile, in
 * two forms per folio size:
 *
 *   munmap:    a round maps the region, faults every folio, munmap()s it
 *              live target: nr x (fault + munmap per folio) + mmap()+munmap()
 *   dontneed:  a round faults every folio and empties it with MADV_DONTNEED
 *              live target: nr x (fault + MADV_DONTNEED per folio)
 *
 * One round's virtual time is (T(3 rounds) - T(1 round)) / 2.  With one
 * thread nothing waits, so a round's time is affine in the four costs:
 * M_c(x) = b_c + a_c . x, with b_c and a_c from runs at x = 0 and at
 * 1000 ns for each cost alone.  The fit minimises the relative error over
 * the forms fitted, sum ((M_c(x) - L_c) / L_c)^2, plus a pull of weight
 * CAL_FIT_PULL towards the builtin's value of each cost (which resolves a
 * cost that the paths cannot tell from another), with every cost >= 0
 * (an active set: a cost that would be negative is 0 and the rest solved
 * again).  The fit uses 4K and 16K folios; 64K folios (full runs) are
 * held out and only predicted, so that the error printed for them is a
 * check on sizes the fit did not see.  Every other cost of the model in
 * these paths (zeroing, cache misses, system calls) is measured first.
 *
 * Nothing contended or multi-threaded is fitted: that is the validation.
 * Mirrors no kernel function; runs the model in this process.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/calibrate.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"

#define CAL_FIT_PULL	1e-3	/* weight of the pull towards the builtin's values */
#define CAL_FIT_STEP	1000	/* ns: the step that measures each cost's coefficient */

const char *const cal_fit_keys[CAL_FIT_NR] = {
	"mm.fault_entry_ns", "mm.pte_op_ns", "mm.folio_op_ns", "mm.list_op_ns",
};

static uint64_t *cal_fit_field(struct sim_profile *p, int k)
{
	switch (k) {
	case 0: return &p->mm_fault_entry_ns;
	case 1: return &p->mm_pte_op_ns;
	case 2: return &p->mm_folio_op_ns;
	default: return &p->mm_list_op_ns;
	}
}

/* Virtual seconds of @rounds rounds of form @dontneed with @kib folios. */
static int cal_model_run(const struct sim_profile *p, uint64_t region, unsigned kib,
			 bool dontneed, int rounds, double *secs, char *err, size_t len)
{
	const struct scenario_ops *s = sim_scenario_find("deferred-split");
	struct sim_variant_result *res;
	struct sim_run_config cfg;
	char set[64];
	const char *sets[] = { "threads=1", "workers=threads", "round_phase=together",
			       "start_spread=0", NULL };
	int v, ret = -1;

	if (!s) {
		snprintf(err, len, "calibrate fit: no scenario deferred-split");
		return -1;
	}
	v = sim_scenario_variant_index(s, "unqueued");
	res = calloc(1, sizeof(*res));
	if (!res) {
		snprintf(err, len, "calibrate fit: out of memory");
		return -1;
	}
	sim_run_config_init(&cfg, s, p, 1);
	for (int i = 0; sets[i]; i++)
		if (sim_run_config_set(&cfg, sets[i], err, len) < 0)
			goto out_free;
	snprintf(set, sizeof(set), "rounds=%d", rounds);
	if (sim_run_config_set(&cfg, set, err, len) < 0)
		goto out_free;
	snprintf(set, sizeof(set), "region=%llu", (unsigned long long)region);
	if (sim_run_config_set(&cfg, set, err, len) < 0)
		goto out_free;
	snprintf(set, sizeof(set), "mthp=%uK", kib);
	if (sim_run_config_set(&cfg, set, err, len) < 0)
		goto out_free;
	if (sim_run_config_set(&cfg, dontneed ? "unmap=dontneed" : "unmap=munmap", err, len) < 0)
		goto out_free;
	if (s->validate && s->validate(&cfg, err, len))
		goto out_free;
	res->name = s->variants[v < 0 ? 0 : v].name;
	if (s->run(&cfg, v < 0 ? 0 : v, res, err, len))
		goto out_free;
	*secs = res->runtime_s;
	ret = 0;
out_free:
	free(res);
	return ret;
}

/**
 * cal_model_round_ns - the model's time of one single-thread round
 * @p: the profile
 * @region: bytes per round
 * @kib: the folio size
 * @dontneed: MADV_DONTNEED (true) or munmap() (false) empties the region
 * @ns: the result
 * @err: why not
 * @len: size of @err
 *
 * Return: 0, or -1 with @err filled.
 */
int cal_model_round_ns(const struct sim_profile *p, uint64_t region, unsigned kib,
		       bool dontneed, double *ns, char *err, size_t len)
{
	double t1, t3;

	if (cal_model_run(p, region, kib, dontneed, 1, &t1, err, len) ||
	    cal_model_run(p, region, kib, dontneed, 3, &t3, err, len))
		return -1;
	*ns = (t3 - t1) / 2 * 1e9;
	return 0;
}

/**
 * cal_fit_targets - this machine's time of one round of each form
 * @m: the paths timed
 * @o: the folio size's index in cal_fault_kib[]
 * @target: [0] the munmap form, [1] the MADV_DONTNEED form, in ns; 0 when
 *          the paths were not timed
 */
void cal_fit_targets(const struct cal_paths *m, int o, double target[2])
{
	double nr = (double)m->region / ((double)cal_fault_kib[o] * 1024);

	target[0] = target[1] = 0;
	if (!m->fault[o].n)
		return;
	if (m->munmap[o].n)
		target[0] = nr * (m->fault[o].ns + m->munmap[o].ns) + m->mmap_ns.ns;
	if (m->dontneed[o].n)
		target[1] = nr * (m->fault[o].ns + m->dontneed[o].ns);
}

/* Solve the n x n system a x = b in place (partial pivoting); -1 if singular. */
static int cal_solve(int n, double a[CAL_FIT_NR][CAL_FIT_NR], double *b, double *x)
{
	for (int c = 0; c < n; c++) {
		int piv = c;

		for (int r = c + 1; r < n; r++)
			if (fabs(a[r][c]) > fabs(a[piv][c]))
				piv = r;
		if (fabs(a[piv][c]) < 1e-300)
			return -1;
		for (int k = 0; k < n; k++) {
			double t = a[c][k];

			a[c][k] = a[piv][k];
			a[piv][k] = t;
		}
		{
			double t = b[c];

			b[c] = b[piv];
			b[piv] = t;
		}
		for (int r = c + 1; r < n; r++) {
			double f = a[r][c] / a[c][c];

			for (int k = c; k < n; k++)
				a[r][k] -= f * a[c][k];
			b[r] -= f * b[c];
		}
	}
	for (int r = n - 1; r >= 0; r--) {
		double s = b[r];

		for (int k = r + 1; k < n; k++)
			s -= a[r][k] * x[k];
		x[r] = s / a[r][r];
	}
	return 0;
}

/**
 * cal_fit_solve - the costs that make the model's rounds match the targets
 * @base: the profile; its mm.* values are the prior
 * @region: bytes per round
 * @target: [order][form] ns of one round on this machine, 0: not timed
 * @fit_orders: the orders fitted (the rest are only predicted)
 * @x: the fitted costs, ns, in cal_fit_keys[] order
 * @model: [order][form] the model's round at @x (ns), 0 where no target
 * @err: why not
 * @len: size of @err
 *
 * Return: the number of forms fitted (>= 1), or -1 with @err filled.
 */
int cal_fit_solve(const struct sim_profile *base, uint64_t region,
		  const double target[CAL_NR_ORDERS][2], int fit_orders, double x[CAL_FIT_NR],
		  double model[CAL_NR_ORDERS][2], char *err, size_t len)
{
	struct sim_profile *p = malloc(sizeof(*p));
	double b[CAL_NR_ORDERS][2], a[CAL_NR_ORDERS][2][CAL_FIT_NR], prior[CAL_FIT_NR];
	bool fixed[CAL_FIT_NR] = { false };
	int nr_forms = 0, ret = -1;

	if (!p) {
		snprintf(err, len, "calibrate fit: out of memory");
		return -1;
	}
	*p = *base;
	for (int k = 0; k < CAL_FIT_NR; k++) {
		prior[k] = (double)*cal_fit_field(p, k);
		*cal_fit_field(p, k) = 0;
	}
	memset(model, 0, sizeof(double) * CAL_NR_ORDERS * 2);
	/* the affine model of every form with a target */
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int f = 0; f < 2; f++) {
			if (!target[o][f])
				continue;
			if (cal_model_round_ns(p, region, cal_fault_kib[o], f, &b[o][f], err, len))
				goto out_free;
			for (int k = 0; k < CAL_FIT_NR; k++) {
				double t;

				*cal_fit_field(p, k) = CAL_FIT_STEP;
				if (cal_model_round_ns(p, region, cal_fault_kib[o], f, &t, err, len))
					goto out_free;
				*cal_fit_field(p, k) = 0;
				a[o][f][k] = (t - b[o][f]) / CAL_FIT_STEP;
			}
			nr_forms += o < fit_orders;
		}
	if (!nr_forms) {
		snprintf(err, len, "calibrate fit: no single-thread path timed");
		goto out_free;
	}
	/* least squares with the pull, over the free costs, until none is negative */
	for (int pass = 0; pass <= CAL_FIT_NR; pass++) {
		double n[CAL_FIT_NR][CAL_FIT_NR] = { { 0 } }, rhs[CAL_FIT_NR] = { 0 }, y[CAL_FIT_NR];
		int idx[CAL_FIT_NR], nf = 0, neg = -1;

		for (int k = 0; k < CAL_FIT_NR; k++)
			if (!fixed[k])
				idx[nf++] = k;
		for (int i = 0; i < nf; i++) {
			double w = prior[idx[i]] > 0 ? prior[idx[i]] : 1;

			n[i][i] += CAL_FIT_PULL / (w * w);
			rhs[i] += CAL_FIT_PULL * prior[idx[i]] / (w * w);
		}
		for (int o = 0; o < fit_orders && o < CAL_NR_ORDERS; o++)
			for (int f = 0; f < 2; f++) {
				double l = target[o][f], r0;

				if (!l)
					continue;
				r0 = l - b[o][f];	/* fixed costs are 0 */
				for (int i = 0; i < nf; i++) {
					for (int j = 0; j < nf; j++)
						n[i][j] += a[o][f][idx[i]] * a[o][f][idx[j]] / (l * l);
					rhs[i] += a[o][f][idx[i]] * r0 / (l * l);
				}
			}
		if (cal_solve(nf, n, rhs, y)) {
			snprintf(err, len, "calibrate fit: singular system");
			goto out_free;
		}
		for (int k = 0; k < CAL_FIT_NR; k++)
			x[k] = 0;
		for (int i = 0; i < nf; i++) {
			x[idx[i]] = y[i];
			if (y[i] < 0 && (neg < 0 || y[i] < x[neg]))
				neg = idx[i];
		}
		if (neg < 0)
			break;
		fixed[neg] = true;
	}
	for (int k = 0; k < CAL_FIT_NR; k++)
		if (x[k] < 0)
			x[k] = 0;
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int f = 0; f < 2; f++) {
			if (!target[o][f])
				continue;
			model[o][f] = b[o][f];
			for (int k = 0; k < CAL_FIT_NR; k++)
				model[o][f] += a[o][f][k] * x[k];
		}
	ret = nr_forms;
out_free:
	free(p);
	return ret;
}

/**
 * cal_fit - fit mm.fault_entry_ns, pte_op_ns, folio_op_ns and list_op_ns
 * @r: the run; its paths timed, its other keys set
 * @include: the builtin profile the run includes
 */
void cal_fit(struct cal_run *r, const char *include)
{
	struct sim_profile *p = calloc(1, sizeof(*p));
	double target[CAL_NR_ORDERS][2], model[CAL_NR_ORDERS][2], x[CAL_FIT_NR];
	int fit_orders = 2, nr;
	char err[256], sizes[32];

	cal_progress(r, "fit of mm.* to the single-thread paths, through the model");
	if (!p)
		return;
	if (cal_run_profile(r, include, p, err, sizeof(err))) {
		cal_note(r, "fit: %s; mm.* keep the builtin's values", err);
		goto out_free;
	}
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		cal_fit_targets(&r->paths, o, target[o]);
	if (!target[1][0] && !target[1][1])
		fit_orders = 1;		/* no mTHP: 4K alone */
	nr = cal_fit_solve(p, r->paths.region, target, fit_orders, x, model, err, sizeof(err));
	if (nr < 0) {
		cal_note(r, "fit: %s; mm.* keep the builtin's values", err);
		goto out_free;
	}
	snprintf(sizes, sizeof(sizes), fit_orders == 2 ? "4K,16K" : "4K");
	for (int k = 0; k < CAL_FIT_NR; k++) {
		uint64_t v = (uint64_t)(x[k] + 0.5);

		cal_key_set(r, cal_fit_keys[k], v, "fitted: the model's 1-thread fault+munmap and "
			    "+DONTNEED rounds (%s) to this run's paths, least squares, %s",
			    sizes, r->date);
		fprintf(r->log, "  %-30s %10llu   (fitted)\n", cal_fit_keys[k],
			(unsigned long long)v);
	}
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int f = 0; f < 2; f++)
			if (target[o][f])
				cal_note(r, "fit %s: %uK folios, %s round: model %.0f us, this machine "
					 "%.0f us (%+.1f%%)", o < fit_orders ? "(fitted)" :
					 "(held out)", cal_fault_kib[o], f ? "MADV_DONTNEED" : "munmap",
					 model[o][f] / 1e3, target[o][f] / 1e3,
					 (model[o][f] / target[o][f] - 1) * 100);
out_free:
	free(p);
}
