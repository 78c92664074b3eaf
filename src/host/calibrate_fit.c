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
 * One round's virtual time is (T(3 rounds) - T(1 round)) / 2.  And three
 * paths per page, each through a shipped workload (workloads/calibrate/),
 * whose loop's time over its pages is the path's:
 *
 *   shmem read:  a read fault of a new tmpfs page (calibrate-shmem.ini):
 *                fault-around over an empty window, then shmem_fault()
 *   shmem write: the same with a store (do_shared_fault(), no fault-around)
 *   cow:         a copy-on-write fault (calibrate-cow.ini)
 *
 * The anonymous rounds alone cannot tell the per-fault cost from the
 * per-folio and per-PTE ones (each round makes one fault per folio), and
 * the fit of them alone left folio_op_ns and pte_op_ns at a few ns, all of
 * a fault in fault_entry_ns; the tmpfs read and the copy-on-write fault
 * do other numbers of page cache, PTE and LRU operations per fault
 * (docs/calibrate.md).  With one thread nothing waits, so each form's time
 * is affine in the four costs: M_c(x) = b_c + a_c . x, with b_c and a_c
 * from runs at x = 0 and at 1000 ns for each cost alone.  The fit minimises the relative error over
 * the forms fitted, sum ((M_c(x) - L_c) / L_c)^2, plus a pull of weight
 * CAL_FIT_PULL towards the builtin's value of each cost (which resolves a
 * cost that the paths cannot tell from another), with every cost >= 0
 * (an active set: a cost that would be negative is 0 and the rest solved
 * again).  The fit uses the rounds of 4K and 16K folios, the tmpfs read
 * fault and the copy-on-write fault; 64K folios (full runs) and the tmpfs
 * write fault are held out and only predicted, so that the errors printed
 * for them are a check on sizes and paths the fit did not see.  Every other cost of the model in
 * these paths (zeroing, cache misses, system calls) is measured first.
 *
 * Nothing contended or multi-threaded is fitted: that is the validation.
 * Mirrors no kernel function; runs the model in this process.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/calibrate.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"
#include "mmsim/workload.h"

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

/*
 * Run scenario @s (an experiment or a workload) once on @p in variant
 * @variant (NULL: the first) with @sets (NULL-terminated): into @res, its
 * virtual makespan and metrics.  0, or -1 with @err filled.
 */
static int cal_model_scenario(const struct sim_profile *p, const struct scenario_ops *s,
			      const char *variant, const char *const *sets,
			      struct sim_variant_result *res, char *err, size_t len)
{
	struct sim_run_config cfg;
	int v = variant ? sim_scenario_variant_index(s, variant) : 0;

	if (v < 0) {
		snprintf(err, len, "calibrate fit: %s has no variant %s", s->name, variant);
		return -1;
	}
	sim_run_config_init(&cfg, s, p, 1);
	for (int i = 0; sets[i]; i++)
		if (sim_run_config_set(&cfg, sets[i], err, len) < 0)
			return -1;
	if (s->validate && s->validate(&cfg, err, len))
		return -1;
	memset(res, 0, sizeof(*res));
	res->name = s->variants[v].name;
	return s->run(&cfg, v, res, err, len) ? -1 : 0;
}

/*
 * Virtual seconds (the makespan) of @rounds deferred-split rounds of form
 * @dontneed with @kib folios, one thread, variant unqueued (mainline).
 */
