// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's invariants, checked at every scheduling step when the engine
 * runs with checks on (the test build and --check):
 *  - every folio is in exactly one place: free (zone or pcp list), in a
 *    per-CPU LRU batch, on one LRU list, isolated, or private to a task;
 *    the place recorded in the folio matches the structure it was found in
 *    (a folio on an LRU list is in place LRU with PG_lru set, unless a CPU
 *    has just cleared PG_lru to move it and waits for lru_lock: then it is
 *    that CPU's cpu_fbatches.lru_isolating, in place ISOLATED);
 *  - each LRU list's length and pages equal the lruvec's counters;
 *  - the deferred split sublist's nr_items equals its length, and only
 *    live, charged folios of order >= 2 are on it;
 *  - no refcount is negative;
 *  - a folio in an mmu_gather holds at least the references gathered;
 *  - no folio is mapped by more present PTEs and huge PMDs than its
 *    _mapcount counts.
 *  - reclaim (seed 003): every folio isolated by reclaim is on one of the
 *    registered isolation lists or batches (or is the one being worked
 *    on), holds a reference and has PG_lru clear;
 *  - swap: every slot is free or owned by exactly one swap PTE and/or the
 *    swap-cache folio whose id it records; every folio with PG_swapcache
 *    is recorded in its slot; the clusters' counts and inuse_pages equal
 *    the slots in use; each swap PTE's slot is held (SWAP_MAP_COUNT) and
 *    no two PTEs share a slot; mm->swapents equals the mm's swap PTEs.
 *  - the page cache (issue 30): nrpages equals the cached folios, each
 *    with its mapping and index and the cache's reference.
 * mm_check_final() adds the end-of-run state: memcg usage zero, every list
 * and batch empty.  A broken invariant prints the folio and aborts.
 */
#include "mm/mm.h"

static void check_seen(struct folio *f, enum folio_place place, const char *where)
{
	if (f->check_seen == sim_mm->check_epoch) {
		static char why[160];

		snprintf(why, sizeof(why), "folio found in two structures; the second: %s", where);
		dump_folio(f, why);
	}
	f->check_seen = sim_mm->check_epoch;
	if (f->place != place)
		dump_folio(f, where);
}

/* Some CPU has cleared @f's PG_lru and is waiting for lru_lock to move it. */
static bool folio_lru_isolating(const struct folio *f)
{
	int cpu;

	for (cpu = 0; cpu < sim_mm->nr_cpus; cpu++)
		if (sim_mm->fbatches[cpu].lru_isolating == f)
			return true;
	return false;
}

/* A folio on an LRU list: in place LRU with PG_lru, or being isolated without it. */
static void check_lru_folio(struct folio *f)
{
	if (folio_lru_isolating(f)) {
		check_seen(f, FOLIO_ISOLATED, "folio being isolated is not in place ISOLATED");
		SIM_BUG_ON_FOLIO(folio_test_lru(f), f);
	} else {
		check_seen(f, FOLIO_LRU, "folio on an LRU list is not in place LRU");
		SIM_BUG_ON_FOLIO(!folio_test_lru(f), f);
	}
}

/*
 * MGLRU: every folio on an lrugen list is in place LRU (or being isolated),
 * its generation counter is valid, and the generations' page counts are
 * the sums of their folios' (by counter, not by list).
 */
static void check_lru_gen(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	long pages[MAX_NR_GENS] = { 0 }, n = 0, total = 0;
	unsigned int gen;

	SIM_BUG_ON(lrugen->max_seq < lrugen->min_seq + MIN_NR_GENS - 1);
	SIM_BUG_ON(lrugen->max_seq - lrugen->min_seq >= MAX_NR_GENS);
	for (gen = 0; gen < MAX_NR_GENS; gen++) {
		struct list_head *pos;

		list_for_each(pos, &lrugen->folios[gen]) {
			struct folio *f = list_entry(pos, struct folio, lru_node);
			int fgen = folio_lru_gen(f);

			check_lru_folio(f);
			SIM_BUG_ON_FOLIO(fgen < 0, f);
			SIM_BUG_ON_FOLIO(folio_test_active(f), f);
			pages[fgen] += folio_nr_pages(f);
			total += folio_nr_pages(f);
			n++;
		}
	}
	for (gen = 0; gen < MAX_NR_GENS; gen++)
		SIM_BUG_ON(pages[gen] != lrugen->nr_pages[gen]);
	SIM_BUG_ON(n != lruvec->nr_folios[LRU_INACTIVE_ANON]);
	SIM_BUG_ON(total != lruvec->nr_pages[LRU_INACTIVE_ANON] +
			    lruvec->nr_pages[LRU_ACTIVE_ANON]);
}

static void check_lruvec(struct lruvec *lruvec)
{
	int lru;

	if (sim_mm->lru_gen_enabled)
		check_lru_gen(lruvec);

	for (lru = 0; lru < NR_LRU_LISTS; lru++) {
		struct list_head *pos;
		long n = 0, pages = 0;

		/* MGLRU: a disk file's page cache stays on the classic file lists */
		if (sim_mm->lru_gen_enabled && lru != LRU_INACTIVE_FILE && lru != LRU_ACTIVE_FILE)
			continue;
		list_for_each(pos, &lruvec->lists[lru]) {
			struct folio *f = list_entry(pos, struct folio, lru_node);

			check_lru_folio(f);
			SIM_BUG_ON_FOLIO(f->lru != lru, f);
			n++;
			pages += folio_nr_pages(f);
		}
		SIM_BUG_ON(n != lruvec->nr_folios[lru]);
		SIM_BUG_ON(pages != lruvec->nr_pages[lru]);
	}
}

static void check_free_lists(struct zone *zone)
{
	int o, cpu;

	for (o = 0; o < MAX_NR_ORDERS; o++) {
		struct list_head *pos;
		long n = 0;

		list_for_each(pos, &zone->free_list[o]) {
			check_seen(list_entry(pos, struct folio, lru_node), FOLIO_FREE,
				   "folio on a free list is not free");
			n++;
		}
		SIM_BUG_ON(n != zone->nr_free[o]);
	}
	for (cpu = 0; cpu < sim_mm->nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = &zone->pcp[cpu];
		long pages = 0;

		for (o = 0; o < MAX_NR_ORDERS; o++) {
			struct list_head *pos;

			list_for_each(pos, &pcp->lists[o]) {
				check_seen(list_entry(pos, struct folio, lru_node), FOLIO_FREE,
					   "folio on a pcp list is not free");
				pages += 1L << o;
			}
		}
		SIM_BUG_ON(pages != pcp->count);
	}
}

static void check_deferred_split(void)
{
	int nid;

	for (nid = 0; nid < sim_mm->nr_nodes; nid++) {
		struct list_lru_one *l = sim_mm->deferred_split_lru.node[nid];
		struct list_head *pos;
		long n = 0;

		list_for_each(pos, &l->list) {
			struct folio *f = list_entry(pos, struct folio, _deferred_list);

			SIM_BUG_ON_FOLIO(f->order < 2, f);
			SIM_BUG_ON_FOLIO(f->memcg == NULL, f);
			SIM_BUG_ON_FOLIO(f->place == FOLIO_FREE, f);
			n++;
		}
		SIM_BUG_ON(n != l->nr_items);
	}
}

static void check_reclaim_isolation(struct mm_model *m)
{
	struct list_head *pos;

	list_for_each(pos, &m->reclaim_ctxs) {
		struct reclaim_isolation *iso = list_entry(pos, struct reclaim_isolation, node);
		struct list_head *p2;
		unsigned int i;
		int l;

		for (l = 0; l < 3; l++) {
			if (!iso->lists[l])
				continue;
			list_for_each(p2, iso->lists[l]) {
				struct folio *f = list_entry(p2, struct folio, lru_node);

				if (f->place == FOLIO_ISOLATED)
					check_seen(f, FOLIO_ISOLATED, "isolated folio on two lists");
			}
		}
		if (iso->batch)
			for (i = 0; i < iso->batch->nr; i++) {
				struct folio *f = iso->batch->folios[i];

				if (f)
					check_seen(f, FOLIO_ISOLATED, "folio in flush_folios is not isolated");
			}
		if (iso->cur && iso->cur->place == FOLIO_ISOLATED &&
		    iso->cur->check_seen != m->check_epoch)
			check_seen(iso->cur, FOLIO_ISOLATED, "folio being reclaimed");
	}
}

static void check_swap(struct mm_model *m)
{
	struct swap_info_struct *si = m->swap;
	struct list_head *pos;
	uint8_t *pte_seen;
	uint32_t s, inuse = 0;

	if (!si)
		return;
	pte_seen = calloc(si->max, 1);
	if (!pte_seen)
		abort();
	list_for_each(pos, &m->mmlist) {
		struct mm_struct *mm = list_entry(pos, struct mm_struct, mmlist);
		struct list_head *vp;
		long swapents = 0;

		list_for_each(vp, &mm->vmas) {
			struct vm_area_struct *vma = list_entry(vp, struct vm_area_struct, node);
			uint64_t i, n = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;

			for (i = 0; i < n; i++) {
				uint32_t slot;

				if (!pte_swap(vma->ptes[i]))
					continue;
				slot = pte_swp_slot(vma->ptes[i]);
				SIM_BUG_ON(slot >= si->max);
				SIM_BUG_ON(pte_seen[slot]);		/* two PTEs, one slot */
				SIM_BUG_ON(!(si->swap_map[slot] & SWAP_MAP_COUNT));
				pte_seen[slot] = 1;
				swapents++;
			}
		}
		/* a VMA being zapped is detached: its swap PTEs are not walked */
		SIM_BUG_ON(swapents > mm->swapents);
	}
	for (s = 0; s < si->max; s++) {
		uint32_t v = si->swap_map[s];
		uint32_t cache = v & SWAP_MAP_CACHE_MASK;

		if (!v)
			continue;
		inuse++;
		/* a held count needs its PTE, unless a zap of that VMA is under way */
		if (cache) {
			struct folio *f = folio_by_id(cache - 1);

			SIM_BUG_ON_FOLIO(!folio_test(f, PG_swapcache), f);
			SIM_BUG_ON_FOLIO(f->swap != s + 1, f);
			SIM_BUG_ON_FOLIO(f->place == FOLIO_FREE, f);
		}
	}
	SIM_BUG_ON(inuse != si->inuse_pages);
	for (s = 0; s < si->nr_clusters; s++) {
		uint32_t i, n = 0;

		for (i = s * SWAPFILE_CLUSTER; i < (s + 1) * SWAPFILE_CLUSTER; i++)
			n += si->swap_map[i] != 0;
		SIM_BUG_ON(n != si->cluster_info[s].count);
	}
	free(pte_seen);
}

/*
 * The rmap against the page tables: no folio is mapped by more present
 * PTEs and huge PMDs than its _mapcount says.  (It may be mapped by fewer:
 * the kernel adds the rmap before set_ptes() and clears PTEs before it
 * removes the rmap, and a VMA being unmapped is detached first.)
 */
static void check_mapcounts(struct mm_model *m)
{
	uint32_t *maps = calloc(m->nr_folios_alloc ? m->nr_folios_alloc : 1, sizeof(*maps));
	struct list_head *pos;
	uint32_t id;

	if (!maps)
		abort();
	list_for_each(pos, &m->mmlist) {
		struct mm_struct *mm = list_entry(pos, struct mm_struct, mmlist);
		struct list_head *vp;

		list_for_each(vp, &mm->vmas) {
			struct vm_area_struct *vma = list_entry(vp, struct vm_area_struct, node);
			uint64_t i, n = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
			uint64_t pmds = vma_nr_pmds(vma), huge = 0;

			for (i = 0; i < pmds; i++)
				if (vma->pmd_huge[i]) {
					maps[vma->pmd_huge[i]->id]++;
					huge++;
				}
			/* user_access_batch() picks its loop by this count. */
			SIM_BUG_ON(huge != vma->nr_pmd_huge);
			for (i = 0; i < n; i++)
				if (pte_present(vma->ptes[i]))
					maps[vma->ptes[i] >> PTE_ID_SHIFT]++;
		}
	}
	for (id = 0; id < m->nr_folios_alloc; id++) {
		struct folio *f = folio_by_id(id);

		if (maps[id] > (uint32_t)(f->_mapcount > 0 ? f->_mapcount : 0))
			dump_folio(f, "more present PTEs/PMDs map the folio than its _mapcount");
	}
	free(maps);
}

/*
 * The page cache: each file's nrpages equals its cached folios; each
 * cached folio has PG_file, its mapping and index, is not free, and holds
 * at least the cache's reference and one per PTE mapping it.  The node
 * statistics are not negative.
 */
static void check_page_cache(struct mm_model *m)
{
	struct list_head *pos;
	int nid, item;

	list_for_each(pos, &m->files) {
		struct address_space *mapping = list_entry(pos, struct address_space, node);
		unsigned long n = 0;
		uint64_t i;

		for (i = 0; i < mapping->nr_slots; i++) {
			struct folio *f = mapping->i_pages[i];

			if (!f)
				continue;
			n++;
			SIM_BUG_ON_FOLIO(!folio_test(f, PG_file), f);
			SIM_BUG_ON_FOLIO(f->mapping != mapping || i < f->index ||
					 i - f->index >= (uint64_t)folio_nr_pages(f), f);
			SIM_BUG_ON_FOLIO(f->place == FOLIO_FREE, f);
			if (f->_refcount)	/* 0: frozen by reclaim */
				SIM_BUG_ON_FOLIO(f->_refcount < 1 + f->_mapcount, f);
		}
		SIM_BUG_ON(n != mapping->nrpages);
	}
	for (nid = 0; nid < m->nr_nodes; nid++)
		for (item = 0; item < NR_VM_NODE_STAT_ITEMS; item++)
			SIM_BUG_ON(m->node_stat[nid][item] < 0);
}

void mm_check_invariants(void *arg)
{
	struct mm_model *m = arg;
	struct list_head *pos;
	uint32_t id;
	int nid, cpu;

	m->check_epoch++;
	for (nid = 0; nid < m->nr_nodes; nid++) {
		check_lruvec(&m->root_memcg->lruvec[nid]);
		check_free_lists(&m->zones[nid]);
	}
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct folio_batch *fb = &m->fbatches[cpu].lru_add;
		unsigned int i;

		for (i = 0; i < fb->nr; i++)
			check_seen(fb->folios[i], FOLIO_FBATCH, "folio in lru_add batch");
	}
	check_deferred_split();
	check_reclaim_isolation(m);
	check_swap(m);
	check_mapcounts(m);
	check_page_cache(m);
	list_for_each(pos, &m->gathers) {
		struct mmu_gather *tlb = list_entry(pos, struct mmu_gather, node);
		unsigned int i;

		for (i = tlb->nr_freed; i < tlb->nr_folios; i++)
			SIM_BUG_ON_FOLIO(tlb->folios[i]->_refcount < (int)tlb->refs[i],
					 tlb->folios[i]);
	}
	for (id = 0; id < m->nr_folios_alloc; id++) {
		struct folio *f = folio_by_id(id);

		SIM_BUG_ON_FOLIO(f->_refcount < 0, f);
		SIM_BUG_ON_FOLIO(folio_test_lru(f) != (f->place == FOLIO_LRU), f);
		switch (f->place) {
		case FOLIO_FREE:
		case FOLIO_LRU:
		case FOLIO_FBATCH:
			if (f->check_seen != m->check_epoch)
				dump_folio(f, "folio is in no structure of its place");
			break;
		case FOLIO_ISOLATED:
			SIM_BUG_ON_FOLIO(f->_refcount < 1, f);
			break;
		default:
			SIM_BUG_ON_FOLIO(f->_refcount == 0 && f->place != FOLIO_GATHER, f);
			break;
		}
		if (folio_test(f, PG_swapcache)) {
			SIM_BUG_ON_FOLIO(!m->swap || !f->swap, f);
			SIM_BUG_ON_FOLIO((m->swap->swap_map[f->swap - 1] & SWAP_MAP_CACHE_MASK) !=
					 f->id + 1, f);
		}
	}
}

