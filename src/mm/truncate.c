// SPDX-License-Identifier: GPL-2.0-only
/*
 * Truncation of a file's page cache (mm/truncate.c, with
 * unmap_mapping_range() of mm/memory.c), read at torvalds/linux v6.12.
 *
 * Mirrors truncate_pagecache() as sim_file_truncate() does it:
 * truncate_setsize(), unmap_mapping_range(even_cows) over every VMA of
 * i_mmap (zap_page_range_single(): the PTEs of the range, the TLB flush,
 * the folios' references dropped), then truncate_inode_pages_range():
 * find_lock_entries() in batches of PAGEVEC_SIZE (a reference and the
 * folio lock each), truncate_cleanup_folio() (a folio mapped again
 * meanwhile is unmapped, folio_cancel_dirty()), delete_from_page_cache_batch()
 * under one i_pages lock, filemap_free_folio() for the cache's references,
 * folio_unlock(), folios_put() (folio_batch_release()), which takes the
 * freed folios off their LRU under lru_lock.
 *
 * Costs: those of the functions called (lookups, PTE zaps, frees).
 * Left out: partial pages (the range is whole pages; a size is rounded up),
 * shadow and swap entries, writeback waits (no writeback here),
 * invalidate_inode_pages2() and hole punching beyond whole-file truncation
 * to a size.
 *
 * Lock order: folio lock -> i_mmap_rwsem (read) -> PTL (the unmap);
 * folio lock -> i_pages lock; lru_lock after the i_pages lock is dropped.
 */
#include "mm/mm.h"

/**
 * unmap_mapping_range - unmap the file pages [@holebegin, +@holelen) from all VMAs
 * @mapping: the file
 * @holebegin: byte offset in the file (rounded down to a page)
 * @holelen: bytes; 0: to the end of the file
 *
 * Private COWed (anonymous) copies in the range are zapped too
 * (even_cows = 1, as truncate_pagecache() asks).
 * Context: no spinlock held; takes i_mmap_rwsem for reading.
 */
void unmap_mapping_range(struct address_space *mapping, uint64_t holebegin, uint64_t holelen)
{
	uint64_t first = holebegin >> PAGE_SHIFT;
	uint64_t last = holelen ? ((holebegin + holelen + PAGE_SIZE - 1) >> PAGE_SHIFT) - 1
				: UINT64_MAX;
	struct list_head *pos;

	down_read(&mapping->i_mmap_rwsem);	/* i_mmap_lock_read() */
	list_for_each(pos, &mapping->i_mmap) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, shared_node);
		uint64_t vfirst = vma->vm_pgoff;
		uint64_t vlast = vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;
		uint64_t zfirst, zlast;

		/* unmap_mapping_range_tree(): the VMAs whose pages overlap */
		if (vlast < first || vfirst > last)
			continue;
		zfirst = first > vfirst ? first : vfirst;
		zlast = last < vlast ? last : vlast;
		zap_page_range_single(vma, vma->vm_start + ((zfirst - vfirst) << PAGE_SHIFT),
				      (zlast - zfirst + 1) << PAGE_SHIFT, true);
	}
	up_read(&mapping->i_mmap_rwsem);
}

/* truncate_cleanup_folio(): unmap a folio mapped again, drop its dirty state. */
static void truncate_cleanup_folio(struct folio *folio)
{
	if (folio_mapped(folio))
		unmap_mapping_range(folio->mapping, folio->index << PAGE_SHIFT,
				    (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT);
	folio_cancel_dirty(folio);
}

/**
 * truncate_inode_pages_range - remove the page cache folios of a byte range
 * @mapping: the file
 * @lstart: first byte (rounded up to a page: partial pages are left out)
 * @lend: last byte, inclusive (UINT64_MAX: to the end)
 *
 * Context: no spinlock held; takes folio locks, the i_pages lock, lru_lock.
 */
void truncate_inode_pages_range(struct address_space *mapping, uint64_t lstart, uint64_t lend)
{
	uint64_t index = (lstart + PAGE_SIZE - 1) >> PAGE_SHIFT;
	uint64_t end = lend == UINT64_MAX ? mapping->nr_slots : (lend + 1) >> PAGE_SHIFT;
	struct folio_batch fbatch;
	unsigned long flags;
	unsigned int i;

	if (end > mapping->nr_slots)
		end = mapping->nr_slots;
	folio_batch_init(&fbatch);
	while (index < end) {
		/* find_lock_entries(): up to PAGEVEC_SIZE cached folios, locked */
		for (; index < end && folio_batch_space(&fbatch); index++) {
			struct folio *folio = filemap_get_entry(mapping, index);

			if (!folio || folio->_refcount == 0)
				continue;
			/*
			 * A large folio counts once; one that sticks out of the
			 * range stays whole (truncate_inode_partial_folio() when
			 * split_folio() fails: the model does not split page cache
			 * folios).
			 */
			if (folio_test_large(folio)) {
				uint64_t last = folio->index + (uint64_t)folio_nr_pages(folio) - 1;

				if (folio->index < index || last >= end) {
					index = last;
					continue;
				}
				index = last;
			}
			if (!folio_trylock(folio))
				continue;	/* locked by someone: the kernel's second pass waits */
			folio_get(folio);
			folio_batch_add(&fbatch, folio);
		}
		if (!folio_batch_count(&fbatch))
			break;
		for (i = 0; i < fbatch.nr; i++)
			truncate_cleanup_folio(fbatch.folios[i]);
		/* delete_from_page_cache_batch() */
		spin_lock_irqsave(&mapping->i_pages_lock, flags);
		for (i = 0; i < fbatch.nr; i++)
			filemap_remove_folio_locked(fbatch.folios[i]);
		spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
		for (i = 0; i < fbatch.nr; i++) {
			struct folio *folio = fbatch.folios[i];

			/* the batch's reference keeps it alive across these */
			/* filemap_free_folio(): the cache's, one per page */
			folio->_refcount -= (int32_t)folio_nr_pages(folio);
			SIM_BUG_ON_FOLIO(folio->_refcount <= 0, folio);
			folio_unlock(folio);
		}
		folios_put(&fbatch);			/* folio_batch_release() */
		folio_batch_reinit(&fbatch);
		cond_resched();
	}
}

/**
 * sim_file_truncate - ftruncate(): set the file's size and drop the pages beyond
 * @mapping: the file
 * @size: the new size in bytes, at most the size it was created with
 *
 * truncate_setsize() and truncate_pagecache(): unmap_mapping_range(),
 * truncate_inode_pages(), unmap_mapping_range() again for a racing fault.
 * Context: a task; no lock held.
 * Return: 0, or -EINVAL for a size above the file's original one (the
 * model's i_pages does not grow).
 */
int sim_file_truncate(struct address_space *mapping, uint64_t size)
{
	uint64_t holebegin = (size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

	if (size > (mapping->nr_slots << PAGE_SHIFT))
		return -22;
	sim_cost_cpu_ps(sim_mm->syscall_ps);
	mapping->i_size = size;
	unmap_mapping_range(mapping, holebegin, 0);
	truncate_inode_pages_range(mapping, size, UINT64_MAX);
	unmap_mapping_range(mapping, holebegin, 0);
	return 0;
}
