// SPDX-License-Identifier: GPL-2.0-only
/*
 * The output sink and the printers of a run's results.
 *
 * Models nothing of the kernel.  Everything mmsim prints for a run goes
 * through one struct sim_out, so that tests capture the exact text:
 *   header    the effective options, so that a run can be repeated
 *   table     one row per metric, one column per variant, then the change
 *             from the scenario's baseline to its changed variant as
 *             "+abs (+pct%)", as in the seed posts; in reproduce mode the
 *             published numbers and the ratio simulated/published
 *   locks     /proc/lock_stat-style, one table per variant
 *   counters  non-zero counters, one column per variant
 *   CSV       the machine-readable rows (JSON: output_json.c) (DESIGN.md section 5)
 * Numbers use fixed printf formats; mmsim never calls setlocale(), so the
 * C locale's '.' is the decimal point.  Result files are written by
 * src/core/outfile.c.
 *
 * No locks; nothing here runs inside the engine.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>

#include "mmsim/output.h"
#include "mmsim/profile.h"

#ifndef MMSIM_VERSION
#define MMSIM_VERSION "unknown"
#endif

#define OUT_CELL	64	/* one table cell */
#define OUT_MAX_COLS	(1 + SIM_MAX_VARIANTS * 3 + 1)
#define OUT_MAX_ROWS	(1 + (NR_SIM_COUNTERS > SIM_MAX_METRICS ? NR_SIM_COUNTERS : SIM_MAX_METRICS))

/* ---- the sink ------------------------------------------------------- */

/**
 * sim_out_init_file() - a sink that writes to a stream
 * @o: the sink
 * @fp: the stream; the caller keeps it open and closes it
 */
void sim_out_init_file(struct sim_out *o, FILE *fp)
{
	memset(o, 0, sizeof(*o));
	o->fp = fp;
}

/**
 * sim_out_init_buffer() - a sink that collects the text in memory
 * @o: the sink; release it with sim_out_release()
 */
void sim_out_init_buffer(struct sim_out *o)
{
	memset(o, 0, sizeof(*o));
}

/**
 * sim_out_release() - free the memory of an in-memory sink
 * @o: the sink
 */
