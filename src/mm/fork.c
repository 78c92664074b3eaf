// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mm side of fork() (kernel/fork.c), read at torvalds/linux v6.12
 * and v6.15 (where dup_mmap() moved to mm/mmap.c).
 *
 * Mirrors dup_mm(): a new mm (mm_alloc(): the parent's memcg, its own
 * ASID), then dup_mmap() (mmap.c) with copy_page_range() (memory.c):
 * anonymous memory is shared copy-on-write, both sides' PTEs
 * write-protected, the parent's TLB flushed; a later write copies
 * (wp_page_copy()) or, for the last mapper, reuses the folio.  The task
 * itself is the engine's: sim_fork() copies the running task's mm and
 * starts the child with sim_task_fork() (copy_process(), its
 * sched.fork_us, wake_up_new_task()); the child's body runs on the new mm.
 *
 * Left out: khugepaged_fork() (the child registers at its first THP
 * fault), uprobes, ksm_fork(), VM_WIPEONFORK/VM_DONTCOPY, the mm's
 * counters beyond RSS, and the unsupported cases dup_mmap() refuses.
 *
 * Lock order: as dup_mmap().
 */
#include "mm/mm.h"

/**
 * dup_mm - the child's copy of @oldmm at fork
 * @oldmm: the parent's mm
 *
 * Context: a task of the parent; takes both mmap_locks.
 * Return: the new mm, or NULL when dup_mmap() refuses (-EOPNOTSUPP: a
 * VMA with anonymous folios holds a swap PTE or a PMD-mapped THP).
 */
struct mm_struct *dup_mm(struct mm_struct *oldmm)
{
	struct mm_struct *mm = mm_alloc(oldmm->memcg);

	if (dup_mmap(mm, oldmm)) {
		mm_free(mm);
		return NULL;
	}
	return mm;
}

/* What a forked child starts with: its mm and the caller's body. */
struct sim_fork_child {
	struct mm_struct *mm;
	sim_task_fn fn;
	void *arg;
};

/* The child's first steps: run on its own mm (ret_from_fork() -> the body). */
static void sim_fork_child_start(void *p)
{
	struct sim_fork_child c = *(struct sim_fork_child *)p;

	free(p);
	switch_mm_irqs_off(c.mm);
	c.fn(c.arg);
}

/**
 * sim_fork - fork() of the running task
 * @comm: the child's name
 * @fn: the child's body; it runs with the child's mm loaded
 * @arg: its argument
 * @child_mm: where the child's mm is returned (the caller frees it with
 *            mm_free() once the child has ended and unmapped its memory)
 *
 * dup_mm() of the running task's mm, then sim_task_fork() (the engine's
 * copy_process() cost, sched.fork_us, and the child's placement).  The
 * two costs add: an assumption, as sched.fork_us was not measured apart
 * from the page-table copy.
 * Context: a task whose mm is loaded (switch_mm_irqs_off()).
 * Return: the child task, or NULL when dup_mm() refuses (*@child_mm NULL).
 */
struct sim_task *sim_fork(const char *comm, sim_task_fn fn, void *arg,
			  struct mm_struct **child_mm)
{
	struct mm_struct *mm = dup_mm(sim_current()->mm);
	struct sim_fork_child *c;
	struct sim_task *t;

	*child_mm = mm;
	if (!mm)
		return NULL;
	c = malloc(sizeof(*c));
	if (!c)
		abort();
	c->mm = mm;
	c->fn = fn;
	c->arg = arg;
	t = sim_task_fork(comm, sim_fork_child_start, c);
	if (!t)
		free(c);
	return t;
}
