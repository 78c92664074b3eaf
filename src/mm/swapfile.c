// SPDX-License-Identifier: GPL-2.0-only
/*
 * The swap device, its slots and the swap cache (mm/swapfile.c,
 * mm/swap_state.c, mm/page_io.c; read at torvalds/linux v6.15 with the
 * 2025 swap-table series in mind, where the swap cache lives in the
 * cluster and is protected by the cluster lock).
 *
 * Mirrors: folio_alloc_swap() (a slot from the CPU's current cluster,
 * a new cluster under si->lock when it is full), add_to_swap() (slot,
 * swap cache insert, folio_mark_dirty()), delete_from_swap_cache() and
 * put_swap_folio(), folio_free_swap(), swap_free() (the kernel's
 * swap_free_nr()/swap_put_entries), free_swap_and_cache() (zap of a swap
 * PTE), swap_cache_get_folio(), swap_writepage() and swap_read_folio().
 *
 * The device is a block device (an NVMe-class SSD is assumed): a write is
 * submitted and the reclaimer goes on (its completion is not an event in
 * the model: the folio is written back at once, see swap_writepage()); a
 * read is waited for (the task sleeps), and do_swap_page() takes the
 * SWP_SYNCHRONOUS_IO-style path that skips the swap cache for a folio
 * that is not cached.  Time per request: swap.write_us or swap.read_us of
 * latency plus 4 KiB at swap.bandwidth_mbps, the transfers served in
 * arrival order (one FIFO fluid queue per device).
 *
 * Or the device is zram (drivers/block/zram): a SWP_SYNCHRONOUS_IO device
 * whose "I/O" is the calling CPU compressing the page on write and
 * decompressing it on read, at swap.zram_compress_mbps and
 * swap.zram_decompress_mbps per core, measured at swap.zram_rate_mhz and
 * scaled to clock.mhz.  Nobody sleeps: a CPU that swaps in
 * stays busy, so it is not in lazy TLB mode and still takes shootdowns.
 *
 * Left out: swap counts above 1 (no fork, so a slot has at most one swap
 * PTE), SWAP_HAS_CACHE races of swapcache_prepare(), large folios (order
 * 0 only: a large folio would be split first), the swap slot cache,
 * discard, frontswap/zswap, readahead (swap_ra), cgroup swap accounting.
 *
 * Lock order: PTL -> si->lock -> cluster lock (ci->lock).
 */
#include <string.h>

#include "mm/mm.h"

static inline struct swap_cluster_info *slot_cluster(struct swap_info_struct *si, uint32_t slot)
{
	return &si->cluster_info[slot / SWAPFILE_CLUSTER];
}

/* A single core's rate measured at swap.zram_rate_mhz, at this machine's clock. */
static uint64_t zram_rate_at_clock(uint64_t mbps, const struct sim_profile *p)
{
	uint64_t r = mbps * p->clock_mhz / p->swap_zram_rate_mhz;

	return r ? r : 1;
}

/**
 * swap_device_create - set up the model's one swap device
 * @bytes: its size (SwapTotal)
 *
 * Return: 0, or -1 when out of host memory.
 */
int swap_device_create(uint64_t bytes, bool zram)
{
	const struct sim_profile *p = sim_mm->prof;
	struct swap_info_struct *si = calloc(1, sizeof(*si));
	uint32_t c;
	int cpu;

	if (!si)
		return -1;
	si->nr_clusters = (uint32_t)((bytes >> PAGE_SHIFT) / SWAPFILE_CLUSTER);
	if (!si->nr_clusters)
		si->nr_clusters = 1;
	si->max = si->nr_clusters * SWAPFILE_CLUSTER;
	si->swap_map = calloc(si->max, sizeof(*si->swap_map));
	si->slot_data = calloc(si->max, sizeof(*si->slot_data));
	si->cluster_info = calloc(si->nr_clusters, sizeof(*si->cluster_info));
	si->percpu_cluster = calloc((size_t)sim_mm->nr_cpus, sizeof(*si->percpu_cluster));
	si->percpu_next = calloc((size_t)sim_mm->nr_cpus, sizeof(*si->percpu_next));
	if (!si->swap_map || !si->slot_data || !si->cluster_info || !si->percpu_cluster ||
	    !si->percpu_next) {
		free(si->swap_map);
		free(si->slot_data);
		free(si->cluster_info);
		free(si->percpu_cluster);
		free(si->percpu_next);
		free(si);
		return -1;
	}
	spin_lock_init_named(&si->lock, "swap_info->lock");
	for (c = 0; c < si->nr_clusters; c++)
		spin_lock_init_named(&si->cluster_info[c].lock, "swap_cluster->lock");
	for (cpu = 0; cpu < sim_mm->nr_cpus; cpu++)
		si->percpu_cluster[cpu] = UINT32_MAX;
	si->write_ps = p->swap_write_us * SIM_US;
	si->read_ps = p->swap_read_us * SIM_US;
	si->bytes_per_us = p->swap_bandwidth_mbps;	/* MB/s == bytes/us */
	si->zram = zram;
	/*
	 * The rates are a single core's, measured at swap.zram_rate_mhz;
	 * (de)compression is CPU-bound, so this machine's core runs them at
	 * its own clock: scaled by clock.mhz / zram_rate_mhz (at least 1).
	 */
	si->zram_comp_bpus = zram_rate_at_clock(p->swap_zram_compress_mbps, p);
	si->zram_decomp_bpus = zram_rate_at_clock(p->swap_zram_decompress_mbps, p);
	sim_mm->swap = si;
	return 0;
}

