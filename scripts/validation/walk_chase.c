// SPDX-License-Identifier: GPL-2.0-only
/*
 * Translation against data: a pointer chase with one line in each of N 4K
 * pages (the line's place in the page moves with the page, so the lines
 * spread over the cache sets), in page order or in a random order, against
 * the same N lines packed 64 to a page (the same data in the caches, few
 * pages).  The sparse chase's cycles a load over the packed one's are the
 * translation's: an STLB hit, a walk, or neither when the core prefetches.
 *   gcc -O2 -o walk_chase scripts/validation/walk_chase.c
 *   ./walk_chase PAGES ORDER [STRIDE]    ORDER 0: page order, 1: random
 *   for n in 1024 4096 8192 16384 65536; do ./walk_chase $n 1; done
 * Cycles are the TSC's scaled by MMSIM_MHZ / MMSIM_TSC_MHZ (defaults: this
 * project's guest, 4073 and 2596).  On 5 December 2026 (night) here, random
 * order, sparse / packed: 1024 pages 19.1 / 12.7, 4096 25.3 / 12.7, 8192
 * 77.6 / 14.4, 16384 120.3 / 23.8, 65536 156.0 / 44.7 (the packed chase is
 * in 16-1024 pages: up to 96 the L1 dTLB holds them, above it the STLB);
 * in page order with STRIDE 4160 (a line a page, each in the next page's
 * next line) 16384 pages 12.6 (docs/validation.md, "The STLB and the walks").
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

static uint64_t rng = 88172645463325252ULL;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Cycles a load of a chase through the @n slots, each pointing at the next. */
static double chase(char **slot, size_t n, double scale)
{
	char **p = (char **)slot[0];
	double best = 1e30;

	for (size_t i = 0; i < n; i++)
		*(char **)slot[i] = slot[(i + 1) % n];
	for (size_t i = 0; i < 2 * n; i++)
		p = *(char ***)p;
	for (int r = 0; r < 5; r++) {
		uint64_t t0 = __rdtsc();

		for (size_t i = 0; i < 20000000; i++)
			p = *(char ***)p;
		double c = (double)(__rdtsc() - t0) / 20000000 * scale;

		if (c < best)
			best = c;
	}
	__asm__ volatile("" : : "r"(p) : "memory");
	return best;
}

int main(int argc, char **argv)
{
	size_t n, stride, bytes, *ord;
	const char *mhz = getenv("MMSIM_MHZ"), *tsc = getenv("MMSIM_TSC_MHZ");
	double scale = (mhz ? atof(mhz) : 4073) / (tsc ? atof(tsc) : 2596);
	char *buf, **slot;
	int random_order;

	if (argc < 3) {
		fprintf(stderr, "usage: %s PAGES ORDER(0|1) [STRIDE]\n", argv[0]);
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	random_order = atoi(argv[2]);
	stride = argc > 3 ? strtoul(argv[3], NULL, 0) : 4096;
	if (n < 64 || stride < 4096) {
		fprintf(stderr, "PAGES at least 64, STRIDE at least 4096\n");
		return 2;
	}
	bytes = n * stride + 4096;
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ord = malloc(n * sizeof(*ord));
	slot = malloc(n * sizeof(*slot));
	if (buf == MAP_FAILED || !ord || !slot)
		return 1;
	madvise(buf, bytes, MADV_NOHUGEPAGE);
	memset(buf, 1, bytes);
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	if (random_order)
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = xorshift() % (i + 1), t = ord[i];

			ord[i] = ord[j];
			ord[j] = t;
		}
	/* sparse: a line in each page, its place moving with the page */
	for (size_t i = 0; i < n; i++)
		slot[i] = buf + ord[i] * stride + (stride == 4096 ? (ord[i] % 64) * 64 : 0);
	printf("%zu pages, %s order, stride %zu: %.1f cycles a load", n,
	       random_order ? "random" : "page", stride, chase(slot, n, scale));
	/* packed: the same number of lines, 64 to a page, in the same order */
	for (size_t i = 0; i < n; i++)
		slot[i] = buf + ord[i] * 64;
	printf("; the same lines packed %.1f\n", chase(slot, n, scale));
	return 0;
}