/* drain_all_stock(): give every CPU's cached charge back. */
static void drain_all_stock(void)
{
	int cpu;

	for (cpu = 0; cpu < sim_mm->nr_cpus; cpu++) {
		struct memcg_stock_pcp *stock = &sim_mm->stock[cpu];

		if (stock->cached) {
			stock->cached->memory.usage -= stock->nr_pages;
			stock->nr_pages = 0;
			stock->cached = NULL;
		}
	}
}

/*
 * A folio that only the swap cache still holds: no PTE maps it and no swap
 * PTE needs its slot.  The kernel leaves such a folio where it is when the
 * last unmap cannot take it out of the swap cache (free_swap_cache() finds
 * it locked or under writeback, as reclaim's pageout does); memory pressure
 * or swapoff frees it later.  It may outlive the workload.
 */
static bool folio_swapcache_orphan(const struct mm_model *m, const struct folio *f)
{
	return folio_test(f, PG_swapcache) && f->place == FOLIO_LRU && !folio_mapped(f) &&
	       f->_refcount == (int32_t)folio_nr_pages(f) && m->swap &&
	       !(m->swap->swap_map[f->swap - 1] & SWAP_MAP_COUNT);
}

void mm_check_final(void)
{
	struct mm_model *m = sim_mm;
	long orphan_pages = 0, orphan_folios = 0, lru_folios = 0;
	uint32_t id;
	int nid, lru;

	mm_check_invariants(m);
	drain_all_stock();
	for (id = 0; id < m->nr_folios_alloc; id++) {
		struct folio *f = folio_by_id(id);

		if (f->place == FOLIO_FREE)
			continue;
		SIM_BUG_ON_FOLIO(!folio_swapcache_orphan(m, f), f);
		orphan_folios++;
		orphan_pages += folio_nr_pages(f);
	}
	SIM_BUG_ON(m->root_memcg->memory.usage != orphan_pages);
	for (nid = 0; nid < m->nr_nodes; nid++) {
		for (lru = 0; lru < NR_LRU_LISTS; lru++)
			lru_folios += m->root_memcg->lruvec[nid].nr_folios[lru];
		SIM_BUG_ON(m->deferred_split_lru.node[nid]->nr_items != 0);
	}
	SIM_BUG_ON(lru_folios != orphan_folios);
	SIM_BUG_ON(!list_empty(&m->gathers));
	SIM_BUG_ON(!list_empty(&m->reclaim_ctxs));
	SIM_BUG_ON(m->swap && m->swap->inuse_pages != orphan_pages);
}