void swap_device_destroy(void)
{
	struct swap_info_struct *si = sim_mm ? sim_mm->swap : NULL;

	if (!si)
		return;
	free(si->swap_map);
	free(si->cluster_info);
	free(si->percpu_cluster);
	free(si->percpu_next);
	free(si->slot_data);
	free(si);
	sim_mm->swap = NULL;
}

/* A cluster with a free slot, searched round-robin under si->lock. */
static uint32_t swap_new_cluster(struct swap_info_struct *si)
{
	uint32_t i, c = UINT32_MAX;

	spin_lock(&si->lock);
	for (i = 0; i < si->nr_clusters; i++) {
		uint32_t n = (si->next_cluster + i) % si->nr_clusters;

		if (si->cluster_info[n].count < SWAPFILE_CLUSTER) {
			c = n;
			si->next_cluster = (n + 1) % si->nr_clusters;
			break;
		}
	}
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	spin_unlock(&si->lock);
	return c;
}

/*
 * folio_alloc_swap(): a slot for @folio; the swap cache entry is set by
 * the caller under the same cluster lock (here: at once).
 */
bool folio_alloc_swap(struct folio *folio)
{
	struct swap_info_struct *si = sim_mm->swap;
	int cpu = smp_processor_id();
	int tries;

	if (!si)
		return false;
	for (tries = 0; tries < 2; tries++) {
		uint32_t c = si->percpu_cluster[cpu];
		struct swap_cluster_info *ci;
		uint32_t s, i;

		if (c == UINT32_MAX || si->cluster_info[c].count >= SWAPFILE_CLUSTER) {
			c = swap_new_cluster(si);
			if (c == UINT32_MAX)
				return false;
			si->percpu_cluster[cpu] = c;
			si->percpu_next[cpu] = 0;
		}
		ci = &si->cluster_info[c];
		spin_lock(&ci->lock);
		/* Scan the cluster from where this CPU left off, wrapping once. */
		for (i = 0; i < SWAPFILE_CLUSTER; i++) {
			s = c * SWAPFILE_CLUSTER + (si->percpu_next[cpu] + i) % SWAPFILE_CLUSTER;
			if (si->swap_map[s])
				continue;
			si->percpu_next[cpu] = (s + 1) % SWAPFILE_CLUSTER;
			/* the swap table entry: this folio is the slot's cache */
			si->swap_map[s] = folio->id + 1;
			ci->count++;
			si->inuse_pages++;
			folio->swap = s + 1;
			folio_set(folio, PG_swapcache);
			sim_cost_cpu_ps(sim_mm->folio_op_ps);
			spin_unlock(&ci->lock);
			return true;
		}
		spin_unlock(&ci->lock);
		si->percpu_cluster[cpu] = UINT32_MAX;	/* raced full: try another */
	}
	return false;
}

/* Slot @s lost its last user; ci->lock held. */
static void swap_slot_release_locked(struct swap_info_struct *si, uint32_t s)
{
	struct swap_cluster_info *ci = slot_cluster(si, s);

	SIM_BUG_ON(ci->count == 0);
	ci->count--;
	si->inuse_pages--;
}

