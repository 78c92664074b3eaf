// SPDX-License-Identifier: GPL-2.0-only
/*
 * Same version, same options, same seed: the same JSON, apart from the
 * "host" object.  Runs the mmsim binary of this build twice per case; when
 * MMSIM_RELEASE_BIN names the release build (the assembly context backend,
 * -O2, no sanitizers), its JSON must be identical too, as SimGrid checks
 * that each of its context backends gives identical results.
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

/* The run's JSON without its "host" object, the one part that may differ. */
static json_t *run_json_no_host(const char *bin, const char *args)
{
	json_t *doc = run_json(bin, args);

	assert_non_null(json_object_get(doc, "host"));
	json_object_del(doc, "host");
	return doc;
}

static void check_same(const char *args)
{
	const char *release = getenv("MMSIM_RELEASE_BIN");
	json_t *a = run_json_no_host(MMSIM_BIN, args);
	json_t *b = run_json_no_host(MMSIM_BIN, args);

	assert_true(json_equal(a, b));
	if (release && *release) {
		json_t *c = run_json_no_host(release, args);

		assert_true(json_equal(a, c));
		json_decref(c);
	}
	json_decref(a);
	json_decref(b);
}

static void test_spinlock_twice(void **state)
{
	check_same("run spinlock --set cpus=16 --set iterations=2000 --seed 7");
}

static void test_deferred_split_twice(void **state)
{
	check_same("run deferred-split --set threads=8 --set rounds=2 --set region=1M");
}

/*
 * Variants run in parallel processes print what a sequential run prints:
 * three variants on three processes, and on two, where the third run
 * starts when either of the first two finishes.
 */
static void test_jobs_do_not_matter(void **state)
{
	const char *args = "run deferred-split --set threads=4 --set rounds=2 --set region=512K";
	char a1[256], a2[256], a3[256];
	json_t *x, *y, *z;

	snprintf(a1, sizeof(a1), "%s --jobs 1", args);
	snprintf(a2, sizeof(a2), "%s --jobs 2", args);
	snprintf(a3, sizeof(a3), "%s --jobs 3", args);
	x = run_json_no_host(MMSIM_BIN, a1);
	y = run_json_no_host(MMSIM_BIN, a3);
	z = run_json_no_host(MMSIM_BIN, a2);
	assert_true(json_equal(x, y));
	assert_true(json_equal(x, z));
	json_decref(x);
	json_decref(y);
	json_decref(z);
}

/*
 * Run @args with --jobs 1 and --jobs 2: the two JSON must be equal and
 * hold both variants.  Return the JSON (the caller checks its counters
 * and frees it).
 */
static json_t *same_across_jobs(const char *args)
{
	char a1[512], a2[512];
	json_t *x, *y, *vars;

	snprintf(a1, sizeof(a1), "%s --jobs 1", args);
	snprintf(a2, sizeof(a2), "%s --jobs 2", args);
	x = run_json_no_host(MMSIM_BIN, a1);
	y = run_json_no_host(MMSIM_BIN, a2);
	assert_true(json_equal(x, y));
	json_decref(y);
	vars = json_object_get(x, "variants");
	assert_int_equal(json_array_size(vars), 2);
	return x;
}

/* The counters of variant @i of a run's JSON. */
static json_t *variant_counters(json_t *doc, size_t i)
{
	return json_object_get(json_array_get(json_object_get(doc, "variants"), i), "counters");
}

/* Counter @name of variant @i of a JSON document. */
static json_int_t counter(json_t *doc, size_t i, const char *name)
{
	return json_integer_value(json_object_get(variant_counters(doc, i), name));
}

/*
 * With tasks that move: 20 reclaim-tlb workers on 16 CPUs, swapping to
 * the ssd, so workers sleep and idle CPUs pull the queued ones.  The runs
 * must migrate tasks (nr_migrations > 0 in both variants) and give the
 * same JSON whether the variants run in one process or two.
 */
static void test_jobs_do_not_matter_with_migration(void **state)
{
	const char *args = "run reclaim-tlb --set workers=20 --set vm_bytes=40M "
			   "--set memcg_limit=8M --set swap=64M --set duration=10ms "
			   "--set swap_device=ssd";
	json_t *doc = same_across_jobs(args);
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++)
		assert_true(counter(doc, i, "nr_migrations") > 0);
	json_decref(doc);
}

/*
 * With stress-ng's start (start=fork, the default): the main process forks
 * 20 instances and each forks its worker, all placed by
 * sched_balance_find_dst_cpu(), on 16 CPUs with zram; the tick balancer
 * and the wake-up and newly-idle paths move them.  40 forks and some
 * migrations in both variants, the same JSON in one process or two.
 */
static void test_jobs_do_not_matter_with_fork(void **state)
{
	const char *args = "run reclaim-tlb --set workers=20 --set vm_bytes=40M "
			   "--set memcg_limit=8M --set swap=64M --set duration=10ms "
			   "--set start=fork";
	json_t *doc = same_across_jobs(args);
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(counter(doc, i, "nr_forks"), 40);
		assert_true(counter(doc, i, "nr_migrations") > 0);
	}
	json_decref(doc);
}

/* Another seed must not be ignored: the header records it. */
static void test_seed_recorded(void **state)
{
	json_t *a = run_json_no_host(MMSIM_BIN, "run spinlock --set cpus=4 --set iterations=100 --seed 3");

	assert_int_equal(json_integer_value(json_object_get(a, "seed")), 3);
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spinlock_twice),
		cmocka_unit_test(test_deferred_split_twice),
		cmocka_unit_test(test_jobs_do_not_matter),
		cmocka_unit_test(test_jobs_do_not_matter_with_migration),
		cmocka_unit_test(test_jobs_do_not_matter_with_fork),
		cmocka_unit_test(test_seed_recorded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
