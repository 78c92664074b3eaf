// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copy-on-write faults on fresh memory, pass after pass: a process fills
 * SIZE MiB (MAP_POPULATE), forks a child that holds it, and writes one
 * byte per page (each a copy), then a second byte per page (no fault).
 * In a guest with free page reporting, the first pass over memory its
 * host has dropped pays the host's fault too (docs/validation.md):
 *   gcc -O2 -o cow scripts/validation/cow_first_touch.c && ./cow 512 3
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 512) << 20;
	int passes = argc > 2 ? atoi(argv[2]) : 3;
	size_t n = size / 4096;

	for (int r = 0; r < passes; r++) {
		volatile char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		double t0, t1, t2, t3;
		int pfd[2];
		pid_t child;
		char c;

		if (p == MAP_FAILED || pipe(pfd))
			return 1;
		child = fork();
		if (child < 0)
			return 1;
		if (!child) {		/* holds the pages until the parent is done */
			close(pfd[1]);
			if (read(pfd[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			p[i * 4096] = 2;
		t1 = now_ns();
		t2 = now_ns();
		for (size_t i = 0; i < n; i++)
			p[i * 4096 + 64] = 3;
		t3 = now_ns();
		close(pfd[1]);
		close(pfd[0]);
		waitpid(child, NULL, 0);
		munmap((void *)p, size);
		printf("%4zu MiB: copy-on-write %.0f ns/page, second touch %.0f ns/page\n",
		       size >> 20, (t1 - t0) / (double)n, (t3 - t2) / (double)n);
	}
	return 0;
}
