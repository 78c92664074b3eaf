// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory cgroup charge and uncharge (mm/memcontrol.c).
 *
 * Charge: consume_stock() from the CPU's memcg_stock_pcp; otherwise
 * try_charge_memcg() charges MEMCG_CHARGE_BATCH (64) pages to the shared
 * page_counter (an atomic on a line every CPU writes) and refill_stock()
 * keeps the surplus.  Over the limit, with a swap device or with page
 * cache on the memcg's file lists (issue 30), the charge reclaims
 * directly (try_to_free_mem_cgroup_pages()) and retries; with neither it
 * fails with -ENOMEM.  commit_charge() sets the
 * folio's memcg.
 * Uncharge: mem_cgroup_uncharge_folios() gathers per memcg (uncharge_gather)
 * and calls page_counter_uncharge() once per batch: no lruvec lock.
 *
 * Left out: the hierarchy above the workload's memcg (one page_counter),
 * memcg v1 event ratelimits, objcg indirection, per-CPU vmstat flushing.
 */
#include <string.h>

#include "mm/mm.h"

struct mem_cgroup *mem_cgroup_create(long max_pages, int nr_nodes)
{
	struct mem_cgroup *memcg = calloc(1, sizeof(*memcg));
	int nid, lru;

	if (!memcg)
		abort();
	memcg->memory.max = max_pages;
	memcg->memory.line.last_writer = -1;
	for (nid = 0; nid < nr_nodes; nid++) {
		struct lruvec *lruvec = &memcg->lruvec[nid];

		for (lru = 0; lru < NR_LRU_LISTS; lru++) {
			INIT_LIST_HEAD(&lruvec->lists[lru]);
			lruvec->head_line[lru].last_writer = -1;
		}
		spin_lock_init_named(&lruvec->lru_lock, "lru_lock");
		lruvec->size_line.last_writer = -1;
		lruvec->nid = nid;
		lruvec->memcg = memcg;
		lru_gen_init_lruvec(lruvec);
	}
	return memcg;
}

/* page_counter_try_charge(): one atomic on the shared usage word. */
static bool page_counter_try_charge(struct page_counter *c, long nr)
{
	sim_line_rmw(&c->line);
	if (c->usage + nr > c->max)
		return false;
	c->usage += nr;
	return true;
}

static void page_counter_uncharge(struct page_counter *c, long nr)
{
	sim_line_rmw(&c->line);
	c->usage -= nr;
	SIM_BUG_ON(c->usage < 0);
}

static bool consume_stock(struct mem_cgroup *memcg, unsigned int nr)
{
	struct memcg_stock_pcp *stock = &sim_mm->stock[smp_processor_id()];

	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	if (stock->cached == memcg && stock->nr_pages >= nr) {
		stock->nr_pages -= nr;
		return true;
	}
	return false;
}

static void refill_stock(struct mem_cgroup *memcg, unsigned int nr)
{
	struct memcg_stock_pcp *stock = &sim_mm->stock[smp_processor_id()];

	if (stock->cached != memcg) {
		/* drain_stock(): give the old cache back */
		if (stock->cached && stock->nr_pages)
			page_counter_uncharge(&stock->cached->memory, stock->nr_pages);
		stock->cached = memcg;
		stock->nr_pages = 0;
	}
	stock->nr_pages += nr;
	if (stock->nr_pages > MEMCG_CHARGE_BATCH) {
		page_counter_uncharge(&memcg->memory, stock->nr_pages - MEMCG_CHARGE_BATCH);
		stock->nr_pages = MEMCG_CHARGE_BATCH;
	}
}

/* The memcg's page cache on the file LRU lists: reclaimable without swap. */
static long memcg_page_cache_pages(const struct mem_cgroup *memcg)
{
	long pages = 0;
	int nid;

	for (nid = 0; nid < sim_mm->nr_nodes; nid++)
		pages += memcg->lruvec[nid].nr_pages[LRU_INACTIVE_FILE] +
			 memcg->lruvec[nid].nr_pages[LRU_ACTIVE_FILE];
	return pages;
}

/*
 * try_charge_memcg(): the CPU's stock first, then a batch of
 * MEMCG_CHARGE_BATCH; once the batch fails the call charges only what it
 * needs (batch = nr_pages for every retry after), so a charge after
 * reclaim refills no stock.  Over the limit, reclaim directly from the
 * memcg (try_to_free_mem_cgroup_pages()) and retry from the stock, up to
 * MAX_RECLAIM_RETRIES times; then -ENOMEM (the memcg OOM killer is not
 * modelled).
 */
