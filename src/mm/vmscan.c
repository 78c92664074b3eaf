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
 * MGLRU (lru_gen, sim_mm->lru_gen_enabled) is below, before shrink_lruvec().
 *
 * MADV_PAGEOUT's reclaim_pages() (issue 30) is below, before MGLRU: it
 * reclaims anon folios and clean page cache folios of a disk file;
 * shrink_folio_list() keeps tmpfs folios (no shmem_writeout()) and
 * activates dirty page cache folios (no writeback outside kswapd).
 * The file lists (issue 30): get_scan_count() (below) scans them with
 * the anon lists when the lruvec holds page cache (SCAN_FRACT by
 * swappiness alone, SCAN_FILE without swap); clean page cache folios are
 * freed (__remove_mapping()), dirty ones activated (no writeback).
 * Left out: kswapd and global reclaim (only memcg direct reclaim),
 * file writeback and its throttling, MGLRU's file type, too_many_isolated()
 * throttling, demotion, large folio splitting (order 0 only), the
 * workingset refault logic (swapped-in folios start inactive),
 * get_scan_count()'s cost balance (lru_note_cost()),
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
		bool active;

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
		active = folio_test_active(folio);	/* MGLRU's add clears it */
		lruvec_add_folio(lruvec, folio);
		folio->place = FOLIO_LRU;
		nr_moved += (unsigned int)folio_nr_pages(folio);
		if (active)
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
	bool may_deactivate_file;	/* sc->may_deactivate & DEACTIVATE_FILE */
	bool force_deactivate;		/* the retry after a pass that skipped deactivation */
	bool skipped_deactivate;	/* an active list was due a scan and was not deactivated */
	bool ignore_references;		/* shrink_folio_list()'s parameter in the kernel:
					 * reclaim_pages() (MADV_PAGEOUT) sets it */
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

/*
 * inactive_is_low(): inactive * inactive_ratio < active (ratio 1 below
 * 1 GiB), for the anon lists or, given LRU_INACTIVE_FILE, the file lists.
 */
static bool inactive_is_low_lru(struct lruvec *lruvec, enum lru_list inactive_lru)
{
	unsigned long inactive = (unsigned long)lruvec->nr_pages[inactive_lru];
	unsigned long active = (unsigned long)lruvec->nr_pages[inactive_lru + 1];
	unsigned long gb = (inactive + active) >> (30 - PAGE_SHIFT);
	unsigned long ratio = 1;

	if (gb) {	/* int_sqrt(10 * gb) */
		ratio = 1;
		while ((ratio + 1) * (ratio + 1) <= 10 * gb)
			ratio++;
	}
	return inactive * ratio < active;
}

