// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page allocator (mm/page_alloc.c): one ZONE_NORMAL per node with its
 * zone->lock, and per-CPU page lists (struct per_cpu_pages) for the orders
 * that pcp_allowed_order() admits.  Mirrors rmqueue_pcplist() and
 * rmqueue_bulk() on allocation, free_unref_folios(), free_frozen_page_commit()
 * and free_pcppages_bulk() on free.
 *
 * The buddy allocator works on page frame numbers: free_area[order] lists
 * of free blocks, __rmqueue_smallest() and expand() split a larger block
 * on allocation, __free_one_page() merges a freed block with its free
 * buddies, order by order.  Each step costs what it costs the kernel under
 * zone->lock: one list operation (mm.list_op_ns) and the struct page lines
 * it reads and writes (the block's, its list neighbours', the free_area
 * head's), which move between CPUs like any line ("the most time consuming
 * part of operations under zone->lock is cache misses on struct page",
 * Aaron Lu, lkml 2018-02-05).  Pfns are materialised lazily, a
 * MAX_PAGE_ORDER block at a time, so memory grows with what the run
 * touches, not with the node.
 *
 * Folio structs are recycled apart from the pfns: the zone's free_list[]
 * holds spare structs by order, so that a folio's identity survives for
 * the checks; an allocated folio carries its pfn.
 *
 * pcp->high auto-tuning (v6.7+; free_high's threshold as in v6.16+): high moves between
 * high_min (the low watermark split over the node's CPUs) and high_max (an
 * eighth of the zone split likewise); nr_pcp_alloc() grows it on refills
 * and scales order-0 batches by alloc_factor; nr_pcp_high() and
 * nr_pcp_free() grow the drain batch with free_count and drain at once
 * when a CPU frees high-order pages without allocating (free_high), which
 * PCPF_FREE_HIGH_BATCH softens when the CPU's share of the LLC exceeds
 * three batches; decay_pcp_high() lowers high by an eighth a second.
 * Left out: compaction, migratetypes and pageblocks (one free list per
 * order), ZONE_RECLAIM_ACTIVE (no kswapd), the zone's vmstat counters.
 *
 * Memory bandwidth: zeroing and copying go through mem_write_bandwidth(),
 * which charges the memory system (src/hw/memsys.c): the core's lines in
 * flight, the inter-socket link and the node's DRAM, as fluid queues.
 *
 * pcp->lock is only ever taken by its own CPU in these scenarios (no
 * drain_all_pages()), so it is modelled as its atomic on a local line, not
 * as a queued spinlock: it can never be contended and needs no sync point.
 *
 * Lock order: pcp->lock (per CPU) -> zone->lock.
 */
#include <string.h>

#include "mm/mm.h"

#define FOLIO_CHUNK_SHIFT	12
#define FOLIO_CHUNK		(1U << FOLIO_CHUNK_SHIFT)

struct folio *folio_by_id(uint32_t id)
{
	return &sim_mm->folio_chunks[id >> FOLIO_CHUNK_SHIFT][id & (FOLIO_CHUNK - 1)];
}

static struct folio *folio_struct_new(int order, int nid)
{
	uint32_t id = sim_mm->nr_folios_alloc;
	struct folio *f;

	if ((id >> FOLIO_CHUNK_SHIFT) >= sim_mm->nr_chunks) {
		uint32_t n = sim_mm->nr_chunks ? sim_mm->nr_chunks * 2 : 16;
		struct folio **c = realloc(sim_mm->folio_chunks, n * sizeof(*c));

		if (!c)
			abort();
		memset(c + sim_mm->nr_chunks, 0, (n - sim_mm->nr_chunks) * sizeof(*c));
		sim_mm->folio_chunks = c;
		sim_mm->nr_chunks = n;
	}
	if (!sim_mm->folio_chunks[id >> FOLIO_CHUNK_SHIFT]) {
		sim_mm->folio_chunks[id >> FOLIO_CHUNK_SHIFT] = calloc(FOLIO_CHUNK, sizeof(struct folio));
		if (!sim_mm->folio_chunks[id >> FOLIO_CHUNK_SHIFT])
			abort();
	}
	sim_mm->nr_folios_alloc++;
	f = folio_by_id(id);
	f->id = id;
	f->order = (uint8_t)order;
	f->nid = (uint8_t)nid;
	f->place = FOLIO_FREE;
	f->line.last_writer = -1;
	f->tail_line.last_writer = -1;
	INIT_LIST_HEAD(&f->lru_node);
	INIT_LIST_HEAD(&f->_deferred_list);
	return f;
}

void zone_init(struct zone *zone, int nid, long pages, int nr_cpus, int pcp_batch)
{
	int cpu, o;
	char name[32];

	memset(zone, 0, sizeof(*zone));
	snprintf(name, sizeof(name), "zone->lock");
	spin_lock_init_named(&zone->lock, name);
	zone->nid = nid;
	if (pages > (long)BUDDY_NIL - 1)
		pages = (long)BUDDY_NIL - 1;
	zone->free_pages = pages;
	zone->managed_pages = pages;
	zone->line.last_writer = -1;
	for (o = 0; o < MAX_NR_ORDERS; o++)
		INIT_LIST_HEAD(&zone->free_list[o]);
	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		zone->free_area[o].head = zone->free_area[o].tail = BUDDY_NIL;
		zone->free_area[o].line.last_writer = -1;
	}
	zone->pcp = calloc((size_t)nr_cpus, sizeof(*zone->pcp));
	if (!zone->pcp)
		abort();
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = &zone->pcp[cpu];

		pcp->lock.last_writer = (int16_t)cpu;
		pcp->batch = pcp_batch;
		for (o = 0; o < MAX_NR_ORDERS; o++)
			INIT_LIST_HEAD(&pcp->lists[o]);
	}
}

