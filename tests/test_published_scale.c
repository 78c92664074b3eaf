// SPDX-License-Identifier: GPL-2.0-only
/*
 * Relations that need the release binary (MMSIM_RELEASE_BIN, which `make
 * test` sets): too slow for the sanitizer build.  Skipped without it.
 *
 * khugepaged-cold at the published scale (issue 5, about 100 s of host time):
 *   both tables: hot2's dTLB misses fall by at least 95%; time falls by
 *   5-10% on the desktop and more in the guest, by less than 15%; the
 *   guest's time before is the desktop's within 5%.
 *
 * khugepaged-cold in the overlap model (mem.overlap = 1) at 16M per
 * task and 15 M measured accesses (about 25 s): the misses fall, time falls,
 * and by far less than in the flat model, because the tasks' loads miss
 * the data caches with or without the collapse.
 *
 * deferred-split at 80 workers and 40 rounds (issue 3, about 10 s): the
 * lruvec lock wait falls at least 2.5-fold (with the memory system and VMA
 * paths of issue 14, the memory directory and the rounds out of step: 7.3x
 * with workers=processes, 8.2x with threads and MADV_DONTNEED; 7.5x at the
 * published 200 rounds, docs/results.md), the deferred split lock carries
 * more wait than the lruvec lock after the change, and queueing costs at
 * least 5% before and less after.  At 10 rounds the transient is
 * the workers' common start: spreading their starts over about one round
 * (start_spread=50ms) made the fall larger than with a common start (3.2x
 * against 2.9x in issue 14; 7.6x against 3.0x before the memory system;
 * 6.7x against 7.5x with the memory directory), and at least threefold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "run_json.h"

static double metric(json_t *doc, const char *variant, const char *key)
{
	json_t *vs = json_object_get(doc, "variants"), *v;
	size_t i;

	json_array_foreach(vs, i, v)
		if (!strcmp(json_string_value(json_object_get(v, "name")), variant))
			return json_number_value(json_object_get(json_object_get(v, "metrics"), key));
	fail_msg("no variant %s", variant);
	return 0;
}


static void test_khugepaged_cold_relations(void **state)
{
	const char *bin = getenv("MMSIM_RELEASE_BIN");
	json_t *all, *desk, *kvm;
	double miss, miss_kvm, dt, dt_kvm;

	if (!bin || !*bin)
		skip();
	all = run_json(bin, "reproduce khugepaged-cold khugepaged-cold-kvm");
	desk = json_array_get(all, 0);
	kvm = json_array_get(all, 1);
	assert_string_equal(json_string_value(json_object_get(desk, "profile")), "desktop");
	assert_string_equal(json_string_value(json_object_get(kvm, "profile")), "desktop-kvm");

	/*
	 * The overlap model, one load per page and a loop of 24 micro-ops per
	 * access (docs/results.md, "khugepaged-cold"): misses fall by 95% or
	 * more in both tables.  The reorder buffer holds 224 / 24 = 9.33
	 * accesses, fewer than the ten fill buffers, so each access's walk
	 * lies on its path: on the desktop (12 + 15 + 263) x 24 / 224 = 31.1
	 * cycles an access before and (6 + 263) x 24 / 224 = 28.8 after, 7%
	 * less; the guest's nested walk (four entries with the PDPTE caches,
	 * docs/tlb.md) is longer, so it saves more, and its time before is
	 * the desktop's within 5% (without the caches the walks bound two
	 * walkers and the collapse cut time by 31%).
	 */
	miss = metric(desk, "after", "dtlb_load_misses") / metric(desk, "before", "dtlb_load_misses");
	miss_kvm = metric(kvm, "after", "dtlb_load_misses") / metric(kvm, "before", "dtlb_load_misses");
	dt = metric(desk, "after", "total_access_time_s") / metric(desk, "before", "total_access_time_s");
	dt_kvm = metric(kvm, "after", "total_access_time_s") /
		 metric(kvm, "before", "total_access_time_s");
	print_message("misses x%.4f, x%.4f (kvm); time x%.3f, x%.3f (kvm)\n", miss, miss_kvm, dt,
		      dt_kvm);
	assert_true(miss <= 0.05);
	assert_true(miss_kvm <= 0.05);
	assert_true(dt > 0.90 && dt < 0.95);
	assert_true(dt_kvm > 0.85 && dt_kvm < dt);
	assert_true(metric(kvm, "before", "total_access_time_s") >=
		    metric(desk, "before", "total_access_time_s"));
	assert_true(metric(kvm, "before", "total_access_time_s") <
		    1.05 * metric(desk, "before", "total_access_time_s"));
	json_decref(all);
}

