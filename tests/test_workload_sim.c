// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated executor of workload files (src/workload/sim.c) on plans
 * built by hand, one case per step kind, worked out by hand on
 * skylake-sp-2s with 1 or 2 vCPUs and the model's invariant checks on.
 * The test includes sim.c with a step hook that records what the model
 * holds after each step whose line number is below NOBS (the plan's
 * `line`); the asserts run after the engine.
 *
 * Each assertion fails if its step did nothing: a count of faults, pages
 * or folios that only the step makes, or a time only the step takes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mm/mm.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"
#include "mmsim/workload.h"

#define NOBS	32
#define NIDS	64

/* What the model held after the step of one line (the last task to run it). */
struct obs {
	bool seen;
	long rss_anon, rss_file, rss_shmem;
	long lru[NR_LRU_LISTS];		/* folios, after lru_add_drain() when hook_drain */
	unsigned long nrpages;		/* the step's file, if any */
	long present, writable, young;	/* PTEs of the step's mapping */
	uint32_t ids[NIDS];		/* folio of each page, by address (0: none) */
	sim_time_t now;
	uint64_t pgfault;
	sim_time_t bdev_busy_until;	/* the files' device: 0 while it has read nothing */
};

static struct obs obs[NOBS];
static bool hook_drain;

struct wl_task_run;
static void test_step_hook(struct wl_task_run *tr, const struct wl_step *s);
#define WL_STEP_HOOK(tr, s)	test_step_hook(tr, s)
#include "../src/workload/sim.c"

static void test_step_hook(struct wl_task_run *tr, const struct wl_step *s)
{
	struct obs *o;
	struct address_space *f;
	struct wl_map *map;
	int nid, l;

	if (s->line <= 0 || s->line >= NOBS)
		return;
	o = &obs[s->line];
	memset(o, 0, sizeof(*o));
	o->seen = true;
	if (hook_drain)
		lru_add_drain();
	o->rss_anon = tr->wm->mm->rss_anon;
	o->rss_file = tr->wm->mm->rss_file;
	o->rss_shmem = tr->wm->mm->rss_shmem;
	for (nid = 0; nid < sim_mm->nr_nodes; nid++)
		for (l = 0; l < NR_LRU_LISTS; l++)
			o->lru[l] += sim_mm->root_memcg->lruvec[nid].nr_folios[l];
	o->now = sim_now();
	o->pgfault = sim_engine_counters(sim_engine_current)[SIM_PGFAULT];
	o->bdev_busy_until = sim_mm->bdev_busy_until;
	if (s->mem < 0)
		return;
	f = wl_file_of(tr, s->mem);
	o->nrpages = f ? f->nrpages : 0;
	map = wl_map_of(tr, s->mem);
	if (map->mapped) {
		struct vm_area_struct *vma = find_vma(tr->wm->mm, map->addr);
		uint64_t a, i = 0;

		for (a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE, i++) {
			pte_t pte = *vma_pte_lookup(vma, a);

			if (!pte_present(pte))
				continue;
			o->present++;
			o->writable += !!(pte & PTE_WRITE);
			o->young += !!(pte & PTE_YOUNG);
			if (i < NIDS)
				o->ids[i] = pte_folio(pte)->id + 1;
		}
	}
}

/* ---- building plans by hand ------------------------------------------------------- */

static struct sim_profile prof;
static struct wl_plan plan;
static const struct mm_variant v_base = { .name = "base" };

static void plan_init(int nr_cpus)
{
	char err[256];

	assert_int_equal(sim_profile_load("skylake-sp-2s", &prof, err, sizeof(err)), 0);
	memset(&plan, 0, sizeof(plan));
	plan.nr_cpus = nr_cpus;
	plan.node_memory = 256ULL << 20;
	plan.thp = WL_THP_MADVISE;
	memset(obs, 0, sizeof(obs));
	hook_drain = false;
}

static int mem_add(const char *name, enum wl_mem_kind kind, uint64_t size)
{
	struct wl_memory *m = &plan.memory[plan.nr_memory];

	snprintf(m->name, sizeof(m->name), "%s", name);
	m->kind = kind;
	m->size = size;
	m->page = PAGE_SIZE;
	m->shared = kind == WL_MEM_SHMEM;
	m->cached = kind == WL_MEM_FILE;
	return plan.nr_memory++;
}

static struct wl_task *group_add(const char *name, int count, uint64_t repeat)
{
	struct wl_task *t = &plan.task[plan.nr_task++];

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->count = count;
	t->cpu = -1;
	t->repeat = repeat;
	plan.nr_tasks += count;
	return t;
}

enum { SETUP, LOOP, TEARDOWN };

static struct wl_step *step(struct wl_task *t, int list, enum wl_op op, int mem, int line)
{
	struct wl_step *s = list == SETUP ? &t->setup[t->nr_setup++] :
			    list == LOOP ? &t->loop[t->nr_loop++] : &t->teardown[t->nr_teardown++];

	memset(s, 0, sizeof(*s));
	s->op = op;
	s->mem = mem;
	s->line = line;
	s->task = -1;
	return s;
}

static struct wl_step *fault(struct wl_task *t, int list, int mem, bool write, int line)
{
	struct wl_step *s = step(t, list, WL_OP_FAULT, mem, line);

	s->write = write;
	s->counted = list == LOOP;
	return s;
}

static struct sim_variant_result res;
static struct wl_sim_out out;
static char err[256];

static int run_seed(uint64_t seed)
{
	struct sim_run_config cfg = { .profile = &prof, .seed = seed, .check = true };

	memset(&res, 0, sizeof(res));
	res.name = "base";
	err[0] = 0;
	return workload_sim_run(&plan, &cfg, &v_base, NULL, &res, &out, err, sizeof(err));
}

static void run_ok(void)
{
	int ret = run_seed(1);

	if (ret)
		fail_msg("workload_sim_run: %s", err);
}