static int cal_model_run(const struct sim_profile *p, uint64_t region, unsigned kib,
			 bool dontneed, int rounds, double *secs, char *err, size_t len)
{
	const struct scenario_ops *s = sim_scenario_find("deferred-split");
	struct sim_variant_result *res;
	char r[32], g[48], m[32];
	const char *sets[] = { "threads=1", "workers=threads", "round_phase=together",
			       "start_spread=0", r, g, m,
			       dontneed ? "unmap=dontneed" : "unmap=munmap", NULL };
	int ret;

	if (!s) {
		snprintf(err, len, "calibrate fit: no scenario deferred-split");
		return -1;
	}
	res = malloc(sizeof(*res));
	if (!res) {
		snprintf(err, len, "calibrate fit: out of memory");
		return -1;
	}
	snprintf(r, sizeof(r), "rounds=%d", rounds);
	snprintf(g, sizeof(g), "region=%llu", (unsigned long long)region);
	snprintf(m, sizeof(m), "mthp=%uK", kib);
	ret = cal_model_scenario(p, s, "unqueued", sets, res, err, len);
	if (!ret)
		*secs = res->runtime_s;
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

/*
 * Metric @metric of a workload of workloads/calibrate/ run once on @p with
 * @sets (NULL-terminated) into @val.  0, or -1 with @err filled.
 */
static int cal_model_wl_metric(const struct sim_profile *p, const char *name,
			       const char *const *sets, const char *metric, double *val,
			       char *err, size_t len)
{
	const struct scenario_ops *s = workload_scenario(name, err, len);
	struct sim_variant_result *res;
	int m, ret = -1;

	if (!s) {
		if (!err[0])
			snprintf(err, len, "calibrate fit: no workload %s", name);
		return -1;
	}
	res = malloc(sizeof(*res));
	if (!res) {
		snprintf(err, len, "calibrate fit: out of memory");
		return -1;
	}
	if (cal_model_scenario(p, s, NULL, sets, res, err, len))
		goto out_free;
	m = sim_scenario_metric_index(s, metric);
	if (m < 0 || !res->has_metric[m]) {
		snprintf(err, len, "calibrate fit: workload %s gave no %s", name, metric);
		goto out_free;
	}
	*val = res->metrics[m];
	ret = 0;
out_free:
	free(res);
	return ret;
}

/*
 * The model's time per page of a path of workloads/calibrate/: the
 * workload's loop (its runtime_s metric, not the makespan, which holds a
 * forking parent's own faults) over @region bytes of pages.
 */
static int cal_model_wl_ns(const struct sim_profile *p, const char *name, const char *set,
			   uint64_t region, double *ns, char *err, size_t len)
{
	char size[64];
	const char *sets[] = { size, set, NULL };
	double runtime;

	snprintf(size, sizeof(size), "size=%llu", (unsigned long long)region);
	if (cal_model_wl_metric(p, name, sets, "runtime_s", &runtime, err, len))
		return -1;
	*ns = runtime * 1e9 / (double)(region / 4096);
	return 0;
}

/**
 * cal_model_form_ns - the model's time of a form of the single-thread paths
 * @p: the profile
 * @region: bytes per round (per run of a per-page path)
 * @f: the form
 * @ns: the result: a round's (munmap, dontneed) or a page's ns
 * @err: why not
 * @len: size of @err
 *
 * Return: 0, or -1 with @err filled.
 */
int cal_model_form_ns(const struct sim_profile *p, uint64_t region, const struct cal_form *f,
		      double *ns, char *err, size_t len)
{
	switch (f->kind) {
	case CAL_FORM_MUNMAP:
	case CAL_FORM_DONTNEED:
		return cal_model_round_ns(p, region, f->kib, f->kind == CAL_FORM_DONTNEED, ns,
					  err, len);
	case CAL_FORM_SHMEM_READ:
		return cal_model_wl_ns(p, "calibrate-shmem", "write=no", region, ns, err, len);
	case CAL_FORM_SHMEM_WRITE:
		return cal_model_wl_ns(p, "calibrate-shmem", "write=yes", region, ns, err, len);
	case CAL_FORM_COW:
		return cal_model_wl_ns(p, "calibrate-cow", NULL, region, ns, err, len);
	case CAL_FORM_FAULT:
		return cal_model_wl_ns(p, "calibrate-anon", NULL, region, ns, err, len);
	}
	snprintf(err, len, "calibrate fit: form %d unknown", (int)f->kind);
	return -1;
}

/**
 * cal_form_name - a form in words, for notes and messages
 * @f: the form
 * @buf: room for the name
 * @len: its size
 *
 * Return: @buf.
 */
const char *cal_form_name(const struct cal_form *f, char *buf, size_t len)
{
	switch (f->kind) {
	case CAL_FORM_MUNMAP:
	case CAL_FORM_DONTNEED:
		snprintf(buf, len, "%uK folios, %s round", f->kib,
			 f->kind == CAL_FORM_DONTNEED ? "MADV_DONTNEED" : "munmap");
		break;
	case CAL_FORM_SHMEM_READ:
		snprintf(buf, len, "tmpfs read fault, per page");
		break;
	case CAL_FORM_SHMEM_WRITE:
		snprintf(buf, len, "tmpfs write fault, per page");
		break;
	case CAL_FORM_COW:
		snprintf(buf, len, "copy-on-write fault, per page");
		break;
	case CAL_FORM_FAULT:
		snprintf(buf, len, "4K write fault, per page");
		break;
	}
	return buf;
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

/**
 * cal_fit_forms - the forms this machine's paths give, fitted or held out
 * @m: the paths timed
 * @forms: room for CAL_MAX_FORMS
 *
 * Fitted: the 4K and 16K rounds, the tmpfs read fault, the copy-on-write
 * fault; held out: 64K rounds, the tmpfs write fault and the 4K write
 * fault alone (how the model splits a round between its faults and its
 * unmap: fitted too, it moved the others' errors by 5-15% and its own not
 * at all, so the four costs cannot make that split).  Without 16K folios
 * the 4K rounds and the fitted per-page paths are fitted.
 * Return: the number of forms (those timed).
 */
int cal_fit_forms(const struct cal_paths *m, struct cal_form *forms)
{
	const struct { enum cal_form_kind kind; const struct cal_path *path; bool fit; } pg[] = {
		{ CAL_FORM_SHMEM_READ, &m->shmem_read, true },
		{ CAL_FORM_SHMEM_WRITE, &m->shmem_write, false },
		{ CAL_FORM_COW, &m->cow, true },
		{ CAL_FORM_FAULT, &m->fault[0], false },
	};
	int n = 0;

	for (int o = 0; o < CAL_NR_ORDERS; o++) {
		double t[2];

		cal_fit_targets(m, o, t);
		for (int f = 0; f < 2; f++)
			if (t[f])
				forms[n++] = (struct cal_form){
					.kind = f ? CAL_FORM_DONTNEED : CAL_FORM_MUNMAP,
					.kib = cal_fault_kib[o], .fit = o < 2, .target = t[f] };
	}
	for (size_t i = 0; i < sizeof(pg) / sizeof(pg[0]); i++)
		if (pg[i].path->n)
			forms[n++] = (struct cal_form){ .kind = pg[i].kind, .fit = pg[i].fit,
							.target = pg[i].path->ns };
	return n;
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
 * cal_fit_solve - the costs that make the model's forms match their targets
 * @base: the profile; its mm.* values are the prior
 * @region: bytes per round
 * @forms: the forms, each with its target (ns on this machine) and whether
 *         it is fitted; each form's @model is set to the model's at @x
 * @nr_forms: their number
 * @x: the fitted costs, ns, in cal_fit_keys[] order
 * @err: why not
 * @len: size of @err
 *
 * Return: the number of forms fitted (>= 1), or -1 with @err filled.
 */
int cal_fit_solve(const struct sim_profile *base, uint64_t region, struct cal_form *forms,
		  int nr_forms, double x[CAL_FIT_NR], char *err, size_t len)
{
	struct sim_profile *p = malloc(sizeof(*p));
	double b[CAL_MAX_FORMS], a[CAL_MAX_FORMS][CAL_FIT_NR], prior[CAL_FIT_NR];
	bool fixed[CAL_FIT_NR] = { false };
	int nr_fit = 0, ret = -1;

	if (!p) {
		snprintf(err, len, "calibrate fit: out of memory");
		return -1;
	}
	if (nr_forms > CAL_MAX_FORMS) {
		snprintf(err, len, "calibrate fit: %d forms, expected at most %d", nr_forms,
			 CAL_MAX_FORMS);
		goto out_free;
	}
	*p = *base;
	for (int k = 0; k < CAL_FIT_NR; k++) {
		prior[k] = (double)*cal_fit_field(p, k);
		*cal_fit_field(p, k) = 0;
	}
	/* the affine model of every form */
	for (int i = 0; i < nr_forms; i++) {
		forms[i].model = 0;
		if (cal_model_form_ns(p, region, &forms[i], &b[i], err, len))
			goto out_free;
		for (int k = 0; k < CAL_FIT_NR; k++) {
			double t;

			*cal_fit_field(p, k) = CAL_FIT_STEP;
			if (cal_model_form_ns(p, region, &forms[i], &t, err, len))
				goto out_free;
			*cal_fit_field(p, k) = 0;
			a[i][k] = (t - b[i]) / CAL_FIT_STEP;
		}
		nr_fit += forms[i].fit && forms[i].target > 0;
	}
	if (!nr_fit) {
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
		for (int c = 0; c < nr_forms; c++) {
			double l = forms[c].target, r0;

			if (!forms[c].fit || l <= 0)
				continue;
			r0 = l - b[c];	/* fixed costs are 0 */
			for (int i = 0; i < nf; i++) {
				for (int j = 0; j < nf; j++)
					n[i][j] += a[c][idx[i]] * a[c][idx[j]] / (l * l);
				rhs[i] += a[c][idx[i]] * r0 / (l * l);
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
	for (int i = 0; i < nr_forms; i++) {
		forms[i].model = b[i];
		for (int k = 0; k < CAL_FIT_NR; k++)
			forms[i].model += a[i][k] * x[k];
	}
	ret = nr_fit;
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
	struct cal_form forms[CAL_MAX_FORMS];
	double x[CAL_FIT_NR];
	int nr_forms, nr;
	char err[256], what[96], name[64];
	size_t off = 0;

	cal_progress(r, "fit of mm.* to the single-thread paths, through the model");
	if (!p)
		return;
	if (cal_run_profile(r, include, p, err, sizeof(err))) {
		cal_note(r, "fit: %s; mm.* keep the builtin's values", err);
		goto out_free;
	}
	nr_forms = cal_fit_forms(&r->paths, forms);
	nr = cal_fit_solve(p, r->paths.region, forms, nr_forms, x, err, sizeof(err));
	if (nr < 0) {
		cal_note(r, "fit: %s; mm.* keep the builtin's values", err);
		goto out_free;
	}
	what[0] = '\0';
	for (int i = 0; i < nr_forms; i++) {
		const char *w = forms[i].kind == CAL_FORM_MUNMAP ? NULL :
				forms[i].kind == CAL_FORM_DONTNEED ? NULL :
				forms[i].kind == CAL_FORM_SHMEM_READ ? "tmpfs" :
				forms[i].kind == CAL_FORM_COW ? "cow" :
				forms[i].kind == CAL_FORM_FAULT ? "4K fault" : NULL;

		if (forms[i].fit && forms[i].kind == CAL_FORM_MUNMAP)
			off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%uK", off ? "," : "",
						forms[i].kib);
		else if (forms[i].fit && w)
			off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s", off ? "," : "",
						w);
		if (off >= sizeof(what))
			off = sizeof(what) - 1;
	}
	for (int k = 0; k < CAL_FIT_NR; k++) {
		uint64_t v = (uint64_t)(x[k] + 0.5);

		cal_key_set(r, cal_fit_keys[k], v, "fitted: the model's 1-thread paths (%s) to "
			    "this run's, least squares, %s", what, r->date);
		fprintf(r->log, "  %-30s %10llu   (fitted)\n", cal_fit_keys[k],
			(unsigned long long)v);
	}
	for (int i = 0; i < nr_forms; i++)
		cal_note(r, "fit %s: %s: model %.*f us, this machine %.*f us (%+.1f%%)",
			 forms[i].fit ? "(fitted)" : "(held out)",
			 cal_form_name(&forms[i], name, sizeof(name)),
			 forms[i].kib ? 0 : 2, forms[i].model / 1e3, forms[i].kib ? 0 : 2,
			 forms[i].target / 1e3, (forms[i].model / forms[i].target - 1) * 100);
out_free:
	free(p);
}

/*
 * The model's cycles a load of workloads/calibrate/calibrate-chase.ini over
 * @pages lines, one a page (@packed false) or 64 to a page.
 */
static int cal_model_chase_cycles(const struct sim_profile *p, uint64_t pages, bool packed,
				  double *cycles, char *err, size_t len)
{
	char n[48];
	const char *sets[] = { n, packed ? "packed=yes" : "packed=no", NULL };
	double ops;

	snprintf(n, sizeof(n), "pages=%llu", (unsigned long long)pages);
	if (cal_model_wl_metric(p, "calibrate-chase", sets, "ops_per_task_s", &ops, err, len))
		return -1;
	if (ops <= 0) {
		snprintf(err, len, "calibrate-chase gave no loads");
		return -1;
	}
	*cycles = (double)p->clock_mhz * 1e6 / ops;
	return 0;
}

/**
 * cal_model_walk_check - the model's STLB chase beside the machine's (a note)
 * @r: the run, after cal_stlb_reach() and the fit
 * @include: the builtin the profile includes
 *
 * Not a fit: the profile is as measured.  For the rungs from 4096 pages,
 * the model's chase of one line a page over the same lines packed
 * (calibrate-chase.ini), in cycles a load, against what cal_stlb_reach()
 * measured: how far this profile's TLB and walks are from this machine's.
 */
void cal_model_walk_check(struct cal_run *r, const char *include)
{
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[256] = "", line[160];
	size_t off = 0;

	if (!p || !r->nr_reach)
		goto out;
	if (cal_run_profile(r, include, p, err, sizeof(err)))
		goto out;
	for (int i = 0; i < r->nr_reach && off < sizeof(line); i++) {
		double sparse, packed;

		if (r->reach_pages[i] < 4096)
			continue;
		if (cal_model_chase_cycles(p, r->reach_pages[i], false, &sparse, err, sizeof(err)) ||
		    cal_model_chase_cycles(p, r->reach_pages[i], true, &packed, err, sizeof(err)))
			break;
		double d = sparse - packed, m = r->reach_excess[i];

		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%llu %.0f/%.0f",
					off ? ", " : "", (unsigned long long)r->reach_pages[i],
					fabs(d) < 0.5 ? 0.0 : d, fabs(m) < 0.5 ? 0.0 : m);
	}
	if (err[0])
		cal_note(r, "model check: the STLB chase did not run: %s", err);
	else if (off)
		cal_note(r, "model check (not fitted): a chase of a line a page, cycles a load over "
			 "the lines packed, model/this machine at N pages: %s", line);
out:
	free(p);
}

