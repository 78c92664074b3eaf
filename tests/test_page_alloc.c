// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page allocator (src/mm/page_alloc.c): the buddy's split and merge
 * under zone->lock, and pcp->high's auto-tuning, with answers worked out
 * by hand on the test machine of engine_util.h (1 socket x 4 cores here;
 * 1 cycle = 1 ns, a line hit 1 ns, mm.list_op_ns 3 ns).
 *
 * The zone: 2^18 pages (1 GiB), the only node.  Its derived values:
 * min_free_kbytes = sqrt(2^20 KiB x 16) = 4096 KiB, so min = 1024 pages;
 * low and high add max(1024 / 4, 2^18 x 10 / 10000 = 262) = 262 each:
 * low 1286, high 1548.  pcp->high_min = 1286 / 4 CPUs = 321, high_max =
 * 2^18 / 8 / 4 = 8192; batch 63.  The test profile has no L3, so
 * PCPF_FREE_HIGH_BATCH is clear.
 *
 * Costs under zone->lock, one CPU (every line is its own, a hit, 1 ns):
 * a list head looked at 1; del_page_from_free_list() of a block alone on
 * its list: head and tail written (2), its page written (1), a list
 * operation (3) = 6; add_to_free_list() onto an empty list: its page (1),
 * the head (1), a list operation (3) = 5; page_is_buddy() reads the
 * buddy's page (1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "mm/mm.h"
#include "mmsim/scenario.h"

static const struct mm_variant v_plain = { .name = "unqueued" };
static struct sim_profile prof;
static struct sim_engine *eng;
static struct mm_model *model;

static void setup(void)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = 4, .seed = 1, .check = true };
	char err[128];

	test_profile(&prof, 1, 4, 1);
	eng = sim_engine_create(&o);
	assert_non_null(eng);
	model = mm_model_create(eng, &v_plain, 1L << 18, err, sizeof(err));
	assert_non_null(model);
}

static void teardown(void)
{
	mm_model_destroy(model);
	sim_engine_destroy(eng);
}

