// SPDX-License-Identifier: GPL-2.0-only
/*
 * Does the kernel's clear_page() leave a new page's lines in the faulting
 * CPU's caches?  Map R MiB of anonymous memory (no THP); for each page in
 * a random order (no prefetcher follows it), store a byte at its start
 * (the fault zeroes the page), then time one load of a line in the middle
 * of it (offset 2048: no prefetcher guesses it from the store at 0), 32
 * dependent loads over the lines of its second half (a latency chain), and
 * the 512 word stores of the whole page (usemem's loop).  Then the same
 * over the region again, when the pages were zeroed a region ago: the
 * store at 0 first (the TLB entry and that line), then the same timings.
 * TSC ticks, medians, each with its rdtscp pair:
 *   gcc -O2 -o zero_residency scripts/validation/zero_residency.c
 *   ./zero_residency 256
 * On 5 December 2026 here (2.596 GHz TSC, a 4.07 GHz core), three runs
 * alike: after the fault one load 52 (the pair alone 52), the chain 156 (3-4
 * ticks, 5-6 cycles a load: L1D hits), the stores 364-390; a 256 MiB
 * region later 338, 1248 and 650-754 (docs/validation.md).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *v, size_t n, int p)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[n * (size_t)p / 100];
}

static uint64_t *chain;
static volatile uint64_t zero_mask;	/* 0, unknown to the compiler */

static void pass(char *buf, const uint32_t *order, size_t pages, uint64_t *load,
		 uint64_t *fill)
{
	unsigned int aux;

	for (size_t j = 0; j < pages; j++) {
		size_t i = order[j];
		volatile char *pg = buf + i * 4096;
		volatile long *w = (volatile long *)pg;
		uint64_t t0, t1, t2;

		pg[0] = 1;
		_mm_lfence();
		t0 = __rdtscp(&aux);
		(void)w[256];
		t1 = __rdtscp(&aux);
		load[i] = t1 - t0;
		/*
		 * 32 dependent loads, one a line of the page's second half: each
		 * address adds the value the load before it read under a mask
		 * the compiler cannot see is zero, so each waits for the last.
		 */
		{
			uint64_t v = 0, m = zero_mask, t3;

			for (int k = 0; k < 32; k++)
				v = (uint64_t)w[256 + 8 * k + (v & m)];
			t3 = __rdtscp(&aux);
			chain[i] = t3 - t1 + (v & m);
			t1 = __rdtscp(&aux);
		}
		for (int k = 0; k < 512; k++)
			w[k] = k;
		_mm_sfence();
		t2 = __rdtscp(&aux);
		fill[i] = t2 - t1;
	}
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256, pages;
	uint64_t *load, *fill, base[64], x = 88172645463325252ull;
	uint32_t *order;
	unsigned int aux;
	char *buf;

	if (!mib) {
		fprintf(stderr, "usage: %s REGION_MIB (at least 1)\n", argv[0]);
		return 2;
	}
	pages = mib << 8;
	buf = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	load = calloc(pages, sizeof(*load));
	fill = calloc(pages, sizeof(*fill));
	order = calloc(pages, sizeof(*order));
	chain = calloc(pages, sizeof(*chain));
	if (buf == MAP_FAILED || !load || !fill || !order || !chain) {
		perror("mmap");
		return 1;
	}
	madvise(buf, mib << 20, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		order[i] = (uint32_t)i;
	for (size_t i = pages - 1; i > 0; i--) {	/* Fisher-Yates, xorshift64 */
		size_t k;
		uint32_t t;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		k = x % (i + 1);
		t = order[i], order[i] = order[k], order[k] = t;
	}
	for (int i = 0; i < 64; i++) {
		uint64_t t0 = __rdtscp(&aux);

		base[i] = __rdtscp(&aux) - t0;
	}
	printf("rdtscp pair: %lu ticks (median)\n", (unsigned long)pct(base, 64, 50));
	pass(buf, order, pages, load, fill);
	printf("after the fault:  load p10/p50/p90 %lu/%lu/%lu, 32-line chain p50 %lu, 512 stores p50 %lu ticks\n",
	       (unsigned long)pct(load, pages, 10), (unsigned long)pct(load, pages, 50),
	       (unsigned long)pct(load, pages, 90), (unsigned long)pct(chain, pages, 50),
	       (unsigned long)pct(fill, pages, 50));
	pass(buf, order, pages, load, fill);
	printf("a region later:   load p10/p50/p90 %lu/%lu/%lu, 32-line chain p50 %lu, 512 stores p50 %lu ticks\n",
	       (unsigned long)pct(load, pages, 10), (unsigned long)pct(load, pages, 50),
	       (unsigned long)pct(load, pages, 90), (unsigned long)pct(chain, pages, 50),
	       (unsigned long)pct(fill, pages, 50));
	return 0;
}