static uint64_t counter(enum sim_counter c)
{
	return res.counters[c];
}

/* ---- fault, mmap, munmap ---------------------------------------------------------------- */

/*
 * 16 pages of anonymous memory, written in order: 16 faults, 16 folios
 * mapped writable and, once drained, on the anon LRU; munmap() frees the
 * 16 (rss 0, pgfree 16).  A second write fault step over the same pages
 * faults nothing (each is mapped for writing); a read after them neither.
 */
static void test_fault_anon(void **state)
{
	int a;
	struct wl_task *t;

	(void)state;
	plan_init(1);
	hook_drain = true;
	a = mem_add("a", WL_MEM_ANON, 16 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 1);
	fault(t, LOOP, a, true, 2);
	fault(t, LOOP, a, true, 3);
	fault(t, LOOP, a, false, 4);
	step(t, TEARDOWN, WL_OP_MUNMAP, a, 5);
	run_ok();
	assert_int_equal(obs[1].present, 0);
	assert_int_equal(obs[2].pgfault, 16);
	assert_int_equal(obs[2].present, 16);
	assert_int_equal(obs[2].writable, 16);
	assert_int_equal(obs[2].rss_anon, 16);
	assert_int_equal(obs[2].lru[LRU_INACTIVE_ANON] + obs[2].lru[LRU_ACTIVE_ANON], 16);
	assert_int_equal(obs[3].pgfault, 16);
	assert_int_equal(obs[4].pgfault, 16);
	assert_int_equal(obs[5].rss_anon, 0);
	assert_int_equal(counter(SIM_PGFAULT), 16);
	assert_int_equal(counter(SIM_PGFREE), counter(SIM_PGALLOC_NORMAL));
	assert_int_equal(counter(SIM_PGALLOC_NORMAL), 16);
	/* every address of the three counted steps is an operation */
	assert_int_equal(out.ops, 48);
}

/* A page at a time from the start (seq), from the end (reverse), or shuffled (random). */
static void order_run(enum wl_order order)
{
	struct wl_task *t;
	int a;

	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 32 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	fault(t, LOOP, a, true, 1)->order = order;
	run_ok();
}

/*
 * The folios are allocated in fault order, so their ids by address show
 * it: increasing (seq), decreasing (reverse), neither (random); random
 * still faults every page once.
 */
static void test_fault_order(void **state)
{
	int i, up = 0, down = 0;

	(void)state;
	order_run(WL_ORDER_SEQ);
	for (i = 1; i < 32; i++)
		assert_true(obs[1].ids[i] > obs[1].ids[i - 1]);
	order_run(WL_ORDER_REVERSE);
	for (i = 1; i < 32; i++)
		assert_true(obs[1].ids[i] < obs[1].ids[i - 1]);
	order_run(WL_ORDER_RANDOM);
	assert_int_equal(counter(SIM_PGFAULT), 32);
	assert_int_equal(obs[1].present, 32);
	for (i = 1; i < 32; i++) {
		up += obs[1].ids[i] > obs[1].ids[i - 1];
		down += obs[1].ids[i] < obs[1].ids[i - 1];
	}
	assert_true(up > 0 && down > 0);
}

/* stride and pages: every 4th page, 3 of them. */
static void test_fault_stride(void **state)
{
	struct wl_step *s;
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 16 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	s = fault(t, LOOP, a, true, 1);
	s->stride = 4 * PAGE_SIZE;
	s->nr = 3;
	run_ok();
	assert_int_equal(counter(SIM_PGFAULT), 3);
	assert_int_equal(obs[1].present, 3);
	assert_int_not_equal(obs[1].ids[0], 0);
	assert_int_not_equal(obs[1].ids[4], 0);
	assert_int_not_equal(obs[1].ids[8], 0);
	assert_int_equal(obs[1].ids[12], 0);
	assert_int_equal(out.ops, 3);
}

/* ---- shmem and file memory ------------------------------------------------------------------ */

/*
 * One tmpfs file of 8 pages shared by 2 processes (per = workload): each
 * writes every page: 16 faults, 8 pages in the page cache, each process
 * 8 shmem pages.
 */
static void test_shmem(void **state)
{
	struct wl_task *t;
	int s;

	(void)state;
	plan_init(2);
	s = mem_add("s", WL_MEM_SHMEM, 8 * PAGE_SIZE);
	plan.memory[s].per_workload = true;
	t = group_add("w", 2, 1);
	step(t, SETUP, WL_OP_MMAP, s, 1);
	step(t, SETUP, WL_OP_BARRIER, -1, 0);
	fault(t, LOOP, s, true, 2);
	run_ok();
	assert_int_equal(obs[1].nrpages, 0);
	assert_int_equal(obs[2].nrpages, 8);
	assert_int_equal(obs[2].rss_shmem, 8);
	assert_int_equal(counter(SIM_PGFAULT), 16);
}

/*
 * A file of 8 pages on a disk, mapped privately and read page by page.
 * Not cached: every page is a miss (8 faults, each major: fault-around
 * maps only what the cache holds).  Cached: the loader read it before the
 * task began (8 pages in the cache at the mmap), and the first read maps
 * all 8 by fault-around: 1 fault, none major.
 */
static void test_file(void **state)
{
	struct wl_task *t;
	int f;

	(void)state;
	plan_init(1);
	f = mem_add("f", WL_MEM_FILE, 8 * PAGE_SIZE);
	plan.memory[f].shared = false;
	plan.memory[f].cached = false;
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, f, 1);
	fault(t, LOOP, f, false, 2);
	run_ok();
	assert_int_equal(obs[1].nrpages, 0);
	assert_int_equal(obs[2].nrpages, 8);
	assert_int_equal(obs[2].rss_file, 8);
	assert_int_equal(counter(SIM_PGFAULT), 8);
	assert_int_equal(counter(SIM_PGMAJFAULT), 8);

	/* every address faulted: no access of its own (the fault's costs include it) */
	assert_int_equal(out.loop_dtlb_walks, 0);

	plan.memory[f].cached = true;
	run_ok();
	assert_int_equal(obs[1].nrpages, 8);
	assert_int_equal(obs[2].rss_file, 8);
	assert_int_equal(counter(SIM_PGFAULT), 1);
	assert_int_equal(counter(SIM_PGMAJFAULT), 0);
	/*
	 * fault-around mapped the other 7: their loads went through the TLB
	 * (wl_fault_stores()), a walk each on the cold TLB
	 */
	assert_int_equal(out.loop_dtlb_walks, 7);
}