/**
 * add_to_swap - give an anon folio a swap slot and put it in the swap cache
 * @folio: a locked, isolated anon folio not in the swap cache
 *
 * The swap cache holds one reference per page; the folio is marked dirty
 * so that it is written out (mm/swap_state.c).
 * Return: false when the device is full.
 */
bool add_to_swap(struct folio *folio)
{
	SIM_BUG_ON_FOLIO(!folio_test(folio, PG_locked), folio);
	SIM_BUG_ON_FOLIO(folio_test(folio, PG_swapcache), folio);
	if (!folio_alloc_swap(folio))
		return false;
	folio->_refcount += (int32_t)folio_nr_pages(folio);	/* the swap cache's refs */
	sim_line_rmw(&folio->line);
	folio_set(folio, PG_dirty);	/* folio_mark_dirty() */
	return true;
}

/* lock_cluster(): the cluster lock of @slot, which also guards its swap table. */
struct swap_cluster_info *swap_cluster_lock(uint32_t slot)
{
	struct swap_cluster_info *ci = slot_cluster(sim_mm->swap, slot);

	spin_lock(&ci->lock);
	return ci;
}

void swap_cluster_unlock(struct swap_cluster_info *ci)
{
	spin_unlock(&ci->lock);
}

/**
 * delete_from_swap_cache_locked - take @folio out of the swap cache
 * @folio: a locked folio in the swap cache whose references the caller owns
 *
 * The swap cache's references are not dropped here (the caller froze or
 * drops them); put_swap_folio() frees the slot if no swap PTE holds it.
 * Context: the slot's cluster lock held.
 */
void delete_from_swap_cache_locked(struct folio *folio)
{
	struct swap_info_struct *si = sim_mm->swap;
	uint32_t s = folio->swap - 1;

	SIM_BUG_ON_FOLIO(!folio_test(folio, PG_swapcache), folio);
	SIM_BUG_ON_FOLIO((si->swap_map[s] & SWAP_MAP_CACHE_MASK) != folio->id + 1, folio);
	si->swap_map[s] &= SWAP_MAP_COUNT;
	if (!si->swap_map[s])
		swap_slot_release_locked(si, s);	/* put_swap_folio() */
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	folio->swap = 0;
	folio_clear(folio, PG_swapcache);
}

void delete_from_swap_cache(struct folio *folio)
{
	struct swap_cluster_info *ci = swap_cluster_lock(folio->swap - 1);

	delete_from_swap_cache_locked(folio);
	swap_cluster_unlock(ci);
}

/**
 * folio_free_swap - free the swap space of a folio that no swap PTE needs
 * @folio: a locked folio
 *
 * Return: true if the folio left the swap cache (its refs are dropped).
 */
bool folio_free_swap(struct folio *folio)
{
	struct swap_info_struct *si = sim_mm->swap;

	if (!folio_test(folio, PG_swapcache) || folio_test(folio, PG_writeback))
		return false;
	if (si->swap_map[folio->swap - 1] & SWAP_MAP_COUNT)
		return false;		/* folio_swapped(): a swap PTE still needs it */
	delete_from_swap_cache(folio);
	folio->_refcount -= (int32_t)folio_nr_pages(folio);
	SIM_BUG_ON_FOLIO(folio->_refcount <= 0, folio);
	folio_set(folio, PG_dirty);	/* folio_mark_dirty(): its copy is gone */
	sim_line_rmw(&folio->line);
	return true;
}

/* try_to_unmap_one(): the swap PTE now holds the slot (swap_duplicate()). */
void swap_dup_to_pte(uint32_t slot)
{
	struct swap_info_struct *si = sim_mm->swap;
	struct swap_cluster_info *ci = slot_cluster(si, slot);

	spin_lock(&ci->lock);
	SIM_BUG_ON(si->swap_map[slot] & SWAP_MAP_COUNT);
	SIM_BUG_ON(!si->swap_map[slot]);
	si->swap_map[slot] |= SWAP_MAP_COUNT;
	spin_unlock(&ci->lock);
}

/**
 * swap_free - a swap PTE that held @slot went away (it was mapped again)
 * @slot: the slot
 *
 * Context: PTL held.
 */
void swap_free(uint32_t slot)
{
	struct swap_info_struct *si = sim_mm->swap;
	struct swap_cluster_info *ci = slot_cluster(si, slot);

	spin_lock(&ci->lock);
	SIM_BUG_ON(!(si->swap_map[slot] & SWAP_MAP_COUNT));
	si->swap_map[slot] &= ~SWAP_MAP_COUNT;
	if (!si->swap_map[slot])
		swap_slot_release_locked(si, slot);
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	spin_unlock(&ci->lock);
}

