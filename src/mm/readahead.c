// SPDX-License-Identifier: GPL-2.0-only
/*
 * Readahead (mm/readahead.c) and the read() side of the page cache
 * (filemap_read() in mm/filemap.c), read at torvalds/linux v6.18.
 *
 * Mirrors
 *   page_cache_sync_ra()   a read that misses the cache: at the file's
 *                          start, or where the last window ended, the first
 *                          window, get_init_ra_size(): the request rounded
 *                          up to a power of two, x4 when at most 1/32 of
 *                          the maximum, x2 when at most 1/4, else the
 *                          maximum; its async tail is the window less the
 *                          request; folios of order 0 (ra->order = 0).
 *                          Elsewhere: the request alone, order 0.
 *   page_cache_async_ra()  a read that reaches the folio marked
 *                          PG_readahead: the window moves on past itself
 *                          (get_next_ra_size(): x4 below 1/16 of the
 *                          maximum, x2 up to 1/2, else the maximum), all
 *                          of it async, its folios two orders above the
 *                          last window's (ra->order += 2)
 *   page_cache_ra_order()  the window's folios: the order capped at
 *                          MAX_PAGECACHE_ORDER and at ilog2(window),
 *                          lowered where the index is not aligned to it
 *                          (__ffs()), and lowered further only where a
 *                          folio would pass i_size, so the last folio may
 *                          end past the window, which grows to its end;
 *                          the folio at the mark gets PG_readahead; a
 *                          mapping without large folios, a window under 4
 *                          pages or a failed allocation: order 0 for the
 *                          rest (do_page_cache_ra())
 *   filemap_read()         read(): each folio of the range looked up,
 *                          readahead on a miss or a mark, the bytes copied
 *                          to the user (copy_page_to_iter())
 *
 * The maximum window is the block device's read_ahead_kb (the bdi's
 * ra_pages; mm.read_ahead_kb, which calibrate reads from sysfs).  On this
 * project's guest (read_ahead_kb 8192) a 128 MiB sparse file read with
 * 64 KiB read()s holds 64 folios of order 0, 64 of order 2, 32 of order
 * 4, 17 of order 6, 1 of order 7, 8 of order 8 and 56 of order 9
 * (/proc/kpageflags over its mapping, Linux 6.18.44); the model's ramp
 * gives the same (tests/test_filemap.c).
 *
 * Costs: each lookup and insertion, mm.folio_op_ns (filemap.c); a hole
 * zeroed, a device read waited for (filemap_read_folio(): the model
 * waits for an async window's reads as for the sync part's); the copy to
 * the user at mem.copy_gbps.
 * Left out: the device's io_pages (max_sectors_kb raises the maximum only
 * for a request larger than ra_pages), the history search of a read that
 * is neither sequential nor at the start (page_cache_prev_miss()), the
 * previous read's position (ra->prev_pos: the window's end stands for it), mmap
 * readahead (the model's faults read only their folio, as under
 * VM_RAND_READ), folio_mark_accessed(), one readahead state per file
 * instead of per open file.
 */
#include "mm/mm.h"

/* MAX_PAGECACHE_ORDER on x86-64: the PMD order (below MAX_XAS_ORDER) */
#define MAX_PAGECACHE_ORDER	HPAGE_PMD_ORDER

/* The bdi's ra_pages: mm.read_ahead_kb in pages. */
static uint64_t ra_max_pages(void)
{
	return sim_mm->prof->mm_read_ahead_kb / (PAGE_SIZE / 1024);
}

static uint64_t roundup_pow_of_two(uint64_t n)
{
	return n <= 1 ? 1 : 1ULL << (64 - __builtin_clzll(n - 1));
}

static unsigned int ilog2_u64(uint64_t n)
{
	return 63U - (unsigned int)__builtin_clzll(n | 1);
}

/* get_init_ra_size(): the first window for a read of @size pages. */
static uint64_t get_init_ra_size(uint64_t size, uint64_t max)
{
	uint64_t newsize = roundup_pow_of_two(size);

	if (newsize <= max / 32)
		newsize *= 4;
	else if (newsize <= max / 4)
		newsize *= 2;
	else
		newsize = max;
	return newsize;
}

