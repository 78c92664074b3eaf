// SPDX-License-Identifier: GPL-2.0-only
/*
 * clear_page_erms()'s rate by where the pages' lines are: rep stosb a 4K
 * page at a time over a buffer of K KiB (2M pages), again and again, the
 * best pass of 20 in GB/s.  A buffer within the L2 zeroes lines the L2
 * holds, one within the L3 lines the L3 holds, a larger one lines from
 * memory (calibrate's mem.zero_gbps is the last):
 *   gcc -O2 -o zero_rate scripts/validation/zero_rate.c
 *   for k in 64 512 4096 16384 65536 131072; do ./zero_rate $k; done
 * On 5 December 2026 here (L2 1 MiB, L3 32 MiB): 149-154 GB/s up to 512
 * KiB, 87-99 at 4-16 MiB, 28-31 at 64-128 MiB (docs/validation.md).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t kib = argc > 1 ? strtoul(argv[1], NULL, 0) : 4096, bytes = kib << 10;
	double best = 0;
	char *raw, *b;

	if (kib < 4 || kib % 4) {
		fprintf(stderr, "usage: %s KIB (a multiple of 4)\n", argv[0]);
		return 2;
	}
	raw = mmap(NULL, bytes + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (raw == MAP_FAILED)
		return 1;
	b = (char *)(((uintptr_t)raw + (2 << 20) - 1) & ~(((uintptr_t)2 << 20) - 1));
	madvise(b, bytes, MADV_HUGEPAGE);
	for (size_t off = 0; off < bytes; off += 4096)
		b[off] = 1;
	for (int r = 0; r < 20; r++) {
		double t0 = now_ns(), gbps;

		for (size_t off = 0; off < bytes; off += 4096) {
			void *d = b + off;
			size_t n = 4096;

			__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
		}
		gbps = (double)bytes / (now_ns() - t0);
		if (gbps > best)
			best = gbps;
	}
	printf("%zu KiB: %.1f GB/s\n", kib, best);
	return 0;
}
