// SPDX-License-Identifier: GPL-2.0-only
/*
 * MGLRU (lru_gen) in reclaim, with answers worked out by hand on the test
 * machine of engine_util.h (4 CPUs on one socket).  vmscan.c is included
 * to reach evict_folios(), inc_max_seq() and try_to_inc_max_seq().
 *
 * A fresh lruvec has max_seq 3 and min_seq 0 (lru_gen_init_lruvec()), so
 * generations 0..3 exist and a new anon folio, marked active by its fault,
 * goes to max_seq - 1 = 2.  One process, its region faulted in by the test
 * task (the reclaimer), which runs the mm, so every flush is local.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "../src/mm/vmscan.c"
#include "mmsim/scenario.h"
#include "reclaim_util.h"

static struct sim_profile prof;
static struct mm_struct *mm;
static uint64_t base;
static const struct mm_variant v_after = { .name = "after", .batch_dirty_flush = true };

static struct sim_engine *new_model(bool lru_gen)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = 4, .seed = 1, .check = true };
	struct sim_engine *e;
	struct mm_model *m;
	char err[128];

	test_profile(&prof, 1, 4, 1);
	prof.mm_fault_entry_ns = 100;
	prof.mm_list_op_ns = 1;
	prof.mm_folio_op_ns = 1;
	prof.mm_pte_op_ns = 1;
	prof.mm_syscall_ns = 10;
	prof.mem_zero_gbps = 10;
	prof.mem_node_write_gbps = 10;
	prof.swap_write_us = 10;
	prof.swap_read_us = 10;
	prof.swap_bandwidth_mbps = 1000;
	e = sim_engine_create(&o);
	assert_non_null(e);
	m = mm_model_create(e, &v_after, 1L << 16, err, sizeof(err));
	assert_non_null(m);
	m->lru_gen_enabled = lru_gen;
	assert_int_equal(swap_device_create(64ULL << 20, false), 0);
	mm = mm_alloc(m->root_memcg);
	return e;
}

static void free_model(struct sim_engine *e)
{
	mm_check_final();
	mm_free(mm);
	mm_model_destroy(sim_mm);
	sim_engine_destroy(e);
}

static void run(bool lru_gen, void (*fn)(void *))
{
	struct sim_engine *e = new_model(lru_gen);

	assert_non_null(sim_task_create(e, 0, "reclaimer", fn, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	free_model(e);
}

static pte_t *pte_of(uint64_t page)
{
	return vma_pte_lookup(find_vma(mm, base), base + page * PAGE_SIZE);
}

static struct folio *folio_of(uint64_t page)
{
	return pte_folio(*pte_of(page));
}

/* Fault in pages [first, last) of the region, then drain this CPU's batch. */
static void fault_in(uint64_t first, uint64_t last)
{
	uint64_t p;

	for (p = first; p < last; p++)
		assert_int_equal(handle_mm_fault(find_vma(mm, base), base + p * PAGE_SIZE, true), 0);
	lru_add_drain();
}

static struct lruvec *lruvec0(void)
{
	return &sim_mm->root_memcg->lruvec[0];
}

static uint64_t counter(enum sim_counter c)
{
	return sim_engine_counters(sim_engine_current)[c];
}

static void setup_region(uint64_t pages)
{
	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, pages * PAGE_SIZE, false);
}

static void teardown_region(uint64_t pages)
{
	vm_munmap(mm, base, pages * PAGE_SIZE);
}

/* ---- placement --------------------------------------------------------------- */

/*
 * A faulted anon folio is active at folio_add_lru() (lru_gen_in_fault()):
 * distance MIN_NR_GENS, seq max_seq + 2 - 2 - 1 = 2, an active generation
 * (max_seq - 1), PG_active cleared on the list.  A swap-cache folio that
 * reclaim puts back unreferenced has distance 0: min_seq.
 */
