// SPDX-License-Identifier: GPL-2.0-only
/*
 * The deferred split queue (mm/huge_memory.c, after the 2026 conversion to
 * a list_lru "deferred_split_lru" with one locked sublist per memcg and
 * node).  Mirrors deferred_split_folio(), folio_unqueue_deferred_split()
 * (inline in mm/internal.h) and __folio_unqueue_deferred_split() (here
 * folio_unqueue_deferred_split_raw()), and P1's new
 * folio_batch_unqueue_deferred_split().
 *
 * Which folios are queued: in mainline, PMD-sized THPs at fault (when
 * split_underused_thp) and partially mapped large folios.  The seed's
 * benchmark applies the mTHP shrinker series, which (with max_ptes_none=0)
 * queues every anonymous mTHP at fault; variant field queue_mthp_on_fault
 * says whether it is applied.  Its diff was not available: the model queues
 * at the end of do_anonymous_page(), as map_anon_folio_pmd() does for PMD
 * THPs (docs/fidelity.md).
 *
 * Left out: deferred_split_scan() (the shrinker never runs: no memory
 * pressure in the deferred-split scenario), splitting itself.
 *
 * Lock order: lruvec->lru_lock -> deferred_split_lru sublist lock (only
 * where a caller still holds lru_lock, as in variant `before`).
 */
#include "mm/mm.h"

/**
 * deferred_split_folio - queue a large folio for a later split
 * @folio: an anonymous folio of order >= 2
 * @partially_mapped: it just became partially mapped
 *
 * Context: may hold the PTL; takes the sublist lock with IRQs off.
 */
void deferred_split_folio(struct folio *folio, bool partially_mapped)
{
	struct list_lru_one *l;
	unsigned long flags;
	SIM_TRACE_SCOPE("mm", "deferred_split_folio");

	if (folio_order(folio) <= 1)
		return;
	if (!partially_mapped && !sim_mm->split_underused_thp)
		return;
	if (folio_test(folio, PG_swapcache))
		return;
	l = list_lru_lock_irqsave(&sim_mm->deferred_split_lru, folio->nid, folio->memcg, &flags);
	if (partially_mapped && !folio_test_partially_mapped(folio)) {
		folio_set(folio, PG_partially_mapped);
		if (folio_order(folio) == HPAGE_PMD_ORDER)
			count_event(SIM_THP_DEFERRED_SPLIT_PAGE);
		count_event(SIM_MTHP_SPLIT_DEFERRED);
	}
	if (list_lru_add_locked(&sim_mm->deferred_split_lru, l, &folio->_deferred_list,
				&folio->tail_line))
		count_event(SIM_SIM_DEFERRED_SPLIT_QUEUED);
	list_lru_unlock_irqrestore(l, &flags);
}

/*
 * Take the dying @folio off the locked sublist @l: list_del_init() when it
 * is still queued, and PG_partially_mapped cleared.  Return: whether it was.
 */
static bool deferred_split_del_locked(struct list_lru_one *l, struct folio *folio)
{
	bool unqueued;

	SIM_BUG_ON_FOLIO(folio_ref_count(folio) != 0, folio);
	/* The sublist is the memcg's: this must run before uncharge. */
	SIM_BUG_ON_FOLIO(folio->memcg == NULL, folio);
	unqueued = list_lru_del_locked(&sim_mm->deferred_split_lru, l, &folio->_deferred_list,
				       &folio->tail_line);
	if (unqueued)
		count_event(SIM_SIM_DEFERRED_SPLIT_UNQUEUED);
	folio_clear(folio, PG_partially_mapped);
	return unqueued;
}

/**
 * folio_unqueue_deferred_split_raw - take a queued folio off the queue
 * @folio: a folio with refcount 0 that is still charged to its memcg
 *
 * Context: takes the sublist lock with IRQs off (nested in lru_lock when
 * the caller holds it).
 * Return: whether the folio was queued.
 */
bool folio_unqueue_deferred_split_raw(struct folio *folio)
{
	struct list_lru_one *l;
	unsigned long flags;
	bool unqueued;
	SIM_TRACE_SCOPE("mm", "__folio_unqueue_deferred_split");

	l = list_lru_lock_irqsave(&sim_mm->deferred_split_lru, folio->nid, folio->memcg, &flags);
	unqueued = deferred_split_del_locked(l, folio);
	list_lru_unlock_irqrestore(l, &flags);
	return unqueued;
}

/*
 * The lockless test of folio_unqueue_deferred_split(): may @folio be on a
 * deferred split list?  Safe because nobody can queue a folio with
 * refcount 0.  Costs a read of the tail page's line.
 */
static bool folio_deferred_queued(struct folio *folio)
{
	if (folio_order(folio) <= 1 || !folio_test_large_rmappable(folio))
		return false;
	sim_line_read(&folio->tail_line);
	return !list_empty(&folio->_deferred_list);
}

/**
 * folio_unqueue_deferred_split - unqueue a dying folio if it is queued
 * @folio: a folio whose refcount reached 0
 *
 * Return: whether it was queued.
 */
bool folio_unqueue_deferred_split(struct folio *folio)
{
	if (!folio_deferred_queued(folio))
		return false;
	return folio_unqueue_deferred_split_raw(folio);
}

/**
 * folio_batch_unqueue_deferred_split - unqueue a batch of dying folios
 * @fbatch: folios with refcount 0, still charged
 *
 * P1: called after the lruvec lock is released and before
 * mem_cgroup_uncharge_folios().
 *
 *   CPU A: folios_put_refs()            CPU B: deferred_split_scan()
 *   refcount 1 -> 0                     walks the sublist under its lock
 *   lruvec_del_folio() under lru_lock   folio_try_get() fails (ref 0):
 *   unlock lru_lock                       list_lru_isolate(), drops it
 *   folio_batch_unqueue_deferred_split()
 *     sublist lock; del if still queued
 *   uncharge (memcg still set until here)
 */
void folio_batch_unqueue_deferred_split(struct folio_batch *fbatch)
{
	struct list_lru_one *l = NULL;
	unsigned long flags = 0;
	unsigned int i;

	if (!sim_mm->unqueue_batch_locked) {
		for (i = 0; i < fbatch->nr; i++)
			folio_unqueue_deferred_split(fbatch->folios[i]);
		return;
	}
	/* One lock hold per run of queued folios of one sublist (one memcg per node here). */
	for (i = 0; i < fbatch->nr; i++) {
		struct folio *folio = fbatch->folios[i];

		if (!folio_deferred_queued(folio))
			continue;
		if (l != sim_mm->deferred_split_lru.node[folio->nid]) {
			if (l)
				list_lru_unlock_irqrestore(l, &flags);
			l = list_lru_lock_irqsave(&sim_mm->deferred_split_lru, folio->nid,
						  folio->memcg, &flags);
		}
		deferred_split_del_locked(l, folio);
	}
	if (l)
		list_lru_unlock_irqrestore(l, &flags);
}
