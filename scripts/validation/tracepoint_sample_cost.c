// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost of a perf sample of a tracepoint, as live mode's lock recorder
 * takes them: getppid() with an event on syscalls:sys_enter_getppid, first
 * counting only, then sampling every call without and with a kernel
 * callchain and the raw data, against getppid() untraced; thread CPU time
 * per call, the best of 5 runs of 20,000.  Root (tracefs at
 * /sys/kernel/tracing).  docs/validation.md, lock.contention_trace_ns:
 *   gcc -O2 -o tp scripts/validation/tracepoint_sample_cost.c && ./tp
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RB_PAGES	1024

static double cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static long tracepoint_id(const char *name)
{
	char path[256];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

static double per_call(int n)
{
	double t0 = cpu_ns();

	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (cpu_ns() - t0) / n;
}

int main(void)
{
	static const char *const what[] = { "counting", "sample, no callchain",
					     "sample + callchain + raw" };
	long id = tracepoint_id("syscalls/sys_enter_getppid");
	double base;

	if (id < 0) {
		fprintf(stderr, "no syscalls:sys_enter_getppid in /sys/kernel/tracing (root?)\n");
		return 2;
	}
	per_call(200000);
	base = per_call(200000);
	for (int mode = 0; mode < 3; mode++) {
		struct perf_event_attr a;
		void *rb = MAP_FAILED;
		double best = 0;
		int fd;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = (unsigned long long)id;
		a.sample_period = mode ? 1 : 0;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		if (mode == 2)
			a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
		a.exclude_callchain_user = 1;
		a.sample_max_stack = 16;
		a.inherit = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fd < 0) {
			perror("perf_event_open");
			return 1;
		}
		if (mode)
			rb = mmap(NULL, (1 + RB_PAGES) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				  fd, 0);
		for (int k = 0; k < 5; k++) {
			double t = per_call(20000);

			if (!k || t < best)
				best = t;
			if (rb != MAP_FAILED) {	/* empty the buffer: nothing is lost */
				struct perf_event_mmap_page *m = rb;

				m->data_tail = m->data_head;
			}
		}
		printf("%s: %.0f ns per getppid (untraced %.0f): +%.0f ns\n", what[mode], best,
		       base, best - base);
		if (rb != MAP_FAILED)
			munmap(rb, (1 + RB_PAGES) * 4096);
		close(fd);
	}
	return 0;
}