static bool inactive_is_low(struct lruvec *lruvec)
{
	return inactive_is_low_lru(lruvec, LRU_INACTIVE_ANON);
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
static bool lru_gen_set_refs(struct folio *folio);

static enum folio_references folio_check_references(struct folio *folio)
{
	int referenced_ptes = folio_referenced(folio, true);
	bool referenced_folio;

	if (sim_mm->lru_gen_enabled) {
		if (!referenced_ptes)
			return FOLIOREF_RECLAIM;
		return lru_gen_set_refs(folio) ? FOLIOREF_ACTIVATE : FOLIOREF_KEEP;
	}
	referenced_folio = folio_test_clear(folio, PG_referenced);
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

	if (folio_test(folio, PG_file)) {
		/* a page cache folio: freeze under the i_pages lock, then delete it */
		struct address_space *mapping = folio->mapping;
		unsigned long flags;

		spin_lock_irqsave(&mapping->i_pages_lock, flags);
		if (!folio_ref_freeze(folio, refcount)) {
			spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
			return false;
		}
		if (folio_test(folio, PG_dirty)) {
			folio->_refcount = refcount;	/* folio_ref_unfreeze() */
			spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
			return false;
		}
		filemap_remove_folio_locked(folio);	/* __filemap_remove_folio(), no shadow */
		spin_unlock_irqrestore(&mapping->i_pages_lock, flags);
		return true;
	}
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
	SIM_TRACE_SCOPE("reclaim", "pageout");
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
		switch (sc->ignore_references ? FOLIOREF_RECLAIM : folio_check_references(folio)) {
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
		/* a tmpfs folio: shmem_writeout() to swap is not modelled, it stays */
		if (folio_test(folio, PG_file) && folio_test(folio, PG_swapbacked)) {
			folio_keep_locked(&rc, folio);
			continue;
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
		if (folio_test(folio, PG_dirty) && folio_test(folio, PG_file)) {
			/* only kswapd writes file folios back (and there is no writeback here) */
			folio_set(folio, PG_reclaim);
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
	/* cgroup reclaim: pgscan_direct is the memcg's; PGSCAN_ANON/FILE are global */
	count_events(lru == LRU_INACTIVE_FILE ? SIM_PGSCAN_FILE : SIM_PGSCAN_ANON, nr_scanned);
	spin_unlock_irq(&lruvec->lru_lock);
	if (!nr_taken) {
		reclaim_iso_unregister(&iso);
		return 0;
	}
	SIM_TRACE_SCOPE_ARG("reclaim", "shrink_folio_list", "folios", (int64_t)nr_taken);
	nr_reclaimed = shrink_folio_list(&folio_list, sc, &stat);
	putback_isolated(&folio_list);
	reclaim_iso_unregister(&iso);
	count_events(lru == LRU_INACTIVE_FILE ? SIM_PGSTEAL_FILE : SIM_PGSTEAL_ANON, nr_reclaimed);
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
	if (lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE) {
		if (lru == LRU_ACTIVE_ANON ? sc->may_deactivate_anon : sc->may_deactivate_file)
			shrink_active_list(nr_to_scan, lruvec, sc, lru);
		else
			sc->skipped_deactivate = true;
		return 0;
	}
	return shrink_inactive_list(nr_to_scan, lruvec, sc, lru);
}


/* ---- reclaim of a given list: MADV_PAGEOUT (issue 30) -----------------------------------
 *
 * Read at torvalds/linux v6.12 mm/vmscan.c: folio_isolate_lru() takes a
 * folio off its LRU list (PG_lru cleared first, a reference taken, the
 * folio deleted under lru_lock); reclaim_pages() groups a list by node and
 * runs reclaim_folio_list(): shrink_folio_list() with ignore_references,
 * may_writepage, may_unmap and may_swap, then folio_putback_lru() of what
 * stayed (here move_folios_to_lru(), which puts each back under lru_lock
 * and drops the isolation reference as folio_putback_lru()'s folio_put()
 * would).  Neither counts pgscan or pgsteal.
 */

/**
 * folio_isolate_lru - take a folio off its LRU list for a caller's own use
 * @folio: a folio the caller holds a reference to (a mapped one)
 *
 * Context: may hold the PTL; takes lru_lock (IRQs off).
 * Return: true with the folio isolated (one more reference, place
 * ISOLATED), false if someone else has it off the LRU.
 */
bool folio_isolate_lru(struct folio *folio)
{
	struct cpu_fbatches *mover = &sim_mm->fbatches[smp_processor_id()];
	struct lruvec *lruvec;

	SIM_BUG_ON_FOLIO(!folio_ref_count(folio), folio);
	if (!folio_test_clear(folio, PG_lru))
		return false;
	folio_get(folio);
	folio->place = FOLIO_ISOLATED;
	mover->lru_isolating = folio;		/* on its list until lru_lock is ours */
	lruvec = folio_lruvec(folio);
	spin_lock_irq(&lruvec->lru_lock);
	lruvec_del_folio(lruvec, folio);
	spin_unlock_irq(&lruvec->lru_lock);
	mover->lru_isolating = NULL;
	return true;
}

/* reclaim_folio_list(): one node's folios of reclaim_pages(). */
static unsigned int reclaim_folio_list(struct list_head *folio_list)
{
	struct scan_control sc = {
		.may_writepage = true,
		.ignore_references = true,
		.priority = DEF_PRIORITY,
	};
	struct reclaim_stat stat;
	unsigned int nr_reclaimed;

	SIM_TRACE_SCOPE("reclaim", "reclaim_folio_list");
	nr_reclaimed = shrink_folio_list(folio_list, &sc, &stat);
	move_folios_to_lru(folio_list);		/* folio_putback_lru() each */
	return nr_reclaimed;
}

/**
 * reclaim_pages - reclaim a list of isolated folios (MADV_PAGEOUT)
 * @folio_list: folios isolated by folio_isolate_lru(); returned empty
 *
 * Context: no spinlock held; may swap out (sleeps on the device's I/O).
 * Return: the pages reclaimed.
 */
unsigned long reclaim_pages(struct list_head *folio_list)
{
	struct list_head node_folio_list;
	unsigned long nr_reclaimed = 0;
	int nid;

	if (list_empty(folio_list))
		return 0;
	INIT_LIST_HEAD(&node_folio_list);
	nid = list_last_entry(folio_list, struct folio, lru_node)->nid;	/* lru_to_folio() */
	do {
		struct folio *folio = list_last_entry(folio_list, struct folio, lru_node);

		if (folio->nid == nid) {
			folio_clear(folio, PG_active);
			list_move(&folio->lru_node, &node_folio_list);
			continue;
		}
		nr_reclaimed += reclaim_folio_list(&node_folio_list);
		nid = list_last_entry(folio_list, struct folio, lru_node)->nid;
	} while (!list_empty(folio_list));
	nr_reclaimed += reclaim_folio_list(&node_folio_list);
	return nr_reclaimed;
}

/* ---- MGLRU (lru_gen): aging and eviction ----------------------------------------------
 *
 * Read at torvalds/linux v6.14-v7.0 mm/vmscan.c ("the aging", "the eviction",
 * the rmap/PT walk feedback) with the workingset rework of v6.14 (PG_referenced
 * then PG_workingset for folios accessed through page tables).  Memcg direct
 * reclaim with lru_gen enabled goes shrink_lruvec() -> lru_gen_shrink_lruvec()
 * -> try_to_shrink_lruvec(): get_nr_to_scan() (should_run_aging(); at a
 * priority below DEF_PRIORITY with three generations left it ages and stops)
 * -> evict_folios() -> isolate_folios() -> scan_folios() (the oldest
 * generation's tail: sort_folio() moves a folio whose generation moved,
 * isolate_folio() takes the rest, up to MIN_LRU_BATCH pages isolated or
 * min(nr_to_scan, MAX_LRU_BATCH) folios looked at) -> shrink_folio_list()
 * -> the rejected folios back with move_folios_to_lru(), the clean ones
 * tried once more.
 *
 * Aging: try_to_inc_max_seq() walks the page tables of the memcg's mms
 * (walk_mm(), lru_gen enabled = 0x0007 on x86): each young PTE's accessed
 * bit is cleared and its folio's generation counter set to max_seq
 * (folio_update_gen(): the first time only PG_referenced), then
 * inc_max_seq() opens a new generation; inc_min_seq() first moves what is
 * left in the oldest one when there are MAX_NR_GENS.  Concurrent reclaimers
 * share one walk (iterate_mm_list(): each takes the next mm; the one that
 * reaches the end increments max_seq).  A PTE table is walked only if
 * its PMD's accessed bit is set (x86 sets it in non-leaf entries; cleared
 * by the walk) and the Bloom filter of the generation holds it: the last
 * walk, or a look-around, found it dense in young PTEs (suitable_to_scan());
 * the first walk is forced.  The eviction's rmap walk looks around each
 * young PTE (lru_gen_look_around()).
 *
 * Left out: the file type and its balance with anon (get_type_to_scan(),
 * swappiness: the model has anon only), zones, tiers and the refault PID
 * controller (no shadow entries: get_tier_idx() with no refaults gives the
 * last tier, so sort_folio() protects nothing by tier), huge PMDs in the
 * walk, the Bloom filter's false positives (the model's is exact), the
 * per-walk batching of size updates (applied at once), folio_activate() on
 * the look-around's no-walk path (the counter moves, as with a walk), the
 * memcg LRU (one memcg), min_ttl.
 *
 * Lock order: mm_list->lock (iterate_mm_list(), alone); mmap_lock (read
 * trylock) -> PTL (trylock) in walk_mm(); lru_lock is taken after, never
 * inside either.
 */

/* list_count_nodes() */
static unsigned long list_count_nodes(const struct list_head *head)
{
	const struct list_head *pos;
	unsigned long n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/* lru_gen_set_refs(): a mapped folio seen young by the rmap walk. */
static bool lru_gen_set_refs(struct folio *folio)
{
	if (!folio_test(folio, PG_referenced) && !folio_test(folio, PG_workingset)) {
		folio_set(folio, PG_referenced);
		return false;
	}
	folio_clear(folio, PG_referenced);
	folio_set(folio, PG_workingset);
	return true;
}

/*
 * folio_update_gen(): a young PTE's folio goes to @gen (the youngest); the
 * first time it is only marked PG_referenced.  The folio stays on its list
 * until sort_folio() moves it.  Return: its old generation, or -1.
 */
static int folio_update_gen(struct lruvec *lruvec, struct folio *folio, int gen)
{
	int old_gen = folio_lru_gen(folio);

	if (!folio_test(folio, PG_referenced) && !folio_test(folio, PG_workingset)) {
		folio_set(folio, PG_referenced);
		return -1;
	}
	if (old_gen < 0)		/* lru_gen_del_folio() has isolated it */
		return -1;
	folio->flags = (folio->flags & ~(LRU_GEN_MASK | (1U << PG_referenced))) |
		       ((uint32_t)(gen + 1) << LRU_GEN_PGOFF) | (1U << PG_workingset);
	sim_line_rmw(&folio->line);
	if (old_gen != gen)
		lru_gen_update_size(lruvec, folio, old_gen, gen);
	return old_gen;
}

/*
 * folio_inc_gen(): move a folio of the oldest generation to the next one,
 * unless its counter already moved (then there).  Return: its generation.
 */
static int folio_inc_gen(struct lruvec *lruvec, struct folio *folio, bool reclaiming)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int old_gen = lru_gen_from_seq(lrugen->min_seq);
	int new_gen = folio_lru_gen(folio);

	SIM_BUG_ON_FOLIO(new_gen < 0, folio);
	if (new_gen != old_gen)
		return new_gen;		/* folio_update_gen() has promoted it */
	new_gen = (old_gen + 1) % (int)MAX_NR_GENS;
	folio->flags = (folio->flags & ~(LRU_GEN_MASK | (1U << PG_referenced))) |
		       ((uint32_t)(new_gen + 1) << LRU_GEN_PGOFF);
	if (reclaiming)
		folio_set(folio, PG_reclaim);	/* for folio_end_writeback() */
	lru_gen_update_size(lruvec, folio, old_gen, new_gen);
	return new_gen;
}

/* The folio whose PTE @pte is, if it is on @lruvec's generations (get_pfn_folio()). */
static struct folio *lru_gen_pte_folio(struct lruvec *lruvec, pte_t pte)
{
	struct folio *folio;

	if (!pte_present(pte) || !(pte & PTE_YOUNG))	/* get_pte_pfn() */
		return NULL;
	folio = pte_folio(pte);
	if (folio_lru_gen(folio) < 0 || folio->memcg != lruvec->memcg ||
	    folio->nid != lruvec->nid)
		return NULL;
	return folio;
}

/* A list move inside the lrugen lists (sort_folio(), inc_min_seq()): four lines. */
static void lru_gen_list_move(struct lruvec *lruvec, struct folio *folio, int gen, bool tail)
{
	struct list_head *head = &lruvec->lrugen.folios[gen];

	sim_line_write(&folio->line);
	sim_line_write(&lruvec->lrugen.head_line[gen]);
	sim_cost_cpu_ps(2 * sim_mm->list_op_ps);
	if (tail)
		list_move_tail(&folio->lru_node, head);
	else
		list_move(&folio->lru_node, head);
}

/* suitable_to_scan(): at least one young PTE per cache line of PTEs on average. */
static bool suitable_to_scan(long total, long young)
{
	return young * 8 >= total;	/* 64-byte lines of 8-byte PTEs */
}

/* update_bloom_filter(): remember a PTE table worth walking at @seq. */
static void update_bloom_filter(unsigned long seq, struct vm_area_struct *vma, uint64_t addr)
{
	vma->pmd_flags[vma_pmd_index(vma, addr)] |=
		(uint8_t)PMD_LRU_GEN_FILTER(seq % NR_BLOOM_FILTERS);
}

/**
 * lru_gen_look_around - clear the young bits of a young PTE's neighbours
 * @vma: the VMA of the PTE
 * @addr: its address
 * @pte: the PTE, young, of a folio that reclaim has isolated
 *
 * The rmap walk found @pte young: the PTEs around it in the same PTE table
 * and VMA (at most MIN_LRU_BATCH) are likely young too; their folios are
 * promoted to the youngest generation (folio_update_gen()) as the aging
 * would, without walking the page tables.  Clears @pte's young bit.
 * Context: the PTL of @addr held.
 */
void lru_gen_look_around(struct vm_area_struct *vma, uint64_t addr, pte_t *pte)
{
	struct folio *folio = pte_folio(*pte), *last = NULL;
	struct lruvec *lruvec = folio_lruvec(folio);
	unsigned long max_seq = lruvec->lrugen.max_seq;
	int gen = lru_gen_from_seq(max_seq);
	uint64_t start, end, a;
	long i, young = 0;

	*pte &= ~PTE_YOUNG;		/* ptep_clear_young_notify() */
	start = addr & ~(PMD_SIZE - 1);
	if (start < vma->vm_start)
		start = vma->vm_start;
	end = (addr | (PMD_SIZE - 1)) + 1;
	if (end > vma->vm_end)
		end = vma->vm_end;
	if (end - start == PAGE_SIZE)
		return;
	if (end - start > MIN_LRU_BATCH * PAGE_SIZE) {
		if (addr - start < MIN_LRU_BATCH * PAGE_SIZE / 2)
			end = start + MIN_LRU_BATCH * PAGE_SIZE;
		else if (end - addr < MIN_LRU_BATCH * PAGE_SIZE / 2)
			start = end - MIN_LRU_BATCH * PAGE_SIZE;
		else {
			start = addr - MIN_LRU_BATCH * PAGE_SIZE / 2;
			end = addr + MIN_LRU_BATCH * PAGE_SIZE / 2;
		}
	}
	pte -= (addr - start) >> PAGE_SHIFT;
	for (i = 0, a = start; a != end; i++, a += PAGE_SIZE) {
		folio = lru_gen_pte_folio(lruvec, pte[i]);
		if (!folio)
			continue;
		pte[i] &= ~PTE_YOUNG;	/* ptep_clear_young_notify(): no flush on x86 */
		young++;
		if (folio != last) {	/* walk_update_folio() */
			folio_update_gen(lruvec, folio, gen);
			last = folio;
		}
	}
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)i);
	/* feedback from rmap walkers to page table walkers */
	if (suitable_to_scan(i, young))
		update_bloom_filter(max_seq, vma, start);
}

/* test_bloom_filter(): true when the filter of @seq is not set up yet, too. */
static bool test_bloom_filter(struct lruvec *lruvec, unsigned long seq,
			      const struct vm_area_struct *vma, uint64_t addr)
{
	int i = (int)(seq % NR_BLOOM_FILTERS);

	if (!lruvec->lrugen.filter_valid[i])
		return true;
	return vma->pmd_flags[vma_pmd_index(vma, addr)] & PMD_LRU_GEN_FILTER(i);
}

/* reset_bloom_filter(): empty the filter of @seq (the kernel clears a bitmap). */
static void reset_bloom_filter(struct lruvec *lruvec, unsigned long seq)
{
	int i = (int)(seq % NR_BLOOM_FILTERS);
	struct list_head *pos, *vpos;

	list_for_each(pos, &sim_mm->mmlist) {
		struct mm_struct *mm = list_entry(pos, struct mm_struct, mmlist);

		if (mm->memcg != lruvec->memcg)
			continue;
		list_for_each(vpos, &mm->vmas) {
			struct vm_area_struct *vma = list_entry(vpos, struct vm_area_struct, node);
			uint64_t k, n = vma_nr_pmds(vma);

			for (k = 0; k < n; k++)
				vma->pmd_flags[k] &= (uint8_t)~PMD_LRU_GEN_FILTER(i);
		}
	}
	lruvec->lrugen.filter_valid[i] = true;
}

/*
 * walk_pte_range(): clear the young PTEs of one PTE table and update their
 * folios.  Return: whether the table is dense enough in young PTEs to walk
 * at the next generation (false also when its PTL is taken).
 */
static bool walk_pte_range(struct lruvec *lruvec, struct vm_area_struct *vma, uint64_t addr,
			   uint64_t end, int gen)
{
	struct spinlock *ptl = pte_lockptr_lookup(vma, addr);
	long total = 0, young = 0;
	pte_t *pte;

	if (!spin_trylock(ptl))
		return false;
	pte = vma_pte_lookup(vma, addr);
	for (; addr < end; addr += PAGE_SIZE, pte++) {
		struct folio *folio = lru_gen_pte_folio(lruvec, *pte);

		total++;
		if (!folio)
			continue;
		*pte &= ~PTE_YOUNG;	/* ptep_clear_young_notify() */
		young++;
		folio_update_gen(lruvec, folio, gen);
	}
	sim_cost_cpu_ps(sim_mm->pte_op_ps * (sim_time_t)total);
	spin_unlock(ptl);
	return suitable_to_scan(total, young);
}

/*
 * walk_mm(): the aging's page-table walk of one mm (walk_pmd_range()).
 * A PTE table is walked when the walk is forced (the first iteration), or
 * when its PMD's accessed bit is set (cleared here: should_clear_pmd_young()
 * on x86) and the previous walk or a look-around put it in the Bloom
 * filter of @seq; a table dense in young PTEs goes in the filter of seq + 1.
 */
static void walk_mm(struct lruvec *lruvec, struct mm_struct *mm, unsigned long seq,
		    bool force_scan)
{
	int gen = lru_gen_from_seq(seq);
	struct list_head *pos;

	if (!down_read_trylock(&mm->mmap_lock))
		return;
	for (pos = mm->vmas.next; pos != &mm->vmas; pos = pos->next) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, node);
		uint64_t addr = vma->vm_start;

		while (addr < vma->vm_end) {
			uint64_t next = (addr | (PMD_SIZE - 1)) + 1;
			uint8_t *pmd_flags = &vma->pmd_flags[vma_pmd_index(vma, addr)];

			if (next > vma->vm_end)
				next = vma->vm_end;
			sim_cost_cpu_ps(sim_mm->pte_op_ps);	/* pmdp_get_lockless() */
			if (vma->pmd_huge[vma_pmd_index(vma, addr)] || (*pmd_flags & PMD_CLEARED)) {
				addr = next;	/* huge or none: walk_pmd_range_locked(), not modelled */
				continue;
			}
			if (!force_scan) {
				if (!(*pmd_flags & PMD_NONLEAF_YOUNG)) {
					addr = next;
					continue;
				}
				*pmd_flags &= (uint8_t)~PMD_NONLEAF_YOUNG;	/* pmdp_test_and_clear_young() */
				if (!test_bloom_filter(lruvec, seq, vma, addr)) {
					addr = next;
					continue;
				}
			}
			if (walk_pte_range(lruvec, vma, addr, next, gen))
				update_bloom_filter(seq + 1, vma, addr);
			addr = next;
			cond_resched();
		}
	}
	up_read(&mm->mmap_lock);
}

