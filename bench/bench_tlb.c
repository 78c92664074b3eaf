// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host speed of the TLB model's hot path, as user_access_batch() runs it:
 * tlb_lookup() inline in a loop over one page size, the outcomes counted
 * in registers, for random addresses over 128 MiB (the P3 workload's hot
 * set), with 4K pages (almost every access walks) and with 2M pages (half
 * hit the L1, half the STLB), and over 256 KiB of 4K pages (the L1's
 * reach: every access hits the L1), on the Skylake geometry.  The walk
 * itself (setting the PTE's bits) is not in it; the whole simulation's
 * speed is bench_scenarios'.  Benchmarks may read the host clock; the
 * model never does.
 *
 * Builds standalone:
 *   gcc -std=gnu11 -O2 -Iinclude src/hw/tlb.c bench/bench_tlb.c -o bench_tlb
 *   ./bench_tlb [accesses]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mmsim/tlb.h"

#define SZ_128M	(128ULL << 20)

static const struct tlb_geometry skylake = {
	.l1_4k_entries = 64, .l1_4k_ways = 4,
	.l1_2m_entries = 32, .l1_2m_ways = 4,
	.stlb_entries = 1536, .stlb_ways = 12,
	.stlb_hit_cycles = 12, .walk_cycles = 20,
	.walk_dims = 1, .page_walkers = 2,
};

/*
 * CPU time of this process: on a shared machine it leaves out the time
 * other processes had the CPU, which wall time (CLOCK_MONOTONIC) does not.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* xorshift64: a few cycles per number, so the loop measures the TLB. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* The loop without the TLB: what the random numbers alone cost. */
static double run_baseline(uint64_t n, uint64_t *sink)
{
	uint64_t seed = 88172645463325252ULL, sum = 0;
	double t0 = now_s();

	for (uint64_t i = 0; i < n; i++)
		sum += rng_next(&seed) & (SZ_128M - 1);
	*sink += sum;
	return now_s() - t0;
}

/* The loop for one page size (@huge a constant once inlined). */
static inline __attribute__((always_inline))
uint64_t run_loop(struct tlb *t, bool huge, uint64_t span, uint64_t n)
{
	const uint64_t base = 0x7f0000000000ULL;
	uint64_t seed = 88172645463325252ULL, cycles = 0;
	uint64_t nr[TLB_NR_RESULTS] = { 0 };

	for (uint64_t i = 0; i < n; i++) {
		enum tlb_result r = tlb_lookup(t, 1, base + (rng_next(&seed) & (span - 1)), huge);

		nr[r]++;
		cycles += t->cost[r][huge];
	}
	for (int r = 0; r < TLB_NR_RESULTS; r++)
		tlb_count(t, (enum tlb_result)r, huge, nr[r]);
	return cycles;
}

static __attribute__((noinline)) uint64_t run_4k(struct tlb *t, uint64_t span, uint64_t n)
{
	return run_loop(t, false, span, n);
}

static __attribute__((noinline)) uint64_t run_2m(struct tlb *t, uint64_t span, uint64_t n)
{
	return run_loop(t, true, span, n);
}

static double run(struct tlb *t, bool huge, uint64_t span, uint64_t n,
		  uint64_t *sink, double *wall)
{
	double w0 = wall_s(), t0 = now_s();

	*sink += huge ? run_2m(t, span, n) : run_4k(t, span, n);
	t0 = now_s() - t0;
	*wall = wall_s() - w0;
	return t0;
}

/*
 * Host cost of the flushes: a full flush of one PCID scans every entry
 * (about 1600 on Skylake), an INVLPG looks at four sets.  The TLB is
 * refilled with 4K pages of @nr_asids PCIDs before each flush.  The cost
 * of reading the clock (a system call for CPU time) is subtracted.
 */
static void bench_flush(uint64_t *sink, unsigned int nr_asids)
{
	const int rounds = 20000;
	double fill_s = 0, flush_s = 0, one_s = 0, clock_s = 0, t0;
	uint64_t seed = 1;
	struct tlb t;

	if (tlb_init(&t, &skylake))
		return;
	for (int r = 0; r < rounds; r++) {
		t0 = now_s();
		for (int i = 0; i < 4096; i++)
			tlb_access(&t, 1 + i % nr_asids, rng_next(&seed) &
				   (SZ_128M - 1), false);
		fill_s += now_s() - t0;
		t0 = now_s();
		for (int i = 0; i < 33; i++)
			*sink += tlb_flush_one(&t, 1, (uint64_t)i << 12);
		one_s += now_s() - t0;
		t0 = now_s();
		*sink += tlb_flush_asid(&t, 1);
		flush_s += now_s() - t0;
		t0 = now_s();			/* the cost of the clock itself */
		clock_s += now_s() - t0;
	}
	flush_s -= clock_s;
	one_s -= clock_s;
	printf("TLB full of %u PCID(s): tlb_flush_asid %.0f ns, tlb_flush_one %.1f ns\n",
	       nr_asids, flush_s * 1e9 / rounds, one_s * 1e9 / rounds / 33);
	tlb_destroy(&t);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000ULL;
	uint64_t sink = 0;
	double base_s;

	if (!n) {
		fprintf(stderr, "bench_tlb: error: accesses must be > 0\n");
		return 2;
	}
	base_s = run_baseline(n, &sink);
	printf("random accesses over 128 MiB, Skylake TLB geometry, %llu accesses\n",
	       (unsigned long long)n);
	printf("host ns and accesses per second of CPU time; wall ns in the last column\n");
	printf("%-10s %10s %14s %10s %10s %10s %10s\n", "pages", "ns/access",
	       "accesses/s", "l1_hit", "stlb_hit", "walk", "wall_ns");
	printf("%-10s %10.2f %14.3e\n", "rng only", base_s * 1e9 / n, n / base_s);

	/* 128 MiB: the P3 hot set; 256 KiB of 4K pages: the L1 dTLB's reach. */
	static const struct { const char *name; bool huge; uint64_t span; } cases[] = {
		{ "4K", false, SZ_128M }, { "2M", true, SZ_128M }, { "4K-L1", false, 256 << 10 },
	};
	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tlb t;
		double s, wall;

		if (tlb_init(&t, &skylake)) {
			fprintf(stderr, "bench_tlb: error: tlb_init failed\n");
			return 1;
		}
		s = run(&t, cases[c].huge, cases[c].span, n, &sink, &wall);
		printf("%-10s %10.2f %14.3e %10.4f %10.4f %10.4f %10.2f\n",
		       cases[c].name, s * 1e9 / n, n / s,
		       (double)t.stats.l1_hits / n, (double)t.stats.stlb_hits / n,
		       (double)t.stats.walks / n, wall * 1e9 / n);
		tlb_destroy(&t);
	}
	bench_flush(&sink, 1);
	bench_flush(&sink, 2);
	fprintf(stderr, "(sink %llu)\n", (unsigned long long)(sink & 1));
	return 0;
}
