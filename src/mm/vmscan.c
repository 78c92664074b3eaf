// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reclaim (mm/vmscan.c).  move_folios_to_lru(), the putback of
 * isolated folios, in the refactored form of the 2025 LRU-reparenting
 * series (the caller holds no lock; lru_lock is relocked per folio and
 * kept while the lruvec does not change).  P1 changes it: variant `before`
 * unqueues a dying folio from the deferred split queue under lru_lock,
 * variant `after` unqueues the free batch after the unlock and before
 * uncharge, at both places where the batch is freed.
 *
 *
 * Memcg direct reclaim (seed 003; read at torvalds/linux v6.15 mm/vmscan.c,
 * and the v4 series "mm: batch TLB flushing for dirty folios in vmscan"
 * as excerpted in the reference notes, section 3.3):
 *   try_to_free_mem_cgroup_pages() -> do_try_to_free_pages() (priority
 *   12..0) -> shrink_node() -> shrink_lruvec() (classic two-list LRU,
 *   SWAP_CLUSTER_MAX per call) -> shrink_active_list() / shrink_inactive_list()
 *   -> isolate_lru_folios() under lru_lock -> shrink_folio_list() ->
 *   move_folios_to_lru().
 * shrink_folio_list() takes the steps of the v4 refactor: folio_check_references()
 * (folio_referenced() through the rmap), add_to_swap(), folio_try_unmap()
 * (try_to_unmap() with TTU_BATCH_FLUSH), then for a dirty folio:
 *
 *   before (batch_dirty_flush off)          after (batch_dirty_flush on)
 *   try_to_unmap_flush_dirty();             folio_unlock(); add to flush_folios;
 *   pageout_one(folio)                      when 31 are queued, pageout_batch():
 *                                             trylock, re-check each (mapped,
 *                                             pinned, writeback: back to LRU),
 *                                             try_to_unmap_flush_dirty() once,
 *                                             pageout_one() each
 *                                           after the loop: the partial batch
 *
 * and the free path: folio_free() -> remove_mapping_locked() (the kernel's
 * __remove_mapping(): freeze 1 + nr_pages refs under the swap cluster
 * lock), then mem_cgroup_uncharge_folios(), try_to_unmap_flush(),
 * free_unref_folios() when free_folios is full and at the end.
 *
 * Left out: MGLRU, kswapd and global reclaim (only memcg direct reclaim),
 * file folios and their writeback throttling, too_many_isolated()
 * throttling, demotion, large folio splitting (order 0 only), the
 * workingset refault logic (swapped-in folios start inactive),
 * get_scan_count()'s anon/file balance (there is no file LRU: SCAN_ANON),
 * memcg protection (memory.low), the lru_note_cost() feedback.
 *
 * Lock order: folio lock -> PTL (rmap walk); lruvec->lru_lock is never
 * held across the rmap or I/O; lruvec->lru_lock -> deferred_split_lru
 * sublist (P1's `before` only); swap cluster lock innermost.
 */
#include <string.h>

#include "mm/mm.h"

static void move_folios_free_batch(struct folio_batch *free_folios)
{
	if (sim_mm->variant->unqueue_after_lru_unlock)
		folio_batch_unqueue_deferred_split(free_folios);
	mem_cgroup_uncharge_folios(free_folios);
	free_unref_folios(free_folios);
}

/**
 * move_folios_to_lru - put isolated folios back on their LRU lists
 * @list: isolated folios (folio->lru_node), each holding the isolation ref
 *
 * Context: no lock held; takes lru_lock with IRQs off.
 * Return: the number of pages moved back.
 */
unsigned int move_folios_to_lru(struct list_head *list)
{
	struct folio_batch free_folios;
	struct lruvec *lruvec = NULL;
	unsigned long flags = 0;
	unsigned int nr_moved = 0;

	folio_batch_init(&free_folios);
	while (!list_empty(list)) {
		struct folio *folio = list_first_entry(list, struct folio, lru_node);

		lruvec = folio_lruvec_relock_irqsave(folio, lruvec, &flags);
		list_del_init(&folio->lru_node);
		sim_cost_cpu_ps(sim_mm->list_op_ps);
		folio_set(folio, PG_lru);
		if (folio_put_testzero(folio)) {
			folio_clear(folio, PG_lru);
			folio_clear(folio, PG_active);
			folio_clear(folio, PG_unevictable);
			if (!sim_mm->variant->unqueue_after_lru_unlock)
				folio_unqueue_deferred_split(folio);
			folio->place = FOLIO_GATHER;
			if (folio_batch_add(&free_folios, folio) == 0) {
				lruvec_unlock_irqrestore(lruvec, flags);
				lruvec = NULL;
				move_folios_free_batch(&free_folios);
			}
			continue;
		}
		lruvec_add_folio(lruvec, folio);
		folio->place = FOLIO_LRU;
		nr_moved += (unsigned int)folio_nr_pages(folio);
		if (folio_test_active(folio))
			count_events(SIM_PGACTIVATE, (uint64_t)folio_nr_pages(folio));
	}
	if (lruvec)
		lruvec_unlock_irqrestore(lruvec, flags);
	if (free_folios.nr)
		move_folios_free_batch(&free_folios);
	return nr_moved;
}

/* ---- memcg direct reclaim (seed 003) ------------------------------------------- */

#define DEF_PRIORITY		12
#define MAX_RECLAIM_RETRIES	16

struct scan_control {
	unsigned long nr_to_reclaim;
	unsigned long nr_scanned;	/* pages scanned in this priority round */
	unsigned long nr_reclaimed;
	int priority;
	bool may_writepage;
	bool may_deactivate_anon;	/* sc->may_deactivate & DEACTIVATE_ANON */
	struct mem_cgroup *target_mem_cgroup;
};

struct reclaim_stat {
	unsigned int nr_pageout;
	unsigned int nr_unmap_fail;
	unsigned int nr_activate;
	unsigned int nr_ref_keep;
};

/*
 * The state that shrink_folio_list()'s steps share (the "helper struct"
 * that review of the v4 series asked for instead of eight parameters).
 */
struct reclaim_ctx {
	struct scan_control *sc;
	struct reclaim_stat *stat;
	struct list_head ret_folios;	/* back to the LRU */
	struct folio_batch free_folios;	/* refcount frozen, to free */
	struct folio_batch flush_folios; /* after: unlocked dirty folios waiting for the flush */
	unsigned int nr_reclaimed;
	struct reclaim_isolation iso;	/* for mm/check.c */
};

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

typedef enum { PAGE_KEEP, PAGE_ACTIVATE, PAGE_SUCCESS, PAGE_CLEAN } pageout_t;

static void reclaim_iso_register(struct reclaim_isolation *iso, struct list_head *a,
				 struct list_head *b, struct list_head *c, struct folio_batch *batch)
{
	iso->lists[0] = a;
	iso->lists[1] = b;
	iso->lists[2] = c;
	iso->batch = batch;
	iso->cur = NULL;
	list_add_tail(&iso->node, &sim_mm->reclaim_ctxs);
}

static void reclaim_iso_unregister(struct reclaim_isolation *iso)
{
	list_del_init(&iso->node);
}

/* inactive_is_low(): inactive * inactive_ratio < active (ratio 1 below 1 GiB). */
static bool inactive_is_low(struct lruvec *lruvec)
{
	unsigned long inactive = (unsigned long)lruvec->nr_pages[LRU_INACTIVE_ANON];
	unsigned long active = (unsigned long)lruvec->nr_pages[LRU_ACTIVE_ANON];
	unsigned long gb = (inactive + active) >> (30 - PAGE_SHIFT);
	unsigned long ratio = 1;

	if (gb) {	/* int_sqrt(10 * gb) */
		ratio = 1;
		while ((ratio + 1) * (ratio + 1) <= 10 * gb)
			ratio++;
	}
	return inactive * ratio < active;
}

/*
 * isolate_lru_folios(): take up to @nr_to_scan pages' worth of folios from
 * the tail of @lru onto @dst.  Context: lru_lock held, IRQs off.
 */
static unsigned long isolate_lru_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
					struct list_head *dst, unsigned long *nr_scanned,
					enum lru_list lru)
{
	struct list_head *src = &lruvec->lists[lru];
	unsigned long nr_taken = 0, scan = 0;