static void placement_task(void *arg)
{
	struct lruvec *lruvec = lruvec0();
	struct folio *f;

	(void)arg;
	setup_region(4);
	fault_in(0, 1);
	f = folio_of(0);
	assert_int_equal(folio_lru_gen(f), 2);
	assert_false(folio_test_active(f));
	assert_true(folio_test_lru(f));
	assert_int_equal(lruvec->lrugen.nr_pages[2], 1);
	assert_int_equal(lruvec->nr_pages[LRU_ACTIVE_ANON], 1);
	assert_int_equal(lruvec->nr_pages[LRU_INACTIVE_ANON], 0);
	assert_true(list_empty(&lruvec->lists[LRU_INACTIVE_ANON]));
	/* the same folio in the swap cache, inactive, not workingset: min_seq */
	folio_set(f, PG_swapcache);
	assert_int_equal(lru_gen_folio_seq(lruvec, f, false), 0);
	folio_set(f, PG_workingset);
	assert_int_equal(lru_gen_folio_seq(lruvec, f, false), 1);
	folio_clear(f, PG_workingset);
	folio_clear(f, PG_swapcache);
	assert_int_equal(lru_gen_folio_seq(lruvec, f, true), 0);
	teardown_region(4);
	assert_int_equal(lruvec->lrugen.nr_pages[2], 0);
}

static void test_new_anon_folio_placement(void **state)
{
	(void)state;
	run(true, placement_task);
}

/* ---- eviction: the oldest generation first ------------------------------------ */

/*
 * A = pages 0..7 faulted at max_seq 3 (seq 2); inc_max_seq(3): four
 * generations, so inc_min_seq() first (gen 0 empty: min_seq 1), max_seq 4;
 * B = pages 8..15 faulted (seq 3).  Every young bit cleared.  The first
 * evict_folios() finds seq 1 empty: nothing isolated, try_to_inc_min_seq()
 * moves min_seq to 2 (returns 0 + 1).  The second isolates A (8 folios,
 * the oldest) and steals all of it: pgscan 8, pgsteal 8; B stays mapped.
 * Seq 2 is then empty: min_seq 3, and with only MIN_NR_GENS left (3, 4)
 * it returns 0, which tells try_to_shrink_lruvec() to stop (age first).
 */
static void oldest_task(void *arg)
{
	struct scan_control sc = { .nr_to_reclaim = 32, .priority = DEF_PRIORITY,
				   .may_writepage = true };
	struct lruvec *lruvec = lruvec0();
	uint64_t p;

	(void)arg;
	setup_region(16);
	fault_in(0, 8);
	assert_true(inc_max_seq(lruvec, 3));
	assert_int_equal(lruvec->lrugen.max_seq, 4);
	assert_int_equal(lruvec->lrugen.min_seq, 1);
	fault_in(8, 16);
	assert_int_equal(folio_lru_gen(folio_of(0)), 2);
	assert_int_equal(folio_lru_gen(folio_of(8)), 3);
	for (p = 0; p < 16; p++)
		*pte_of(p) &= ~PTE_YOUNG;
	assert_int_equal(evict_folios(64, lruvec, &sc), 1);
	assert_int_equal(lruvec->lrugen.min_seq, 2);
	assert_int_equal(counter(SIM_PGSCAN_ANON), 0);
	assert_int_equal(evict_folios(64, lruvec, &sc), 0);
	assert_int_equal(counter(SIM_PGSCAN_ANON), 8);
	assert_int_equal(counter(SIM_PGSTEAL_ANON), 8);
	for (p = 0; p < 8; p++)
		assert_true(pte_swap(*pte_of(p)));
	for (p = 8; p < 16; p++)
		assert_true(pte_present(*pte_of(p)));
	assert_int_equal(lruvec->lrugen.min_seq, 3);
	teardown_region(16);
}

static void test_eviction_takes_oldest_generation(void **state)
{
	(void)state;
	run(true, oldest_task);
}

/* ---- a young folio is kept; the look-around --------------------------------------- */

/*
 * X, Y, V = pages 0, 1, 2 faulted together (seq 2; the list's tail is page
 * 0), then one inc_max_seq() (min_seq 1 -> 2 by try_to_inc_min_seq()), then
 * Z = page 3 (seq 3).  X's PTE young, Y's not; V's and Z's young from their
 * faults.  evict_folios(2): the two at the tail, X and Y, are isolated
 * (pgscan 2; V stays, so min_seq stays 2; returns 2).  Y is stolen.  X's
 * PTE is young: lru_gen_look_around() clears it and looks at the table's
 * other PTEs: V and Z are young and on the LRU, seen for the first time,
 * so folio_update_gen() sets PG_referenced and clears their young bits,
 * their generations unchanged.  lru_gen_set_refs(X), a first reference:
 * PG_referenced, FOLIOREF_KEEP.  X goes back at distance 1 (anon, not in
 * the swap cache): min_seq + 1 = 3.
 */
