// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the live executor of workload files (src/workload/live.c):
 * tiny hand-built plans (struct wl_plan, as workload_resolve() makes them)
 * run on this machine's kernel with real system calls, each well under a
 * second.  Every assertion looks at something the step under test does to
 * the kernel (page faults of the task's thread, its mm's RSS by kind, its
 * pid and tid, the files it made), so a step that did nothing fails it.
 *
 * The state file goes to a file of this test's own (MMSIM_LIVE_STATE),
 * never /run/mmsim-live.state.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/live_internal.h"
#include "workload/live.h"

#define PAGES 16
#define KiB 1024ULL

static const struct sim_metric wl_metrics[] = {
	{ "ops_per_task_s", "ops per task per second", 0, "ops/s" },
	{ "ops_per_s", "ops per second", 0, "ops/s" },
	{ "ops", "operations", 0, "ops" },
	{ "runtime_s", "longest loop (s)", 3, "s" },
	{ "faults", "page faults", 0, "faults" },
	{ NULL },
};

static const struct sim_param wl_params[] = { { NULL } };

static const struct scenario_ops wl_scenario = {
	.name = "wl-test",
	.summary = "hand-built plans",
	.params = wl_params,
	.metrics = wl_metrics,
};

static struct wl_plan plan;
static struct wl_live_stats stats;
static struct live_result res;
static struct sim_run_config cfg;
static struct live_run run;
static char state_file[64];

static int setup(void **state)
{
	(void)state;
	memset(&plan, 0, sizeof(plan));
	plan.nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	plan.thp = WL_THP_MADVISE;
	return 0;
}

/* A memory of @size bytes, per task, private, 4K pages. */
static int add_memory(const char *name, enum wl_mem_kind kind, uint64_t size)
{
	struct wl_memory *m = &plan.memory[plan.nr_memory];

	snprintf(m->name, sizeof(m->name), "%s", name);
	m->kind = kind;
	m->size = size;
	m->page = LIVE_PAGE;
	m->cached = true;
	return plan.nr_memory++;
}

static struct wl_task *add_group(const char *name, int count, bool threads, uint64_t repeat,
				 uint64_t duration_ns)
{
	struct wl_task *g = &plan.task[plan.nr_task++];

	snprintf(g->name, sizeof(g->name), "%s", name);
	g->count = count;
	g->threads = threads;
	g->cpu = -1;
	g->repeat = repeat;
	g->duration_ns = duration_ns;
	plan.nr_tasks += count;
	return g;
}

static struct wl_step *add_step(struct wl_step *list, int *nr, enum wl_op op, int mem)
{
	struct wl_step *s = &list[(*nr)++];

	memset(s, 0, sizeof(*s));
	s->op = op;
	s->mem = mem;
	s->stride = LIVE_PAGE;
	s->line = 10 + *nr;
	if (mem >= 0)
		s->nr = plan.memory[mem].size / LIVE_PAGE;
	return s;
}

#define SETUP(g, op, mem) add_step((g)->setup, &(g)->nr_setup, op, mem)
#define LOOP(g, op, mem) add_step((g)->loop, &(g)->nr_loop, op, mem)
#define TEARDOWN(g, op, mem) add_step((g)->teardown, &(g)->nr_teardown, op, mem)

static double metric(const char *key)
{
	int i = sim_scenario_metric_index(&wl_scenario, key);

	assert_true(i >= 0);
	assert_true(res.m[i].available);
	return res.m[i].value;
}

/* Run the plan live; the expected way it ends. */
static enum live_stop run_plan(void)
{
	enum live_stop stop;
	char err[256];