void sim_out_release(struct sim_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

/**
 * sim_out_text() - the text collected by an in-memory sink
 * @o: the sink
 *
 * Return: the text, "" when nothing was written.
 */
const char *sim_out_text(const struct sim_out *o)
{
	return o->buf ? o->buf : "";
}

/**
 * sim_out_write() - write bytes to a sink
 * @o: the sink
 * @s: the bytes
 * @n: how many
 *
 * A failure is remembered in o->failed.
 */
void sim_out_write(struct sim_out *o, const char *s, size_t n)
{
	if (o->fp) {
		if (fwrite(s, 1, n, o->fp) != n)
			o->failed = true;
		return;
	}
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 1024;
		char *nb;

		while (cap < o->len + n + 1)
			cap *= 2;
		nb = realloc(o->buf, cap);
		if (!nb) {
			o->failed = true;
			return;
		}
		o->buf = nb;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/**
 * sim_out_printf() - formatted write to a sink
 * @o: the sink
 * @fmt: printf format
 */
void sim_out_printf(struct sim_out *o, const char *fmt, ...)
{
	char small[512], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sim_out_write(o, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		o->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sim_out_write(o, big, (size_t)n);
	free(big);
}

/* ---- aligned tables --------------------------------------------------- */

/*
 * A text table: column 0 is left-aligned (labels), the others are
 * right-aligned; columns are two spaces apart; a rule of dashes follows
 * the header row and ends the table, as in the seed posts.
 */
struct out_table {
	char cell[OUT_MAX_ROWS][OUT_MAX_COLS][OUT_CELL];
	int nr_rows, nr_cols;
};

static void table_set(struct out_table *t, int row, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void table_set(struct out_table *t, int row, int col, const char *fmt, ...)
{
	va_list ap;

	if (row >= OUT_MAX_ROWS || col >= OUT_MAX_COLS)
		return;
	va_start(ap, fmt);
	vsnprintf(t->cell[row][col], OUT_CELL, fmt, ap);
	va_end(ap);
	if (row >= t->nr_rows)
		t->nr_rows = row + 1;
	if (col >= t->nr_cols)
		t->nr_cols = col + 1;
}

static void table_print(struct out_table *t, struct sim_out *o)
{
	size_t w[OUT_MAX_COLS] = { 0 }, total = 0, n;
	int r, c;

	for (r = 0; r < t->nr_rows; r++)
		for (c = 0; c < t->nr_cols; c++) {
			n = strlen(t->cell[r][c]);
			if (n > w[c])
				w[c] = n;
		}
	for (c = 0; c < t->nr_cols; c++)
		total += w[c] + (c ? 2 : 0);
	for (r = 0; r < t->nr_rows; r++) {
		for (c = 0; c < t->nr_cols; c++) {
			if (!c)
				sim_out_printf(o, "%-*s", (int)w[c], t->cell[r][c]);
			else
				sim_out_printf(o, "  %*s", (int)w[c], t->cell[r][c]);
		}
		sim_out_write(o, "\n", 1);
		if (r == 0 || r == t->nr_rows - 1) {
			char dash[256];

			n = total < sizeof(dash) - 1 ? total : sizeof(dash) - 1;
			memset(dash, '-', n);
			dash[n] = '\n';
			sim_out_write(o, dash, n + 1);
		}
	}
}

/**
 * sim_published_value() - a published number of a scenario
 * @s: the scenario
 * @variant: the variant's name
 * @metric: the metric's key
 * @value: the published value, when there is one
 *
 * Return: true if the scenario publishes @metric for @variant.
 */
bool sim_published_value(const struct scenario_ops *s, const char *variant,
			 const char *metric, double *value)
{
	const struct sim_published *p;

	for (p = s->published; p && p->variant; p++)
		if (!strcmp(p->variant, variant) && !strcmp(p->metric, metric)) {
			*value = p->value;
			return true;
		}
	return false;
}

static bool variant_has_published(const struct scenario_ops *s,
				  const char *variant)
{
	const struct sim_published *p;

	for (p = s->published; p && p->variant; p++)
		if (!strcmp(p->variant, variant))
			return true;
	return false;
}

/* Index of the result of @variant in @r, or -1. */
static int report_find(const struct sim_report *r, const char *variant)
{
	int i;

	if (!variant)
		return -1;
	for (i = 0; i < r->nr_res; i++)
		if (!strcmp(r->res[i].name, variant))
			return i;
	return -1;
}

/**
 * sim_print_table() - the results table
 * @o: the sink
 * @r: the results
 *
 * Layout (columns two spaces apart, label column left-aligned, the others
 * right-aligned; each number with the metric's decimals):
 *
 *   metric        before     after  delta
 *   ---------------------------------------------
 *   runtime (s)    1.230     1.100  -0.130 (-10.6%)
 *   ---------------------------------------------
 *
 * "delta" appears when the scenario's baseline and changed variants were
 * both run: changed - baseline, and the percentage of the baseline ("n/a"
 * when the baseline is 0).  With r->baseline (--baseline VARIANT) there is
 * one such column per other variant, headed "VARIANT-BASELINE".  In reproduce mode each variant with published
 * numbers adds "published VARIANT" and "sim/pub VARIANT" (the ratio).
 * A metric a variant did not set prints as "-".
 */
void sim_print_table(struct sim_out *o, const struct sim_report *r)
{
	const struct scenario_ops *s = r->cfg->scenario;
	struct out_table *t = calloc(1, sizeof(*t));
	int base, chg[SIM_MAX_VARIANTS], nr_chg = 0;
	int m, v, col, k;

	if (!t) {
		o->failed = true;
		return;
	}
	if (r->baseline) {
		/* --baseline: every other variant's change from it */
		base = report_find(r, r->baseline);
		for (v = 0; base >= 0 && v < r->nr_res && nr_chg < SIM_MAX_VARIANTS; v++)
			if (v != base)
				chg[nr_chg++] = v;
	} else {
		base = report_find(r, s->baseline);
		chg[0] = report_find(r, s->changed);
		if (base >= 0 && chg[0] >= 0 && base != chg[0])
			nr_chg = 1;
	}
	table_set(t, 0, 0, "metric");
	for (v = 0; v < r->nr_res; v++)
		table_set(t, 0, 1 + v, "%s", r->res[v].name);
	col = 1 + r->nr_res;
	for (k = 0; k < nr_chg; k++) {
		if (r->baseline)
			table_set(t, 0, col++, "%s-%s", r->res[chg[k]].name, r->res[base].name);
		else
			table_set(t, 0, col++, "delta");
	}
	if (r->reproduce)
		for (v = 0; v < r->nr_res; v++) {
			if (!variant_has_published(s, r->res[v].name))
				continue;
			table_set(t, 0, col++, "published %s", r->res[v].name);
			table_set(t, 0, col++, "sim/pub %s", r->res[v].name);
		}

	for (m = 0; s->metrics[m].key && m < SIM_MAX_METRICS; m++) {
		const struct sim_metric *mt = &s->metrics[m];
		int row = 1 + m, dec = mt->decimals;

		table_set(t, row, 0, "%s", mt->label ? mt->label : mt->key);
		for (v = 0; v < r->nr_res; v++) {
			if (r->res[v].has_metric[m])
				table_set(t, row, 1 + v, "%.*f", dec,
					  r->res[v].metrics[m]);
			else
				table_set(t, row, 1 + v, "-");
		}
		col = 1 + r->nr_res;
		for (k = 0; k < nr_chg; k++) {
			const struct sim_variant_result *b = &r->res[base];
			const struct sim_variant_result *c = &r->res[chg[k]];

			if (!b->has_metric[m] || !c->has_metric[m])
				table_set(t, row, col, "-");
			else if (b->metrics[m] == 0)
				table_set(t, row, col, "%+.*f (n/a)", dec,
					  c->metrics[m] - b->metrics[m]);
			else
				table_set(t, row, col, "%+.*f (%+.1f%%)", dec,
					  c->metrics[m] - b->metrics[m],
					  (c->metrics[m] - b->metrics[m]) * 100.0 /
					  b->metrics[m]);
			col++;
		}
		if (!r->reproduce)
			continue;
		for (v = 0; v < r->nr_res; v++) {
			double pub;

			if (!variant_has_published(s, r->res[v].name))
				continue;
			if (!sim_published_value(s, r->res[v].name, mt->key, &pub)) {
				table_set(t, row, col++, "-");
				table_set(t, row, col++, "-");
				continue;
			}
			table_set(t, row, col++, "%.*f", dec, pub);
			if (!r->res[v].has_metric[m] || pub == 0)
				table_set(t, row, col++, "n/a");
			else
				table_set(t, row, col++, "%.2f",
					  r->res[v].metrics[m] / pub);
		}
	}
	table_print(t, o);
	free(t);
}

/*
 * The kernel's name of each lock class the model keeps: lockdep names a
 * class by the expression that initialised it (spin_lock_init(&zone->lock)
 * gives "&zone->lock"), or by its key's expression when one is set
 * (init_one_lru()'s lockdep_set_class(&l->lock, lru->key) gives "lru->key",
 * the deferred-split list_lru's key since the 2026 list_lru series).  The
 * model's own names stay in JSON and CSV and in the scenarios' metrics.
 */
static const char *const lock_kernel_names[][2] = {
	{ "lru_lock", "&lruvec->lru_lock" },		/* lruvec_init() */
	{ "mmap_lock", "&mm->mmap_lock" },		/* mmap_init_lock() */
	{ "zone->lock", "&zone->lock" },		/* zone_init_internals() */
	{ "deferred_split_lru", "lru->key" },		/* init_one_lru(), keyed */
	{ "ptlock", "ptlock_ptr(ptdesc)" },		/* ptlock_init() */
	{ "swap_info->lock", "&p->lock" },		/* alloc_swap_info() */
	{ "swap_cluster->lock", "&cluster_info[i].lock" },	/* setup_clusters() */
	{ "khugepaged_mm_lock", "khugepaged_mm_lock" },	/* DEFINE_SPINLOCK() */
};

/**
 * sim_lock_kernel_name() - the name the kernel's lockdep gives a lock class
 * @name: the model's name ("lru_lock")
 *
 * Return: the kernel's ("&lruvec->lru_lock"), or @name when the model's
 * lock has no kernel counterpart (the spinlock scenario's "spinlock").
 */
const char *sim_lock_kernel_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(lock_kernel_names) / sizeof(lock_kernel_names[0]); i++)
		if (!strcmp(lock_kernel_names[i][0], name))
			return lock_kernel_names[i][1];
	return name;
}

/* One row of a lock table: a lock class's one read/write state. */
struct lock_row {
	const struct sim_lock_result *l;
	const struct sim_lock_side *side;
	const char *type;		/* "spinlock", "rwsem:W", "rwsem:R" */
};

/* The rows of @res with at least one acquisition (and contention, if @contended). */
static int lock_rows(const struct sim_variant_result *res, struct lock_row *rows, bool contended)
{
	int i, k, n = 0;

	for (i = 0; i < res->nr_locks && i < SIM_MAX_LOCKS; i++) {
		const struct sim_lock_result *l = &res->locks[i];

		for (k = 0; k < (l->rwsem ? 2 : 1); k++) {
			const struct sim_lock_side *sd = &l->side[k];

			if (!sd->acquisitions || (contended && !sd->contentions))
				continue;
			rows[n].l = l;
			rows[n].side = sd;
			rows[n].type = !l->rwsem ? "spinlock" : k ? "rwsem:R" : "rwsem:W";
			n++;
		}
	}
	return n;
}

static int lock_row_cmp_wait(const void *a, const void *b)
{
	const struct lock_row *x = a, *y = b;

	if (x->side->wait_total != y->side->wait_total)
		return x->side->wait_total > y->side->wait_total ? -1 : 1;
	return strcmp(x->l->name, y->l->name) ? strcmp(x->l->name, y->l->name)
					      : strcmp(x->type, y->type);
}

/*
 * A time as perf lock contention prints one in a column @len wide: the
 * largest unit it reaches (h, m, s, ms, us) with two decimals, else whole ns.
 */
static void lock_print_time(struct sim_out *o, uint64_t ps, int len)
{
	static const struct { double base; const char *unit; } units[] = {
		{ 3600e9, "h " }, { 60e9, "m " }, { 1e9, "s " }, { 1e6, "ms" }, { 1e3, "us" },
	};
	uint64_t ns = ps / SIM_NS;
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if ((double)ns < units[i].base)
			continue;
		sim_out_printf(o, "%*.2f %s", len - 3, (double)ns / units[i].base, units[i].unit);
		return;
	}
	sim_out_printf(o, "%*" PRIu64 " ns", len - 3, ns);
}

/**
 * sim_print_locks() - the lock table of each variant, as perf prints it
 * @o: the sink
 * @r: the results
 *
 * The layout of `perf lock contention` (tools/perf/builtin-lock.c): per
 * variant, the contended lock classes sorted by total wait, with columns
 * contended, total wait, max wait, avg wait, type (spinlock, rwsem:R,
 * rwsem:W) and the lock's lockdep name where perf prints the caller (the
 * model keeps no call stacks).  Locks never contended are left out, as
 * perf, which sees only contention, leaves them out.  --locks-format
 * lock_stat prints every lock taken (sim_print_lock_stat()).
 */
void sim_print_locks(struct sim_out *o, const struct sim_report *r)
{
	struct lock_row rows[2 * SIM_MAX_LOCKS];
	int v, i, n;

	if (r->locks_format == SIM_LOCKS_LOCK_STAT) {
		sim_print_lock_stat(o, r);
		return;
	}
	for (v = 0; v < r->nr_res; v++) {
		n = lock_rows(&r->res[v], rows, true);
		if (!n)
			continue;
		qsort(rows, (size_t)n, sizeof(rows[0]), lock_row_cmp_wait);
		sim_out_printf(o, "\nlocks: %s (perf lock contention)\n", r->res[v].name);
		sim_out_printf(o, "%*s %*s %*s %*s   %10s   %s\n\n", 10, "contended", 12, "total wait",
			       12, "max wait", 12, "avg wait", "type", "lock");
		for (i = 0; i < n; i++) {
			const struct sim_lock_side *sd = rows[i].side;

			sim_out_printf(o, "%*" PRIu64 " ", 10, sd->contentions);
			lock_print_time(o, sd->wait_total, 12);
			sim_out_printf(o, " ");
			lock_print_time(o, sd->wait_max, 12);
			sim_out_printf(o, " ");
			lock_print_time(o, sd->wait_total / sd->contentions, 12);
			sim_out_printf(o, "   %10s   %s\n", rows[i].type,
				       sim_lock_kernel_name(rows[i].l->name));
		}
	}
}

/* lock_stat's time: microseconds with two decimals, rounded (snprint_time()). */
static void lock_stat_time_col(struct sim_out *o, uint64_t ps)
{
	uint64_t ns = ps / SIM_NS + 5;
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64 ".%02u", ns / 1000, (unsigned)(ns % 1000) / 10);
	sim_out_printf(o, " %14s", num);
}