static void young_task(void *arg)
{
	struct scan_control sc = { .nr_to_reclaim = 32, .priority = DEF_PRIORITY,
				   .may_writepage = true };
	struct lruvec *lruvec = lruvec0();
	struct reclaim_isolation iso;
	struct folio *x, *v, *z;
	struct list_head list;

	(void)arg;
	setup_region(8);
	fault_in(0, 3);
	assert_true(inc_max_seq(lruvec, 3));
	fault_in(3, 4);
	x = folio_of(0);
	v = folio_of(2);
	z = folio_of(3);
	*pte_of(0) |= PTE_YOUNG;
	*pte_of(1) &= ~PTE_YOUNG;
	assert_true(*pte_of(2) & PTE_YOUNG);
	assert_true(*pte_of(3) & PTE_YOUNG);
	spin_lock_irq(&lruvec->lru_lock);
	try_to_inc_min_seq(lruvec);
	spin_unlock_irq(&lruvec->lru_lock);
	assert_int_equal(lruvec->lrugen.min_seq, 2);
	assert_int_equal(evict_folios(2, lruvec, &sc), 2);
	assert_int_equal(counter(SIM_PGSCAN_ANON), 2);
	assert_int_equal(counter(SIM_PGSTEAL_ANON), 1);
	assert_true(pte_swap(*pte_of(1)));
	assert_true(pte_present(*pte_of(0)));
	assert_false(*pte_of(0) & PTE_YOUNG);
	assert_true(folio_test(x, PG_referenced));
	assert_false(folio_test(x, PG_workingset));
	assert_int_equal(folio_lru_gen(x), 3);
	assert_false(*pte_of(2) & PTE_YOUNG);
	assert_true(folio_test(v, PG_referenced));
	assert_int_equal(folio_lru_gen(v), 2);
	assert_false(*pte_of(3) & PTE_YOUNG);
	assert_true(folio_test(z, PG_referenced));
	assert_int_equal(folio_lru_gen(z), 3);
	/*
	 * X young again and isolated: the second reference sets PG_workingset
	 * and activates it: distance MIN_NR_GENS + 1, max_seq 4 (gen 0).
	 */
	*pte_of(0) |= PTE_YOUNG;
	INIT_LIST_HEAD(&list);
	reclaim_iso_register(&iso, &list, NULL, NULL, NULL);
	spin_lock_irq(&lruvec->lru_lock);
	assert_true(folio_test_clear(x, PG_lru));
	folio_get(x);
	lru_gen_del_folio(lruvec, x, true);
	x->place = FOLIO_ISOLATED;
	list_add(&x->lru_node, &list);
	spin_unlock_irq(&lruvec->lru_lock);
	assert_true(folio_trylock(x));
	assert_int_equal(folio_check_references(x), FOLIOREF_ACTIVATE);
	assert_true(folio_test(x, PG_workingset));
	assert_false(folio_test(x, PG_referenced));
	folio_set(x, PG_active);		/* folio_activate_locked() */
	folio_unlock(x);
	move_folios_to_lru(&list);
	reclaim_iso_unregister(&iso);
	assert_int_equal(folio_lru_gen(x), 0);
	assert_false(folio_test_active(x));
	teardown_region(8);
}

static void test_young_folio_is_kept_and_looked_around(void **state)
{
	(void)state;
	run(true, young_task);
}

/* ---- aging -------------------------------------------------------------------------- */

/*
 * W = page 0 at seq 2, its PTE young from the fault.  try_to_inc_max_seq(3)
 * walks the mm (the first walk is forced: every PTE table): W's young bit
 * cleared, first sight: PG_referenced only; the table (1 young PTE of 4)
 * goes in the filter of seq 4; inc_max_seq(): four generations, gen 0
 * empty, min_seq 1; max_seq 4.  W accessed again (a TLB miss's walk sets
 * the PTE's and the PMD's accessed bits); try_to_inc_max_seq(4): the PMD
 * is young and in the filter, so the walk promotes W to seq 4
 * (PG_workingset, PG_referenced cleared; its counter moves, the folio stays
 * on seq 2's list); inc_max_seq(): four generations (1..4), seq 1 empty:
 * min_seq 2; max_seq 5.  A stale aging (seq 4 again) does nothing.
 * evict_folios(): seq 2's tail is W, promoted: sort_folio() moves it
 * (pgrefill 1, nothing isolated); then seq 2 and seq 3 are empty and
 * min_seq goes to max_seq - 1 = 4.  Then W's PTE young but its PMD not
 * (no walk went through it): the walk of seq 5 skips the table and W stays
 * young; after that the table is in no filter, so even with its PMD young
 * the walk of seq 6 skips it: only a look-around brings it back.
 */
