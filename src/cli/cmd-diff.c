// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim diff A.json B.json`: two saved runs (`mmsim run ... --json`) side
 * by side, in the spirit of `perf diff`: the parameters that differ, then
 * every metric of every variant both ran, then every lock class of each
 * such variant (contentions and total wait), each with B - A and its
 * percentage of A.  Named and printed as the run's tables: a metric by its
 * label in its decimals, a lock by its kernel name (sim_lock_kernel_name())
 * with times in perf lock contention's units.  A row zero (or unset) in
 * both files is left out, and a last line counts them.  Two files of different scenarios, a file
 * that is not the JSON of one run, or a missing file: one line, exit 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "mmsim/input.h"

/*
 * The most diff reads of one file: a run's JSON is a few hundred KiB (at
 * most SIM_MAX_VARIANTS variants of metrics, counters and locks); more is
 * not one (and an endless pipe never ends).
 */
#define DIFF_MAX_BYTES		((size_t)64 << 20)

/*
 * Seeds are unsigned 64-bit numbers (sim_print_json() writes them so) and
 * jansson's integers signed: a seed of 2^63 or more ("seed" or "first"
 * followed by a number above INT64_MAX) is rewritten as its two's
 * complement, which diff prints back as unsigned.  Returns the new text
 * (at most one byte longer per seed), to free(), or NULL.
 */
static char *diff_signed_seeds(const char *text, size_t *len)
{
	char *o = malloc(*len * 2 + 1), *q = o;
	const char *p = text;

	if (!o)
		return NULL;
	while (*p) {
		const char *d = NULL;
		char *end;
		unsigned long long v;

		if (!strncmp(p, "\"seed\":", 7))
			d = p + 7;
		else if (!strncmp(p, "\"first\":", 8))
			d = p + 8;
		if (!d) {
			*q++ = *p++;
			continue;
		}
		memcpy(q, p, (size_t)(d - p));
		q += d - p;
		p = d;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			*q++ = *p++;
		if (*p < '0' || *p > '9')
			continue;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v <= INT64_MAX || *end == '.' || *end == 'e' || *end == 'E')
			continue;
		q += sprintf(q, "%lld", (long long)v);
		p = end;
	}
	*q = '\0';
	*len = (size_t)(q - o);
	return o;
}

/* Load @path as the JSON of one run: 0, or 2 with c->msg set. */
static int diff_load(struct cli *c, const char *path, json_t **out)
{
	char why[CLI_ERR], *text, *seeds;
	json_error_t jerr;
	json_t *doc, *v;
	size_t i, len;

	*out = NULL;
	if (sim_input_read(path, DIFF_MAX_BYTES, "the --json file of one `mmsim run`",
			   &text, &len, why, sizeof(why)))
		return cli_fail(c, "diff %s", why);
	seeds = diff_signed_seeds(text, &len);
	free(text);
	if (!seeds)
		return cli_fail(c, "out of memory") - 1;
	doc = json_loadb(seeds, len, 0, &jerr);
	free(seeds);
	if (!doc)
		return cli_fail(c, "diff %s: cannot read it as JSON (line %d: %s): expected the "
				"--json file of one `mmsim run`", path, jerr.line, jerr.text);
	if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "scenario")) ||
	    !json_is_array(json_object_get(doc, "variants"))) {
		json_decref(doc);
		return cli_fail(c, "diff %s: not the JSON of one run (no \"scenario\" and "
				"\"variants\"): expected the --json file of one `mmsim run`", path);
	}
	json_array_foreach(json_object_get(doc, "variants"), i, v) {
		if (!json_is_object(v) || !json_is_string(json_object_get(v, "name")) ||
		    !json_is_object(json_object_get(v, "metrics")) ||
		    (json_object_get(v, "locks") && !json_is_array(json_object_get(v, "locks")))) {
			json_decref(doc);
			return cli_fail(c, "diff %s: variant %zu has no \"name\" and \"metrics\": "
					"expected the --json file of one `mmsim run`", path, i + 1);
		}
	}
	*out = doc;
	return 0;
}

static json_t *find_named(json_t *arr, const char *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (json_is_string(json_object_get(v, "name")) &&
		    !strcmp(json_string_value(json_object_get(v, "name")), name))
			return v;
	return NULL;
}