/*
 * iterate_mm_list(): hand the next mm of the memcg to a walker.  Walkers
 * share the iteration: @seq is the max_seq each started from; the one that
 * reaches the end completes it (mm_seq++) and gets true.  *mmp is NULL when
 * this walker has no more to do.
 */
static bool iterate_mm_list(struct lruvec *lruvec, unsigned long seq, struct mm_struct **mmp)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct mm_struct *next = NULL;
	struct list_head *pos;

	*mmp = NULL;
	spin_lock(&lrugen->mm_list_lock);
	if (seq <= lrugen->mm_seq) {
		spin_unlock(&lrugen->mm_list_lock);
		return false;		/* another walker completed it */
	}
	/* the next mm of the memcg after mm_head, by id (the mm_list's fifo order) */
	list_for_each(pos, &sim_mm->mmlist) {
		struct mm_struct *mm = list_entry(pos, struct mm_struct, mmlist);

		if (mm->memcg != lruvec->memcg || mm->id <= lrugen->mm_head)
			continue;
		if (!next || mm->id < next->id)
			next = mm;
	}
	if (!next) {
		lrugen->mm_seq++;
		lrugen->mm_head = -1;
		spin_unlock(&lrugen->mm_list_lock);
		return true;
	}
	if (lrugen->mm_head < 0)	/* a new iteration: a fresh filter for the next */
		reset_bloom_filter(lruvec, seq + 1);
	lrugen->mm_head = next->id;
	*mmp = next;
	spin_unlock(&lrugen->mm_list_lock);
	return false;
}