/*
 * A sparse file (ftruncate() made it, as will-it-scale's page_fault2) of 8
 * pages, mapped privately and written page by page, not cached: each
 * write is a miss that allocates a page cache folio and zeroes it with no
 * read (the device never busy, pgpgin 0), counted major as filemap_fault()
 * counts it, then copied (do_cow_fault()): 8 in the cache, 8 anonymous
 * copies mapped.  The same file with data reads each page from the device
 * (pgpgin 4 KiB each, the device busy), and takes its latency per page.
 * Cached and sparse: the loader fills the cache with zeroed folios, still
 * without I/O, and the task's writes are copies only (no major fault).
 */
static void test_sparse_file(void **state)
{
	struct wl_task *t;
	sim_time_t sparse_ns;
	int f;

	(void)state;
	plan_init(1);
	f = mem_add("f", WL_MEM_FILE, 8 * PAGE_SIZE);
	plan.memory[f].shared = false;
	plan.memory[f].cached = false;
	plan.memory[f].sparse = true;
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, f, 1);
	fault(t, LOOP, f, true, 2);
	run_ok();
	assert_int_equal(obs[1].nrpages, 0);
	assert_int_equal(obs[2].nrpages, 8);
	assert_int_equal(obs[2].rss_anon, 8);
	assert_int_equal(obs[2].bdev_busy_until, 0);
	assert_int_equal(counter(SIM_PGPGIN), 0);
	assert_int_equal(counter(SIM_PGFAULT), 8);
	assert_int_equal(counter(SIM_PGMAJFAULT), 8);
	sparse_ns = obs[2].now - obs[1].now;

	plan.memory[f].sparse = false;
	run_ok();
	assert_int_equal(obs[2].nrpages, 8);
	assert_true(obs[2].bdev_busy_until > 0);
	assert_int_equal(counter(SIM_PGPGIN), 8 * 4);
	assert_int_equal(counter(SIM_PGMAJFAULT), 8);
	assert_true(obs[2].now - obs[1].now >= sparse_ns + 8 * prof.swap_read_us * SIM_US);

	plan.memory[f].sparse = true;
	plan.memory[f].cached = true;
	run_ok();
	assert_int_equal(obs[1].nrpages, 8);
	assert_int_equal(obs[2].bdev_busy_until, 0);
	assert_int_equal(counter(SIM_PGPGIN), 0);
	assert_int_equal(counter(SIM_PGFAULT), 8);
	assert_int_equal(counter(SIM_PGMAJFAULT), 0);
	assert_int_equal(obs[2].rss_anon, 8);
}

/* A tmpfs file with cached = yes: its 8 pages exist before the task maps it (not so by default). */
static void test_shmem_cached(void **state)
{
	struct wl_task *t;
	int f;

	(void)state;
	plan_init(1);
	f = mem_add("f", WL_MEM_SHMEM, 8 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, f, 1);
	fault(t, LOOP, f, true, 2);
	run_ok();
	assert_int_equal(obs[1].nrpages, 0);
	assert_int_equal(obs[2].nrpages, 8);

	plan.memory[f].cached = true;
	run_ok();
	assert_int_equal(obs[1].nrpages, 8);
	assert_int_equal(obs[2].rss_shmem, 8);
	/* a shared write fault has no fault-around: 8 faults, none allocating */
	assert_int_equal(counter(SIM_PGFAULT), 8);
}

/* truncate: a shmem file of 8 written pages cut to 3: 3 in the cache, 3 mapped. */
static void test_truncate(void **state)
{
	struct wl_task *t;
	int s;

	(void)state;
	plan_init(1);
	s = mem_add("s", WL_MEM_SHMEM, 8 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, s, 0);
	fault(t, LOOP, s, true, 1);
	step(t, LOOP, WL_OP_TRUNCATE, s, 2)->size = 3 * PAGE_SIZE;
	run_ok();
	assert_int_equal(obs[1].nrpages, 8);
	assert_int_equal(obs[2].nrpages, 3);
	assert_int_equal(obs[2].present, 3);
}

/* ---- madvise ---------------------------------------------------------------------------------- */

static struct wl_task *madvise_plan(int kind, uint64_t pages, int advice, bool prefault)
{
	struct wl_step *s;
	struct wl_task *t;
	int a;

	plan_init(1);
	hook_drain = true;
	a = mem_add("a", kind, pages * PAGE_SIZE);
	plan.memory[a].shared = false;
	plan.memory[a].cached = false;
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	if (prefault)
		fault(t, SETUP, a, kind == WL_MEM_ANON, 1);
	s = step(t, LOOP, WL_OP_MADVISE, a, 2);
	s->advice = advice;
	s->counted = true;
	return t;
}

/* DONTNEED empties the RSS and frees the folios. */
static void test_madvise_dontneed(void **state)
{
	(void)state;
	madvise_plan(WL_MEM_ANON, 8, MADV_DONTNEED, true);
	run_ok();
	assert_int_equal(obs[1].rss_anon, 8);
	assert_int_equal(obs[2].rss_anon, 0);
	assert_int_equal(obs[2].present, 0);
	assert_int_equal(counter(SIM_PGFREE), 8);
}

/*
 * COLD clears the 8 PTEs' accessed bits (the faults set them) and leaves
 * the folios on the inactive list (pgdeactivate counts those that were
 * active: none, new anonymous folios start inactive).
 */