/* The metric @key of @s (NULL: unknown to this build, or @s NULL). */
static const struct sim_metric *diff_metric(const struct scenario_ops *s, const char *key)
{
	int m;

	for (m = 0; s && s->metrics[m].key && m < SIM_MAX_METRICS; m++)
		if (!strcmp(s->metrics[m].key, key))
			return &s->metrics[m];
	return NULL;
}

/* A metric's value as the run's table prints it: @dec decimals. */
static void fmt_num(char *buf, size_t len, json_t *x, int dec)
{
	if (json_is_number(x))
		snprintf(buf, len, "%.*f", dec, json_number_value(x));
	else
		snprintf(buf, len, "-");
}

/* B - A and its percentage of A, as the run's table prints its delta. */
static void fmt_change(char *buf, size_t len, json_t *a, json_t *b, int dec)
{
	double x, y;

	if (!json_is_number(a) || !json_is_number(b)) {
		snprintf(buf, len, "-");
		return;
	}
	x = json_number_value(a);
	y = json_number_value(b);
	if (x == 0)
		snprintf(buf, len, "%+.*f (n/a)", dec, y - x);
	else
		snprintf(buf, len, "%+.*f (%+.1f%%)", dec, y - x, (y - x) * 100.0 / fabs(x));
}

/*
 * @sec seconds as the run's lock table prints a time (perf lock
 * contention's units): the largest unit it reaches (h, m, s, ms, us) with
 * two decimals, else whole ns; @sign: a leading + or -.
 */
static void fmt_time(char *buf, size_t len, double sec, bool sign)
{
	static const struct { double base; const char *unit; } units[] = {
		{ 3600e9, "h" }, { 60e9, "m" }, { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" },
	};
	double ns = fabs(sec) * 1e9;
	const char *sg = !sign ? "" : sec < 0 ? "-" : "+";
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].base) {
			snprintf(buf, len, "%s%.2f %s", sg, ns / units[i].base, units[i].unit);
			return;
		}
	snprintf(buf, len, "%s%.0f ns", sg, ns);
}

/* A lock's time in the lock table's units, or "-". */
static void fmt_lock_time(char *buf, size_t len, json_t *x)
{
	if (json_is_number(x))
		fmt_time(buf, len, json_number_value(x), false);
	else
		snprintf(buf, len, "-");
}

/* B - A of a lock's time, in the lock table's units, and its percentage of A. */
static void fmt_lock_change(char *buf, size_t len, json_t *a, json_t *b)
{
	char t[32];
	double x, y;

	if (!json_is_number(a) || !json_is_number(b)) {
		snprintf(buf, len, "-");
		return;
	}
	x = json_number_value(a);
	y = json_number_value(b);
	fmt_time(t, sizeof(t), y - x, true);
	if (x == 0)
		snprintf(buf, len, "%s (n/a)", t);
	else
		snprintf(buf, len, "%s (%+.1f%%)", t, (y - x) * 100.0 / fabs(x));
}

/* Each of @a and @b is zero or not a number ("-"): the row says nothing. */
static bool zero_in_both(json_t *a, json_t *b)
{
	return (!json_is_number(a) || json_number_value(a) == 0) &&
	       (!json_is_number(b) || json_number_value(b) == 0);
}

#define DTAB_COLS	7

/* One table, columns left then right-aligned, as the other tables. */
struct dtab {
	char cell[256][DTAB_COLS][64];
	double key[256];		/* lock rows: the larger total wait, to sort by */
	int rows;
};

static void dtab_print(struct cli *c, const struct dtab *t, int cols)
{
	size_t w[DTAB_COLS] = { 0 }, total = 0, i;
	int r, k;

	for (r = 0; r < t->rows; r++)
		for (k = 0; k < cols; k++)
			if (strlen(t->cell[r][k]) > w[k])
				w[k] = strlen(t->cell[r][k]);
	for (k = 0; k < cols; k++)
		total += w[k] + (k ? 2 : 0);
	for (r = 0; r < t->rows; r++) {
		for (k = 0; k < cols; k++)
			fprintf(c->out, k ? "  %*s" : "%-*s", (int)w[k], t->cell[r][k]);
		fprintf(c->out, "\n");
		if (r == 0 || r == t->rows - 1) {
			for (i = 0; i < total; i++)
				fputc('-', c->out);
			fputc('\n', c->out);
		}
	}
}

