// SPDX-License-Identifier: GPL-2.0-only
/*
 * The steps of a workload's task (docs/workloads.md, "Steps") on the
 * model, and the barrier: what src/workload/sim.c's tasks run.  Each step
 * calls the model's system call or fault path as a program's call reaches
 * the kernel: vm_mmap_anon(), vm_mmap_shared_anon(), vm_mmap_file() and
 * do_mbind() (mmap), vm_munmap(), do_user_addr_fault() (fault),
 * user_access() (access), do_madvise(), do_mprotect(), sim_fork()
 * (dup_mmap()), sim_sleep_ps(), sim_file_truncate().  The user-space code
 * between two calls costs nothing.
 *
 * The barrier: every task whose group has a barrier step takes part
 * from its creation until it ends; the last to arrive wakes the others.
 *
 *   task A                              task B
 *   barrier: arrived 1 of 2, sleeps     ...
 *                                       barrier: arrived 2 of 2, wakes A
 *   runs on at B's time                 runs on
 *
 * Lock order: none of its own (the steps take the model's).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/access.h"
#include "workload/sim_internal.h"

#define WL_ACCESS_BATCH	64	/* accesses between two charges */

const char *const wlsim_op_name[] = {
	[WL_OP_MMAP] = "mmap", [WL_OP_MUNMAP] = "munmap", [WL_OP_FAULT] = "fault",
	[WL_OP_ACCESS] = "access", [WL_OP_MADVISE] = "madvise", [WL_OP_MPROTECT] = "mprotect",
	[WL_OP_FORK] = "fork", [WL_OP_SLEEP] = "sleep", [WL_OP_BARRIER] = "barrier",
	[WL_OP_TRUNCATE] = "truncate",
};

/* The first error of the run stops it: every task ends at its next step. */
void wlsim_fail(struct wl_run *run, const struct wl_step *s, const char *fmt, ...)
{
	va_list ap;
	int off;

	if (run->failed)
		return;
	run->failed = true;
	off = snprintf(run->err, sizeof(run->err), "line %d: %s: ", s ? s->line : 0,
		       s ? wlsim_op_name[s->op] : "task");
	if (off < 0 || (size_t)off >= sizeof(run->err))
		return;
	va_start(ap, fmt);
	vsnprintf(run->err + off, sizeof(run->err) - (size_t)off, fmt, ap);
	va_end(ap);
}

bool wlsim_group_any(const struct wl_task *t,
		     bool (*match)(const struct wl_step *s, const void *arg), const void *arg)
{
	const struct wl_step *l[3] = { t->setup, t->loop, t->teardown };
	const int nr[3] = { t->nr_setup, t->nr_loop, t->nr_teardown };

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < nr[k]; i++)
			if (match(&l[k][i], arg))
				return true;
	return false;
}

static bool wl_step_is(const struct wl_step *s, const void *op)
{
	return s->op == *(const enum wl_op *)op;
}

bool wlsim_group_has(const struct wl_task *t, enum wl_op op)
{
	return wlsim_group_any(t, wl_step_is, &op);
}

/* Wake @tr's task at this time, or its vCPU's if that is later. */
void wlsim_wake(struct wl_task_run *tr)
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
		wlsim_wake(w);
		w = next;
	}
}

/* barrier: wait until every task taking part has arrived (or ended). */
void wlsim_barrier_wait(struct wl_task_run *tr)
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
void wlsim_barrier_leave(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;

	if (!tr->in_barrier)
		return;
	tr->in_barrier = false;
	run->barrier_expected--;
	if (run->barrier_arrived && run->barrier_arrived >= run->barrier_expected)
		wl_barrier_release(run);
}

/* ---- first_fault = in_order ------------------------------------------------------ */

/*
 * Before @tr's first fault or access: wait until every task created
 * before it has taken its own first one.
 *
 *   task 0                              task 1
 *   ...                                 first_fault_wait: 0 of 1 done, sleeps
 *   first access (faults, registers
 *   with khugepaged); first_fault_done:
 *   1 done, wakes task 1                first access, at task 0's time or later
 */
void wlsim_first_fault_wait(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;

	if (tr->order < 0 || tr->first_done || run->nr_first >= tr->order)
		return;
	tr->first_waiting = true;
	sim_sleep_block("first_fault", run, "the previous task's first fault");
	tr->first_waiting = false;
}

/* @tr has made its first access (or ends without one): the next task's turn. */
void wlsim_first_fault_done(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;
	struct wl_task_run *next;

	if (tr->order < 0 || tr->first_done)
		return;
	tr->first_done = true;
	run->nr_first++;
	next = run->nr_first < run->nr_order ? run->order[run->nr_first] : NULL;
	if (next && next->first_waiting)
		wlsim_wake(next);
}

