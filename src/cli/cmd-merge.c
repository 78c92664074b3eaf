// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim merge A.csv B.csv ... [--csv OUT]`: join the CSVs of a sweep's
 * shards (cmd-sweep.c), in order, into the unsharded CSV, byte for byte;
 * and cli_merge_read(), which `sweep --merge N` also reads its parts with.
 *
 * Models nothing.  An input is read whole and capped (MERGE_MAX_BYTES); its
 * header must be the first input's; a part that is only a header adds no
 * rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_impl.h"
#include "mmsim/input.h"
#include "mmsim/profile.h"

/*
 * The largest input merge reads: a sweep has at most 10000 runs of at most
 * SIM_MAX_VARIANTS x SIM_MAX_METRICS rows of a few hundred bytes (about
 * 220 MB); more is not a shard (and /dev/zero never ends).
 */
#define MERGE_MAX_BYTES		((size_t)256 << 20)

int cli_merge_read(struct cli *c, struct merge_file *f)
{
	char why[CLI_ERR];

	if (sim_input_read(f->path, MERGE_MAX_BYTES, "a CSV written by mmsim sweep",
			   &f->text, &f->len, why, sizeof(why)))
		return cli_fail(c, "merge %s", why);
	return 0;
}

/*
 * Check one row of @path (line @line), @row to @end (the newline), against
 * the header's @nf fields and the first row's scenario @scn (@scn_len
 * bytes): @nf fields, none quoted, none empty; the seed a decimal number;
 * the value a number or NA (a metric the variant did not set).  Returns 0,
 * or 2 with c->msg naming the line.
 */
static int merge_check_row(struct cli *c, const char *path, size_t line, const char *row,
			   const char *end, size_t nf, const char *scn, size_t scn_len)
{
	const char *f = row, *comma;
	size_t k;

	for (k = 0; k < nf; k++, f = comma + 1) {
		size_t len;

		comma = memchr(f, ',', (size_t)(end - f));
		if (!comma)
			comma = end;
		len = (size_t)(comma - f);
		if (k + 1 < nf && comma == end)
			return cli_fail(c, "merge %s:%zu: %zu fields: expected %zu, as the header has",
					path, line, k + 1, nf);
		if (memchr(f, '"', len))
			return cli_fail(c, "merge %s:%zu: field %zu is quoted: expected the plain fields mmsim sweep writes",
					path, line, k + 1);
		if (!len)
			return cli_fail(c, "merge %s:%zu: field %zu is empty: expected a value in every column (NA for a metric not set)",
					path, line, k + 1);
		if (!k && (len != scn_len || memcmp(f, scn, len)))
			return cli_fail(c, "merge %s:%zu: scenario %.*s: expected %.*s, the scenario of the first row",
					path, line, (int)(len > 64 ? 64 : len), f, (int)scn_len, scn);
		if (k == nf - 4 || (k == nf - 1 && (len != 2 || memcmp(f, "NA", 2)))) {
			char num[64], *e;

			snprintf(num, sizeof(num), "%.*s", (int)(len < 63 ? len : 63), f);
			errno = 0;
			if (k == nf - 4)
				(void)strtoull(num, &e, 10);
			else
				(void)strtod(num, &e);
			if (len >= 63 || *e || errno == EINVAL ||
			    (k == nf - 4 && (errno || num[0] < '0' || num[0] > '9')))
				return cli_fail(c, "merge %s:%zu: %s %.*s: expected %s", path, line,
						k == nf - 4 ? "seed" : "value", (int)(len > 64 ? 64 : len), f,
						k == nf - 4 ? "a decimal number below 2^64" :
						"a number, or NA");
		}
	}
	if (f <= end)
		return cli_fail(c, "merge %s:%zu: more than %zu fields: expected %zu, as the header has",
				path, line, nf, nf);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Shard @i of @n from a part's name, "DIR/x.part-03-of-12.csv" (what
 * cli_shard_part() writes); @pre and @post the text around "part-I-of-N".
 * Returns false for any other name.
 */
