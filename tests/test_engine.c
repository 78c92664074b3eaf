// SPDX-License-Identifier: GPL-2.0-only
/*
 * Engine tests with answers worked out by hand on the test machine of
 * engine_util.h (1 cycle = 1 ns; lock RMW 10 ns; a line costs 1 ns if this
 * CPU wrote it last, 50 ns from the same socket, 100 ns from the other;
 * PAUSE 0, so a hand-off costs transfer + 10 ns).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "mmsim/hw.h"
#include "mmsim/scenario.h"

static struct sim_profile prof;

static struct sim_engine *new_engine(int sockets, int cores, int threads, int cpus)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = cpus, .seed = 1 };

	test_profile(&prof, sockets, cores, threads);
	return sim_engine_create(&o);
}

#define NS(t) ((t) * SIM_NS)

/* ---- a log of (cpu, what, time) -------------------------------------- */
struct ev { int cpu; char what; sim_time_t t; };
static struct ev evlog[64];
static int nr_ev;
static void logev(char what)
{
	evlog[nr_ev].cpu = smp_processor_id();
	evlog[nr_ev].what = what;
	evlog[nr_ev].t = sim_now();
	nr_ev++;
}

static struct spinlock lock_a, lock_b;

/* ---- two vCPUs on one lock -------------------------------------------- */
static void two_worker(void *arg)
{
	uintptr_t hold = (uintptr_t)arg;

	spin_lock(&lock_a);
	logev('L');
	sim_cost_ns(hold);
	logev('U');
	spin_unlock(&lock_a);
}

static void test_two_cpus_interleave(void **state)
{
	struct sim_engine *e = new_engine(2, 2, 1, 2);
	struct lock_class_stat *s;

	nr_ev = 0;
	spin_lock_init_named(&lock_a, "a");
	sim_task_create(e, 0, "t0", two_worker, (void *)(uintptr_t)100);
	sim_task_create(e, 1, "t1", two_worker, (void *)(uintptr_t)100);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	/*
	 * t=0 both try; cpu0 goes first (lower id): free lock, RMW 10 + first
	 * touch 1 -> owns at 11, releases at 111.  cpu1 waited from 0 and
	 * gets it at 111 + transfer(0->1, same socket) 50 + RMW 10 = 171.
	 */
	assert_int_equal(nr_ev, 4);
	assert_int_equal(evlog[0].cpu, 0); assert_int_equal(evlog[0].t, NS(11));
	assert_int_equal(evlog[1].cpu, 0); assert_int_equal(evlog[1].t, NS(111));
	assert_int_equal(evlog[2].cpu, 1); assert_int_equal(evlog[2].t, NS(171));
	assert_int_equal(evlog[3].cpu, 1); assert_int_equal(evlog[3].t, NS(271));
	s = sim_lock_class(e, "a");
	assert_int_equal(s->acquisitions, 2);
	assert_int_equal(s->contentions, 1);
	assert_int_equal(s->wait_total, NS(171));
	assert_int_equal(s->hold_total, NS(200));
	sim_engine_destroy(e);
}

/* ---- FIFO hand-off across three waiters --------------------------------- */
static void fifo_worker(void *arg)
{
	uintptr_t delay = (uintptr_t)arg;

	sim_cost_ns(delay);
	spin_lock(&lock_a);
	logev('L');
	sim_cost_ns(1000);
	spin_unlock(&lock_a);
}

