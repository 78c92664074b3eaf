// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmu_gather (mm/mmu_gather.c, include/asm-generic/tlb.h): unmapped folios
 * are gathered, the TLB is flushed, then they are freed.
 * Mirrors tlb_gather_mmu(), __tlb_remove_folio_pages() (two entries for a
 * large folio: the page and NR_PAGES_NEXT), tlb_flush_mmu() ->
 * tlb_flush_mmu_tlbonly() + tlb_batch_pages_flush(), which frees in chunks
 * of at most MAX_NR_FOLIOS_PER_FREE (512) entries through
 * free_pages_and_swap_cache() -> folios_put_refs() every PAGEVEC_SIZE (31)
 * folios.  Capacity: MMU_GATHER_BUNDLE (8) on-stack entries plus
 * MAX_GATHER_BATCH_COUNT (19) batch pages of 510 (MMU_GATHER_MAX).
 * MAX_NR_FOLIOS_PER_FREE and MAX_GATHER_BATCH_COUNT are a variant's
 * settings (mm.h, docs/kernel.md).
 * Left out: RCU table freeing, the page allocation of batch pages.
 */
#include "mm/mm.h"

#define MAX_NR_FOLIOS_PER_FREE	(sim_mm->consts.max_nr_folios_per_free)	/* 512 */

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->start = UINT64_MAX;
	tlb->end = 0;
	tlb->freed_tables = false;
	tlb->nr = 0;
	tlb->nr_folios = 0;
	tlb->nr_freed = 0;
	tlb->cap = 0;
	tlb->folios = NULL;
	tlb->refs = NULL;
	list_add_tail(&tlb->node, &sim_mm->gathers);
}

void tlb_remove_folio_pages(struct mmu_gather *tlb, struct folio *folio, int nr_pages)
{
	if (tlb->nr_folios == tlb->cap) {
		tlb->cap = tlb->cap ? tlb->cap * 2 : 256;
		tlb->folios = realloc(tlb->folios, tlb->cap * sizeof(*tlb->folios));
		tlb->refs = realloc(tlb->refs, tlb->cap * sizeof(*tlb->refs));
		if (!tlb->folios || !tlb->refs)
			abort();
	}
	tlb->folios[tlb->nr_folios] = folio;
	tlb->refs[tlb->nr_folios] = (unsigned int)nr_pages;
	tlb->nr_folios++;
	tlb->nr += folio_test_large(folio) ? 2 : 1;
	sim_cost_cpu_ps(sim_mm->list_op_ps);
}

/* free_pages_and_swap_cache(): drop the gathered references, a folio_batch at a time. */
static void free_pages_and_swap_cache(struct mmu_gather *tlb, unsigned int first,
				      unsigned int nr)
{
	struct folio_batch fb;
	unsigned int brefs[PAGEVEC_SIZE_MAX];
	unsigned int i;
	SIM_TRACE_SCOPE("mm", "free_pages_and_swap_cache");

	lru_add_drain();
	folio_batch_init(&fb);
	for (i = first; i < first + nr; i++) {
		struct folio *folio = tlb->folios[i];

		/* free_swap_cache(): drop an unmapped folio's swap copy */
		if (folio_test(folio, PG_swapcache) && !folio_mapped(folio) &&
		    folio_trylock(folio)) {
			folio_free_swap(folio);
			folio_unlock(folio);
		}
		brefs[fb.nr] = tlb->refs[i];
		if (folio_batch_add(&fb, tlb->folios[i]) == 0) {
			tlb->nr_freed = i + 1;	/* now the batch's, not the gather's */
			folios_put_refs(&fb, brefs);
		}
	}
	if (fb.nr) {
		tlb->nr_freed = first + nr;
		folios_put_refs(&fb, brefs);
	}
}

static void tlb_batch_pages_flush(struct mmu_gather *tlb)
{
	unsigned int i = 0, entries = 0, first = 0;

	while (i < tlb->nr_folios) {
		entries += folio_test_large(tlb->folios[i]) ? 2 : 1;
		i++;
		if (entries >= MAX_NR_FOLIOS_PER_FREE || i == tlb->nr_folios) {
			free_pages_and_swap_cache(tlb, first, i - first);
			first = i;
			entries = 0;
			cond_resched();
		}
	}
	tlb->nr_folios = 0;
	tlb->nr_freed = 0;
	tlb->nr = 0;
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	if (tlb->end > tlb->start || tlb->freed_tables) {
		flush_tlb_mm_range(tlb->mm, tlb->start, tlb->end, tlb->freed_tables);
		tlb->start = UINT64_MAX;
		tlb->end = 0;
	}
	tlb_batch_pages_flush(tlb);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	SIM_TRACE_SCOPE("mm", "tlb_finish_mmu");

	tlb_flush_mmu(tlb);
	list_del_init(&tlb->node);
	free(tlb->folios);
	free(tlb->refs);
	tlb->folios = NULL;
	tlb->refs = NULL;
}
