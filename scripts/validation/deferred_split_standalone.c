// SPDX-License-Identifier: GPL-2.0-only
/*
 * deferred-split's live accesses without mmsim: N threads of one process, each
 * 20 times mapping 16 MiB, storing one byte per 16 KiB (one fault per 16K
 * mTHP when hugepages-16kB/enabled is "always") and unmapping it.  Used
 * by docs/validation.md to separate the kernel from live mode's harness:
 *   gcc -O2 -pthread -o ds scripts/validation/deferred_split_standalone.c
 *   /usr/bin/time -f %e ./ds 2
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#define REGION (16UL << 20)
#define STEP (16UL << 10)
#define ROUNDS 20

static void *worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		char *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(1);
		for (size_t i = 0; i < REGION; i += STEP)
			p[i] = 1;
		munmap(p, REGION);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
