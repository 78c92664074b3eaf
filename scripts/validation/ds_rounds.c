// SPDX-License-Identifier: GPL-2.0-only
/*
 * deferred-split's rounds, one by one: THREADS threads of one process (1 or
 * 2, pinned to CPUs 0 and 1), each ROUNDS rounds of mmap 16 MiB, a store a
 * 16K page (the 16K mTHP enabled by the caller), munmap; the TSC at each
 * round's start, before its munmap and at its end.  It prints each thread's
 * fault phase and munmap, mean and standard deviation over the rounds after
 * the fifth, the second thread's start less the first's every tenth round
 * (how their phase wanders) and how many munmaps overlap.  Memory is
 * touched and freed first (PREFAULT MiB, default 1024), as live mode does,
 * so that the rounds do not meet pages the host has taken back.  The TSC
 * at MMSIM_TSC_MHZ (default 2596).  As root (docs/validation.md,
 * "deferred-split at two threads"):
 *   gcc -O2 -pthread -o ds_rounds scripts/validation/ds_rounds.c -lm
 *   echo always > /sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled
 *   ./ds_rounds 2 200; ./ds_rounds 1 200
 *   CPU=0 ./ds_rounds 1 200 & CPU=1 ./ds_rounds 1 200; wait   (two processes)
 * (CPU=N: the threads from CPU N on.)
 *   echo never > /sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

#define MAX_ROUNDS 10000
#define REGION (16UL << 20)
#define STEP 16384UL

static unsigned long long t_start[2][MAX_ROUNDS], t_unmap[2][MAX_ROUNDS], t_end[2][MAX_ROUNDS];
static pthread_barrier_t start;
static int rounds;

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(getenv("CPU") ? atoi(getenv("CPU")) + id : id, &s);
	sched_setaffinity(0, sizeof(s), &s);
	pthread_barrier_wait(&start);
	for (int r = 0; r < rounds; r++) {
		char *p;

		t_start[id][r] = __rdtsc();
		p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			exit(1);
		for (unsigned long i = 0; i < REGION; i += STEP)
			p[i] = 1;
		t_unmap[id][r] = __rdtsc();
		munmap(p, REGION);
		t_end[id][r] = __rdtsc();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mhz = getenv("MMSIM_TSC_MHZ"), *pre = getenv("PREFAULT");
	double m = mhz ? atof(mhz) : 2596;
	size_t pz = (size_t)(pre ? atol(pre) : 1024) << 20;
	int nt = argc > 1 ? atoi(argv[1]) : 2, overlaps = 0;
	pthread_t t[2];

	rounds = argc > 2 ? atoi(argv[2]) : 200;
	if (nt < 1 || nt > 2 || rounds < 10 || rounds > MAX_ROUNDS || m <= 0) {
		fprintf(stderr, "usage: ds_rounds THREADS(1-2) ROUNDS(10-%d)\n", MAX_ROUNDS);
		return 2;
	}
	if (pz) {
		char *q = mmap(NULL, pz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (q == MAP_FAILED)
			return 1;
		for (size_t i = 0; i < pz; i += 4096)
			q[i] = 1;
		munmap(q, pz);
	}
	pthread_barrier_init(&start, NULL, (unsigned)nt);
	for (long i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	for (int id = 0; id < nt; id++) {
		double sf = 0, sf2 = 0, su = 0, su2 = 0, mf, mu;
		int n = 0;

		for (int r = 5; r < rounds; r++) {
			double f = (double)(t_unmap[id][r] - t_start[id][r]) / m;
			double u = (double)(t_end[id][r] - t_unmap[id][r]) / m;

			sf += f;
			sf2 += f * f;
			su += u;
			su2 += u * u;
			n++;
		}
		mf = sf / n;
		mu = su / n;
		printf("thread %d: fault phase %.0f us (sd %.0f), munmap %.0f us (sd %.0f)\n", id, mf,
		       sqrt(sf2 / n - mf * mf), mu, sqrt(su2 / n - mu * mu));
	}
	if (nt == 2) {
		printf("second thread's start less the first's, every tenth round (us):");
		for (int r = 0; r < rounds; r += 10)
			printf(" %.0f", ((double)t_start[1][r] - (double)t_start[0][r]) / m);
		for (int r = 0; r < rounds; r++)
			for (int q = 0; q < rounds; q++)
				overlaps += t_unmap[1][q] < t_end[0][r] && t_end[1][q] > t_unmap[0][r];
		printf("\nmunmaps that overlap: %d in %d rounds\n", overlaps, rounds);
	}
	return 0;
}