static void test_madvise_cold(void **state)
{
	(void)state;
	madvise_plan(WL_MEM_ANON, 8, MADV_COLD, true);
	run_ok();
	assert_int_equal(obs[2].lru[LRU_INACTIVE_ANON], 8);
	assert_int_equal(obs[2].lru[LRU_ACTIVE_ANON], 0);
	assert_int_equal(obs[1].lru[LRU_ACTIVE_ANON] + obs[1].lru[LRU_INACTIVE_ANON], 8);
	assert_int_equal(counter(SIM_PGDEACTIVATE), (uint64_t)obs[1].lru[LRU_ACTIVE_ANON]);
	assert_int_equal(obs[1].young, 8);
	assert_int_equal(obs[2].young, 0);
	assert_int_equal(obs[2].present, 8);
}

/* PAGEOUT reclaims the clean page cache folios of a private file mapping. */
static void test_madvise_pageout(void **state)
{
	(void)state;
	madvise_plan(WL_MEM_FILE, 8, MADV_PAGEOUT, true);
	run_ok();
	assert_int_equal(obs[1].nrpages, 8);
	assert_int_equal(obs[2].nrpages, 0);
	assert_int_equal(obs[2].present, 0);
}

/* POPULATE_WRITE faults in every page with no fault step. */
static void test_madvise_populate(void **state)
{
	(void)state;
	madvise_plan(WL_MEM_ANON, 8, MADV_POPULATE_WRITE, false);
	run_ok();
	assert_int_equal(obs[2].present, 8);
	assert_int_equal(obs[2].writable, 8);
	assert_int_equal(counter(SIM_PGFAULT), 8);
	assert_int_equal(out.ops, 1);
}

/*
 * HUGEPAGE on 4K memory with a 16K mTHP size enabled: the VMA becomes
 * eligible, and 16 pages fault as 4 folios of 16K (4 faults); without the
 * advice, 16.
 */
static void test_madvise_hugepage(void **state)
{
	struct wl_task *t;

	(void)state;
	t = madvise_plan(WL_MEM_ANON, 16, MADV_HUGEPAGE, false);
	plan.mthp_order = 2;
	fault(t, LOOP, 0, true, 3);
	run_ok();
	assert_int_equal(counter(SIM_PGFAULT), 4);
	assert_int_equal(counter(SIM_MTHP_ANON_FAULT_ALLOC), 4);
	t->loop[0].advice = MADV_NOHUGEPAGE;
	run_ok();
	assert_int_equal(counter(SIM_PGFAULT), 16);
}

/* ---- mprotect ---------------------------------------------------------------------------------- */

/*
 * 8 written pages made read-only: 8 present, none writable; made
 * writable again, then written: the exclusive anonymous PTEs were
 * upgraded by change_protection() or fault once each, so that all 8 end
 * writable.  A write to read-only memory stops the run, naming the step.
 */
static void test_mprotect(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 8 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	fault(t, SETUP, a, true, 1);
	step(t, LOOP, WL_OP_MPROTECT, a, 2)->prot = PROT_READ;
	step(t, LOOP, WL_OP_MPROTECT, a, 3)->prot = PROT_READ | PROT_WRITE;
	fault(t, LOOP, a, true, 4);
	run_ok();
	assert_int_equal(obs[1].writable, 8);
	assert_int_equal(obs[2].present, 8);
	assert_int_equal(obs[2].writable, 0);
	assert_int_equal(obs[4].writable, 8);

	t->nr_loop = 1;
	fault(t, LOOP, a, true, 7);
	assert_int_equal(run_seed(1), -1);
	assert_non_null(strstr(err, "line 7: fault: a write at offset 0: EFAULT"));
}

/* ---- fork ----------------------------------------------------------------------------------------- */

/*
 * A parent writes 8 pages and forks 2 children, which write them while
 * the parent still maps them: each child copies all 8 (wp_page_copy()),
 * 8 + 2 x 8 faults and allocations; 2 forks.
 */
static void test_fork(void **state)
{
	struct wl_task *p, *c;
	int a;

	(void)state;
	plan_init(2);
	a = mem_add("a", WL_MEM_ANON, 8 * PAGE_SIZE);
	p = group_add("parent", 1, 1);
	c = group_add("child", 2, 1);
	c->forked = true;
	step(p, SETUP, WL_OP_MMAP, a, 0);
	fault(p, SETUP, a, true, 1);
	step(p, LOOP, WL_OP_FORK, -1, 2)->task = 1;
	step(p, TEARDOWN, WL_OP_SLEEP, -1, 0)->time_ns = 1000000;
	fault(c, LOOP, a, true, 3);
	run_ok();
	assert_int_equal(obs[2].writable, 0);	/* the parent's PTEs write-protected */
	assert_int_equal(obs[3].writable, 8);
	assert_int_equal(counter(SIM_NR_FORKS), 2);
	assert_int_equal(counter(SIM_PGFAULT), 24);
	assert_int_equal(counter(SIM_PGALLOC_NORMAL), 24);
	assert_int_equal(counter(SIM_PGFREE), 24);
	assert_int_equal(out.ops, 16);
}

/* ---- access ---------------------------------------------------------------------------------------- */

/*
 * 16 sequential stores over 8 pages (a stride of half a page): 8 faults,
 * 16 operations.  hot:1.0:0.25 stores only to the first quarter (2 pages);
 * zipf:4 mostly to the first page.
 */