static void test_fifo_handoff(void **state)
{
	struct sim_engine *e = new_engine(2, 2, 1, 4);

	nr_ev = 0;
	spin_lock_init_named(&lock_a, "a");
	/* cpu3 arrives first of the waiters, then cpu1, then cpu2. */
	sim_task_create(e, 0, "t0", fifo_worker, (void *)(uintptr_t)0);
	sim_task_create(e, 1, "t1", fifo_worker, (void *)(uintptr_t)20);
	sim_task_create(e, 2, "t2", fifo_worker, (void *)(uintptr_t)30);
	sim_task_create(e, 3, "t3", fifo_worker, (void *)(uintptr_t)10);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	/*
	 * cpu0 owns at 11, releases at 1011 -> cpu3 (other socket):
	 * 1011 + 100 + 10 = 1121, releases 2121 -> cpu1 (other socket):
	 * 2231, releases 3231 -> cpu2 (other socket) 3341.
	 */
	assert_int_equal(nr_ev, 4);
	assert_int_equal(evlog[0].cpu, 0); assert_int_equal(evlog[0].t, NS(11));
	assert_int_equal(evlog[1].cpu, 3); assert_int_equal(evlog[1].t, NS(1121));
	assert_int_equal(evlog[2].cpu, 1); assert_int_equal(evlog[2].t, NS(2231));
	assert_int_equal(evlog[3].cpu, 2); assert_int_equal(evlog[3].t, NS(3341));
	sim_engine_destroy(e);
}

/* ---- nesting: a holder of A that waits for B lengthens A's waiters ----- */
static void nest_outer(void *arg)
{
	sim_cost_ns(1);
	spin_lock(&lock_a);
	spin_lock(&lock_b);
	logev('B');
	spin_unlock(&lock_b);
	spin_unlock(&lock_a);
}

static void nest_late(void *arg)
{
	sim_cost_ns(100);
	spin_lock(&lock_a);
	logev('A');
	spin_unlock(&lock_a);
}

static void nest_inner_holder(void *arg)
{
	spin_lock(&lock_b);
	sim_cost_ns(5000);
	spin_unlock(&lock_b);
}