static long int_sqrt_l(long x)
{
	long r = 0, b = 1L << 30;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

/**
 * zone_set_wmarks_and_high - the watermarks and pcp->high bounds the kernel derives
 * @zone: the zone, after zone_init()
 * @lowmem_pages: the managed pages of every zone (nr_free_buffer_pages())
 * @cpus_of_node: the CPUs of the zone's node
 * @data_slice_bytes: a CPU's share of its LLC (per_cpu_data_slice_size)
 *
 * calculate_min_free_kbytes(): sqrt(lowmem KiB x 16), 128 KiB..256 MiB;
 * __setup_per_zone_wmarks(): min is the zone's share of it, low and high
 * add max(min / 4, managed x 10 / 10000) each (watermark_scale_factor 10);
 * zone_highsize(): high_min = low / the node's CPUs, high_max = managed / 8
 * / the node's CPUs (percpu_pagelist_high_fraction's minimum), both at
 * least four batches; setup_pcp_cacheinfo(): PCPF_FREE_HIGH_BATCH when
 * the slice holds more than three batches.  Derived kernel values, not
 * costs.
 */
void zone_set_wmarks_and_high(struct zone *zone, long lowmem_pages, int cpus_of_node,
			      uint64_t data_slice_bytes)
{
	long min_kbytes = int_sqrt_l(lowmem_pages * (long)(PAGE_SIZE >> 10) * 16);
	long tmp, high_min, high_max;
	int cpu;

	if (min_kbytes < 128)
		min_kbytes = 128;
	if (min_kbytes > 262144)
		min_kbytes = 262144;
	zone->wmark_min = (long)((min_kbytes >> (PAGE_SHIFT - 10)) * (double)zone->managed_pages /
				 (double)(lowmem_pages ? lowmem_pages : 1));
	tmp = zone->managed_pages * 10 / 10000;
	if (tmp < zone->wmark_min / 4)
		tmp = zone->wmark_min / 4;
	zone->wmark_low = zone->wmark_min + tmp;
	zone->wmark_high = zone->wmark_low + tmp;
	if (cpus_of_node < 1)
		cpus_of_node = 1;
	for (cpu = 0; cpu < sim_mm->nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = &zone->pcp[cpu];

		high_min = zone->wmark_low / cpus_of_node;
		high_max = zone->managed_pages / 8 / cpus_of_node;
		if (high_min < pcp->batch << 2)
			high_min = pcp->batch << 2;
		if (high_max < pcp->batch << 2)
			high_max = pcp->batch << 2;
		pcp->high_min = (int)high_min;
		pcp->high_max = (int)high_max;
		pcp->high = (int)high_min;
		if ((long)(data_slice_bytes >> PAGE_SHIFT) > 3L * pcp->batch)
			pcp->flags |= PCPF_FREE_HIGH_BATCH;
		else
			pcp->flags &= (uint8_t)~PCPF_FREE_HIGH_BATCH;
	}
}

void zone_destroy(struct zone *zone)
{
	uint32_t i;

	free(zone->pcp);
	for (i = 0; i < zone->nr_page_chunks; i++)
		free(zone->page_chunks[i]);
	free(zone->page_chunks);
	zone->pcp = NULL;
	zone->page_chunks = NULL;
}

/* pcp_spin_lock(): IRQs off and one locked RMW on a line this CPU owns. */
static void pcp_spin_lock(struct per_cpu_pages *pcp, unsigned long *flags)
{
	local_irq_save(*flags);
	sim_line_rmw(&pcp->lock);
}

static void pcp_spin_unlock(struct per_cpu_pages *pcp, unsigned long flags)
{
	sim_store_drain();
	local_irq_restore(flags);
}

static bool pcp_allowed_order(int order)
{
	return order <= 3 || order == HPAGE_PMD_ORDER;	/* PAGE_ALLOC_COSTLY_ORDER */
}

/* ---- the buddy allocator, by pfn; zone->lock held ------------------------ */

/*
 * Materialise the next untouched block of the zone: free since boot, the
 * largest naturally aligned block that fits (MAX_PAGE_ORDER but at the
 * zone's end).  It goes on its free list with no cost (boot-time state).
 */
static bool zone_grow_locked(struct zone *zone)
{
	uint32_t pfn = zone->nr_init, i;
	int order = MAX_PAGE_ORDER;

	if ((long)pfn >= zone->managed_pages)
		return false;
	while (order > 0 && (((pfn & ((1U << order) - 1)) != 0) ||
			     (long)pfn + (1L << order) > zone->managed_pages))
		order--;
	/* chunks, not one array: no copy and no slack beyond a chunk */
	for (i = pfn >> BUDDY_CHUNK_SHIFT; i <= (pfn + (1U << order) - 1) >> BUDDY_CHUNK_SHIFT; i++) {
		if (i >= zone->nr_page_chunks) {
			uint32_t n = zone->nr_page_chunks ? zone->nr_page_chunks * 2 : 16;
			struct buddy_page **c;

			while (n <= i)
				n *= 2;
			c = realloc(zone->page_chunks, n * sizeof(*c));
			if (!c)
				abort();
			memset(c + zone->nr_page_chunks, 0, (n - zone->nr_page_chunks) * sizeof(*c));
			zone->page_chunks = c;
			zone->nr_page_chunks = n;
		}
		if (!zone->page_chunks[i]) {
			zone->page_chunks[i] = malloc(BUDDY_CHUNK * sizeof(struct buddy_page));
			if (!zone->page_chunks[i])
				abort();
		}
	}
	for (i = pfn; i < pfn + (1U << order); i++) {
		buddy_pg(zone, i)->next = buddy_pg(zone, i)->prev = BUDDY_NIL;
		buddy_pg(zone, i)->order = -1;
		buddy_pg(zone, i)->line.last_writer = -1;
	}
	zone->nr_init = pfn + (1U << order);
	/* like __add_to_free_list(), without a cost */
	buddy_pg(zone, pfn)->order = (int8_t)order;
	buddy_pg(zone, pfn)->next = zone->free_area[order].head;
	if (zone->free_area[order].head != BUDDY_NIL)
		buddy_pg(zone, zone->free_area[order].head)->prev = pfn;
	else
		zone->free_area[order].tail = pfn;
	zone->free_area[order].head = pfn;
	zone->free_area[order].nr_free++;
	return true;
}

/* __add_to_free_list(): set_buddy_order() and link at the head or the tail. */
static void add_to_free_list(struct zone *zone, uint32_t pfn, int order, bool tail)
{
	struct free_area *area = &zone->free_area[order];
	struct buddy_page *pg = buddy_pg(zone, pfn);

	pg->order = (int8_t)order;
	sim_line_write(&pg->line);
	if (area->head == BUDDY_NIL) {
		pg->next = pg->prev = BUDDY_NIL;
		area->head = area->tail = pfn;
		sim_line_write(&area->line);
	} else if (tail) {
		pg->next = BUDDY_NIL;
		pg->prev = area->tail;
		buddy_pg(zone, area->tail)->next = pfn;
		sim_line_write(&buddy_pg(zone, area->tail)->line);
		area->tail = pfn;
		sim_line_write(&area->line);
	} else {
		pg->prev = BUDDY_NIL;
		pg->next = area->head;
		buddy_pg(zone, area->head)->prev = pfn;
		sim_line_write(&buddy_pg(zone, area->head)->line);
		area->head = pfn;
		sim_line_write(&area->line);
	}
	area->nr_free++;
	sim_cost_cpu_ps(sim_mm->list_op_ps);
}

/* del_page_from_free_list(): unlink, __ClearPageBuddy(). */
static void del_page_from_free_list(struct zone *zone, uint32_t pfn, int order)
{
	struct free_area *area = &zone->free_area[order];
	struct buddy_page *pg = buddy_pg(zone, pfn);

	if (pg->prev != BUDDY_NIL) {
		buddy_pg(zone, pg->prev)->next = pg->next;
		sim_line_write(&buddy_pg(zone, pg->prev)->line);
	} else {
		area->head = pg->next;
		sim_line_write(&area->line);
	}
	if (pg->next != BUDDY_NIL) {
		buddy_pg(zone, pg->next)->prev = pg->prev;
		sim_line_write(&buddy_pg(zone, pg->next)->line);
	} else {
		area->tail = pg->prev;
		sim_line_write(&area->line);
	}
	pg->next = pg->prev = BUDDY_NIL;
	pg->order = -1;
	sim_line_write(&pg->line);
	area->nr_free--;
	sim_cost_cpu_ps(sim_mm->list_op_ps);
}

/*
 * __rmqueue_smallest(): the first block of the smallest order >= @order
 * that has one, then expand(): halve it down to @order, each upper half
 * onto the free list of its order.  Return: the pfn, or BUDDY_NIL.
 */
static uint32_t rmqueue_smallest(struct zone *zone, int order)
{
	int o, high;
	uint32_t pfn;

	for (;;) {
		for (o = order; o < NR_PAGE_ORDERS; o++)
			if (zone->free_area[o].head != BUDDY_NIL)
				break;
		if (o < NR_PAGE_ORDERS)
			break;
		if (!zone_grow_locked(zone))
			return BUDDY_NIL;
	}
	/* get_page_from_free_area(): the list heads looked at */
	for (high = order; high <= o; high++)
		sim_line_read(&zone->free_area[high].line);
	pfn = zone->free_area[o].head;
	del_page_from_free_list(zone, pfn, o);
	for (high = o; high > order; high--)
		add_to_free_list(zone, pfn + (1U << (high - 1)), high - 1, false);
	return pfn;
}

/* page_is_buddy(): read the buddy's struct page; free at exactly @order? */
static bool page_is_buddy(struct zone *zone, uint32_t buddy, int order)
{
	if (buddy >= zone->nr_init)
		return false;
	sim_line_read(&buddy_pg(zone, buddy)->line);
	return buddy_pg(zone, buddy)->order == order;
}

/*
 * __free_one_page(): merge with the free buddy while there is one, then
 * onto the free list of the merged order; at its tail when the next
 * larger buddy is free too (buddy_merge_likely()).
 */
static void free_one_page_pfn(struct zone *zone, uint32_t pfn, int order)
{
	uint32_t buddy = BUDDY_NIL;
	bool tail = false;

	while (order < MAX_PAGE_ORDER) {
		buddy = pfn ^ (1U << order);
		if (!page_is_buddy(zone, buddy, order))
			break;
		del_page_from_free_list(zone, buddy, order);
		pfn &= buddy;
		order++;
	}
	if (order < MAX_PAGE_ORDER - 1) {
		/* buddy_merge_likely(): is the buddy of the combined block free? */
		uint32_t higher = buddy & pfn;

		tail = page_is_buddy(zone, higher ^ (1U << (order + 1)), order + 1);
	}
	add_to_free_list(zone, pfn, order, tail);
}

/* Take one free block of @order from the zone; zone->lock held. */
static struct folio *zone_take_locked(struct zone *zone, int order)
{
	struct folio *f;
	uint32_t pfn;

	if (zone->free_pages < (1L << order))
		return NULL;
	pfn = rmqueue_smallest(zone, order);
	if (pfn == BUDDY_NIL)
		return NULL;
	if (!list_empty(&zone->free_list[order])) {
		f = list_first_entry(&zone->free_list[order], struct folio, lru_node);
		list_del_init(&f->lru_node);
		zone->nr_free[order]--;
	} else {
		f = folio_struct_new(order, zone->nid);
	}
	f->pfn = pfn;
	f->line.last_writer = buddy_pg(zone, pfn)->line.last_writer;
	zone->free_pages -= 1L << order;
	return f;
}

/* Give @f's block back to the buddy (merging) and keep its struct; zone->lock held. */
static void zone_give_locked(struct zone *zone, struct folio *f)
{
	/* the head page's line as the folio left it */
	buddy_pg(zone, f->pfn)->line.last_writer = f->line.last_writer;
	free_one_page_pfn(zone, f->pfn, f->order);
	list_add(&f->lru_node, &zone->free_list[f->order]);
	f->place = FOLIO_FREE;
	zone->nr_free[f->order]++;
	zone->free_pages += folio_nr_pages(f);
}

/* ---- per-CPU lists --------------------------------------------------------- */

static int clamp_int(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * nr_pcp_alloc(): how many blocks a refill takes.  Grows pcp->high by a
 * batch while the zone is above its high watermark; order 0 doubles its
 * batch with each refill that no free came between (alloc_factor).
 */
static int nr_pcp_alloc(struct per_cpu_pages *pcp, struct zone *zone, int order)
{
	int high, base_batch = pcp->batch, batch, max_nr_alloc;

	high = pcp->high = clamp_int(pcp->high, pcp->high_min, pcp->high_max);
	if (high < base_batch)
		return 1;
	batch = order ? base_batch : base_batch << pcp->alloc_factor;
	if (pcp->high_min != pcp->high_max && !(zone->flags & (1UL << ZONE_BELOW_HIGH)))
		high = pcp->high = high + batch < pcp->high_max ? high + batch : pcp->high_max;
	if (!order) {
		max_nr_alloc = high - pcp->count - base_batch;
		if (max_nr_alloc < base_batch)
			max_nr_alloc = base_batch;
		if (batch <= max_nr_alloc && pcp->alloc_factor < CONFIG_PCP_BATCH_SCALE_MAX)
			pcp->alloc_factor++;
		if (batch > max_nr_alloc)
			batch = max_nr_alloc;
	}
	if (batch > 1) {
		batch >>= order;
		if (batch < 2)
			batch = 2;
	}
	return batch;
}

/*
 * nr_pcp_high(): the count at which a free drains.  free_high: at once
 * (and high falls by the largest batch); below the high watermark: high
 * shrinks by what was freed; otherwise high grows to hold a freed batch.
 */
static int nr_pcp_high(struct per_cpu_pages *pcp, struct zone *zone, int batch, bool free_high)
{
	int high = pcp->high = clamp_int(pcp->high, pcp->high_min, pcp->high_max);

	if (!high)
		return 0;
	if (free_high) {
		int h = high - (batch << CONFIG_PCP_BATCH_SCALE_MAX);

		pcp->high = h > pcp->high_min ? h : pcp->high_min;
		return 0;
	}
	if (pcp->high_min == pcp->high_max)
		return high;
	if (zone->flags & (1UL << ZONE_BELOW_HIGH)) {
		int free_count = pcp->free_count > batch ? pcp->free_count : batch;
		int h = high - free_count;

		pcp->high = h > pcp->high_min ? h : pcp->high_min;
		high = pcp->count > pcp->high_min ? pcp->count : pcp->high_min;
	} else if (pcp->count >= high) {
		int need_high = pcp->free_count + batch;

		if (pcp->high < need_high)
			pcp->high = clamp_int(need_high, pcp->high_min, pcp->high_max);
	}
	return high;
}

/* nr_pcp_free(): how many pages a drain frees; grows with free_count. */
static int nr_pcp_free(struct per_cpu_pages *pcp, int batch, int high, bool free_high)
{
	if (free_high) {
		int max = batch << CONFIG_PCP_BATCH_SCALE_MAX;

		return pcp->count < max ? pcp->count : max;
	}
	if (high < batch)
		return 1;
	return clamp_int(pcp->free_count, batch, high - batch);
}

/* rmqueue_bulk(): refill a pcp list with @count blocks under zone->lock. */
static int rmqueue_bulk(struct zone *zone, struct per_cpu_pages *pcp, int order, int count)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&zone->lock, flags);
	sim_line_write(&zone->line);
	for (i = 0; i < count; i++) {
		struct folio *f = zone_take_locked(zone, order);

		if (!f)
			break;
		list_add_tail(&f->lru_node, &pcp->lists[order]);
		pcp->count += 1 << order;
	}
	spin_unlock_irqrestore(&zone->lock, flags);
	return i;
}

