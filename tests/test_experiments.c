// SPDX-License-Identifier: GPL-2.0-only
/*
 * The experiments' conformance suite (STYLE.md, "Tests": one suite per kind
 * of component, run over every entry of its registry, as ck checks every
 * lock with the same test).  For every registered experiment:
 *
 *   - its definition is whole: variants in one table with names, every
 *     parameter with help and defaults (simulated and live) that are in
 *     range and print back to themselves, every metric with a title and a
 *     unit, published numbers that name its own variants and metrics;
 *   - it has a golden transcript (tests/golden/cases.txt and its file);
 *   - `mmsim show` lists every parameter and metric; `mmsim live --help`
 *     every parameter of a live form, `mmsim compare --help` every one;
 *   - `run`, `live` and `compare` parse every parameter alike: the same
 *     values taken, the same error line for a bad one, and live refuses
 *     (with the keys it takes) what only the simulation takes;
 *   - `mmsim run nosuch` and `mmsim live nosuch` word their errors alike;
 *
 * and the tree has one parameter table: no struct type of parameters but
 * struct sim_param, no table of them outside src/experiments/ (but the one
 * a workload file fills, include/mmsim/workload.h), and no
 * scenario list typed by hand in live mode (src/host/, calibration aside).
 */
#include <ftw.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "mmsim/scenario.h"

/* ---- helpers ------------------------------------------------------------------ */

/* Run `mmsim ARGS` (standard output and error together); return its text. */
static char *mmsim(int *rc, const char *fmt, ...)
{
	char cmd[2048], *buf = NULL;
	size_t len = 0, cap = 0;
	va_list ap;
	FILE *f;
	int c, st;

	va_start(ap, fmt);
	snprintf(cmd, sizeof(cmd), "%s ", MMSIM_BIN);
	vsnprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((c = fgetc(f)) != EOF) {
		if (len + 2 > cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		buf[len++] = (char)c;
	}
	if (!buf)
		buf = calloc(1, 1);
	buf[len] = '\0';
	st = pclose(f);
	if (rc)
		*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

static bool has_line_starting(const char *text, const char *start)
{
	size_t n = strlen(start);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, start, n))
			return true;
	return false;
}

/* A parameter of @s other than @not that the live workload takes, or NULL. */
static const struct sim_param *other_live_param(const struct scenario_ops *s,
						const struct sim_param *not)
{
	for (int i = 0; s->params[i].key; i++)
		if (&s->params[i] != not && s->params[i].live)
			return &s->params[i];
	return NULL;
}

/* ---- the definitions ------------------------------------------------------------ */

static void check_value(const struct sim_param *q, uint64_t v, const char *which)
{
	char text[64], err[256];
	uint64_t back;

	if (q->type == SIM_PARAM_ENUM) {
		int nr = 0;

		while (q->choices && q->choices[nr])
			nr++;
		if (v >= (uint64_t)nr)
			fail_msg("parameter %s: %s default %llu is not a choice", q->key, which,
				 (unsigned long long)v);
	}
	sim_param_format(q, v, text, sizeof(text));
	if (sim_param_parse(q, text, &back, err, sizeof(err)))
		fail_msg("parameter %s: %s default %s does not parse: %s", q->key, which, text,
			 err);
	if (back != v)
		fail_msg("parameter %s: %s default prints as %s, which parses to %llu",
			 q->key, which, text, (unsigned long long)back);
}

static void test_definitions(void **state)
{
	for (int e = 0; sim_scenarios[e]; e++) {
		const struct scenario_ops *s = sim_scenarios[e];
		int nr_params = 0, nr_metrics = 0, nr_variants = 0;

		print_message("experiment %s\n", s->name);
		assert_non_null(s->name);
		assert_true(s->summary && *s->summary);
		assert_non_null(s->run);
		assert_true(sim_scenario_find(s->name) == s);
		for (int i = 0; s->variants && s->variants[i].name; i++, nr_variants++)
			for (int j = 0; j < i; j++)
				assert_string_not_equal(s->variants[i].name, s->variants[j].name);
		assert_true(nr_variants >= 1 && nr_variants <= SIM_MAX_VARIANTS);
		if (s->baseline)
			assert_true(sim_scenario_variant_index(s, s->baseline) >= 0);
		if (s->changed)
			assert_true(sim_scenario_variant_index(s, s->changed) >= 0);
		for (int i = 0; s->params && s->params[i].key; i++, nr_params++) {
			const struct sim_param *q = &s->params[i];

			if (!q->help || !*q->help)
				fail_msg("%s: parameter %s has no help", s->name, q->key);
			assert_int_equal(sim_scenario_param_index(s, q->key), i);
			check_value(q, q->def, "the");
			if (q->has_live_def)
				check_value(q, q->live_def, "the live");
		}
		assert_true(nr_params <= SIM_MAX_PARAMS);
		for (int i = 0; s->metrics && s->metrics[i].key; i++, nr_metrics++) {
			const struct sim_metric *m = &s->metrics[i];

			if (!m->label || !*m->label)
				fail_msg("%s: metric %s has no title", s->name, m->key);
			if (!m->unit || !*m->unit)
				fail_msg("%s: metric %s has no unit", s->name, m->key);
			assert_int_equal(sim_scenario_metric_index(s, m->key), i);
			/* a kernel counter, or why no live run can measure it: not both */
			assert_false(m->live_counter && m->no_live);
		}
		assert_true(nr_metrics >= 1 && nr_metrics <= SIM_MAX_METRICS);
		for (const struct sim_published *p = s->published; p && p->variant; p++) {
			assert_true(sim_scenario_variant_index(s, p->variant) >= 0);
			assert_true(sim_scenario_metric_index(s, p->metric) >= 0);
		}
		for (int i = 0; s->unpublished && s->unpublished[i]; i++)
			assert_true(sim_scenario_param_index(s, s->unpublished[i]) >= 0);
		if (s->live) {
			bool any = false;

			for (int i = 0; s->params[i].key; i++)
				any |= s->params[i].live;
			if (!any)
				fail_msg("%s has a live form that takes no parameter", s->name);
		}
	}
}

