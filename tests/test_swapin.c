// SPDX-License-Identifier: GPL-2.0-only
/*
 * Swap-in of an exclusive folio and the hardware's dirty bit, with answers
 * worked out by hand on a machine of one CPU (engine_util.h's test
 * profile, 1 GHz, with Skylake's [tlb] section and zram as the swap
 * device).  vmscan.c is included to reach shrink_folio_list().
 *
 * do_swap_page() (v6.15) maps an exclusive folio writable even on a read
 * fault, dirty only on a write fault; the first store then sets the dirty
 * bit through the TLB without a fault (Intel SDM vol. 3A 4.8), at the
 * cost of a walk and a locked update of the PTE (src/mm/access.c).
 *
 * Costs of one store in the flat model (P = mem.loads_per_cycle = 2,
 * W = tlb.page_walkers = 2, a unit is 1/(P W) cycle):
 *   L1 hit on a dirty entry:  1/P                 = 0.5 cycle  =  2 units
 *   L1 hit on a clean entry:  1/P + walk/W + atomic
 *                             0.5 + 20/2 + 10     = 20.5 cycles = 82 units
 * (tlb.walk_cycles = 20 for a native 4-level walk, lock.atomic_cycles = 10
 * in the test profile), so at 1 GHz the assist's store takes 20.5 ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "../src/mm/vmscan.c"
#include "mm/access.h"
#include "mm_util.h"

#define NR_PAGES	8

static struct sim_profile prof;
static struct mm_struct *mm;
static uint64_t base;
static const struct mm_variant v_before = { .name = "before" };

/* What the test task saw, checked after the run (cmocka asserts stay outside the engine). */
static struct {
	pte_t pte_after_read;		/* the PTE after a read fault on a swap PTE */
	pte_t pte_after_store;		/* ... and after the first store */
	uint64_t faults_read;		/* pgfault taken by the read */
	uint64_t majfaults_read;	/* pgmajfault taken by the read */
	uint64_t faults_store;		/* pgfault taken by the store */
	uint64_t units_store;		/* flat units of the first store */
	sim_time_t ps_store;		/* its virtual time when charged */
	uint64_t units_again;		/* units of a second store */
	uint64_t assists;		/* the TLB's dirty_assists after the stores */
	uint64_t walks_store;		/* walks (dtlb_load_misses) taken by the store */
	pte_t pte_write_fault;		/* the PTE after a write fault on a swap PTE */
	uint64_t faults_write;		/* pgfault taken by that store */
	uint64_t units_batch;		/* units of a store through the batch loop */
	pte_t pte_batch;		/* the PTE after it */
	bool cached_kept;		/* swap not full: a read keeps the swap copy */
	pte_t pte_cached;		/* the PTE of that swap-cache hit */
	bool cached_freed;		/* swap more than half full: the read drops it */
	pte_t pte_writeback;		/* a cached folio under writeback on zram */
} seen;

static void swapin_profile(void)
{
	test_profile(&prof, 1, 1, 1);
	prof.tlb_l1_4k_entries = 64;
	prof.tlb_l1_4k_ways = 4;
	prof.tlb_l1_2m_entries = 32;
	prof.tlb_l1_2m_ways = 4;
	prof.tlb_stlb_entries = 1536;
	prof.tlb_stlb_ways = 12;
	prof.tlb_stlb_hit_cycles = 12;
	prof.tlb_walk_cycles = 20;
	prof.tlb_walk_dims = 1;
	prof.tlb_page_walkers = 2;
	prof.mem_loads_per_cycle = 2;
	prof.mem_zero_gbps = 10;
	prof.mem_copy_gbps = 10;
	prof.mem_node_write_gbps = 10;
}

static struct sim_engine *new_model(uint64_t swap_bytes)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = 1, .seed = 1, .check = true };
	struct sim_engine *e;
	struct mm_model *m;
	char err[128];

	swapin_profile();
	e = sim_engine_create(&o);
	assert_non_null(e);
	m = mm_model_create(e, &v_before, 1L << 14, err, sizeof(err));
	assert_non_null(m);
	m->mthp_order = 0;
	assert_int_equal(swap_device_create(swap_bytes, true), 0);
	assert_int_equal(mm_tlb_init(e), 0);
	mm = mm_alloc(m->root_memcg);
	memset(&seen, 0, sizeof(seen));
	return e;
}