/*
 * free_pcppages_bulk(): return @count pages to the buddy, round robin over
 * the lists from @order's, each list from its cold end.
 */
static void free_pcppages_bulk(struct zone *zone, struct per_cpu_pages *pcp, int count, int order)
{
	unsigned long flags;
	int o = order - 1;

	if (count > pcp->count)
		count = pcp->count;
	if (count <= 0)
		return;
	spin_lock_irqsave(&zone->lock, flags);
	sim_line_write(&zone->line);
	while (count > 0) {
		do {
			if (++o > MAX_NR_ORDERS - 1)
				o = 0;
		} while (list_empty(&pcp->lists[o]));
		do {
			struct folio *f = list_last_entry(&pcp->lists[o], struct folio, lru_node);

			list_del_init(&f->lru_node);
			pcp->count -= 1 << o;
			count -= 1 << o;
			zone_give_locked(zone, f);
		} while (count > 0 && !list_empty(&pcp->lists[o]));
	}
	spin_unlock_irqrestore(&zone->lock, flags);
}

/**
 * decay_pcp_high - lower pcp->high by an eighth and drain what is above it
 * @zone: the zone
 * @pcp: a CPU's pcp, its lock held by the caller's context
 *
 * What vmstat_update() -> refresh_cpu_vm_stats() does once a second on
 * each CPU.  Return: nonzero while there is more to decay.
 */
