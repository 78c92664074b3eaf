// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_fault3's pass with its faults taken by the kernel alone: a 128 MiB
 * sparse file in /tmp read through with 64 KiB pread()s (readahead's large
 * folios, as live mode fills it), then for 2 s, alternately: mmap(MAP_SHARED),
 * madvise(MADV_POPULATE_WRITE) (the same write faults, no exception), a
 * store a page, munmap(); and page_fault3's own pass (mmap, a store a page,
 * each first store faulting, munmap).  It prints ns a page of each part:
 * here the population 52.5-53.5, the stores after it 8.6-8.7, the faulting
 * pass 52.0-54.2 in all (docs/validation.md, page_fault3):
 *   gcc -O2 -o popw scripts/validation/populate_write.c && ./popw
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
	size_t sz = 128 << 20, np = sz / 4096, i;
	char path[] = "/tmp/popwXXXXXX";
	static char buf[65536];
	double tp = 0, ts = 0, tu = 0, tf = 0, t0, n;
	int fd = mkstemp(path), it = 0;

	if (fd < 0 || unlink(path) || ftruncate(fd, (off_t)sz))
		return 1;
	for (size_t o = 0; o < sz; o += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), (off_t)o) < 0)
			return 1;
	t0 = now();
	while (now() - t0 < 2.0) {
		char *c = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), *c2;
		double a, b, d, e, f, g;

		if (c == MAP_FAILED)
			return 1;
		a = now();
		if (madvise(c, sz, MADV_POPULATE_WRITE)) {
			perror("madvise(MADV_POPULATE_WRITE)");
			return 1;
		}
		b = now();
		for (i = 0; i < np; i++)
			((volatile char *)c)[i * 4096] = 0;
		d = now();
		munmap(c, sz);
		e = now();
		c2 = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (c2 == MAP_FAILED)
			return 1;
		f = now();
		for (i = 0; i < np; i++)
			((volatile char *)c2)[i * 4096] = 0;
		g = now();
		munmap(c2, sz);
		tp += b - a;
		ts += d - b;
		tu += e - d;
		tf += g - f;
		it++;
	}
	n = (double)it * (double)np;
	printf("%d rounds: populate_write %.1f, stores after it %.1f, munmap %.1f ns a page; "
	       "faulting pass %.1f ns a page\n", it, tp * 1e9 / n, ts * 1e9 / n, tu * 1e9 / n,
	       tf * 1e9 / n);
	return 0;
}