/* ---- the steps -------------------------------------------------------------------- */

/*
 * Whether @addr is mapped for this access, as the MMU would find it: a
 * present PTE (writable, for a write) or a huge PMD.  No cost: the user's
 * store that does not fault costs nothing here.
 */
bool wlsim_mapped_for(struct mm_struct *mm, uint64_t addr, bool write)
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
		wlsim_fail(tr->run, s, "%s is not mapped in task %s.%d: expected an `mmap %s` step before",
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
 * The task's access state for memory @mem mapped as @vma: kept from one
 * access step to the next (the sub-picosecond remainder of the charges
 * carries over, as one loop's state), made again when the mapping or the
 * vCPU is another.  Each access costs @uops of the core's issue (0: one
 * when the caches are modelled), the loop around it @loop_mcycles.
 */
static struct user_access *wl_ua(struct wl_task_run *tr, int mem, struct vm_area_struct *vma,
				 uint32_t uops, uint32_t loop_mcycles)
{
	struct user_access *ua = tr->ua[mem];

	if (!ua) {
		ua = malloc(sizeof(*ua));
		if (!ua)
			return NULL;
		tr->ua[mem] = ua;
		user_access_init(ua, vma);
	} else if (ua->vma != vma || ua->mm != vma->vm_mm || ua->pmd_huge != vma->pmd_huge ||
		   ua->pmd_base != (vma->vm_start & ~(PMD_SIZE - 1)) ||
		   ua->mmu.asid != vma->vm_mm->asid || ua->mmu.tlb != sim_this_vcpu()->tlb) {
		user_access_init(ua, vma);
	}
	ua->uops = uops ? uops : ua->mmu.cache ? 1 : 0;
	ua->loop_mcycles = loop_mcycles;
	return ua;
}

/*
 * The accesses of a fault step to addresses already mapped, made and
 * charged as an access step's are (user_access_batch()): a lookup in the
 * TLB, a walk on a miss, the line through the caches.  An address that
 * faults is the fault's alone: the fit's fault costs (calibrate) include
 * the store that faulted.
 */
static void wl_fault_stores(struct wl_task_run *tr, const struct wl_step *s, uint64_t *addrs,
			    unsigned int *nb)
{
	struct vm_area_struct *vma;
	struct user_access *ua;

	if (!*nb || !tr->run->tlb) {
		*nb = 0;
		return;
	}
	vma = find_vma(tr->wm->mm, addrs[0]);
	ua = vma ? wl_ua(tr, s->mem, vma, 0, 0) : NULL;
	if (ua) {
		user_access_batch(ua, addrs, *nb, s->write);
		user_access_charge(ua);
	}
	*nb = 0;
}

/*
 * fault: do_user_addr_fault() at the addresses of positions [lo, hi) of
 * the step's order (seq: address i at position i; reverse: n - 1 - i;
 * random: a permutation drawn from the task's generator each time).
 */
static void wl_fault(struct wl_task_run *tr, const struct wl_step *s, bool in_loop, uint64_t lo,
		     uint64_t hi)
{
	uint64_t addrs[WL_ACCESS_BATCH];
	unsigned int nb = 0;
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
			wlsim_fail(tr->run, s, "out of memory for a random order of %llu addresses",
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
	if (hi > lo)
		wlsim_first_fault_wait(tr);
	for (p = lo; p < hi; p++) {
		uint64_t i = s->order == WL_ORDER_SEQ ? p : s->order == WL_ORDER_REVERSE ? n - 1 - p :
			     perm[p];
		uint64_t addr = map->addr + (i % slots) * stride;

		if (!wlsim_mapped_for(mm, addr, s->write)) {
			int ret;

			wl_fault_stores(tr, s, addrs, &nb);
			ret = do_user_addr_fault(mm, addr, s->write);
			if (ret) {
				wlsim_fail(tr->run, s, "%s %s at offset %llu: %s",
					plan->memory[s->mem].name, s->write ? "write" : "read",
					(unsigned long long)(addr - map->addr), wl_errno_name(ret));
				break;
			}
		} else {
			/* mapped: the store (or load) itself, through the TLB and caches */
			addrs[nb++] = addr;
			if (nb == WL_ACCESS_BATCH)
				wl_fault_stores(tr, s, addrs, &nb);
		}
		wlsim_first_fault_done(tr);
		wl_count(tr, s, in_loop, 1);
	}
	wl_fault_stores(tr, s, addrs, &nb);
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

/*
 * The access steps' generator: wyrand, fast enough for a draw per access,
 * seeded from the task's own stream (sim_rng_next()) when the task's first
 * access step that draws runs.
 */
static inline uint64_t wl_arand(struct wl_task_run *tr)
{
	__uint128_t t;

	if (!tr->arng_seeded) {
		tr->arng = sim_rng_next(&sim_current()->rng);
		tr->arng_seeded = true;
	}
	tr->arng += 0xa0761d6478bd642fULL;
	t = (__uint128_t)tr->arng * (tr->arng ^ 0xe7037ed1a0b428dbULL);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* Uniform in [0, n): multiply-shift, as sim_rng_below(). */
static inline uint64_t wl_abelow(struct wl_task_run *tr, uint64_t n)
{
	return (uint64_t)(((__uint128_t)wl_arand(tr) * n) >> 64);
}

/* A uniform double in [0, 1). */
static inline double wl_unit(struct wl_task_run *tr)
{
	return (double)(wl_arand(tr) >> 11) * 0x1.0p-53;
}

/* A new permutation of @n slots in @perm (Fisher-Yates, from the last). */
static void wl_shuffle(struct wl_task_run *tr, uint32_t *perm, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)wl_abelow(tr, (uint64_t)i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

/* The slot of access @j of an access step; @perm: shuffled's permutation. */
static inline uint64_t wl_access_slot(struct wl_task_run *tr, const struct wl_step *s,
				      uint64_t j, uint64_t slots, const double *cdf,
				      uint32_t *perm)
{
	uint64_t hot, lo, hi;
	double u;

	switch (s->pattern) {
	case WL_PAT_SEQ:
		return j % slots;
	case WL_PAT_RANDOM:
		return wl_abelow(tr, slots);
	case WL_PAT_SHUFFLED:
		if (j % slots == 0)
			wl_shuffle(tr, perm, (uint32_t)slots);
		return perm[j % slots];
	case WL_PAT_ZIPF:
		u = wl_unit(tr);
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
		if (hot >= slots || wl_unit(tr) < s->hot_prob)
			return wl_abelow(tr, hot);
		return hot + wl_abelow(tr, slots - hot);
	}
	return 0;
}

/* mem.access_loop's entry for each access pattern */
static const enum mmu_loop wl_loop_of[] = {
	[WL_PAT_SEQ] = MMU_LOOP_SEQ, [WL_PAT_RANDOM] = MMU_LOOP_RANDOM,
	[WL_PAT_ZIPF] = MMU_LOOP_ZIPF, [WL_PAT_HOT] = MMU_LOOP_HOT,
	[WL_PAT_SHUFFLED] = MMU_LOOP_SHUFFLED,
};

/*
 * access: user loads or stores through the vCPU's TLB and caches
 * (user_access_batch(), src/mm/access.c), WL_ACCESS_BATCH addresses drawn
 * and then accessed and charged at a time; a walk that finds nothing
 * mapped faults.  An `until` loop ends between two batches.
 */
static void wl_access(struct wl_task_run *tr, const struct wl_step *s, bool in_loop)
{
	const struct wl_plan *plan = tr->run->plan;
	uint64_t stride = wl_stride(s), slots = plan->memory[s->mem].size / stride;
	uint64_t n = s->nr ? s->nr : slots, j = 0, addrs[WL_ACCESS_BATCH];
	struct wl_map *map = wl_mapped(tr, s);
	struct vm_area_struct *vma;
	struct user_access *ua;
	uint32_t *perm = NULL;
	double *cdf = NULL;

	if (!map || !slots)
		return;
	vma = find_vma(tr->wm->mm, map->addr);
	ua = wl_ua(tr, s->mem, vma, s->uops, sim_mm->access_loop[wl_loop_of[s->pattern]]);
	if (!ua) {
		wlsim_fail(tr->run, s, "out of memory for the access state");
		return;
	}
	if (s->pattern == WL_PAT_ZIPF) {
		cdf = wl_zipf_cdf(slots, s->zipf_s);
		if (!cdf) {
			wlsim_fail(tr->run, s, "out of memory for a zipf table of %llu slots",
				(unsigned long long)slots);
			return;
		}
	}
	if (s->pattern == WL_PAT_SHUFFLED) {
		perm = malloc(slots * sizeof(*perm));
		if (!perm) {
			wlsim_fail(tr->run, s, "out of memory for a permutation of %llu slots",
				(unsigned long long)slots);
			return;
		}
	}
	wlsim_first_fault_wait(tr);
	while (j < n && !wl_until_done(tr)) {
		unsigned int b = n - j < WL_ACCESS_BATCH ? (unsigned int)(n - j) : WL_ACCESS_BATCH, i;

		for (i = 0; i < b; i++)
			addrs[i] = map->addr + wl_access_slot(tr, s, j + i, slots, cdf, perm) * stride;
		if (tr->order >= 0 && !tr->first_done) {
			/* the first access alone: the next task's first may follow it */
			user_access_batch(ua, addrs, 1, s->write);
			wlsim_first_fault_done(tr);
			user_access_batch(ua, addrs + 1, b - 1, s->write);
		} else {
			user_access_batch(ua, addrs, b, s->write);
		}
		user_access_charge(ua);
		if (ua->fault_err) {
			wlsim_fail(tr->run, s, "%s %s at offset %llu faulted: %s",
				   plan->memory[s->mem].name, s->write ? "write" : "read",
				   (unsigned long long)(ua->fault_addr - map->addr),
				   wl_errno_name(ua->fault_err));
			ua->fault_err = 0;
			break;
		}
		j += b;
		wl_count(tr, s, in_loop, b);
	}
	free(perm);
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
		wlsim_fail(tr->run, s, "%s is already mapped in task %s.%d: expected a munmap before",
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
		wlsim_fail(tr->run, s, "%s: mbind(): %s (the profile has %d nodes)", mem->name,
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
			wlsim_fail(run, s, "out of memory for task %s.%d", ct->name, i);
			return;
		}
		*c = *tr;
		c->t = ct;
		c->group = s->task;
		c->index = i;
		c->forked = true;
		c->counted = wlsim_counted(ct);
		c->ops = 0;
		c->loop_begin = c->loop_end = c->deadline = 0;
		c->task = NULL;
		c->barrier_next = c->cache_next = NULL;
		c->parent = tr;
		c->nr_kids = 0;
		c->reaping = false;
		memset(c->ua, 0, sizeof(c->ua));
		c->arng_seeded = false;
		c->order = -1;
		c->first_done = c->first_waiting = false;
		c->walks_begin = c->loop_walks = 0;
		c->in_barrier = wlsim_group_has(ct, WL_OP_BARRIER);
		c->wm = wm;
		memcpy(wm->map, tr->wm->map, sizeof(wm->map));
		wm->users = 1;
		wm->next = run->mms;
		run->mms = wm;
		c->next = run->tasks;
		run->tasks = c;
		run->live++;
		run->group_left[s->task]++;
		run->counted_left += c->counted;
		if (c->in_barrier)
			run->barrier_expected++;
		c->task = sim_fork(ct->name, run->task_fn, c, &child_mm);
		wm->mm = child_mm;
		if (c->task)
			tr->nr_kids++;
		if (!c->task) {
			/* it never runs: it leaves what it joined */
			wlsim_barrier_leave(c);
			run->live--;
			run->group_left[s->task]--;
			run->counted_left -= c->counted;
			wm->users = 0;
			wlsim_fail(run, s, "%s: dup_mmap() refused the copy (a swap PTE or a "
				"PMD-mapped THP in a private anonymous mapping)", ct->name);
		}
	}
}

void wlsim_step_run(struct wl_task_run *tr, const struct wl_step *s, bool in_loop,
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
			wlsim_fail(tr->run, s, "%s: advice %d: %s", mem->name, s->advice,
				wl_errno_name(ret));
		break;
	case WL_OP_MPROTECT:
		map = wl_mapped(tr, s);
		if (!map)
			return;
		ret = do_mprotect(tr->wm->mm, map->addr, mem->size, s->prot);
		if (ret < 0)
			wlsim_fail(tr->run, s, "%s: prot %u: %s (the model takes read and read,write)",
				mem->name, s->prot, wl_errno_name(ret));
		break;
	case WL_OP_FORK:
		wl_fork(tr, s);
		break;
	case WL_OP_SLEEP:
		sim_sleep_ps(s->time_ns * SIM_NS);
		return;
	case WL_OP_BARRIER:
		wlsim_barrier_wait(tr);
		return;
	case WL_OP_TRUNCATE:
		ret = sim_file_truncate(wl_file_of(tr, s->mem), s->size);
		if (ret < 0)
			wlsim_fail(tr->run, s, "%s to %llu bytes: %s (at most its size)", mem->name,
				(unsigned long long)s->size, wl_errno_name(ret));
		break;
	}
	wl_count(tr, s, in_loop, 1);
}

bool wlsim_counted(const struct wl_task *t)
{
	int j;

	for (j = 0; j < t->nr_loop; j++)
		if (t->loop[j].counted)
			return true;
	return false;
}