static void test_access(void **state)
{
	struct wl_step *s;
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 8 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	s = step(t, LOOP, WL_OP_ACCESS, a, 1);
	s->write = true;
	s->counted = true;
	s->stride = PAGE_SIZE / 2;
	s->nr = 16;
	run_ok();
	assert_int_equal(counter(SIM_PGFAULT), 8);
	assert_int_equal(obs[1].present, 8);
	assert_int_equal(out.ops, 16);

	s->pattern = WL_PAT_HOT;
	s->hot_prob = 1.0;
	s->hot_frac = 0.25;
	s->stride = PAGE_SIZE;
	s->nr = 256;
	run_ok();
	assert_int_equal(obs[1].present, 2);
	assert_int_not_equal(obs[1].ids[0], 0);
	assert_int_not_equal(obs[1].ids[1], 0);

	s->pattern = WL_PAT_ZIPF;
	s->zipf_s = 4.0;
	run_ok();
	assert_true(obs[1].present >= 1 && obs[1].present < 8);
	assert_int_not_equal(obs[1].ids[0], 0);

	s->pattern = WL_PAT_RANDOM;
	run_ok();
	assert_int_equal(obs[1].present, 8);
}

/* ---- sleep, barrier, loops ------------------------------------------------------------------------ */

/*
 * Task a (cpu 0) sleeps 1 ms, then meets task b (cpu 1) at the barrier,
 * which b reached at once: b leaves it after 1 ms.  Three times.
 */
static void test_barrier(void **state)
{
	struct wl_task *a, *b;

	(void)state;
	plan_init(2);
	a = group_add("a", 1, 3);
	b = group_add("b", 1, 3);
	a->cpu = 0;
	b->cpu = 1;
	step(a, LOOP, WL_OP_SLEEP, -1, 1)->time_ns = 1000000;
	step(a, LOOP, WL_OP_BARRIER, -1, 2);
	step(b, LOOP, WL_OP_BARRIER, -1, 3);
	run_ok();
	assert_true(obs[1].now >= 3 * SIM_MS);
	assert_true(obs[3].now >= 3 * SIM_MS);
	assert_true(res.runtime_s >= 0.003);
}

/*
 * A 100 us loop whose iteration maps, unmaps (2 counted operations) and
 * sleeps 10 us: at most 10 iterations begin, so 2 <= ops <= 20, even; the
 * rate is over the duration.
 */
static void test_duration(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 4 * PAGE_SIZE);
	t = group_add("w", 1, 0);
	t->duration_ns = 100000;
	step(t, LOOP, WL_OP_MMAP, a, 0)->counted = true;
	step(t, LOOP, WL_OP_MUNMAP, a, 0)->counted = true;
	step(t, LOOP, WL_OP_SLEEP, -1, 1)->time_ns = 10000;
	run_ok();
	assert_true(out.ops >= 2 && out.ops <= 20);
	assert_int_equal(out.ops % 2, 0);
	assert_true(obs[1].now >= 100 * SIM_US);
	assert_true(fabs(out.ops_per_task_s - (double)out.ops / 100e-6) < 1e-6 * out.ops_per_task_s);
}

/* repeat = 7 of map, write 4 pages (counted), unmap: 28 operations and faults, 7 mmaps. */
static void test_repeat(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 4 * PAGE_SIZE);
	t = group_add("w", 1, 7);
	step(t, LOOP, WL_OP_MMAP, a, 0);
	fault(t, LOOP, a, true, 0);
	step(t, LOOP, WL_OP_MUNMAP, a, 0);
	run_ok();
	assert_int_equal(out.ops, 28);
	assert_int_equal(counter(SIM_PGFAULT), 28);
	assert_int_equal(counter(SIM_SIM_MMAP), 7);
	assert_true(out.ops_per_task_s > 0);
	assert_true(fabs(out.ops_per_s - out.ops_per_task_s) < 1e-9 * out.ops_per_s);

	/*
	 * A random phase: the first iteration faults from page k, one more
	 * maps again for pages 0..k-1: still 28 faults, 8 mmaps (k != 0 at
	 * this seed).
	 */
	t->start_random_phase = true;
	run_ok();
	assert_int_equal(out.ops, 28);
	assert_int_equal(counter(SIM_PGFAULT), 28);
	assert_int_equal(counter(SIM_SIM_MMAP), 8);
}

/*
 * runtime_s is the loop's time alone: a 5 ms sleep in setup and a 3 ms one
 * in teardown around a loop of one 1 ms sleep (counted by a fault of one
 * page): the engine's makespan holds all 9 ms, runtime_s the loop's 1 ms
 * and the fault.
 */
static void test_runtime_loop_only(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_SLEEP, -1, 0)->time_ns = 5000000;
	step(t, SETUP, WL_OP_MMAP, a, 0);
	step(t, LOOP, WL_OP_SLEEP, -1, 0)->time_ns = 1000000;
	fault(t, LOOP, a, true, 0);
	step(t, TEARDOWN, WL_OP_SLEEP, -1, 0)->time_ns = 3000000;
	run_ok();
	assert_int_equal(out.ops, 1);
	assert_true(res.runtime_s >= 0.009);
	assert_true(out.runtime_s >= 0.001 && out.runtime_s < 0.0011);
}

/* Two tasks with random orders, delays and phases: the same seed, the same run. */
static void test_same_seed(void **state)
{
	struct sim_variant_result r1;
	struct wl_sim_out o1;
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(2);
	a = mem_add("a", WL_MEM_ANON, 32 * PAGE_SIZE);
	t = group_add("w", 2, 3);
	t->threads = true;
	t->start_delay_ns = 50000;
	t->start_random_phase = true;
	step(t, LOOP, WL_OP_MMAP, a, 0);
	fault(t, LOOP, a, true, 0)->order = WL_ORDER_RANDOM;
	step(t, LOOP, WL_OP_MUNMAP, a, 0);
	assert_int_equal(run_seed(7), 0);
	r1 = res;
	o1 = out;
	assert_int_equal(run_seed(7), 0);
	assert_memory_equal(r1.counters, res.counters, sizeof(res.counters));
	assert_true(r1.runtime_s == res.runtime_s);
	assert_int_equal(r1.events, res.events);
	assert_true(o1.ops_per_task_s == out.ops_per_task_s);
	assert_int_equal(o1.ops, 192);
}