/* One lock_stat row: count, min, max, total, average. */
static void lock_stat_lt(struct sim_out *o, uint64_t nr, uint64_t min, uint64_t max,
			 uint64_t total)
{
	sim_out_printf(o, "%14" PRIu64, nr);
	lock_stat_time_col(o, min);
	lock_stat_time_col(o, max);
	lock_stat_time_col(o, total);
	lock_stat_time_col(o, nr ? total / nr : 0);
}

static int lock_result_cmp_contentions(const void *a, const void *b)
{
	const struct sim_lock_result *x = *(const struct sim_lock_result *const *)a;
	const struct sim_lock_result *y = *(const struct sim_lock_result *const *)b;

	uint64_t cx = x->side[0].contentions + x->side[1].contentions;
	uint64_t cy = y->side[0].contentions + y->side[1].contentions;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(x->name, y->name);
}

#define LOCK_STAT_WIDTH	(40 + 1 + 12 * (14 + 1))

static void lock_stat_line(struct sim_out *o, char c)
{
	char line[LOCK_STAT_WIDTH + 2];

	memset(line, c, LOCK_STAT_WIDTH);
	line[LOCK_STAT_WIDTH] = '\n';
	sim_out_write(o, line, LOCK_STAT_WIDTH + 1);
}

/**
 * sim_print_lock_stat() - the lock classes of each variant as /proc/lock_stat
 * @o: the sink
 * @r: the results
 *
 * The layout of lock_stat version 0.4 (kernel/locking/lockdep_proc.c): a
 * row per class and read/write state (NAME-W: and NAME-R: for a
 * rw_semaphore taken both ways), classes by contentions, times in us with
 * two decimals.  The model does not count cache-line bounces (con-bounces
 * and acq-bounces print 0) nor keep contention points (call sites).
 * Classes never taken are left out.
 */
