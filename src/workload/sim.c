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
 *   at the start of each iteration, or until another group's loops have
 *   ended, checked before each step; a loop_at loop begins at that time);
 *   teardown steps; exit: with khugepaged, once it has exited (it is
 *   stopped when the last counted loop ends), khugepaged_exit() of the mm;
 *   the last task of an mm unmaps what is still mapped (exit_mmap()), the
 *   last task of the run drops the files.
 *
 * khugepaged = yes: khugepaged_init() with the plan's tunables before the
 * mms exist, the thread created after the tasks, on its own CPU.
 * first_fault = in_order: the tasks created at the start take their first
 * fault in creation order (sim_steps.c, wlsim_first_fault_wait()).
 *
 * Memory: a per = task region is mapped by each task (threads of one mm
 * each map their own); a per = workload one is one object: one file for
 * shmem and file memory, one mapping per mm for anonymous memory.  Forked
 * children inherit the parent's mappings in their copy of its mm.
 *
 * The steps and the barrier are in sim_steps.c.
 *
 * Left out: a user-space cost between the calls; signals (a fault that
 * would be SIGSEGV or SIGBUS stops the run with an error).
 * Lock order: none of its own (the steps take the model's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/access.h"
#include "mm/khugepaged.h"
#include "workload/sim_internal.h"

/* The unit tests observe the model after each step (tests/test_workload_sim.c). */
#ifndef WL_STEP_HOOK
#define WL_STEP_HOOK(tr, s)	do { } while (0)
#endif

/*
 * An access step, or a fault step over a file or tmpfs memory, which meets
 * addresses already mapped (a large folio mapped whole, fault-around)
 * whose accesses go through the TLB and caches (wl_fault_stores()).
 */
static bool wl_step_touches(const struct wl_step *s, const void *arg)
{
	const struct wl_plan *plan = arg;

	return s->op == WL_OP_ACCESS ||
	       (s->op == WL_OP_FAULT && plan->memory[s->mem].kind != WL_MEM_ANON);
}

static bool wl_plan_touches(const struct wl_plan *plan)
{
	for (int g = 0; g < plan->nr_task; g++)
		if (wlsim_group_any(&plan->task[g], wl_step_touches, plan))
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

	if (wm->kind == WL_MEM_SHMEM)
		f = sim_file_create(wm->size, SIM_FILE_TMPFS);
	else if (wm->sparse)
		f = sim_file_create_sparse(wm->size);
	else
		f = sim_file_create(wm->size, SIM_FILE_DISK);
	if (!f || wl_add_file(run, f, mem))
		return NULL;
	return f;
}

/* ---- a task ---------------------------------------------------------------------- */

/*
 * A task whose fork steps made children waits for them to end before it
 * exits, as usemem's parent (waitpid() in do_tasks()) and the live
 * executor's (wl_reap()) do: its mm, and so the pages its children share
 * copy-on-write, outlive them.  A parent that exited first would leave
 * each child's pages its own, and their write faults would reuse them
 * (wp_can_reuse_anon_folio()) instead of copying.
 */
static void wl_reap(struct wl_task_run *tr)
{
	while (tr->nr_kids) {
		tr->reaping = true;
		sim_sleep_block("wait", tr->run, "its forked children");
	}
	tr->reaping = false;
}

/* A forked task's end: its parent may be waiting for it. */
static void wl_reaped(struct wl_task_run *tr)
{
	struct wl_task_run *p = tr->parent;

	if (p && --p->nr_kids == 0 && p->reaping)
		wlsim_wake(p);
}

/* exit_mmap() of the last task of an mm, the files after the run's last task. */
static void wl_task_exit(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;
	struct mm_struct *mm = tr->wm->mm;
	int i;

	wlsim_first_fault_done(tr);
	/* khugepaged = yes: exit once khugepaged has (wl_loop_end()) */
	while (run->plan->khugepaged && !khugepaged_exited())
		sim_sleep_ps(SIM_MS);
	wlsim_barrier_leave(tr);
	if (--tr->wm->users == 0) {
		if (run->plan->khugepaged)
			khugepaged_exit_raw(mm);	/* __mmput(): khugepaged_exit() */
		while (!list_empty(&mm->vmas)) {
			struct vm_area_struct *vma = list_first_entry(&mm->vmas,
								      struct vm_area_struct, node);

			if (vm_munmap(mm, vma->vm_start, vma->vm_end - vma->vm_start))
				break;
		}
	}
	wl_reaped(tr);
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
		wlsim_step_run(tr, &steps[i], false, 0, UINT64_MAX);
		WL_STEP_HOOK(tr, &steps[i]);
	}
}