	snprintf(state_file, sizeof(state_file), "/tmp/wl-live-test-state-%d", (int)getpid());
	setenv("MMSIM_LIVE_STATE", state_file, 1);
	memset(&res, 0, sizeof(res));
	memset(&cfg, 0, sizeof(cfg));
	cfg.scenario = &wl_scenario;
	cfg.seed = 1;
	run = (struct live_run){ .cfg = &cfg, .res = &res, .start_pipe = { -1, -1 },
				 .zram = { .dev = -1 } };
	if (wl_live_check_plan(&plan, err, sizeof(err)))
		fail_msg("check: %s", err);
	stop = wl_live_run_plan(&run, &plan, &stats);
	/* nothing left to undo: no state file, no process */
	assert_int_equal(access(state_file, F_OK), -1);
	for (int i = 0; i < run.kids.nr; i++)
		assert_int_equal(run.kids.pid[i], 0);
	return stop;
}

/* fault: one operation and one page fault per page. */
static void test_fault_counts_pages(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 1, 0);

	(void)state;
	LOOP(g, WL_OP_MMAP, buf);
	LOOP(g, WL_OP_FAULT, buf)->write = true;
	g->loop[1].counted = true;
	LOOP(g, WL_OP_MUNMAP, buf);
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_int_equal(stats.nr_tasks, 1);
	assert_int_equal(stats.task[0].ops, PAGES);
	assert_true(stats.task[0].minflt >= PAGES);
	assert_true(metric("ops") == PAGES);
	assert_true(metric("ops_per_task_s") > 0);
	assert_true(metric("ops_per_s") > 0);
	assert_true(metric("runtime_s") > 0);
	/*
	 * faults: the task's own, from its first step to its last: its pages
	 * and a few of its own (the stack, a first call), not the process's
	 * start-up nor the machine's (/proc/vmstat counted hundreds more)
	 */
	if (metric("faults") < PAGES || metric("faults") > PAGES + 16)
		fail_msg("faults: %.0f for %d pages", metric("faults"), PAGES);
}

/* repeat: exactly that many iterations; mmap and munmap count one each. */
static void test_repeat_exact(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 7, 0);

	(void)state;
	LOOP(g, WL_OP_MMAP, buf)->counted = true;
	LOOP(g, WL_OP_FAULT, buf)->write = true;
	g->loop[1].counted = true;
	LOOP(g, WL_OP_MUNMAP, buf)->counted = true;
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_int_equal(stats.task[0].ops, 7 * (PAGES + 2));
	assert_int_equal(stats.task[0].vmas_delta, 0);
	/* each round faults again: the munmap did unmap */
	assert_true(stats.task[0].minflt >= 7 * PAGES);
}

/* duration: the loop ends at its first iteration past the deadline. */
static void test_duration_deadline(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, 4 * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 0, 150000000ULL);
	struct wl_step *s;

	(void)state;
	SETUP(g, WL_OP_MMAP, buf);
	LOOP(g, WL_OP_FAULT, buf)->write = true;
	g->loop[0].counted = true;
	s = LOOP(g, WL_OP_MADVISE, buf);
	s->advice = MADV_DONTNEED;
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_true(stats.task[0].loop_s >= 0.150);
	assert_true(stats.task[0].loop_s < 0.5);
	assert_true(stats.task[0].ops > 4);
	/* a duration loop's rate is over the duration (docs/workloads.md) */
	assert_true(fabs(metric("ops_per_task_s") - (double)stats.task[0].ops / 0.150) <
		    1e-6 * metric("ops_per_task_s"));
}

/*
 * Operations after the deadline are not counted, though their iteration
 * runs to its end: sleep 100 ms then fault 4 pages, for 150 ms.  The first
 * iteration's faults end at about 100 ms (counted); the second begins
 * before the deadline, and its faults, at about 200 ms, are past it.
 */
static void test_duration_counts_by_deadline(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, 4 * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 0, 150000000ULL);

	(void)state;
	SETUP(g, WL_OP_MMAP, buf);
	LOOP(g, WL_OP_SLEEP, -1)->time_ns = 100000000ULL;
	LOOP(g, WL_OP_FAULT, buf)->write = true;
	g->loop[1].counted = true;
	LOOP(g, WL_OP_MADVISE, buf)->advice = MADV_DONTNEED;
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_true(stats.task[0].loop_s >= 0.200);
	assert_int_equal(stats.task[0].ops, 4);
}