	while (scan < nr_to_scan && !list_empty(src)) {
		struct folio *folio = list_last_entry(src, struct folio, lru_node);
		long nr = folio_nr_pages(folio);

		scan += (unsigned long)nr;
		/*
		 * folio_try_get() && folio_test_clear_lru(): a folio being freed,
		 * or one whose PG_lru another CPU has cleared to move it (it
		 * waits for lru_lock), is rotated, not taken.
		 */
		if (folio->_refcount <= 0 || !folio_test_clear(folio, PG_lru)) {
			list_move(&folio->lru_node, src);
			continue;
		}
		folio_get(folio);
		lruvec_del_folio(lruvec, folio);
		list_add(&folio->lru_node, dst);
		folio->place = FOLIO_ISOLATED;
		nr_taken += (unsigned long)nr;
	}
	*nr_scanned = scan;
	return nr_taken;
}

/* folio_check_references(): two looks before a mapped folio is evicted. */
static enum folio_references folio_check_references(struct folio *folio)
{
	int referenced_ptes = folio_referenced(folio, true);
	bool referenced_folio = folio_test_clear(folio, PG_referenced);

	if (referenced_ptes) {
		folio_set(folio, PG_referenced);
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	return FOLIOREF_RECLAIM;
}

/* folio_activate_locked() (v4 1/5): back to the active list, unlocked. */
static void folio_activate_locked(struct reclaim_ctx *rc, struct folio *folio)
{
	folio_set(folio, PG_active);
	rc->stat->nr_activate += (unsigned int)folio_nr_pages(folio);
	folio_unlock(folio);
	list_add(&folio->lru_node, &rc->ret_folios);
}

static void folio_keep_locked(struct reclaim_ctx *rc, struct folio *folio)
{
	folio_unlock(folio);
	list_add(&folio->lru_node, &rc->ret_folios);
}

static void free_folios_flush(struct reclaim_ctx *rc)
{
	mem_cgroup_uncharge_folios(&rc->free_folios);
	try_to_unmap_flush();
	free_unref_folios(&rc->free_folios);
}

/*
 * remove_mapping_locked() is the kernel's __remove_mapping() for a swap
 * cache folio: freeze the isolation and swap cache references, delete it
 * from the swap cache.  Fails if someone else holds a reference (a fault
 * mapped it again).
 */
static bool remove_mapping_locked(struct folio *folio)
{
	int refcount = 1 + (int)folio_nr_pages(folio);
	struct swap_cluster_info *ci;

	if (!folio_test(folio, PG_swapcache))
		return folio_ref_freeze(folio, 1);
	ci = swap_cluster_lock(folio->swap - 1);
	if (!folio_ref_freeze(folio, refcount)) {
		swap_cluster_unlock(ci);
		return false;
	}
	if (folio_test(folio, PG_dirty)) {
		folio->_refcount = refcount;	/* folio_ref_unfreeze() */
		swap_cluster_unlock(ci);
		return false;
	}
	delete_from_swap_cache_locked(folio);
	swap_cluster_unlock(ci);
	return true;
}

/* folio_free() (v4 2/5): free a locked, clean, unmapped folio. */
static bool folio_free(struct reclaim_ctx *rc, struct folio *folio)
{
	if (!remove_mapping_locked(folio))
		return false;
	folio_clear(folio, PG_locked);		/* __folio_clear_locked() */
	rc->nr_reclaimed += (unsigned int)folio_nr_pages(folio);
	folio_unqueue_deferred_split(folio);
	folio->place = FOLIO_GATHER;
	if (rc->iso.cur == folio)
		rc->iso.cur = NULL;
	if (folio_batch_add(&rc->free_folios, folio) == 0)
		free_folios_flush(rc);
	return true;
}

/*
 * pageout(): write a dirty swap-cache folio.  The model checks here the
 * property that try_to_unmap_flush_dirty()'s comment states: once I/O
 * starts, no CPU may still hold a writable TLB entry for the folio, or
 * it could write to the page after the device read it.
 */
static pageout_t pageout(struct folio *folio)
{
	SIM_BUG_ON_FOLIO(folio_test(folio, PG_stale_tlb), folio);
	SIM_BUG_ON_FOLIO(folio_mapped(folio), folio);
	if (!folio_test(folio, PG_swapcache))
		return PAGE_KEEP;
	/* folio_clear_dirty_for_io() */
	if (!folio_test_clear(folio, PG_dirty))
		return PAGE_CLEAN;
	folio_set(folio, PG_reclaim);
	count_events(SIM_NR_VMSCAN_WRITE, (uint64_t)folio_nr_pages(folio));
	swap_writepage(folio);		/* unlocks the folio */
	folio_clear(folio, PG_reclaim);	/* folio_end_writeback() */
	return PAGE_SUCCESS;
}

/*
 * pageout_one() (v4 3/5): write @folio and free it if the write completed.
 * Return: true if the folio went to the free batch.
 */
static bool pageout_one(struct reclaim_ctx *rc, struct folio *folio)
{
	switch (pageout(folio)) {
	case PAGE_KEEP:
		folio_keep_locked(rc, folio);
		return false;
	case PAGE_ACTIVATE:
		folio_activate_locked(rc, folio);
		return false;
	case PAGE_SUCCESS:
		rc->stat->nr_pageout += (unsigned int)folio_nr_pages(folio);
		if (folio_test(folio, PG_writeback) || folio_test(folio, PG_dirty)) {
			list_add(&folio->lru_node, &rc->ret_folios);
			return false;
		}
		if (!folio_trylock(folio)) {
			list_add(&folio->lru_node, &rc->ret_folios);
			return false;
		}
		if (folio_test(folio, PG_writeback) || folio_test(folio, PG_dirty)) {
			folio_keep_locked(rc, folio);
			return false;
		}
		break;
	case PAGE_CLEAN:
		break;
	}
	if (folio_free(rc, folio))
		return true;
	folio_keep_locked(rc, folio);
	return false;
}

/*
 * pageout_batch() (v4 5/5): relock and re-check each queued dirty folio,
 * flush the TLB once, then write each out.  A folio that was mapped again
 * (a swap-in fault found it in the swap cache), pinned, or put under
 * writeback while it sat unlocked goes back to the LRU.
 */
static void pageout_batch(struct reclaim_ctx *rc)
{
	struct folio_batch *fbatch = &rc->flush_folios;
	unsigned int i, count = folio_batch_count(fbatch);

	count_event(SIM_SIM_PAGEOUT_BATCH);
	folio_batch_reinit(fbatch);		/* reuse fbatch in place */
	for (i = 0; i < count; i++) {
		struct folio *folio = fbatch->folios[i];

		if (!folio_trylock(folio)) {
			list_add(&folio->lru_node, &rc->ret_folios);
			continue;
		}
		SIM_BUG_ON_FOLIO(folio_test_lru(folio), folio);
		if (folio_test(folio, PG_writeback) || folio_mapped(folio)) {
			count_event(SIM_SIM_PAGEOUT_BATCH_RECHECK_FAIL);
			folio_keep_locked(rc, folio);
			continue;
		}
		folio_batch_add(fbatch, folio);
	}
	count = folio_batch_count(fbatch);
	if (!count)
		return;
	try_to_unmap_flush_dirty();		/* one TLB flush for the batch */		/* one TLB flush for the batch */
	for (i = 0; i < count; i++) {
		rc->iso.cur = fbatch->folios[i];
		fbatch->folios[i] = NULL;	/* the checks skip the slots done */
		pageout_one(rc, rc->iso.cur);
		rc->iso.cur = NULL;
	}
	folio_batch_reinit(fbatch);
}

/*
 * shrink_folio_list(): try to reclaim each isolated folio of @folio_list;
 * the folios that stay are returned on @folio_list.
 * Return: pages reclaimed.
 */
static unsigned int shrink_folio_list(struct list_head *folio_list, struct scan_control *sc,
				      struct reclaim_stat *stat)
{
	struct reclaim_ctx rc = { .sc = sc, .stat = stat };
	bool batch = sim_mm->variant->batch_dirty_flush;

