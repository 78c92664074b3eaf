// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page allocator (mm/page_alloc.c): one ZONE_NORMAL per node with its
 * zone->lock, and per-CPU page lists (struct per_cpu_pages) for the orders
 * that pcp_allowed_order() admits.  Mirrors rmqueue_pcplist() and
 * rmqueue_bulk() on allocation, free_unref_folios(), free_frozen_page_commit()
 * and free_pcppages_bulk() on free.
 *
 * Folio structs are recycled: the zone's free lists hold the structs of free
 * blocks, by order, so that a folio's identity survives for the checks.
 * Left out: buddy splitting and merging (each order has its own pool of
 * blocks carved from the zone's free page count), watermarks, compaction,
 * migratetypes, the pcp high auto-tuning.
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

void zone_init(struct zone *zone, int nid, long pages, int nr_cpus, int pcp_high, int pcp_batch)
{
	int cpu, o;
	char name[32];

	memset(zone, 0, sizeof(*zone));
	snprintf(name, sizeof(name), "zone->lock");
	spin_lock_init_named(&zone->lock, name);
	zone->nid = nid;
	zone->free_pages = pages;
	zone->managed_pages = pages;
	zone->line.last_writer = -1;
	for (o = 0; o < MAX_NR_ORDERS; o++)
		INIT_LIST_HEAD(&zone->free_list[o]);
	zone->pcp = calloc((size_t)nr_cpus, sizeof(*zone->pcp));
	if (!zone->pcp)
		abort();
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = &zone->pcp[cpu];

		pcp->lock.last_writer = (int16_t)cpu;
		pcp->high = pcp_high;
		pcp->batch = pcp_batch;
		for (o = 0; o < MAX_NR_ORDERS; o++)
			INIT_LIST_HEAD(&pcp->lists[o]);
	}
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

/* Take one free block of @order from the zone; zone->lock held. */
static struct folio *zone_take_locked(struct zone *zone, int order)
{
	struct folio *f;

	if (zone->free_pages < (1L << order))
		return NULL;
	if (!list_empty(&zone->free_list[order])) {
		f = list_first_entry(&zone->free_list[order], struct folio, lru_node);
		list_del_init(&f->lru_node);
		zone->nr_free[order]--;
	} else {
		f = folio_struct_new(order, zone->nid);
	}
	zone->free_pages -= 1L << order;
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	return f;
}

static void zone_give_locked(struct zone *zone, struct folio *f)
{
	list_add(&f->lru_node, &zone->free_list[f->order]);
	f->place = FOLIO_FREE;
	zone->nr_free[f->order]++;
	zone->free_pages += folio_nr_pages(f);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
}

/* rmqueue_bulk(): refill a pcp list with a batch under zone->lock. */
static int rmqueue_bulk(struct zone *zone, struct per_cpu_pages *pcp, int order)
{
	unsigned long flags;
	int i, n = pcp->batch >> order;

	if (n < 1)
		n = 1;
	spin_lock_irqsave(&zone->lock, flags);
	sim_line_write(&zone->line);
	for (i = 0; i < n; i++) {
		struct folio *f = zone_take_locked(zone, order);

		if (!f)
			break;
		list_add_tail(&f->lru_node, &pcp->lists[order]);
		pcp->count += 1 << order;
	}
	spin_unlock_irqrestore(&zone->lock, flags);
	return i;
}

/* free_pcppages_bulk(): return @pages' worth of blocks to the zone. */
static void free_pcppages_bulk(struct zone *zone, struct per_cpu_pages *pcp, int pages)
{
	unsigned long flags;
	int o;

	spin_lock_irqsave(&zone->lock, flags);
	sim_line_write(&zone->line);
	for (o = MAX_NR_ORDERS - 1; o >= 0 && pages > 0; o--) {
		while (pages > 0 && !list_empty(&pcp->lists[o])) {
			struct folio *f = list_last_entry(&pcp->lists[o], struct folio, lru_node);

			list_del_init(&f->lru_node);
			pcp->count -= 1 << o;
			pages -= 1 << o;
			zone_give_locked(zone, f);
		}
	}
	spin_unlock_irqrestore(&zone->lock, flags);
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

	if (pcp_allowed_order(order)) {
		struct per_cpu_pages *pcp = &zone->pcp[smp_processor_id()];

		pcp_spin_lock(pcp, &flags);
		if (list_empty(&pcp->lists[order]))
			rmqueue_bulk(zone, pcp, order);
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
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	count_events(SIM_PGFREE, (uint64_t)folio_nr_pages(f));
}

/* free_frozen_page_commit(): onto the pcp list; drain a batch past high. */
static void free_frozen_page_commit(struct zone *zone, struct per_cpu_pages *pcp,
				    struct folio *f)
{
	list_add(&f->lru_node, &pcp->lists[f->order]);
	f->place = FOLIO_FREE;
	pcp->count += 1 << f->order;
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	if (pcp->count >= pcp->high)
		free_pcppages_bulk(zone, pcp, pcp->count - pcp->high + pcp->batch);
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