/* Rows 1.. of @t by key, largest first (insertion sort: stable, at most 255). */
static void dtab_sort(struct dtab *t)
{
	static char row[DTAB_COLS][64];
	int i, k;

	for (i = 2; i < t->rows; i++) {
		double key = t->key[i];

		memcpy(row, t->cell[i], sizeof(row));
		for (k = i; k > 1 && t->key[k - 1] < key; k--) {
			memcpy(t->cell[k], t->cell[k - 1], sizeof(row));
			t->key[k] = t->key[k - 1];
		}
		memcpy(t->cell[k], row, sizeof(row));
		t->key[k] = key;
	}
}

/**
 * cmd_diff() - `mmsim diff A.json B.json`
 * @c: the invocation
 * @argc: argument count, argv[0] is "diff"
 * @argv: the two files
 *
 * Return: 0; 2 with c->msg for bad input (before any output); 1 if writing
 * the output failed.
 */
int cmd_diff(struct cli *c, int argc, char **argv)
{
	json_t *a = NULL, *b = NULL, *va, *pa, *pb, *x;
	const struct scenario_ops *scn = NULL;	/* NULL: unknown to this build */
	const char *key, *sa, *sb;
	struct dtab *t = NULL;
	int ret, nr_zero = 0;
	size_t i;

	if (argc != 3)
		return cli_fail(c, "diff: expected two operands, A.json and B.json (got %d)",
				argc - 1);
	if ((ret = diff_load(c, argv[1], &a)) || (ret = diff_load(c, argv[2], &b)))
		goto out;
	sa = json_string_value(json_object_get(a, "scenario"));
	sb = json_string_value(json_object_get(b, "scenario"));
	if (strcmp(sa, sb)) {
		ret = cli_fail(c, "diff %s %s: scenario %s and scenario %s: expected two runs of "
			       "one scenario", argv[1], argv[2], sa, sb);
		goto out;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		ret = cli_fail(c, "out of memory") - 1;
		goto out;
	}
	fprintf(c->out, "scenario %s\nA: %s (seed %" PRIu64 ", profile %s)\n"
		"B: %s (seed %" PRIu64 ", profile %s)\n", sa, argv[1],
		(uint64_t)json_integer_value(json_object_get(a, "seed")),
		json_string_value(json_object_get(a, "profile")) ?: "-", argv[2],
		(uint64_t)json_integer_value(json_object_get(b, "seed")),
		json_string_value(json_object_get(b, "profile")) ?: "-");
	pa = json_object_get(a, "params");
	pb = json_object_get(b, "params");
	if (json_is_object(pa) && json_is_object(pb))
		json_object_foreach(pa, key, x) {
			char *ta = json_dumps(x, JSON_ENCODE_ANY);
			char *tb = json_object_get(pb, key) ?
				   json_dumps(json_object_get(pb, key), JSON_ENCODE_ANY) : NULL;

			if (!tb || strcmp(ta, tb))
				fprintf(c->out, "param %s: %s -> %s\n", key, ta, tb ? tb : "-");
			free(ta);
			free(tb);
		}
	x = json_object_get(a, "profile_overrides");
	if ((x || json_object_get(b, "profile_overrides")) &&
	    !json_equal(x, json_object_get(b, "profile_overrides")))
		fprintf(c->out, "profile overrides: %s -> %s\n",
			json_string_value(x) ?: "-",
			json_string_value(json_object_get(b, "profile_overrides")) ?: "-");

	/* metric by metric, as the run's table names and prints them */
	for (i = 0; c->registry[i]; i++)
		if (!strcmp(c->registry[i]->name, sa))
			scn = c->registry[i];
	fprintf(c->out, "\n");
	t->rows = 1;
	snprintf(t->cell[0][0], 64, "metric");
	snprintf(t->cell[0][1], 64, "variant");
	snprintf(t->cell[0][2], 64, "A");
	snprintf(t->cell[0][3], 64, "B");
	snprintf(t->cell[0][4], 64, "B-A");
	json_array_foreach(json_object_get(a, "variants"), i, va) {
		const char *name = json_string_value(json_object_get(va, "name"));
		json_t *vb = find_named(json_object_get(b, "variants"), name);

		if (!vb)
			continue;
		json_object_foreach(json_object_get(va, "metrics"), key, x) {
			json_t *y = json_object_get(json_object_get(vb, "metrics"), key);
			const struct sim_metric *mt = diff_metric(scn, key);
			/* a metric this build does not know: three decimals */
			int dec = mt ? mt->decimals : 3;

			if (t->rows >= 256)
				break;
			if (zero_in_both(x, y)) {
				nr_zero++;
				continue;
			}
			snprintf(t->cell[t->rows][0], 64, "%s", mt && mt->label ? mt->label : key);
			snprintf(t->cell[t->rows][1], 64, "%s", name);
			fmt_num(t->cell[t->rows][2], 64, x, dec);
			fmt_num(t->cell[t->rows][3], 64, y, dec);
			fmt_change(t->cell[t->rows][4], 64, x, y, dec);
			t->rows++;
		}
	}
	if (t->rows > 1)
		dtab_print(c, t, 5);
	else if (!nr_zero)
		fprintf(c->out, "no variant in both runs\n");
	else
		fprintf(c->out, "every metric of the variants in both runs is zero or unset in both\n");

	/* lock by lock, for each variant in both, as the run's lock table */
	json_array_foreach(json_object_get(a, "variants"), i, va) {
		const char *name = json_string_value(json_object_get(va, "name"));
		json_t *vb = find_named(json_object_get(b, "variants"), name), *la;
		size_t n;

		if (!vb || !json_array_size(json_object_get(va, "locks")))
			continue;
		memset(t, 0, sizeof(*t));
		t->rows = 1;
		snprintf(t->cell[0][0], 64, "locks: %s", name);
		snprintf(t->cell[0][1], 64, "contended A");
		snprintf(t->cell[0][2], 64, "B");
		snprintf(t->cell[0][3], 64, "B-A");
		snprintf(t->cell[0][4], 64, "total wait A");
		snprintf(t->cell[0][5], 64, "B");
		snprintf(t->cell[0][6], 64, "B-A");
		json_array_foreach(json_object_get(va, "locks"), n, la) {
			const char *ln = json_string_value(json_object_get(la, "name"));
			json_t *lb = ln ? find_named(json_object_get(vb, "locks"), ln) : NULL;
			json_t *wa = json_object_get(la, "wait_total_s");
			json_t *wb = lb ? json_object_get(lb, "wait_total_s") : NULL;
			json_t *ca = json_object_get(la, "contentions");
			json_t *cb = lb ? json_object_get(lb, "contentions") : NULL;

			if (!ln || t->rows >= 256)
				continue;
			if (zero_in_both(wa, wb) && zero_in_both(ca, cb)) {
				nr_zero++;
				continue;
			}
			snprintf(t->cell[t->rows][0], 64, "%s", sim_lock_kernel_name(ln));
			fmt_num(t->cell[t->rows][1], 64, ca, 0);
			fmt_num(t->cell[t->rows][2], 64, cb, 0);
			fmt_change(t->cell[t->rows][3], 64, ca, cb, 0);
			fmt_lock_time(t->cell[t->rows][4], 64, wa);
			fmt_lock_time(t->cell[t->rows][5], 64, wb);
			fmt_lock_change(t->cell[t->rows][6], 64, wa, wb);
			t->key[t->rows] = fmax(json_is_number(wa) ? json_number_value(wa) : 0,
					       json_is_number(wb) ? json_number_value(wb) : 0);
			t->rows++;
		}
		if (t->rows == 1)
			continue;
		dtab_sort(t);
		fprintf(c->out, "\n");
		dtab_print(c, t, DTAB_COLS);
	}
	if (nr_zero)
		fprintf(c->out, "\n%d rows zero or unset in both runs left out\n", nr_zero);
	ret = fflush(c->out) ? cli_fail(c, "writing to standard output failed") - 1 : 0;
out:
	free(t);
	json_decref(a);
	json_decref(b);
	return ret;
}
