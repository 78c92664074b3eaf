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
 * itself is the engine's: sim_task_fork() (copy_process(), its
 * sched.fork_us, wake_up_new_task()) starts the child, whose body
 * switches to the new mm.
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