/*
 * The loop's end: an `until` group waiting on this one may stop, and when
 * the last counted task's loop has ended, khugepaged is stopped
 * (kthread_stop()): the measured part of the run is over.
 */
static void wl_loop_end(struct wl_task_run *tr)
{
	struct wl_run *run = tr->run;

	tr->loop_end = sim_now();
	if (run->tlb)
		tr->loop_walks = ((struct tlb *)sim_this_vcpu()->tlb)->stats.walks - tr->walks_begin;
	run->group_left[tr->group]--;
	if (tr->counted && --run->counted_left == 0 && run->plan->khugepaged)
		kthread_stop_khugepaged();
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
	if (t->has_loop_at) {
		sim_time_t at = (sim_time_t)t->loop_at_ns * SIM_NS;

		if (sim_now() < at)
			sim_sleep_ps(at - sim_now());
		if (tr->counted)
			sim_sync();	/* the measured loop starts exactly here */
	}
	tr->loop_begin = sim_now();
	if (run->tlb)
		tr->walks_begin = ((struct tlb *)sim_this_vcpu()->tlb)->stats.walks;
	if (t->duration_ns)
		tr->deadline = tr->loop_begin + t->duration_ns * SIM_NS;
	for (r = 0; r < iters && !run->failed; r++) {
		if ((tr->deadline && sim_now() >= tr->deadline) || wl_until_done(tr))
			break;
		for (j = 0; j < t->nr_loop && !run->failed && !wl_until_done(tr); j++) {
			uint64_t lo = 0, hi = UINT64_MAX;

			if (j == tr->phase_step && k) {
				if (r == 0)
					lo = k;
				if (t->repeat && r == iters - 1)
					hi = k;
			}
			wlsim_step_run(tr, &t->loop[j], true, lo, hi);
			WL_STEP_HOOK(tr, &t->loop[j]);
		}
		sim_work_done(1);
	}
	wl_loop_end(tr);
	wl_steps(tr, t->teardown, t->nr_teardown);
	wl_reap(tr);
	wl_task_exit(tr);
}

/*
 * The files whose memory says cached = yes are read into the page cache
 * before any task starts (as by an earlier reader, or an earlier pass of
 * the benchmark's own loop), in a task of its own whose faults are not
 * the run's.  A sparse file is read as the live executor reads it
 * (src/workload/live.c, wl_sparse_file(): read() WL_FILE_IO_BYTES at a time), so
 * readahead decides its folios' sizes; a file with data and a tmpfs file
 * by read faults of a mapping of each (a file with data from the device,
 * a tmpfs file's pages allocated zeroed).
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

		if (!mem->cached)
			continue;
		if (run->files[i]->sparse) {
			for (a = 0; a < mem->size; a += WL_FILE_IO_BYTES)
				filemap_read(run->files[i], a, WL_FILE_IO_BYTES, mm->memcg);
			continue;
		}
		addr = vm_mmap_file(mm, run->files[i], 0, mem->size, false, false);
		for (a = addr; a < addr + mem->size; a += PAGE_SIZE)
			if (!wlsim_mapped_for(mm, a, false))
				do_user_addr_fault(mm, a, false);
		vm_munmap(mm, addr, mem->size);
	}
	run->loader_faults = c[SIM_PGFAULT] - f0;
	run->loader_majfaults = c[SIM_PGMAJFAULT] - mj0;
	run->cache_ready = true;
	w = run->cache_waiters;
	run->cache_waiters = NULL;
	for (; w; w = w->cache_next)
		wlsim_wake(w);
}

/* ---- the run ------------------------------------------------------------------------ */

