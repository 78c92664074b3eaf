// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim run --trace`: the file is Chrome trace-event JSON that Perfetto
 * opens, its spans are well nested on every vCPU's track, --trace-limit
 * holds and says so, and the same options give the same bytes; every IPI
 * function call has a flow from its send to its handler, the LRU sizes
 * and the lock queues are counter tracks, spans carry their task, lock and
 * folio count; reclaim and khugepaged have their trace points.
 *
 * Runs the mmsim binary of this build on a small deferred-split (8
 * threads, 2 rounds of 1 MiB) and parses the file with jansson.  Times
 * are compared as integer picoseconds: the file prints microseconds with
 * six decimals, exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmsim/scenario.h"	/* SIM_MAX_VARIANTS */

#define SMALL "run deferred-split --set threads=8 --set rounds=2 --set region=1M --set workers=threads --quiet"

struct span {
	int64_t start, end;		/* ps */
	int tid;
};

static char tmpdir[256];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mmsim-trace-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Run mmsim with @args; its standard error goes to @err_path. */
static int run(const char *args, const char *err_path)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s %s > /dev/null 2> %s", MMSIM_BIN, args, err_path);
	return system(cmd);
}

static int64_t us_to_ps(json_t *v)
{
	assert_true(json_is_number(v));
	return (int64_t)llround(json_number_value(v) * 1e6);
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid - y->tid;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;	/* the outer span first */
	return 0;
}

/*
 * Check the document's shape and nesting; returns the number of events
 * recorded (complete, flow and counter events: what --trace-limit counts)
 * and sets *stopped if the limit metadata event is there.
 */
