// SPDX-License-Identifier: GPL-2.0-only
/*
 * tmpfs page faults (mm/shmem.c), read at torvalds/linux v6.12.
 *
 * Mirrors shmem_fault() -> shmem_get_folio_gfp() (SGP_CACHE): a folio in
 * the page cache is found and locked; a miss is shmem_alloc_and_add_folio():
 * shmem_alloc_folio() under the inode's shared policy (mbind() on a
 * shared mapping sets it; the interleave index is biased by the inode
 * number, shmem_get_pgoff_policy()), PG_swapbacked, the memcg charge,
 * shmem_add_to_page_cache() (NR_FILE_PAGES and NR_SHMEM), the inode's
 * block accounting (shmem_inode_acct_blocks()), folio_add_lru()
 * (the anon LRU: shmem folios are swap backed), then the folio is cleared
 * and marked uptodate.  A fresh tmpfs folio is not a major fault.
 * shmem_vm_ops has no page_mkwrite: a shared writable mapping maps its
 * folios writable at once, and folio_mark_dirty() is noop_dirty_folio()
 * (no NR_FILE_DIRTY).
 *
 * Costs: the lookup and insertion as filemap.c's; the block accounting,
 * mm.shmem_acct_ns a folio (calibrate measures it: the VM_NORESERVE commit
 * charge, security_vm_enough_memory_mm(), the superblock's used_blocks
 * counter and quota); clearing the folio at mem.zero_gbps within the
 * node's write bandwidth (clear_highpage()).
 *
 * Left out: swap of shmem folios (shmem_writeout(): reclaim keeps them),
 * large folios (huge= mount option), the inode's info->lock
 * (shmem_recalc_inode()) and the unaccounting at truncation,
 * fallocate and SGP_* other than SGP_CACHE, userfaultfd.
 *
 * Lock order: as filemap.c's.
 */
#include "mm/mm.h"

const struct vm_operations_struct shmem_vm_ops = {
	.name = "shmem_vm_ops",
	.fault = shmem_fault,
	.map_pages = filemap_map_pages,
	/* no page_mkwrite: tmpfs needs no write notification */
};

/* shmem_alloc_folio(): the inode's shared policy, else the task's. */
static struct folio *shmem_alloc_folio(struct address_space *mapping, uint64_t index)
{
	/* shmem_get_pgoff_policy(): bias interleave by the inode number */
	uint64_t ilx = mapping->i_ino + index;

	return folio_alloc_mpol(0, mapping->has_policy ? &mapping->policy : NULL, ilx);
}

/**
 * shmem_get_folio_gfp - find or create the tmpfs folio at @index (SGP_CACHE)
 * @mapping: the tmpfs file
 * @index: page offset, below i_size
 * @foliop: the folio, locked and referenced
 * @memcg: the memcg a new folio is charged to
 * @vmf: the fault that asks, or NULL: a new folio's zeroed lines stay in
 *	 the faulting CPU's caches under its address (mmu_kernel_store())
 *
 * Context: no spinlock held.
 * Return: 0, -EINVAL beyond i_size, -ENOMEM.
 */
int shmem_get_folio_gfp(struct address_space *mapping, uint64_t index, struct folio **foliop,
			struct mem_cgroup *memcg, struct vm_fault *vmf)
{
	struct folio *folio;
	int err;

	if (index >= i_size_pages(mapping))
		return -22;
repeat:
	folio = filemap_get_entry(mapping, index);
	if (folio && folio->_refcount > 0) {
		folio_get(folio);
		folio_lock(folio);
		if (folio->mapping != mapping || !folio_test(folio, PG_file)) {
			/* truncated meanwhile */
			folio_unlock(folio);
			folio_put(folio);
			goto repeat;
		}
		*foliop = folio;
		return 0;
	}
	/* shmem_get_folio_gfp()'s own work on a miss: the checks, the orders allowed */
	sim_cost_cpu_ps(sim_mm->shmem_get_ps);	/* mm.shmem_get_ns */
	/* shmem_alloc_and_add_folio() */
	folio = shmem_alloc_folio(mapping, index);
	if (!folio)
		return -12;
	folio_set(folio, PG_locked);		/* __folio_set_locked() */
	folio_set(folio, PG_swapbacked);	/* __folio_set_swapbacked() */
	err = filemap_add_folio(mapping, folio, index, memcg);	/* shmem_add_to_page_cache() */
	if (err) {
		folio_clear(folio, PG_locked);
		folio_put(folio);
		if (err == -17)
			goto repeat;
		return err;
	}
	/* shmem_inode_acct_blocks(): the commit charge, used_blocks, quota */
	sim_cost_cpu_ps(sim_mm->shmem_acct_ps);	/* mm.shmem_acct_ns */
	/* !uptodate: clear_highpage(), folio_mark_uptodate() */
	mem_zero_pages(folio->nid, (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT);
	if (vmf)	/* clear_highpage() of each page, in order, from the folio's first */
		mmu_kernel_store(vmf->vma->vm_mm->asid,
				 vmf->address & ~(((uint64_t)folio_nr_pages(folio) << PAGE_SHIFT) - 1),
				 (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT);
	folio->data = FOLIO_DATA_ZERO;
	folio_set(folio, PG_uptodate);
	*foliop = folio;
	return 0;
}

/**
 * shmem_fault - the fault handler of a tmpfs mapping
 * @vmf: the fault
 *
 * Context: the VMA lock or mmap_lock held for reading.
 * Return: VM_FAULT_LOCKED with vmf->folio locked and referenced;
 * VM_FAULT_SIGBUS beyond i_size; VM_FAULT_OOM.
 */
int shmem_fault(struct vm_fault *vmf)
{
	struct folio *folio = NULL;
	int err = shmem_get_folio_gfp(vmf->vma->vm_file, vmf->pgoff, &folio,
				      vmf->vma->vm_mm->memcg, vmf);

	if (err)
		return err == -12 ? VM_FAULT_OOM : VM_FAULT_SIGBUS;	/* vmf_error() */
	vmf->folio = folio;
	return VM_FAULT_LOCKED;
}
