// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parsers' fuzz targets (fuzz/), driven by a self-contained mutation
 * loop: from valid seeds (the builtin profiles, command lines, a sweep's
 * CSV, a run's JSON), each step flips, inserts, deletes or duplicates bytes, splices in
 * a token of the format (a key, "=", a newline, 2^32, 2^64-1, a NUL) or
 * another seed.  A crash, a hang (ctest's timeout) or a sanitizer report
 * fails the test.  The pseudo-random sequence is fixed, so a failure
 * repeats.  MMSIM_FUZZ_ITERS sets the inputs per target (default 2000, a
 * few seconds under ASan); libFuzzer runs them longer (fuzz/README.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cli.c is not in a library (it holds main()'s logic): include it, as test_cli.c does. */
#include "cli/cli.c"

#include "../fuzz/fuzz_diff.c"
#include "../fuzz/fuzz_merge.c"
#include "../fuzz/fuzz_options.c"
#include "../fuzz/fuzz_profile.c"

#define FUZZ_MAX_INPUT	16384

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const tokens[] = {
	"\n", "=", ",", ".", "[", "]", " = ", "\0", "4294967296", "18446744073709551615",
	"18446744073709551616", "2147483648", "0", "-1", "1e9", "16M", "2G", "10ms", "64T",
	"[topology]\n", "[sources]\n", "sockets", "nodes", "mhz", "quantum_ns", "clock.mhz=",
	"topology.nodes=", "--set\n", "--cost\n", "--vary\n", "--seed\n", "--jobs\n", "--shard\n",
	"1/0\n", "--json\n", "-\n", "threads=", "region=", ",seed,variant,metric,value\n",
	"spinlock,", "\r\n", ";", "#", "\xff", "%s%n", "...",
};

/* One mutation of @buf (length @len, capacity FUZZ_MAX_INPUT); the new length. */
static size_t mutate(uint8_t *buf, size_t len, const char *const *seeds, int nr_seeds)
{
	size_t pos = len ? next_rand() % (len + 1) : 0, n;
	const char *t;

	switch (next_rand() % 6) {
	case 0:		/* flip a byte */
		if (len)
			buf[pos % len] ^= (uint8_t)(1u << (next_rand() % 8));
		break;
	case 1:		/* delete a range */
		n = next_rand() % 16;
		if (pos + n > len)
			n = len - pos;
		memmove(buf + pos, buf + pos + n, len - pos - n);
		len -= n;
		break;
	case 2:		/* duplicate a range */
		n = next_rand() % 64;
		if (pos + n > len)
			n = len - pos;
		if (len + n <= FUZZ_MAX_INPUT) {
			memmove(buf + pos + n, buf + pos, len - pos);
			len += n;
		}
		break;
	case 3:		/* a token of the formats */
	case 4:
		t = tokens[next_rand() % (sizeof(tokens) / sizeof(tokens[0]))];
		n = *t ? strlen(t) : 1;
		if (len + n <= FUZZ_MAX_INPUT) {
			memmove(buf + pos + n, buf + pos, len - pos);
			memcpy(buf + pos, t, n);
			len += n;
		}
		break;
	default:	/* splice: the head of this, the tail of a seed */
		t = seeds[next_rand() % (size_t)nr_seeds];
		n = strlen(t);
		n = n ? next_rand() % n : 0;
		if (pos + strlen(t + n) <= FUZZ_MAX_INPUT) {
			memcpy(buf + pos, t + n, strlen(t + n));
			len = pos + strlen(t + n);
		}
		break;
	}
	return len;
}

static long fuzz_iters(void)
{
	const char *s = getenv("MMSIM_FUZZ_ITERS");
	long n = s ? strtol(s, NULL, 10) : 2000;

	return n > 0 ? n : 2000;
}

/* Run @fn on the seeds, then on fuzz_iters() mutants of them. */
static void fuzz_loop(int (*fn)(const uint8_t *, size_t), const char *const *seeds, int nr)
{
	uint8_t *buf = malloc(FUZZ_MAX_INPUT);
	long i, iters = fuzz_iters();
	size_t len = 0;
	int k;

	assert_non_null(buf);
	for (k = 0; k < nr; k++)
		assert_int_equal(fn((const uint8_t *)seeds[k], strlen(seeds[k])), 0);
	for (i = 0; i < iters; i++) {
		if (i % 32 == 0) {	/* start again from a seed now and then */
			const char *s = seeds[next_rand() % (size_t)nr];

			len = strlen(s) < FUZZ_MAX_INPUT ? strlen(s) : FUZZ_MAX_INPUT;
			memcpy(buf, s, len);
		}
		len = mutate(buf, len, seeds, nr);
		if (next_rand() % 4 == 0)
			len = mutate(buf, len, seeds, nr);
		assert_int_equal(fn(buf, len), 0);
	}
	free(buf);
}

static void test_fuzz_profile(void **state)
{
	const char *seeds[8];
	const char *const *names = sim_profile_builtin_names();
	struct sim_profile *p = malloc(sizeof(*p));
	char err[512];
	int nr = 0;

	(void)state;
	assert_non_null(p);
	for (; names[nr] && nr < 6; nr++) {
		seeds[nr] = sim_profile_builtin_text(names[nr]);
		/* the seeds are valid: the mutants start from what parses */
		assert_int_equal(sim_profile_parse(seeds[nr], names[nr], p, err, sizeof(err)), 0);
	}
	seeds[nr++] = "clock.mhz=4294967296";
	seeds[nr++] = "topology.nodes=9";
	free(p);
	fuzz_loop(fuzz_profile, seeds, nr);
}

static void test_fuzz_options(void **state)
{
	static const char *const seeds[] = {
		"spinlock\n--set\ncpus=4\n--set=iterations=20M\n--cost\nclock.mhz=3000\n--json\n-",
		"deferred-split\n--set\nregion=2G\n--set\nthreads=64\n--variant\nbefore\n--seed=7",
		"spinlock\n--vary\ncpus=2,4,8\n--seeds\n3\n--shard\n2/4\n--jobs\n2\n--csv\nx.csv",
		"a.csv\nb.csv\n--csv\n-",
		"reclaim-tlb\n--set\nduration=10ms\n--set\nswap_device=zram\n--cost\ntopology.nodes=1",
	};

	(void)state;
	fuzz_loop(fuzz_options, seeds, (int)(sizeof(seeds) / sizeof(seeds[0])));
}

static void test_fuzz_merge(void **state)
{
	static const char *const seeds[] = {
		"scenario,cpus,seed,variant,metric,value\n"
		"spinlock,2,123,qspinlock,runtime_s,0.001\n"
		"spinlock,2,123,qspinlock,acquisitions,60\n"
		"spinlock,4,456,qspinlock,runtime_s,0.002\n",
		"scenario,cpus,seed,variant,metric,value\n",
		"scenario,mthp,region,seed,variant,metric,value\nd,16K,1M,1,before,faults,3\n",
	};

	(void)state;
	fuzz_loop(fuzz_merge, seeds, (int)(sizeof(seeds) / sizeof(seeds[0])));
}

static void test_fuzz_diff(void **state)
{
	/* a run's JSON as `mmsim run --json` writes it, trimmed; A, 0x01, B */
#define DIFF_RUN(seed, rt, wait) \
		"{\n  \"mmsim_version\": \"0.1.0\",\n  \"scenario\": \"spinlock\",\n" \
		"  \"profile\": \"skylake-sp-2s\",\n  \"seed\": " seed ",\n" \
		"  \"params\": {\n    \"cpus\": 2,\n    \"iterations\": 10\n  },\n" \
		"  \"variants\": [\n    {\n      \"name\": \"qspinlock\",\n" \
		"      \"metrics\": {\n        \"runtime_s\": " rt ",\n" \
		"        \"acquisitions\": 20.0,\n        \"contentions\": null\n      },\n" \
		"      \"counters\": {\n        \"pgfault\": 0\n      },\n" \
		"      \"locks\": [\n        {\n          \"name\": \"lock\",\n" \
		"          \"acquisitions\": 20,\n          \"contentions\": 3,\n" \
		"          \"wait_total_s\": " wait "\n        }\n      ]\n    }\n  ],\n" \
		"  \"host\": {\n    \"seconds\": 0.01,\n    \"events\": 100\n  }\n}\n"
	static const char *const seeds[] = {
		DIFF_RUN("1", "3.1e-05", "0.0"),
		DIFF_RUN("18446744073709551615", "3.4e-05", "2e-06") "\x01"
		DIFF_RUN("9223372036854775808", "0.0", "1e-06"),
		DIFF_RUN("2", "1", "1") "\x01{\"scenario\": \"spinlock\", \"variants\": []}",
	};
#undef DIFF_RUN

	(void)state;
	fuzz_loop(fuzz_diff, seeds, (int)(sizeof(seeds) / sizeof(seeds[0])));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_profile),
		cmocka_unit_test(test_fuzz_options),
		cmocka_unit_test(test_fuzz_merge),
		cmocka_unit_test(test_fuzz_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