static void free_model(struct sim_engine *e)
{
	mm_check_final();
	mm_free(mm);
	mm_tlb_destroy(e);
	mm_model_destroy(sim_mm);
	sim_engine_destroy(e);
}

static uint64_t counter(enum sim_counter c)
{
	return sim_engine_counters(sim_engine_current)[c];
}

static pte_t pte_of(uint64_t page)
{
	return *vma_pte_lookup(find_vma(mm, base), base + page * PAGE_SIZE);
}

static struct folio *folio_of(uint64_t page)
{
	return pte_folio(pte_of(page));
}

/* Isolate @folio (page @page of the region) as isolate_lru_folios() would. */
static void isolate(struct folio *folio, struct list_head *list, uint64_t page)
{
	test_isolate_folio(find_vma(mm, base), base + page * PAGE_SIZE, folio, list);
}

/* Reclaim page @page: written to swap, unmapped (its PTE a swap PTE) and freed. */
static void swap_out(uint64_t page)
{
	struct scan_control sc = { .nr_to_reclaim = 1, .priority = DEF_PRIORITY,
				   .may_writepage = true };
	struct reclaim_isolation iso;
	struct reclaim_stat stat;
	struct list_head list;

	INIT_LIST_HEAD(&list);
	lru_add_drain();
	reclaim_iso_register(&iso, &list, NULL, NULL, NULL);
	isolate(folio_of(page), &list, page);
	assert_int_equal(shrink_folio_list(&list, &sc, &stat), 1);
	move_folios_to_lru(&list);
	reclaim_iso_unregister(&iso);
	assert_true(pte_swap(pte_of(page)));
}

/*
 * Unmap page @page into the swap cache and keep the folio there, as when
 * reclaim unmaps a folio it then cannot free: its PTE a swap PTE, the
 * folio cached and back on the LRU.
 */
static struct folio *unmap_to_swap_cache(uint64_t page)
{
	struct reclaim_isolation iso;
	struct list_head list;
	struct folio *f = folio_of(page);

	INIT_LIST_HEAD(&list);
	lru_add_drain();
	reclaim_iso_register(&iso, &list, NULL, NULL, NULL);
	isolate(f, &list, page);
	assert_true(folio_trylock(f));
	assert_true(add_to_swap(f));
	assert_true(try_to_unmap(f, 0));
	folio_unlock(f);
	move_folios_to_lru(&list);
	reclaim_iso_unregister(&iso);
	assert_true(pte_swap(pte_of(page)));
	return f;
}

/* The flat units of one access of @ua, charged at once; *@ps: its virtual time. */
static uint64_t one_access(struct user_access *ua, uint64_t page, bool write, sim_time_t *ps)
{
	uint64_t u0, t0;

	user_access_charge(ua);
	u0 = ua->units_charged;
	t0 = sim_now();
	user_access(ua, base + page * PAGE_SIZE, write);
	user_access_charge(ua);
	if (ps)
		*ps = sim_now() - t0;
	return ua->units_charged - u0;
}

static void dirty_bit_task(void *arg)
{
	struct user_access ua;
	uint64_t f0, m0, w0, page, addr;
	struct tlb *t;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, NR_PAGES * PAGE_SIZE, false);
	user_access_init(&ua, find_vma(mm, base));
	t = ua.mmu.tlb;
	for (page = 0; page < 3; page++)
		user_access(&ua, base + page * PAGE_SIZE, true);	/* first touch: W|D */
	swap_out(0);
	swap_out(1);
	swap_out(2);

	/* A load faults page 0 back in: zram's fresh folio is exclusive. */
	f0 = counter(SIM_PGFAULT);
	m0 = counter(SIM_PGMAJFAULT);
	one_access(&ua, 0, false, NULL);
	seen.faults_read = counter(SIM_PGFAULT) - f0;
	seen.majfaults_read = counter(SIM_PGMAJFAULT) - m0;
	seen.pte_after_read = pte_of(0);

	/* The first store hits the clean L1 entry the load's walk filled. */
	f0 = counter(SIM_PGFAULT);
	w0 = t->stats.walks;
	seen.units_store = one_access(&ua, 0, true, &seen.ps_store);
	seen.faults_store = counter(SIM_PGFAULT) - f0;
	seen.walks_store = t->stats.walks - w0;
	seen.pte_after_store = pte_of(0);
	seen.units_again = one_access(&ua, 0, true, NULL);
	seen.assists = t->stats.dirty_assists;

	/* A store that faults page 1 in maps it dirty at once: one fault, no assist. */
	f0 = counter(SIM_PGFAULT);
	one_access(&ua, 1, true, NULL);
	seen.faults_write = counter(SIM_PGFAULT) - f0;
	seen.pte_write_fault = pte_of(1);

	/* Page 2: read in, then a store through user_access_batch()'s loop. */
	one_access(&ua, 2, false, NULL);
	user_access_charge(&ua);
	w0 = ua.units_charged;
	addr = base + 2 * PAGE_SIZE;
	user_access_batch(&ua, &addr, 1, true);
	user_access_charge(&ua);
	seen.units_batch = ua.units_charged - w0;
	seen.pte_batch = pte_of(2);
	vm_munmap(mm, base, NR_PAGES * PAGE_SIZE);
}