void sim_print_lock_stat(struct sim_out *o, const struct sim_report *r)
{
	const struct sim_lock_result *sorted[SIM_MAX_LOCKS];
	int v, i, n, k;

	for (v = 0; v < r->nr_res; v++) {
		const struct sim_variant_result *res = &r->res[v];

		for (i = 0, n = 0; i < res->nr_locks && i < SIM_MAX_LOCKS; i++)
			if (res->locks[i].side[0].acquisitions || res->locks[i].side[1].acquisitions)
				sorted[n++] = &res->locks[i];
		if (!n)
			continue;
		qsort(sorted, (size_t)n, sizeof(sorted[0]), lock_result_cmp_contentions);
		sim_out_printf(o, "\nlocks: %s\nlock_stat version 0.4\n", res->name);
		lock_stat_line(o, '-');
		sim_out_printf(o, "%40s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s\n",
			       "class name", "con-bounces", "contentions", "waittime-min",
			       "waittime-max", "waittime-total", "waittime-avg", "acq-bounces",
			       "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total",
			       "holdtime-avg");
		lock_stat_line(o, '-');
		sim_out_printf(o, "\n");
		for (i = 0; i < n; i++) {
			const struct sim_lock_result *l = sorted[i];
			const char *name = sim_lock_kernel_name(l->name);
			bool both = l->rwsem && l->side[0].acquisitions && l->side[1].acquisitions;

			for (k = 0; k < (l->rwsem ? 2 : 1); k++) {
				const struct sim_lock_side *sd = &l->side[k];

				if (!sd->acquisitions)
					continue;
				if (!l->rwsem || (k == 0 && !both))
					sim_out_printf(o, "%40s:", name);
				else
					sim_out_printf(o, "%38s-%c:", name, k ? 'R' : 'W');
				sim_out_printf(o, "%14u ", 0u);
				lock_stat_lt(o, sd->contentions, sd->wait_min, sd->wait_max,
					     sd->wait_total);
				sim_out_printf(o, " %14u ", 0u);
				lock_stat_lt(o, sd->acquisitions, sd->hold_min, sd->hold_max,
					     sd->hold_total);
				sim_out_printf(o, "\n");
			}
			lock_stat_line(o, '.');
			sim_out_printf(o, "\n");
		}
	}
}