/* ---- goldens -------------------------------------------------------------------- */

static void test_goldens(void **state)
{
	static char cases[16384];
	FILE *f = fopen(MMSIM_SOURCE_DIR "/tests/golden/cases.txt", "r");
	size_t n;

	assert_non_null(f);
	n = fread(cases, 1, sizeof(cases) - 1, f);
	cases[n] = '\0';
	fclose(f);
	for (int e = 0; sim_scenarios[e]; e++) {
		const char *name = sim_scenarios[e]->name;
		char want[128], path[512];
		struct stat sb;
		bool found = false;

		/* a line "CASE run NAME ..." whose golden file exists */
		snprintf(want, sizeof(want), " run %s ", name);
		for (const char *p = cases; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
			const char *eol = strchr(p, '\n'), *hit = strstr(p, want);
			char case_name[128];

			if (*p == '#' || !hit || (eol && hit > eol))
				continue;
			snprintf(case_name, sizeof(case_name), "%.*s", (int)(strcspn(p, " ")), p);
			snprintf(path, sizeof(path), MMSIM_SOURCE_DIR "/tests/golden/%s.txt",
				 case_name);
			if (stat(path, &sb) == 0 && sb.st_size > 0)
				found = true;
		}
		if (!found)
			fail_msg("experiment %s has no golden transcript (a line \"CASE run %s "
				 "...\" in tests/golden/cases.txt and tests/golden/CASE.txt)",
				 name, name);
	}
}

/* ---- what show and --help list ---------------------------------------------------- */

static void test_show_and_help_list_everything(void **state)
{
	char *live = mmsim(NULL, "live --help"), *compare = mmsim(NULL, "compare --help");

	for (int e = 0; sim_scenarios[e]; e++) {
		const struct scenario_ops *s = sim_scenarios[e];
		int rc;
		char *show = mmsim(&rc, "show %s", s->name), start[96];

		assert_int_equal(rc, 0);
		for (int i = 0; s->params[i].key; i++) {
			snprintf(start, sizeof(start), "  %s ", s->params[i].key);
			if (!has_line_starting(show, start))
				fail_msg("mmsim show %s does not list parameter %s", s->name,
					 s->params[i].key);
			snprintf(start, sizeof(start), "    --set %s=", s->params[i].key);
			if (s->live && s->params[i].live && !has_line_starting(live, start))
				fail_msg("mmsim live --help does not list %s's %s", s->name,
					 s->params[i].key);
			if (s->live && !has_line_starting(compare, start))
				fail_msg("mmsim compare --help does not list %s's %s", s->name,
					 s->params[i].key);
		}
		for (int i = 0; s->metrics[i].key; i++) {
			snprintf(start, sizeof(start), "  %s ", s->metrics[i].key);
			if (!has_line_starting(show, start))
				fail_msg("mmsim show %s does not list metric %s", s->name,
					 s->metrics[i].key);
		}
		free(show);
	}
	free(live);
	free(compare);
}

/* ---- run, live and compare parse alike -------------------------------------------- */

/* Every command refuses the same bad value with the same line, and exits 2. */
static void expect_same_error(const char *name, const char *sets, bool live)
{
	int rc_run, rc_live, rc_cmp;
	char *run = mmsim(&rc_run, "run %s %s", name, sets);
	char *cmp = mmsim(&rc_cmp, "compare %s %s", name, sets);
	char *lv = live ? mmsim(&rc_live, "live %s %s", name, sets) : NULL;

	assert_int_equal(rc_run, 2);
	assert_int_equal(rc_cmp, 2);
	assert_string_equal(run, cmp);
	if (lv) {
		assert_int_equal(rc_live, 2);
		assert_string_equal(run, lv);
	}
	free(run);
	free(cmp);
	free(lv);
}

