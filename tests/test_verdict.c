// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verdict against a post (src/core/verdict.c) and the statistics of
 * --seeds (src/cli/stats.c), with hand-worked answers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.c"

static const struct sim_variant v_variants[] = { { "before" }, { "after" }, { NULL } };

static const struct sim_metric v_metrics[] = {
	{ "wait_s", "wait (s)", 2 },
	{ "ops", "ops/s", 0 },
	{ "misses", "misses", 0 },
	{ "cost_pct", "cost (%)", 1 },
	{ "faults", "faults", 0 },
	{ 0 },
};

/*
 * wait: published 100 -> 10 (-90%), band -100..-80% and 2x on both values;
 * ops: published 100 -> 125 (+25%), band +20..+30%;
 * misses: published 1000 -> 10 (-99%), no band;
 * cost: published before only, 15, band 8/15..22/15.
 * faults: not published.
 */
static const struct sim_published v_published[] = {
	{ "before", "wait_s", 100, .ratio = { 0.5, 2.0 } },
	{ "after", "wait_s", 10, .ratio = { 0.5, 2.0 }, .change_pct = { -100, -80 } },
	{ "before", "ops", 100 },
	{ "after", "ops", 125, .change_pct = { 20, 30 } },
	{ "before", "misses", 1000 },
	{ "after", "misses", 10 },
	{ "before", "cost_pct", 15, .ratio = { 8.0 / 15.0, 22.0 / 15.0 } },
	{ NULL, NULL, 0 },
};

static const struct scenario_ops v_scenario = {
	.name = "v",
	.variants = v_variants,
	.baseline = "before",
	.changed = "after",
	.metrics = v_metrics,
	.published = v_published,
};

static void set(struct sim_variant_result *r, int m, double x)
{
	r->metrics[m] = x;
	r->has_metric[m] = true;
}

static void results(struct sim_variant_result *r, double wb, double wa, double ob,
		    double oa, double mb, double ma, double cost)
{
	memset(r, 0, 2 * sizeof(*r));
	r[0].name = "before";
	r[1].name = "after";
	set(&r[0], 0, wb);
	set(&r[1], 0, wa);
	set(&r[0], 1, ob);
	set(&r[1], 1, oa);
	set(&r[0], 2, mb);
	set(&r[1], 2, ma);
	set(&r[0], 3, cost);
	set(&r[1], 3, 0);
}

static void test_agrees_and_disagrees(void **state)
{
	struct sim_variant_result r[2];
	struct sim_judgement j[SIM_MAX_METRICS];

	(void)state;
	/* wait 150 -> 15: -90%, ratios 1.5 and 1.5: agrees */
	/* ops 100 -> 90: -10%, the other sign: disagrees */
	/* misses 1000 -> 500: -50%, right sign, no band: same direction */
	/* cost 40%: 2.67 x the published 15, out of its band: disagrees */
	results(r, 150, 15, 100, 90, 1000, 500, 40);
	assert_int_equal(sim_judge(&v_scenario, r, 2, j), 4);
	assert_int_equal(j[0].metric, 0);
	assert_int_equal(j[0].verdict, SIM_AGREES);
	assert_true(fabs(j[0].pub_change_pct - -90.0) < 1e-9);
	assert_true(fabs(j[0].sim_change_pct - -90.0) < 1e-9);
	assert_int_equal(j[1].verdict, SIM_DISAGREES);
	assert_false(j[1].sign_holds);
	assert_int_equal(j[2].verdict, SIM_SAME_DIRECTION);
	assert_int_equal(j[3].verdict, SIM_DISAGREES);
	assert_false(j[3].values_hold);
	/* what the row prints: the value judged, the simulated one, the band */
	assert_false(j[3].has_change);
	assert_true(j[3].has_value && j[3].has_sim_value);
	assert_string_equal(j[3].value_variant, "before");
	assert_true(j[3].pub_value == 15 && j[3].sim_value == 40);
	assert_true(fabs(j[3].value_band.lo - 8.0) < 1e-9);
	assert_true(fabs(j[3].value_band.hi - 22.0) < 1e-9);
	assert_false(j[0].has_value);
}

static void test_band_edges(void **state)
{
	struct sim_variant_result r[2];
	struct sim_judgement j[SIM_MAX_METRICS];

	(void)state;
	/* wait 100 -> 25: -75%, right sign, out of -100..-80: same direction */
	/* ops 200 -> 250: +25%, in +20..+30: agrees */
	/* cost 8: 8/15 of the published, the band's lower edge: agrees */
	results(r, 100, 25, 200, 250, 1000, 10, 8);
	sim_judge(&v_scenario, r, 2, j);
	assert_int_equal(j[0].verdict, SIM_SAME_DIRECTION);
	assert_true(j[0].sign_holds);
	assert_false(j[0].in_band);
	assert_int_equal(j[1].verdict, SIM_AGREES);
	assert_int_equal(j[3].verdict, SIM_AGREES);
	/* wait 300 -> 30: -90%, in the change band, but 3x the published values */
	results(r, 300, 30, 100, 125, 1000, 10, 15);
	sim_judge(&v_scenario, r, 2, j);
	assert_int_equal(j[0].verdict, SIM_SAME_DIRECTION);
	assert_true(j[0].in_band);
	assert_false(j[0].values_hold);
}