/* get_next_ra_size(): the window after @ra's. */
static uint64_t get_next_ra_size(const struct file_ra_state *ra, uint64_t max)
{
	if (ra->size < max / 16)
		return 4 * ra->size;
	if (ra->size <= max / 2)
		return 2 * ra->size;
	return max;
}

/*
 * ra_alloc_folio(): a locked folio of @order at @index, in the cache, read
 * (a hole zeroed); PG_readahead where it holds @mark.
 * Return: 0, -17 (-EEXIST) when something is cached there, -12 (-ENOMEM).
 */
static int ra_alloc_folio(struct address_space *mapping, uint64_t index, uint64_t mark,
			  unsigned int order, struct mem_cgroup *memcg)
{
	struct folio *folio = folio_alloc_mpol((int)order, NULL, 0);
	int err;

	if (!folio)
		return -12;
	folio_set(folio, PG_locked);		/* __folio_set_locked() */
	if ((mark & ~((1ULL << order) - 1)) == index)
		folio_set(folio, PG_readahead);
	err = filemap_add_folio(mapping, folio, index, memcg);
	if (err) {
		folio_clear(folio, PG_locked);
		folio_clear(folio, PG_readahead);
		folio_put(folio);
		return err;
	}
	filemap_read_folio(folio);
	folio_unlock(folio);
	folio_put(folio);			/* the cache holds it */
	return 0;
}

/*
 * do_page_cache_ra(): @nr pages from @index at order 0, skipping what is
 * cached; the mark at @index + @nr - @async.
 */
static void do_page_cache_ra(struct address_space *mapping, uint64_t index, uint64_t nr,
			     uint64_t async, struct mem_cgroup *memcg)
{
	uint64_t end = index + nr, mark = end - async, eof = i_size_pages(mapping);

	if (end > eof)
		end = eof;
	for (; index < end; index++) {
		if (filemap_get_entry(mapping, index))
			continue;
		if (ra_alloc_folio(mapping, index, async ? mark : UINT64_MAX, 0, memcg) == -12)
			return;
	}
}

/* page_cache_ra_order(): read @ra's window in folios of up to ra->order. */
static void page_cache_ra_order(struct address_space *mapping, struct file_ra_state *ra,
				struct mem_cgroup *memcg)
{
	uint64_t start = ra->start, index = start, eof = i_size_pages(mapping) - 1;
	uint64_t limit = start + ra->size - 1, mark = start + ra->size - ra->async_size;
	unsigned int new_order = ra->order;
	int err = 0;

	if (start > eof)
		return;
	if (!mapping->large_folios || ra->size < 4) {
		ra->order = 0;
		do_page_cache_ra(mapping, start, ra->size, ra->async_size, memcg);
		return;
	}
	if (limit > eof)
		limit = eof;
	if (new_order > MAX_PAGECACHE_ORDER)
		new_order = MAX_PAGECACHE_ORDER;
	if (new_order > ilog2_u64(ra->size))
		new_order = ilog2_u64(ra->size);
	ra->order = new_order;
	while (index <= limit) {
		unsigned int order = new_order;

		/* align with smaller folios if needed */
		if (index & ((1ULL << order) - 1))
			order = (unsigned int)__builtin_ctzll(index);
		/* no folio past EOF: the window's end may be passed */
		while (order > 0 && index + (1ULL << order) - 1 > eof)
			order--;
		err = ra_alloc_folio(mapping, index, mark, order, memcg);
		if (err)
			break;
		index += 1ULL << order;
	}
	if (index > limit + 1) {
		ra->size += index - limit - 1;
		ra->async_size += index - limit - 1;
	}
	if (err && ra->size > index - start)	/* gaps: order 0 for the rest */
		do_page_cache_ra(mapping, index, ra->size - (index - start), ra->async_size, memcg);
}

