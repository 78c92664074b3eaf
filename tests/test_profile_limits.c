// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of PROFILE_LIMITS (include/mmsim/profile.h): every U64 field of
 * PROFILE_FIELDS has a valid range, every builtin profile lies within it,
 * and values outside it (the 2^32 and 2^64-1 of issue 18, which were cast
 * to int or uint32_t after the old check) are refused with one line that
 * names the range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/profile.h"
#include "mmsim/scenario.h"

/* A U64 key added to PROFILE_FIELDS without a row in PROFILE_LIMITS fails here. */
static void test_every_u64_field_has_a_limit(void **state)
{
	uint64_t min, max;
	int nr = 0;

	(void)state;
#define CHECK_U64(sec, key) \
	do { \
		if (sim_profile_limit(#sec, #key, &min, &max)) \
			fail_msg("%s.%s has no row in PROFILE_LIMITS", #sec, #key); \
		assert_true(min <= max); \
		nr++; \
	} while (0);
#define CHECK_STR(sec, key)
#define CHECK_FIELD(sec, key, type, unit, meaning) CHECK_##type(sec, key)
	PROFILE_FIELDS(CHECK_FIELD)
#undef CHECK_FIELD
#undef CHECK_STR
#undef CHECK_U64
	assert_true(nr > 50);
	/* and a key that is not a field has none */
	assert_int_equal(sim_profile_limit("cache", "nope", &min, &max), -1);
}

/* Every limit row names a field of PROFILE_FIELDS that is a U64. */
static void test_every_limit_names_a_field(void **state)
{
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[512], assign[128];

	(void)state;
	assert_int_equal(sim_profile_load("skylake-sp-2s", p, err, sizeof(err)), 0);
#define CHECK_LIMIT(sec, key, lo, hi, why) \
	snprintf(assign, sizeof(assign), "%s.%s=%" PRIu64, #sec, #key, (uint64_t)(lo)); \
	p->overrides[0] = '\0'; \
	if (sim_profile_set(p, assign, err, sizeof(err)) && !strstr(err, "CPUs")) \
		fail_msg("%s: %s", assign, err);
	PROFILE_LIMITS(CHECK_LIMIT)
#undef CHECK_LIMIT
	free(p);
}

static void test_builtin_profiles_within_limits(void **state)
{
	const char *const *names = sim_profile_builtin_names();
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[512];
	int i;

	(void)state;
	for (i = 0; names[i]; i++) {
		if (sim_profile_load(names[i], p, err, sizeof(err)))
			fail_msg("%s: %s", names[i], err);
		assert_int_equal(sim_profile_check(p, err, sizeof(err)), 0);
	}
	free(p);
}

/* Each value that issue 18 found truncated, hanging or crashing a run. */
static void test_out_of_range_refused(void **state)
{
	static const char *const bad[] = {
		"topology.nodes=4294967296", "topology.nodes=2147483648",
		"topology.nodes=18446744073709551615", "topology.nodes=9",
		"topology.sockets=4294967298", "topology.sockets=18446744073709551615",
		"topology.sockets=4294967296",
		"mem.loads_per_cycle=4294967296", "cache.l1d_kib=4294967296",
		"cache.l2_kib=18446744073709551615", "cache.l3_kib=4294967296",
		"tlb.pde_cache_entries=4294967296", "tlb.pml4_cache_entries=18446744073709551615",
		"tlb.l1_4k_entries=4294967296",
		"clock.mhz=4294967296", "sched.quantum_ns=4294967296",
		"sched.quantum_ns=18446744073709551615", "sched.context_switch_ns=4294967296",
		"sched.wakeup_ns=4294967296", "cache.l1_hit_ns=4294967296",
		"cache.socket_transfer_ns=18446744073709551615", "cache.l1d_cycles=4294967296",
		"mm.fault_entry_ns=4294967296", "mm.folio_op_ns=18446744073709551615",
		"lock.atomic_cycles=4294967296",
	};
	struct sim_profile *p = calloc(1, sizeof(*p)), saved;
	char err[512];
	size_t i;

	(void)state;
	assert_int_equal(sim_profile_load("skylake-sp-2s", p, err, sizeof(err)), 0);
	saved = *p;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!sim_profile_set(p, bad[i], err, sizeof(err)))
			fail_msg("%s accepted", bad[i]);
		assert_non_null(strstr(err, ": expected "));
		assert_null(strchr(err, '\n'));
		assert_memory_equal(p, &saved, sizeof(saved));	/* unchanged */
	}
	free(p);
}

/* The quantum must cover a line transfer plus a locked RMW. */
static void test_quantum_covers_a_step(void **state)
{
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[512];

	(void)state;
	assert_int_equal(sim_profile_load("skylake-sp-2s", p, err, sizeof(err)), 0);
	assert_int_equal(sim_profile_set(p, "sched.quantum_ns=1", err, sizeof(err)), 0);
	assert_int_equal(sim_profile_check(p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sched.quantum_ns = 1: expected at least"));
	assert_int_equal(sim_profile_set(p, "sched.quantum_ns=1000", err, sizeof(err)), 0);
	assert_int_equal(sim_profile_set(p, "cache.remote_transfer_ns=100000", err, sizeof(err)), 0);
	assert_int_equal(sim_profile_check(p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cache.remote_transfer_ns (100000)"));
	assert_int_equal(sim_profile_set(p, "sched.quantum_ns=10000000", err, sizeof(err)), 0);
	assert_int_equal(sim_profile_check(p, err, sizeof(err)), 0);
	free(p);
}

/* A one-per-CPU parameter follows the machine unless set. */
static void test_threads_follow_the_machine(void **state)
{
	const struct scenario_ops *s = sim_scenario_find("deferred-split");
	struct sim_profile *p = calloc(1, sizeof(*p));
	struct sim_run_config cfg;
	char err[512];
	int i;

	(void)state;
	assert_non_null(s);
	i = sim_scenario_param_index(s, "threads");
	assert_true(i >= 0);
	assert_int_equal(sim_profile_load("desktop", p, err, sizeof(err)), 0);
	sim_run_config_init(&cfg, s, p, 1);
	assert_int_equal(cfg.params[i], 16);
	assert_int_equal(sim_run_config_set(&cfg, "threads=4", err, sizeof(err)), i);
	assert_int_equal(cfg.params[i], 4);		/* --set wins */
	assert_int_equal(sim_profile_load("skylake-sp-2s", p, err, sizeof(err)), 0);
	sim_run_config_init(&cfg, s, p, 1);
	assert_int_equal(cfg.params[i], 80);		/* the published default */
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_u64_field_has_a_limit),
		cmocka_unit_test(test_every_limit_names_a_field),
		cmocka_unit_test(test_builtin_profiles_within_limits),
		cmocka_unit_test(test_out_of_range_refused),
		cmocka_unit_test(test_quantum_covers_a_step),
		cmocka_unit_test(test_threads_follow_the_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