/* inc_min_seq(): move what is left in the oldest generation to the next; min_seq++. */
static bool inc_min_seq(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int old_gen = lru_gen_from_seq(lrugen->min_seq);
	struct list_head *head = &lrugen->folios[old_gen];
	int remaining = MAX_LRU_BATCH;

	while (!list_empty(head)) {
		struct folio *folio = list_last_entry(head, struct folio, lru_node);
		int new_gen = folio_inc_gen(lruvec, folio, false);

		lru_gen_list_move(lruvec, folio, new_gen, true);
		if (!--remaining)
			return false;
	}
	lrugen->min_seq++;
	return true;
}

/* try_to_inc_min_seq(): skip the empty oldest generations (at least MIN_NR_GENS stay). */
static bool try_to_inc_min_seq(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long min_seq = lrugen->min_seq;

	while (min_seq + MIN_NR_GENS <= lrugen->max_seq &&
	       list_empty(&lrugen->folios[lru_gen_from_seq(min_seq)]))
		min_seq++;
	if (min_seq <= lrugen->min_seq)
		return false;
	lrugen->min_seq = min_seq;
	return true;
}

/* inc_max_seq(): open a new youngest generation. */
static bool inc_max_seq(struct lruvec *lruvec, unsigned long seq)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int prev, next;
	long delta;

