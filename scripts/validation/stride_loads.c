// SPDX-License-Identifier: GPL-2.0-only
/*
 * What page order buys: one load a page over R MiB (beyond the L3), the
 * pages visited in order or in a shuffled order, as independent loads (an
 * index array gives each address; the loop's loads do not wait for each
 * other) or as a chase (each load's value is the next address), with the
 * memory in 4K pages (MADV_NOHUGEPAGE: a translation a page) or in 2M
 * pages (MADV_HUGEPAGE: 512 pages a translation, so the translation is
 * taken out).  In order, a prefetcher that follows the stride can fetch
 * the next pages' lines (and, in 4K pages, their translations) ahead of
 * the loads; shuffled, none can.  The line's place in its page: OFFSET
 * bytes apart a page (0: every line in one L1D index, khugepaged-cold's
 * pattern; 64: spread over the indices).  Cycles a load, the best of 5
 * passes, the TSC scaled by MMSIM_MHZ / MMSIM_TSC_MHZ (defaults: this
 * project's guest, 4073 and 2596):
 *   gcc -O2 -o stride_loads scripts/validation/stride_loads.c
 *   ./stride_loads 256 64      (R MiB, OFFSET)
 * Prints the fraction of the region in huge pages (AnonHugePages of
 * /proc/self/smaps) beside the 2M rows.
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

/* kB of AnonHugePages in the smaps entry that holds @addr. */
static long huge_kb(void *addr)
{
	char line[256];
	long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static double independent(char *const *slot, size_t n, double scale)
{
	double best = 1e30;
	uint64_t sum = 0;

	for (int r = 0; r < 5; r++) {
		uint64_t t0 = __rdtsc();

		for (size_t i = 0; i < n; i++)
			sum += *(volatile uint64_t *)slot[i];
		double c = (double)(__rdtsc() - t0) / (double)n * scale;

		if (c < best)
			best = c;
	}
	__asm__ volatile("" : : "r"(sum));
	return best;
}

static double chase(char *const *slot, size_t n, double scale)
{
	double best = 1e30;
	char **p;

	for (size_t i = 0; i < n; i++)
		*(char **)slot[i] = slot[(i + 1) % n];
	p = (char **)slot[0];
	for (int r = 0; r < 5; r++) {
		uint64_t t0 = __rdtsc();

		for (size_t i = 0; i < n; i++)
			p = (char **)*p;
		double c = (double)(__rdtsc() - t0) / (double)n * scale;

		if (c < best)
			best = c;
	}
	__asm__ volatile("" : : "r"(p) : "memory");
	return best;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256;
	size_t off = argc > 2 ? strtoul(argv[2], NULL, 0) : 64;
	const char *mhz = getenv("MMSIM_MHZ"), *tsc = getenv("MMSIM_TSC_MHZ");
	double scale = (mhz ? atof(mhz) : 4073) / (tsc ? atof(tsc) : 2596);
	size_t n, bytes, *ord;
	char **slot;

	if (mib < 2 || off % 8 || off >= 4096) {
		fprintf(stderr, "usage: %s MIB (at least 2) OFFSET (a multiple of 8 below 4096)\n",
			argv[0]);
		return 2;
	}
	bytes = mib << 20;
	n = bytes >> 12;
	ord = malloc(n * sizeof(*ord));
	slot = malloc(n * sizeof(*slot));
	if (!ord || !slot)
		return 1;
	for (int huge = 0; huge < 2; huge++) {
		char *raw = mmap(NULL, bytes + (2 << 20), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *buf;

		if (raw == MAP_FAILED)
			return 1;
		buf = (char *)(((uintptr_t)raw + (2 << 20) - 1) & ~(((uintptr_t)2 << 20) - 1));
		madvise(buf, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		memset(buf, 1, bytes);
		for (int shuffled = 0; shuffled < 2; shuffled++) {
			for (size_t i = 0; i < n; i++)
				ord[i] = i;
			if (shuffled)
				for (size_t i = n - 1; i > 0; i--) {
					size_t j = xorshift() % (i + 1), t = ord[i];

					ord[i] = ord[j];
					ord[j] = t;
				}
			for (size_t i = 0; i < n; i++)
				slot[i] = buf + (ord[i] << 12) + (ord[i] * off) % 4096;
			printf("%s pages%s, %s: independent %.1f, chase %.1f cycles a load\n",
			       huge ? "2M" : "4K", huge ? (huge_kb(buf) * 1024 >= (long)bytes ?
							   " (all huge)" : " (NOT all huge)") : "",
			       shuffled ? "shuffled" : "in order", independent(slot, n, scale),
			       chase(slot, n, scale));
		}
		munmap(raw, bytes + (2 << 20));
	}
	return 0;
}