/* ---- deferred-split: the C workload and the plan that replaces it ---------------------------------- */

static void ds_setup(struct mm_model *m, const struct sim_run_config *cfg)
{
	m->preferred_nid = 0;
	m->queue_after_ptl = sim_param(cfg, "queue_site") == 1;
	m->unqueue_batch_locked = sim_param(cfg, "unqueue_lock") == 1;
}

static void ds_plan(const struct sim_run_config *cfg)
{
	uint64_t mthp = sim_param(cfg, "mthp");
	bool dontneed = sim_param(cfg, "unmap") == 1;
	struct wl_task *t;
	struct wl_step *f;
	int a;

	plan_init((int)sim_param(cfg, "threads"));
	plan.node_memory = sim_param(cfg, "node_memory");
	plan.mthp_order = __builtin_ctzll(mthp) - PAGE_SHIFT;
	a = mem_add("buf", WL_MEM_ANON, sim_param(cfg, "region"));
	plan.memory[a].page = mthp;
	t = group_add("fault-unmap", (int)sim_param(cfg, "threads"), sim_param(cfg, "rounds"));
	t->threads = sim_param(cfg, "workers") == 0;
	t->start_delay_ns = sim_param(cfg, "start_spread");
	t->start_random_phase = sim_param(cfg, "round_phase") == 0;
	step(t, dontneed ? SETUP : LOOP, WL_OP_MMAP, a, 0);
	f = fault(t, LOOP, a, true, 0);
	f->stride = mthp;
	if (dontneed) {
		step(t, LOOP, WL_OP_MADVISE, a, 0)->advice = MADV_DONTNEED;
		step(t, TEARDOWN, WL_OP_MUNMAP, a, 0);
	} else {
		step(t, LOOP, WL_OP_MUNMAP, a, 0);
	}
}

/*
 * The experiment's run (the shipped file deferred-split-rounds, resolved)
 * and this plan built by hand after the C workload it replaced
 * (fault_unmap.c, until the file took its place) are one simulation: the
 * same counters, lock statistics, engine events and virtual time, for
 * threads and processes, both ways of emptying a round, a random phase
 * and a start spread.  (Before the switch this test compared the plan with
 * fault_unmap.c itself, and passed.)
 */
static void test_deferred_split_identity(void **state)
{
	static const char *const sets[][2] = {
		{ "workers=threads", "unmap=munmap" },
		{ "workers=processes", "unmap=munmap" },
		{ "workers=threads", "unmap=dontneed" },
		{ "workers=processes", "unmap=dontneed" },
	};
	const struct scenario_ops *s = sim_scenario_find("deferred-split");
	struct wl_sim_hooks hooks = { .setup = ds_setup };
	struct sim_variant_result c;
	struct sim_run_config cfg;
	size_t i;
	int v, l;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		for (v = 1; v <= 2; v++) {
			assert_int_equal(sim_profile_load(s->profile, &prof, err, sizeof(err)), 0);
			sim_run_config_init(&cfg, s, &prof, 3);
			cfg.check = true;
			assert_true(sim_run_config_set(&cfg, "threads=4", err, sizeof(err)) >= 0);
			assert_true(sim_run_config_set(&cfg, "rounds=2", err, sizeof(err)) >= 0);
			assert_true(sim_run_config_set(&cfg, "region=512K", err, sizeof(err)) >= 0);
			assert_true(sim_run_config_set(&cfg, "start_spread=20us", err, sizeof(err)) >= 0);
			assert_true(sim_run_config_set(&cfg, sets[i][0], err, sizeof(err)) >= 0);
			assert_true(sim_run_config_set(&cfg, sets[i][1], err, sizeof(err)) >= 0);
			memset(&c, 0, sizeof(c));
			c.name = s->variants[v].name;
			assert_int_equal(s->run(&cfg, v, &c, err, sizeof(err)), 0);

			ds_plan(&cfg);
			memset(&res, 0, sizeof(res));
			res.name = s->variants[v].name;
			if (workload_sim_run(&plan, &cfg, s->variants[v].mm, &hooks, &res, &out, err,
					     sizeof(err)))
				fail_msg("%s", err);
			assert_memory_equal(c.counters, res.counters, sizeof(c.counters));
			assert_int_equal(c.events, res.events);
			assert_true(c.runtime_s == res.runtime_s);
			assert_int_equal(c.nr_locks, res.nr_locks);
			for (l = 0; l < c.nr_locks; l++)
				assert_memory_equal(&c.locks[l], &res.locks[l], sizeof(c.locks[l]));
			assert_int_equal(out.ops, 4 * 2 * (512 / 16));
		}
	}
}

/* ---- khugepaged-cold's additions (issue 30) ----------------------------------------------------------- */

/* An access step on memory a: @nr accesses of @pattern, counted when @counted. */
static struct wl_step *access_step(struct wl_task *t, int list, int a, bool write,
				   enum wl_pattern pattern, uint64_t nr, int line)
{
	struct wl_step *s = step(t, list, WL_OP_ACCESS, a, line);

	s->write = write;
	s->pattern = pattern;
	s->nr = nr;
	s->counted = list == LOOP;
	return s;
}

/*
 * pattern=shuffled over 8 pages: 4 stores of one pass land on 4 different
 * pages (a pass never repeats a slot; at random, 4 of 8 repeat one with
 * probability 0.59) and not on the first four (at seed 1: the order is a
 * permutation, not the identity); 16 stores, two passes, reach all 8.
 */
static void test_shuffled(void **state)
{
	struct wl_task *t;
	struct wl_step *s;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 8 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	s = access_step(t, LOOP, a, true, WL_PAT_SHUFFLED, 4, 1);
	run_ok();
	assert_int_equal(obs[1].present, 4);
	assert_false(obs[1].ids[0] && obs[1].ids[1] && obs[1].ids[2] && obs[1].ids[3]);
	assert_int_equal(out.ops, 4);
	s->nr = 16;
	run_ok();
	assert_int_equal(obs[1].present, 8);
	assert_int_equal(out.ops, 16);
}

