// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated executor of workload files (docs/workloads.md): a resolved
 * struct wl_plan run on a fresh engine and kernel model.
 *
 * Each task is a coroutine of the engine running the user-space side of
 * the workload: its steps call the model's system calls and faults
 * (vm_mmap_anon(), vm_mmap_file(), do_user_addr_fault(), user_access(),
 * do_madvise(), do_mprotect(), sim_fork(), vm_munmap(), sim_file_truncate())
 * as a program's calls reach the kernel.  The user-space code between two
 * calls costs nothing, as in the experiments' C workloads
 * (deferred-split's fault/unmap loop, which a file now expresses).
 *
 * A task, in order:
 *   switch_mm_irqs_off(its mm); a random start delay (the task's first
 *   draw); the random phase k (its second draw); setup steps; the loop
 *   (repeat times, or until duration has passed since it began, checked
 *   at the start of each iteration); teardown steps; exit: the last task
 *   of an mm unmaps what is still mapped (exit_mmap()), the last task of
 *   the run drops the files.
 *
 * Memory: a per = task region is mapped by each task (threads of one mm
 * each map their own); a per = workload one is one object: one file for
 * shmem and file memory, one mapping per mm for anonymous memory.  Forked
 * children inherit the parent's mappings in their copy of its mm.
 *
 * The barrier: every task whose group has a barrier step takes part
 * from its creation until it ends; the last to arrive wakes the others.
 *
 *   task A                              task B
 *   barrier: arrived 1 of 2, sleeps     ...
 *                                       barrier: arrived 2 of 2, wakes A
 *   runs on at B's time                 runs on
 *
 * Left out: a user-space cost between the calls; signals (a fault that
 * would be SIGSEGV or SIGBUS stops the run with an error).
 * Lock order: none of its own (the steps take the model's).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "mm/access.h"
#include "mm/mm.h"
#include "mmsim/scenario.h"
#include "mmsim/workload.h"

#define WL_ACCESS_BATCH	64	/* accesses between two charges, as hot_cold.c */

/* The unit tests observe the model after each step (tests/test_workload_sim.c). */
#ifndef WL_STEP_HOOK
#define WL_STEP_HOOK(tr, s)	do { } while (0)
#endif

/* Where one memory is mapped in one task or mm. */
struct wl_map {
	uint64_t addr;
	bool mapped;
};

/*
 * One mm and the tasks using it.
 * Invariant: users == tasks alive whose wm is this.
 */
struct wl_mm {
	struct mm_struct *mm;
	int users;
	struct wl_map map[WL_MAX_MEMORY];	/* per = workload memory */
	struct wl_mm *next;			/* on wl_run.mms */
};

struct wl_run;

/* One task's state. */
struct wl_task_run {
	struct wl_run *run;
	const struct wl_task *t;		/* its group */
	int group, index;
	struct wl_mm *wm;
	struct wl_map map[WL_MAX_MEMORY];	/* per = task memory */
	struct address_space *file[WL_MAX_MEMORY]; /* per = task shmem, file */
	bool forked;
	bool counted;				/* its loop has a counted step */
	bool in_barrier;			/* takes part in the barrier */
	uint64_t ops;
	sim_time_t loop_begin, loop_end;
	sim_time_t deadline;			/* duration loops: the loop's end, else 0 */
	int phase_step;				/* loop step of the random phase, -1: none */
	uint64_t phase_k;			/* its first address (position) */
	struct sim_task *task;			/* the engine's, once it runs */
	struct wl_task_run *barrier_next;	/* on wl_run.barrier_waiters */
	struct wl_task_run *cache_next;		/* on wl_run.cache_waiters */
	struct wl_task_run *next;		/* on wl_run.tasks */
};

/* One run of a plan. */
struct wl_run {
	const struct wl_plan *plan;
	struct mm_model *m;
	struct address_space *file[WL_MAX_MEMORY];	/* per = workload shmem, file */
	struct address_space **files;		/* every file created, for the end */
	int nr_files, cap_files;
	struct wl_mm *mms;
	struct wl_task_run *tasks;
	int live;				/* tasks not yet ended */
	/* the barrier */
	int barrier_expected, barrier_arrived;
	struct wl_task_run *barrier_waiters;
	/* the page cache loader (cached = yes files) */
	bool cache_ready;
	struct wl_task_run *cache_waiters;
	int *file_mem;				/* [nr_files]: the memory each file is */
	struct mm_struct *loader_mm;
	uint64_t loader_faults, loader_majfaults;
	bool failed;
	char err[256];
};

static const char *const wl_op_name[] = {
	[WL_OP_MMAP] = "mmap", [WL_OP_MUNMAP] = "munmap", [WL_OP_FAULT] = "fault",
	[WL_OP_ACCESS] = "access", [WL_OP_MADVISE] = "madvise", [WL_OP_MPROTECT] = "mprotect",
	[WL_OP_FORK] = "fork", [WL_OP_SLEEP] = "sleep", [WL_OP_BARRIER] = "barrier",
	[WL_OP_TRUNCATE] = "truncate",
};

/* The first error of the run stops it: every task ends at its next step. */
__attribute__((format(printf, 3, 4)))
static void wl_fail(struct wl_run *run, const struct wl_step *s, const char *fmt, ...)
{
	va_list ap;
	int off;

	if (run->failed)
		return;
	run->failed = true;
	off = snprintf(run->err, sizeof(run->err), "line %d: %s: ", s ? s->line : 0,
		       s ? wl_op_name[s->op] : "task");
	if (off < 0 || (size_t)off >= sizeof(run->err))
		return;
	va_start(ap, fmt);
	vsnprintf(run->err + off, sizeof(run->err) - (size_t)off, fmt, ap);
	va_end(ap);
}

static struct wl_map *wl_map_of(struct wl_task_run *tr, int mem)
{
	return tr->run->plan->memory[mem].per_workload ? &tr->wm->map[mem] : &tr->map[mem];
}

static struct address_space *wl_file_of(struct wl_task_run *tr, int mem)
{
	return tr->run->plan->memory[mem].per_workload ? tr->run->file[mem] : tr->file[mem];
}

static bool wl_group_has(const struct wl_task *t, enum wl_op op)
{
	int i;

	for (i = 0; i < t->nr_setup; i++)
		if (t->setup[i].op == op)
			return true;
	for (i = 0; i < t->nr_loop; i++)
		if (t->loop[i].op == op)
			return true;
	for (i = 0; i < t->nr_teardown; i++)
		if (t->teardown[i].op == op)
			return true;
	return false;
}

static bool wl_plan_has(const struct wl_plan *plan, enum wl_op op)
{
	int g;

	for (g = 0; g < plan->nr_task; g++)
		if (wl_group_has(&plan->task[g], op))
			return true;
	return false;
}

static int wl_add_file(struct wl_run *run, struct address_space *f, int mem)
{
	if (run->nr_files == run->cap_files) {
		int cap = run->cap_files ? 2 * run->cap_files : 16;
		struct address_space **n = realloc(run->files, (size_t)cap * sizeof(*n));
		int *nm;

		if (!n)
			return -1;
		run->files = n;
		nm = realloc(run->file_mem, (size_t)cap * sizeof(*nm));
		if (!nm)
			return -1;
		run->file_mem = nm;
		run->cap_files = cap;
	}
	run->file_mem[run->nr_files] = mem;
	run->files[run->nr_files++] = f;
	return 0;
}

/* A file for memory @mem, dropped by the run's last task (wl_task_exit()). */
static struct address_space *wl_file_create(struct wl_run *run, int mem)
{
	const struct wl_memory *wm = &run->plan->memory[mem];
	struct address_space *f;

	f = sim_file_create(wm->size, wm->kind == WL_MEM_SHMEM ? SIM_FILE_TMPFS : SIM_FILE_DISK);
	if (!f || wl_add_file(run, f, mem))
		return NULL;
	return f;
}

/* Wake @tr's task at this time, or its vCPU's if that is later. */
static void wl_wake(struct wl_task_run *tr)
{
	struct sim_task *t = tr->task;

	sim_wake(t, t->vcpu->now > sim_now() ? t->vcpu->now : sim_now());
}

/* ---- the barrier ---------------------------------------------------------------- */

static void wl_barrier_release(struct wl_run *run)
{
	struct wl_task_run *w = run->barrier_waiters;

	run->barrier_waiters = NULL;
	run->barrier_arrived = 0;
	while (w) {
		struct wl_task_run *next = w->barrier_next;

		w->barrier_next = NULL;
		wl_wake(w);
		w = next;
	}
}

/* barrier: wait until every task taking part has arrived (or ended). */
static void wl_barrier_wait(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;

	sim_sync();
	if (++run->barrier_arrived >= run->barrier_expected) {
		wl_barrier_release(run);
		return;
	}
	tr->barrier_next = run->barrier_waiters;
	run->barrier_waiters = tr;
	sim_sleep_block("barrier", run, "workload barrier");
}

/* A task that ends leaves the barrier: the others no longer wait for it. */
static void wl_barrier_leave(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;

	if (!tr->in_barrier)
		return;
	tr->in_barrier = false;
	run->barrier_expected--;
	if (run->barrier_arrived && run->barrier_arrived >= run->barrier_expected)
		wl_barrier_release(run);
}

/* ---- the steps -------------------------------------------------------------------- */

/* Count @n operations of a counted loop step that ended by the deadline. */
static inline void wl_count(struct wl_task_run *tr, const struct wl_step *s, bool in_loop,
			    uint64_t n)
{
	if (in_loop && s->counted && (!tr->deadline || sim_now() <= tr->deadline))
		tr->ops += n;
}

static uint64_t wl_stride(const struct wl_step *s)
{
	return s->stride ? s->stride : PAGE_SIZE;
}

/* The addresses of a fault step: nr, or one per stride of the memory. */
static uint64_t wl_fault_nr(const struct wl_plan *plan, const struct wl_step *s)
{
	uint64_t slots = plan->memory[s->mem].size / wl_stride(s);

	return s->nr ? s->nr : slots;
}

/*
 * Whether @addr is mapped for this access, as the MMU would find it: a
 * present PTE (writable, for a write) or a huge PMD.  No cost: the user's
 * store that does not fault costs nothing here.
 */
static bool wl_mapped_for(struct mm_struct *mm, uint64_t addr, bool write)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	pte_t pte;

	if (!vma)
		return false;
	if (vma->pmd_huge[vma_pmd_index(vma, addr)])
		return true;
	pte = *vma_pte_lookup(vma, addr);
	return pte_present(pte) && (!write || (pte & PTE_WRITE));
}

/* The mapping of @s's memory, or NULL (and the run fails) when it is not mapped. */
static struct wl_map *wl_mapped(struct wl_task_run *tr, const struct wl_step *s)
{
	struct wl_map *map = wl_map_of(tr, s->mem);

	if (!map->mapped) {
		wl_fail(tr->run, s, "%s is not mapped in task %s.%d: expected an `mmap %s` step before",
			tr->run->plan->memory[s->mem].name, tr->t->name, tr->index,
			tr->run->plan->memory[s->mem].name);
		return NULL;
	}
	return map;
}

static const char *wl_errno_name(int ret)
{
	switch (ret) {
	case -12: return "ENOMEM";
	case -13: return "EACCES";
	case -14: return "EFAULT (SIGSEGV: the access is not allowed)";
	case -22: return "EINVAL";
	default: return "an error";
	}
}

/*
 * fault: do_user_addr_fault() at the addresses of positions [lo, hi) of
 * the step's order (seq: address i at position i; reverse: n - 1 - i;
 * random: a permutation drawn from the task's generator each time).
 */
static void wl_fault(struct wl_task_run *tr, const struct wl_step *s, bool in_loop, uint64_t lo,
		     uint64_t hi)
{
	const struct wl_plan *plan = tr->run->plan;
	struct mm_struct *mm = tr->wm->mm;
	uint64_t stride = wl_stride(s), n = wl_fault_nr(plan, s);
	uint64_t slots = plan->memory[s->mem].size / stride, *perm = NULL, p;
	struct wl_map *map = wl_mapped(tr, s);

	if (!map || !slots)
		return;
	if (hi > n)
		hi = n;
	if (s->order == WL_ORDER_RANDOM && hi > lo) {
		perm = malloc(n * sizeof(*perm));
		if (!perm) {
			wl_fail(tr->run, s, "out of memory for a random order of %llu addresses",
				(unsigned long long)n);
			return;
		}
		for (p = 0; p < n; p++)
			perm[p] = p;
		for (p = n - 1; p > 0; p--) {
			uint64_t j = sim_rng_below(&sim_current()->rng, p + 1), t = perm[p];

			perm[p] = perm[j];
			perm[j] = t;
		}
	}
	for (p = lo; p < hi; p++) {
		uint64_t i = s->order == WL_ORDER_SEQ ? p : s->order == WL_ORDER_REVERSE ? n - 1 - p :
			     perm[p];
		uint64_t addr = map->addr + (i % slots) * stride;

		if (!wl_mapped_for(mm, addr, s->write)) {
			int ret = do_user_addr_fault(mm, addr, s->write);

			if (ret) {
				wl_fail(tr->run, s, "%s %s at offset %llu: %s",
					plan->memory[s->mem].name, s->write ? "write" : "read",
					(unsigned long long)(addr - map->addr), wl_errno_name(ret));
				break;
			}
		}
		wl_count(tr, s, in_loop, 1);
	}
	free(perm);
}

/* The zipf CDF over @n slots with exponent @e: cdf[i] = P(slot <= i). */
static double *wl_zipf_cdf(uint64_t n, double e)
{
	double *cdf = malloc(n * sizeof(*cdf)), sum = 0;
	uint64_t i;

	if (!cdf)
		return NULL;
	for (i = 0; i < n; i++) {
		sum += pow((double)(i + 1), -e);
		cdf[i] = sum;
	}
	for (i = 0; i < n; i++)
		cdf[i] /= sum;
	return cdf;
}

/* A uniform double in [0, 1) from the task's generator. */
static inline double wl_unit(struct sim_rng *rng)
{
	return (double)(sim_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* The slot of access @j of an access step. */
static inline uint64_t wl_access_slot(const struct wl_step *s, uint64_t j, uint64_t slots,
				      const double *cdf, struct sim_rng *rng)
{
	uint64_t hot, lo, hi;
	double u;

	switch (s->pattern) {
	case WL_PAT_SEQ:
		return j % slots;
	case WL_PAT_RANDOM:
		return sim_rng_below(rng, slots);
	case WL_PAT_ZIPF:
		u = wl_unit(rng);
		lo = 0;
		hi = slots - 1;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (cdf[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		return lo;
	case WL_PAT_HOT:
		hot = (uint64_t)(s->hot_frac * (double)slots);
		if (!hot)
			hot = 1;
		if (hot >= slots || wl_unit(rng) < s->hot_prob)
			return sim_rng_below(rng, hot);
		return hot + sim_rng_below(rng, slots - hot);
	}
	return 0;
}

/*
 * access: user loads or stores through the vCPU's TLB and caches
 * (user_access(), src/mm/access.c), charged every WL_ACCESS_BATCH; a walk
 * that finds nothing mapped faults.
 */
static void wl_access(struct wl_task_run *tr, const struct wl_step *s, bool in_loop)
{
	const struct wl_plan *plan = tr->run->plan;
	uint64_t stride = wl_stride(s), slots = plan->memory[s->mem].size / stride;
	uint64_t n = s->nr ? s->nr : slots, j, done = 0;
	struct wl_map *map = wl_mapped(tr, s);
	struct sim_rng *rng = &sim_current()->rng;
	struct vm_area_struct *vma;
	struct user_access ua;
	double *cdf = NULL;

	if (!map || !slots)
		return;
	vma = find_vma(tr->wm->mm, map->addr);
	if (s->pattern == WL_PAT_ZIPF) {
		cdf = wl_zipf_cdf(slots, s->zipf_s);
		if (!cdf) {
			wl_fail(tr->run, s, "out of memory for a zipf table of %llu slots",
				(unsigned long long)slots);
			return;
		}
	}
	user_access_init(&ua, vma);
	for (j = 0; j < n; j++) {
		user_access(&ua, map->addr + wl_access_slot(s, j, slots, cdf, rng) * stride,
			    s->write);
		if ((j & (WL_ACCESS_BATCH - 1)) == WL_ACCESS_BATCH - 1) {
			user_access_charge(&ua);
			wl_count(tr, s, in_loop, j + 1 - done);
			done = j + 1;
		}
	}
	user_access_charge(&ua);
	wl_count(tr, s, in_loop, n - done);
	free(cdf);
}

/* mmap: the memory's kind of mapping, then its policy (mbind()). */
static void wl_mmap(struct wl_task_run *tr, const struct wl_step *s)
{
	const struct wl_plan *plan = tr->run->plan;
	const struct wl_memory *mem = &plan->memory[s->mem];
	struct wl_map *map = wl_map_of(tr, s->mem);
	struct mm_struct *mm = tr->wm->mm;
	unsigned long nodes = 0;
	unsigned short mode = MPOL_DEFAULT;
	uint64_t addr;
	int ret;

	if (map->mapped) {
		if (mem->per_workload)
			return;		/* another thread of this mm mapped it */
		wl_fail(tr->run, s, "%s is already mapped in task %s.%d: expected a munmap before",
			mem->name, tr->t->name, tr->index);
		return;
	}
	if (mem->kind == WL_MEM_ANON && !mem->shared)
		addr = vm_mmap_anon(mm, mem->size, mem->page > PAGE_SIZE || plan->thp == WL_THP_ALWAYS);
	else if (mem->kind == WL_MEM_ANON)
		addr = vm_mmap_shared_anon(mm, mem->size);
	else
		addr = vm_mmap_file(mm, wl_file_of(tr, s->mem), 0, mem->size, mem->shared, true);
	map->addr = addr;
	map->mapped = true;
	switch (mem->numa) {
	case WL_NUMA_LOCAL:
		return;
	case WL_NUMA_BIND:
		mode = MPOL_BIND;
		nodes = 1UL << mem->node;
		break;
	case WL_NUMA_PREFERRED:
		mode = MPOL_PREFERRED;
		nodes = 1UL << mem->node;
		break;
	case WL_NUMA_INTERLEAVE:
		mode = MPOL_INTERLEAVE;
		nodes = (1UL << tr->run->m->nr_nodes) - 1;
		break;
	}
	ret = do_mbind(mm, addr, mem->size, mode, nodes);
	if (ret)
		wl_fail(tr->run, s, "%s: mbind(): %s (the profile has %d nodes)", mem->name,
			wl_errno_name(ret), tr->run->m->nr_nodes);
}

static void wl_munmap(struct wl_task_run *tr, const struct wl_step *s)
{
	const struct wl_memory *mem = &tr->run->plan->memory[s->mem];
	struct wl_map *map = wl_map_of(tr, s->mem);

	if (!map->mapped) {
		if (mem->per_workload)
			return;		/* another thread of this mm unmapped it */
		wl_mapped(tr, s);
		return;
	}
	vm_munmap(tr->wm->mm, map->addr, mem->size);
	map->mapped = false;
}

static void wl_task_main(void *arg);
static bool wl_counted(const struct wl_task *t);

/*
 * fork: group s->task's tasks, each a child process of this task on a
 * copy of its mm (dup_mmap()), inheriting its mappings.
 */
static void wl_fork(struct wl_task_run *tr, const struct wl_step *s)
{
	struct wl_run *run = tr->run;
	const struct wl_task *ct = &run->plan->task[s->task];
	int i;

	for (i = 0; i < ct->count && !run->failed; i++) {
		struct wl_task_run *c = calloc(1, sizeof(*c));
		struct wl_mm *wm = calloc(1, sizeof(*wm));
		struct mm_struct *child_mm = NULL;

		if (!c || !wm) {
			free(c);
			free(wm);
			wl_fail(run, s, "out of memory for task %s.%d", ct->name, i);
			return;
		}
		*c = *tr;
		c->t = ct;
		c->group = s->task;
		c->index = i;
		c->forked = true;
		c->counted = wl_counted(ct);
		c->ops = 0;
		c->loop_begin = c->loop_end = c->deadline = 0;
		c->task = NULL;
		c->barrier_next = c->cache_next = NULL;
		c->in_barrier = wl_group_has(ct, WL_OP_BARRIER);
		c->wm = wm;
		memcpy(wm->map, tr->wm->map, sizeof(wm->map));
		wm->users = 1;
		wm->next = run->mms;
		run->mms = wm;
		c->next = run->tasks;
		run->tasks = c;
		run->live++;
		if (c->in_barrier)
			run->barrier_expected++;
		c->task = sim_fork(ct->name, wl_task_main, c, &child_mm);
		wm->mm = child_mm;
		if (!c->task) {
			/* it never runs: it leaves what it joined */
			wl_barrier_leave(c);
			run->live--;
			wm->users = 0;
			wl_fail(run, s, "%s: dup_mmap() refused the copy (a swap PTE or a "
				"PMD-mapped THP in a private anonymous mapping)", ct->name);
		}
	}
}

static void wl_step_run(struct wl_task_run *tr, const struct wl_step *s, bool in_loop,
			uint64_t lo, uint64_t hi)
{
	const struct wl_memory *mem = s->mem >= 0 ? &tr->run->plan->memory[s->mem] : NULL;
	struct wl_map *map;
	uint64_t off, len;
	int ret;

	switch (s->op) {
	case WL_OP_MMAP:
		wl_mmap(tr, s);
		break;
	case WL_OP_MUNMAP:
		wl_munmap(tr, s);
		break;
	case WL_OP_FAULT:
		wl_fault(tr, s, in_loop, lo, hi);
		return;
	case WL_OP_ACCESS:
		wl_access(tr, s, in_loop);
		return;
	case WL_OP_MADVISE:
		map = wl_mapped(tr, s);
		if (!map)
			return;
		off = s->offset;
		len = s->len ? s->len : mem->size - off;
		ret = do_madvise(tr->wm->mm, map->addr + off, len, s->advice);
		if (ret < 0)
			wl_fail(tr->run, s, "%s: advice %d: %s", mem->name, s->advice,
				wl_errno_name(ret));
		break;
	case WL_OP_MPROTECT:
		map = wl_mapped(tr, s);
		if (!map)
			return;
		ret = do_mprotect(tr->wm->mm, map->addr, mem->size, s->prot);
		if (ret < 0)
			wl_fail(tr->run, s, "%s: prot %u: %s (the model takes read and read,write)",
				mem->name, s->prot, wl_errno_name(ret));
		break;
	case WL_OP_FORK:
		wl_fork(tr, s);
		break;
	case WL_OP_SLEEP:
		sim_sleep_ps(s->time_ns * SIM_NS);
		return;
	case WL_OP_BARRIER:
		wl_barrier_wait(tr);
		return;
	case WL_OP_TRUNCATE:
		ret = sim_file_truncate(wl_file_of(tr, s->mem), s->size);
		if (ret < 0)
			wl_fail(tr->run, s, "%s to %llu bytes: %s (at most its size)", mem->name,
				(unsigned long long)s->size, wl_errno_name(ret));
		break;
	}
	wl_count(tr, s, in_loop, 1);
}

/* ---- a task ---------------------------------------------------------------------- */

/* exit_mmap() of the last task of an mm, the files after the run's last task. */
static void wl_task_exit(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;
	struct mm_struct *mm = tr->wm->mm;
	int i;

	wl_barrier_leave(tr);
	if (--tr->wm->users == 0) {
		while (!list_empty(&mm->vmas)) {
			struct vm_area_struct *vma = list_first_entry(&mm->vmas,
								      struct vm_area_struct, node);

			if (vm_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start))
				break;
		}
	}
	if (--run->live == 0) {
		for (i = 0; i < run->nr_files; i++)
			sim_file_destroy(run->files[i]);
		run->nr_files = 0;
	}
}

static void wl_steps(struct wl_task_run *tr, const struct wl_step *steps, int nr)
{
	int i;

	for (i = 0; i < nr && !tr->run->failed; i++) {
		wl_step_run(tr, &steps[i], false, 0, UINT64_MAX);
		WL_STEP_HOOK(tr, &steps[i]);
	}
}

static void wl_task_main(void *arg)
{
	struct wl_task_run *tr = arg;
	struct wl_run *run = tr->run;
	const struct wl_task *t = tr->t;
	struct sim_rng *rng;
	uint64_t iters, r, k = 0, n = 0;
	int j;

	tr->task = sim_current();
	rng = &sim_current()->rng;
	if (tr->forked)
		tr->wm->mm = sim_current()->mm;	/* sim_fork() loaded it */
	else
		switch_mm_irqs_off(tr->wm->mm);
	if (!run->cache_ready) {
		tr->cache_next = run->cache_waiters;
		run->cache_waiters = tr;
		sim_sleep_block("pagecache", run, "the files' loading");
	}
	if (t->start_delay_ns)
		sim_sleep_ps(sim_rng_next(rng) % (t->start_delay_ns * SIM_NS));
	tr->phase_step = -1;
	for (j = 0; j < t->nr_loop; j++)
		if (t->loop[j].op == WL_OP_FAULT) {
			tr->phase_step = j;
			n = wl_fault_nr(run->plan, &t->loop[j]);
			break;
		}
	if (t->start_random_phase && n)
		k = sim_rng_next(rng) % n;
	tr->phase_k = k;

	wl_steps(tr, t->setup, t->nr_setup);
	iters = t->repeat ? t->repeat + (k ? 1 : 0) : UINT64_MAX;
	tr->loop_begin = sim_now();
	if (t->duration_ns)
		tr->deadline = tr->loop_begin + t->duration_ns * SIM_NS;
	for (r = 0; r < iters && !run->failed; r++) {
		if (tr->deadline && sim_now() >= tr->deadline)
			break;
		for (j = 0; j < t->nr_loop && !run->failed; j++) {
			uint64_t lo = 0, hi = UINT64_MAX;

			if (j == tr->phase_step && k) {
				if (r == 0)
					lo = k;
				if (t->repeat && r == iters - 1)
					hi = k;
			}
			wl_step_run(tr, &t->loop[j], true, lo, hi);
			WL_STEP_HOOK(tr, &t->loop[j]);
		}
		sim_work_done(1);
	}
	tr->loop_end = sim_now();
	wl_steps(tr, t->teardown, t->nr_teardown);
	wl_task_exit(tr);
}

/*
 * The files whose memory says cached = yes are read into the page cache
 * before any task starts (as by an earlier reader): read faults of a
 * mapping of each, in a task of its own; its faults are not the run's.
 */
static void wl_loader(void *arg)
{
	struct wl_run *run = arg;
	struct mm_struct *mm = run->loader_mm;
	uint64_t *c = sim_engine_counters(sim_engine_current);
	uint64_t f0 = c[SIM_PGFAULT], mj0 = c[SIM_PGMAJFAULT], a, addr;
	struct wl_task_run *w;
	int i;

	switch_mm_irqs_off(mm);
	for (i = 0; i < run->nr_files; i++) {
		const struct wl_memory *mem = &run->plan->memory[run->file_mem[i]];

		if (mem->kind != WL_MEM_FILE || !mem->cached)
			continue;
		addr = vm_mmap_file(mm, run->files[i], 0, mem->size, false, false);
		for (a = addr; a < addr + mem->size; a += PAGE_SIZE)
			if (!wl_mapped_for(mm, a, false))
				do_user_addr_fault(mm, a, false);
		vm_munmap(mm, addr, mem->size);
	}
	run->loader_faults = c[SIM_PGFAULT] - f0;
	run->loader_majfaults = c[SIM_PGMAJFAULT] - mj0;
	run->cache_ready = true;
	w = run->cache_waiters;
	run->cache_waiters = NULL;
	for (; w; w = w->cache_next)
		wl_wake(w);
}

/* ---- the run ------------------------------------------------------------------------ */

static int wl_check_plan(const struct wl_plan *plan, char *err, size_t len)
{
	int i, g, j;

	for (i = 0; i < plan->nr_memory; i++)
		if (plan->memory[i].thp || plan->memory[i].page >= PMD_SIZE) {
			snprintf(err, len, "memory %s: page = thp: the model has no PMD-mapped THP "
				 "fault (do_huge_pmd_anonymous_page()); expected 4K or an mTHP size",
				 plan->memory[i].name);
			return -1;
		}
	for (g = 0; g < plan->nr_task; g++) {
		const struct wl_task *t = &plan->task[g];

		for (j = 0; j < t->nr_setup + t->nr_loop + t->nr_teardown; j++) {
			const struct wl_step *s = j < t->nr_setup ? &t->setup[j] :
						  j < t->nr_setup + t->nr_loop ?
						  &t->loop[j - t->nr_setup] :
						  &t->teardown[j - t->nr_setup - t->nr_loop];

			if (s->op == WL_OP_FORK && (s->task < 0 || s->task >= plan->nr_task ||
						    !plan->task[s->task].forked ||
						    plan->task[s->task].threads)) {
				snprintf(err, len, "line %d: fork: expected a group with forked = yes "
					 "and as = processes", s->line);
				return -1;
			}
			if (s->mem >= plan->nr_memory) {
				snprintf(err, len, "line %d: %s: memory %d of %d", s->line,
					 wl_op_name[s->op], s->mem, plan->nr_memory);
				return -1;
			}
		}
	}
	return 0;
}

/* Fill @out from the tasks: ops, and rates over each counted task's loop. */
static void wl_out(struct wl_run *run, struct wl_sim_out *out)
{
	struct wl_task_run *tr;
	double sum = 0;
	int nr = 0;

	for (tr = run->tasks; tr; tr = tr->next) {
		double secs;

		if (!tr->counted)
			continue;
		out->ops += tr->ops;
		secs = tr->t->duration_ns ? (double)tr->t->duration_ns / 1e9 :
		       (double)(tr->loop_end - tr->loop_begin) / (double)SIM_SEC;
		nr++;
		if (secs > 0)
			sum += (double)tr->ops / secs;
	}
	out->ops_per_s = sum;
	out->ops_per_task_s = nr ? sum / nr : 0;
}

static bool wl_counted(const struct wl_task *t)
{
	int j;

	for (j = 0; j < t->nr_loop; j++)
		if (t->loop[j].counted)
			return true;
	return false;
}

/* A task of group @g, index @i, on @wm; its per = task files. */
static struct wl_task_run *wl_task_new(struct wl_run *run, int g, int i, struct wl_mm *wm)
{
	const struct wl_plan *plan = run->plan;
	struct wl_task_run *tr = calloc(1, sizeof(*tr));
	int mem;

	if (!tr)
		return NULL;
	tr->run = run;
	tr->t = &plan->task[g];
	tr->group = g;
	tr->index = i;
	tr->wm = wm;
	tr->counted = wl_counted(tr->t);
	tr->in_barrier = wl_group_has(tr->t, WL_OP_BARRIER);
	tr->next = run->tasks;
	run->tasks = tr;
	for (mem = 0; mem < plan->nr_memory; mem++)
		if (plan->memory[mem].kind != WL_MEM_ANON && !plan->memory[mem].per_workload) {
			tr->file[mem] = wl_file_create(run, mem);
			if (!tr->file[mem])
				return NULL;
		}
	return tr;
}

static struct wl_mm *wl_mm_new(struct wl_run *run, int users)
{
	struct wl_mm *wm = calloc(1, sizeof(*wm));

	if (!wm)
		return NULL;
	wm->mm = mm_alloc(run->m->root_memcg);
	wm->users = users;
	wm->next = run->mms;
	run->mms = wm;
	return wm;
}

static void wl_run_free(struct wl_run *run)
{
	while (run->mms) {
		struct wl_mm *wm = run->mms;

		run->mms = wm->next;
		if (wm->mm)
			mm_free(wm->mm);
		free(wm);
	}
	while (run->tasks) {
		struct wl_task_run *tr = run->tasks;

		run->tasks = tr->next;
		free(tr);
	}
	if (run->loader_mm)
		mm_free(run->loader_mm);
	free(run->files);
	free(run->file_mem);
	free(run);
}

/**
 * workload_sim_run - run a resolved workload on the model
 * @plan: the plan (workload_resolve())
 * @cfg: the run's configuration: profile, seed, checks, parameters for the hooks
 * @v: the kernel variant
 * @hooks: an experiment's additions, or NULL
 * @res: the variant's result: the engine's counters, locks and time
 * @out: the workload's operations and rates
 * @err: one line on failure
 * @len: its size
 *
 * Creates the engine with plan->nr_cpus vCPUs and the model, the memory
 * objects and the tasks of every group not started by a fork, runs them
 * to the end, and collects.  The tasks are created group by group, task i
 * of the run on CPU i % nr_cpus unless its group names a CPU; every mm is
 * allocated before the first task is created.
 * Context: outside any engine run.
 * Return: 0, or -1 with @err: a plan the model cannot run, a step the
 * model refused (naming its line), or a deadlock.
 */
int workload_sim_run(const struct wl_plan *plan, const struct sim_run_config *cfg,
		     const struct mm_variant *v, const struct wl_sim_hooks *hooks,
		     struct sim_variant_result *res, struct wl_sim_out *out,
		     char *err, size_t len)
{
	struct sim_engine_opts o = {
		.profile = cfg->profile,
		.nr_cpus = plan->nr_cpus,
		.seed = cfg->seed,
		.check = cfg->check,
	};
	struct wl_task_run **first = NULL;
	uint64_t work = 0;
	bool tlb = false, cached = false, all_repeat = true;
	struct sim_engine *e;
	struct mm_model *m;
	struct wl_run *run;
	int g, i, mem, n = 0, ret = -1;

	memset(out, 0, sizeof(*out));
	if (wl_check_plan(plan, err, len))
		return -1;
	run = calloc(1, sizeof(*run));
	first = calloc((size_t)plan->nr_tasks + 1, sizeof(*first));
	if (!run || !first) {
		free(run);
		free(first);
		snprintf(err, len, "out of memory for %d tasks", plan->nr_tasks);
		return -1;
	}
	run->plan = plan;
	e = sim_engine_create(&o);
	if (!e) {
		snprintf(err, len, "cannot create an engine of %d vCPUs", o.nr_cpus);
		goto out_run;
	}
	m = mm_model_create(e, v, (long)(plan->node_memory >> PAGE_SHIFT), err, len);
	if (!m)
		goto out_engine;
	run->m = m;
	run->m->mthp_order = plan->mthp_order;
	if (hooks && hooks->setup)
		hooks->setup(run->m, cfg);
	if (wl_plan_has(plan, WL_OP_ACCESS)) {
		i = mm_tlb_init(e);
		if (i) {
			snprintf(err, len, "profile %s: cannot build the TLBs and caches for access "
				 "steps: %s", cfg->profile->machine_name, strerror(-i));
			goto out_model;
		}
		tlb = true;
	}

	/* the objects: per = workload files, then each task's mm and files */
	for (mem = 0; mem < plan->nr_memory; mem++) {
		const struct wl_memory *wm = &plan->memory[mem];

		cached |= wm->kind == WL_MEM_FILE && wm->cached;
		if (wm->kind != WL_MEM_ANON && wm->per_workload) {
			run->file[mem] = wl_file_create(run, mem);
			if (!run->file[mem])
				goto out_nomem;
		}
	}
	for (g = 0; g < plan->nr_task; g++) {
		const struct wl_task *t = &plan->task[g];
		struct wl_mm *shared = NULL;

		if (t->forked)
			continue;
		if (t->threads && t->count) {
			shared = wl_mm_new(run, t->count);
			if (!shared)
				goto out_nomem;
		}
		for (i = 0; i < t->count; i++) {
			struct wl_mm *wm = shared ? shared : wl_mm_new(run, 1);

			if (!wm || n >= plan->nr_tasks)
				goto out_nomem;
			first[n] = wl_task_new(run, g, i, wm);
			if (!first[n])
				goto out_nomem;
			if (first[n]->in_barrier)
				run->barrier_expected++;
			n++;
		}
		if (t->repeat)
			work += t->repeat * (uint64_t)t->count;
		else
			all_repeat = false;
	}
	run->live = n;
	run->cache_ready = !cached;
	if (cached) {
		run->loader_mm = mm_alloc(run->m->root_memcg);
		if (!sim_task_create(e, 0, "wl-pagecache", wl_loader, run)) {
			snprintf(err, len, "cannot create the page cache's loader");
			goto out_free;
		}
	}
	if (all_repeat)
		sim_engine_set_work(e, work);
	for (i = 0; i < n; i++) {
		const struct wl_task *t = first[i]->t;
		int cpu = t->cpu >= 0 ? t->cpu : i % plan->nr_cpus;

		if (cpu >= plan->nr_cpus) {
			snprintf(err, len, "task %s: cpu = %d: expected below the run's %d CPUs",
				 t->name, cpu, plan->nr_cpus);
			goto out_free;
		}
		if (!sim_task_create(e, cpu, t->name, wl_task_main, first[i])) {
			snprintf(err, len, "cannot create task %s.%d", t->name, first[i]->index);
			goto out_free;
		}
	}
	if (sim_engine_run(e, err, len))
		goto out_free;
	if (run->failed) {
		snprintf(err, len, "%s", run->err);
		goto out_free;
	}
	if (cfg->check)
		mm_check_final();
	sim_result_collect(e, res);
	res->counters[SIM_PGFAULT] -= run->loader_faults;
	res->counters[SIM_PGMAJFAULT] -= run->loader_majfaults;
	wl_out(run, out);
	out->runtime_s = res->runtime_s;
	if (hooks && hooks->collect)
		hooks->collect(e, run->m, cfg, res);
	ret = 0;
	goto out_free;
out_nomem:
	snprintf(err, len, "out of memory for the workload's tasks and memory");
out_free:
	wl_run_free(run);
	run = NULL;
	if (tlb)
		mm_tlb_destroy(e);
out_model:
	mm_model_destroy(m);
out_engine:
	sim_engine_destroy(e);
out_run:
	if (run)
		wl_run_free(run);
	free(first);
	return ret;
}
