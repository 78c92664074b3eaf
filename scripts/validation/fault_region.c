// SPDX-License-Identifier: GPL-2.0-only
/*
 * A 4K write fault's cost against the region's size: map R MiB of
 * anonymous memory (no THP), store a byte in each page, unmap it, until
 * T MiB have been faulted; the best of three passes, ns a page (fault,
 * zeroing and unmap).  The pages the allocator hands back were freed a
 * region ago, so a region within the L3 zeroes in cache:
 *   gcc -O2 -o fault_region scripts/validation/fault_region.c
 *   for r in 4 16 48 64 128 256; do ./fault_region $r 1024; done
 * On 5 December 2026 (night) here: 1,378-1,426 ns at 4-16 MiB, 1,394-1,469
 * at 24-48, 1,475-1,581 at 64-256 (docs/experiments/deferred-split.md).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	size_t bytes, total, rounds;
	double best = 1e30;

	if (argc < 3) {
		fprintf(stderr, "usage: %s REGION_MIB TOTAL_MIB\n", argv[0]);
		return 2;
	}
	bytes = strtoul(argv[1], NULL, 0) << 20;
	total = strtoul(argv[2], NULL, 0) << 20;
	if (!bytes || total < bytes) {
		fprintf(stderr, "REGION_MIB at least 1, TOTAL_MIB at least REGION_MIB\n");
		return 2;
	}
	rounds = total / bytes;
	for (int pass = 0; pass < 3; pass++) {
		double t0 = now(), t;

		for (size_t r = 0; r < rounds; r++) {
			char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return 1;
			madvise(p, bytes, MADV_NOHUGEPAGE);
			for (size_t o = 0; o < bytes; o += 4096)
				p[o] = 1;
			munmap(p, bytes);
		}
		t = (now() - t0) * 1e9 / (double)(rounds * bytes / 4096);
		if (t < best)
			best = t;
	}
	printf("%zu MiB region: %.0f ns a 4K page (fault, zeroing, unmap)\n", bytes >> 20, best);
	return 0;
}
