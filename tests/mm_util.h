/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers for tests that drive the mm model by hand.  Include after
 * cmocka.h and the mm headers (the tests that use it include
 * src/mm/vmscan.c to reach shrink_folio_list()).
 */
#ifndef MMSIM_TEST_MM_UTIL_H
#define MMSIM_TEST_MM_UTIL_H

/*
 * Isolate @folio, mapped at @addr in @vma, from its LRU as
 * isolate_lru_folios() would, after clearing its PTE's young bit; it goes
 * to the head of @list, so the last added is processed last.
 */
static inline void test_isolate_folio(struct vm_area_struct *vma, uint64_t addr,
				      struct folio *folio, struct list_head *list)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	*vma_pte_lookup(vma, addr) &= ~PTE_YOUNG;
	spin_lock_irq(&lruvec->lru_lock);
	assert_true(folio_test_lru(folio));
	folio_get(folio);
	folio_clear(folio, PG_lru);
	lruvec_del_folio(lruvec, folio);
	folio->place = FOLIO_ISOLATED;
	spin_unlock_irq(&lruvec->lru_lock);
	list_add(&folio->lru_node, list);
}
#endif
