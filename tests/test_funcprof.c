// SPDX-License-Identifier: GPL-2.0-only
/*
 * --report functions (src/engine/funcprof.c): virtual CPU time by span,
 * self and children, as `perf report --children`.
 *
 * First by hand on the test machine of engine_util.h (1 cycle = 1 ns, a
 * context switch 1000 ns, lock RMW 10 ns, a line 50 ns from the same
 * socket, PAUSE 0): nested and recursive spans, a lock wait as "spin: a"
 * under the function that took the lock (its hold counts to nobody), a
 * span across a sleep (only its CPU time), an interrupt on an idle vCPU.
 * Then through the binary: a 1-thread deferred-split round, its JSON and
 * its table, and that the output without --report is unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>
#include <sys/wait.h>

#include "engine_util.h"
#include "mmsim/funcprof.h"
#include "mmsim/hw.h"
#include "mmsim/scenario.h"
#include "mmsim/trace.h"
#include "run_json.h"

#define NS(t) ((uint64_t)(t) * SIM_NS)

static struct sim_profile prof;
static struct sim_functions fns;

static struct sim_engine *new_engine(int cpus)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = cpus, .seed = 1 };

	test_profile(&prof, 2, 2, 1);
	return sim_engine_create(&o);
}

/* Run @e with the report on; its rows in fns. */
static void run_reported(struct sim_engine *e)
{
	sim_funcprof_start();
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	sim_funcprof_stop();
	assert_int_equal(sim_funcprof_collect(&fns), 0);
}

/* The row of @name (a lock wait: @wait), or NULL. */
static const struct sim_function_row *row(const char *name, bool wait)
{
	int i;

	for (i = 0; i < fns.nr; i++)
		if (!strcmp(fns.rows[i].name, name) && fns.rows[i].lock_wait == wait)
			return &fns.rows[i];
	return NULL;
}

/* Every row: self <= children; self sums to the total; sorted by children. */
static void check_invariants(void)
{
	uint64_t self = 0;
	int i;

	assert_int_equal(fns.nr_left_out, 0);
	assert_int_equal(fns.dropped, 0);
	for (i = 0; i < fns.nr; i++) {
		assert_true(fns.rows[i].self_ps <= fns.rows[i].children_ps);
		assert_true(fns.rows[i].children_ps <= fns.cpu_ps);
		if (i)
			assert_true(fns.rows[i].children_ps <= fns.rows[i - 1].children_ps);
		self += fns.rows[i].self_ps;
	}
	assert_int_equal(self, fns.cpu_ps);
}

static void expect(const char *name, bool wait, uint64_t calls, uint64_t self, uint64_t children)
{
	const struct sim_function_row *r = row(name, wait);

	assert_non_null(r);
	assert_int_equal(r->calls, calls);
	assert_int_equal(r->self_ps, self);
	assert_int_equal(r->children_ps, children);
}

/* ---- nested and recursive spans on one vCPU ----------------------------- */

/*
 *   other 30 | A: 100 [B: 50 [A: 10]] 20 |
 * A runs 180 ns from its outer begin to its end: children 180 once (the
 * inner A is inside the outer), self 100 + 10 + 20; B: 60 and 50.
 */
static void nested_task(void *arg)
{
	sim_cost_ns(30);
	sim_trace_begin("mm", "A");
	sim_cost_ns(100);
	sim_trace_begin("mm", "B");
	sim_cost_ns(50);
	sim_trace_begin("mm", "A");
	sim_cost_ns(10);
	sim_trace_end();
	sim_trace_end();
	sim_cost_ns(20);
	sim_trace_end();
}

static void test_nested(void **state)
{
	struct sim_engine *e = new_engine(1);

	sim_task_create(e, 0, "t", nested_task, NULL);
	run_reported(e);
	check_invariants();
	assert_int_equal(fns.cpu_ps, NS(210));
	assert_int_equal(fns.spin_ps, 0);
	assert_int_equal(fns.nr, 3);			/* A, B, [other] */
	expect("A", false, 2, NS(130), NS(180));
	expect("B", false, 1, NS(50), NS(60));
	expect("[other]", false, 0, NS(30), NS(30));
	assert_string_equal(fns.rows[0].name, "A");	/* by children */
	assert_null(row("C", false));			/* never begun: absent */
	sim_engine_destroy(e);
}

/* ---- a lock wait under the function that took the lock ------------------- */

static struct spinlock lock_a;

static void lock_task(void *arg)
{
	sim_trace_begin("mm", "X");
	spin_lock(&lock_a);
	sim_cost_ns(100);
	spin_unlock(&lock_a);
	sim_trace_end();
}

/*
 * test_engine.c's two_cpus_interleave inside a span X: cpu0 owns the lock
 * at 11 (RMW 10, first touch 1) and releases it at 111; cpu1 spins from 0
 * to 171 (hand-off: transfer 50 + RMW 10) and releases at 271.  X: 111 +
 * 271; "spin: a" 171, a child of X; the holds count to X, not to a row.
 */