/**
 * swap_cache_get_folio - the folio caching @slot, with a reference, or NULL
 * @slot: the slot
 *
 * An RCU lookup and folio_try_get(): a folio frozen by reclaim is not found.
 */
struct folio *swap_cache_get_folio(uint32_t slot)
{
	struct swap_info_struct *si = sim_mm->swap;
	uint32_t v = si->swap_map[slot] & SWAP_MAP_CACHE_MASK;
	struct folio *folio;

	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	if (!v)
		return NULL;
	folio = folio_by_id(v - 1);
	if (folio->_refcount == 0)
		return NULL;
	folio_get(folio);
	return folio;
}

/**
 * free_swap_and_cache - a swap PTE is zapped: drop its hold on @slot
 * @slot: the slot
 *
 * If only the swap cache is left and its folio is unmapped and unlocked,
 * the folio leaves the swap cache (__try_to_reclaim_swap()).
 * Context: PTL held.
 * Return: 1.
 */
int free_swap_and_cache(uint32_t slot)
{
	struct folio *folio;

	swap_free(slot);
	folio = swap_cache_get_folio(slot);
	if (!folio)
		return 1;
	if (!folio_mapped(folio) && folio_trylock(folio)) {
		folio_free_swap(folio);
		folio_unlock(folio);
	}
	folio_put(folio);
	return 1;
}

/* The device serves transfers in order; the request's latency overlaps. */
static sim_time_t swap_device_io(struct swap_info_struct *si, uint64_t bytes, sim_time_t latency)
{
	sim_time_t now = sim_now();
	sim_time_t xfer = bytes * SIM_US / si->bytes_per_us;
	sim_time_t start = si->busy_until > now ? si->busy_until : now;

	si->busy_until = start + xfer;
	if (si->busy_until > now + latency)
		return si->busy_until - now;
	return latency;
}

/*
 * zram's pass over a folio's memory: compression reads the page (and
 * stores at most as much again: zsmalloc keeps an incompressible page
 * whole, so the copy is the upper bound), decompression writes it.  The
 * traffic goes through the memory system (memsys_copy(), memsys_write());
 * the CPU streams the page while it (de)compresses, so the pass takes the
 * longer of the two: the memory's time, or @compute_ps of the CPU.
 */
