// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload files (docs/workloads.md): src/workload/parse.c, resolve.c and
 * steps.c.  A hand-written file parses to the plan worked out by hand
 * (memory, steps, counts, ${PARAM}, nr_cpus, P%, `/`, if-steps, includes
 * and their replacement, a shipped workload by name), and each class of
 * error is refused with its "FILE:LINE: ..." line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mm/mm.h"
#include "mmsim/profile.h"
#include "mmsim/workload.h"

static char dir[64];

/* Write @text to DIR/@name; the path, static until the next call. */
static const char *put(const char *name, const char *text)
{
	static char path[2][128];
	static int k;
	FILE *f;

	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	f = fopen(path[k], "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path[k];
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/mmsim-wl-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#define HEAD "[workload]\nname = t\nsummary = s\nsource = hand\n"	/* lines 1-4 */

static const char plan_text[] =
	HEAD							/* 1-4 */
	"[param tasks]\ntype = count\ndefault = nr_cpus\nlive = 2\nmin = 1\nmax = 1024\n"
	"tasks = yes\n"						/* 5-11 */
	"[param size]\ntype = size\ndefault = 16M\n"		/* 12-14 */
	"[param mode]\ntype = enum\nchoices = processes threads\ndefault = processes\n" /* 15-18 */
	"[memory a]\nsize = ${size}\npage = 16K\n"		/* 19-21 */
	"[memory s]\nkind = shmem\nmapping = shared\nper = workload\nsize = ${size} / 2\n"
	"[task t]\ncount = 50%\nas = ${mode}\nrepeat = 3\n"
	"setup = mmap a\nsetup = mmap s\n"
	"loop = fault a write stride=32K pages=${tasks}*2 count\n"
	"loop = access s read pattern=hot:0.9:0.1 accesses=1000\n"
	"loop = madvise a dontneed if mode=threads\n"
	"loop = munmap a if mode!=threads\n"
	"loop = truncate s 4M\n"
	"teardown = sleep 1ms\n";

static void resolve_at(const struct workload *w, int cpus, const char *set, struct wl_plan *p)
{
	struct sim_run_config cfg;
	char err[512];

	sim_run_config_init(&cfg, &w->ops, NULL, 1);
	for (int i = 0; w->params[i].key; i++)
		if (w->params[i].cpus_default)
			cfg.params[i] = (uint64_t)cpus;
	if (set)
		assert_true(sim_run_config_set(&cfg, set, err, sizeof(err)) >= 0);
	if (workload_resolve(w, &cfg, cpus, p, err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_plan(void **state)
{
	char err[512];
	struct workload *w = workload_load(put("plan.ini", plan_text), err, sizeof(err));
	struct wl_plan *p = calloc(1, sizeof(*p));

	if (!w)
		fail_msg("%s", err);
	assert_string_equal(w->ops.name, "t");
	assert_string_equal(w->ops.tasks_param, "tasks");
	assert_true(w->params[0].cpus_default && w->params[0].has_live_def);
	assert_int_equal(w->params[0].live_def, 2);
	assert_int_equal(w->params[1].def, 16ULL << 20);
	assert_int_equal(w->params[2].max, 1);
	assert_string_equal(w->variants[0].name, "mainline");
	assert_null(w->variants[1].name);
	assert_ptr_equal(workload_of(&w->ops), w);
	assert_null(workload_of(sim_scenario_find("deferred-split")));

	/* 80 CPUs, processes: 50% = 40 tasks; the threads-only step is absent */
	resolve_at(w, 80, NULL, p);
	assert_int_equal(p->nr_memory, 2);
	assert_int_equal(p->memory[0].size, 16ULL << 20);
	assert_int_equal(p->memory[0].page, 16384);
	assert_int_equal(p->mthp_order, 2);
	assert_int_equal(p->memory[1].kind, WL_MEM_SHMEM);
	assert_int_equal(p->memory[1].size, 8ULL << 20);	/* ${size} / 2 */
	assert_true(p->memory[1].shared && p->memory[1].per_workload);
	/* defaults: a tmpfs file is sparse and starts empty; anon is neither */
	assert_true(p->memory[1].sparse && !p->memory[1].cached);
	assert_true(!p->memory[0].sparse && !p->memory[0].cached);
	assert_int_equal(p->nr_task, 1);
	assert_int_equal(p->task[0].count, 40);
	assert_int_equal(p->nr_tasks, 40);
	assert_false(p->task[0].threads);
	assert_int_equal(p->task[0].repeat, 3);
	assert_int_equal(p->task[0].nr_setup, 2);
	assert_int_equal(p->task[0].nr_loop, 4);		/* fault, access, munmap, truncate */
	assert_int_equal(p->task[0].loop[0].op, WL_OP_FAULT);
	assert_true(p->task[0].loop[0].counted && p->task[0].loop[0].write);
	assert_int_equal(p->task[0].loop[0].stride, 32768);
	assert_int_equal(p->task[0].loop[0].nr, 160);		/* ${tasks} * 2 */
	assert_int_equal(p->task[0].loop[0].line, 33);
	assert_int_equal(p->task[0].loop[1].pattern, WL_PAT_HOT);
	assert_true(p->task[0].loop[1].hot_prob == 0.9 && p->task[0].loop[1].hot_frac == 0.1);
	assert_false(p->task[0].loop[1].counted);
	assert_int_equal(p->task[0].loop[2].op, WL_OP_MUNMAP);
	assert_int_equal(p->task[0].loop[3].op, WL_OP_TRUNCATE);
	assert_int_equal(p->task[0].loop[3].size, 4ULL << 20);
	assert_int_equal(p->task[0].teardown[0].time_ns, 1000000);

	/* 7 CPUs, threads: 50% = 3, madvise in, munmap out */
	resolve_at(w, 7, "mode=threads", p);
	assert_int_equal(p->task[0].count, 3);
	assert_true(p->task[0].threads);
	assert_int_equal(p->task[0].nr_loop, 4);
	assert_int_equal(p->task[0].loop[2].op, WL_OP_MADVISE);
	assert_int_equal(p->task[0].loop[2].advice, MADV_DONTNEED);
	assert_int_equal(p->task[0].loop[2].len, 16ULL << 20);
	/* 1 CPU: P% is at least 1 */
	resolve_at(w, 1, NULL, p);
	assert_int_equal(p->task[0].count, 1);
	free(p);
	workload_free(w);
}

static void test_include(void **state)
{
	char err[512];
	struct wl_plan *p = calloc(1, sizeof(*p));
	struct workload *w;

	put("base.ini", HEAD "[memory a]\nsize = 4M\n[task t]\ncount = 2\nrepeat = 1\n"
	    "loop = mmap a\nloop = fault a read count\nloop = munmap a\n");
	w = workload_load(put("child.ini", "include = base.ini\n[memory a]\nsize = 8M\n"
			      "[task t]\nloop = mmap a\nloop = fault a write count\n"), err,
			  sizeof(err));
	if (!w)
		fail_msg("%s", err);
	resolve_at(w, 4, NULL, p);
	assert_int_equal(p->memory[0].size, 8ULL << 20);	/* replaced key */
	assert_int_equal(p->task[0].count, 2);			/* inherited key */
	assert_int_equal(p->task[0].nr_loop, 2);		/* the loop list replaced */
	assert_true(p->task[0].loop[1].write);
	free(p);
	workload_free(w);
}

static void test_builtin(void **state)
{
	char err[512];
	struct wl_plan *p = calloc(1, sizeof(*p));
	struct workload *w = workload_load("page_fault1", err, sizeof(err));

	if (!w)
		fail_msg("%s", err);
	assert_string_equal(w->path, "builtin:page_fault1");
	assert_string_equal(w->ops.name, "page_fault1");
	resolve_at(w, 80, NULL, p);
	assert_int_equal(p->task[0].count, 80);
	assert_int_equal(p->task[0].nr_loop, 3);
	assert_true(p->task[0].loop[1].counted);
	assert_int_equal(p->task[0].loop[1].nr, (128ULL << 20) / 4096);
	assert_true(p->task[0].duration_ns > 0 && !p->task[0].repeat);
	workload_free(w);
	/* page_fault2: its own sparse file per task, in the cache as after the warm-up */
	w = workload_load("page_fault2", err, sizeof(err));
	if (!w)
		fail_msg("%s", err);
	resolve_at(w, 80, NULL, p);
	assert_int_equal(p->memory[0].kind, WL_MEM_FILE);
	assert_true(p->memory[0].sparse && p->memory[0].cached && !p->memory[0].per_workload);
	resolve_at(w, 80, "fs=shmem", p);
	assert_int_equal(p->memory[0].kind, WL_MEM_SHMEM);
	assert_true(p->memory[0].sparse && p->memory[0].cached);
	/* no op_bytes: no throughput metric */
	for (int i = 0; w->ops.metrics[i].key; i++)
		assert_string_not_equal(w->ops.metrics[i].key, "throughput_bytes_s");
	workload_free(w);
	/*
	 * case-anon-w-seq: total / tasks a task, rounded down to whole pages
	 * (4G / 80 = 53687091 bytes: 13107 pages), op_bytes = step, and the
	 * throughput metric after the generic ones.
	 */
	w = workload_load("case-anon-w-seq", err, sizeof(err));
	if (!w)
		fail_msg("%s", err);
	resolve_at(w, 80, NULL, p);
	assert_int_equal(p->memory[0].size, 13107ULL * 4096);
	assert_int_equal(p->op_bytes, 8);
	assert_int_equal(p->node_memory, 4ULL << 30);
	resolve_at(w, 80, "step=64", p);
	assert_int_equal(p->op_bytes, 64);
	{
		int i = 0;

		while (w->ops.metrics[i].key && strcmp(w->ops.metrics[i].key, "throughput_bytes_s"))
			i++;
		assert_non_null(w->ops.metrics[i].key);
		assert_string_equal(w->ops.metrics[i].unit, "bytes/s");
	}
	free(p);
	workload_free(w);
	for (int i = 0; wl_builtins[i].name; i++) {	/* every shipped one loads */
		w = workload_load(wl_builtins[i].name, err, sizeof(err));
		if (!w)
			fail_msg("%s: %s", wl_builtins[i].name, err);
		workload_free(w);
	}
}

/*
 * The keys of khugepaged-cold's file (issue 30): first_fault, khugepaged
 * and its tunables, until, loop_at, uops=, pattern=shuffled; and their
 * defaults in a file without them.
 */
static void test_khugepaged_keys(void **state)
{
	char err[512];
	struct wl_plan *p = calloc(1, sizeof(*p));
	struct workload *w = workload_load(put("k.ini", HEAD
		"first_fault = in_order\nkhugepaged = yes\nkhugepaged_pages_to_scan = 8192\n"
		"khugepaged_scan_sleep = 100ms\nkhugepaged_max_ptes_none = 64\n"
		"khugepaged_cpu = 1\n"
		"[memory a]\nsize = 4M\n"
		"[task b]\ncount = 1\nrepeat = 1\nloop_at = 2s\nsetup = mmap a\n"
		"loop = access a read pattern=shuffled uops=12 count\n"
		"[task c]\ncount = 1\nuntil = b\nsetup = mmap a\nloop = sleep 1ms\n"),
		err, sizeof(err));

	if (!w)
		fail_msg("%s", err);
	resolve_at(w, 4, NULL, p);
	assert_true(p->first_fault_in_order);
	assert_true(p->khugepaged);
	assert_int_equal(p->khugepaged_pages_to_scan, 8192);
	assert_int_equal(p->khugepaged_scan_sleep_ns, 100000000);
	assert_int_equal(p->khugepaged_first_wake_ns, 100000000);	/* follows scan_sleep */
	assert_int_equal(p->khugepaged_max_ptes_none, 64);
	assert_int_equal(p->khugepaged_cpu, 1);
	assert_true(p->task[0].has_loop_at);
	assert_int_equal(p->task[0].loop_at_ns, 2000000000ULL);
	assert_int_equal(p->task[0].loop[0].pattern, WL_PAT_SHUFFLED);
	assert_int_equal(p->task[0].loop[0].uops, 12);
	assert_false(p->task[0].until);
	assert_true(p->task[1].until);
	assert_int_equal(p->task[1].until_group, 0);
	assert_int_equal(p->task[1].repeat, 0);
	assert_false(p->task[1].has_loop_at);
	workload_free(w);

	/* without the keys: no khugepaged, any order, the kernel's tunables */
	w = workload_load("page_fault1", err, sizeof(err));
	assert_non_null(w);
	resolve_at(w, 4, NULL, p);
	assert_false(p->khugepaged || p->first_fault_in_order || p->task[0].until ||
		     p->task[0].has_loop_at);
	assert_int_equal(p->khugepaged_pages_to_scan, 4096);
	assert_int_equal(p->khugepaged_cpu, -1);
	assert_int_equal(p->task[0].loop[1].uops, 0);
	workload_free(w);

	/* the shipped file: hot1 and cold run until hot2, whose loop counts */
	w = workload_load("khugepaged-cold-tasks", err, sizeof(err));
	if (!w)
		fail_msg("%s", err);
	resolve_at(w, 4, "pattern=random", p);
	assert_int_equal(p->nr_task, 3);
	assert_true(p->task[0].until && p->task[0].until_group == 2);
	assert_true(p->task[1].until && p->task[1].until_group == 2);
	assert_int_equal(p->task[2].repeat, 1);
	assert_int_equal(p->task[2].nr_loop, 1);
	assert_int_equal(p->task[2].loop[0].pattern, WL_PAT_RANDOM);
	assert_int_equal(p->task[2].loop[0].stride, 8);
	assert_int_equal(p->task[2].loop[0].nr, 327753200);
	assert_int_equal(p->task[2].loop[0].uops, 24);
	assert_int_equal(p->task[2].loop_at_ns, 158000000000ULL);
	assert_int_equal(p->task[1].nr_setup, 3);		/* mmap, touch, madvise cold */
	assert_int_equal(p->task[1].setup[2].advice, MADV_COLD);
	assert_int_equal(p->khugepaged_first_wake_ns, 5000000000ULL);
	free(p);
	workload_free(w);
}

/* A file that must be refused, and what its line must hold. */
struct bad {
	const char *text;
	const char *want;		/* after "DIR/bad.ini:" */
};

#define TASK "[memory a]\nsize = 16K\n[task t]\ncount = 2\nrepeat = 1\n"	/* lines 5-9 */
#define OK_LOOP "loop = mmap a\nloop = fault a write count\n"		/* lines 10-11 */

static const struct bad bads[] = {
	{ HEAD "[nosuch]\nx = 1\n", "5: unknown section [nosuch]" },
	{ HEAD "[memory a]\nsize = 16K\ncolour = red\n", "7: unknown key colour in [memory a]" },
	{ HEAD TASK OK_LOOP "loop = jump a\n", "12: unknown step jump" },
	{ HEAD TASK OK_LOOP "loop = fault b read\n", "12: loop: unknown memory b" },
	{ HEAD "[memory a]\nsize = ${nosuch}\n", "6: unknown parameter nosuch in ${nosuch}" },
	{ HEAD "[memory a]\nsize = 0\n", "6: size = 0 is 0: expected 1 to" },
	{ HEAD "[memory a]\nsize = 1T\n", "6: size = 1T: more than the model's memory" },
	{ HEAD "[memory a]\nsize = 6K\n", "6: size = 6K (6144 bytes) is not a multiple of the page" },
	{ HEAD TASK "loop = fault a write count\n", "10: fault a in [task t]: memory a is never mapped" },
	{ HEAD TASK OK_LOOP "loop = fork t\n", "12: fork t: [task t] is not forked = yes" },
	{ HEAD TASK "loop = mmap a\nloop = fault a write\n", "8: no step counts" },
	{ HEAD "[memory a]\nsize = 16K\n[task t]\ncount = 2\nrepeat = 1\nduration = 1s\n" OK_LOOP,
	  "9: [task t] has both repeat and duration: expected exactly one" },
	{ HEAD "[memory a]\nsize = 16K\n[task t]\ncount = 2\n" OK_LOOP,
	  "8: [task t] has neither repeat nor duration" },
	{ HEAD "[memory a]\nsize = 16K\n[task t]\ncount = 5000\nrepeat = 1\n" OK_LOOP,
	  "8: count = 5000 is 5000: expected 1 to 4096" },
	{ HEAD "[memory a]\nsize = 48K\npage = 12K\n", "7: page = 12K: expected 4K, a power of two" },
	{ HEAD "[memory a]\nsize = 4M\npage = 4M\n", "7: page = 4M: expected 4K, a power of two" },
	{ HEAD "[memory a]\nkind = shmem\nsize = 16K\npage = 16K\n",
	  "8: page = 16K for kind shmem: expected 4K" },
	{ HEAD "[memory a]\nsize = 16K\npage = 16K\n[memory b]\nsize = 64K\npage = 64K\n",
	  "10: [memory b] page 64K and [memory a] page 16K: expected one anonymous page size" },
	{ HEAD "[memory a]\nsize = 16K\nnuma = bind:2\n",
	  "7: numa = bind:2: profile" },
	{ HEAD TASK OK_LOOP "loop = munmap a if nosuch=1\n", "12: if nosuch=1: unknown parameter nosuch" },
	{ HEAD "[memory a]\nsize = 16K\n[task t]\ncount = 2\ncpu = 5\nrepeat = 1\n" OK_LOOP,
	  "9: cpu = 5 is 5: expected 0 to 1 (at the live defaults, 2 CPUs)" },
	{ HEAD "[memory a]\nsize = 16K\n[task t]\ncount = 2\nrepeat = 1\n" OK_LOOP
	  "[task c]\ncount = 1\nforked = yes\nrepeat = 1\nloop = fault a write\n",
	  "16: fault a in [task c]: memory a is never mapped" },
	{ HEAD "[param n]\ntype = count\ndefault = 2000\nmax = 1000\n",
	  "7: [param n] default = 2000: expected an integer" },
	{ HEAD "[memory a]\nsize = 16K\nsize = 32K\n", "7: size given twice in [memory a] (line 6)" },
	{ HEAD "[variant v]\nnosuch_setting = yes\n", "6: [variant v] unknown variant setting nosuch_setting" },
	{ HEAD "[memory a]\nsize = 2 * 3 * 4K\n", "6: size = 2 * 3 * 4K: more than one * or /" },
	{ HEAD "[memory a]\nsize = 16K / 8\n",
	  "6: size = 16K / 8 (2048 bytes) is below one page (4096)" },
	{ HEAD "op_bytes = 0\n[memory a]\nsize = 16K\n", "5: op_bytes = 0 is 0: expected 1 to" },
	{ HEAD "[memory a]\nsize = 16K\nsparse = yes\n",
	  "7: sparse in [memory a] of kind anon: expected it on kind = file or shmem only" },
	{ HEAD "[memory a]\nsize = 16K\ncached = yes\n",
	  "7: cached in [memory a] of kind anon: expected it on kind = file or shmem only" },
	{ HEAD "[memory a]\nkind = shmem\nsize = 16K\nsparse = no\n",
	  "8: sparse = no in [memory a] of kind shmem: expected yes" },
	{ HEAD "[memory a]\nkind = file\nsize = 16K\nsparse = maybe\n",
	  "8: sparse = maybe: expected one of no, yes" },
	{ HEAD TASK "until = nosuch\n" OK_LOOP, "10: until = nosuch: no such group" },
	{ HEAD TASK "until = t\n" OK_LOOP, "10: until = t: this group" },
	{ HEAD "[memory a]\nsize = 16K\n[task t]\ncount = 1\nuntil = u\n" OK_LOOP
	  "[task u]\ncount = 1\nuntil = t\n" OK_LOOP,
	  "9: until = u: [task u] itself runs until another group" },
	{ HEAD "[memory a]\nsize = 16K\n[task t]\ncount = 1\nrepeat = 1\n" OK_LOOP
	  "[task u]\ncount = 1\nrepeat = 2\nuntil = t\n" OK_LOOP,
	  "14: [task u] has both repeat and until" },
	{ HEAD "khugepaged_pages_to_scan = 10\n", "5: khugepaged_pages_to_scan without khugepaged = yes" },
	{ HEAD "khugepaged = yes\nkhugepaged_max_ptes_none = 512\n",
	  "6: khugepaged_max_ptes_none = 512 is 512: expected 0 to 511" },
	{ HEAD "first_fault = first\n", "5: first_fault = first: expected one of any, in_order" },
	{ HEAD TASK OK_LOOP "loop = access a read uops=0\n", "12: uops = 0 is 0: expected 1 to 1024" },
	{ HEAD TASK OK_LOOP "loop = access a read pattern=nosuch\n",
	  "12: pattern=nosuch: expected seq, random, shuffled" },
	{ HEAD TASK OK_LOOP "loop = fault a read uops=2\n", "12: fault: unknown option uops" },
};

static void test_errors(void **state)
{
	char err[600], want[700];

	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const char *path = put("bad.ini", bads[i].text);
		struct workload *w = workload_load(path, err, sizeof(err));

		snprintf(want, sizeof(want), "%s:%s", path, bads[i].want);
		if (w)
			fail_msg("case %zu loaded: expected \"%s\"", i, want);
		if (strncmp(err, want, strlen(want)))
			fail_msg("case %zu: got \"%s\", expected \"%s...\"", i, err, want);
		assert_null(strchr(err, '\n'));
	}
}

static void test_include_errors(void **state)
{
	char err[600], want[300];
	const char *a;

	put("b.ini", "include = a.ini\n" HEAD);
	a = put("a.ini", "include = b.ini\n" HEAD);
	assert_null(workload_load(a, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s/b.ini:1: include a.ini: an include cycle", dir);
	if (strncmp(err, want, strlen(want)))
		fail_msg("got \"%s\", expected \"%s...\"", err, want);
	a = put("c.ini", "include = nosuch_shipped\n" HEAD);
	assert_null(workload_load(a, err, sizeof(err)));
	assert_non_null(strstr(err, "c.ini:1: include nosuch_shipped: no shipped workload"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_khugepaged_keys),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_include_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
