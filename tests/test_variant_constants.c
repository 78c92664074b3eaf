// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel constants a variant may set (struct mm_variant, variant.c,
 * docs/kernel.md): their defaults, mm_variant_set()'s refusals, and the
 * folio batch size's effect on lru_lock, with the counts worked out by
 * hand.  One task on a one-CPU test machine (tests/engine_util.h), the
 * model's invariant checks on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "mm/mm.h"
#include "mmsim/scenario.h"

#define NR_PAGES	100

static struct sim_profile prof;
static struct sim_engine *eng;
static struct mm_model *model;

static void setup(const struct mm_variant *v)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = 1, .seed = 1, .check = true };
	char err[128];

	test_profile(&prof, 1, 4, 1);
	eng = sim_engine_create(&o);
	assert_non_null(eng);
	model = mm_model_create(eng, v, 1L << 18, err, sizeof(err));
	assert_non_null(model);
}

static void teardown(void)
{
	mm_model_destroy(model);
	sim_engine_destroy(eng);
}

/* ---- defaults: the modelled kernel's values (docs/kernel.md) -------------- */

static void test_defaults(void **state)
{
	const struct mm_variant v = { .name = "defaults" };
	struct mm_constants c;

	(void)state;
	memset(&c, 0, sizeof(c));	/* padding too, for the comparison below */
	mm_constants_init(&c, &v);
	assert_int_equal(c.pagevec_size, 31);
	assert_int_equal(c.swap_cluster_max, 32);
	assert_int_equal(c.memcg_charge_batch, 64);
	assert_int_equal(c.pcp_batch, 63);
	assert_int_equal(c.pcp_batch_scale_max, 5);
	assert_int_equal(c.min_lru_batch, 64);
	assert_int_equal(c.khugepaged_pmd_progress, 512);
	assert_int_equal(c.max_gather_batch_count, 19);
	assert_int_equal(c.max_nr_folios_per_free, 512);

	/* the model takes them, and the zones' pcps get the batch */
	setup(&v);
	assert_memory_equal(&model->consts, &c, sizeof(c));	/* calloc()ed: padding 0 */
	assert_int_equal(model->zones[0].pcp[0].batch, 63);
	assert_int_equal(MMU_GATHER_MAX, 8 + 19 * 510);
	teardown();
}

/* A variant's pcp_batch is every pcp's batch. */
static void test_pcp_batch(void **state)
{
	const struct mm_variant v = { .name = "pcp", .pcp_batch = 7 };

	(void)state;
	setup(&v);
	assert_int_equal(model->zones[0].pcp[0].batch, 7);
	teardown();
}

/* ---- mm_variant_set(): the integer keys ----------------------------------- */

static void expect_refused(const char *key, const char *value, const char *msg)
{
	struct mm_variant v = { 0 }, zero = { 0 };
	char err[512] = "";

	assert_int_equal(mm_variant_set(&v, key, value, err, sizeof(err)), -1);
	assert_string_equal(err, msg);
	assert_memory_equal(&v, &zero, sizeof(v));	/* nothing half-set */
}

static void test_set(void **state)
{
	struct mm_variant v = { 0 };
	struct mm_constants c;
	char err[512] = "";

	(void)state;
	assert_int_equal(mm_variant_set(&v, "pagevec_size", "15", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "swap_cluster_max", "64", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "memcg_charge_batch", "1", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "pcp_batch", "31", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "pcp_batch_scale_max", "0", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "min_lru_batch", "32", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "khugepaged_pmd_progress", "1", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "max_gather_batch_count", "2", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "max_nr_folios_per_free", "40", err, sizeof(err)), 0);
	mm_constants_init(&c, &v);
	assert_int_equal(c.pagevec_size, 15);
	assert_int_equal(c.swap_cluster_max, 64);
	assert_int_equal(c.memcg_charge_batch, 1);
	assert_int_equal(c.pcp_batch, 31);
	assert_int_equal(c.pcp_batch_scale_max, 0);	/* 0 is a value, not the default */
	assert_int_equal(c.min_lru_batch, 32);
	assert_int_equal(c.khugepaged_pmd_progress, 1);
	assert_int_equal(c.max_gather_batch_count, 2);
	assert_int_equal(c.max_nr_folios_per_free, 40);
	/* the bounds themselves are accepted */
	assert_int_equal(mm_variant_set(&v, "pagevec_size", "63", err, sizeof(err)), 0);
	assert_int_equal(mm_variant_set(&v, "pcp_batch_scale_max", "6", err, sizeof(err)), 0);
	mm_constants_init(&c, &v);
	assert_int_equal(c.pagevec_size, 63);
	assert_int_equal(c.pcp_batch_scale_max, 6);
	/* the bool keys are as before */
	assert_int_equal(mm_variant_set(&v, "batch_dirty_flush", "yes", err, sizeof(err)), 0);
	assert_true(v.batch_dirty_flush);

	expect_refused("pagevec_size", "64", "pagevec_size = 64: expected an integer from 1 to 63");
	expect_refused("pagevec_size", "0", "pagevec_size = 0: expected an integer from 1 to 63");
	expect_refused("pagevec_size", "-1", "pagevec_size = -1: expected an integer from 1 to 63");
	expect_refused("pagevec_size", "+15", "pagevec_size = +15: expected an integer from 1 to 63");
	expect_refused("pagevec_size", "15x", "pagevec_size = 15x: expected an integer from 1 to 63");
	expect_refused("pagevec_size", "", "pagevec_size = : expected an integer from 1 to 63");
	expect_refused("pagevec_size", "99999999999999999999999",
		       "pagevec_size = 99999999999999999999999: expected an integer from 1 to 63");
	expect_refused("pcp_batch_scale_max", "7",
		       "pcp_batch_scale_max = 7: expected an integer from 0 to 6");
	expect_refused("khugepaged_pmd_progress", "513",
		       "khugepaged_pmd_progress = 513: expected an integer from 1 to 512");
	expect_refused("swap_cluster_max", "4097",
		       "swap_cluster_max = 4097: expected an integer from 1 to 4096");
	expect_refused("batch_dirty_flush", "2", "batch_dirty_flush = 2: expected yes or no");
	expect_refused("PAGEVEC_SIZE", "31",
		       "unknown variant setting PAGEVEC_SIZE: expected one of queue_mthp_on_fault "
		       "unqueue_after_lru_unlock batch_dirty_flush khugepaged_move_tail "
		       "khugepaged_skip_lazyfree khugepaged_count_scanned pagevec_size "
		       "swap_cluster_max memcg_charge_batch pcp_batch pcp_batch_scale_max "
		       "min_lru_batch khugepaged_pmd_progress max_gather_batch_count "
		       "max_nr_folios_per_free");
}

