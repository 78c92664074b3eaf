// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whether two vCPUs share a last-level cache, and what a workload loses to
 * a neighbour that streams through it.  Two modes:
 *   l3_share pingpong      half a round trip of a line between CPUs 0 and 1
 *                          (ns; about 40 when the host placed the two vCPUs
 *                          on one core complex, about 180-220 when not, on
 *                          this project's guest)
 *   l3_share stream MIB    on the CPU it is pinned to (taskset), read one
 *                          byte a line of MIB MiB, again and again, until
 *                          killed: a neighbour that fills MIB of the L3
 * scripts/validation/l3_share.sh runs page_fault3 beside it
 * (docs/validation.md, "page_fault3 at two tasks: the shared L3").
 *   gcc -O2 -pthread -o l3_share scripts/validation/l3_share.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 200000L

static _Atomic long flag __attribute__((aligned(64)));

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *pong(void *arg)
{
	(void)arg;
	pin(1);
	for (long i = 1; i <= ROUNDS; i += 2) {
		while (atomic_load(&flag) != i)
			;
		atomic_store(&flag, i + 1);
	}
	return NULL;
}

static int pingpong(void)
{
	struct timespec a, b;
	pthread_t t;

	pin(0);
	if (pthread_create(&t, NULL, pong, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < ROUNDS; i += 2) {
		atomic_store(&flag, i + 1);
		while (atomic_load(&flag) != i + 2)
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	printf("%.0f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
	       (double)ROUNDS);
	return 0;
}

static int stream(long mib)
{
	size_t n = (size_t)mib << 20;
	volatile uint64_t sink;
	uint64_t s = 0;
	char *p = malloc(n);

	if (!p)
		return 1;
	memset(p, 1, n);
	for (;;) {
		for (size_t i = 0; i < n; i += 64)
			s += (unsigned char)p[i];
		sink = s;
	}
	(void)sink;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "pingpong"))
		return pingpong();
	if (argc == 3 && !strcmp(argv[1], "stream") && atol(argv[2]) > 0)
		return stream(atol(argv[2]));
	fprintf(stderr, "usage: l3_share pingpong | l3_share stream MIB\n");
	return 2;
}