restart:
	spin_lock_irq(&lruvec->lru_lock);
	if (seq < lrugen->max_seq) {
		spin_unlock_irq(&lruvec->lru_lock);
		return false;
	}
	if (lrugen->max_seq - lrugen->min_seq + 1 == MAX_NR_GENS && !inc_min_seq(lruvec)) {
		spin_unlock_irq(&lruvec->lru_lock);
		cond_resched();
		goto restart;
	}
	/* the /proc active and inactive sizes: max_seq - 1 turns inactive */
	prev = lru_gen_from_seq(lrugen->max_seq - 1);
	next = lru_gen_from_seq(lrugen->max_seq + 1);
	delta = lrugen->nr_pages[prev] - lrugen->nr_pages[next];
	if (delta) {
		lruvec->nr_pages[LRU_INACTIVE_ANON] += delta;
		lruvec->nr_pages[LRU_ACTIVE_ANON] -= delta;
		sim_line_write(&lruvec->size_line);
	}
	lrugen->max_seq++;
	count_event(SIM_SIM_LRU_GEN_AGING);
	spin_unlock_irq(&lruvec->lru_lock);
	return true;
}

/* try_to_inc_max_seq(): the aging, a page-table walk of the memcg's mms first. */
static bool try_to_inc_max_seq(struct lruvec *lruvec, unsigned long seq)
{
	struct mm_struct *mm;
	bool last;

	if (seq <= lruvec->lrugen.mm_seq)
		return false;
	SIM_TRACE_SCOPE("reclaim", "lru_gen_aging");
	do {
		last = iterate_mm_list(lruvec, seq, &mm);
		/* force_scan for mms new since the last iteration: all, the first time */
		if (mm)
			walk_mm(lruvec, mm, seq, seq == MIN_NR_GENS + 1);
	} while (mm);
	if (!last)
		return false;
	return inc_max_seq(lruvec, seq);
}