/*
 * access pattern=shuffled visits every slot once a pass: one store a page
 * over PAGES pages faults each of them (a pattern that kept to one slot
 * would fault once).
 */
static void test_access_shuffled(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 1, 0);
	struct wl_step *s;

	(void)state;
	SETUP(g, WL_OP_MMAP, buf);
	s = LOOP(g, WL_OP_ACCESS, buf);
	s->write = true;
	s->pattern = WL_PAT_SHUFFLED;
	s->counted = true;
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_int_equal(stats.task[0].ops, PAGES);
	assert_true(stats.task[0].minflt >= PAGES);
}

/* MADV_DONTNEED empties the memory: the next round faults every page again. */
static void test_dontneed_refaults(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 4, 0);

	(void)state;
	SETUP(g, WL_OP_MMAP, buf);
	LOOP(g, WL_OP_FAULT, buf)->write = true;
	g->loop[0].counted = true;
	LOOP(g, WL_OP_MADVISE, buf)->advice = MADV_DONTNEED;
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_int_equal(stats.task[0].ops, 4 * PAGES);
	assert_true(stats.task[0].minflt >= 4 * PAGES);
}

/* as = processes: one mm each; as = threads: one mm for the group. */
static void test_processes_and_threads(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *p = add_group("proc", 2, false, 2, 0);
	struct wl_task *t = add_group("thr", 2, true, 2, 0);

	(void)state;
	SETUP(p, WL_OP_MMAP, buf);
	LOOP(p, WL_OP_FAULT, buf)->counted = true;
	SETUP(t, WL_OP_MMAP, buf);
	LOOP(t, WL_OP_FAULT, buf)->counted = true;
	t->loop[0].write = p->loop[0].write = true;
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_int_equal(stats.nr_tasks, 4);
	for (int i = 0; i < 4; i++) {
		assert_true(stats.task[i].pid > 0);
		assert_int_not_equal(stats.task[i].pid, getpid());
		assert_int_equal(stats.task[i].ops, 2 * PAGES);
	}
	assert_int_not_equal(stats.task[0].pid, stats.task[1].pid);
	assert_int_equal(stats.task[0].pid, stats.task[0].tid);
	assert_int_equal(stats.task[2].pid, stats.task[3].pid);
	assert_int_not_equal(stats.task[2].tid, stats.task[3].tid);
	assert_int_not_equal(stats.task[2].pid, stats.task[0].pid);
	for (int i = 0; i < 4; i++)
		assert_true(stats.task[i].minflt >= PAGES);
	assert_true(metric("ops") == 8 * PAGES);
}

/* shmem, per = workload, shared: one tmpfs object mapped by both processes. */
static void test_shmem(void **state)
{
	int shm = add_memory("shm", WL_MEM_SHMEM, 1024 * KiB);
	struct wl_task *g = add_group("w", 2, false, 1, 0);

	(void)state;
	plan.memory[shm].per_workload = true;
	plan.memory[shm].shared = true;
	SETUP(g, WL_OP_MMAP, shm);
	LOOP(g, WL_OP_FAULT, shm)->write = true;
	g->loop[0].counted = true;
	TEARDOWN(g, WL_OP_MUNMAP, shm);
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	/*
	 * RssShmem is the mm's percpu counter as read, short by at most
	 * 31 pages per CPU that are not yet folded in
	 */
	for (int i = 0; i < 2; i++) {
		assert_true(stats.task[i].rss_shmem_kb >= 512);
		assert_int_equal(stats.task[i].ops, 256);
	}
	assert_string_equal(stats.tmpdir, "");
}

