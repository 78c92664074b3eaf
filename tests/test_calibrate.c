// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the fit of `mmsim calibrate` (src/host/calibrate_fit.c): the
 * model's kernel-internal costs solved from single-thread paths.
 *
 * The targets are the model's own rounds at known costs, so that the test
 * does not depend on this machine: a fitted cost must make the model's
 * single-thread run reproduce the measurement it came from, and predict
 * the size it was not fitted on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/calibrate.h"
#include "mmsim/profile.h"

#define REGION (2ULL << 20)

/* The model's rounds of every size and form at costs @x. */
static void model_rounds(const struct sim_profile *base, const double x[CAL_FIT_NR],
			 double out[CAL_NR_ORDERS][2])
{
	struct sim_profile *p = malloc(sizeof(*p));
	char err[256];

	assert_non_null(p);
	*p = *base;
	p->mm_fault_entry_ns = (uint64_t)x[0];
	p->mm_pte_op_ns = (uint64_t)x[1];
	p->mm_folio_op_ns = (uint64_t)x[2];
	p->mm_list_op_ns = (uint64_t)x[3];
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int f = 0; f < 2; f++)
			assert_int_equal(cal_model_round_ns(p, REGION, cal_fault_kib[o], f,
							    &out[o][f], err, sizeof(err)), 0);
	free(p);
}

/* Fitted on 4K and 16K: the model reproduces them, and predicts 64K. */
static void test_fit_reproduces_its_measurement(void **state)
{
	static const double truth[CAL_FIT_NR] = { 900, 4, 11, 6 };
	struct sim_profile *p = calloc(1, sizeof(*p));
	double target[CAL_NR_ORDERS][2], model[CAL_NR_ORDERS][2], x[CAL_FIT_NR], check[CAL_NR_ORDERS][2];
	char err[256];
	int nr;

	(void)state;
	assert_non_null(p);
	assert_int_equal(sim_profile_load("desktop-kvm", p, err, sizeof(err)), 0);
	model_rounds(p, truth, target);
	nr = cal_fit_solve(p, REGION, (const double (*)[2])target, 2, x, model, err, sizeof(err));
	assert_int_equal(nr, 4);
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int f = 0; f < 2; f++) {
			double e = fabs(model[o][f] / target[o][f] - 1);

			/* 1% where fitted (4K, 16K), 5% where held out (64K) */
			if (e > (o < 2 ? 0.01 : 0.05))
				fail_msg("%uK form %d: model %.0f ns, target %.0f ns", cal_fault_kib[o],
					 f, model[o][f], target[o][f]);
		}
	/* and the profile with the fitted costs, run again, gives the same */
	for (int k = 0; k < CAL_FIT_NR; k++)
		x[k] = floor(x[k] + 0.5);
	model_rounds(p, x, check);
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int f = 0; f < 2; f++)
			if (fabs(check[o][f] / target[o][f] - 1) > (o < 2 ? 0.02 : 0.05))
				fail_msg("%uK form %d: rerun %.0f ns, target %.0f ns", cal_fault_kib[o],
					 f, check[o][f], target[o][f]);
	free(p);
}

/* A target the model cannot reach with non-negative costs: every cost stays >= 0. */
static void test_fit_keeps_costs_non_negative(void **state)
{
	static const double zero[CAL_FIT_NR] = { 0, 0, 0, 0 };
	struct sim_profile *p = calloc(1, sizeof(*p));
	double target[CAL_NR_ORDERS][2], model[CAL_NR_ORDERS][2], x[CAL_FIT_NR];
	char err[256];

	(void)state;
	assert_non_null(p);
	assert_int_equal(sim_profile_load("desktop-kvm", p, err, sizeof(err)), 0);
	model_rounds(p, zero, target);
	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int f = 0; f < 2; f++)
			target[o][f] /= 2;	/* faster than the model with every cost 0 */
	assert_true(cal_fit_solve(p, REGION, (const double (*)[2])target, 2, x, model, err,
				  sizeof(err)) > 0);
	for (int k = 0; k < CAL_FIT_NR; k++)
		assert_true(x[k] >= 0);
	free(p);
}

/* The live targets: a round is its folios' faults and unmaps, plus the mapping. */
static void test_fit_targets(void **state)
{
	struct cal_paths m = { .region = 1 << 20 };
	double t[2];

	(void)state;
	m.fault[1] = (struct cal_path){ 2000, 5 };
	m.munmap[1] = (struct cal_path){ 300, 5 };
	m.dontneed[1] = (struct cal_path){ 250, 5 };
	m.mmap_ns = (struct cal_path){ 4000, 5 };
	cal_fit_targets(&m, 1, t);
	assert_true(fabs(t[0] - (64 * 2300.0 + 4000)) < 1e-6);	/* 1M of 16K folios */
	assert_true(fabs(t[1] - 64 * 2250.0) < 1e-6);
	cal_fit_targets(&m, 2, t);				/* not timed */
	assert_true(t[0] == 0 && t[1] == 0);
}

/*
 * A calibrated profile includes a builtin and sets measured keys: the
 * include's [ranges] row of a key set again goes (a measured value is no
 * assumption); the other rows stay.
 */
static void test_include_drops_ranges_of_keys_set_again(void **state)
{
	static const char text[] =
		"include = desktop-kvm\n"
		"[mm]\n"
		"list_op_ns = 9\n"
		"[sources]\n"
		"mm.list_op_ns = measured: a test, median of 3 runs, spread 8-10 ns, 2026-12-04\n";
	struct sim_profile *p = calloc(1, sizeof(*p)), *base = calloc(1, sizeof(*base));
	char err[256];
	bool list = false, pte = false;

	(void)state;
	assert_non_null(p);
	assert_non_null(base);
	assert_int_equal(sim_profile_load("desktop-kvm", base, err, sizeof(err)), 0);
	if (sim_profile_parse(text, "calibrated", p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(p->mm_list_op_ns, 9);
	for (int i = 0; i < p->nr_ranges; i++) {
		list |= !strcmp(p->ranges[i].key, "mm.list_op_ns");
		pte |= !strcmp(p->ranges[i].key, "mm.pte_op_ns");
	}
	assert_false(list);
	assert_true(pte);
	assert_int_equal(p->nr_ranges, base->nr_ranges - 1);
	free(p);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_include_drops_ranges_of_keys_set_again),
		cmocka_unit_test(test_fit_targets),
		cmocka_unit_test(test_fit_reproduces_its_measurement),
		cmocka_unit_test(test_fit_keeps_costs_non_negative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
