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
 *   (--cost as mmsim's: one value of the scenario's profile), configured
 *   by the harness's plan as `mmsim run` configures them (src/harness/plan.c)
 *   e.g. bench_scenarios khugepaged-cold khugepaged-cold-kvm
 *        bench_scenarios reclaim-tlb --set duration=5s
 * Only bench/ reads the host clock.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/harness.h"
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
	struct plan_scenario p;
	struct plan_args a;
	char err[PLAN_ERR];
	int i, v, ret;

	/* --set and --cost as mmsim run takes them, configured by the harness's plan */
	memset(&a, 0, sizeof(a));
	a.seed = 1;
	a.seeds = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--set") && a.nr_sets < PLAN_MAX_SETS)
			a.sets[a.nr_sets++] = argv[++i];
		else if (!strcmp(argv[i], "--cost") && a.nr_costs < PLAN_MAX_SETS)
			a.costs[a.nr_costs++] = argv[++i];
	}
	ret = plan_scenario_prepare(s, &a, &p, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "bench_scenarios: error: %s: %s\n", s->name, err);
		plan_scenario_release(&p);
		return ret;
	}
	if (!header_done)
		printf("%-20s %-9s %8s %12s %8s %12s %8s\n", "scenario", "variant", "CPU s",
		       "events", "M ev/s", "tlb accesses", "M acc/s");
	header_done = true;
	for (v = 0; v < p.nr; v++) {
		double t0 = cpu_now(), dt;
		uint64_t acc;

		memset(&r, 0, sizeof(r));
		r.name = s->variants[p.idx[v]].name;
		if (plan_run_variant(&p, &p.cfg, v, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_scenarios: %s %s: %s\n", s->name, r.name, err);
			plan_scenario_release(&p);
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
	plan_scenario_release(&p);
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