static int wl_check_plan(const struct wl_plan *plan, char *err, size_t len)
{
	int i, g, j;

	for (i = 0; i < plan->nr_memory; i++)
		if (plan->memory[i].thp) {
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
					 wlsim_op_name[s->op], s->mem, plan->nr_memory);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * Fill @out from the tasks: ops, rates over each counted task's loop, and
 * the longest of those loops (setup, teardown, the page cache's loading
 * and the other tasks' exits are not timed: docs/workloads.md).
 */
static void wl_out(struct wl_run *run, struct wl_sim_out *out)
{
	struct wl_task_run *tr;
	double sum = 0;
	int nr = 0;

	for (tr = run->tasks; tr; tr = tr->next) {
		double secs, loop;

		if (!tr->counted)
			continue;
		out->ops += tr->ops;
		loop = (double)(tr->loop_end - tr->loop_begin) / (double)SIM_SEC;
		if (loop > out->runtime_s)
			out->runtime_s = loop;
		secs = tr->t->duration_ns ? (double)tr->t->duration_ns / 1e9 :
		       (double)(tr->loop_end - tr->loop_begin) / (double)SIM_SEC;
		nr++;
		if (secs > 0)
			sum += (double)tr->ops / secs;
	}
	out->ops_per_s = sum;
	out->ops_per_task_s = nr ? sum / nr : 0;
}

/* The counted tasks' loops: the longest, and their CPUs' page walks in them. */
static void wl_out_loops(struct wl_run *run, struct wl_sim_out *out)
{
	struct wl_task_run *tr;

	for (tr = run->tasks; tr; tr = tr->next) {
		if (!tr->counted)
			continue;
		if ((uint64_t)(tr->loop_end - tr->loop_begin) > out->loop_ps)
			out->loop_ps = (uint64_t)(tr->loop_end - tr->loop_begin);
		out->loop_dtlb_walks += tr->loop_walks;
	}
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
	tr->counted = wlsim_counted(tr->t);
	tr->in_barrier = wlsim_group_has(tr->t, WL_OP_BARRIER);
	tr->order = -1;
	run->group_left[g]++;
	run->counted_left += tr->counted;
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
		for (int mem = 0; mem < WL_MAX_MEMORY; mem++)
			free(tr->ua[mem]);
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
	bool tlb = false, cached = false, all_repeat = true, khugepaged_on = false;
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
	run->task_fn = wl_task_main;
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
	if (wl_plan_touches(plan)) {
		i = mm_tlb_init(e);
		if (i) {
			snprintf(err, len, "profile %s: cannot build the TLBs and caches for access "
				 "steps: %s", cfg->profile->machine_name, strerror(-i));
			goto out_model;
		}
		tlb = true;
	}
	run->tlb = tlb;
	if (plan->khugepaged) {
		struct khugepaged_tunables tun;

		khugepaged_default_tunables(&tun);
		tun.pages_to_scan = (unsigned int)plan->khugepaged_pages_to_scan;
		tun.scan_sleep_millisecs = (unsigned int)(plan->khugepaged_scan_sleep_ns / 1000000);
		tun.first_wake_millisecs = (unsigned int)(plan->khugepaged_first_wake_ns / 1000000);
		tun.max_ptes_none = (unsigned int)plan->khugepaged_max_ptes_none;
		khugepaged_init(&tun);
		khugepaged_on = true;
	}

	/* the objects: per = workload files, then each task's mm and files */
	for (mem = 0; mem < plan->nr_memory; mem++) {
		const struct wl_memory *wm = &plan->memory[mem];

		cached |= wm->kind != WL_MEM_ANON && wm->cached;
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
	if (plan->first_fault_in_order) {
		run->order = first;
		run->nr_order = n;
		for (i = 0; i < n; i++)
			first[i]->order = i;
	}
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
	if (plan->khugepaged) {
		int cpu = plan->khugepaged_cpu >= 0 ? plan->khugepaged_cpu : n % plan->nr_cpus;

		if (cpu >= plan->nr_cpus) {
			snprintf(err, len, "khugepaged_cpu = %d: expected below the run's %d CPUs",
				 cpu, plan->nr_cpus);
			goto out_free;
		}
		if (!sim_task_create(e, cpu, "khugepaged", khugepaged, NULL)) {
			snprintf(err, len, "cannot create khugepaged");
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
	wl_out_loops(run, out);
	if (hooks && hooks->collect)
		hooks->collect(e, run->m, cfg, res);
	ret = 0;
	goto out_free;
out_nomem:
	snprintf(err, len, "out of memory for the workload's tasks and memory");
out_free:
	if (khugepaged_on)
		khugepaged_destroy();	/* before the mms its slots point to */
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