static size_t check_trace(const char *path, bool *stopped, bool *has_lock,
			  bool *has_ipi, bool *has_mm)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr), *evs, *ev;
	struct span *sp, *stack[256];
	static bool named[SIM_MAX_VARIANTS + 1][1024];
	size_t i, n = 0, depth = 0, others = 0;

	if (!doc)
		fail_msg("%s: %s at line %d", path, jerr.text, jerr.line);
	evs = json_object_get(doc, "traceEvents");
	assert_true(json_is_array(evs));
	sp = calloc(json_array_size(evs) + 1, sizeof(*sp));
	assert_non_null(sp);
	memset(named, 0, sizeof(named));
	*stopped = *has_lock = *has_ipi = *has_mm = false;
	json_array_foreach(evs, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *name = json_string_value(json_object_get(ev, "name"));
		json_int_t tid = json_integer_value(json_object_get(ev, "tid"));
		json_int_t pid = json_integer_value(json_object_get(ev, "pid"));

		assert_non_null(ph);
		assert_non_null(name);
		/* one process per variant run, pid 1, 2, ... in the run's order */
		assert_true(pid >= 1 && pid <= SIM_MAX_VARIANTS);
		assert_true(tid >= 0 && tid < 1024);
		if (!strcmp(ph, "M")) {
			if (!strcmp(name, "thread_name"))
				named[pid][tid] = true;
			if (!strcmp(name, "mmsim_trace_stopped"))
				*stopped = true;
			continue;
		}
		if (!strcmp(ph, "C")) {
			/* a counter: process-wide, one value, never negative here */
			assert_true(json_is_integer(json_object_get(json_object_get(ev, "args"),
								   "value")));
			assert_true(json_integer_value(json_object_get(json_object_get(ev, "args"),
								      "value")) >= 0);
			others++;
			continue;
		}
		assert_non_null(json_string_value(json_object_get(ev, "cat")));
		if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			assert_true(json_integer_value(json_object_get(ev, "id")) > 0);
			if (!strcmp(ph, "f"))
				assert_string_equal(json_string_value(json_object_get(ev, "bp")), "e");
			assert_true(named[pid][tid]);	/* on a vCPU's track */
			others++;
			continue;
		}
		assert_string_equal(ph, "X");
		sp[n].tid = (int)(pid * 1024 + tid);	/* a track: one vCPU of one process */
		sp[n].start = us_to_ps(json_object_get(ev, "ts"));
		sp[n].end = sp[n].start + us_to_ps(json_object_get(ev, "dur"));
		assert_true(sp[n].end >= sp[n].start);
		*has_lock |= !strncmp(name, "wait ", 5) || !strncmp(name, "hold ", 5);
		*has_ipi |= !strncmp(name, "ipi handler", 11) || !strncmp(name, "send and wait", 13);
		*has_mm |= !strcmp(name, "handle_mm_fault") || !strcmp(name, "vm_munmap");
		n++;
	}
	/* Well nested: on each track, a span starting inside another ends inside it. */
	qsort(sp, n, sizeof(*sp), cmp_span);
	for (i = 0; i < n; i++) {
		assert_true(named[sp[i].tid / 1024][sp[i].tid % 1024]);
		if (i && sp[i].tid != sp[i - 1].tid)
			depth = 0;
		while (depth && stack[depth - 1]->end <= sp[i].start &&
		       !(stack[depth - 1]->end == sp[i].start &&
			 stack[depth - 1]->start == sp[i].start))
			depth--;
		if (depth && sp[i].end > stack[depth - 1]->end)
			fail_msg("vCPU %d: span [%lld, %lld] ps crosses [%lld, %lld] ps", sp[i].tid,
				 (long long)sp[i].start, (long long)sp[i].end,
				 (long long)stack[depth - 1]->start, (long long)stack[depth - 1]->end);
		assert_true(depth < 256);
		stack[depth++] = &sp[i];
	}
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "otherData"),
							    "events")), n + others);
	free(sp);
	json_decref(doc);
	return n + others;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_trace_valid_nested(void **state)
{
	char args[1024], path[512], err[512], *text, *p1, *p2, *p3;
	bool stopped, lock, ipi, mm;
	size_t n;

	snprintf(path, sizeof(path), "%s/t.json", tmpdir);
	snprintf(err, sizeof(err), "%s/err.txt", tmpdir);
	snprintf(args, sizeof(args), SMALL " --trace %s", path);
	assert_int_equal(run(args, err), 0);
	/* three variants: one file, a process each, named after its variant, in order */
	n = check_trace(path, &stopped, &lock, &ipi, &mm);
	assert_true(n > 3000);
	assert_false(stopped);
	assert_true(lock);
	assert_true(ipi);
	assert_true(mm);
	text = slurp(path);
	p1 = strstr(text, "\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":"
			  "\"mmsim deferred-split unqueued");
	p2 = strstr(text, "\"pid\":2,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":"
			  "\"mmsim deferred-split before");
	p3 = strstr(text, "\"pid\":3,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":"
			  "\"mmsim deferred-split after");
	assert_true(p1 && p2 && p3 && p1 < p2 && p2 < p3);
	free(text);
	snprintf(path, sizeof(path), "%s/t.before.json", tmpdir);	/* no file per variant */
	assert_int_equal(access(path, F_OK), -1);
}

static void test_trace_limit(void **state)
{
	char args[1024], path[512], err[512], *text;
	bool stopped, lock, ipi, mm;

	snprintf(path, sizeof(path), "%s/l.json", tmpdir);
	snprintf(err, sizeof(err), "%s/err.txt", tmpdir);
	snprintf(args, sizeof(args), SMALL " --variant after --trace %s --trace-limit 300", path);
	assert_int_equal(run(args, err), 0);
	assert_int_equal(check_trace(path, &stopped, &lock, &ipi, &mm), 300);
	assert_true(stopped);
	text = slurp(err);
	assert_non_null(strstr(text, "stopped recording after 300 events (--trace-limit)"));
	free(text);
}

static void test_trace_deterministic(void **state)
{
	char args[1024], a[512], b[512], err[512], *ta, *tb;

	snprintf(a, sizeof(a), "%s/a.json", tmpdir);
	snprintf(b, sizeof(b), "%s/b.json", tmpdir);
	snprintf(err, sizeof(err), "%s/err.txt", tmpdir);
	snprintf(args, sizeof(args), SMALL " --variant before --trace %s", a);
	assert_int_equal(run(args, err), 0);
	snprintf(args, sizeof(args), SMALL " --variant before --trace %s", b);
	assert_int_equal(run(args, err), 0);
	ta = slurp(a);
	tb = slurp(b);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
}

