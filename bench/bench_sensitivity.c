// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host time of `mmsim sensitivity` at the scale the tests use, one scenario
 * after another: the wall time and the CPU time of mmsim and its pool of
 * processes (getrusage of the children), against the goal of issue 17,
 * under five minutes of host time per scenario on the 2-core machine.
 *
 * Usage: bench_sensitivity [MMSIM]   (default ./build/mmsim; runs --jobs 2)
 * Only bench/ reads the host clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GOAL_S	300.0

/* The scales of tests/uncertainty.sh and tests/golden/cases.txt. */
static const char *const cases[][12] = {
	{ "deferred-split", "--set", "threads=8", "--set", "rounds=4", "--set", "region=1M" },
	{ "reclaim-tlb", "--set", "workers=4", "--set", "vm_bytes=32M", "--set",
	  "memcg_limit=8M", "--set", "swap=64M", "--set", "duration=20ms" },
	{ "khugepaged-cold", "--set", "task_size=8M", "--set", "accesses=2000000", "--set",
	  "pages_to_scan=4096" },
	{ "spinlock", "--set", "cpus=8", "--set", "iterations=200" },
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double children_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "./build/mmsim";
	size_t k;
	int bad = 0;

	printf("%-16s %10s %10s  %s\n", "scenario", "wall s", "CPU s", "goal: CPU under 300 s");
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *args[20];
		int n = 0, st, i;
		double w0 = wall_now(), c0 = children_cpu(), cpu;
		pid_t pid;

		args[n++] = (char *)bin;
		args[n++] = "sensitivity";
		for (i = 0; cases[k][i]; i++)
			args[n++] = (char *)cases[k][i];
		args[n++] = "--jobs";
		args[n++] = "2";
		args[n] = NULL;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(127);
			execv(bin, args);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "bench_sensitivity: %s sensitivity %s failed\n", bin,
				cases[k][0]);
			return 1;
		}
		cpu = children_cpu() - c0;
		printf("%-16s %10.2f %10.2f  %s\n", cases[k][0], wall_now() - w0, cpu,
		       cpu < GOAL_S ? "met" : "NOT met");
		bad |= cpu >= GOAL_S;
	}
	return bad;
}