/*
 * sort_folio(): a folio of the oldest generation that should not be
 * isolated goes where it belongs.  Return: true if it was moved.
 */
static bool sort_folio(struct lruvec *lruvec, struct folio *folio)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int gen = folio_lru_gen(folio);

	/* promoted: folio_update_gen() moved its counter */
	if (gen != lru_gen_from_seq(lrugen->min_seq)) {
		lru_gen_list_move(lruvec, folio, gen, false);
		return true;
	}
	/* protected by its tier: none without the refault controller (above) */
	/* waiting for writeback */
	if (folio_test(folio, PG_writeback)) {
		gen = folio_inc_gen(lruvec, folio, true);
		lru_gen_list_move(lruvec, folio, gen, false);
		return true;
	}
	return false;
}

/* isolate_folio(): take a folio off the oldest generation for shrink_folio_list(). */
static bool isolate_folio(struct lruvec *lruvec, struct folio *folio)
{
	if (folio->_refcount <= 0)		/* folio_try_get(): raced with a free */
		return false;
	if (!folio_test_clear(folio, PG_lru))	/* raced with another isolation */
		return false;
	folio_get(folio);
	folio_clear(folio, PG_reclaim);		/* for shrink_folio_list() */
	lru_gen_del_folio(lruvec, folio, true);
	folio->place = FOLIO_ISOLATED;
	return true;
}

/*
 * scan_folios(): isolate from the oldest generation's tail.
 * Context: lru_lock held.  Return: folios looked at, 0 if none isolated.
 */
static unsigned long scan_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
				 struct list_head *list)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long sorted = 0, scanned = 0, isolated = 0, skipped = 0;
	unsigned long remaining = nr_to_scan < MAX_LRU_BATCH ? nr_to_scan : MAX_LRU_BATCH;
	struct list_head *head, moved;

	if (lrugen->max_seq - lrugen->min_seq + 1 == MIN_NR_GENS)
		return 0;
	INIT_LIST_HEAD(&moved);
	head = &lrugen->folios[lru_gen_from_seq(lrugen->min_seq)];
	while (!list_empty(head)) {
		struct folio *folio = list_last_entry(head, struct folio, lru_node);
		unsigned long delta = (unsigned long)folio_nr_pages(folio);

		scanned += delta;
		if (sort_folio(lruvec, folio)) {
			sorted += delta;
		} else if (isolate_folio(lruvec, folio)) {
			list_add(&folio->lru_node, list);
			isolated += delta;
		} else {
			list_move(&folio->lru_node, &moved);
			skipped += delta;
		}
		if (!--remaining || (isolated > skipped ? isolated : skipped) >= MIN_LRU_BATCH)
			break;
	}
	while (!list_empty(&moved))		/* list_splice(&moved, head) */
		list_move(moved.prev, head);
	/* cgroup reclaim: pgscan_direct is the memcg's; PGSCAN_ANON is global */
	count_events(SIM_PGSCAN_ANON, isolated);
	count_events(SIM_PGREFILL, sorted);
	return isolated || !remaining ? scanned : 0;
}

/*
 * evict_folios(): isolate a batch, reclaim it, put the rest back; the clean
 * unmapped ones are tried once more.  Return: folios looked at (0: stop).
 */