static void test_trace_bad_input(void **state)
{
	char err[512], *text;

	snprintf(err, sizeof(err), "%s/err.txt", tmpdir);
	assert_int_equal(WEXITSTATUS(run(SMALL " --trace /nonexistent-dir/t.json", err)), 2);
	text = slurp(err);
	assert_non_null(strstr(text, "mmsim: error: --trace /nonexistent-dir/t.json"));
	free(text);
	assert_int_equal(WEXITSTATUS(run(SMALL " --trace t.json --trace-limit 0", err)), 2);
	text = slurp(err);
	assert_non_null(strstr(text, "mmsim: error: --trace-limit"));
	free(text);
}

/* A span of one track, for the flow checks. */
struct xspan {
	json_int_t pid, tid;
	int64_t start, end;		/* ps */
	const char *name;
};

/* Whether a span named @prefix... on (@pid, @tid) holds time @t (ps); @at_start: begins at it. */
static bool in_span(const struct xspan *x, size_t nx, json_int_t pid, json_int_t tid, int64_t t,
		    const char *prefix, bool at_start)
{
	size_t i;

	for (i = 0; i < nx; i++)
		if (x[i].pid == pid && x[i].tid == tid && !strncmp(x[i].name, prefix, strlen(prefix)) &&
		    (at_start ? x[i].start == t : x[i].start <= t && t <= x[i].end))
			return true;
	return false;
}

/*
 * deferred-split's munmaps flush TLBs by IPI: each queued function call
 * is one flow, its start ("s") inside the sender's "send and wait" span,
 * its end ("f") at the start of the target's "ipi handler" span, so that
 * Perfetto draws an arrow per IPI.  The LRU and lru_lock queue counters
 * are tracks; a lock span names its lock and task.
 */
static void test_trace_flows_counters_args(void **state)
{
	char args[1024], path[512], err[512];
	json_t *doc, *evs, *ev;
	json_error_t jerr;
	struct xspan *x;
	size_t i, j, nx = 0, nr_s = 0, nr_f = 0, nr_handlers = 0, nr_lru = 0, nr_queue = 0;
	json_int_t queue_last = -1;
	bool lock_args = false;

	snprintf(path, sizeof(path), "%s/f.json", tmpdir);
	snprintf(err, sizeof(err), "%s/err.txt", tmpdir);
	snprintf(args, sizeof(args), SMALL " --variant before --trace %s", path);
	assert_int_equal(run(args, err), 0);
	doc = json_load_file(path, 0, &jerr);
	if (!doc)
		fail_msg("%s: %s at line %d", path, jerr.text, jerr.line);
	evs = json_object_get(doc, "traceEvents");
	x = calloc(json_array_size(evs), sizeof(*x));
	assert_non_null(x);
	json_array_foreach(evs, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *name = json_string_value(json_object_get(ev, "name"));
		json_t *a = json_object_get(ev, "args");

		if (!strcmp(ph, "X")) {
			x[nx].pid = json_integer_value(json_object_get(ev, "pid"));
			x[nx].tid = json_integer_value(json_object_get(ev, "tid"));
			x[nx].start = us_to_ps(json_object_get(ev, "ts"));
			x[nx].end = x[nx].start + us_to_ps(json_object_get(ev, "dur"));
			x[nx].name = name;
			nr_handlers += !strncmp(name, "ipi handler", 11);
			if (!strcmp(name, "hold lru_lock")) {
				const char *task = json_string_value(json_object_get(a, "task"));

				assert_string_equal(json_string_value(json_object_get(a, "lock")),
						    "lru_lock");
				assert_non_null(task);
				assert_non_null(strchr(task, '/'));	/* "comm/pid" */
				lock_args = true;
			}
			nx++;
		} else if (!strcmp(ph, "C")) {
			nr_lru += !strncmp(name, "nr_inactive_anon", 16);
			if (!strcmp(name, "queue lru_lock")) {
				nr_queue++;
				queue_last = json_integer_value(json_object_get(a, "value"));
			}
		}
	}
	assert_true(lock_args);
	assert_true(nr_lru > 0);
	assert_true(nr_queue > 0);
	assert_int_equal(queue_last, 0);	/* every waiter got the lock */
	assert_true(nr_handlers > 0);
	/* one "s" and one "f" per id; as many as handlers ran; bound to their spans */
	json_array_foreach(evs, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		json_int_t id = json_integer_value(json_object_get(ev, "id"));
		json_int_t pid = json_integer_value(json_object_get(ev, "pid"));
		json_int_t tid = json_integer_value(json_object_get(ev, "tid"));
		int64_t t;
		size_t ends = 0;
		json_t *e2;

		if (strcmp(ph, "s") && strcmp(ph, "f"))
			continue;
		t = us_to_ps(json_object_get(ev, "ts"));
		if (!strcmp(ph, "f")) {
			nr_f++;
			assert_true(in_span(x, nx, pid, tid, t, "ipi handler", true));
			continue;
		}
		nr_s++;
		assert_true(in_span(x, nx, pid, tid, t, "send and wait", false));
		json_array_foreach(evs, j, e2)
			if (!strcmp(json_string_value(json_object_get(e2, "ph")), "f") &&
			    json_integer_value(json_object_get(e2, "id")) == id) {
				ends++;
				assert_string_equal(json_string_value(json_object_get(e2, "name")),
						    json_string_value(json_object_get(ev, "name")));
				assert_true(json_integer_value(json_object_get(e2, "tid")) != tid);
			}
		assert_int_equal(ends, 1);
	}
	assert_int_equal(nr_s, nr_handlers);
	assert_int_equal(nr_f, nr_handlers);
	free(x);
	json_decref(doc);
}

