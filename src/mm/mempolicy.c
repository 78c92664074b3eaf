// SPDX-License-Identifier: GPL-2.0-only
/*
 * NUMA memory policies of VMAs and of tmpfs files (mm/mempolicy.c), read
 * at torvalds/linux v6.12.
 *
 * Mirrors do_mbind() (a policy on a whole mapping: the VMA's vm_policy,
 * or for a tmpfs mapping the file's shared policy, shmem_set_policy(),
 * which its private copies follow too, shmem_get_policy()),
 * vma_alloc_folio() -> get_vma_policy() (the interleave index: vm_pgoff
 * plus the page's offset in the VMA, each shifted by the order) ->
 * folio_alloc_mpol() -> policy_nodemask(): MPOL_INTERLEAVE allocates on
 * interleave_nid() (the ilx'th node of the mask, round robin), counting
 * numa_interleave when the folio is on that node; MPOL_BIND and
 * MPOL_PREFERRED on the first node of the mask.  Without a policy the
 * task's default applies, which in the model binds to the workload's
 * node (sim_mm->preferred_nid), as before.
 *
 * Left out: set_mempolicy() (the task policy is that one bind),
 * MPOL_LOCAL, weighted interleave, MPOL_F_* flags and MPOL_MF_MOVE
 * (no migration of pages already there), cpusets, the allocator's
 * fallback to other nodes (a full node fails the allocation, as the
 * model's bind did).
 *
 * Costs: mm.syscall_ns per mbind(); choosing the node is free.
 * Lock order: mmap_lock (write) -> vma lock.
 */
#include "mm/mm.h"

/* interleave_nid(): the ilx'th node of the mask, wrapping around. */
static int interleave_nid(const struct mempolicy *pol, uint64_t ilx)
{
	unsigned int nnodes = (unsigned int)__builtin_popcountl(pol->nodes), target, i;
	int nid;

	target = (unsigned int)(ilx % nnodes);
	nid = __builtin_ctzl(pol->nodes);		/* first_node() */
	for (i = 0; i < target; i++)
		nid = __builtin_ctzl(pol->nodes & ~((2UL << nid) - 1));	/* next_node() */
	return nid;
}

/**
 * folio_alloc_mpol - allocate a folio under a memory policy
 * @order: the folio's order
 * @pol: the policy, or NULL for the task's (bind to sim_mm->preferred_nid)
 * @ilx: the interleave index
 *
 * Context: no spinlock held.
 * Return: the folio, or NULL.
 */
struct folio *folio_alloc_mpol(int order, const struct mempolicy *pol, uint64_t ilx)
{
	struct folio *folio;
	int nid;

	if (!pol || pol->mode == MPOL_DEFAULT)
		return folio_alloc_node(order, sim_mm->preferred_nid);
	if (pol->mode != MPOL_INTERLEAVE)
		return folio_alloc_node(order, __builtin_ctzl(pol->nodes));
	nid = interleave_nid(pol, ilx);
	folio = folio_alloc_node(order, nid);
	if (folio && folio->nid == nid)
		count_event(SIM_NUMA_INTERLEAVE_HIT);
	return folio;
}

/**
 * vma_alloc_folio - allocate a folio for anonymous memory of @vma at @addr
 * @order: the folio's order
 * @vma: the VMA
 * @addr: the address the folio will map (aligned to the order)
 *
 * get_vma_policy(): the VMA's policy, else the task's.
 * Context: no spinlock held.
 * Return: the folio, or NULL.
 */
struct folio *vma_alloc_folio(int order, struct vm_area_struct *vma, uint64_t addr)
{
	const struct mempolicy *pol = vma->vm_policy;
	uint64_t ilx = 0;
	SIM_TRACE_SCOPE("mm", "vma_alloc_folio_noprof");

	/* shmem_get_policy(): a tmpfs mapping's policy is its file's, biased by i_ino */
	if (vma->vm_file && vma->vm_file->kind == SIM_FILE_TMPFS && vma->vm_file->has_policy) {
		pol = &vma->vm_file->policy;
		ilx = vma->vm_file->i_ino;
	}
	if (!pol)
		return folio_alloc_node(order, sim_mm->preferred_nid);
	if (pol->mode == MPOL_INTERLEAVE) {
		ilx += vma->vm_pgoff >> order;
		ilx += (addr - vma->vm_start) >> (PAGE_SHIFT + order);
	}
	return folio_alloc_mpol(order, pol, ilx);
}

/**
 * do_mbind - mbind(@start, @len, @mode, @nodemask, 0) on a whole mapping
 * @mm: the calling process's mm
 * @start: the mapping's start
 * @len: its length
 * @mode: MPOL_DEFAULT, MPOL_PREFERRED, MPOL_BIND or MPOL_INTERLEAVE
 * @nodemask: one bit per node (ignored for MPOL_DEFAULT)
 *
 * Pages already there stay where they are; later allocations follow the
 * policy.  On a tmpfs mapping the policy is the file's (shared by every
 * mapping of it).
 * Context: process context; takes mmap_lock for writing.
 * Return: 0, or -EINVAL (a mode, mask or range the model does not take).
 */
int do_mbind(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned short mode,
	     unsigned long nodemask)
{
	struct vm_area_struct *vma;
	struct mempolicy *pol = NULL;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	if (mode > MPOL_INTERLEAVE)
		return -22;
	if (mode != MPOL_DEFAULT &&
	    (!nodemask || (nodemask >> sim_mm->nr_nodes) || (mode == MPOL_PREFERRED &&
							    (nodemask & (nodemask - 1)))))
		return -22;
	mmap_write_lock(mm);
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start != start || vma->vm_end != start + len) {
		mmap_write_unlock(mm);
		return -22;
	}
	vma_start_write(vma->merged, mm);
	if (vma->vm_file && vma->vm_file->kind == SIM_FILE_TMPFS) {
		/* ->set_policy(): shmem_set_policy() -> mpol_set_shared_policy(), the whole file here */
		vma->vm_file->policy.mode = mode;
		vma->vm_file->policy.nodes = nodemask;
		vma->vm_file->has_policy = mode != MPOL_DEFAULT;
	} else {
		if (mode != MPOL_DEFAULT) {
			pol = malloc(sizeof(*pol));
			if (!pol)
				abort();
			pol->mode = mode;
			pol->nodes = nodemask;
		}
		free(vma->vm_policy);		/* vma_replace_policy() */
		vma->vm_policy = pol;
	}
	mmap_write_unlock(mm);
	return 0;
}

/**
 * mpol_free_vma - drop a VMA's policy when the VMA is freed (mpol_put())
 * @vma: the VMA
 */
void mpol_free_vma(struct vm_area_struct *vma)
{
	free(vma->vm_policy);
	vma->vm_policy = NULL;
}