int decay_pcp_high(struct zone *zone, struct per_cpu_pages *pcp)
{
	int todo = 0, to_drain;

	if (pcp->high > pcp->high_min) {
		int a = pcp->count - (pcp->batch << CONFIG_PCP_BATCH_SCALE_MAX);
		int b = pcp->high - (pcp->high >> 3);
		int h = a > b ? a : b;

		pcp->high = h > pcp->high_min ? h : pcp->high_min;
		if (pcp->high > pcp->high_min)
			todo++;
	}
	to_drain = pcp->count - pcp->high;
	if (to_drain > 0) {
		free_pcppages_bulk(zone, pcp, to_drain, 0);
		todo++;
	}
	return todo;
}

/*
 * The model runs vmstat_update()'s decay lazily: at this CPU's next pcp
 * operation, once per second of virtual time that has passed (the kernel
 * runs it from a deferrable timer on the CPU; a CPU this busy runs it
 * about on time).
 */
static void pcp_decay_due(struct zone *zone, struct per_cpu_pages *pcp)
{
	sim_time_t now = sim_now();

	if (!pcp->next_decay) {
		pcp->next_decay = now + SIM_SEC;
		return;
	}
	while (now >= pcp->next_decay) {
		decay_pcp_high(zone, pcp);
		pcp->next_decay += SIM_SEC;
	}
}

