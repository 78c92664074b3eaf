// SPDX-License-Identifier: GPL-2.0-only
/*
 * The khugepaged-cold relations of issue 5 at the published scale, run with
 * the release binary (MMSIM_RELEASE_BIN, which `make test` sets): about 90 s
 * of host time, too slow for the sanitizer build.  Skipped without it.
 *   desktop: hot2's dTLB misses fall by at least 95%, cycles per access by
 *   40 to 75%, throughput rises and total access time falls;
 *   KVM: the relative gain in cycles per access is larger than the desktop's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

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
	char cmd[1024];
	json_error_t jerr;
	json_t *all, *desk, *kvm;
	double miss, cyc, cyc_kvm;
	FILE *p;

	if (!bin || !*bin)
		skip();
	snprintf(cmd, sizeof(cmd),
		 "%s reproduce khugepaged-cold khugepaged-cold-kvm --json - 2>/dev/null", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	all = json_loadf(p, 0, &jerr);
	assert_int_equal(pclose(p), 0);
	assert_non_null(all);
	desk = json_array_get(all, 0);
	kvm = json_array_get(all, 1);
	assert_string_equal(json_string_value(json_object_get(desk, "profile")), "desktop");
	assert_string_equal(json_string_value(json_object_get(kvm, "profile")), "desktop-kvm");

	miss = metric(desk, "after", "dtlb_load_misses") / metric(desk, "before", "dtlb_load_misses");
	cyc = metric(desk, "after", "cycles_per_access") / metric(desk, "before", "cycles_per_access");
	cyc_kvm = metric(kvm, "after", "cycles_per_access") / metric(kvm, "before", "cycles_per_access");
	print_message("misses x%.4f, cycles x%.3f, kvm cycles x%.3f\n", miss, cyc, cyc_kvm);
	assert_true(miss <= 0.05);
	assert_true(cyc >= 0.25 && cyc <= 0.60);
	assert_true(metric(desk, "after", "throughput_per_s") > metric(desk, "before", "throughput_per_s"));
	assert_true(metric(desk, "after", "total_access_time_s") <
		    metric(desk, "before", "total_access_time_s"));
	assert_true(cyc_kvm < cyc);	/* a larger relative gain */
	json_decref(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_khugepaged_cold_relations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