/* munmap: the mapping and its pages are gone; the next mmap faults anew. */
static void test_munmap_unmaps(void **state)
{
	int shm = add_memory("shm", WL_MEM_SHMEM, 256 * KiB);
	struct wl_task *g = add_group("w", 1, false, 2, 0);

	(void)state;
	LOOP(g, WL_OP_MMAP, shm);
	LOOP(g, WL_OP_FAULT, shm)->write = true;
	g->loop[1].counted = true;
	LOOP(g, WL_OP_MUNMAP, shm);
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_int_equal(stats.task[0].ops, 128);
	assert_true(stats.task[0].minflt >= 128);
	/* as many mappings at the loop's end as at its start */
	assert_int_equal(stats.task[0].vmas_delta, 0);
}

/*
 * file: a file per task and one per workload in /tmp/mmsim-live-wl-X, in
 * the page cache; read faults map their pages; all gone after the run.
 */
static void test_file_made_and_removed(void **state)
{
	int own = add_memory("own", WL_MEM_FILE, 128 * KiB);
	int all = add_memory("all", WL_MEM_FILE, 128 * KiB);
	struct wl_task *g = add_group("w", 2, false, 1, 0);

	(void)state;
	plan.memory[all].per_workload = true;
	plan.memory[all].shared = true;
	SETUP(g, WL_OP_MMAP, own);
	SETUP(g, WL_OP_MMAP, all);
	LOOP(g, WL_OP_FAULT, own)->counted = true;
	LOOP(g, WL_OP_FAULT, all)->counted = true;
	TEARDOWN(g, WL_OP_MUNMAP, own);
	TEARDOWN(g, WL_OP_MUNMAP, all);
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_true(!strncmp(stats.tmpdir, "/tmp/mmsim-live-wl-", 19));
	assert_int_equal(access(stats.tmpdir, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(stats.task[i].ops, 64);
		/* read faults map the cached file (around each fault, 64K) */
		assert_true(stats.task[i].minflt > 0);
	}
}

/* fork: each fork step starts the forked group's tasks, in copies of the mm. */
static void test_fork_child_runs(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *parent = add_group("parent", 1, false, 3, 0);
	struct wl_task *child = add_group("child", 2, false, 1, 0);
	struct wl_step *s;

	(void)state;
	child->forked = true;
	SETUP(parent, WL_OP_MMAP, buf);
	s = LOOP(parent, WL_OP_FORK, -1);
	s->task = 1;
	s->counted = true;
	/* the child writes the memory it inherited: copy-on-write faults */
	LOOP(child, WL_OP_FAULT, buf)->write = true;
	child->loop[0].counted = true;
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_int_equal(stats.nr_tasks, 3);
	assert_int_equal(stats.task[0].forks, 3);
	assert_int_equal(stats.task[0].ops, 3);
	/* each fork step started both children: three runs each, own processes */
	for (int i = 1; i < 3; i++) {
		assert_int_equal(stats.task[i].runs, 3);
		assert_int_equal(stats.task[i].ops, 3 * PAGES);
		assert_true(stats.task[i].minflt >= 3 * PAGES);
		assert_int_not_equal(stats.task[i].pid, stats.task[0].pid);
	}
	assert_int_not_equal(stats.task[1].pid, stats.task[2].pid);
	assert_true(metric("ops") == 3 + 6 * PAGES);
}

/* barrier: the task without a sleep waits for the one with it, each round. */
static void test_barrier_waits(void **state)
{
	struct wl_task *slow = add_group("slow", 1, false, 3, 0);
	struct wl_task *fast = add_group("fast", 1, true, 3, 0);

	(void)state;
	LOOP(slow, WL_OP_SLEEP, -1)->time_ns = 30000000ULL;
	LOOP(slow, WL_OP_BARRIER, -1);
	LOOP(fast, WL_OP_BARRIER, -1);
	assert_int_equal(run_plan(), LIVE_STOP_NONE);
	assert_true(stats.task[1].loop_s >= 0.06);
}

/* A step on memory the task has not mapped stops the run with its line. */
static void test_unmapped_fails(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 1, 0);

	(void)state;
	LOOP(g, WL_OP_FAULT, buf)->counted = true;
	assert_int_equal(run_plan(), LIVE_STOP_CHILD_DIED);
	assert_non_null(strstr(run.err, "line 11: fault buf: the memory is not mapped"));
}