/*
 * get_page_from_freelist()'s watermark look: set ZONE_BELOW_HIGH when the
 * free pages fall below the high watermark (zone_watermark_fast()).
 */
static void zone_check_below_high(struct zone *zone)
{
	if (!(zone->flags & (1UL << ZONE_BELOW_HIGH)) && zone->free_pages < zone->wmark_high)
		zone->flags |= 1UL << ZONE_BELOW_HIGH;
}

/**
 * folio_alloc_node - allocate a folio of 2^@order pages on node @nid
 * @order: the folio's order
 * @nid: the node (memory policy bind)
 *
 * Context: no spinlock held; takes the CPU's pcp lock and maybe zone->lock.
 * Return: a folio with refcount 1, or NULL when the zone is exhausted.
 */
struct folio *folio_alloc_node(int order, int nid)
{
	struct zone *zone = &sim_mm->zones[nid];
	struct folio *f = NULL;
	unsigned long flags;
	SIM_TRACE_SCOPE("mm", "get_page_from_freelist");

	zone_check_below_high(zone);
	if (pcp_allowed_order(order)) {
		struct per_cpu_pages *pcp = &zone->pcp[smp_processor_id()];

		pcp_spin_lock(pcp, &flags);
		pcp_decay_due(zone, pcp);
		/* rmqueue_pcplist(): fewer pages per drain after an allocation */
		pcp->free_count >>= 1;
		if (list_empty(&pcp->lists[order]))
			rmqueue_bulk(zone, pcp, order, nr_pcp_alloc(pcp, zone, order));
		if (!list_empty(&pcp->lists[order])) {
			f = list_first_entry(&pcp->lists[order], struct folio, lru_node);
			list_del_init(&f->lru_node);
			f->place = FOLIO_PRIVATE;
			f->_refcount = 1;
			pcp->count -= 1 << order;
			sim_cost_cpu_ps(sim_mm->list_op_ps);
		}
		pcp_spin_unlock(pcp, flags);
	} else {
		spin_lock_irqsave(&zone->lock, flags);
		f = zone_take_locked(zone, order);
		if (f) {
			f->place = FOLIO_PRIVATE;
			f->_refcount = 1;
		}
		spin_unlock_irqrestore(&zone->lock, flags);
	}
	if (!f)
		return NULL;
	f->flags = 0;
	if (order > 1)
		folio_set(f, PG_large_rmappable);
	f->_mapcount = 0;
	f->memcg = NULL;
	f->mm = NULL;
	f->swap = 0;
	f->data = FOLIO_DATA_MIXED;	/* whatever the frame held */
	count_events(SIM_PGALLOC_NORMAL, 1ULL << order);
	/* prep_new_page(): struct page init, written here */
	sim_line_write(&f->line);
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	return f;
}

