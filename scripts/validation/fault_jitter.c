// SPDX-License-Identifier: GPL-2.0-only
/*
 * The spread of single write faults, the whole distribution: ROUNDS rounds
 * of a 16 MiB anonymous region, one store each KIB KiB (4: a 4K fault; 16
 * with the 16K mTHP enabled: a 16K fault), each timed alone with the TSC
 * around the faulting store, after 1 GiB touched and freed (live mode's
 * prefault) and two rounds not counted.  It prints the mean, the standard
 * deviation and the percentiles from 1 to 99.9 (ns; the TSC at
 * MMSIM_TSC_MHZ, default 2596).  calibrate's mm.fault_spread_ns takes the
 * p10-p90 width of 4K faults (docs/validation.md, "deferred-split at two
 * threads"):
 *   gcc -O2 -o fault_jitter scripts/validation/fault_jitter.c -lm
 *   taskset -c 0 ./fault_jitter 4 20
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

#define REGION (16UL << 20)

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *mhz = getenv("MMSIM_TSC_MHZ");
	double g = (mhz ? atof(mhz) : 2596) / 1000, s = 0, s2 = 0, m, *v;
	size_t step = (size_t)(argc > 1 ? atol(argv[1]) : 4) << 10, nf, n = 0, pz = 1UL << 30;
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	char *q;

	if (step < 4096 || step > REGION || rounds < 1 || rounds > 1000 || g <= 0) {
		fprintf(stderr, "usage: fault_jitter KIB(4-16384) ROUNDS(1-1000)\n");
		return 2;
	}
	nf = REGION / step;
	v = malloc(sizeof(*v) * nf * (size_t)rounds);
	q = mmap(NULL, pz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!v || q == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < pz; i += 4096)
		q[i] = 1;
	munmap(q, pz);
	for (int r = 0; r < rounds + 2; r++) {
		char *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (size_t i = 0; i < nf; i++) {
			unsigned long long t0 = __rdtsc();

			p[i * step] = 1;
			if (r >= 2)
				v[n++] = (double)(__rdtsc() - t0) / g;
		}
		munmap(p, REGION);
	}
	for (size_t i = 0; i < n; i++) {
		s += v[i];
		s2 += v[i] * v[i];
	}
	m = s / (double)n;
	qsort(v, n, sizeof(*v), cmp);
	printf("%zu faults: mean %.0f sd %.0f; p1 %.0f p10 %.0f p25 %.0f p50 %.0f p75 %.0f p90 %.0f "
	       "p99 %.0f p99.9 %.0f\n", n, m, sqrt(s2 / (double)n - m * m), v[n / 100], v[n / 10],
	       v[n / 4], v[n / 2], v[n * 3 / 4], v[n * 9 / 10], v[n * 99 / 100], v[n * 999 / 1000]);
	free(v);
	return 0;
}