	INIT_LIST_HEAD(&rc.ret_folios);
	folio_batch_init(&rc.free_folios);
	folio_batch_init(&rc.flush_folios);
	memset(stat, 0, sizeof(*stat));
	/* @folio_list is registered by the caller */
	reclaim_iso_register(&rc.iso, &rc.ret_folios, NULL, NULL, &rc.flush_folios);
	while (!list_empty(folio_list)) {
		struct folio *folio = list_last_entry(folio_list, struct folio, lru_node);

		cond_resched();
		list_del_init(&folio->lru_node);
		rc.iso.cur = folio;
		if (!folio_trylock(folio)) {
			list_add(&folio->lru_node, &rc.ret_folios);
			continue;
		}
		sc->nr_scanned += (unsigned long)folio_nr_pages(folio);
		if (folio_test(folio, PG_writeback)) {
			folio_activate_locked(&rc, folio);
			continue;
		}
		switch (folio_check_references(folio)) {
		case FOLIOREF_ACTIVATE:
			folio_activate_locked(&rc, folio);
			continue;
		case FOLIOREF_KEEP:
			stat->nr_ref_keep += (unsigned int)folio_nr_pages(folio);
			folio_keep_locked(&rc, folio);
			continue;
		case FOLIOREF_RECLAIM:
			break;
		}
		if (folio_test(folio, PG_swapbacked) && !folio_test(folio, PG_swapcache) &&
		    !add_to_swap(folio)) {
			folio_activate_locked(&rc, folio);
			continue;
		}
		/* folio_try_unmap() (v4 4/5) */
		if (folio_mapped(folio) && !try_to_unmap(folio, TTU_BATCH_FLUSH)) {
			stat->nr_unmap_fail += (unsigned int)folio_nr_pages(folio);
			folio_activate_locked(&rc, folio);
			continue;
		}
		if (folio_test(folio, PG_dirty)) {
			if (!sc->may_writepage) {
				folio_keep_locked(&rc, folio);
				continue;
			}
			if (batch) {
				folio_unlock(folio);
				rc.iso.cur = NULL;
				if (folio_batch_add(&rc.flush_folios, folio) == 0)
					pageout_batch(&rc);
				continue;
			}
			/*
			 * Folio is dirty: flush the TLB if a writable entry may
			 * exist, so that no CPU writes after I/O starts.
			 */
			try_to_unmap_flush_dirty();
			pageout_one(&rc, folio);
			rc.iso.cur = NULL;
			continue;
		}
		if (!folio_free(&rc, folio))
			folio_keep_locked(&rc, folio);
		rc.iso.cur = NULL;
	}
	rc.iso.cur = NULL;
	if (folio_batch_count(&rc.flush_folios))
		pageout_batch(&rc);
	free_folios_flush(&rc);
	while (!list_empty(&rc.ret_folios))	/* list_splice() */
		list_move_tail(rc.ret_folios.next, folio_list);
	reclaim_iso_unregister(&rc.iso);
	return rc.nr_reclaimed;
}

/* The isolated folios of a list go back to the LRU (caller: no lock held). */
static void putback_isolated(struct list_head *list)
{
	move_folios_to_lru(list);
}

/* shrink_inactive_list(): isolate a cluster, reclaim it, put the rest back. */
static unsigned long shrink_inactive_list(unsigned long nr_to_scan, struct lruvec *lruvec,
					  struct scan_control *sc, enum lru_list lru)
{
	struct list_head folio_list;
	struct reclaim_isolation iso;
	struct reclaim_stat stat;
	unsigned long nr_scanned, nr_taken;
	unsigned int nr_reclaimed;