static bool merge_part_name(const char *path, uint64_t *i, uint64_t *n, size_t *pre,
			    const char **post)
{
	const char *slash = strrchr(path, '/'), *p = NULL, *q;
	char *end;

	for (q = slash ? slash : path; (q = strstr(q, ".part-")); q++)
		p = q;
	if (!p || p[6] < '0' || p[6] > '9')
		return false;
	*i = strtoull(p + 6, &end, 10);
	if (strncmp(end, "-of-", 4) || end[4] < '1' || end[4] > '9')
		return false;
	*n = strtoull(end + 4, &end, 10);
	if ((*end && *end != '.') || !*i || *i > *n || *n > 10000)
		return false;
	*pre = (size_t)(p + 1 - path);
	*post = end;
	return true;
}

/*
 * When every file is a part of the same N shards by its name, every shard
 * 1..N must be there, in order: a glob over the parts silently leaves out
 * the part of a shard that failed.  Names the missing shards on standard
 * error.  Returns 0 (complete, or not named as parts), 1 with c->msg set
 * (parts missing), or 2 (out of order).
 */
static int merge_check_parts(struct cli *c, const struct plan_args *a)
{
	uint64_t i, n = 0, ni, want, prev, nr_missing = 0;
	const char *post = "";
	char shards[128];
	size_t pre = 0, ns = 0;
	int k, width;

	for (k = 0; k < a->nr_pos; k++) {
		if (!merge_part_name(a->pos[k], &i, &ni, &pre, &post) || (k && ni != n))
			return 0;
		n = ni;
	}
	for (k = 0, prev = 0; k < a->nr_pos; k++) {
		merge_part_name(a->pos[k], &i, &ni, &pre, &post);
		if (i <= prev)
			return cli_fail(c, "merge %s: shard %" PRIu64 " of %" PRIu64
					" comes after shard %" PRIu64 ": expected each part once, in the order 1..%" PRIu64,
					a->pos[k], i, n, prev, n);
		prev = i;
	}
	/* The name of a missing part, from the first's: the same text around it. */
	merge_part_name(a->pos[0], &i, &ni, &pre, &post);
	width = snprintf(NULL, 0, "%" PRIu64, n);
	shards[0] = '\0';
	for (k = 0, want = 1; want <= n; want++) {
		if (k < a->nr_pos && merge_part_name(a->pos[k], &i, &ni, &pre, &post) && i == want) {
			k++;
			continue;
		}
		merge_part_name(a->pos[0], &i, &ni, &pre, &post);
		fprintf(c->err, "mmsim: shard %" PRIu64 "/%" PRIu64 ": %.*spart-%0*" PRIu64 "-of-%"
			PRIu64 "%s is not among the files\n", want, n, (int)pre, a->pos[0], width,
			want, n, post);
		if (ns < sizeof(shards))
			ns += (size_t)snprintf(shards + ns, sizeof(shards) - ns, "%s%" PRIu64,
					       nr_missing ? "," : "", want);
		nr_missing++;
	}
	if (!nr_missing)
		return 0;
	return cli_fail(c, "merge: the parts of shards %s%s are missing (%" PRIu64 " of %" PRIu64
			"), nothing written: rerun only those shards, then merge again (`mmsim sweep ... --merge %"
			PRIu64 "` also names their runs)", shards, ns >= sizeof(shards) ? "..." : "",
			nr_missing, n, n) - 1;
}

/**
 * cmd_merge() - `mmsim merge`: join the CSVs of a sweep's shards
 * @c: the invocation
 * @argc: argument count; argv[0] is "merge"
 * @argv: the arguments: the shards' CSVs in the order 1..N, [--csv OUT]
 *
 * Every file must have the same header; the rows are concatenated in the
 * order of the files, which gives the unsharded CSV byte for byte.  A row
 * (all columns but the value) that appears twice is an error: a shard
 * given twice.
 *
 * Return: the exit code: 0, 1 or 2.
 */
