// SPDX-License-Identifier: GPL-2.0-only
/*
 * How contiguous the frames of fresh anonymous memory are: fault in
 * R MiB of 4K pages in address order, read their frame numbers from
 * /proc/self/pagemap (root: another user reads 0s), and count the pages
 * whose frame is the one before's plus or minus one, and the changes of
 * 8-frame group (a line of the host's EPT entries in a guest, of PTEs
 * natively) from page to page.  The overlap model takes a guest's data
 * frames as contiguous with their addresses (src/hw/mmu.c, data_gfn()):
 * 8 pages a line.
 *   gcc -O2 -o frame_runs scripts/validation/frame_runs.c && ./frame_runs 64
 * On 5 December 2026 (night) here: 0.2-51% of pages next to the one before,
 * 1.01-2.08 pages an 8-frame group (16-256 MiB, six runs).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PFN(e)	((e) & ((1ULL << 55) - 1))

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64, n = (mib << 20) / 4096;
	size_t next = 0, groups = 0;
	uint64_t *e, prev_group = ~0ULL;
	char *p;
	int fd;

	if (n < 2) {
		fprintf(stderr, "usage: %s MIB (at least 1)\n", argv[0]);
		return 2;
	}
	p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	e = malloc(n * sizeof(*e));
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (p == MAP_FAILED || !e || fd < 0)
		return 1;
	madvise(p, n * 4096, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		p[i * 4096] = 1;
	if (pread(fd, e, n * sizeof(*e), (off_t)((uintptr_t)p / 4096 * sizeof(*e))) !=
	    (ssize_t)(n * sizeof(*e)))
		return 1;
	if (!PFN(e[0])) {
		fprintf(stderr, "pagemap gives no frame numbers (root is needed)\n");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t f = PFN(e[i]);

		if (i && (f == PFN(e[i - 1]) + 1 || f + 1 == PFN(e[i - 1])))
			next++;
		if (f >> 3 != prev_group) {
			groups++;
			prev_group = f >> 3;
		}
	}
	printf("%zu MiB: %.1f%% of pages next to the one before, %.2f pages an 8-frame group\n",
	       mib, 100.0 * (double)next / (double)(n - 1), (double)n / (double)groups);
	return 0;
}