	INIT_LIST_HEAD(&folio_list);
	lru_add_drain();
	reclaim_iso_register(&iso, &folio_list, NULL, NULL, NULL);
	spin_lock_irq(&lruvec->lru_lock);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &folio_list, &nr_scanned, lru);
	/* cgroup reclaim: pgscan_direct is the memcg's; PGSCAN_ANON is global */
	count_events(SIM_PGSCAN_ANON, nr_scanned);
	spin_unlock_irq(&lruvec->lru_lock);
	if (!nr_taken) {
		reclaim_iso_unregister(&iso);
		return 0;
	}
	SIM_TRACE_SCOPE_ARG("reclaim", "shrink_folio_list", "folios", (int64_t)nr_taken);
	nr_reclaimed = shrink_folio_list(&folio_list, sc, &stat);
	putback_isolated(&folio_list);
	reclaim_iso_unregister(&iso);
	count_events(SIM_PGSTEAL_ANON, nr_reclaimed);
	return nr_reclaimed;
}

/* shrink_active_list(): anon folios are deactivated whether referenced or not. */
static void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec,
			       struct scan_control *sc, enum lru_list lru)
{
	struct list_head l_hold, l_inactive;
	struct reclaim_isolation iso;
	unsigned long nr_scanned, nr_taken, nr_deactivate = 0;