/*
 * uops= on the desktop profile (the overlap model): 2000 random loads over
 * 512 pages take more than twice as long with 1024 micro-ops per load as
 * with 1: the reorder buffer (R entries) then holds fewer than one load's
 * micro-ops, so the loads no longer overlap (the window bound, window
 * cycles x U / R, exceeds every other).  The loop's time is out.loop_ps;
 * the page walks of its CPU's TLB in the loop, out.loop_dtlb_walks, are
 * the same for both (the same addresses: uops changes no draw).
 */
static void test_uops(void **state)
{
	struct wl_task *t;
	struct wl_step *s;
	uint64_t t1, w1;
	char e[256];
	int a;

	(void)state;
	plan_init(1);
	assert_int_equal(sim_profile_load("desktop", &prof, e, sizeof(e)), 0);
	a = mem_add("a", WL_MEM_ANON, 512 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	access_step(t, SETUP, a, true, WL_PAT_SEQ, 512, 0);
	s = access_step(t, LOOP, a, false, WL_PAT_RANDOM, 2000, 1);
	s->uops = 1;
	run_ok();
	t1 = out.loop_ps;
	w1 = out.loop_dtlb_walks;
	assert_true(t1 > 0);
	s->uops = 1024;
	run_ok();
	assert_true(out.loop_ps > 2 * t1);
	assert_int_equal(out.loop_dtlb_walks, w1);
}

/*
 * mem.access_loop: 100,000 sequential stores over 4 pages (in L1 and the
 * TLB once the setup has touched them) with seq:5 take 5 cycles each,
 * within 1% (the loop's own instructions bound every batch), in the
 * overlap model (desktop) and the flat one (skylake-sp-2s); with none they
 * cost the issue slot, a fraction of that.  random:8 does not change a
 * sequential step.
 */
static void test_access_loop(void **state)
{
	for (int flat = 0; flat < 2; flat++) {
		struct wl_task *t;
		double want, none;
		char e[256];
		int a;

		plan_init(1);
		if (!flat)
			assert_int_equal(sim_profile_load("desktop", &prof, e, sizeof(e)), 0);
		a = mem_add("a", WL_MEM_ANON, 4 * PAGE_SIZE);
		t = group_add("w", 1, 1);
		step(t, SETUP, WL_OP_MMAP, a, 0);
		access_step(t, SETUP, a, true, WL_PAT_SEQ, 512, 0);
		access_step(t, LOOP, a, true, WL_PAT_SEQ, 100000, 1)->stride = 8;
		snprintf(prof.mem_access_loop, sizeof(prof.mem_access_loop), "none");
		run_ok();
		none = (double)out.loop_ps;
		snprintf(prof.mem_access_loop, sizeof(prof.mem_access_loop), "seq:5 random:8");
		run_ok();
		want = 100000.0 * 5 * 1e6 / (double)prof.clock_mhz;	/* ps */
		assert_true(fabs((double)out.loop_ps - want) < want / 100);
		assert_true(none < want / 2);
	}
}

/*
 * out.loop_dtlb_walks on skylake-sp-2s (flat model): after a write touch
 * of 4096 pages in order, a read pass over them in order misses the
 * STLB (1536 entries) on every page: each set's old entries are evicted
 * by the pass's earlier pages before the pass reaches them.  4096 walks,
 * none counted before the loop (the touch's are not the loop's).
 */
static void test_loop_walks(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 4096 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	step(t, SETUP, WL_OP_MMAP, a, 0);
	access_step(t, SETUP, a, true, WL_PAT_SEQ, 4096, 0);
	access_step(t, LOOP, a, false, WL_PAT_SEQ, 4096, 1);
	run_ok();
	assert_int_equal(out.loop_dtlb_walks, 4096);
	/* the touch walks twice a page: the walk that faults, and the retry's */
	assert_int_equal(counter(SIM_DTLB_LOAD_MISSES), 3 * 4096);
	assert_true(out.loop_ps > 0 && out.loop_ps < (uint64_t)(obs[1].now));
}

/*
 * until: task a (cpu 0) sleeps 1 ms and reads one page (counted) each
 * iteration until group b's loop (a 4.5 ms sleep, cpu 1) has ended.  It
 * checks before each step: its reads at 1, 2, 3 and 4 ms run (b not
 * done); at 5 ms, after the fifth sleep, b is done and the read is
 * skipped: 4 operations, the last at 4 ms.  An access step of 10^8 loads in an until loop
 * stops between two batches of 64 once b (a 100 us sleep) is done.
 */
static void test_until(void **state)
{
	struct wl_task *ta, *tb;
	int a;

	(void)state;
	plan_init(2);
	a = mem_add("a", WL_MEM_ANON, PAGE_SIZE);
	ta = group_add("a", 1, 0);
	ta->until = true;
	ta->until_group = 1;
	ta->cpu = 0;
	step(ta, SETUP, WL_OP_MMAP, a, 0);
	step(ta, LOOP, WL_OP_SLEEP, -1, 1)->time_ns = 1000000;
	fault(ta, LOOP, a, false, 2);
	tb = group_add("b", 1, 1);
	tb->cpu = 1;
	step(tb, LOOP, WL_OP_SLEEP, -1, 3)->time_ns = 4500000;
	run_ok();
	assert_int_equal(out.ops, 4);
	assert_true(obs[2].now >= 4 * SIM_MS && obs[2].now < 5 * SIM_MS);
	assert_true(obs[1].now >= 5 * SIM_MS);

	ta->nr_loop = 0;
	access_step(ta, LOOP, a, false, WL_PAT_SEQ, 100000000, 4);
	tb->loop[0].time_ns = 100000;
	run_ok();
	assert_true(out.ops > 0 && out.ops < 100000000);
	assert_int_equal(out.ops % 64, 0);
	assert_true(obs[4].now >= 100 * SIM_US && obs[4].now < 200 * SIM_US);
}

/*
 * loop_at = 2 ms: the task maps its page at 0, sleeps, and its loop (one
 * counted write fault) begins at 2 ms: the fault's step ends after 2 ms,
 * and the loop's time (out.loop_ps) is the fault's alone, not the wait.
 * A loop_at before the setup's end begins the loop at once.
 */
static void test_loop_at(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, PAGE_SIZE);
	t = group_add("w", 1, 1);
	t->has_loop_at = true;
	t->loop_at_ns = 2000000;
	step(t, SETUP, WL_OP_MMAP, a, 1);
	fault(t, LOOP, a, true, 2);
	run_ok();
	assert_true(obs[1].now < SIM_MS);
	assert_true(obs[2].now >= 2 * SIM_MS);
	assert_true(out.loop_ps > 0 && out.loop_ps < SIM_MS);

	t->loop_at_ns = 0;
	run_ok();
	assert_true(obs[2].now < SIM_MS);
}