int cmd_merge(struct cli *c, int argc, char **argv)
{
	struct sim_outfile out_f;
	struct merge_file *f;
	struct sim_out o;
	struct plan_args a;
	char **keys = NULL;
	size_t nr_keys = 0, cap_keys = 0, hlen = 0, i, nf = 0, line, scn_len = 0;
	const char *scn = NULL;
	int ret, k;

	ret = cli_parse_args(c, argc, argv, CLI_MERGE, "merge", &a);
	if (ret)
		return ret;
	if (!a.nr_pos)
		return cli_fail(c, "merge: expected the CSV files of a sweep's shards, got none");
	ret = merge_check_parts(c, &a);
	if (ret)
		return ret;
	f = calloc((size_t)a.nr_pos, sizeof(*f));
	if (!f)
		return cli_fail(c, "out of memory") - 1;
	memset(&out_f, 0, sizeof(out_f));
	sim_out_init_buffer(&o);
	for (k = 0; k < a.nr_pos; k++) {
		const char *nl;

		f[k].path = a.pos[k];
		ret = cli_merge_read(c, &f[k]);
		if (ret)
			goto out_free;
		nl = strchr(f[k].text, '\n');
		if (!nl || strncmp(f[k].text, "scenario,", 9) ||
		    (size_t)(nl - f[k].text) < 33 ||
		    strncmp(nl - 26, ",seed,variant,metric,value", 26)) {
			ret = cli_fail(c, "merge %s: its first line is not a sweep header: expected scenario,KEY...,seed,variant,metric,value",
				       f[k].path);
			goto out_free;
		}
		if (f[k].len && f[k].text[f[k].len - 1] != '\n') {
			ret = cli_fail(c, "merge %s: the last line is incomplete: expected a whole CSV",
				       f[k].path);
			goto out_free;
		}
		if (!k) {
			hlen = (size_t)(nl - f[0].text) + 1;
			for (nf = 1, i = 0; i + 1 < hlen; i++)
				nf += f[0].text[i] == ',';
		} else if ((size_t)(nl - f[k].text) + 1 != hlen ||
			   memcmp(f[k].text, f[0].text, hlen)) {
			ret = cli_fail(c, "merge %s: its header differs from that of %s: expected shards of one sweep",
				       f[k].path, f[0].path);
			goto out_free;
		}
		f[k].rows = nl + 1;
		sim_out_write(&o, f[k].rows, f[k].len - hlen);
		/* Each row's key (all but the value), for the duplicate check. */
		for (nl = f[k].rows, line = 2; *nl; line++) {
			const char *end = strchr(nl, '\n'), *comma = end;

			if (!scn) {
				scn = nl;
				scn_len = strcspn(nl, ",\n");
			}
			ret = merge_check_row(c, f[k].path, line, nl, end, nf, scn, scn_len);
			if (ret)
				goto out_free;
			while (comma > nl && comma[-1] != ',')
				comma--;
			if (nr_keys == cap_keys) {
				size_t cap = cap_keys ? cap_keys * 2 : 1024;
				char **nk = realloc(keys, cap * sizeof(*keys));

				if (!nk) {
					ret = cli_fail(c, "out of memory") - 1;
					goto out_free;
				}
				keys = nk;
				cap_keys = cap;
			}
			keys[nr_keys] = strndup(nl, (size_t)(comma - nl));
			if (!keys[nr_keys]) {
				ret = cli_fail(c, "out of memory") - 1;
				goto out_free;
			}
			nr_keys++;
			nl = end + 1;
		}
	}
	if (nr_keys > 1)	/* header-only shards have no rows (and keys is NULL) */
		qsort(keys, nr_keys, sizeof(*keys), cmp_str);
	for (i = 1; i < nr_keys; i++)
		if (!strcmp(keys[i - 1], keys[i])) {
			ret = cli_fail(c, "merge: the row %s... appears twice: expected each shard once",
				       keys[i]);
			goto out_free;
		}
	if (sim_outfile_open(&out_f, "--csv", a.csv ? a.csv : "-", c->out, c->msg,
			     sizeof(c->msg))) {
		ret = 2;
		goto out_free;
	}
	{
		struct sim_out all;

		sim_out_init_buffer(&all);
		sim_out_write(&all, f[0].text, hlen);
		sim_out_write(&all, sim_out_text(&o), o.len);
		if (all.failed)
			ret = cli_fail(c, "out of memory") - 1;
		else if (sim_outfile_commit(&out_f, sim_out_text(&all), all.len, c->msg,
					    sizeof(c->msg)))
			ret = 1;
		sim_out_release(&all);
	}
out_free:
	sim_outfile_abort(&out_f);
	sim_out_release(&o);
	for (i = 0; i < nr_keys; i++)
		free(keys[i]);
	free(keys);
	for (k = 0; k < a.nr_pos; k++)
		free(f[k].text);
	free(f);
	return ret;
}