static void test_not_judged(void **state)
{
	struct sim_variant_result r[2];
	struct sim_judgement j[SIM_MAX_METRICS];

	(void)state;
	results(r, 150, 15, 100, 125, 1000, 10, 15);
	/* only "before" ran: no change can be judged */
	assert_int_equal(sim_judge(&v_scenario, r, 1, j), 4);
	assert_int_equal(j[0].verdict, SIM_NOT_JUDGED);
	assert_int_equal(j[1].verdict, SIM_NOT_JUDGED);
	assert_int_equal(j[3].verdict, SIM_AGREES);
}

static void test_text_and_json(void **state)
{
	struct sim_variant_result r[2];
	struct sim_run_config cfg = { .scenario = &v_scenario };
	struct sim_report rep = { .cfg = &cfg, .res = r, .nr_res = 2, .reproduce = true };
	struct sim_out o;
	json_t *doc, *m;

	(void)state;
	results(r, 150, 15, 100, 90, 1000, 500, 40);
	sim_out_init_buffer(&o);
	sim_print_verdict(&o, &rep);
	assert_non_null(strstr(sim_out_text(&o),
			       "v: 1 of 4 published metrics agree, 1 same direction, 2 disagree, 0 not judged\n"));
	assert_non_null(strstr(sim_out_text(&o), "change -90.0%"));
	/* cost has no change: the row prints the values it judged and their band */
	assert_non_null(strstr(sim_out_text(&o),
			       "cost (%)       before 15.0       before 40.0        before 8.0..22.0"
			       "              no  disagrees\n"));
	sim_out_release(&o);
	doc = sim_verdict_json(&v_scenario, r, 2);
	m = json_object_get(json_object_get(doc, "metrics"), "wait_s");
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "agrees");
	m = json_object_get(json_object_get(doc, "metrics"), "ops");
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "disagrees");
	assert_true(json_is_false(json_object_get(m, "sign_holds")));
	assert_null(json_object_get(json_object_get(doc, "metrics"), "faults"));
	json_decref(doc);
}

static void test_stats(void **state)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double mean, sd, ci;

	(void)state;
	/* mean 5, sum of squares 32, sd = sqrt(32 / 7), t(7) = 2.365 */
	cli_stats(x, 8, &mean, &sd, &ci);
	assert_true(fabs(mean - 5.0) < 1e-12);
	assert_true(fabs(sd - sqrt(32.0 / 7.0)) < 1e-12);
	assert_true(fabs(ci - 2.365 * sqrt(32.0 / 7.0) / sqrt(8.0)) < 1e-12);
	cli_stats(x, 1, &mean, &sd, &ci);
	assert_true(mean == 2 && sd == 0 && ci == 0);
	assert_true(fabs(cli_t975(1) - 12.706) < 1e-9);
	assert_true(fabs(cli_t975(4) - 2.776) < 1e-9);
	assert_true(fabs(cli_t975(35) - 2.042) < 1e-9);	/* the row of 30 */
	assert_true(fabs(cli_t975(1000) - 1.980) < 1e-9);	/* the row of 120 */
}

/* ---- end to end: `mmsim reproduce` of a small scenario ---------------- */

static const struct sim_variant small_variants[] = { { "before" }, { "after" }, { NULL } };

static const struct sim_param small_params[] = {
	{ .key = "gain", .type = SIM_PARAM_COUNT, .def = 10, .min = 1, .max = 100,
	  .help = "after's wait, in % of before's" },
	{ .key = NULL },
};

static const struct sim_metric small_metrics[] = {
	{ "wait_s", "wait (s)", 2 },
	{ "ops", "ops/s", 0 },
	{ NULL, NULL, 0 },
};

/*
 * wait: published 100 -> 10 (-90%), band -100..-80%, values within 2x;
 * ops: published 100 -> 125 (+25%), band +20..+30%.
 */
static const struct sim_published small_published[] = {
	{ "before", "wait_s", 100, .ratio = { 0.5, 2.0 } },
	{ "after", "wait_s", 10, .ratio = { 0.5, 2.0 }, .change_pct = { -100, -80 } },
	{ "before", "ops", 100 },
	{ "after", "ops", 125, .change_pct = { 20, 30 } },
	{ NULL, NULL, 0 },
};