static void test_parameters_parse_alike(void **state)
{
	for (int e = 0; sim_scenarios[e]; e++) {
		const struct scenario_ops *s = sim_scenarios[e];

		if (!s->live)
			continue;
		for (int i = 0; s->params[i].key; i++) {
			const struct sim_param *q = &s->params[i], *o = other_live_param(s, q);
			char sets[256], def[64];
			int rc;

			assert_non_null(o);
			/* a bad value: the same line from each */
			snprintf(sets, sizeof(sets), "--set %s=x!", q->key);
			expect_same_error(s->name, sets, q->live);
			/*
			 * a good value, then a bad one of another parameter: each takes
			 * the first and stops at the second with the same line
			 */
			sim_param_format(q, q->has_live_def ? q->live_def : q->def, def,
					 sizeof(def));
			snprintf(sets, sizeof(sets), "--set %s=%s --set %s=x!", q->key, def,
				 o->key);
			expect_same_error(s->name, sets, q->live);
			if (!q->live) {
				/* live names what it takes instead */
				char *lv = mmsim(&rc, "live %s %s", s->name, sets);

				assert_int_equal(rc, 2);
				assert_non_null(strstr(lv, "the simulation's alone"));
				assert_non_null(strstr(lv, o->key));
				free(lv);
			}
		}
	}
}

static void test_errors_worded_alike(void **state)
{
	int rc1, rc2;
	char *run = mmsim(&rc1, "run nosuch"), *live = mmsim(&rc2, "live nosuch");
	const char *shape = "mmsim: error: unknown scenario nosuch: expected one of ";

	assert_int_equal(rc1, 2);
	assert_int_equal(rc2, 2);
	assert_true(!strncmp(run, shape, strlen(shape)));
	assert_true(!strncmp(live, shape, strlen(shape)));
	free(run);
	free(live);
}

/* ---- one parameter table ------------------------------------------------------------ */

static regex_t re_param_type, re_param_table;
static char offences[8192];

static void offend(const char *fmt, ...)
{
	size_t n = strlen(offences);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(offences + n, sizeof(offences) - n, fmt, ap);
	va_end(ap);
}

static int scan_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(MMSIM_SOURCE_DIR) + 1;
	size_t len = strlen(path);
	char *text;
	FILE *f;

	if (type != FTW_F || len < 3 || (strcmp(path + len - 2, ".c") && strcmp(path + len - 2, ".h")))
		return 0;
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, (size_t)sb->st_size + 1);
	assert_non_null(text);
	if (fread(text, 1, (size_t)sb->st_size, f) != (size_t)sb->st_size)
		fail_msg("cannot read %s", path);
	fclose(f);
	/* a struct type of parameters: only struct sim_param, in scenario.h */
	if (!regexec(&re_param_type, text, 0, NULL, 0) &&
	    strcmp(rel, "include/mmsim/scenario.h"))
		offend("%s defines a parameter struct type; the one is struct sim_param\n", rel);
	/* a table of parameters: only an experiment's, in its folder */
	/* a workload file's table is filled from the file (docs/workloads.md) */
	if (!regexec(&re_param_table, text, 0, NULL, 0) && strncmp(rel, "src/experiments/", 16) &&
	    strcmp(rel, "include/mmsim/workload.h"))
		offend("%s has a table of struct sim_param outside src/experiments/\n", rel);
	/*
	 * live mode: no scenario list of its own (it would name those with a
	 * live form); calibration runs one scenario of the model on purpose
	 */
	if (!strncmp(rel, "src/host/", 9) && strncmp(rel, "src/host/calibrate", 18))
		for (int e = 0; sim_scenarios[e]; e++) {
			char lit[96];

			if (!sim_scenarios[e]->live)
				continue;
			snprintf(lit, sizeof(lit), "\"%s\"", sim_scenarios[e]->name);
			if (strstr(text, lit))
				offend("%s names scenario %s: live mode has no scenario list; "
				       "it reads the registry\n", rel, sim_scenarios[e]->name);
		}
	free(text);
	return 0;
}

static void test_one_parameter_table(void **state)
{
	assert_int_equal(regcomp(&re_param_type,
				 "struct[ \t]+[A-Za-z0-9_]*_param[ \t\n]*\\{", REG_EXTENDED), 0);
	assert_int_equal(regcomp(&re_param_table,
				 "struct[ \t]+sim_param[ \t]+[A-Za-z0-9_]+[ \t]*\\[", REG_EXTENDED), 0);
	offences[0] = '\0';
	assert_int_equal(nftw(MMSIM_SOURCE_DIR "/src", scan_file, 16, FTW_PHYS), 0);
	assert_int_equal(nftw(MMSIM_SOURCE_DIR "/include", scan_file, 16, FTW_PHYS), 0);
	regfree(&re_param_type);
	regfree(&re_param_table);
	if (offences[0])
		fail_msg("%s", offences);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_definitions),
		cmocka_unit_test(test_goldens),
		cmocka_unit_test(test_show_and_help_list_everything),
		cmocka_unit_test(test_parameters_parse_alike),
		cmocka_unit_test(test_errors_worded_alike),
		cmocka_unit_test(test_one_parameter_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