static unsigned long evict_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
				  struct scan_control *sc)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct list_head list, clean;
	struct reclaim_isolation iso;
	struct reclaim_stat stat;
	unsigned long scanned;
	bool skip_retry = false;

	INIT_LIST_HEAD(&list);
	INIT_LIST_HEAD(&clean);
	reclaim_iso_register(&iso, &list, &clean, NULL, NULL);
	spin_lock_irq(&lruvec->lru_lock);
	scanned = scan_folios(nr_to_scan, lruvec, &list);	/* isolate_folios(): anon */
	scanned += try_to_inc_min_seq(lruvec);
	if (lrugen->min_seq + MIN_NR_GENS > lrugen->max_seq)
		scanned = 0;
	spin_unlock_irq(&lruvec->lru_lock);
	if (list_empty(&list)) {
		reclaim_iso_unregister(&iso);
		return scanned;
	}
retry:
	{
		unsigned int reclaimed;
		struct list_head *pos, *prev;

		SIM_TRACE_SCOPE_ARG("reclaim", "shrink_folio_list", "folios",
				    (int64_t)list_count_nodes(&list));
		reclaimed = shrink_folio_list(&list, sc, &stat);
		sc->nr_reclaimed += reclaimed;
		for (pos = list.prev; pos != &list; pos = prev) {
			struct folio *folio = list_entry(pos, struct folio, lru_node);

			prev = pos->prev;
			/* retry folios that may have missed folio_rotate_reclaimable() */
			if (!skip_retry && !folio_test_active(folio) && !folio_mapped(folio) &&
			    !folio_test(folio, PG_dirty) && !folio_test(folio, PG_writeback)) {
				list_move(&folio->lru_node, &clean);
				continue;
			}
			/* don't add rejected folios to the oldest generation */
			if (lru_gen_folio_seq(lruvec, folio, false) == lrugen->min_seq) {
				folio_clear(folio, PG_referenced);
				folio_set(folio, PG_active);
			}
		}
		move_folios_to_lru(&list);
		count_events(SIM_PGSTEAL_ANON, reclaimed);
	}
	if (!list_empty(&clean)) {
		while (!list_empty(&clean))	/* list_splice_init(&clean, &list) */
			list_move(clean.prev, &list);
		skip_retry = true;
		goto retry;
	}
	reclaim_iso_unregister(&iso);
	return scanned;
}

/*
 * should_run_aging(): with only MIN_NR_GENS generations nothing can be
 * evicted; with MIN_NR_GENS + 1 it is better to age.  *nr_to_scan: the
 * pages in all generations.
 */
static bool should_run_aging(struct lruvec *lruvec, unsigned long max_seq,
			     unsigned long *nr_to_scan)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long seq, size = 0;

	*nr_to_scan = 0;
	if (lrugen->min_seq + MIN_NR_GENS > max_seq)
		return true;
	for (seq = lrugen->min_seq; seq <= max_seq; seq++) {
		long n = lrugen->nr_pages[lru_gen_from_seq(seq)];

		size += n > 0 ? (unsigned long)n : 0;
	}
	*nr_to_scan = size;
	return lrugen->min_seq + MIN_NR_GENS == max_seq;
}

/* get_nr_to_scan(): size >> priority, or age (below DEF_PRIORITY) and stop: -1. */
static long get_nr_to_scan(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long max_seq, nr_to_scan;
	bool success;

	sim_sync();		/* READ_ONCE() of what other CPUs' reclaim writes */
	max_seq = lruvec->lrugen.max_seq;
	success = should_run_aging(lruvec, max_seq, &nr_to_scan);

	if (!success || sc->priority == DEF_PRIORITY)
		return (long)(nr_to_scan >> sc->priority);
	return try_to_inc_max_seq(lruvec, max_seq) ? -1 : 0;
}

/*
 * try_to_shrink_lruvec(): evict until nr_to_scan folios were looked at
 * (memcg reclaim never stops early: should_abort_scan() is for root).
 */
static bool try_to_shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long scanned = 0;
	long nr_to_scan;

	for (;;) {
		unsigned long delta;

		nr_to_scan = get_nr_to_scan(lruvec, sc);
		if (nr_to_scan <= 0)
			break;
		delta = evict_folios((unsigned long)nr_to_scan, lruvec, sc);
		if (!delta)
			break;
		scanned += delta;
		if (scanned >= (unsigned long)nr_to_scan)
			break;
		cond_resched();
	}
	return nr_to_scan < 0;
}

/* lru_gen_shrink_lruvec(): memcg reclaim of one lruvec with MGLRU. */
static void lru_gen_shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	lru_add_drain();
	try_to_shrink_lruvec(lruvec, sc);
}

/*
 * get_scan_count(): how much of each list to scan.  The model has no
 * cost feedback (lru_note_cost()), so SCAN_FRACT splits by swappiness
 * alone (60 anon : 140 file of 200).  An lruvec without page cache is
 * scanned SCAN_ANON, size >> priority (the model's simplification since
 * seed 003, kept so that anon-only runs are unchanged); without swap,
 * SCAN_FILE; at priority 0, SCAN_EQUAL.
 */
#define VM_SWAPPINESS	60	/* vm_swappiness, memory.swappiness's default */

