// SPDX-License-Identifier: GPL-2.0-only
/*
 * Migration: wake-up placement (select_task_rq_fair()), newly-idle
 * balancing, and what a move does to mm_cpumask and the TLB flushes that
 * follow (arch/x86/mm/tlb.c, v6.14+).  Answers worked out by hand on the
 * test machine of engine_util.h (1 cycle = 1 ns, a switch 1 us, a wake-up
 * 0.5 us).  CPU numbering: first one thread of every core, then the SMT
 * siblings, so with 4 cores x 2 threads cpu N and cpu N + 4 share a core.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "mm/mm.h"
#include "mmsim/scenario.h"

static struct sim_profile prof;
static struct sim_task *sleeper_task;
static int woke_on;
static sim_time_t woke_at;
static volatile bool stop;

#define US(t) ((t) * SIM_US)

static struct sim_engine *new_engine(int cores, int threads)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = cores * threads, .seed = 1 };

	test_profile(&prof, 1, cores, threads);
	stop = false;
	woke_on = -1;
	return sim_engine_create(&o);
}

/* Blocks at once; records where and when it runs again. */
static void sleeper(void *arg)
{
	(void)arg;
	sim_sleep_block("test", &sleeper_task, "wait");
	woke_on = smp_processor_id();
	woke_at = sim_now();
}

/* Busy until @arg microseconds, syncing every microsecond. */
static void busy(void *arg)
{
	sim_time_t until = US((uintptr_t)arg);

	while (sim_now() < until && !stop) {
		sim_cost_ns(1000);
		sim_sync();
	}
}

/* Wakes the sleeper at 10 us, then works until 15 us. */
static void waker(void *arg)
{
	(void)arg;
	sim_cost_ns(10000);
	sim_sync();
	sim_wake(sleeper_task, sim_now());
	sim_cost_ns(5000);
}

/*
 * Idle machine (4 cores, no SMT): the sleeper blocked on cpu1; the waker
 * on cpu0 is busy, cpu1 is idle, so wake_affine() keeps the previous CPU
 * as target and select_idle_sibling() takes it: cpu1, no migration, at
 * 10 us + 0.5 us wake-up + 1 us switch = 11.5 us.
 */
static void test_wake_idle_machine(void **state)
{
	struct sim_engine *e = new_engine(4, 1);

	(void)state;
	sleeper_task = sim_task_create(e, 1, "s", sleeper, NULL);
	sim_task_create(e, 0, "w", waker, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(woke_on, 1);
	assert_int_equal(woke_at, 11500 * SIM_NS);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_MIGRATIONS], 0);
	sim_engine_destroy(e);
}

/*
 * Busy previous CPU (4 cores x 2 threads): cpu0 (the waker), cpu1 (the
 * sleeper's previous CPU, now running b1) and cpu6 are busy.  wake_affine():
 * both CPUs run one task, so the previous CPU stays the target; it is busy,
 * so select_idle_sibling() scans from cpu2: cpu2 is idle but its sibling
 * cpu6 is busy (remembered), cpu3 and its sibling cpu7 are idle: an idle
 * core, chosen before the idle thread cpu2.
 */
static void test_wake_prefers_idle_core(void **state)
{
	struct sim_engine *e = new_engine(4, 2);

	(void)state;
	sleeper_task = sim_task_create(e, 1, "s", sleeper, NULL);
	sim_task_create(e, 1, "b1", busy, (void *)(uintptr_t)100);
	sim_task_create(e, 6, "b6", busy, (void *)(uintptr_t)100);
	sim_task_create(e, 0, "w", waker, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(woke_on, 3);
	assert_int_equal(woke_at, 11500 * SIM_NS);
	assert_int_equal(sleeper_task->nr_migrations, 1);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_WAKEUPS_MIGRATE], 1);
	sim_engine_destroy(e);
}

