// SPDX-License-Identifier: GPL-2.0-only
/*
 * mprotect() (mm/mprotect.c), read at torvalds/linux v6.12.
 *
 * Mirrors do_mprotect_pkey() -> mprotect_fixup() -> change_protection()
 * -> change_pte_range(): under mmap_lock for writing, the VMA is
 * write-locked and its vm_flags changed; each present PTE of the range is
 * rewritten under its PTL with the new protection (pte_modify()): write
 * access removed, or for a write upgrade (MM_CP_TRY_CHANGE_WRITABLE, when
 * vma_wants_manual_pte_write_upgrade()) restored where
 * can_change_pte_writable() allows it (an exclusive anonymous folio of a
 * private mapping; a dirty PTE of a shared one).  A PTE whose change needs
 * a flush (x86 pte_needs_flush(): write access removed) adds its page to
 * the mmu_gather, which flushes the range once at tlb_finish_mmu().
 *
 * The model's protections are PROT_READ and PROT_READ | PROT_WRITE on a
 * whole mapping (one mmap() call, as vm_munmap() takes it): no VMA split
 * or merge (vma_modify_flags()), no PROT_NONE (pte_protnone()) and no
 * PROT_EXEC.  An anonymous folio is exclusive when no fork shares it
 * (the model's mapcount test, as in do_wp_page()).
 *
 * Costs: mm.syscall_ns, mm.pte_op_ns per PTE looked at, the flush's own.
 * Lock order: mmap_lock (write) -> vma lock -> PTL.
 */
#include "mm/mm.h"

/* can_change_pte_writable() */
static bool can_change_pte_writable(struct vm_area_struct *vma, pte_t pte)
{
	struct folio *folio = pte_folio(pte);

	if (!(vma->vm_flags & VM_SHARED))
		return folio_test_anon(folio) && folio->_mapcount <= folio_nr_pages(folio);
	return pte & PTE_DIRTY;
}

/* change_protection() over the whole VMA: the PTEs changed. */
static long change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      bool try_change_writable)
{
	bool prot_write = vma_page_prot_write(vma);
	uint64_t addr = vma->vm_start;
	long pages = 0;

	while (addr < vma->vm_end) {
		uint64_t next = (addr & ~(PMD_SIZE - 1)) + PMD_SIZE;
		struct spinlock *ptl = pte_lockptr_lookup(vma, addr);

		if (next > vma->vm_end)
			next = vma->vm_end;
		spin_lock(ptl);
		for (; addr < next; addr += PAGE_SIZE) {
			pte_t *pte = vma_pte_lookup(vma, addr), old = *pte, ptent;

			sim_cost_cpu_ps(sim_mm->pte_op_ps);
			if (!pte_present(old))
				continue;
			/* pte_modify(): the new vm_page_prot's write bit */
			ptent = prot_write ? old | PTE_WRITE : old & ~PTE_WRITE;
			if (try_change_writable && !(ptent & PTE_WRITE) &&
			    can_change_pte_writable(vma, ptent))
				ptent |= PTE_WRITE;
			if (ptent == old)
				continue;
			*pte = ptent;		/* modify_prot_commit() */
			sim_cost_cpu_ps(sim_mm->pte_op_ps);
			/* pte_needs_flush(): a cleared write bit */
			if ((old & PTE_WRITE) && !(ptent & PTE_WRITE)) {
				if (tlb->start > addr)
					tlb->start = addr;
				if (tlb->end < addr + PAGE_SIZE)
					tlb->end = addr + PAGE_SIZE;
			}
			pages++;
		}
		spin_unlock(ptl);
		addr = next;
	}
	return pages;
}

/**
 * do_mprotect - mprotect(@start, @len, @prot) of a whole mapping
 * @mm: the calling process's mm
 * @start: the mapping's start
 * @len: its length
 * @prot: PROT_READ or PROT_READ | PROT_WRITE
 *
 * Context: process context; takes mmap_lock for writing.
 * Return: 0; -EINVAL for another protection or a range that is not one
 * whole mapping; -EACCES for PROT_WRITE on a mapping that may not be
 * written (a read-only shared file mapping).
 */
int do_mprotect(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned long prot)
{
	struct vm_area_struct *vma;
	unsigned long newflags;
	struct mmu_gather tlb;
	bool upgrade;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	if (prot != PROT_READ && prot != (PROT_READ | PROT_WRITE))
		return -22;
	mmap_write_lock(mm);
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start != start || vma->vm_end != start + len) {
		mmap_write_unlock(mm);
		return -22;
	}
	newflags = (vma->vm_flags & ~VM_WRITE) | ((prot & PROT_WRITE) ? VM_WRITE : 0);
	if ((newflags & VM_WRITE) && !(vma->vm_flags & VM_MAYWRITE)) {
		mmap_write_unlock(mm);
		return -13;		/* -EACCES */
	}
	tlb_gather_mmu(&tlb, mm);
	if (newflags != vma->vm_flags) {
		/* mprotect_fixup() */
		vma_start_write(vma->merged, mm);
		vma->vm_flags = newflags;
		/* vma_wants_manual_pte_write_upgrade() */
		upgrade = (newflags & VM_WRITE) &&
			  (!(newflags & VM_SHARED) || (vma->vm_file && vma->vm_ops->page_mkwrite));
		change_protection(&tlb, vma, upgrade);
	}
	tlb_finish_mmu(&tlb);
	mmap_write_unlock(mm);
	return 0;
}