/*
 * Read fault on a swapped-out page of a writable private anon VMA: one
 * fault, major (zram read), the PTE writable, young and clean.  The next
 * store hits the L1 dTLB on that clean entry: no fault, the PTE now
 * dirty, one assist, no walk counted, 82 units (20.5 cycles = 20,500 ps
 * at 1 GHz).  The store after it: an L1 hit on a dirty entry, 2 units.
 */
static void test_read_fault_maps_writable_clean_store_sets_dirty(void **state)
{
	struct sim_engine *e = new_model(64ULL << 20);

	(void)state;
	assert_non_null(sim_task_create(e, 0, "test", dirty_bit_task, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(seen.faults_read, 1);
	assert_int_equal(seen.majfaults_read, 1);
	assert_true(pte_present(seen.pte_after_read));
	assert_true(seen.pte_after_read & PTE_WRITE);
	assert_true(seen.pte_after_read & PTE_YOUNG);
	assert_false(seen.pte_after_read & PTE_DIRTY);
	assert_int_equal(seen.faults_store, 0);
	assert_true(seen.pte_after_store & PTE_DIRTY);
	assert_int_equal(seen.walks_store, 0);
	assert_int_equal(seen.units_store, 82);
	assert_int_equal(seen.ps_store, 20500);
	assert_int_equal(seen.units_again, 2);
	assert_int_equal(seen.assists, 1);
	/* a write fault: dirty and writable at once, no do_wp_page() after it */
	assert_int_equal(seen.faults_write, 1);
	assert_int_equal(seen.pte_write_fault & (PTE_WRITE | PTE_DIRTY), PTE_WRITE | PTE_DIRTY);
	/* the batch loop charges the same assist */
	assert_int_equal(seen.units_batch, 82);
	assert_true(seen.pte_batch & PTE_DIRTY);
	free_model(e);
}

static void swap_cache_task(void *arg)
{
	bool full = arg != NULL;
	struct user_access ua;
	struct folio *f;
	uint64_t page, n = full ? 300 : 2;

	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, 300 * PAGE_SIZE, false);
	user_access_init(&ua, find_vma(mm, base));
	for (page = 0; page < n; page++)
		user_access(&ua, base + page * PAGE_SIZE, true);
	/* full: 299 more slots in use, with the one below 300 of 512 */
	for (page = 1; full && page < n; page++) {
		f = folio_of(page);
		assert_true(folio_trylock(f));
		assert_true(add_to_swap(f));
		folio_unlock(f);
	}
	f = unmap_to_swap_cache(0);
	one_access(&ua, 0, false, NULL);	/* a swap-cache hit */
	seen.pte_cached = pte_of(0);
	if (full)
		seen.cached_freed = !folio_test(f, PG_swapcache);
	else
		seen.cached_kept = folio_test(f, PG_swapcache);
	if (!full) {
		/* A cached folio under writeback on zram (stable writes): not exclusive. */
		f = unmap_to_swap_cache(1);
		folio_set(f, PG_writeback);
		one_access(&ua, 1, false, NULL);
		folio_clear(f, PG_writeback);
		seen.pte_writeback = pte_of(1);
	}
	vm_munmap(mm, base, 300 * PAGE_SIZE);
}

/*
 * should_try_to_free_swap() on a read fault: the swap-cache hit maps the
 * folio writable and clean (its swap PTE exclusive), and keeps its swap
 * copy while swap is at most half full (1 slot of 512 in use); a folio
 * under writeback on zram is mapped read-only.
 */
static void test_swap_cache_read_keeps_copy(void **state)
{
	struct sim_engine *e = new_model(2ULL << 20);	/* 512 slots */

	(void)state;
	assert_non_null(sim_task_create(e, 0, "test", swap_cache_task, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_true(seen.cached_kept);
	assert_int_equal(seen.pte_cached & (PTE_WRITE | PTE_DIRTY), PTE_WRITE);
	assert_true(pte_present(seen.pte_writeback));
	assert_false(seen.pte_writeback & PTE_WRITE);
	free_model(e);
}

/*
 * With 300 of 512 slots in use (more than half: vm_swap_full()), the
 * read fault's swap-cache hit drops the swap copy too.
 */
static void test_swap_cache_read_frees_copy_when_swap_full(void **state)
{
	struct sim_engine *e = new_model(2ULL << 20);

	(void)state;
	assert_non_null(sim_task_create(e, 0, "test", swap_cache_task, (void *)1));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_true(seen.cached_freed);
	assert_int_equal(seen.pte_cached & (PTE_WRITE | PTE_DIRTY), PTE_WRITE);
	free_model(e);
}

/* ---- what the page holds: the zero map and zram's same-filled pages ----------- */

/* What one run saw of its second page (the first warms the paths up). */
struct page_data_seen {
	uint64_t swpout_zero, pswpout, same_pages;	/* after the two swap-outs */
	uint64_t swpin_zero, pswpin, majfaults;	/* after the two read faults */
	sim_time_t out_ps, in_ps;		/* the page's swap-out and read fault */
	uint8_t data_in;			/* enum folio_data after its read fault */
};

static struct page_data_seen pd[3];		/* indexed by enum folio_data */

/*
 * Page 0, stored to, is swapped out and read back first, so that page 1's
 * swap-out and fault meet warm paths (the first allocation of a swap
 * cluster, the first fault's lines) whatever it holds: @arg's enum
 * folio_data, left by a read fault (zero), a store (mixed) or a store and
 * a workload's word (same).
 */
static void page_data_task(void *arg)
{
	enum folio_data data = (enum folio_data)(uintptr_t)arg;
	struct page_data_seen *o = &pd[data];
	struct vm_area_struct *vma;
	sim_time_t t0;

	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, 2 * PAGE_SIZE, false);
	vma = find_vma(mm, base);
	assert_int_equal(handle_mm_fault(vma, base, true), 0);
	assert_int_equal(handle_mm_fault(vma, base + PAGE_SIZE, data != FOLIO_DATA_ZERO), 0);
	if (data == FOLIO_DATA_SAME)
		folio_of(1)->data = FOLIO_DATA_SAME;	/* a workload's memset(0xff) */
	swap_out(0);
	t0 = sim_now();
	swap_out(1);
	o->out_ps = sim_now() - t0;
	o->swpout_zero = counter(SIM_SWPOUT_ZERO);
	o->pswpout = counter(SIM_PSWPOUT);
	o->same_pages = counter(SIM_ZRAM_SAME_WRITES);
	assert_int_equal(handle_mm_fault(vma, base, false), 0);
	t0 = sim_now();
	assert_int_equal(handle_mm_fault(vma, base + PAGE_SIZE, false), 0);
	o->in_ps = sim_now() - t0;
	o->data_in = folio_of(1)->data;
	o->swpin_zero = counter(SIM_SWPIN_ZERO);
	o->pswpin = counter(SIM_PSWPIN);
	o->majfaults = counter(SIM_PGMAJFAULT);
	vm_munmap(mm, base, 2 * PAGE_SIZE);
}

/*
 * A page on zram, by hand (1 GHz; mem.zero_gbps = mem.copy_gbps = node
 * writes = 10 GB/s; the test profile's node reads and stream rate
 * unbounded; zram 780 MB/s compression, 4,970 MB/s decompression at this
 * clock), in three runs:
 *   all zero: swap_writeout() finds it zero and only marks the slot
 *     (swpout_zero, no pswpout); its read fault fills zeros (swpin_zero,
 *     no pswpin).
 *   stored to (mixed): compressed and decompressed.
 *   one non-zero word: zram keeps the word (ZRAM_SAME, counted in
 *     sim_zram_same_pages) and fills the page with it on the read.
 * The whole-page check (is_folio_zero_filled(), page_same_filled()) is
 * 512 loads at 2 per cycle: 256 ns; a fill, 4,096 B at 10 GB/s:
 * 409.6 ns; compression 4,096 B / 780 B/us = 5,251,282 ps; decompression
 * 4,096 / 4,970 = 824,144 ps (longer than its 409.6 ns of writes).  So,
 * every other cost being the same: swap-out mixed - same = 5,251,282 -
 * 256,000 = 4,995,282 ps, same - zero = the 8 ns of folio_end_writeback()
 * (mm.folio_op_ns) that the zero map does not reach; read fault mixed -
 * zero = 824,144 - 409,600 = 414,544 ps, same = zero.  Every read is a
 * major fault.
 */
static void test_swap_zero_map_and_zram_same_pages(void **state)
{
	const struct page_data_seen *z = &pd[FOLIO_DATA_ZERO], *m = &pd[FOLIO_DATA_MIXED],
				    *s = &pd[FOLIO_DATA_SAME];
	struct sim_engine *e;
	uintptr_t d;

	(void)state;
	for (d = FOLIO_DATA_MIXED; d <= FOLIO_DATA_SAME; d++) {
		e = new_model(64ULL << 20);
		assert_non_null(sim_task_create(e, 0, "test", page_data_task, (void *)d));
		assert_int_equal(sim_engine_run(e, NULL, 0), 0);
		free_model(e);
	}
	assert_int_equal(z->swpout_zero, 1);
	assert_int_equal(z->pswpout, 1);
	assert_int_equal(z->swpin_zero, 1);
	assert_int_equal(z->pswpin, 1);
	assert_int_equal(m->swpout_zero + m->swpin_zero + m->same_pages, 0);
	assert_int_equal(m->pswpout, 2);
	assert_int_equal(m->pswpin, 2);
	assert_int_equal(s->same_pages, 1);
	assert_int_equal(s->pswpout, 2);
	assert_int_equal(s->swpout_zero, 0);
	assert_int_equal(z->majfaults + m->majfaults + s->majfaults, 6);
	assert_int_equal(z->data_in, FOLIO_DATA_ZERO);
	assert_int_equal(m->data_in, FOLIO_DATA_MIXED);
	assert_int_equal(s->data_in, FOLIO_DATA_SAME);
	assert_int_equal(m->out_ps - s->out_ps, 4995282);
	assert_int_equal(s->out_ps - z->out_ps, 8000);
	assert_int_equal(m->in_ps - z->in_ps, 414544);
	assert_int_equal(s->in_ps, z->in_ps);
}

/* The set of clean TLB keys: insertions, removals across probe runs, growth. */
static void test_tlb_clean_set(void **state)
{
	struct tlb_clean c = { 0 };
	uint64_t k;

	(void)state;
	for (k = 1; k <= 1000; k++)
		tlb_clean_insert(&c, k << 18 | TLB_KEY_VALID);
	tlb_clean_insert(&c, 5ULL << 18 | TLB_KEY_VALID);	/* twice: held once */
	assert_int_equal(c.nr, 1000);
	assert_true(2 * c.nr <= c.mask + 1);
	for (k = 1; k <= 1000; k += 2)
		assert_true(tlb_clean_remove(&c, k << 18 | TLB_KEY_VALID));
	assert_false(tlb_clean_remove(&c, 1ULL << 18 | TLB_KEY_VALID));
	assert_int_equal(c.nr, 500);
	for (k = 1; k <= 1000; k++)
		assert_int_equal(tlb_clean_has(&c, k << 18 | TLB_KEY_VALID), !(k & 1));
	free(c.keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlb_clean_set),
		cmocka_unit_test(test_read_fault_maps_writable_clean_store_sets_dirty),
		cmocka_unit_test(test_swap_cache_read_keeps_copy),
		cmocka_unit_test(test_swap_cache_read_frees_copy_when_swap_full),
		cmocka_unit_test(test_swap_zero_map_and_zram_same_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