/*
 * Busy machine (2 cores, no SMT): every CPU runs a task when the sleeper
 * wakes at 10 us, so it queues on its previous CPU, cpu1, behind b1.  At
 * 15 us the waker ends and cpu0 goes idle: newly-idle balancing pulls the
 * sleeper (cpu1 runs 2 tasks), which starts at 15 + 1 us on cpu0.
 */
static void test_wake_busy_machine_newidle_pull(void **state)
{
	struct sim_engine *e = new_engine(2, 1);

	(void)state;
	sleeper_task = sim_task_create(e, 1, "s", sleeper, NULL);
	sim_task_create(e, 1, "b1", busy, (void *)(uintptr_t)100);
	sim_task_create(e, 0, "w", waker, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(woke_on, 0);
	assert_int_equal(woke_at, 16000 * SIM_NS);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_WAKEUPS_MIGRATE], 0);
	assert_int_equal(sim_engine_counters(e)[SIM_LB_GAINED_NEWIDLE], 1);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_MIGRATIONS], 1);
	sim_engine_destroy(e);
}

/* A pinned task is never moved: it waits for its busy CPU. */
static void test_pinned_stays(void **state)
{
	struct sim_engine *e = new_engine(2, 1);

	(void)state;
	sleeper_task = sim_task_create(e, 1, "s", sleeper, NULL);
	sim_task_pin(sleeper_task);
	sim_task_create(e, 1, "b1", busy, (void *)(uintptr_t)100);
	sim_task_create(e, 0, "w", waker, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(woke_on, 1);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_MIGRATIONS], 0);
	sim_engine_destroy(e);
}

/* ---- time slices ------------------------------------------------------- */

static sim_time_t ran_user, ran_kernel;

/* User-mode work in 1 us steps (preemptible, as stress-ng's loop) until 2 ms. */
static void user_loop(void *arg)
{
	(void)arg;
	while (sim_now() < US(2000)) {
		sim_preemptible(true);
		sim_cost_ns(1000);
		sim_preemptible(false);
		ran_user += US(1);
	}
}

/* Kernel work in 1 us steps with a cond_resched() after each, until 2 ms. */
static void kernel_loop(void *arg)
{
	(void)arg;
	while (sim_now() < US(2000)) {
		sim_cost_ns(1000);
		ran_kernel += US(1);
		cond_resched();
	}
}

/*
 * One vCPU, 100 us slices: a task in user mode and one in kernel code that
 * calls cond_resched() after every microsecond of work share it by turns.
 * cond_resched() gives the CPU away only when the slice is used up
 * (__cond_resched(): should_resched(), TIF_NEED_RESCHED from the tick),
 * not whenever another task waits: each runs about half of the 2 ms.
 * (Yielding at every cond_resched() gave the user task 1.9 ms of 2.)
 */
static void test_cond_resched_keeps_the_slice(void **state)
{
	struct sim_engine *e = new_engine(1, 1);

	(void)state;
	ran_user = ran_kernel = 0;
	sim_task_create(e, 0, "user", user_loop, NULL);
	sim_task_create(e, 0, "kernel", kernel_loop, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_true(ran_kernel >= US(800) && ran_kernel <= US(1100));
	assert_true(ran_user >= US(800) && ran_user <= US(1100));
	sim_engine_destroy(e);
}

/* ---- fork placement and the tick balancer ------------------------------ */

static struct sim_task *forked;
static int child_cpu;
static sim_time_t child_start;

/* The same machine with @slice_us time slices and a 10 us fork(). */
static struct sim_engine *new_engine_fork(int cores, int threads, uint64_t slice_us)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = cores * threads, .seed = 1 };

	test_profile(&prof, 1, cores, threads);
	prof.sched_fork_us = 10;
	prof.sched_slice_us = slice_us;
	stop = false;
	return sim_engine_create(&o);
}

static void child(void *arg)
{
	(void)arg;
	child_cpu = smp_processor_id();
	child_start = sim_now();
}