/* The statistics of the lock class @name, or NULL when nothing took it. */
static const struct lock_class_stat *lock_stat(const char *name)
{
	const struct lock_class_stat *c;

	for (c = sim_lock_classes(eng); c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static const struct lock_class_stat *zone_lock_stat(void)
{
	return lock_stat("zone->lock");
}

/* Everything merged back: one order-10 block at pfn 0 and nothing else free. */
static void assert_zone_whole(struct zone *z)
{
	int o;

	for (o = 0; o < MAX_PAGE_ORDER; o++)
		assert_int_equal(z->free_area[o].nr_free, 0);
	assert_int_equal(z->free_area[10].head, 0);
	assert_int_equal(z->free_pages, 1L << 18);
	assert_true(zone_buddy_check(z));
}

static void run_on_cpu0(void (*fn)(void *))
{
	assert_non_null(sim_task_create(eng, 0, "t", fn, NULL));
	assert_int_equal(sim_engine_run(eng, NULL, 0), 0);
}

static void test_wmarks_and_high(void **state)
{
	struct zone *z;

	(void)state;
	setup();
	z = &model->zones[0];
	assert_int_equal(z->wmark_min, 1024);
	assert_int_equal(z->wmark_low, 1286);
	assert_int_equal(z->wmark_high, 1548);
	assert_int_equal(z->pcp[0].high_min, 321);
	assert_int_equal(z->pcp[0].high_max, 8192);
	assert_int_equal(z->pcp[0].high, 321);
	assert_false(z->pcp[0].flags & PCPF_FREE_HIGH_BATCH);
	teardown();
}

/*
 * The first order-2 allocation refills the pcp: nr_pcp_alloc() raises high
 * by a batch (321 -> 384) and takes 63 >> 2 = 15 blocks.  The first splits
 * the zone's first MAX_PAGE_ORDER block (materialised at pfn 0): it looks
 * at the heads of orders 2..10 (9), takes the block (6) and expands it
 * from order 10 to 2, each upper half onto an empty list (8 x 5 = 40):
 * 55 ns.  The next 14 take the halves back, smallest first: a block found
 * at order 2 costs 1 + 6 = 7; found at order k > 2 it costs (k - 1) heads,
 * 6 to take and (k - 2) x 5 to expand: order 3 13, order 4 19, order 5 25.
 * Blocks 2..15 are found at orders 2,3,2,4,2,3,2,5,2,3,2,4,2,3:
 * 7 x 7 + 4 x 13 + 2 x 19 + 25 = 164.  With the zone's counter line (1):
 * 55 + 164 + 1 = 220 ns of hold.  The pcp gets pfns 0, 4, ..., 56; the
 * folio is pfn 0; order 2 keeps pfn 60 and orders 6..9 their halves.
 */
static struct folio *refill_folio;
static void refill_body(void *arg)
{
	(void)arg;
	refill_folio = folio_alloc_node(2, 0);
}

static void test_refill_splits(void **state)
{
	const struct lock_class_stat *s;
	struct zone *z;
	int o;

	(void)state;
	setup();
	run_on_cpu0(refill_body);
	z = &model->zones[0];
	s = zone_lock_stat();
	assert_non_null(s);
	assert_int_equal(s->acquisitions, 1);
	assert_int_equal(s->hold_total, 220 * SIM_NS);
	assert_non_null(refill_folio);
	assert_int_equal(refill_folio->pfn, 0);
	assert_int_equal(z->pcp[0].count, 14 * 4);
	assert_int_equal(z->pcp[0].high, 384);
	assert_int_equal(z->free_area[2].head, 60);
	assert_int_equal(z->free_area[2].nr_free, 1);
	for (o = 3; o <= 5; o++)
		assert_int_equal(z->free_area[o].nr_free, 0);
	for (o = 6; o <= 9; o++)
		assert_int_equal(z->free_area[o].head, 1U << o);
	assert_int_equal(z->free_area[10].nr_free, 0);
	assert_int_equal(z->free_pages, (1L << 18) - 60);
	assert_true(zone_buddy_check(z));
	teardown();
}

/*
 * An order-4 folio bypasses the pcp (order > PAGE_ALLOC_COSTLY_ORDER).
 * Allocation: heads of orders 4..10 (7), take (6), expand 10 -> 4
 * (6 x 5 = 30): 43 ns.  Free: its buddy at each order 4..9 is the free
 * upper half: read it (1) and take it off its list (6), six times (42);
 * at order 10 the loop ends, and the block goes onto the empty order-10
 * list (5): 47 ns.  The zone is whole again.
 */
static void order4_body(void *arg)
{
	struct folio *f;

	(void)arg;
	f = folio_alloc_node(4, 0);
	assert_non_null(f);
	folio_put(f);
}

static void test_free_merges_buddies(void **state)
{
	const struct lock_class_stat *s;
	struct zone *z;

	(void)state;
	setup();
	run_on_cpu0(order4_body);
	z = &model->zones[0];
	s = zone_lock_stat();
	assert_int_equal(s->acquisitions, 2);
	assert_int_equal(s->hold_total, (43 + 47) * SIM_NS);
	assert_int_equal(s->hold_max, 47 * SIM_NS);
	assert_zone_whole(z);
	teardown();
}

/*
 * pcp->high under the auto-tuning rules, order 2: 17 allocations refill
 * twice (15 blocks each; high 321 -> 384 -> 447), leaving 13 blocks.  The
 * 17 frees that follow, with no allocation between them, raise free_count
 * by 4 each.  free_high needs free_count >= batch + high_min / 2 = 63 +
 * 160 = 223 (v6.16+; v6.7-v6.15 drained at 63, at the 17th free), so the
 * 17th free (free_count 64) drains nothing: 120 pages stay on the pcp.
 * 60 more allocations take the 30 blocks on the pcp and refill for the
 * rest (free_count back to 0: each allocation halves it); their 60 frees
 * then see free_count 4 x (k - 1) at the k-th: the 57th (224) is
 * the first free_high, nr_pcp_high() lowers high by 63 << 5 (to high_min,
 * 321) and the drain frees min(count, 2016) = every page on the pcp.  The
 * 3 frees after it see free_high again and drain their own 4 pages each.
 * Every block merges back: one order-10 block at pfn 0, nothing else.
 */
static void free_high_body(void *arg)
{
	struct folio *f[60];
	uint64_t acq;
	int i;

	(void)arg;
	for (i = 0; i < 17; i++)
		f[i] = folio_alloc_node(2, 0);
	assert_int_equal(sim_mm->zones[0].pcp[0].high, 447);
	assert_int_equal(sim_mm->zones[0].pcp[0].count, 13 * 4);
	for (i = 0; i < 17; i++)
		folio_put(f[i]);
	/* free_count 68 < 223: nothing drained, high unchanged */
	assert_int_equal(zone_lock_stat()->acquisitions, 2);
	assert_int_equal(sim_mm->zones[0].pcp[0].count, 30 * 4);
	assert_int_equal(sim_mm->zones[0].pcp[0].high, 447);
	for (i = 0; i < 60; i++)
		f[i] = folio_alloc_node(2, 0);
	acq = zone_lock_stat()->acquisitions;
	for (i = 0; i < 56; i++)
		folio_put(f[i]);
	assert_int_equal(zone_lock_stat()->acquisitions, acq);
	folio_put(f[56]);
	assert_int_equal(zone_lock_stat()->acquisitions, acq + 1);
	assert_int_equal(sim_mm->zones[0].pcp[0].count, 0);
	assert_int_equal(sim_mm->zones[0].pcp[0].high, 321);
	for (i = 57; i < 60; i++)
		folio_put(f[i]);
	assert_int_equal(zone_lock_stat()->acquisitions, acq + 4);
}

static void test_free_high_drains(void **state)
{
	struct zone *z;

	(void)state;
	setup();
	run_on_cpu0(free_high_body);
	z = &model->zones[0];
	assert_int_equal(z->pcp[0].count, 0);
	assert_int_equal(z->pcp[0].high, 321);
	assert_zone_whole(z);
	teardown();
}

/*
 * Order 0: the refill batch doubles while no free comes between refills
 * (alloc_factor).  First refill: high 321 + 63 = 384, max_nr_alloc =
 * 384 - 0 - 63 = 321 >= 63, so alloc_factor 1, 63 pages.  The 64th
 * allocation refills with 63 << 1 = 126, raising high by that batch
 * (510; max_nr_alloc 510 - 0 - 63 = 447 >= 126), alloc_factor 2.  One free halves it (1) and, free_count 1 < high,
 * drains nothing.
 */
static void order0_body(void *arg)
{
	struct folio *f = NULL;
	int i;

	(void)arg;
	for (i = 0; i < 64; i++)
		f = folio_alloc_node(0, 0);
	assert_int_equal(sim_mm->zones[0].pcp[0].alloc_factor, 2);
	assert_int_equal(sim_mm->zones[0].pcp[0].high, 510);
	assert_int_equal(sim_mm->zones[0].pcp[0].count, 63 + 126 - 64);
	folio_put(f);
	assert_int_equal(sim_mm->zones[0].pcp[0].alloc_factor, 1);
	assert_int_equal(sim_mm->zones[0].pcp[0].count, 63 + 126 - 63);
}

static void test_order0_alloc_factor(void **state)
{
	(void)state;
	setup();
	run_on_cpu0(order0_body);
	assert_int_equal(zone_lock_stat()->acquisitions, 2);
	teardown();
}

/*
 * decay_pcp_high(): after 64 order-0 allocations (125 pages listed, as
 * above), high 1000 falls by an eighth, to max(125 - 2016, 1000 - 125,
 * 321) = 875, and nothing is above it.  With high at a high_min of 100,
 * high stays and the 25 pages above it are drained.
 */
static void decay_body(void *arg)
{
	struct zone *z = &sim_mm->zones[0];
	struct per_cpu_pages *pcp = &z->pcp[0];
	int i;

	(void)arg;
	for (i = 0; i < 64; i++)
		(void)folio_alloc_node(0, 0);
	pcp->high = 1000;
	assert_int_equal(decay_pcp_high(z, pcp), 1);
	assert_int_equal(pcp->high, 875);
	assert_int_equal(pcp->count, 125);
	pcp->high = pcp->high_min = 100;
	assert_int_equal(decay_pcp_high(z, pcp), 1);
	assert_int_equal(pcp->high, 100);
	assert_int_equal(pcp->count, 100);
	assert_int_equal(decay_pcp_high(z, pcp), 0);
}

static void test_decay_pcp_high(void **state)
{
	(void)state;
	setup();
	run_on_cpu0(decay_body);
	assert_true(zone_buddy_check(&model->zones[0]));
	teardown();
}

/*
 * The lru_lock's hold carries mm.lru_add_ns for each folio put on an LRU
 * list and mm.lru_del_ns for each taken off (calibrate measures both on
 * the running kernel): 31 anonymous 4K faults fill the CPU's batch, whose
 * drain adds the 31 under one hold; munmap() frees them under another.
 * The same run with the two costs at 100 and 50 ns holds the lock
 * 31 x 150 ns longer than with both at 0, in the same two acquisitions.
 */
static void lru_hold_body(void *arg)
{
	struct mm_struct *mm = mm_alloc(model->root_memcg);
	uint64_t base, i;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, 31 * PAGE_SIZE, false);
	for (i = 0; i < 31; i++)
		handle_mm_fault(find_vma(mm, base), base + i * PAGE_SIZE, true);
	vm_munmap(mm, base, 31 * PAGE_SIZE);
	mm_free(mm);
}

static const struct lock_class_stat *lru_lock_stat(void)
{
	return lock_stat("lru_lock");
}

static void test_lru_hold_per_folio(void **state)
{
	sim_time_t hold[2];
	uint64_t acq[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		setup();
		model->lru_add_ps = (sim_time_t)(k ? 100 : 0) * SIM_NS;
		model->lru_del_ps = (sim_time_t)(k ? 50 : 0) * SIM_NS;
		run_on_cpu0(lru_hold_body);
		assert_non_null(lru_lock_stat());
		hold[k] = lru_lock_stat()->hold_total;
		acq[k] = lru_lock_stat()->acquisitions;
		teardown();
	}
	assert_int_equal(acq[0], 2);
	assert_int_equal(acq[1], 2);
	assert_int_equal(hold[1] - hold[0], 31 * 150 * (sim_time_t)SIM_NS);
}

/*
 * An unmap's measured parts: munmap() of 31 4K folios with mm.zap_pte_ns
 * 10, mm.rmap_del_ns 20, mm.uncharge_ns 30 and mm.page_free_ns 40 takes
 * 31 x 100 ns longer than with all four at 0: a PTE cleared, a mapping
 * removed, a folio uncharged and one freed for each (the faults before it
 * charge none of them).
 */
static sim_time_t unmap_took;

static void unmap_body(void *arg)
{
	struct mm_struct *mm = mm_alloc(model->root_memcg);
	uint64_t base, i;
	sim_time_t t0;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, 31 * PAGE_SIZE, false);
	for (i = 0; i < 31; i++)
		handle_mm_fault(find_vma(mm, base), base + i * PAGE_SIZE, true);
	t0 = sim_now();
	vm_munmap(mm, base, 31 * PAGE_SIZE);
	unmap_took = sim_now() - t0;
	mm_free(mm);
}