	(void)sc;
	INIT_LIST_HEAD(&l_hold);
	INIT_LIST_HEAD(&l_inactive);
	lru_add_drain();
	reclaim_iso_register(&iso, &l_hold, &l_inactive, NULL, NULL);
	spin_lock_irq(&lruvec->lru_lock);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &l_hold, &nr_scanned, lru);
	count_events(SIM_PGREFILL, nr_scanned);
	spin_unlock_irq(&lruvec->lru_lock);
	while (!list_empty(&l_hold)) {
		struct folio *folio = list_last_entry(&l_hold, struct folio, lru_node);

		cond_resched();
		list_del_init(&folio->lru_node);
		iso.cur = folio;
		/* folio_referenced() clears the young bits; anon is not kept active */
		folio_referenced(folio, false);
		folio_clear(folio, PG_active);
		folio_set(folio, PG_workingset);
		list_add(&folio->lru_node, &l_inactive);
		nr_deactivate += (unsigned long)folio_nr_pages(folio);
		iso.cur = NULL;
	}
	putback_isolated(&l_inactive);
	reclaim_iso_unregister(&iso);
	(void)nr_taken;
	count_events(SIM_PGDEACTIVATE, nr_deactivate);
}

static unsigned long shrink_list(enum lru_list lru, unsigned long nr_to_scan,
				 struct lruvec *lruvec, struct scan_control *sc)
{
	if (lru == LRU_ACTIVE_ANON) {
		if (sc->may_deactivate_anon)
			shrink_active_list(nr_to_scan, lruvec, sc, lru);
		return 0;
	}
	return shrink_inactive_list(nr_to_scan, lruvec, sc, lru);
}