static void test_lock_wait(void **state)
{
	struct sim_engine *e = new_engine(2);

	spin_lock_init_named(&lock_a, "a");
	sim_task_create(e, 0, "t0", lock_task, NULL);
	sim_task_create(e, 1, "t1", lock_task, NULL);
	run_reported(e);
	check_invariants();
	assert_int_equal(fns.cpu_ps, NS(382));
	assert_int_equal(fns.spin_ps, NS(171));
	expect("X", false, 2, NS(211), NS(382));
	expect("a", true, 1, NS(171), NS(171));
	assert_int_equal(sim_lock_class(e, "a")->wait_total, NS(171));
	assert_null(row("a", false));		/* no "hold a" row */
	expect("[other]", false, 0, 0, 0);
	assert_int_equal(fns.nr, 3);
	sim_engine_destroy(e);
}

/* ---- a span across a sleep counts only its CPU time ---------------------- */

static void sleeper(void *arg)
{
	sim_trace_begin("mm", "S");
	sim_cost_ns(100);
	sim_sleep_ps(SIM_MS);
	sim_cost_ns(100);
	sim_trace_end();
}

static void other_task(void *arg)
{
	sim_trace_begin("mm", "T");
	sim_cost_ns(500);
	sim_trace_end();
}

/*
 * One vCPU.  The sleeper runs 100 ns in S and sleeps; the other task is
 * switched in (1000 ns, its own: "[other]") and runs T for 500 ns; the
 * sleeper wakes on the idle vCPU at 1 ms + 100 ns, is switched in (1000
 * ns, inside S, as the kernel's schedule() under the function that
 * slept) and runs 100 ns.  S: 1200 ns, not the millisecond it slept.
 */
static void test_sleep_in_span(void **state)
{
	struct sim_engine *e = new_engine(1);

	sim_task_create(e, 0, "sleeper", sleeper, NULL);
	sim_task_create(e, 0, "other", other_task, NULL);
	run_reported(e);
	check_invariants();
	assert_int_equal(fns.cpu_ps, NS(2700));
	expect("S", false, 1, NS(1200), NS(1200));
	expect("T", false, 1, NS(500), NS(500));
	expect("[other]", false, 0, NS(1000), NS(1000));
	sim_engine_destroy(e);
}

/* ---- an interrupt on an idle vCPU ------------------------------------------ */

static void ipi_func(void *info)
{
	sim_trace_begin("mm", "F");
	sim_cost_ns(40);
	sim_trace_end();
}

static void ipi_sender(void *arg)
{
	struct cpumask mask;

	cpumask_clear(&mask);
	cpumask_set_cpu(1, &mask);
	smp_call_function_many_cond(&mask, ipi_func, NULL, true, NULL, false, false);
}

/*
 * cpu1 is idle: it takes the IPI (entry and exit 300 ns, "[other]") and
 * runs F (40 ns) in "ipi handler"; both are CPU time of the total, though
 * no task of cpu1's ran.
 */
static void test_idle_interrupt(void **state)
{
	struct sim_engine *e = new_engine(2);
	const struct sim_function_row *h;
	uint64_t busy;

	sim_task_create(e, 0, "sender", ipi_sender, NULL);
	run_reported(e);
	check_invariants();
	busy = sim_engine_vcpu(e, 0)->busy_ps + sim_engine_vcpu(e, 1)->busy_ps;
	assert_int_equal(fns.cpu_ps, busy);
	assert_int_equal(sim_engine_vcpu(e, 1)->busy_ps, NS(340));
	expect("F", false, 1, NS(40), NS(40));
	h = row("ipi handler", false);
	assert_non_null(h);
	assert_int_equal(h->self_ps, 0);
	assert_int_equal(h->children_ps, NS(40));
	assert_non_null(row("send and wait", false));
	sim_engine_destroy(e);
}

/* ---- through the binary ------------------------------------------------------ */

#define ONE_THREAD "run deferred-split --set threads=1 --set rounds=1 --set region=1M"

static json_t *fn_named(json_t *fa, const char *name)
{
	size_t i;
	json_t *f;

	json_array_foreach(fa, i, f)
		if (!strcmp(json_string_value(json_object_get(f, "function")), name))
			return f;
	return NULL;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_number(v));
	return json_number_value(v);
}

/*
 * A 1-thread round: handle_mm_fault's children hold do_anonymous_page's,
 * which hold folio_zero_user's; the self times sum to the total; nothing
 * spins; the unqueued kernel never calls deferred_split_folio.
 */