/**
 * sim_print_interrupts() - the per-CPU CAL and TLB rows of /proc/interrupts
 * @o: the sink
 * @r: the results
 *
 * The kernel counts function-call interrupts (irq_stat.irq_call_count) and
 * TLB shootdowns (irq_stat.irq_tlb_count) per CPU, and /proc/interrupts
 * prints them so: a CPUn header, then "CAL:" and "TLB:" rows with one
 * column per CPU (show_interrupts(), arch_show_interrupts(), which print
 * CAL before TLB).  One block per variant that had any.
 */
void sim_print_interrupts(struct sim_out *o, const struct sim_report *r)
{
	int v, cpu;

	for (v = 0; v < r->nr_res; v++) {
		const struct sim_variant_result *res = &r->res[v];
		uint64_t any = 0;

		for (cpu = 0; cpu < res->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
			any += res->irq_tlb[cpu] + res->irq_call[cpu];
		if (!any)
			continue;
		sim_out_printf(o, "\ninterrupts: %s (/proc/interrupts)\n%*s", res->name, 3 + 8, "");
		for (cpu = 0; cpu < res->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
			sim_out_printf(o, "CPU%-8d", cpu);
		sim_out_printf(o, "\n%*s: ", 3, "CAL");
		for (cpu = 0; cpu < res->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
			sim_out_printf(o, "%10u ", res->irq_call[cpu]);
		sim_out_printf(o, "  Function call interrupts\n%*s: ", 3, "TLB");
		for (cpu = 0; cpu < res->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
			sim_out_printf(o, "%10u ", res->irq_tlb[cpu]);
		sim_out_printf(o, "  TLB shootdowns\n");
	}
}

/**
 * sim_print_vmstat() - the vmstat counters of each variant as /proc/vmstat
 * @o: the sink
 * @r: the results
 *
 * "name value" lines, zeros included, for the counters the kernel keeps in
 * /proc/vmstat (SIM_PGFAULT to SIM_THP_SCAN_EXCEED_SHARE_PTE in
 * SIM_COUNTERS), in that order, after a "# VARIANT" line.
 */
void sim_print_vmstat(struct sim_out *o, const struct sim_report *r)
{
	int v, c;

	for (v = 0; v < r->nr_res; v++) {
		sim_out_printf(o, "\n# vmstat: %s\n", r->res[v].name);
		for (c = SIM_PGFAULT; c <= SIM_THP_SCAN_EXCEED_SHARE_PTE; c++)
			sim_out_printf(o, "%s %" PRIu64 "\n", sim_counter_names[c],
				       r->res[v].counters[c]);
	}
}

/**
 * sim_print_counters() - the counters of the run
 * @o: the sink
 * @r: the results
 *
 * One row per counter that is non-zero in at least one variant, in the
 * order of SIM_COUNTERS; one column per variant.  Prints nothing when
 * every counter is zero.
 */
void sim_print_counters(struct sim_out *o, const struct sim_report *r)
{
	struct out_table *t = calloc(1, sizeof(*t));
	int c, v, row = 1;

	if (!t) {
		o->failed = true;
		return;
	}
	table_set(t, 0, 0, "counter");
	for (v = 0; v < r->nr_res; v++)
		table_set(t, 0, 1 + v, "%s", r->res[v].name);
	for (c = 0; c < NR_SIM_COUNTERS; c++) {
		bool any = false;

		for (v = 0; v < r->nr_res; v++)
			any |= r->res[v].counters[c] != 0;
		if (!any)
			continue;
		table_set(t, row, 0, "%s", sim_counter_names[c]);
		for (v = 0; v < r->nr_res; v++)
			table_set(t, row, 1 + v, "%" PRIu64, r->res[v].counters[c]);
		row++;
	}
	if (row > 1) {
		sim_out_write(o, "\n", 1);
		table_print(t, o);
	}
	free(t);
}

/**
 * sim_print_header() - the effective options of a run
 * @o: the sink
 * @r: the results (only the configuration and the variant names are used)
 *
 * Prints the version, scenario, profile, seed, variants, every parameter
 * with its unit and meaning, and the command line that repeats the run.
 */
void sim_print_header(struct sim_out *o, const struct sim_report *r)
{
	const struct sim_run_config *cfg = r->cfg;
	const struct scenario_ops *s = cfg->scenario;
	const char *prof = cfg->profile ? cfg->profile->origin : "-";
	char val[64];
	size_t w = 0;
	int i;

	sim_out_printf(o, "mmsim %s: scenario %s, profile %s, seed %" PRIu64 "\n",
		       MMSIM_VERSION, s->name, prof, cfg->seed);
	if (cfg->profile && cfg->profile->overrides[0])
		sim_out_printf(o, "profile overrides: %s\n", cfg->profile->overrides);
	sim_out_printf(o, "variants:");
	for (i = 0; i < r->nr_res; i++)
		sim_out_printf(o, " %s", r->res[i].name);
	sim_out_printf(o, "\n");
	for (i = 0; s->params && s->params[i].key; i++)
		if (strlen(s->params[i].key) > w)
			w = strlen(s->params[i].key);
	for (i = 0; s->params && s->params[i].key; i++) {
		sim_param_format(&s->params[i], cfg->params[i], val, sizeof(val));
		sim_out_printf(o, "  %-*s = %-10s %s\n", (int)w, s->params[i].key,
			       val, s->params[i].help ? s->params[i].help : "");
	}
	sim_out_printf(o, "repeat: mmsim run %s --profile %s --seed %" PRIu64,
		       sim_scenario_arg(s), prof, cfg->seed);
	for (i = 0; s->params && s->params[i].key; i++) {
		sim_param_format(&s->params[i], cfg->params[i], val, sizeof(val));
		sim_out_printf(o, " --set %s=%s", s->params[i].key, val);
	}
	if (cfg->profile && cfg->profile->overrides[0]) {
		const char *q = cfg->profile->overrides, *sp;

		while (*q) {
			sp = strchr(q, ' ');
			sim_out_printf(o, " --cost %.*s", (int)(sp ? sp - q : (long)strlen(q)), q);
			q = sp ? sp + 1 : q + strlen(q);
		}
	}
	if (cfg->check)
		sim_out_printf(o, " --check");
	sim_out_printf(o, "\n\n");
}

/**
 * sim_print_csv() - the results as CSV
 * @o: the sink
 * @r: the results
 * @header: start with the row "scenario,variant,metric,value"
 *
 * Optionally a header row, then one row per variant
 * and metric, in column then metric order.  Values use "%.15g"; a metric
 * the variant did not set has an empty value.  Names are snake_case, so
 * nothing needs quoting.
 */
void sim_print_csv(struct sim_out *o, const struct sim_report *r, bool header)
{
	const struct scenario_ops *s = r->cfg->scenario;
	int v, m;

	if (header)
		sim_out_printf(o, "scenario,variant,metric,value\n");
	for (v = 0; v < r->nr_res; v++)
		for (m = 0; s->metrics[m].key && m < SIM_MAX_METRICS; m++) {
			sim_out_printf(o, "%s,%s,%s,", s->name, r->res[v].name,
				       s->metrics[m].key);
			if (r->res[v].has_metric[m])
				sim_out_printf(o, "%.15g", r->res[v].metrics[m]);
			sim_out_printf(o, "\n");
		}
}