/* Forks child() and waits for it (waitpid()). */
static void parent(void *arg)
{
	(void)arg;
	forked = sim_task_fork("child", child, NULL);
	assert_non_null(forked);
	sim_waitpid(forked);
	assert_int_equal(forked->state, SIM_TASK_DEAD);
}

/*
 * Idle machine (4 cores x 2 threads, one LLC): the parent on cpu0 forks at
 * 0.  sched_balance_find_dst_cpu() from cpu0: the MC domain's groups are
 * the cores; cpu0's core has one idle CPU, cores 1-3 two each, so the
 * idlest group is core 1 (the first met after the local one, from cpu1);
 * in it cpu1 and cpu5 are idle since boot alike, cpu1 comes first.  In
 * cpu1's SMT domain the local group {1} is as idle as {5}: stay.  The
 * child runs on cpu1 at 10 us (fork) + 0.5 us (wake-up) + 1 us (switch).
 */
static void test_fork_idle_machine(void **state)
{
	struct sim_engine *e = new_engine_fork(4, 2, 100);

	(void)state;
	child_cpu = -1;
	sim_task_create(e, 0, "parent", parent, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(child_cpu, 1);
	assert_int_equal(child_start, 11500 * SIM_NS);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_FORKS], 1);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_MIGRATIONS], 0);
	sim_engine_destroy(e);
}

/*
 * Half-busy machine: cpu1, cpu2, cpu3 and cpu7 run busy tasks, the parent
 * runs on cpu0.  Cores 0, 1 and 2 have one idle CPU each, core 3 none:
 * the idlest other core (core 1) is no idler than the parent's, so the MC
 * level keeps the local group; in cpu0's SMT domain the local group {0}
 * is fully busy and {4} has spare capacity: the child goes to cpu4, the
 * parent's SMT sibling, at 11.5 us.
 */
static void test_fork_half_busy_machine(void **state)
{
	struct sim_engine *e = new_engine_fork(4, 2, 100);
	static const int busy_cpus[] = { 1, 2, 3, 7 };
	size_t i;

	(void)state;
	child_cpu = -1;
	for (i = 0; i < sizeof(busy_cpus) / sizeof(busy_cpus[0]); i++)
		sim_task_create(e, busy_cpus[i], "b", busy, (void *)(uintptr_t)100);
	sim_task_create(e, 0, "parent", parent, NULL);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(child_cpu, 4);
	assert_int_equal(child_start, 11500 * SIM_NS);
	sim_engine_destroy(e);
}

struct mover {
	sim_time_t until;
	int first_cpu, moved_to;
	sim_time_t moved_at;
};

/* User-mode work until m->until, 1 us a step; records its first move. */
static void user_busy(void *arg)
{
	struct mover *m = arg;

	m->first_cpu = smp_processor_id();
	m->moved_to = -1;
	while (sim_now() < m->until) {
		sim_preemptible(true);
		sim_cost_ns(1000);
		sim_sync();
		sim_preemptible(false);
		if (m->moved_to < 0 && smp_processor_id() != m->first_cpu) {
			m->moved_to = smp_processor_id();
			m->moved_at = sim_now();
		}
	}
}

/*
 * The tick balancer (2 cores, no SMT: one MC domain of 2 CPUs, interval
 * 2 ms after a move, 4 ms balanced, x16 on a busy CPU; 10 ms slices).
 * X runs on cpu0; Y runs on cpu1 with Z queued behind it; all until 100 ms
 * (Y until 200 ms, so that nothing moves when X and Z end).
 *   2 ms: cpu0 balances: {1} is overloaded (2 tasks), {0} fully busy.
 *         Average load 1536, imbalance min(2048 - 1536, 1536 - 1024) =
 *         512; Z's load 1024 > 512: not moved, nr_balance_failed = 1,
 *         next balance at 2 + 4 x 16 = 66 ms.
 *   cpu1 runs Y to 10 ms, Z from 10.001, Y from 20.002 ... Y from 60.006:
 *         at 66 ms Z is queued, left cpu1 at 60.005 ms (not cache hot:
 *         more than 0.5 ms ago).
 *   66 ms: cpu0 balances again: 1024 >> 1 = 512 fits the imbalance: Z
 *         moves to cpu0, whose slice (10 ms, never renewed while X ran
 *         alone) is over: Z runs there at 66 ms + 1 us.
 * cpu1 never pulls: while it has 2 tasks it is the busiest, and after
 * 66 ms its next balance (130 ms) comes after X and Z end.
 */