/* How many complete events named @name the trace at @path has; @arg: one has it, > 0. */
static size_t count_spans(const char *path, const char *name, const char *arg)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr), *ev;
	size_t i, n = 0;
	bool has_arg = !arg;

	if (!doc)
		fail_msg("%s: %s at line %d", path, jerr.text, jerr.line);
	json_array_foreach(json_object_get(doc, "traceEvents"), i, ev) {
		if (strcmp(json_string_value(json_object_get(ev, "ph")), "X") ||
		    strcmp(json_string_value(json_object_get(ev, "name")), name))
			continue;
		n++;
		if (arg && json_integer_value(json_object_get(json_object_get(ev, "args"), arg)) > 0)
			has_arg = true;
	}
	json_decref(doc);
	assert_true(has_arg);
	return n;
}

/* Reclaim's and khugepaged's trace points (docs/trace.md), in small runs. */
static void test_trace_reclaim_khugepaged(void **state)
{
	char args[1024], path[512], err[512];
	bool stopped, lock, ipi, mm;

	snprintf(path, sizeof(path), "%s/r.json", tmpdir);
	snprintf(err, sizeof(err), "%s/err.txt", tmpdir);
	snprintf(args, sizeof(args), "run reclaim-tlb --set workers=4 --set vm_bytes=64M "
		 "--set memcg_limit=16M --set swap=256M --set duration=20ms --variant before "
		 "--quiet --trace %s", path);
	assert_int_equal(run(args, err), 0);
	assert_true(check_trace(path, &stopped, &lock, &ipi, &mm) > 0);
	assert_true(count_spans(path, "shrink_folio_list", "folios") > 0);
	assert_true(count_spans(path, "shrink_node", NULL) > 0);
	assert_true(count_spans(path, "try_to_unmap_flush", NULL) > 0);

	snprintf(path, sizeof(path), "%s/k.json", tmpdir);
	snprintf(args, sizeof(args), "run khugepaged-cold --set task_size=4M --set accesses=1000 "
		 "--set measure_after=1s --set scan_sleep=10ms --set first_wake=1ms --quiet "
		 "--trace %s", path);
	assert_int_equal(run(args, err), 0);
	assert_true(check_trace(path, &stopped, &lock, &ipi, &mm) > 0);
	assert_true(count_spans(path, "hpage_collapse_scan_pmd", NULL) > 0);
	assert_true(count_spans(path, "collapse_huge_page", NULL) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_valid_nested),
		cmocka_unit_test(test_trace_limit),
		cmocka_unit_test(test_trace_deterministic),
		cmocka_unit_test(test_trace_bad_input),
		cmocka_unit_test(test_trace_flows_counters_args),
		cmocka_unit_test(test_trace_reclaim_khugepaged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