/* free_pages_prepare(): checks and flag clearing on the head page. */
static void free_pages_prepare(struct folio *f)
{
	SIM_BUG_ON_FOLIO(f->_refcount != 0, f);
	SIM_BUG_ON_FOLIO(!list_empty(&f->_deferred_list), f);
	SIM_BUG_ON_FOLIO(f->memcg != NULL, f);
	f->flags = 0;
	sim_line_write(&f->line);
	sim_cost_cpu_ps(sim_mm->page_free_ps);	/* mm.page_free_ns */
	count_events(SIM_PGFREE, (uint64_t)folio_nr_pages(f));
}

/*
 * free_frozen_page_commit() (free_unref_page_commit() before v6.15): onto
 * the pcp list, then drain what nr_pcp_high() says is too much.
 */
static void free_frozen_page_commit(struct zone *zone, struct per_cpu_pages *pcp,
				    struct folio *f)
{
	int order = f->order, batch = pcp->batch, high;
	bool free_high = false;

	pcp->alloc_factor >>= 1;
	list_add(&f->lru_node, &pcp->lists[order]);
	f->place = FOLIO_FREE;
	pcp->count += 1 << order;
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	/*
	 * High-order frees without allocations between them drain early, once
	 * free_count passes a batch plus half of high_min (v6.16+: "mm: pcp:
	 * increase pcp->free_count threshold to trigger free_high"; v6.7-v6.15
	 * drained at one batch).
	 */
	if (order && order <= 3) {
		free_high = pcp->free_count >= batch + pcp->high_min / 2 &&
			    (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) &&
			    (!(pcp->flags & PCPF_FREE_HIGH_BATCH) || pcp->count >= batch);
		pcp->flags |= PCPF_PREV_FREE_HIGH_ORDER;
	} else if (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) {
		pcp->flags &= (uint8_t)~PCPF_PREV_FREE_HIGH_ORDER;
	}
	if (pcp->free_count < (batch << CONFIG_PCP_BATCH_SCALE_MAX))
		pcp->free_count += 1 << order;
	high = nr_pcp_high(pcp, zone, batch, free_high);
	if (pcp->count >= high) {
		free_pcppages_bulk(zone, pcp, nr_pcp_free(pcp, batch, high, free_high), order);
		if ((zone->flags & (1UL << ZONE_BELOW_HIGH)) && zone->free_pages >= zone->wmark_high)
			zone->flags &= ~(1UL << ZONE_BELOW_HIGH);
	}
}