/* check(): what the machine lacks, in one line, before any work. */
static void test_check_refuses(void **state)
{
	int buf = add_memory("buf", WL_MEM_ANON, PAGES * LIVE_PAGE);
	struct wl_task *g = add_group("w", 1, false, 1, 0);
	char err[256];

	(void)state;
	SETUP(g, WL_OP_MMAP, buf);
	plan.memory[buf].numa = WL_NUMA_BIND;
	plan.memory[buf].node = 999;
	assert_int_equal(wl_live_check_plan(&plan, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no NUMA node 999"));
	plan.memory[buf].numa = WL_NUMA_LOCAL;
	g->cpu = 4096;
	assert_int_equal(wl_live_check_plan(&plan, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cpu = 4096"));
	g->cpu = -1;
	plan.memory[buf].per_workload = true;
	assert_int_equal(wl_live_check_plan(&plan, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "per = workload"));
	plan.memory[buf].per_workload = false;
	assert_int_equal(wl_live_check_plan(&plan, err, sizeof(err)), 0);
}

/* The memory a run maps: per task, times the tasks that name it. */
static void test_memory_bytes(void **state)
{
	int a = add_memory("a", WL_MEM_ANON, 1024 * KiB);
	int b = add_memory("b", WL_MEM_SHMEM, 512 * KiB);
	struct wl_task *g = add_group("w", 3, false, 1, 0);

	(void)state;
	plan.memory[b].per_workload = true;
	SETUP(g, WL_OP_MMAP, a);
	SETUP(g, WL_OP_MMAP, b);
	assert_int_equal(wl_live_memory_plan(&plan), 3 * 1024 * KiB + 512 * KiB);
	plan.memory[a].page = 64 * KiB;
	assert_int_equal(wl_live_memory_plan(&plan), 3 * 1088 * KiB + 512 * KiB);
}

/* THP settings: enabled as the plan, its mTHP size always, others never. */
static void test_want_settings(void **state)
{
	static struct live_settings st;
	static const char *const rel[] = { "enabled", "hugepages-16kB/enabled",
		"hugepages-64kB/enabled", "hugepages-2048kB/enabled" };

	(void)state;
	memset(&st, 0, sizeof(st));
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(st.s[i].rel, sizeof(st.s[i].rel), "%s", rel[i]);
		snprintf(st.s[i].saved, sizeof(st.s[i].saved), "inherit");
	}
	st.nr = 4;
	plan.thp = WL_THP_NEVER;
	plan.mthp_order = 4;
	wl_live_want_plan(&plan, &st);
	assert_string_equal(st.s[0].want, "never");
	assert_string_equal(st.s[1].want, "never");
	assert_string_equal(st.s[2].want, "always");
	assert_string_equal(st.s[3].want, "inherit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fault_counts_pages, setup),
		cmocka_unit_test_setup(test_repeat_exact, setup),
		cmocka_unit_test_setup(test_duration_deadline, setup),
		cmocka_unit_test_setup(test_duration_counts_by_deadline, setup),
		cmocka_unit_test_setup(test_access_shuffled, setup),
		cmocka_unit_test_setup(test_dontneed_refaults, setup),
		cmocka_unit_test_setup(test_processes_and_threads, setup),
		cmocka_unit_test_setup(test_shmem, setup),
		cmocka_unit_test_setup(test_munmap_unmaps, setup),
		cmocka_unit_test_setup(test_file_made_and_removed, setup),
		cmocka_unit_test_setup(test_fork_child_runs, setup),
		cmocka_unit_test_setup(test_barrier_waits, setup),
		cmocka_unit_test_setup(test_unmapped_fails, setup),
		cmocka_unit_test_setup(test_check_refuses, setup),
		cmocka_unit_test_setup(test_memory_bytes, setup),
		cmocka_unit_test_setup(test_want_settings, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