static void run_nest(bool inner_busy, sim_time_t *late_wait)
{
	struct sim_engine *e = new_engine(2, 2, 1, 3);

	nr_ev = 0;
	spin_lock_init_named(&lock_a, "a");
	spin_lock_init_named(&lock_b, "b");
	sim_task_create(e, 0, "outer", nest_outer, NULL);
	sim_task_create(e, 1, "late", nest_late, NULL);
	if (inner_busy)
		sim_task_create(e, 2, "inner", nest_inner_holder, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	*late_wait = sim_lock_class(e, "a")->wait_total;
	sim_engine_destroy(e);
}

static void test_nested_lock_convoy(void **state)
{
	sim_time_t quiet, busy;

	/* Alone: cpu0 holds a from 12 to 23 (b costs 11); cpu1 comes at 100. */
	run_nest(false, &quiet);
	assert_int_equal(quiet, 0);
	/*
	 * cpu2 holds b 11..5011.  cpu0 owns a at 12 and waits for b until
	 * 5011 + 100 (other socket) + 10 = 5121, then releases b and a at
	 * 5121; cpu1 (waiting on a since 100) gets a at 5121 + 50 + 10.
	 */
	run_nest(true, &busy);
	assert_int_equal(evlog[0].what, 'B');
	assert_int_equal(evlog[0].t, NS(5121));
	assert_int_equal(evlog[1].what, 'A');
	assert_int_equal(evlog[1].t, NS(5181));
	assert_int_equal(busy, NS(5181 - 100));
}

/* ---- IPIs --------------------------------------------------------------- */
static sim_time_t handled_at[4];
static int handled_n;

static void ipi_func(void *info)
{
	handled_at[handled_n++] = sim_now();
	sim_cost_ns(100);
}

static void ipi_target_irqoff(void *arg)
{
	bool irqs_off = (uintptr_t)arg;

	sim_cost_ns(10);
	if (irqs_off)
		spin_lock_irq(&lock_a);
	else
		spin_lock(&lock_a);
	logev('L');
	if (irqs_off)
		spin_unlock_irq(&lock_a);
	else
		spin_unlock(&lock_a);
}

static void ipi_holder(void *arg)
{
	spin_lock(&lock_a);
	sim_cost_ns(3000);
	spin_unlock(&lock_a);
}

static void ipi_sender(void *arg)
{
	struct cpumask m;

	cpumask_clear(&m);
	cpumask_set_cpu(2, &m);
	sim_cost_ns(100);
	smp_call_function_many_cond(&m, ipi_func, NULL, true, NULL, false, true);
	logev('S');
}

static void run_ipi(bool irqs_off)
{
	struct sim_engine *e = new_engine(2, 2, 1, 3);

	nr_ev = 0;
	handled_n = 0;
	spin_lock_init_named(&lock_a, "a");
	sim_task_create(e, 0, "sender", ipi_sender, NULL);
	sim_task_create(e, 1, "holder", ipi_holder, NULL);
	sim_task_create(e, 2, "target", ipi_target_irqoff, (void *)(uintptr_t)irqs_off);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(handled_n, 1);
	assert_int_equal(sim_engine_counters(e)[SIM_IRQ_CALL_COUNT], 1);
	assert_int_equal(sim_engine_counters(e)[SIM_IRQ_TLB_COUNT], 1);
	sim_engine_destroy(e);
}

static void test_ipi_waits_for_irqs_on(void **state)
{
	int i;
	sim_time_t lock_t = 0, send_done = 0;

	/*
	 * cpu1 holds a 11..3011.  cpu2 spins for a from 10 with IRQs off and
	 * gets it at 3011 + 100 + 10 = 3121.  cpu0 sends at 100 (+20 send):
	 * arrival 320, but cpu2 takes it only at spin_unlock_irq() at 3121:
	 * handler runs at 3121 + 300 (entry/exit) = 3421, ends 3521; the
	 * sender sees it 100 ns later (other socket): 3621.
	 */
	run_ipi(true);
	for (i = 0; i < nr_ev; i++) {
		if (evlog[i].what == 'L')
			lock_t = evlog[i].t;
		if (evlog[i].what == 'S')
			send_done = evlog[i].t;
	}
	assert_int_equal(lock_t, NS(3121));
	assert_int_equal(handled_at[0], NS(3421));
	assert_int_equal(send_done, NS(3621));

	/* Spinning with IRQs on, cpu2 takes it on arrival: 320 + 300. */
	run_ipi(false);
	for (i = 0; i < nr_ev; i++)
		if (evlog[i].what == 'S')
			send_done = evlog[i].t;
	assert_int_equal(handled_at[0], NS(620));
	assert_int_equal(send_done, NS(620 + 100 + 100));
}

static void coalesce_target(void *arg)
{
	local_irq_disable();
	sim_cost_ns(5000);
	local_irq_enable();
	logev('E');
}

static void coalesce_sender(void *arg)
{
	struct cpumask m;

	cpumask_clear(&m);
	cpumask_set_cpu(2, &m);
	sim_cost_ns((uintptr_t)arg);
	smp_call_function_many_cond(&m, ipi_func, NULL, true, NULL, false, true);
}

static void test_ipi_coalescing(void **state)
{
	struct sim_engine *e = new_engine(2, 2, 1, 3);
	uint64_t *c;

	nr_ev = 0;
	handled_n = 0;
	sim_task_create(e, 0, "s0", coalesce_sender, (void *)(uintptr_t)100);
	sim_task_create(e, 1, "s1", coalesce_sender, (void *)(uintptr_t)200);
	sim_task_create(e, 2, "target", coalesce_target, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	c = sim_engine_counters(e);
	/* Two requests queued while cpu2 had IRQs off: one interrupt, two flushes. */
	assert_int_equal(c[SIM_IRQ_CALL_COUNT], 1);
	assert_int_equal(c[SIM_IRQ_TLB_COUNT], 2);
	assert_int_equal(c[SIM_SIM_IPIS_SENT], 1);
	assert_int_equal(handled_n, 2);
	/* Entry at 5000 + 300, then the two handlers back to back. */
	assert_int_equal(handled_at[0], NS(5300));
	assert_int_equal(handled_at[1], NS(5400));
	sim_engine_destroy(e);
}

/* ---- a traced wait's begin sample ---------------------------------------- */
static uint64_t begin_hold_ns;

static void begin_holder(void *arg)
{
	(void)arg;
	spin_lock(&lock_a);
	sim_cost_ns(begin_hold_ns);
	spin_unlock(&lock_a);
}

static void begin_waiter(void *arg)
{
	(void)arg;
	sim_cost_ns(100);
	spin_lock(&lock_a);
	spin_unlock(&lock_a);
}

/* The wait of cpu1, which asks at 100 ns for the lock cpu0 holds from 0. */
static sim_time_t begin_wait(uint64_t hold_ns, uint64_t begin_ns)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = 2, .seed = 1 };
	struct sim_engine *e;
	sim_time_t w;

	test_profile(&prof, 1, 2, 1);
	prof.lock_contention_begin_ns = begin_ns;
	begin_hold_ns = hold_ns;
	e = sim_engine_create(&o);
	assert_non_null(e);
	spin_lock_init_named(&lock_a, "a");
	sim_task_create(e, 0, "holder", begin_holder, NULL);
	sim_task_create(e, 1, "waiter", begin_waiter, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(sim_lock_class(e, "a")->contentions, 1);
	w = sim_lock_class(e, "a")->wait_total;
	sim_engine_destroy(e);
	prof.lock_contention_begin_ns = 0;
	return w;
}

/*
 * lock.contention_begin_ns: the waiter takes its contention_begin sample
 * (300 ns) before it spins, and its wait counts from before the sample.  A
 * long hold hides the sample (the same wait as untraced); a hold that ends
 * during it leaves a wait of the sample's length, where untraced it is the
 * hold's rest and the hand-off.
 */
static void test_traced_wait_begin_sample(void **state)
{
	(void)state;
	assert_int_equal(begin_wait(2000, 300), begin_wait(2000, 0));
	assert_int_equal(begin_wait(250, 300), NS(300));
	assert_true(begin_wait(250, 0) < NS(300));
}

/* ---- saturation ------------------------------------------------------------ */
struct sat { uint64_t hold, think, iters; };
static void sat_worker(void *arg)
{
	struct sat *s = arg;
	uint64_t i;

	for (i = 0; i < s->iters; i++) {
		spin_lock_irq(&lock_a);
		sim_cost_ns(s->hold);
		spin_unlock_irq(&lock_a);
		sim_cost_ns(s->think);
	}
}

/*
 * 16 vCPUs of one socket (every hand-off 50 + 10 = 60 ns) on one lock, with
 * a contention_end sample of @trace_ns in each contended hold
 * (lock.contention_trace_ns): each waits for the 15 others' holds and
 * hand-offs, less its own think time.  Its mean wait must be within 3%.
 */
static void saturated_lock_wait(uint64_t trace_ns)
{
	int n = 16;
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = n, .seed = 1 };
	struct sat s = { .hold = 500, .think = 200, .iters = 2000 };
	struct sim_engine *e;
	struct lock_class_stat *st;
	double avg, expect;

	test_profile(&prof, 1, 16, 1);
	prof.lock_contention_trace_ns = trace_ns;
	e = sim_engine_create(&o);
	assert_non_null(e);
	spin_lock_init_named(&lock_a, "a");
	for (int i = 0; i < n; i++)
		sim_task_create(e, i, "w", sat_worker, &s);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	st = sim_lock_class(e, "a");
	avg = (double)st->wait_total / (double)st->acquisitions / (double)SIM_NS;
	expect = (double)(n - 1) * (500 + (double)trace_ns + 60) - 200;
	if (!(avg > expect * 0.97 && avg < expect * 1.03))
		fail_msg("trace %llu ns: wait %.0f ns per acquisition, expected about %.0f",
			 (unsigned long long)trace_ns, avg, expect);
	sim_engine_destroy(e);
	prof.lock_contention_trace_ns = 0;
}

