// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a busy CPU loses to interrupts and, in a guest, to its host: a loop
 * that reads the TSC and counts each gap of more than 300 ns between two
 * reads, for SECONDS, with their durations by class and the share of the
 * time they took (docs/validation.md, "deferred-split at two threads").
 * The TSC at MMSIM_TSC_MHZ (default 2596, this project's guest):
 *   gcc -O2 -o busy_gaps scripts/validation/busy_gaps.c
 *   taskset -c 0 ./busy_gaps 3; taskset -c 1 ./busy_gaps 3
 */
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#define MAX_GAPS 200000

static double gap[MAX_GAPS];

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *mhz = getenv("MMSIM_TSC_MHZ");
	double ghz = (mhz ? atof(mhz) : 2596) / 1000, secs = argc > 1 ? atof(argv[1]) : 2, sum = 0;
	unsigned long long end, prev, t, min = (unsigned long long)(300 * ghz);
	static const double edge[] = { 1000, 2000, 5000, 20000, 100000 };
	int n = 0, cls[6] = { 0 };

	if (secs <= 0 || ghz <= 0) {
		fprintf(stderr, "usage: busy_gaps SECONDS (MMSIM_TSC_MHZ: the TSC's MHz)\n");
		return 2;
	}
	prev = __rdtsc();
	end = prev + (unsigned long long)(secs * ghz * 1e9);
	while ((t = __rdtsc()) < end) {
		if (t - prev > min && n < MAX_GAPS)
			gap[n++] = (double)(t - prev) / ghz;
		prev = t;
	}
	for (int i = 0; i < n; i++) {
		int c = 0;

		while (c < 5 && gap[i] >= edge[c])
			c++;
		cls[c]++;
		sum += gap[i];
	}
	printf("%d gaps over 300 ns in %.1f s (%.0f a second), %.3f%% of the time; "
	       "<1 us %d, 1-2 us %d, 2-5 us %d, 5-20 us %d, 20-100 us %d, >100 us %d\n",
	       n, secs, n / secs, sum / (secs * 1e9) * 100, cls[0], cls[1], cls[2], cls[3], cls[4],
	       cls[5]);
	if (n) {
		qsort(gap, (size_t)n, sizeof(*gap), cmp);
		printf("median gap %.0f ns, p90 %.0f ns\n", gap[n / 2], gap[n * 9 / 10]);
	}
	return 0;
}