static void check_deferred_split_40_rounds(const char *bin, const char *args)
{
	json_t *doc = run_json(bin, args);
	double before = metric(doc, "before", "lruvec_lock_wait_s");
	double after = metric(doc, "after", "lruvec_lock_wait_s");

	print_message("%s: lruvec wait %.2f s -> %.2f s (x%.2f), deferred split %.2f s after, "
		      "queueing %.1f%% -> %.1f%%\n", args, before, after, before / after,
		      metric(doc, "after", "deferred_split_lock_wait_s"),
		      metric(doc, "before", "queueing_cost_pct"),
		      metric(doc, "after", "queueing_cost_pct"));
	assert_true(after * 2.5 <= before);
	assert_true(metric(doc, "after", "deferred_split_lock_wait_s") > after);
	assert_true(metric(doc, "before", "queueing_cost_pct") >= 5);
	assert_true(metric(doc, "after", "queueing_cost_pct") <
		    metric(doc, "before", "queueing_cost_pct"));
	json_decref(doc);
}

static void test_deferred_split_40_rounds(void **state)
{
	const char *bin = getenv("MMSIM_RELEASE_BIN");

	if (!bin || !*bin)
		skip();
	check_deferred_split_40_rounds(bin, "run deferred-split --set rounds=40 --set workers=processes");
	check_deferred_split_40_rounds(bin, "run deferred-split --set rounds=40 --set unmap=dontneed "
				       "--set workers=threads");
}

static double lruvec_fall(json_t *doc)
{
	return metric(doc, "before", "lruvec_lock_wait_s") / metric(doc, "after", "lruvec_lock_wait_s");
}

static void test_deferred_split_start_spread(void **state)
{
	const char *bin = getenv("MMSIM_RELEASE_BIN");
	json_t *together, *spread;

	if (!bin || !*bin)
		skip();
	together = run_json(bin, "run deferred-split --set rounds=10 --set workers=processes "
				 "--set round_phase=together");
	spread = run_json(bin, "run deferred-split --set rounds=10 --set workers=processes "
			       "--set round_phase=together --set start_spread=50ms");
	print_message("10 rounds: lruvec wait falls x%.2f (common start), x%.2f (spread)\n",
		      lruvec_fall(together), lruvec_fall(spread));
	/*
	 * Since the merge of issues 14 and 17 (the memory system; every task
	 * starts up to sched.start_jitter_us late), spreading the starts no
	 * longer deepens the fall at 10 rounds (x3.07 spread, x3.14 together
	 * when measured; x6.73 and x7.49 with the memory directory): the
	 * relation "spread > together" was dropped, and docs/results.md says
	 * so.  Both still fall at least threefold.
	 */
	assert_true(lruvec_fall(spread) >= 3);
	assert_true(lruvec_fall(together) >= 3);
	json_decref(together);
	json_decref(spread);
}

/*
 * The overlap model (the default) against the flat one (a speed option):
 * with the flat model time falls with the misses (translation is nearly
 * all of an access's time); with the overlap model each access waits for
 * its DRAM miss with or without a walk, and at this scale the collapses
 * fall inside the window, so time falls a few percent (docs/results.md,
 * "khugepaged-cold").
 */
static void test_khugepaged_overlap(void **state)
{
	const char *bin = getenv("MMSIM_RELEASE_BIN");
	const char *scale = "run khugepaged-cold --set task_size=16M --set pages_to_scan=8192 "
			    "--set first_wake=10ms --set accesses=15000000 --set node_memory=256M "
			    "--set measure_after=0";
	char args[512];
	json_t *flat, *ovl;
	double gain_flat, gain_ovl;

	if (!bin || !*bin)
		skip();
	snprintf(args, sizeof(args), "%s --cost mem.overlap=0", scale);
	flat = run_json(bin, args);
	ovl = run_json(bin, scale);
	gain_flat = 1 - metric(flat, "after", "total_access_time_s") /
			metric(flat, "before", "total_access_time_s");
	gain_ovl = 1 - metric(ovl, "after", "total_access_time_s") /
		       metric(ovl, "before", "total_access_time_s");
	print_message("time falls %.1f%% (flat), %.1f%% (overlap)\n", 100 * gain_flat, 100 * gain_ovl);
	assert_true(metric(ovl, "after", "dtlb_load_misses") <=
		    0.15 * metric(ovl, "before", "dtlb_load_misses"));
	assert_true(gain_flat > 0.5);
	assert_true(gain_ovl > 0 && gain_ovl < 0.1);
	json_decref(flat);
	json_decref(ovl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deferred_split_40_rounds),
		cmocka_unit_test(test_deferred_split_start_spread),
		cmocka_unit_test(test_khugepaged_cold_relations),
		cmocka_unit_test(test_khugepaged_overlap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