/*
 * first_fault = in_order: task x (created first, cpu 0) sleeps 1 ms
 * before its first fault; task y (cpu 1) faults at once, unless it must
 * wait for x's first fault: then its fault ends after 1 ms.
 */
static void test_first_fault(void **state)
{
	struct wl_task *x, *y;
	int a;

	(void)state;
	plan_init(2);
	a = mem_add("a", WL_MEM_ANON, PAGE_SIZE);
	x = group_add("x", 1, 1);
	x->cpu = 0;
	step(x, SETUP, WL_OP_SLEEP, -1, 1)->time_ns = 1000000;
	step(x, SETUP, WL_OP_MMAP, a, 0);
	fault(x, LOOP, a, true, 2);
	y = group_add("y", 1, 1);
	y->cpu = 1;
	step(y, SETUP, WL_OP_MMAP, a, 0);
	fault(y, LOOP, a, true, 3);
	run_ok();
	assert_true(obs[3].now < SIM_MS);
	plan.first_fault_in_order = true;
	run_ok();
	assert_true(obs[3].now >= SIM_MS);
	assert_true(obs[3].now >= obs[2].now - 10 * SIM_US);
	assert_int_equal(counter(SIM_PGFAULT), 2);
}

/*
 * khugepaged = yes: one task touches its 2M (THP-eligible: thp = always,
 * faults of 4K pages) and waits 50 ms in its loop; khugepaged (cpu 1,
 * after the one task) wakes at 1 ms and then each 1 ms, and collapses the
 * 512 young PTEs into one THP: thp_collapse_alloc 1, the task's loop's
 * read finds a huge PMD.  It is stopped when the loop ends, and the task
 * exits after it.  Without khugepaged, nothing is collapsed.
 */
static void test_khugepaged(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(2);
	plan.thp = WL_THP_ALWAYS;
	plan.khugepaged = true;
	plan.khugepaged_pages_to_scan = 4096;
	plan.khugepaged_scan_sleep_ns = 1000000;
	plan.khugepaged_first_wake_ns = 1000000;
	plan.khugepaged_max_ptes_none = 511;
	plan.khugepaged_cpu = -1;
	a = mem_add("a", WL_MEM_ANON, PMD_SIZE);
	t = group_add("w", 1, 1);
	t->cpu = 0;
	step(t, SETUP, WL_OP_MMAP, a, 0);
	access_step(t, SETUP, a, true, WL_PAT_SEQ, 512, 1);
	step(t, LOOP, WL_OP_SLEEP, -1, 2)->time_ns = 50000000;
	fault(t, LOOP, a, false, 3);
	run_ok();
	assert_int_equal(counter(SIM_THP_COLLAPSE_ALLOC), 1);
	assert_int_equal(obs[1].present, 512);
	assert_int_equal(obs[3].present, 0);		/* no PTE: one huge PMD */
	assert_int_equal(counter(SIM_PGFAULT), 512);

	plan.khugepaged = false;
	run_ok();
	assert_int_equal(counter(SIM_THP_COLLAPSE_ALLOC), 0);
	assert_int_equal(obs[3].present, 512);
}

/* ---- refusals ---------------------------------------------------------------------------------------- */

/* A fault on memory not mapped, and a 2M THP page, are refused with the reason. */
static void test_refusals(void **state)
{
	struct wl_task *t;
	int a;

	(void)state;
	plan_init(1);
	a = mem_add("a", WL_MEM_ANON, 4 * PAGE_SIZE);
	t = group_add("w", 1, 1);
	fault(t, LOOP, a, true, 9);
	assert_int_equal(run_seed(1), -1);
	assert_non_null(strstr(err, "line 9: fault: a is not mapped in task w.0"));

	plan.memory[a].page = PMD_SIZE;
	plan.memory[a].thp = true;
	assert_int_equal(run_seed(1), -1);
	assert_non_null(strstr(err, "page = thp"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_anon),
		cmocka_unit_test(test_fault_order),
		cmocka_unit_test(test_fault_stride),
		cmocka_unit_test(test_shmem),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_sparse_file),
		cmocka_unit_test(test_shmem_cached),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_madvise_dontneed),
		cmocka_unit_test(test_madvise_cold),
		cmocka_unit_test(test_madvise_pageout),
		cmocka_unit_test(test_madvise_populate),
		cmocka_unit_test(test_madvise_hugepage),
		cmocka_unit_test(test_mprotect),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_barrier),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_runtime_loop_only),
		cmocka_unit_test(test_access_loop),
		cmocka_unit_test(test_same_seed),
		cmocka_unit_test(test_deferred_split_identity),
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_uops),
		cmocka_unit_test(test_loop_walks),
		cmocka_unit_test(test_until),
		cmocka_unit_test(test_loop_at),
		cmocka_unit_test(test_first_fault),
		cmocka_unit_test(test_khugepaged),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