static void test_unmap_parts_per_folio(void **state)
{
	sim_time_t took[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		setup();
		model->zap_pte_ps = (sim_time_t)(k ? 10 : 0) * SIM_NS;
		model->rmap_del_ps = (sim_time_t)(k ? 20 : 0) * SIM_NS;
		model->uncharge_ps = (sim_time_t)(k ? 30 : 0) * SIM_NS;
		model->page_free_ps = (sim_time_t)(k ? 40 : 0) * SIM_NS;
		run_on_cpu0(unmap_body);
		took[k] = unmap_took;
		teardown();
	}
	assert_int_equal(took[1] - took[0], 31 * 100 * (sim_time_t)SIM_NS);
}

/*
 * The zap's mapcount atomic takes each folio's line: munmap() on CPU 0 of
 * 31 4K folios whose lines CPU 1 wrote last (as a thread of the mm on
 * another CPU does when it puts its own folios beside them on the LRU)
 * pays the 31 transfers (50 ns each on the test machine) in
 * folio_remove_rmap_ptes(), outside the lru_lock, and the free batch's
 * hold under it is the same as with every line local
 * (__folio_remove_rmap(): atomic_add_negative() on the first page's
 * _mapcount, in the struct page line that holds _refcount and the LRU
 * links; the model once left the line where it was, and the transfers
 * fell under the lock).
 */