static void test_tick_balancer_pulls(void **state)
{
	struct sim_engine *e = new_engine_fork(2, 1, 10000);
	struct mover x = { .until = 100 * SIM_MS }, y = { .until = 200 * SIM_MS },
		     z = { .until = 100 * SIM_MS };

	(void)state;
	sim_task_create(e, 0, "X", user_busy, &x);
	sim_task_create(e, 1, "Y", user_busy, &y);
	sim_task_create(e, 1, "Z", user_busy, &z);
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(z.first_cpu, 1);
	assert_int_equal(z.moved_to, 0);
	assert_int_equal(z.moved_at, 66 * SIM_MS + SIM_US);
	assert_int_equal(x.moved_to, -1);
	assert_int_equal(y.moved_to, -1);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_MIGRATIONS], 1);
	assert_int_equal(sim_engine_counters(e)[SIM_LB_GAINED_BUSY], 1);
	sim_engine_destroy(e);
}

/* ---- mm_cpumask after a move, and the flushes ------------------------- */

static struct mm_struct *mm_a, *mm_b;
static uint64_t received[4];
static bool bit1_after[4];
static int mask_weight_before;

/* Runs mm_a on cpu1, sleeps 10 us, wakes where it is sent, runs until stopped. */
static void a_task(void *arg)
{
	(void)arg;
	switch_mm_irqs_off(mm_a);
	sim_sleep_ps(US(10));
	while (!stop) {
		sim_cost_ns(10000);
		sim_sync();
	}
}

/* Runs mm_b on cpu1 until stopped. */
static void b_task(void *arg)
{
	(void)arg;
	switch_mm_irqs_off(mm_b);
	while (!stop) {
		sim_cost_ns(10000);
		sim_sync();
	}
}

static uint64_t flushes_received(void)
{
	return sim_engine_counters(sim_engine_current)[SIM_NR_TLB_REMOTE_FLUSH_RECEIVED];
}

/*
 * On cpu0 at 50 us: reclaim's batched flush of mm_a.  mm_a's cpumask is
 * {1, 2}: cpu1 left it for cpu2 when task A moved (the bit stays), and
 * cpu1 runs mm_b, so it is not lazy: arch_tlbbatch_flush() interrupts both.
 */
static void batch_flusher(void *arg)
{
	struct tlbflush_unmap_batch batch;

	(void)arg;
	memset(&batch, 0, sizeof(batch));
	sim_cost_ns(50000);
	sim_sync();
	mask_weight_before = cpumask_weight(&mm_a->cpumask);
	cpumask_or(&batch.cpumask, &batch.cpumask, &mm_a->cpumask);
	arch_tlbbatch_flush(&batch);
	received[0] = flushes_received();
	stop = true;
}

/*
 * On cpu0: flush_tlb_mm_range() of one page of mm_a, three times.
 *   50 us: the first flush trims (next_trim_cpumask was 0): cpu1 and cpu2
 *          are interrupted, cpu1 leaves the mask.  received 2.
 *   60 us: cpu1's bit is set again by hand (a stale bit); no trim within
 *          the second: cpu1 runs mm_b and is skipped (should_flush_tlb()),
 *          only cpu2 is interrupted, the bit stays.  received 3.
 *   50 us + 1 s: trim again: both interrupted, the bit cleared.  received 5.
 */