static void test_saturated_lock_wait(void **state)
{
	(void)state;
	saturated_lock_wait(0);
}

/*
 * Traced: each contended acquisition holds the lock that much longer (the
 * contention_end sample is taken with the lock held), so the saturated
 * queue's wait grows by (n - 1) x the sample.
 */
static void test_saturated_lock_wait_traced(void **state)
{
	(void)state;
	saturated_lock_wait(300);
}

/* ---- deadlock ----------------------------------------------------------------- */
static void dl_ab(void *arg)
{
	spin_lock(&lock_a);
	sim_cost_ns(100);
	spin_lock(&lock_b);
}

static void dl_ba(void *arg)
{
	spin_lock(&lock_b);
	sim_cost_ns(100);
	spin_lock(&lock_a);
}

static void test_deadlock_report(void **state)
{
	struct sim_engine *e = new_engine(2, 2, 1, 2);
	char report[512];

	spin_lock_init_named(&lock_a, "lock_a");
	spin_lock_init_named(&lock_b, "lock_b");
	sim_task_create(e, 0, "ab", dl_ab, NULL);
	sim_task_create(e, 1, "ba", dl_ba, NULL);
	assert_int_equal(sim_engine_run(e, report, sizeof(report)), -EDEADLK);
	assert_non_null(strstr(report, "ab (pid 1, cpu 0) waits for spinlock lock_b held by ba"));
	assert_non_null(strstr(report, "ba (pid 2, cpu 1) waits for spinlock lock_a held by ab"));
	sim_engine_destroy(e);
}