/* page_cache_sync_ra(): a read of @req pages at @index missed the cache. */
static void page_cache_sync_ra(struct address_space *mapping, uint64_t index, uint64_t req,
			       struct mem_cgroup *memcg)
{
	struct file_ra_state *ra = &mapping->ra;
	uint64_t max = ra_max_pages();

	if (!max) {			/* no readahead: force_page_cache_ra() of one page */
		do_page_cache_ra(mapping, index, 1, 0, memcg);
		return;
	}
	/* the start of the file, an oversized read, or a sequential miss */
	if (!index || req > max || index == ra->start + ra->size) {
		ra->start = index;
		ra->size = get_init_ra_size(req, max);
		ra->async_size = ra->size > req ? ra->size - req : ra->size >> 1;
		ra->order = 0;
		page_cache_ra_order(mapping, ra, memcg);
		return;
	}
	do_page_cache_ra(mapping, index, req, 0, memcg);
}

/* page_cache_async_ra(): a read of @req pages reached @folio, marked PG_readahead. */
static void page_cache_async_ra(struct address_space *mapping, struct folio *folio, uint64_t req,
				struct mem_cgroup *memcg)
{
	struct file_ra_state *ra = &mapping->ra;
	uint64_t max = ra_max_pages(), index = folio->index, expected;

	folio_clear(folio, PG_readahead);
	if (!max)
		return;
	expected = (ra->start + ra->size - ra->async_size) &
		   ~((uint64_t)folio_nr_pages(folio) - 1);
	if (index == expected) {
		ra->start += ra->size;
		ra->size = get_next_ra_size(ra, max);
		ra->async_size = ra->size;
	} else {
		/* a mark without this state's window: start after what is cached */
		uint64_t start = index + 1;

		while (start < index + max && start < i_size_pages(mapping) &&
		       filemap_get_entry(mapping, start))
			start++;
		ra->start = start;
		ra->size = start - index + req;
		ra->size = get_next_ra_size(ra, max);
		ra->async_size = ra->size;
	}
	ra->order += 2;
	page_cache_ra_order(mapping, ra, memcg);
}

/**
 * filemap_read - read() @count bytes at @pos of a file into a user buffer
 * @mapping: the file
 * @pos: the byte offset
 * @count: bytes
 * @memcg: the reader's memcg, charged for the folios it brings in
 *
 * Context: a task (a device read sleeps); no lock held.
 * Return: the bytes read (short at i_size).
 */
uint64_t filemap_read(struct address_space *mapping, uint64_t pos, uint64_t count,
		      struct mem_cgroup *memcg)
{
	uint64_t index, last, done = 0;

	sim_cost_cpu_ps(sim_mm->syscall_ps);
	if (pos >= mapping->i_size || !count)
		return 0;
	if (count > mapping->i_size - pos)
		count = mapping->i_size - pos;
	index = pos >> PAGE_SHIFT;
	last = (pos + count - 1) >> PAGE_SHIFT;
	while (index <= last) {
		struct folio *folio = filemap_get_entry(mapping, index);
		uint64_t end, from, to;

		if (!folio) {
			page_cache_sync_ra(mapping, index, last - index + 1, memcg);
			folio = filemap_get_entry(mapping, index);
			if (!folio) {		/* no memory: do_page_cache_ra() stopped */
				if (ra_alloc_folio(mapping, index, UINT64_MAX, 0, memcg))
					break;
				folio = filemap_get_entry(mapping, index);
			}
		}
		if (folio_test(folio, PG_readahead))
			page_cache_async_ra(mapping, folio, last - index + 1, memcg);
		end = folio->index + (uint64_t)folio_nr_pages(folio);
		from = pos + done;
		to = end << PAGE_SHIFT;
		if (to > pos + count)
			to = pos + count;
		/* copy_page_to_iter() */
		memsys_copy(sim_mm->memsys, folio->nid, folio->nid, to - from,
			    sim_mm->prof->mem_copy_gbps);
		done += to - from;
		index = end;
	}
	return done;
}