static sim_time_t zap_took;
static bool zap_remote;

static void zap_body(void *arg)
{
	struct mm_struct *mm = mm_alloc(model->root_memcg);
	struct vm_area_struct *vma;
	uint64_t base, i;
	sim_time_t t0;

	(void)arg;
	switch_mm_irqs_off(mm);
	base = vm_mmap_anon(mm, 31 * PAGE_SIZE, false);
	vma = find_vma(mm, base);
	for (i = 0; i < 31; i++)
		handle_mm_fault(vma, base + i * PAGE_SIZE, true);
	lru_add_drain();
	for (i = 0; i < 31 && zap_remote; i++)
		pte_folio(*vma_pte_lookup(vma, base + i * PAGE_SIZE))->line.last_writer = 1;
	t0 = sim_now();
	vm_munmap(mm, base, 31 * PAGE_SIZE);
	zap_took = sim_now() - t0;
	mm_free(mm);
}

static void test_zap_takes_folio_lines(void **state)
{
	sim_time_t hold[2], took[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		setup();
		zap_remote = k;
		run_on_cpu0(zap_body);
		assert_non_null(lru_lock_stat());
		hold[k] = lru_lock_stat()->hold_total;
		took[k] = zap_took;
		teardown();
	}
	assert_int_equal(hold[1], hold[0]);
	assert_int_equal(took[1] - took[0], 31 * 50 * (sim_time_t)SIM_NS);
}