static int try_charge_memcg(struct mem_cgroup *memcg, unsigned int nr_pages)
{
	unsigned int batch = nr_pages > MEMCG_CHARGE_BATCH ? nr_pages : MEMCG_CHARGE_BATCH;
	int nr_retries = 16;	/* MAX_RECLAIM_RETRIES */
	unsigned long nr_reclaimed;

retry:
	if (consume_stock(memcg, nr_pages))
		return 0;
	if (page_counter_try_charge(&memcg->memory, batch)) {
		if (batch > nr_pages)
			refill_stock(memcg, batch - nr_pages);
		return 0;
	}
	if (batch > nr_pages) {
		batch = nr_pages;
		goto retry;
	}
	if (!sim_mm->swap && !memcg_page_cache_pages(memcg))
		return -12;	/* -ENOMEM: nothing to reclaim (no swap, no page cache) */
	nr_reclaimed = try_to_free_mem_cgroup_pages(memcg, nr_pages);
	if (memcg->memory.max - memcg->memory.usage >= (long)nr_pages)
		goto retry;	/* mem_cgroup_margin() */
	if (nr_reclaimed && nr_pages <= 8)
		goto retry;	/* 1 << PAGE_ALLOC_COSTLY_ORDER */
	if (nr_retries--)
		goto retry;
	count_event(SIM_SIM_MEMCG_OOM);
	return -12;	/* -ENOMEM */
}

/* charge_memcg(): try_charge_memcg(), then commit_charge(). */
static int charge_memcg(struct folio *folio, struct mem_cgroup *memcg)
{
	int ret = try_charge_memcg(memcg, (unsigned int)folio_nr_pages(folio));

	if (ret)
		return ret;
	folio->memcg = memcg;	/* commit_charge() */
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
	return 0;
}

/**
 * mem_cgroup_charge - charge a new folio to @memcg
 * @folio: the folio, not yet visible to anyone else
 * @memcg: the workload's memcg
 *
 * Return: 0, or -ENOMEM when the memcg is at its limit.
 */
int mem_cgroup_charge(struct folio *folio, struct mem_cgroup *memcg)
{
	SIM_TRACE_SCOPE("mm", "__mem_cgroup_charge");
	return charge_memcg(folio, memcg);
}

/**
 * mem_cgroup_swapin_charge_folio - charge a folio read in from swap
 * @folio: the new folio of the swap-in, not yet visible to anyone else
 * @memcg: the memcg of the swapped-out page (the workload's)
 *
 * As mem_cgroup_charge(), under its own name, as a kernel profile shows the
 * swap-in's charge (do_swap_page() -> alloc_swap_folio()).
 * Return: 0, or -ENOMEM when the memcg is at its limit.
 */
int mem_cgroup_swapin_charge_folio(struct folio *folio, struct mem_cgroup *memcg)
{
	SIM_TRACE_SCOPE("mm", "mem_cgroup_swapin_charge_folio");
	return charge_memcg(folio, memcg);
}

/**
 * mem_cgroup_uncharge_folios - uncharge a batch of freed folios
 * @folios: folios with refcount 0, already off every list
 *
 * Context: no lruvec lock held.
 */
void mem_cgroup_uncharge_folios(struct folio_batch *folios)
{
	struct mem_cgroup *memcg = NULL;
	long nr_memory = 0;
	unsigned int i;
	SIM_TRACE_SCOPE("mm", "__mem_cgroup_uncharge_folios");

	for (i = 0; i < folios->nr; i++) {
		struct folio *f = folios->folios[i];

		if (!f->memcg)
			continue;
		/* uncharge_folio(): flush the gather when the memcg changes */
		if (memcg && f->memcg != memcg) {
			page_counter_uncharge(&memcg->memory, nr_memory);
			nr_memory = 0;
		}
		memcg = f->memcg;
		nr_memory += folio_nr_pages(f);
		SIM_BUG_ON_FOLIO(!list_empty(&f->_deferred_list), f);
		f->memcg = NULL;
		sim_cost_cpu_ps(sim_mm->uncharge_ps);	/* mm.uncharge_ns */
	}
	if (memcg && nr_memory)
		page_counter_uncharge(&memcg->memory, nr_memory);	/* uncharge_batch() */
}

void mem_cgroup_uncharge(struct folio *folio)
{
	struct folio_batch fb;

	folio_batch_init(&fb);
	folio_batch_add(&fb, folio);
	mem_cgroup_uncharge_folios(&fb);
}

/* folio_lruvec(): the (memcg, node) lruvec a folio belongs on. */
struct lruvec *folio_lruvec(const struct folio *folio)
{
	struct mem_cgroup *memcg = folio->memcg ? folio->memcg : sim_mm->root_memcg;

	return &memcg->lruvec[folio->nid];
}