static void trim_flusher(void *arg)
{
	(void)arg;
	sim_cost_ns(50000);
	sim_sync();
	mask_weight_before = cpumask_weight(&mm_a->cpumask);
	flush_tlb_mm_range(mm_a, 0x100000, 0x101000, false);
	received[0] = flushes_received();
	bit1_after[0] = cpumask_test_cpu(1, &mm_a->cpumask);
	sim_cost_ns(10000);
	sim_sync();
	cpumask_set_cpu(1, &mm_a->cpumask);
	flush_tlb_mm_range(mm_a, 0x100000, 0x101000, false);
	received[1] = flushes_received();
	bit1_after[1] = cpumask_test_cpu(1, &mm_a->cpumask);
	sim_sleep_ps(US(50) + SIM_SEC - sim_now());
	flush_tlb_mm_range(mm_a, 0x100000, 0x101000, false);
	received[2] = flushes_received();
	bit1_after[2] = cpumask_test_cpu(1, &mm_a->cpumask);
	stop = true;
}

static const struct mm_variant v_plain = { .name = "plain" };

/*
 * 3 cores: A (mm_a) starts on cpu1 and sleeps; B (mm_b) then runs on
 * cpu1.  At 10 us A's timer fires on busy cpu1 and A moves to idle cpu2
 * (its LLC's first idle core after cpu1), where it switches to mm_a.
 */
static struct sim_engine *mm_setup(sim_task_fn flusher)
{
	struct sim_engine *e = new_engine(3, 1);
	struct mm_model *m;
	char err[128];

	memset(received, 0, sizeof(received));
	m = mm_model_create(e, &v_plain, 1L << 12, err, sizeof(err));
	assert_non_null(m);
	mm_a = mm_alloc(m->root_memcg);
	mm_b = mm_alloc(m->root_memcg);
	assert_non_null(sim_task_create(e, 1, "A", a_task, NULL));
	assert_non_null(sim_task_create(e, 1, "B", b_task, NULL));
	assert_non_null(sim_task_create(e, 0, "flusher", flusher, NULL));
	return e;
}

static void mm_teardown(struct sim_engine *e)
{
	mm_free(mm_a);
	mm_free(mm_b);
	mm_model_destroy(sim_mm);
	sim_engine_destroy(e);
}

static void test_stale_bit_gets_batch_flush(void **state)
{
	struct sim_engine *e = mm_setup(batch_flusher);

	(void)state;
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(sim_engine_counters(e)[SIM_NR_WAKEUPS_MIGRATE], 1);
	assert_int_equal(mask_weight_before, 2);
	assert_true(cpumask_test_cpu(1, &mm_a->cpumask));
	assert_true(cpumask_test_cpu(2, &mm_a->cpumask));
	/* both CPUs of the mask, the stale one included */
	assert_int_equal(received[0], 2);
	assert_int_equal(sim_engine_counters(e)[SIM_IRQ_TLB_COUNT], 2);
	mm_teardown(e);
}

static void test_trim_once_a_second(void **state)
{
	struct sim_engine *e = mm_setup(trim_flusher);

	(void)state;
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(mask_weight_before, 2);
	assert_int_equal(received[0], 2);
	assert_false(bit1_after[0]);
	assert_int_equal(received[1], 3);
	assert_true(bit1_after[1]);
	assert_int_equal(received[2], 5);
	assert_false(bit1_after[2]);
	mm_teardown(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wake_idle_machine),
		cmocka_unit_test(test_wake_prefers_idle_core),
		cmocka_unit_test(test_wake_busy_machine_newidle_pull),
		cmocka_unit_test(test_pinned_stays),
		cmocka_unit_test(test_cond_resched_keeps_the_slice),
		cmocka_unit_test(test_fork_idle_machine),
		cmocka_unit_test(test_fork_half_busy_machine),
		cmocka_unit_test(test_tick_balancer_pulls),
		cmocka_unit_test(test_stale_bit_gets_batch_flush),
		cmocka_unit_test(test_trim_once_a_second),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
