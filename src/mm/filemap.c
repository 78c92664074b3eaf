// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page cache of a file on a block device (mm/filemap.c, with the dirty
 * accounting of mm/page-writeback.c), read at torvalds/linux v6.12.
 *
 * Mirrors
 *   filemap_get_entry()       lookup of i_pages under RCU (no lock)
 *   filemap_add_folio()       charge, __filemap_add_folio() under the
 *                             i_pages lock (NR_FILE_PAGES, nrpages, the
 *                             cache's references), then folio_add_lru()
 *   page_cache_delete()       as filemap_remove_folio_locked() (the
 *                             kernel's __filemap_remove_folio()), and
 *                             truncate.c dropping the cache's refs
 *                             (the kernel's filemap_free_folio())
 *   filemap_fault()           a hit locks the cached folio; a miss counts
 *                             pgmajfault, allocates, adds, reads it and
 *                             waits (filemap_read_folio()), VM_FAULT_MAJOR
 *   filemap_map_pages()       fault-around: maps the cached, uptodate,
 *                             unlocked folios of the window under one PTL,
 *                             page by page (filemap_map_order0_folio(); a
 *                             large folio's pages in the window likewise,
 *                             filemap_map_folio_range(); no PMD)
 *   filemap_page_mkwrite()    file_update_time(), folio_lock(),
 *                             folio_mark_dirty()
 *   folio_mark_dirty()        filemap_dirty_folio() -> __folio_mark_dirty()
 *                             -> folio_account_dirtied() under the i_pages
 *                             lock: NR_FILE_DIRTY, nr_dirtied; tmpfs has
 *                             noop_dirty_folio() (the flag only)
 *   folio_cancel_dirty()      folio_account_cleaned() (truncation)
 * and the model's own sim_file_create()/sim_file_destroy(), a file of a
 * size on a device or on tmpfs, sim_file_create_sparse(), a file on a
 * device that ftruncate() sized and nothing wrote (no blocks: every page
 * a hole), and vm_mmap_file() (mm/mmap.c's part).
 *
 * A hole: the filesystem's read_folio finds no block behind the folio
 * (ext4_mpage_readpages(), mpage_readpage()'s first_hole == 0), zeroes it
 * (folio_zero_segment()) and marks it uptodate with no bio: no I/O, no
 * wait.  filemap_fault() has counted the miss as major before it knows.
 *
 * Costs: the lookup of i_pages (an XArray walk), mm.folio_op_ns; each
 * insertion and deletion under the i_pages lock, mm.i_pages_add_ns and
 * mm.i_pages_del_ns (calibrate measures both on a tmpfs file's pages); file_update_time(), mm.folio_op_ns
 * (assumption: the inode's timestamps are in cache); a read of a folio
 * from the device: swap.read_us of latency and 4 KiB at
 * swap.bandwidth_mbps, in one FIFO queue per model (stated assumption:
 * the file lives on a device like the profile's swap device, an
 * NVMe-class SSD; no separate disk keys).  The faulting task sleeps for
 * the read.  A hole: the block lookup (ext4_map_blocks() on the extent
 * tree, assumed cached), mm.folio_op_ns, and the zeroing at mem.zero_gbps
 * within the node's write bandwidth, as clear_highpage().
 *
 * Left out: fault readahead (a fault reads only its folio, as the
 * kernel does for a VMA with VM_RAND_READ, i.e. after MADV_RANDOM;
 * read() has readahead, readahead.c), large folios from a fault or a
 * write() (only readahead makes them; a fault's miss and tmpfs add order
 * 0), splitting a large page cache folio, writeback (dirty folios
 * stay dirty until truncated: no flusher, no fsync, no dirty throttling
 * in balance_dirty_pages_ratelimited()), shadow entries and workingset
 * refaults, mmap_miss accounting, the i_size check's races, hugetlbfs;
 * block allocation (a sparse file stays all holes: its blocks would be
 * allocated at writeback, which the model leaves out).
 *
 * Lock order (mm/rmap.c's block comment, restricted to the model):
 *   mmap_lock or the VMA lock
 *     folio lock
 *       i_mmap_rwsem (truncation's unmap, rmap walks)
 *         PTL
 *           i_pages lock (IRQs off)   (folio_mark_dirty() from a zap)
 *       i_pages lock (IRQs off)       (add, delete, dirty accounting)
 *     lruvec->lru_lock                (folio_add_lru() drains; never
 *                                      under the i_pages lock)
 */
#include <string.h>

#include "mm/mm.h"

const struct vm_operations_struct generic_file_vm_ops = {
	.name = "generic_file_vm_ops",
	.fault = filemap_fault,
	.map_pages = filemap_map_pages,
	.page_mkwrite = filemap_page_mkwrite,
};

/**
 * node_stat_mod_folio - __lruvec_stat_mod_folio()'s node statistic
 * @folio: the folio counted (its node)
 * @item: the statistic
 * @nr: pages added (negative: taken away)
 *
 * __mod_node_page_state() (mm/vmstat.c): the delta goes to this CPU's
 * vm_node_stat_diff, and when that passes the node's per-CPU stat_threshold
 * it is folded into the shared counters, an atomic on the node's
 * vm_stat[] and one on the global vm_node_stat[] (node_page_state_add(),
 * include/linux/vmstat.h): lines every CPU writes.  A 2M folio mapped or
 * unmapped folds every time (512 pages, the threshold 125 at most).  The
 * model's readers take the exact sum (node_stat[]).
 * Context: any; the fold costs the running vCPU, if there is one.
 */
void node_stat_mod_folio(struct folio *folio, enum node_stat_item item, long nr)
{
	int nid = folio->nid;
	long *d, x;

	sim_mm->node_stat[nid][item] += nr;
	if (!sim_vcpu_current)
		return;
	d = &sim_mm->node_stat_diff[smp_processor_id()][nid][item];
	x = *d + nr;
	if (x > sim_mm->stat_threshold[nid] || x < -sim_mm->stat_threshold[nid]) {
		sim_line_rmw(&sim_mm->node_stat_line[nid][node_stat_line_of(item)]);
		sim_line_rmw(&sim_mm->vm_node_stat_line[node_stat_line_of(item)]);
		x = 0;
	}
	*d = x;
}

/*
 * calculate_normal_threshold() (mm/vmstat.c): a zone of @pages on @nr_cpus
 * CPUs; the node takes its zones' largest (refresh_zone_stat_thresholds()),
 * and the model's node is one zone.
 */
static int fls_ul(unsigned long x)
{
	return x ? 64 - __builtin_clzl(x) : 0;
}

int vmstat_normal_threshold(long pages, int nr_cpus)
{
	long mem = pages >> (27 - PAGE_SHIFT);	/* 128 MiB units */
	int t = 2 * fls_ul((unsigned long)nr_cpus) * (1 + fls_ul((unsigned long)(mem > 0 ? mem : 0)));

	return t < 125 ? t : 125;
}

/**
 * global_node_page_state - a node statistic summed over the nodes
 * @item: the statistic
 *
 * Return: its value (pages).
 */
long global_node_page_state(enum node_stat_item item)
{
	long sum = 0;
	int nid;

	for (nid = 0; nid < sim_mm->nr_nodes; nid++)
		sum += sim_mm->node_stat[nid][item];
	return sum;
}

/**
 * sim_file_create - a file of @size bytes, empty in the page cache
 * @size: i_size in bytes (rounded up to whole pages for the cache)
 * @kind: SIM_FILE_DISK (a regular file on a block device) or SIM_FILE_TMPFS
 *
 * Context: any; no lock.
 * Return: the file's address_space, or NULL for a size of 0.
 */
struct address_space *sim_file_create(uint64_t size, enum sim_file_kind kind)
{
	struct address_space *mapping;

	if (!size)
		return NULL;
	mapping = calloc(1, sizeof(*mapping));
	if (!mapping)
		abort();
	mapping->nr_slots = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	mapping->i_pages = calloc(mapping->nr_slots, sizeof(*mapping->i_pages));
	if (!mapping->i_pages)
		abort();
	spin_lock_init_named(&mapping->i_pages_lock, "&xa->xa_lock");
	init_rwsem_named(&mapping->i_mmap_rwsem, "&mapping->i_mmap_rwsem");
	INIT_LIST_HEAD(&mapping->i_mmap);
	mapping->i_size = size;
	mapping->kind = kind;
	/* ext4 (since v6.16) and XFS (v5.18) set it for regular files; tmpfs by huge= */
	mapping->large_folios = kind == SIM_FILE_DISK;
	mapping->i_ino = ++sim_mm->last_ino;
	mapping->vm_ops = kind == SIM_FILE_TMPFS ? &shmem_vm_ops : &generic_file_vm_ops;
	list_add_tail(&mapping->node, &sim_mm->files);
	return mapping;
}

/**
 * sim_file_create_sparse - a file on a device that ftruncate() sized
 * @size: i_size in bytes
 *
 * open(O_CREAT) and ftruncate(): i_size set, no block allocated, so every
 * page is a hole (mkstemp() and ftruncate(), as will-it-scale's
 * page_fault2 and page_fault3 make theirs).
 * Context: any; no lock.
 * Return: the file's address_space, or NULL for a size of 0.
 */
struct address_space *sim_file_create_sparse(uint64_t size)
{
	struct address_space *mapping = sim_file_create(size, SIM_FILE_DISK);

	if (mapping)
		mapping->sparse = true;
	return mapping;
}

/**
 * sim_file_destroy - drop a file: its page cache is truncated, then freed
 * @mapping: a file that no VMA maps any more
 *
 * The last close and unlink of the file: truncate_inode_pages_final().
 * A folio still in a per-CPU LRU batch is freed when the batch drains.
 * Context: a task (takes the i_pages lock and folio locks).
 */
void sim_file_destroy(struct address_space *mapping)
{
	if (!mapping)
		return;
	SIM_BUG_ON(!list_empty(&mapping->i_mmap));
	truncate_inode_pages_range(mapping, 0, UINT64_MAX);
	SIM_BUG_ON(mapping->nrpages != 0);
	list_del_init(&mapping->node);
	free(mapping->i_pages);
	free(mapping);
}

/**
 * filemap_get_entry - the folio cached at @index, without a reference
 * @mapping: the file
 * @index: page offset
 *
 * Context: RCU read side (no lock); the caller takes its own reference.
 * Return: the folio, or NULL.
 */
struct folio *filemap_get_entry(struct address_space *mapping, uint64_t index)
{
	sim_cost_cpu_ps(sim_mm->folio_op_ps);	/* xas_load() */
	if (index >= mapping->nr_slots)
		return NULL;
	return mapping->i_pages[index];
}

/*
 * filemap_get_folio(): a lookup with folio_try_get(); a folio being freed
 * (refcount frozen at 0 by reclaim) is not found.
 */
static struct folio *filemap_get_folio(struct address_space *mapping, uint64_t index)
{
	struct folio *folio = filemap_get_entry(mapping, index);

	if (!folio || folio->_refcount == 0)
		return NULL;
	folio_get(folio);
	return folio;
}

/**
 * filemap_add_folio - add a new locked folio to the page cache and the LRU
 * @mapping: the file
 * @folio: a new folio, PG_locked set by the caller (__folio_set_locked())
 * @index: its page offset
 * @memcg: the memcg it is charged to (the faulting task's)
 *
 * The cache holds one reference per page.  The folio goes on the LRU
 * through this CPU's batch: the file LRU for a file on a device, the anon
 * LRU for tmpfs (PG_swapbacked), as folio_lru_list() says.
 * Context: no spinlock held; takes the i_pages lock (IRQs off).
 * Return: 0, -ENOMEM when the charge fails, -EEXIST when the index is taken.
 */
int filemap_add_folio(struct address_space *mapping, struct folio *folio, uint64_t index,
		      struct mem_cgroup *memcg)
{
	long nr = folio_nr_pages(folio), i;
	unsigned long flags;

	if (mem_cgroup_charge(folio, memcg))
		return -12;
	/* __filemap_add_folio() */
	folio->_refcount += (int32_t)nr;	/* folio_ref_add(): the cache's */
	folio->mapping = mapping;
	folio->index = index;
	folio_set(folio, PG_file);
	SIM_BUG_ON_FOLIO(index & (uint64_t)(nr - 1), folio);	/* xas_set_order() */
	spin_lock_irqsave(&mapping->i_pages_lock, flags);
	for (i = 0; i < nr; i++)
		if (index + (uint64_t)i >= mapping->nr_slots || mapping->i_pages[index + i]) {
			spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
			folio->mapping = NULL;
			folio_clear(folio, PG_file);
			folio->_refcount -= (int32_t)nr;
			mem_cgroup_uncharge(folio);
			return -17;		/* -EEXIST */
		}
	for (i = 0; i < nr; i++)		/* a multi-index entry */
		mapping->i_pages[index + i] = folio;
	mapping->nrpages += (unsigned long)nr;
	node_stat_mod_folio(folio, NR_FILE_PAGES, nr);
	if (mapping->kind == SIM_FILE_TMPFS)
		node_stat_mod_folio(folio, NR_SHMEM, nr);	/* shmem_add_to_page_cache() */
	sim_cost_cpu_ps(sim_mm->i_pages_add_ps);	/* mm.i_pages_add_ns: xas_store(), counters */
	spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
	folio->place = FOLIO_MAPPED;		/* held by the cache */
	folio_add_lru(folio);
	return 0;
}

/**
 * filemap_remove_folio_locked - take a folio out of the page cache
 * @folio: a locked page cache folio, unmapped
 *
 * The kernel's __filemap_remove_folio() -> page_cache_delete() with
 * filemap_unaccount_folio(): the slot is cleared and the statistics
 * dropped; the cache's references stay for the caller to drop (the
 * kernel's filemap_free_folio(), in truncate.c) or to have frozen
 * (__remove_mapping()).
 * Context: the i_pages lock held.
 */
void filemap_remove_folio_locked(struct folio *folio)
{
	struct address_space *mapping = folio_file_mapping(folio);
	long nr = folio_nr_pages(folio), i;

	SIM_BUG_ON_FOLIO(!mapping || mapping->i_pages[folio->index] != folio, folio);
	SIM_BUG_ON_FOLIO(folio_mapped(folio), folio);
	for (i = 0; i < nr; i++)
		mapping->i_pages[folio->index + i] = NULL;
	mapping->nrpages -= (unsigned long)nr;
	node_stat_mod_folio(folio, NR_FILE_PAGES, -nr);
	if (mapping->kind == SIM_FILE_TMPFS)
		node_stat_mod_folio(folio, NR_SHMEM, -nr);
	if (folio_test(folio, PG_dirty) && mapping->kind == SIM_FILE_DISK) {
		/* filemap_unaccount_folio(): a dirty folio of a file that writes back */
		node_stat_mod_folio(folio, NR_FILE_DIRTY, -nr);
	}
	sim_cost_cpu_ps(sim_mm->i_pages_del_ps);	/* mm.i_pages_del_ns: xas_store(NULL), counters */
	folio->mapping = NULL;
	folio_clear(folio, PG_file);
}

/*
 * filemap_read_folio(): submit the read of a locked, new folio and wait
 * for it.  The device serves transfers in order; a request's latency
 * overlaps the transfers queued before it (as swapfile.c's device).
 * A hole of a sparse file is zeroed instead, with no I/O (the file
 * system's read_folio: ext4_mpage_readpages() with first_hole == 0).
 */
void filemap_read_folio(struct folio *folio)
{
	const struct sim_profile *p = sim_mm->prof;
	uint64_t bytes = (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT;
	sim_time_t now, start, latency = p->swap_read_us * SIM_US, wait;
	uint64_t bw = p->swap_bandwidth_mbps ? p->swap_bandwidth_mbps : 1;

	if (folio_file_mapping(folio)->sparse) {
		sim_cost_cpu_ps(sim_mm->folio_op_ps);	/* ext4_map_blocks(): a hole */
		mem_zero_pages(folio->nid, bytes);	/* folio_zero_segment() */
		folio->data = FOLIO_DATA_ZERO;
		folio_set(folio, PG_uptodate);		/* folio_end_read(folio, true) */
		return;
	}
	sim_sync();
	now = sim_now();
	start = sim_mm->bdev_busy_until > now ? sim_mm->bdev_busy_until : now;
	sim_mm->bdev_busy_until = start + bytes * SIM_US / bw;
	wait = sim_mm->bdev_busy_until - now;
	if (wait < latency)
		wait = latency;
	count_events(SIM_PGPGIN, bytes / 1024);
	sim_sleep_ps(wait);
	folio->data = FOLIO_DATA_MIXED;		/* the file's contents */
	folio_set(folio, PG_uptodate);
}

/**
 * filemap_fault - read a file page into the page cache for a fault
 * @vmf: the fault; vmf->pgoff is the page wanted
 *
 * A hit takes the cached folio; a miss is a major fault: a folio is
 * allocated (the task's policy), added to the page cache and the file
 * LRU, and read from the device while the task sleeps (a hole of a
 * sparse file: zeroed, no read, still counted major as the kernel does).
 * Context: the VMA lock or mmap_lock held for reading; no spinlock.
 * Return: VM_FAULT_LOCKED (| VM_FAULT_MAJOR) with vmf->folio locked and
 * referenced; VM_FAULT_SIGBUS beyond i_size; VM_FAULT_OOM.
 */
int filemap_fault(struct vm_fault *vmf)
{
	struct address_space *mapping = vmf->vma->vm_file;
	struct folio *folio;
	int ret = 0;

	if (vmf->pgoff >= i_size_pages(mapping))
		return VM_FAULT_SIGBUS;
retry_find:
	folio = filemap_get_folio(mapping, vmf->pgoff);
	if (!folio) {
		int err;

		/* No folio in the page cache at all */
		count_event(SIM_PGMAJFAULT);
		ret = VM_FAULT_MAJOR;
		/* do_sync_mmap_readahead(): VM_RAND_READ, no readahead */
		folio = folio_alloc_mpol(0, NULL, 0);	/* filemap_alloc_folio(): the task's policy */
		if (!folio)
			return VM_FAULT_OOM;
		folio_set(folio, PG_locked);		/* __folio_set_locked() */
		err = filemap_add_folio(mapping, folio, vmf->pgoff, vmf->vma->vm_mm->memcg);
		if (err) {
			folio_clear(folio, PG_locked);
			folio_put(folio);
			if (err == -17)
				goto retry_find;
			return VM_FAULT_OOM;
		}
		filemap_read_folio(folio);		/* the read, then folio_unlock() at its end */
		folio_unlock(folio);
	}
	/* lock_folio_maybe_drop_mmap() */
	folio_lock(folio);
	if (folio->mapping != mapping || !folio_test(folio, PG_file)) {
		/* truncated meanwhile */
		folio_unlock(folio);
		folio_put(folio);
		goto retry_find;
	}
	vmf->folio = folio;
	return ret | VM_FAULT_LOCKED;
}

/**
 * filemap_map_pages - fault-around: map the cached folios of a window
 * @vmf: the fault
 * @start_pgoff: first file page of the window
 * @end_pgoff: last file page of the window (inclusive)
 *
 * next_uptodate_folio() skips what is not cached, locked (being read or
 * truncated), not uptodate or frozen; each other folio is referenced,
 * locked, mapped young at each none PTE of the window (one reference and
 * one mapcount per PTE), unlocked and released, once per folio (a large
 * one's pages in the window under one lock, filemap_map_folio_range()).
 * Context: the VMA lock or mmap_lock; takes the window's PTL.
 * Return: VM_FAULT_NOPAGE when the faulting address was mapped, else 0.
 */
int filemap_map_pages(struct vm_fault *vmf, uint64_t start_pgoff, uint64_t end_pgoff)
{
	struct vm_area_struct *vma = vmf->vma;
	struct address_space *mapping = vma->vm_file;
	uint64_t index, addr;
	struct spinlock *ptl;
	long rss = 0;
	int ret = 0;

	addr = vma->vm_start + ((start_pgoff - vma->vm_pgoff) << PAGE_SHIFT);
	ptl = pte_lockptr_lookup(vma, addr);
	spin_lock(ptl);
	for (index = start_pgoff; index <= end_pgoff && index < i_size_pages(mapping); index++) {
		struct folio *folio = mapping->i_pages[index];
		uint64_t last;

		sim_cost_cpu_ps(sim_mm->pte_op_ps);	/* xas_next_entry() */
		/* next_uptodate_folio() */
		if (!folio || folio->_refcount == 0 || !folio_test(folio, PG_uptodate))
			continue;
		if (!folio_trylock(folio))
			continue;
		folio_get(folio);			/* folio_try_get() */
		/* filemap_map_order0_folio(), filemap_map_folio_range(): its pages in the window */
		last = folio->index + (uint64_t)folio_nr_pages(folio) - 1;
		if (last > end_pgoff)
			last = end_pgoff;
		for (; index <= last; index++) {
			pte_t *pte;

			addr = vma->vm_start + ((index - vma->vm_pgoff) << PAGE_SHIFT);
			pte = vma_pte_lookup(vma, addr);
			sim_cost_cpu_ps(sim_mm->pte_op_ps);
			if (!pte_none(*pte))
				continue;
			if (addr == vmf->address)
				ret = VM_FAULT_NOPAGE;
			/* set_pte_range(): x86 keeps prefaulted PTEs young */
			folio_add_file_rmap_ptes(folio, 1, vma);
			*pte = mk_pte(folio, PTE_YOUNG | (vma_page_prot_write(vma) ? PTE_WRITE : 0));
			folio_get(folio);		/* folio_ref_inc(): the PTE's */
			rss++;
		}
		index = last;
		folio_unlock(folio);
		folio_put(folio);
	}
	if (mapping->kind == SIM_FILE_TMPFS)
		vma->vm_mm->rss_shmem += rss;
	else
		vma->vm_mm->rss_file += rss;
	spin_unlock(ptl);
	return ret;
}

/*
 * folio_buffers_walk(): one pass over a disk file's folio's buffer_heads
 * (fs/buffer.c), one per block, a block per page (ext4's 4 KiB blocks):
 * @per_bh for each.  The passes' costs a block are profile keys that
 * calibrate measures on the running kernel (cpu-clock samples under each
 * function over page_fault3's loop): mm.bh_begin_ns, a write fault's
 * __block_write_begin_int() (flag tests); mm.bh_commit_ns, its
 * block_commit_write() (mark_buffer_dirty(): a fence or a set_bit a
 * buffer); mm.bh_dirty_ns, each block_dirty_folio() (set_buffer_dirty()
 * a buffer, dirty or not), at the fault and again at the dirty unmap.
 */
void folio_buffers_walk(struct folio *folio, sim_time_t per_bh)
{
	sim_cost_cpu_ps(per_bh * (sim_time_t)folio_nr_pages(folio));
}

/**
 * folio_mark_dirty - mark a folio dirty, accounting it for writeback
 * @folio: a folio (locked, or mapped by a PTE the caller holds the PTL of)
 *
 * A page cache folio of a file on a device: filemap_dirty_folio(), which
 * accounts NR_FILE_DIRTY and nr_dirtied under the i_pages lock the first
 * time; tmpfs (noop_dirty_folio()) and anonymous folios: the flag alone.
 * Context: may take the i_pages lock (IRQs saved).
 * Return: true if the folio was clean.
 */
bool folio_mark_dirty(struct folio *folio)
{
	struct address_space *mapping = folio_file_mapping(folio);
	unsigned long flags;

	/* block_dirty_folio(): set_buffer_dirty() on each buffer, dirty or not */
	if (mapping && mapping->kind == SIM_FILE_DISK)
		folio_buffers_walk(folio, sim_mm->bh_dirty_ps);	/* mm.bh_dirty_ns */
	if (folio_test(folio, PG_dirty))
		return false;
	folio_set(folio, PG_dirty);
	sim_line_rmw(&folio->line);
	if (!mapping || mapping->kind != SIM_FILE_DISK)
		return true;
	/* __folio_mark_dirty() */
	spin_lock_irqsave(&mapping->i_pages_lock, flags);
	if (folio->mapping == mapping) {
		/* folio_account_dirtied(), the PAGECACHE_TAG_DIRTY mark */
		node_stat_mod_folio(folio, NR_FILE_DIRTY, folio_nr_pages(folio));
		count_events(SIM_NR_DIRTIED, (uint64_t)folio_nr_pages(folio));
		sim_cost_cpu_ps(sim_mm->folio_op_ps);
	}
	spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
	return true;
}

/**
 * folio_cancel_dirty - clear the dirty bit of a folio being truncated
 * @folio: a locked page cache folio
 *
 * folio_account_cleaned() for a file that writes back.
 */
void folio_cancel_dirty(struct folio *folio)
{
	struct address_space *mapping = folio_file_mapping(folio);

	if (!folio_test_clear(folio, PG_dirty))
		return;
	if (mapping && mapping->kind == SIM_FILE_DISK)
		node_stat_mod_folio(folio, NR_FILE_DIRTY, -folio_nr_pages(folio));
}

/**
 * filemap_page_mkwrite - a write to a mapped page cache folio of a file
 * @vmf: the fault; vmf->folio the folio (not locked)
 *
 * sb_start_pagefault(), file_update_time(), then the folio is locked and
 * marked dirty (folio_wait_stable(): no writeback here).
 * Context: no spinlock held.
 * Return: VM_FAULT_LOCKED, or VM_FAULT_NOPAGE when it was truncated.
 */
int filemap_page_mkwrite(struct vm_fault *vmf)
{
	struct folio *folio = vmf->folio;

	sim_cost_cpu_ps(sim_mm->folio_op_ps);	/* file_update_time() */
	folio_lock(folio);
	if (folio->mapping != vmf->vma->vm_file || !folio_test(folio, PG_file)) {
		folio_unlock(folio);
		return VM_FAULT_NOPAGE;
	}
	if (folio->mapping->kind == SIM_FILE_DISK) {
		/* block_page_mkwrite(): __block_write_begin_int(), block_commit_write() */
		folio_buffers_walk(folio, sim_mm->bh_begin_ps);	/* mm.bh_begin_ns */
		folio_buffers_walk(folio, sim_mm->bh_commit_ps);	/* mm.bh_commit_ns */
	}
	folio_mark_dirty(folio);
	return VM_FAULT_LOCKED;
}
