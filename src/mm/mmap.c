// SPDX-License-Identifier: GPL-2.0-only
/*
 * Anonymous mmap and munmap (mm/mmap.c, mm/vma.c), reduced to private
 * anonymous mappings.  vm_munmap() follows do_vmi_align_munmap(): detach
 * the VMA under mmap_lock for writing, downgrade to reading, zap and flush
 * through an mmu_gather (vms_clear_ptes(), page tables freed), then free.
 * Costs: mm.syscall_ns per call; free_pgtables() one mm.list_op_ns per
 * page-table page.
 * Left out: VMA merging, the maple tree, per-VMA lock write sequences.
 */
#include <string.h>

#include "mm/mm.h"
#include "mmsim/trace.h"

struct mm_struct *mm_alloc(struct mem_cgroup *memcg)
{
	struct mm_struct *mm = calloc(1, sizeof(*mm));

	if (!mm)
		abort();
	init_rwsem_named(&mm->mmap_lock, "mmap_lock");
	INIT_LIST_HEAD(&mm->vmas);
	mm->memcg = memcg;
	mm->id = ++sim_mm->nr_mms;
	mm->asid = (uint16_t)mm->id;
	mm->next_addr = 1ULL << 32;
	mm->line.last_writer = -1;
	list_add_tail(&mm->mmlist, &sim_mm->mmlist);
	return mm;
}

static void vma_free(struct vm_area_struct *vma)
{
	free(vma->ptes);
	free(vma->pmd_huge);
	free(vma->pmd_flags);
	free(vma->ptl);
	free(vma);
}

void mm_free(struct mm_struct *mm)
{
	list_del_init(&mm->mmlist);
	while (!list_empty(&mm->vmas)) {
		struct vm_area_struct *vma = list_first_entry(&mm->vmas, struct vm_area_struct, node);

		list_del_init(&vma->node);
		vma_free(vma);
	}
	free(mm);
}

/**
 * vm_mmap_anon - map @len bytes of private anonymous memory
 * @mm: the mm
 * @len: bytes, a multiple of the page size
 * @thp_eligible: huge pages (mTHP or PMD) may back it
 *
 * Context: takes mmap_lock for writing.
 * Return: the address (2 MiB aligned).
 */
uint64_t vm_mmap_anon(struct mm_struct *mm, uint64_t len, bool thp_eligible)
{
	struct vm_area_struct *vma = calloc(1, sizeof(*vma));
	uint64_t pages = len >> PAGE_SHIFT;
	uint64_t pmds = (len + PMD_SIZE - 1) >> PMD_SHIFT;
	uint64_t i;

	if (!vma)
		abort();
	sim_cost_cpu_ps(sim_mm->syscall_ps);
	count_event(SIM_SIM_MMAP);
	vma->ptes = calloc(pages, sizeof(pte_t));
	vma->pmd_huge = calloc(pmds, sizeof(struct folio *));
	vma->pmd_flags = calloc(pmds, 1);
	vma->ptl = calloc(pmds, sizeof(struct spinlock));
	if (!vma->ptes || !vma->pmd_huge || !vma->pmd_flags || !vma->ptl)
		abort();
	for (i = 0; i < pmds; i++)
		spin_lock_init_named(&vma->ptl[i], "ptlock");
	vma->vm_mm = mm;
	vma->thp_eligible = thp_eligible;
	INIT_LIST_HEAD(&vma->node);
	down_write(&mm->mmap_lock);
	vma->vm_start = mm->next_addr;
	vma->vm_end = vma->vm_start + len;
	mm->next_addr = (vma->vm_end + PMD_SIZE - 1 + PMD_SIZE) & ~(PMD_SIZE - 1);
	list_add_tail(&vma->node, &mm->vmas);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	up_write(&mm->mmap_lock);
	return vma->vm_start;
}

/**
 * vm_munmap - unmap the VMA that starts at @addr
 * @mm: the mm
 * @addr: the VMA's start (whole VMAs only)
 * @len: its length
 *
 * Context: mmap_lock for writing, downgraded to reading for the zap.
 * Return: 0, or -EINVAL when no VMA starts at @addr with @len.
 */
int vm_munmap(struct mm_struct *mm, uint64_t addr, uint64_t len)
{
	struct vm_area_struct *vma;
	struct mmu_gather tlb;
	uint64_t pmds;

	sim_trace_begin("mm", "vm_munmap");
	sim_cost_cpu_ps(sim_mm->syscall_ps);
	count_event(SIM_SIM_MUNMAP);
	down_write(&mm->mmap_lock);
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start != addr || vma->vm_end != addr + len) {
		up_write(&mm->mmap_lock);
		sim_trace_end();
		return -22;
	}
	list_del_init(&vma->node);	/* vms_gather_munmap_vmas(): detach */
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	downgrade_write(&mm->mmap_lock);
	tlb_gather_mmu(&tlb, mm);
	unmap_vmas(&tlb, vma);
	/* free_pgtables(): one page-table page per 2 MiB */
	pmds = (len + PMD_SIZE - 1) >> PMD_SHIFT;
	sim_cost_cpu_ps(sim_mm->list_op_ps * (sim_time_t)pmds);
	tlb.freed_tables = true;
	tlb_finish_mmu(&tlb);
	up_read(&mm->mmap_lock);
	vma_free(vma);
	sim_trace_end();
	return 0;
}