/* Every key has a help line. */
static void test_key_names(void **state)
{
	const char *name, *help;
	int i, n = 0;

	(void)state;
	for (i = 0; (name = mm_variant_key_name(i, &help)); i++, n++) {
		assert_non_null(help);
		assert_true(strlen(help) > 0);
	}
	assert_int_equal(n, 15);
	assert_null(mm_variant_key_name(-1, NULL));
}

/* ---- the folio batch size and lru_lock ------------------------------------- */

/*
 * One task maps NR_PAGES (100) small pages, faults each (write), then
 * unmaps them, with PAGEVEC_SIZE = S.  Every folio is on the one lruvec,
 * so each drain of a batch takes lru_lock once.
 *
 *   faults:  folio_add_lru() -> folio_batch_add_and_move(): the CPU's
 *            lru_add batch drains when the S-th folio fills it: the
 *            lock is taken floor(100 / S) times, 100 % S folios wait.
 *   munmap:  zap -> mmu_gather (100 entries, one chunk: < 512) ->
 *            free_pages_and_swap_cache(): lru_add_drain() takes the lock
 *            once if folios wait (100 % S != 0), then folios_put_refs()
 *            per S folios, each batch's first dying LRU folio taking
 *            lru_lock and keeping it: ceil(100 / S).
 *
 *   S    faults   munmap (drain + puts)   total
 *   31     3         1 + 4 = 5               8
 *   15     6         1 + 7 = 8              14
 *    1   100         0 + 100 = 100         200
 *
 * With max_nr_folios_per_free = 40 (S = 31) the gather frees in chunks
 * of 40, 40 and 20 entries, each with its own lru_add_drain() (only the
 * first finds folios) and batches: 1 + (2 + 2 + 1) = 6 at munmap.
 */
static struct mm_struct *mm;
static uint64_t got_fault, got_unmap;

static void fault_unmap_body(void *arg)
{
	struct lock_class_stat *lru;
	uint64_t base, addr, before;

	(void)arg;
	lru = sim_lock_class(eng, "lru_lock");
	mm = mm_alloc(sim_mm->root_memcg);
	base = vm_mmap_anon(mm, NR_PAGES * PAGE_SIZE, false);
	before = lru->acquisitions;
	for (addr = base; addr < base + NR_PAGES * PAGE_SIZE; addr += PAGE_SIZE)
		assert_int_equal(do_user_addr_fault(mm, addr, true), 0);
	got_fault = lru->acquisitions - before;
	before = lru->acquisitions;
	assert_int_equal(vm_munmap(mm, base, NR_PAGES * PAGE_SIZE), 0);
	got_unmap = lru->acquisitions - before;
	mm_free(mm);
	mm = NULL;
}

static void run_fault_unmap(const struct mm_variant *v)
{
	setup(v);
	assert_non_null(sim_task_create(eng, 0, "t", fault_unmap_body, NULL));
	assert_int_equal(sim_engine_run(eng, NULL, 0), 0);
	mm_check_final();
	teardown();
}

static void test_pagevec_size_lru_lock(void **state)
{
	static const struct {
		unsigned int size, fault, unmap;
	} want[] = {
		{ 0, 3, 5 },		/* the default: 31 */
		{ 31, 3, 5 },
		{ 15, 6, 8 },
		{ 1, 100, 100 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct mm_variant v = { .name = "pagevec", .pagevec_size = want[i].size };

		run_fault_unmap(&v);
		assert_int_equal(got_fault, want[i].fault);
		assert_int_equal(got_unmap, want[i].unmap);
	}
}

static void test_max_nr_folios_per_free_lru_lock(void **state)
{
	const struct mm_variant v = { .name = "chunks", .max_nr_folios_per_free = 40 };

	(void)state;
	run_fault_unmap(&v);
	assert_int_equal(got_fault, 3);
	assert_int_equal(got_unmap, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_pcp_batch),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_pagevec_size_lru_lock),
		cmocka_unit_test(test_max_nr_folios_per_free_lru_lock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