/* shrink_lruvec(): scan both anon lists SWAP_CLUSTER_MAX at a time. */
static void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long nr[2], nr_reclaimed = 0;
	enum lru_list lrus[2] = { LRU_INACTIVE_ANON, LRU_ACTIVE_ANON };
	int i;

	/* get_scan_count(): SCAN_ANON, size >> priority */
	for (i = 0; i < 2; i++)
		nr[i] = (unsigned long)lruvec->nr_pages[lrus[i]] >> sc->priority;
	while (nr[0] || nr[1]) {
		for (i = 0; i < 2; i++) {
			unsigned long nr_to_scan;

			if (!nr[i])
				continue;
			nr_to_scan = nr[i] < SWAP_CLUSTER_MAX ? nr[i] : SWAP_CLUSTER_MAX;
			nr[i] -= nr_to_scan;
			nr_reclaimed += shrink_list(lrus[i], nr_to_scan, lruvec, sc);
		}
		cond_resched();
		/* cgroup reclaim is not proportional: stop at the target */
		if (nr_reclaimed >= sc->nr_to_reclaim)
			break;
	}
	sc->nr_reclaimed += nr_reclaimed;
	if (inactive_is_low(lruvec))
		shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
}

/* shrink_node() -> shrink_node_memcgs() for the one memcg. */
static void shrink_node(struct mem_cgroup *memcg, struct scan_control *sc)
{
	SIM_TRACE_SCOPE("reclaim", "shrink_node");
	int nid;

	for (nid = 0; nid < sim_mm->nr_nodes; nid++) {
		struct lruvec *lruvec = &memcg->lruvec[nid];

		/* prepare_scan_control(): deactivate anon only when inactive is low */
		sc->may_deactivate_anon = inactive_is_low(lruvec);
		shrink_lruvec(lruvec, sc);
	}
}

static unsigned long do_try_to_free_pages(struct scan_control *sc)
{
	do {
		sc->nr_scanned = 0;
		shrink_node(sc->target_mem_cgroup, sc);
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
		if (sc->priority < DEF_PRIORITY - 2)
			sc->may_writepage = true;
	} while (--sc->priority >= 0);
	return sc->nr_reclaimed;
}

/**
 * try_to_free_mem_cgroup_pages - direct reclaim for a memcg over its limit
 * @memcg: the memcg whose charge failed
 * @nr_pages: pages the charge needs
 *
 * Context: process context, no spinlock held; may sleep (swap writes).
 * Return: pages reclaimed.
 */
unsigned long try_to_free_mem_cgroup_pages(struct mem_cgroup *memcg, unsigned long nr_pages)
{
	struct scan_control sc = {
		.nr_to_reclaim = nr_pages > SWAP_CLUSTER_MAX ? nr_pages : SWAP_CLUSTER_MAX,
		.priority = DEF_PRIORITY,
		.may_writepage = true,	/* !laptop_mode */
		.target_mem_cgroup = memcg,
	};

	count_event(SIM_SIM_MEMCG_RECLAIM);
	if (!sim_mm->swap)
		return 0;	/* can_reclaim_anon_pages(): no swap, nothing to do */
	return do_try_to_free_pages(&sc);
}