static void aging_task(void *arg)
{
	struct scan_control sc = { .nr_to_reclaim = 32, .priority = DEF_PRIORITY,
				   .may_writepage = true };
	struct lruvec *lruvec = lruvec0();
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct folio *w;

	(void)arg;
	setup_region(4);
	fault_in(0, 1);
	w = folio_of(0);
	assert_true(*pte_of(0) & PTE_YOUNG);
	assert_true(try_to_inc_max_seq(lruvec, 3));
	assert_int_equal(lrugen->max_seq, 4);
	assert_int_equal(lrugen->min_seq, 1);
	assert_false(*pte_of(0) & PTE_YOUNG);
	assert_true(folio_test(w, PG_referenced));
	assert_int_equal(folio_lru_gen(w), 2);
	*pte_of(0) |= PTE_YOUNG;
	find_vma(mm, base)->pmd_flags[0] |= PMD_NONLEAF_YOUNG;
	assert_true(try_to_inc_max_seq(lruvec, 4));
	assert_int_equal(lrugen->max_seq, 5);
	assert_int_equal(lrugen->min_seq, 2);
	assert_int_equal(folio_lru_gen(w), 0);		/* seq 4 */
	assert_true(folio_test(w, PG_workingset));
	assert_false(folio_test(w, PG_referenced));
	assert_int_equal(lrugen->nr_pages[0], 1);
	assert_int_equal(lrugen->nr_pages[2], 0);
	assert_false(try_to_inc_max_seq(lruvec, 4));
	assert_int_equal(lrugen->max_seq, 5);
	assert_int_equal(counter(SIM_SIM_LRU_GEN_AGING), 2);
	assert_int_equal(evict_folios(64, lruvec, &sc), 0);
	assert_int_equal(counter(SIM_PGREFILL), 1);
	assert_int_equal(counter(SIM_PGSCAN_ANON), 0);
	assert_int_equal(lrugen->min_seq, 4);
	assert_true(pte_present(*pte_of(0)));
	*pte_of(0) |= PTE_YOUNG;
	assert_true(try_to_inc_max_seq(lruvec, 5));
	assert_true(*pte_of(0) & PTE_YOUNG);
	find_vma(mm, base)->pmd_flags[0] |= PMD_NONLEAF_YOUNG;
	assert_true(try_to_inc_max_seq(lruvec, 6));
	assert_true(*pte_of(0) & PTE_YOUNG);
	assert_int_equal(lrugen->max_seq, 7);
	assert_int_equal(folio_lru_gen(w), 0);
	teardown_region(4);
}

static void test_aging_increments_max_seq_and_min_seq(void **state)
{
	(void)state;
	run(true, aging_task);
}

/* ---- classic: MGLRU off leaves the two lists as they were --------------------------- */

static void classic_task(void *arg)
{
	struct lruvec *lruvec = lruvec0();
	struct folio *f;
	unsigned int gen;

	(void)arg;
	setup_region(4);
	fault_in(0, 2);
	f = folio_of(0);
	assert_int_equal(folio_lru_gen(f), -1);
	assert_false(folio_test_active(f));
	assert_int_equal(lruvec->nr_pages[LRU_INACTIVE_ANON], 2);
	assert_int_equal(lruvec->nr_folios[LRU_INACTIVE_ANON], 2);
	for (gen = 0; gen < MAX_NR_GENS; gen++) {
		assert_true(list_empty(&lruvec->lrugen.folios[gen]));
		assert_int_equal(lruvec->lrugen.nr_pages[gen], 0);
	}
	teardown_region(4);
}

static void test_classic_unchanged(void **state)
{
	(void)state;
	run(false, classic_task);
}