static void zram_memory_pass(struct folio *folio, bool compress, sim_time_t compute_ps)
{
	uint64_t bytes = (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT;
	sim_time_t t0 = sim_now(), mem;

	if (compress)
		memsys_copy(sim_mm->memsys, folio->nid, folio->nid, bytes,
			    sim_mm->prof->mem_copy_gbps);
	else
		memsys_write(sim_mm->memsys, folio->nid, bytes, sim_mm->prof->mem_copy_gbps);
	mem = sim_now() - t0;
	if (compute_ps > mem)
		sim_cost_cpu_ps(compute_ps - mem);
}

/*
 * A check that reads the whole page, word by word, when the page passes
 * it: is_folio_zero_filled() (mm/page_io.c) on an all-zero page, zram's
 * page_same_filled() on a page of one other word.  A page that fails
 * fails at its first or last word: is_folio_zero_filled() looks at the
 * last word first, page_same_filled() compares the first with the last
 * (the model charges nothing for those two loads; a mostly-zero page
 * whose non-zero byte lies mid-page would read up to it, left out).  The
 * whole-page read is a pass that streams the page from memory, 512
 * loads.
 */
static void page_scan_whole(struct folio *folio)
{
	const struct sim_profile *p = sim_mm->prof;
	uint64_t bytes = (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT;

	memsys_stream(sim_mm->memsys, folio->nid, bytes, 0, p->mem_stream_gbps,
		      sim_cycles_to_ps(bytes / sizeof(uint64_t)) / p->mem_loads_per_cycle);
}

/* Fill the folio with one word: zram_fill_page() (memset_l, rep stosq), folio_zero_range(). */
static void page_fill(struct folio *folio)
{
	mem_zero_pages(folio->nid, (uint64_t)folio_nr_pages(folio) << PAGE_SHIFT);
}

/**
 * swap_writepage - write a locked swap-cache folio out
 * @folio: locked, in the swap cache, dirty bit already cleared for I/O
 *
 * As swap_writeout() (v6.12 and later): an all-zero folio is not written
 * anywhere; is_folio_zero_filled() found it so and swap_zeromap_folio_set()
 * marks its slot (SWPOUT_ZERO, not PSWPOUT).  Otherwise, as
 * __swap_writepage(): writeback set, the bio submitted, the folio
 * unlocked; the reclaimer does not wait.  On zram the bio is
 * zram_write_page() on this CPU: a page of one repeated word is kept as
 * that word (page_same_filled(), the slot's ZRAM_SAME flag, no
 * compression), any other is compressed.  The model completes the
 * writeback at once (no completion event and no
 * folio_rotate_reclaimable() pass): a block device's time is accounted
 * in its transfer queue, so later reads wait behind the writes.
 */
void swap_writepage(struct folio *folio)
{
	SIM_TRACE_SCOPE("swap", "swap_writepage");
	struct swap_info_struct *si = sim_mm->swap;
	uint32_t slot = folio->swap - 1;
	long nr = folio_nr_pages(folio);

	sim_sync();
	if (folio->data == FOLIO_DATA_ZERO) {
		page_scan_whole(folio);		/* is_folio_zero_filled() */
		si->slot_data[slot] = FOLIO_DATA_ZERO;
		count_events(SIM_SWPOUT_ZERO, (uint64_t)nr);
		folio_unlock(folio);
		return;
	}
	folio_set(folio, PG_writeback);		/* folio_start_writeback() */
	folio_unlock(folio);
	count_events(SIM_PSWPOUT, (uint64_t)nr);
	count_events(SIM_PGPGOUT, (uint64_t)nr * (PAGE_SIZE / 1024));
	/* only zram keeps a page of one word as that word (ZRAM_SAME) */
	si->slot_data[slot] = si->zram ? folio->data : FOLIO_DATA_MIXED;
	if (si->slot_data[slot] == FOLIO_DATA_SAME) {
		page_scan_whole(folio);		/* page_same_filled() */
		count_events(SIM_ZRAM_SAME_WRITES, (uint64_t)nr);
	} else if (si->zram) {	/* zram_write_page(): compress on this CPU */
		zram_memory_pass(folio, true, ((uint64_t)nr << PAGE_SHIFT) * SIM_US / si->zram_comp_bpus);
	} else {
		swap_device_io(si, (uint64_t)nr << PAGE_SHIFT, si->write_ps);	/* submit_bio() */
	}
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	folio_clear(folio, PG_writeback);	/* folio_end_writeback() */
}

/**
 * swap_read_folio - read a folio's contents from its slot and wait
 * @folio: locked, new, not yet mapped
 * @slot: the swap slot it is read from
 *
 * A zero-map slot is filled with zeros (swap_read_folio_zeromap():
 * SWPIN_ZERO, not PSWPIN); on zram a ZRAM_SAME slot is filled with its
 * word, any other decompressed on this CPU; a block device is read and
 * waited for.
 */
void swap_read_folio(struct folio *folio, uint32_t slot)
{
	SIM_TRACE_SCOPE("swap", "swap_read_folio");
	struct swap_info_struct *si = sim_mm->swap;
	long nr = folio_nr_pages(folio);
	sim_time_t t;

	sim_sync();
	folio->data = si->slot_data[slot];	/* what was written */
	if (folio->data == FOLIO_DATA_ZERO) {
		count_events(SIM_SWPIN_ZERO, (uint64_t)nr);
		page_fill(folio);
		folio_set(folio, PG_uptodate);
		return;
	}
	count_events(SIM_PSWPIN, (uint64_t)nr);
	count_events(SIM_PGPGIN, (uint64_t)nr * (PAGE_SIZE / 1024));
	if (folio->data == FOLIO_DATA_SAME) {
		page_fill(folio);	/* zram_read_from_zspool(): ZRAM_SAME */
	} else if (si->zram) {	/* zram_read_page(): decompress on this CPU */
		zram_memory_pass(folio, false,
				 ((uint64_t)nr << PAGE_SHIFT) * SIM_US / si->zram_decomp_bpus);
	} else {
		t = swap_device_io(si, (uint64_t)nr << PAGE_SHIFT, si->read_ps);
		sim_sleep_ps(t);
	}
	folio_set(folio, PG_uptodate);
}
