// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page cache's folio sizes and a shared mapping's faults, as
 * will-it-scale's page_fault3 meets them: a sparse file of SIZE MiB in
 * /tmp (mkstemp(), ftruncate()), read through with 64 KiB read()s as live
 * mode fills one ("pread") or left empty for the first pass's faults to
 * fill ("fault"); then PASSES passes of mmap(MAP_SHARED), one store a page,
 * munmap(), each with its faults (getrusage()) and time.  After the last
 * pass's stores, as root, the folios by order (/proc/self/pagemap and
 * /proc/kpageflags: a run of pages after a head page is one folio).
 * docs/validation.md has what this project's guest printed:
 *   gcc -O2 -o pcf scripts/validation/page_cache_folios.c && ./pcf 128 3 pread
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define KPF_COMPOUND_TAIL	16	/* include/uapi/linux/kernel-page-flags.h */

static long faults(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt + r.ru_majflt;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The folios mapped at @c, @pages pages, by order (root). */
static void orders(const char *c, size_t pages)
{
	int pm = open("/proc/self/pagemap", O_RDONLY), kf = open("/proc/kpageflags", O_RDONLY);
	long hist[16] = { 0 }, run = 0;

	if (pm < 0 || kf < 0) {
		printf("folios: /proc/self/pagemap or /proc/kpageflags not readable (root)\n");
		return;
	}
	for (size_t i = 0; i <= pages; i++) {
		uint64_t e = 0, fl = 0;
		int o = 0;

		if (i < pages) {
			pread(pm, &e, 8, (off_t)(((uintptr_t)c / 4096 + i) * 8));
			pread(kf, &fl, 8, (off_t)((e & ((1ULL << 55) - 1)) * 8));
			if ((fl >> KPF_COMPOUND_TAIL) & 1) {
				run++;
				continue;
			}
		}
		if (run) {
			while ((1L << o) < run)
				o++;
			hist[o < 15 ? o : 15]++;
		}
		run = 1;
	}
	for (int o = 0; o < 16; o++)
		if (hist[o])
			printf("folios of order %d: %ld\n", o, hist[o]);
	close(pm);
	close(kf);
}

int main(int argc, char **argv)
{
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 128) << 20, pages = size / 4096;
	int passes = argc > 2 ? atoi(argv[2]) : 3;
	int fill = !(argc > 3 && !strcmp(argv[3], "fault"));
	char path[] = "/tmp/pcfXXXXXX";
	static char buf[65536];
	int fd = mkstemp(path);

	if (fd < 0 || unlink(path) || ftruncate(fd, (off_t)size)) {
		perror("the file");
		return 1;
	}
	for (size_t done = 0; fill && done < size; done += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), (off_t)done) <= 0) {
			perror("pread");
			return 1;
		}
	for (int p = 0; p < passes; p++) {
		long f0 = faults();
		double t0 = now_ns();
		char *c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (c == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (size_t i = 0; i < size; i += 4096)
			c[i] = 0;
		if (p == passes - 1)
			orders(c, pages);
		munmap(c, size);
		printf("pass %d: %ld faults, %.1f ns a page\n", p, faults() - f0,
		       (now_ns() - t0) / (double)pages);
	}
	return 0;
}
