// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reclaim (mm/vmscan.c).  For now: move_folios_to_lru(), the putback of
 * isolated folios, in the refactored form of the 2025 LRU-reparenting
 * series (the caller holds no lock; lru_lock is relocked per folio and
 * kept while the lruvec does not change).  P1 changes it: variant `before`
 * unqueues a dying folio from the deferred split queue under lru_lock,
 * variant `after` unqueues the free batch after the unlock and before
 * uncharge, at both places where the batch is freed.
 *
 * Lock order: lruvec->lru_lock -> deferred_split_lru sublist (before only).
 */
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
		sim_cost_ps(sim_mm->list_op_ps);
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