/*
 * before: wait 120 s, ops 100; after: wait 120 x gain% (12 s by default:
 * -90%, agrees), ops 95 (-5%: disagrees).  The seed moves every number by
 * up to 0.6%, as a seed moves a real run.
 */
static int small_run(const struct sim_run_config *cfg, int variant,
		     struct sim_variant_result *res, char *err, size_t len)
{
	double noise = 1.0 + (double)(cfg->seed % 7) * 0.001;

	sim_result_set(cfg->scenario, res, "wait_s", 120.0 * noise *
		       (variant ? (double)sim_param(cfg, "gain") / 100.0 : 1.0));
	sim_result_set(cfg->scenario, res, "ops", (variant ? 95.0 : 100.0) * noise);
	return 0;
}

static const struct scenario_ops small_scenario = {
	.name = "small",
	.summary = "a scenario with fixed answers",
	.profile = "desktop",
	.variants = small_variants,
	.baseline = "before",
	.changed = "after",
	.params = small_params,
	.metrics = small_metrics,
	.published = small_published,
	.published_source = "the test",
	.run = small_run,
};

static const struct scenario_ops *const small_registry[] = { &small_scenario, NULL };

/* Run mmsim with @args (NULL-terminated); its exit code, stdout in @out. */
static int run_mmsim(char **out, const char *const *args)
{
	char *argv[32];
	size_t n = 0;
	FILE *fo;
	int argc = 0, rc;

	argv[argc++] = "mmsim";
	while (*args && argc < 31)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fo = open_memstream(out, &n);
	rc = mmsim_main(argc, argv, small_registry, fo, stderr);
	fclose(fo);
	return rc;
}

/* The line of @text that starts with @prefix, in @buf. */
static const char *line_of(const char *text, const char *prefix, char *buf, size_t len)
{
	const char *p = text, *e;

	buf[0] = '\0';
	while (p && *p) {
		e = strchr(p, '\n');
		if (!strncmp(p, prefix, strlen(prefix))) {
			snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
			break;
		}
		p = e ? e + 1 : NULL;
	}
	return buf;
}

/* @line has @a, and ends with two spaces and @verdict. */
static bool row_says(const char *line, const char *a, const char *verdict)
{
	size_t n = strlen(line), m = strlen(verdict);

	return strstr(line, a) && n > m + 2 && !strcmp(line + n - m, verdict) &&
	       line[n - m - 1] == ' ' && line[n - m - 2] == ' ';
}

static void test_reproduce_end_to_end(void **state)
{
	char path[] = "/tmp/mmsim-verdict-XXXXXX", *out = NULL, *js = NULL, line[256];
	json_t *doc, *v;
	json_error_t jerr;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_mmsim(&out, (const char *const[]){ "reproduce", "small", "--json",
								path, "--jobs", "1", NULL }), 0);
	assert_non_null(strstr(out, "small: 1 of 2 published metrics agree, 0 same direction, "
				    "1 disagree, 0 not judged\n"));
	assert_true(row_says(line_of(strstr(out, "verdict: small"), "wait (s) ", line, sizeof(line)), " -90.0% ", "agrees"));
	assert_true(row_says(line_of(strstr(out, "verdict: small"), "ops/s ", line, sizeof(line)), " -5.0% ", "disagrees"));
	free(out);
	doc = json_load_file(path, 0, &jerr);
	assert_non_null(doc);
	v = json_object_get(json_array_get(doc, 0), "verdict");
	assert_string_equal(json_string_value(json_object_get(v, "summary")),
			    "1 of 2 published metrics agree, 0 same direction, 1 disagree, 0 not judged");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(v, "metrics"), "wait_s"), "verdict")), "agrees");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(v, "metrics"), "ops"), "verdict")), "disagrees");
	json_decref(doc);
	/* gain=25: wait -75%, the right sign outside its band */
	assert_int_equal(run_mmsim(&out, (const char *const[]){ "reproduce", "small", "--set",
								"gain=25", "--jobs", "1", NULL }), 0);
	assert_true(row_says(line_of(strstr(out, "verdict: small"), "wait (s) ", line, sizeof(line)), " -75.0% ",
			     "same direction"));
	free(out);
	/* --seeds 3: the same verdict on the means, each cell "mean +- ci" */
	assert_int_equal(run_mmsim(&out, (const char *const[]){ "reproduce", "small", "--seeds",
								"3", "--jobs", "2", NULL }), 0);
	assert_non_null(strstr(out, "small: 1 of 2 published metrics agree"));
	assert_non_null(strstr(out, " +- "));
	free(out);
	(void)js;
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees_and_disagrees),
		cmocka_unit_test(test_band_edges),
		cmocka_unit_test(test_not_judged),
		cmocka_unit_test(test_text_and_json),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_reproduce_end_to_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