static void test_cli_json(void **state)
{
	json_t *doc = run_json(MMSIM_BIN, ONE_THREAD " --report functions");
	json_t *vs = json_object_get(doc, "variants"), *v;
	size_t i, k;

	assert_int_equal(json_array_size(vs), 3);
	json_array_foreach(vs, i, v) {
		json_t *fa = json_object_get(v, "functions"), *f, *hmf, *dap, *fzu;
		double cpu = num(v, "cpu_time_s"), self = 0, pct = 0;
		const char *name = json_string_value(json_object_get(v, "name"));

		assert_true(json_is_array(fa));
		assert_true(cpu > 0);
		json_array_foreach(fa, k, f) {
			assert_true(num(f, "self_s") <= num(f, "children_s"));
			assert_null(strstr(json_string_value(json_object_get(f, "function")),
					   "spin: "));
			self += num(f, "self_s");
			pct += num(f, "self_pct");
		}
		assert_true(self > cpu * (1 - 1e-9) && self < cpu * (1 + 1e-9));
		assert_true(pct > 99.999 && pct < 100.001);
		assert_true(num(v, "spinning_s") == 0);
		/* one vCPU: its busy time is at most the makespan */
		assert_true(cpu <= num(json_object_get(v, "metrics"), "runtime_s") * (1 + 1e-9));
		hmf = fn_named(fa, "handle_mm_fault");
		dap = fn_named(fa, "do_anonymous_page");
		fzu = fn_named(fa, "folio_zero_user");
		assert_non_null(hmf);
		assert_non_null(dap);
		assert_non_null(fzu);
		assert_true(num(hmf, "children_s") >= num(hmf, "self_s"));
		assert_true(num(hmf, "children_s") >= num(dap, "children_s"));
		assert_true(num(dap, "children_s") >= num(fzu, "children_s"));
		assert_true(num(hmf, "calls") == num(dap, "calls"));
		assert_true(num(hmf, "calls") == 64);	/* 1 MiB of 16K mTHP */
		if (!strcmp(name, "unqueued"))
			assert_null(fn_named(fa, "deferred_split_folio"));
		else
			assert_non_null(fn_named(fa, "deferred_split_folio"));
	}
	json_decref(doc);
}

/* The text of `BIN ARGS`, without its "host time:" line. */
static char *run_text(const char *args)
{
	char cmd[1024], *buf = NULL, line[4096];
	size_t len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", MMSIM_BIN, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	buf = calloc(1, 1);
	while (fgets(line, sizeof(line), p)) {
		size_t n = strlen(line);

		if (!strncmp(line, "host time:", 10))
			continue;
		buf = realloc(buf, len + n + 1);
		memcpy(buf + len, line, n + 1);
		len += n;
	}
	assert_int_equal(pclose(p), 0);
	return buf;
}

/*
 * With --report the text is the text without it, and the tables just
 * before the host time line: nothing else moves.  Each table's self %
 * column sums to 100 within the rounding of its rows.
 */
static void test_cli_text(void **state)
{
	char *plain = run_text(ONE_THREAD " --jobs 1");
	char *rep = run_text(ONE_THREAD " --jobs 1 --report functions");
	char *first = strstr(rep, "\nfunctions: unqueued ("), *p;
	int tables = 0;

	assert_non_null(first);
	/* the tables come last (the host time line is taken out) */
	assert_int_equal((size_t)(first - rep), strlen(plain) - 1);
	assert_memory_equal(plain, rep, strlen(plain) - 1);
	for (p = first; (p = strstr(p, "\nfunctions: ")); tables++) {
		double sum = 0, c, s;
		int rows = 0;

		p = strchr(p + 1, '\n') + 1;
		assert_int_equal(strncmp(p, "children %    self %  children (s)      self (s)"
					 "       calls  function\n", 71), 0);
		p = strchr(p, '\n') + 1;
		while (sscanf(p, " %lf%% %lf%%", &c, &s) == 2) {
			assert_true(s <= c);
			sum += s;
			rows++;
			p = strchr(p, '\n') + 1;
		}
		assert_true(rows > 3);
		assert_true(sum > 100 - 0.005 * rows && sum < 100 + 0.005 * rows);
	}
	assert_int_equal(tables, 3);
	free(plain);
	free(rep);
}

/* --report's value, and --seeds, are checked before anything runs. */
static void test_cli_bad_input(void **state)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s " ONE_THREAD " --report calls > /dev/null 2>&1", MMSIM_BIN);
	assert_int_equal(WEXITSTATUS(system(cmd)), 2);
	snprintf(cmd, sizeof(cmd), "%s " ONE_THREAD " --report functions --seeds 2 > /dev/null 2>&1",
		 MMSIM_BIN);
	assert_int_equal(WEXITSTATUS(system(cmd)), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_lock_wait),
		cmocka_unit_test(test_sleep_in_span),
		cmocka_unit_test(test_idle_interrupt),
		cmocka_unit_test(test_cli_json),
		cmocka_unit_test(test_cli_text),
		cmocka_unit_test(test_cli_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