static void get_scan_count(struct lruvec *lruvec, struct scan_control *sc, unsigned long *nr)
{
	long file = lruvec->nr_pages[LRU_INACTIVE_FILE] + lruvec->nr_pages[LRU_ACTIVE_FILE];
	unsigned long ap = VM_SWAPPINESS, fp = 200 - VM_SWAPPINESS;
	int lru;

	for (lru = LRU_INACTIVE_ANON; lru <= LRU_ACTIVE_FILE; lru++) {
		unsigned long scan = (unsigned long)lruvec->nr_pages[lru] >> sc->priority;
		bool is_file = lru >= LRU_INACTIVE_FILE;

		if (!file)				/* SCAN_ANON */
			scan = is_file ? 0 : scan;
		else if (!sim_mm->swap)			/* SCAN_FILE: can_reclaim_anon_pages() */
			scan = is_file ? scan : 0;
		else if (sc->priority)			/* SCAN_FRACT */
			scan = scan * (is_file ? fp : ap) / (ap + fp);
		nr[lru] = scan;				/* SCAN_EQUAL at priority 0 */
	}
}

/* shrink_lruvec(): scan the lists SWAP_CLUSTER_MAX at a time, anon first. */
static void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long nr[LRU_ACTIVE_FILE + 1], nr_reclaimed = 0;
	int i;

	if (sim_mm->lru_gen_enabled) {	/* lru_gen_enabled() && !root_reclaim(sc) */
		lru_gen_shrink_lruvec(lruvec, sc);
		return;
	}

	get_scan_count(lruvec, sc, nr);
	/*
	 * The active anon list is scanned only in a round that another list
	 * starts: the kernel's condition leaves nr[LRU_ACTIVE_ANON] out, and the
	 * anon lists are rebalanced after the loop (the aging below).
	 */
	while (nr[LRU_INACTIVE_ANON] || nr[LRU_INACTIVE_FILE] || nr[LRU_ACTIVE_FILE]) {
		for (i = LRU_INACTIVE_ANON; i <= LRU_ACTIVE_FILE; i++) {	/* for_each_evictable_lru() */
			unsigned long nr_to_scan;

			if (!nr[i])
				continue;
			nr_to_scan = nr[i] < SWAP_CLUSTER_MAX ? nr[i] : SWAP_CLUSTER_MAX;
			nr[i] -= nr_to_scan;
			nr_reclaimed += shrink_list((enum lru_list)i, nr_to_scan, lruvec, sc);
		}
		cond_resched();
		/* cgroup reclaim is not proportional: stop at the target */
		if (nr_reclaimed >= sc->nr_to_reclaim)
			break;
	}
	sc->nr_reclaimed += nr_reclaimed;
	if (sim_mm->swap && inactive_is_low(lruvec))	/* can_age_anon_pages() */
		shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
}

/* shrink_node() -> shrink_node_memcgs() for the one memcg. */
static void shrink_node(struct mem_cgroup *memcg, struct scan_control *sc)
{
	SIM_TRACE_SCOPE("reclaim", "shrink_node");
	int nid;

	for (nid = 0; nid < sim_mm->nr_nodes; nid++) {
		struct lruvec *lruvec = &memcg->lruvec[nid];

		/*
		 * prepare_scan_control(): deactivate a type only when its inactive
		 * list is low, or both in the retry that a pass which skipped
		 * deactivation and reclaimed nothing asks for.
		 */
		sc->may_deactivate_anon = sc->force_deactivate || inactive_is_low(lruvec);
		sc->may_deactivate_file = sc->force_deactivate ||
					  inactive_is_low_lru(lruvec, LRU_INACTIVE_FILE);
		shrink_lruvec(lruvec, sc);
	}
}

/*
 * do_try_to_free_pages(): priorities DEF_PRIORITY down to 0 until the target
 * is met.  A pass that reclaimed nothing after skipping an active list it
 * was not to deactivate is run again from its first priority with
 * deactivation forced (b91ac374346b, "mm: vmscan: enforce inactive:active
 * ratio at the reclaim root", 5.5; the inactive:active decision may be
 * wrong for the pages a restricted reclaim may take).  The kernel's
 * memcg_full_walk retry before it is for a partial walk of a memcg tree;
 * the model's memcg has no children.
 */
static unsigned long do_try_to_free_pages(struct scan_control *sc)
{
	int initial_priority = sc->priority;

retry:
	do {
		sc->nr_scanned = 0;
		shrink_node(sc->target_mem_cgroup, sc);
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
		if (sc->priority < DEF_PRIORITY - 2)
			sc->may_writepage = true;
	} while (--sc->priority >= 0);
	if (sc->nr_reclaimed)
		return sc->nr_reclaimed;
	if (sc->skipped_deactivate) {
		sc->priority = initial_priority;
		sc->force_deactivate = true;
		sc->skipped_deactivate = false;
		goto retry;
	}
	return 0;
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

	long file = 0;
	int nid;

	count_event(SIM_SIM_MEMCG_RECLAIM);
	for (nid = 0; nid < sim_mm->nr_nodes; nid++)
		file += memcg->lruvec[nid].nr_pages[LRU_INACTIVE_FILE] +
			memcg->lruvec[nid].nr_pages[LRU_ACTIVE_FILE];
	if (!sim_mm->swap && !file)
		return 0;	/* can_reclaim_anon_pages() false and no page cache */
	return do_try_to_free_pages(&sc);
}
