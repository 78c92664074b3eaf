// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host speed of whole scenario runs: for each variant of each scenario
 * named, the host CPU time of the run, the engine events it took and, for
 * scenarios whose tasks access memory through the TLB model, those
 * accesses (sim_tlb_accesses, all tasks) per host CPU second.  Runs one
 * variant after another in this process, at the scenario's defaults (the
 * published scale) unless --set changes them.
 *
 * Usage: bench_scenarios [SCENARIO ...] [--set KEY=VALUE ...] [--cost SECTION.KEY=VALUE ...]
 *   no scenario: all of them; --set and --cost apply to every scenario named
 *   (--cost as mmsim's: one value of the scenario's profile)
 *   e.g. bench_scenarios khugepaged-cold khugepaged-cold-kvm
 *        bench_scenarios reclaim-tlb --set duration=5s
 * Only bench/ reads the host clock.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmsim/counters.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"

/* CPU time of this process: on a shared host it leaves out other processes. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool header_done;

static int bench_one(const struct scenario_ops *s, int argc, char **argv, double *total)
{
	struct sim_variant_result r;
	struct sim_run_config cfg;
	struct sim_profile p;
	char err[256];
	int i, v;

	if (sim_profile_load(s->profile, &p, err, sizeof(err))) {
		fprintf(stderr, "bench_scenarios: error: %s: %s\n", s->name, err);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--cost") &&
		    sim_profile_set(&p, argv[++i], err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_scenarios: error: %s: %s\n", s->name, err);
			return 2;
		}
	sim_run_config_init(&cfg, s, &p, 1);
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--set") &&
		    sim_run_config_set(&cfg, argv[++i], err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_scenarios: error: %s: %s\n", s->name, err);
			return 2;
		}
	if (s->validate && s->validate(&cfg, err, sizeof(err))) {
		fprintf(stderr, "bench_scenarios: error: %s: %s\n", s->name, err);
		return 2;
	}
	if (!header_done)
		printf("%-20s %-9s %8s %12s %8s %12s %8s\n", "scenario", "variant", "CPU s",
		       "events", "M ev/s", "tlb accesses", "M acc/s");
	header_done = true;
	for (v = 0; s->variants[v].name; v++) {
		double t0 = cpu_now(), dt;
		uint64_t acc;

		memset(&r, 0, sizeof(r));
		r.name = s->variants[v].name;
		if (s->run(&cfg, v, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_scenarios: %s %s: %s\n", s->name, r.name, err);
			return 1;
		}
		dt = cpu_now() - t0;
		*total += dt;
		acc = r.counters[SIM_TLB_ACCESSES];
		printf("%-20s %-9s %8.2f %12llu %8.2f", s->name, r.name, dt,
		       (unsigned long long)r.events, (double)r.events / dt / 1e6);
		if (acc)
			printf(" %12llu %8.1f", (unsigned long long)acc, (double)acc / dt / 1e6);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	double total = 0;
	int i, named = 0, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--set") || !strcmp(argv[i], "--cost")) {
			if (++i == argc) {
				fprintf(stderr, "bench_scenarios: error: %s needs a value\n", argv[i - 1]);
				return 2;
			}
			continue;
		}
		if (!sim_scenario_find(argv[i])) {
			fprintf(stderr, "bench_scenarios: error: unknown scenario '%s'\n", argv[i]);
			return 2;
		}
		named++;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--set") || !strcmp(argv[i], "--cost")) {
			i++;
			continue;
		}
		ret = bench_one(sim_scenario_find(argv[i]), argc, argv, &total);
		if (ret)
			return ret;
	}
	for (i = 0; !named && sim_scenarios[i]; i++) {
		ret = bench_one(sim_scenarios[i], argc, argv, &total);
		if (ret)
			return ret;
	}
	printf("all runs: %.2f s of host CPU time\n", total);
	return 0;
}