static void free_one_page(struct folio *f)
{
	struct zone *zone = &sim_mm->zones[f->nid];
	unsigned long flags;

	spin_lock_irqsave(&zone->lock, flags);
	zone_give_locked(zone, f);
	spin_unlock_irqrestore(&zone->lock, flags);
}

static void free_one(struct folio *f)
{
	struct zone *zone = &sim_mm->zones[f->nid];
	struct per_cpu_pages *pcp;
	unsigned long flags;

	free_pages_prepare(f);
	if (!pcp_allowed_order(f->order)) {
		free_one_page(f);
		return;
	}
	pcp = &zone->pcp[smp_processor_id()];
	pcp_spin_lock(pcp, &flags);
	pcp_decay_due(zone, pcp);
	free_frozen_page_commit(zone, pcp, f);
	pcp_spin_unlock(pcp, flags);
}

/**
 * free_unref_folios - free a batch of folios whose refcount reached zero
 * @folios: the batch; returned empty
 *
 * Takes the CPU's pcp lock once for a run of folios of one zone, as the
 * kernel does.
 * Context: no lruvec lock held; memcg already uncharged.
 */
void free_unref_folios(struct folio_batch *folios)
{
	struct per_cpu_pages *pcp = NULL;
	struct zone *locked = NULL;
	unsigned long flags = 0;
	unsigned int i;
	SIM_TRACE_SCOPE("mm", "free_unref_folios");

	for (i = 0; i < folios->nr; i++) {
		struct folio *f = folios->folios[i];
		struct zone *zone = &sim_mm->zones[f->nid];

		free_pages_prepare(f);
		if (!pcp_allowed_order(f->order)) {
			free_one_page(f);
			continue;
		}
		if (zone != locked) {
			if (pcp)
				pcp_spin_unlock(pcp, flags);
			pcp = &zone->pcp[smp_processor_id()];
			pcp_spin_lock(pcp, &flags);
			pcp_decay_due(zone, pcp);
			locked = zone;
		}
		free_frozen_page_commit(zone, pcp, f);
	}
	if (pcp)
		pcp_spin_unlock(pcp, flags);
	folio_batch_reinit(folios);
}