/* Move pages [first, last) of the region to the active anon list. */
static void make_active(uint64_t first, uint64_t last)
{
	struct lruvec *lruvec = lruvec0();
	unsigned long flags;

	spin_lock_irqsave(&lruvec->lru_lock, flags);
	for (uint64_t p = first; p < last; p++) {
		struct folio *f = folio_of(p);

		lruvec_del_folio(lruvec, f);
		folio_set(f, PG_active);
		lruvec_add_folio(lruvec, f);
	}
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

/*
 * Classic: with the inactive anon list empty and no page cache, a
 * shrink_lruvec() round scans nothing in its loop, even at priority 0 with
 * deactivation allowed (the kernel's loop runs on the inactive anon and
 * the file lists only); the aging after it deactivates one
 * SWAP_CLUSTER_MAX batch, as inactive (0) < active (200).
 */
static void active_only_task(void *arg)
{
	struct scan_control sc = { .nr_to_reclaim = 32, .priority = 0, .may_writepage = true,
				   .may_deactivate_anon = true };
	struct lruvec *lruvec = lruvec0();

	(void)arg;
	setup_region(200);
	fault_in(0, 200);
	make_active(0, 200);
	assert_int_equal(lruvec->nr_pages[LRU_ACTIVE_ANON], 200);
	assert_int_equal(lruvec->nr_pages[LRU_INACTIVE_ANON], 0);
	shrink_lruvec(lruvec, &sc);
	assert_int_equal(counter(SIM_PGSCAN_ANON), 0);
	assert_int_equal(counter(SIM_PGREFILL), 32);
	assert_int_equal(lruvec->nr_pages[LRU_INACTIVE_ANON], 32);
	assert_int_equal(lruvec->nr_pages[LRU_ACTIVE_ANON], 168);
	teardown_region(200);
}

static void test_classic_active_anon_only_by_aging(void **state)
{
	(void)state;
	run(false, active_only_task);
}

/*
 * Classic, the deactivation skipped and then forced: 64 inactive pages
 * (young from their faults) and 32 active ones, so the inactive list is not
 * low.  At priority 0 the loop scans both lists: it keeps the 32 inactive
 * pages it scans (young, first look) and, not to deactivate, skips the
 * active one and says so (sc->skipped_deactivate), with no aging after the
 * loop (64 inactive, 32 active).  The retry that do_try_to_free_pages()
 * runs after such a pass reclaimed nothing forces deactivation: the same
 * round then deactivates the active list's 32 pages in the loop, beside
 * reclaiming 32 inactive pages at their second look (referenced, no longer
 * young), which ends the round (64 inactive, 0 active).
 */
static void forced_deactivation_task(void *arg)
{
	struct lruvec *lruvec = lruvec0();

	(void)arg;
	setup_region(96);
	fault_in(0, 96);
	make_active(64, 96);
	for (int force = 0; force < 2; force++) {
		struct scan_control sc = { .nr_to_reclaim = 32, .priority = 0,
					   .may_writepage = true, .force_deactivate = force };
		uint64_t refill = counter(SIM_PGREFILL);

		shrink_node(sim_mm->root_memcg, &sc);
		assert_int_equal(sc.nr_reclaimed, force ? 32 : 0);
		assert_int_equal(sc.skipped_deactivate, !force);
		assert_int_equal(counter(SIM_PGREFILL) - refill, force ? 32 : 0);
	}
	assert_int_equal(lruvec->nr_pages[LRU_ACTIVE_ANON], 0);
	assert_int_equal(lruvec->nr_pages[LRU_INACTIVE_ANON], 64);
	teardown_region(96);
}

static void test_classic_forced_deactivation(void **state)
{
	(void)state;
	run(false, forced_deactivation_task);
}

/* ---- the scenario, checked ---------------------------------------------------------- */

/*
 * reclaim-tlb with lru=mglru at a small scale, invariant checks on: it
 * ends clean, swaps, ages, and counts pgscan as MGLRU does (isolated
 * folios only, so pgsteal <= pgscan).
 */
static void test_checked_mglru_run(void **state)
{
	struct sim_variant_result r;

	(void)state;
	reclaim_tlb_small_checked("after", 50, "lru", 1, &r);
	assert_true(r.counters[SIM_PSWPOUT] > 0);
	assert_true(r.counters[SIM_SIM_LRU_GEN_AGING] > 0);
	assert_true(r.counters[SIM_PGSTEAL_ANON] <= r.counters[SIM_PGSCAN_ANON]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_anon_folio_placement),
		cmocka_unit_test(test_eviction_takes_oldest_generation),
		cmocka_unit_test(test_young_folio_is_kept_and_looked_around),
		cmocka_unit_test(test_aging_increments_max_seq_and_min_seq),
		cmocka_unit_test(test_classic_unchanged),
		cmocka_unit_test(test_classic_active_anon_only_by_aging),
		cmocka_unit_test(test_classic_forced_deactivation),
		cmocka_unit_test(test_checked_mglru_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
