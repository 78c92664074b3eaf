// SPDX-License-Identifier: GPL-2.0-only
/*
 * How many misses one core keeps in flight, three ways, over R MiB of
 * anonymous memory in 2M pages (MADV_HUGEPAGE: the TLB out of the way),
 * every line of it in one random cycle:
 *   - k chases of that cycle at once (k = 1, 32, 64): calibrate's way of
 *     counting fill buffers (mem.line_fill_buffers), where each load's
 *     address comes from the load before it in its chase;
 *   - independent loads of random lines (a xorshift generator, the
 *     address known long before the data: live mode's random step and
 *     the model's batches of independent accesses);
 *   - independent stores of random lines (the same loop, storing).
 * In flight = one chase's ns a load / the way's ns a load.  Best of 3,
 * the TSC at MMSIM_TSC_MHZ (default 2596, this project's guest):
 *   gcc -O2 -o random_mlp scripts/validation/random_mlp.c
 *   for r in 16 64 256; do ./random_mlp $r; done
 * docs/validation.md ("Random loads and stores") has this guest's.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

#define MAXK 64

static double tsc_ghz;

static double chases(char *b, const uint32_t *perm, size_t lines, int k)
{
	double best = 1e30;

	for (int r = 0; r < 3; r++) {
		char *p[MAXK];
		uint64_t steps = 4000000 / (uint64_t)k, t0;

		for (int j = 0; j < k; j++)
			p[j] = b + ((size_t)perm[(lines / (size_t)k) * (size_t)j] << 6);
		t0 = __rdtsc();
		for (uint64_t s = 0; s < steps; s++)
			for (int j = 0; j < k; j++)
				p[j] = *(char **)p[j];
		double ns = (double)(__rdtsc() - t0) / tsc_ghz / (double)(steps * (uint64_t)k);

		__asm__ volatile("" : : "r"(p[0]) : "memory");
		if (ns < best)
			best = ns;
	}
	return best;
}

static double independent(char *b, size_t lines, int store)
{
	double best = 1e30;

	for (int r = 0; r < 3; r++) {
		uint64_t x = 88172645463325252ULL + (uint64_t)r, sum = 0, n = 8000000, t0;

		t0 = __rdtsc();
		for (uint64_t i = 0; i < n; i++) {
			volatile uint64_t *p;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p = (volatile uint64_t *)(b + ((x & (lines - 1)) << 6) + 8);
			if (store)
				*p = i;
			else
				sum += *p;
		}
		double ns = (double)(__rdtsc() - t0) / tsc_ghz / (double)n;

		__asm__ volatile("" : : "r"(sum));
		if (ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256, bytes, lines;
	const char *tsc = getenv("MMSIM_TSC_MHZ");
	uint64_t x = 88172645463325252ULL;
	uint32_t *perm;
	char *raw, *b;

	if (mib < 2 || (mib & (mib - 1))) {
		fprintf(stderr, "usage: %s MIB (a power of two, at least 2)\n", argv[0]);
		return 2;
	}
	tsc_ghz = (tsc ? atof(tsc) : 2596) / 1000;
	bytes = mib << 20;
	lines = bytes >> 6;
	raw = mmap(NULL, bytes + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	perm = malloc(lines * sizeof(*perm));
	if (raw == MAP_FAILED || !perm)
		return 1;
	b = (char *)(((uintptr_t)raw + (2 << 20) - 1) & ~(((uintptr_t)2 << 20) - 1));
	madvise(b, bytes, MADV_HUGEPAGE);
	memset(b, 0, bytes);
	for (size_t i = 0; i < lines; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j;
		uint32_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(char **)(b + ((size_t)perm[i] << 6)) = b + ((size_t)perm[(i + 1) % lines] << 6);
	double one = chases(b, perm, lines, 1), k32 = chases(b, perm, lines, 32);
	double k64 = chases(b, perm, lines, 64);
	double ld = independent(b, lines, 0), st = independent(b, lines, 1);

	printf("%zu MiB: one chase %.1f ns a load; 32 chases %.2f ns (%.1f in flight), "
	       "64 chases %.2f (%.1f); independent loads %.2f (%.1f); independent stores "
	       "%.2f (%.1f)\n", mib, one, k32, one / k32, k64, one / k64, ld, one / ld, st,
	       one / st);
	return 0;
}
