// SPDX-License-Identifier: GPL-2.0-only
/*
 * Anonymous reverse mapping (mm/rmap.c), reduced to what the scenarios
 * use: a folio of a private anonymous mapping is mapped by one mm, so the
 * rmap is (folio->mm, folio->index) and the mapcount.
 * Mirrors folio_add_new_anon_rmap(), folio_remove_rmap_ptes() and
 * folio_remove_rmap_pmd(); a large
 * anon folio that stays partly mapped is queued for deferred split, as
 * __folio_remove_rmap() does.
 * Left out: anon_vma trees and forks (no sharing), per-page mapcounts.
 */
#include "mm/mm.h"

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, uint64_t addr)
{
	folio->mm = vma->vm_mm;
	folio->index = addr >> PAGE_SHIFT;
	folio->_mapcount = (int32_t)folio_nr_pages(folio);
	folio_set(folio, PG_swapbacked);
	sim_cost_ps(sim_mm->folio_op_ps);
}

/**
 * folio_remove_rmap_ptes - @nr PTEs that mapped @folio were cleared
 * @folio: the folio
 * @nr: pages unmapped
 * @vma: the VMA they were in
 *
 * Context: PTL held.
 */
void folio_remove_rmap_ptes(struct folio *folio, int nr, struct vm_area_struct *vma)
{
	(void)vma;
	folio->_mapcount -= nr;
	SIM_BUG_ON_FOLIO(folio->_mapcount < 0, folio);
	sim_cost_ps(sim_mm->folio_op_ps);
	if (folio_test_large(folio) && folio->_mapcount > 0 &&
	    folio_test(folio, PG_swapbacked))
		deferred_split_folio(folio, true);
}

/**
 * folio_remove_rmap_pmd - the PMD that mapped a PMD-sized @folio was cleared
 * @folio: the folio
 * @vma: the VMA it was in
 *
 * A PMD mapping counts once in _mapcount (the kernel's entire mapcount).
 * Context: the PMD's lock held.
 */
void folio_remove_rmap_pmd(struct folio *folio, struct vm_area_struct *vma)
{
	(void)vma;
	folio->_mapcount -= 1;
	SIM_BUG_ON_FOLIO(folio->_mapcount < 0, folio);
	sim_cost_ps(sim_mm->folio_op_ps);
}