/*
 * The last two references dropped on two CPUs at once: each
 * folio_put_testzero() waits for the folio's line (50 ns from the other
 * CPU, 10 of atomic), and the wait crosses the vCPU's quantum (1000 ns),
 * so the other CPU runs in between.  Exactly one of them may see zero (the
 * model once subtracted before the wait and tested after it: both did).
 */
static struct folio race_folio;
static int race_zero;

static void race_body(void *arg)
{
	sim_cost_ps((sim_time_t)(uintptr_t)arg * SIM_NS);
	if (folio_put_testzero(&race_folio))
		race_zero++;
}

static void test_ref_drop_race(void **state)
{
	(void)state;
	for (uintptr_t d = 960; d <= 1000; d += 5) {
		setup();
		memset(&race_folio, 0, sizeof(race_folio));
		race_folio._refcount = 2;
		race_folio.line.last_writer = 3;	/* neither CPU has it */
		race_zero = 0;
		assert_non_null(sim_task_create(eng, 0, "a", race_body, (void *)d));
		assert_non_null(sim_task_create(eng, 1, "b", race_body, (void *)(d + 3)));
		assert_int_equal(sim_engine_run(eng, NULL, 0), 0);
		assert_int_equal(race_folio._refcount, 0);
		assert_int_equal(race_zero, 1);
		teardown();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_hold_per_folio),
		cmocka_unit_test(test_unmap_parts_per_folio),
		cmocka_unit_test(test_zap_takes_folio_lines),
		cmocka_unit_test(test_ref_drop_race),
		cmocka_unit_test(test_wmarks_and_high),
		cmocka_unit_test(test_refill_splits),
		cmocka_unit_test(test_free_merges_buddies),
		cmocka_unit_test(test_free_high_drains),
		cmocka_unit_test(test_order0_alloc_factor),
		cmocka_unit_test(test_decay_pcp_high),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