/* free_frozen_pages() of one folio (the __folio_put() path). */
void free_frozen_folio(struct folio *folio)
{
	free_one(folio);
}

/**
 * zone_buddy_check - the buddy's free lists agree with its pages
 * @zone: the zone
 *
 * Every listed block heads a free block of its list's order, the links
 * are consistent, nr_free counts them, and the listed pages plus the
 * untouched ones equal free_pages.
 * Return: true when consistent.
 */
bool zone_buddy_check(const struct zone *zone)
{
	long pages = zone->managed_pages - (long)zone->nr_init;
	int o;

	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		const struct free_area *area = &zone->free_area[o];
		uint32_t pfn, prev = BUDDY_NIL;
		long n = 0;

		for (pfn = area->head; pfn != BUDDY_NIL; pfn = buddy_pg(zone, pfn)->next) {
			if (pfn >= zone->nr_init || buddy_pg(zone, pfn)->order != o ||
			    buddy_pg(zone, pfn)->prev != prev || (pfn & ((1U << o) - 1)))
				return false;
			prev = pfn;
			n++;
			pages += 1L << o;
		}
		if (area->tail != prev || n != area->nr_free)
			return false;
	}
	return pages == zone->free_pages;
}

/**
 * mem_write_bandwidth - charge the time to write @bytes to node @nid's memory
 * @nid: the node
 * @bytes: bytes written, whole lines
 * @core_gbps: the writing core's own rate (GB/s)
 *
 * Through the memory system (src/hw/memsys.c): the core's lines in
 * flight, the link to @nid's socket when it is remote, and @nid's DRAM,
 * each shared fairly with the other CPUs' traffic.
 * Context: a task; a sync point.
 */
void mem_write_bandwidth(int nid, uint64_t bytes, uint64_t core_gbps)
{
	memsys_write(sim_mm->memsys, nid, bytes, core_gbps);
}

/**
 * mem_zero_pages - charge the time to zero @bytes (whole pages) of node @nid
 * @nid: the node
 * @bytes: bytes zeroed (clear_page(), folio_zero_range())
 *
 * mem.page_zero_ns a page of the core's time, the write-back overlapping
 * (memsys_zero()); with 0, mem.zero_gbps as a stream, mem_write_bandwidth().
 * Context: a task; a sync point.
 */
void mem_zero_pages(int nid, uint64_t bytes)
{
	memsys_zero(sim_mm->memsys, nid, bytes, sim_mm->prof->mem_zero_gbps);
}