/* ---- time slicing and sleeping --------------------------------------------------- */
static void slice_worker(void *arg)
{
	int i;

	for (i = 0; i < 3; i++) {
		logev((char)(uintptr_t)arg);
		sim_cost_ns(60000);
		sim_sync();
	}
}

static void test_time_slicing(void **state)
{
	struct sim_engine *e = new_engine(1, 1, 1, 1);

	nr_ev = 0;
	sim_task_create(e, 0, "x", slice_worker, (void *)(uintptr_t)'x');
	sim_task_create(e, 0, "y", slice_worker, (void *)(uintptr_t)'y');
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	/* Slice 100 us: x runs 2 x 60 us, then y 2 x 60, then x, then y. */
	assert_int_equal(nr_ev, 6);
	assert_int_equal(evlog[0].what, 'x');
	assert_int_equal(evlog[1].what, 'x');
	assert_int_equal(evlog[2].what, 'y');
	assert_int_equal(evlog[3].what, 'y');
	assert_int_equal(evlog[4].what, 'x');
	assert_int_equal(evlog[5].what, 'y');
	/* y starts after 120 us and one switch (1 us). */
	assert_int_equal(evlog[2].t, NS(121000));
	sim_engine_destroy(e);
}

static void sleeper(void *arg)
{
	sim_sleep_ps(NS(10000));
	logev('W');
}

static void test_sleep_timer(void **state)
{
	struct sim_engine *e = new_engine(1, 2, 1, 2);

	nr_ev = 0;
	sim_task_create(e, 1, "s", sleeper, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	/* Idle CPU: wakes at 10 us and pays one switch (1 us). */
	assert_int_equal(evlog[0].t, NS(11000));
	sim_engine_destroy(e);
}

/* ---- determinism of the rng ---------------------------------------------------- */
static void test_rng_streams(void **state)
{
	struct sim_rng a, b, c;

	sim_rng_seed(&a, 1, 0);
	sim_rng_seed(&b, 1, 0);
	sim_rng_seed(&c, 1, 1);
	assert_int_equal(sim_rng_next(&a), sim_rng_next(&b));
	assert_true(sim_rng_next(&a) != sim_rng_next(&c));
	assert_true(sim_rng_below(&a, 10) < 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cpus_interleave),
		cmocka_unit_test(test_fifo_handoff),
		cmocka_unit_test(test_nested_lock_convoy),
		cmocka_unit_test(test_ipi_waits_for_irqs_on),
		cmocka_unit_test(test_ipi_coalescing),
		cmocka_unit_test(test_traced_wait_begin_sample),
		cmocka_unit_test(test_saturated_lock_wait),
		cmocka_unit_test(test_saturated_lock_wait_traced),
		cmocka_unit_test(test_deadlock_report),
		cmocka_unit_test(test_time_slicing),
		cmocka_unit_test(test_sleep_timer),
		cmocka_unit_test(test_rng_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
