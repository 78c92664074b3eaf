// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim diff A.json B.json`: two saved runs (`mmsim run ... --json`) side
 * by side, in the spirit of `perf diff`: the parameters that differ, then
 * every metric of every variant both ran, then every lock class of each
 * such variant (wait total and contentions), each with B - A and its
 * percentage of A.  Two files of different scenarios, a file that is not
 * the JSON of one run, or a missing file: one line, exit 2.
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

static void fmt_num(char *buf, size_t len, json_t *x)
{
	if (json_is_number(x))
		snprintf(buf, len, "%.6g", json_number_value(x));
	else
		snprintf(buf, len, "-");
}

static void fmt_change(char *buf, size_t len, json_t *a, json_t *b)
{
	double x, y;

	if (!json_is_number(a) || !json_is_number(b)) {
		snprintf(buf, len, "-");
		return;
	}
	x = json_number_value(a);
	y = json_number_value(b);
	if (x == 0)
		snprintf(buf, len, "%+.6g (n/a)", y - x);
	else
		snprintf(buf, len, "%+.6g (%+.1f%%)", y - x, (y - x) * 100.0 / fabs(x));
}

/* One table, columns left then right-aligned, as the other tables. */
struct dtab {
	char cell[256][5][64];
	int rows;
};

static void dtab_print(struct cli *c, const struct dtab *t, int cols)
{
	size_t w[5] = { 0 }, total = 0, i;
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
	const char *key, *sa, *sb;
	struct dtab *t = NULL;
	size_t i;
	int ret;

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

	/* metric by metric */
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

			if (t->rows >= 256)
				break;
			snprintf(t->cell[t->rows][0], 64, "%s", key);
			snprintf(t->cell[t->rows][1], 64, "%s", name);
			fmt_num(t->cell[t->rows][2], 64, x);
			fmt_num(t->cell[t->rows][3], 64, y);
			fmt_change(t->cell[t->rows][4], 64, x, y);
			t->rows++;
		}
	}
	if (t->rows > 1)
		dtab_print(c, t, 5);
	else
		fprintf(c->out, "no variant in both runs\n");

	/* lock by lock, for each variant in both */
	json_array_foreach(json_object_get(a, "variants"), i, va) {
		const char *name = json_string_value(json_object_get(va, "name"));
		json_t *vb = find_named(json_object_get(b, "variants"), name), *la;
		size_t n;

		if (!vb || !json_array_size(json_object_get(va, "locks")))
			continue;
		memset(t, 0, sizeof(*t));
		t->rows = 1;
		snprintf(t->cell[0][0], 64, "locks: %s", name);
		snprintf(t->cell[0][1], 64, "wait total s A");
		snprintf(t->cell[0][2], 64, "B");
		snprintf(t->cell[0][3], 64, "B-A");
		snprintf(t->cell[0][4], 64, "contentions B-A");
		json_array_foreach(json_object_get(va, "locks"), n, la) {
			const char *ln = json_string_value(json_object_get(la, "name"));
			json_t *lb = ln ? find_named(json_object_get(vb, "locks"), ln) : NULL;

			if (!ln || t->rows >= 256)
				continue;
			snprintf(t->cell[t->rows][0], 64, "%s", ln);
			fmt_num(t->cell[t->rows][1], 64, json_object_get(la, "wait_total_s"));
			fmt_num(t->cell[t->rows][2], 64, lb ? json_object_get(lb, "wait_total_s") : NULL);
			fmt_change(t->cell[t->rows][3], 64, json_object_get(la, "wait_total_s"),
				   lb ? json_object_get(lb, "wait_total_s") : NULL);
			fmt_change(t->cell[t->rows][4], 64, json_object_get(la, "contentions"),
				   lb ? json_object_get(lb, "contentions") : NULL);
			t->rows++;
		}
		fprintf(c->out, "\n");
		dtab_print(c, t, 5);
	}
	ret = fflush(c->out) ? cli_fail(c, "writing to standard output failed") - 1 : 0;
out:
	free(t);
	json_decref(a);
	json_decref(b);
	return ret;
}
