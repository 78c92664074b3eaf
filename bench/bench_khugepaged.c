// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host speed of the khugepaged-cold scenarios (seed 004): for each variant
 * of khugepaged-cold (desktop) and khugepaged-cold-kvm (desktop-kvm), the
 * host CPU time of the run, the accesses simulated through the TLB model
 * (all tasks: sim_tlb_accesses) and those accesses per host CPU second.
 * Usage: bench_khugepaged [accesses]
 * Default: the published scale (hot2's 327.8 M accesses).  Only bench/
 * reads the host clock.
 */
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

int main(int argc, char **argv)
{
	static const char *const names[] = { "khugepaged-cold", "khugepaged-cold-kvm" };
	struct sim_variant_result r;
	struct sim_run_config cfg;
	struct sim_profile p;
	double total = 0;
	char err[256];
	int n, v;

	for (n = 0; n < 2; n++) {
		const struct scenario_ops *s = sim_scenario_find(names[n]);

		if (!s || sim_profile_load(s->profile, &p, err, sizeof(err))) {
			fprintf(stderr, "bench_khugepaged: %s: %s\n", names[n], s ? err : "no such scenario");
			return 1;
		}
		sim_run_config_init(&cfg, s, &p, 1);
		if (argc > 1)
			cfg.params[sim_scenario_param_index(s, "accesses")] = strtoull(argv[1], NULL, 0);
		for (v = 0; s->variants[v]; v++) {
			double t0 = cpu_now(), dt;
			uint64_t acc;

			memset(&r, 0, sizeof(r));
			r.name = s->variants[v];
			if (s->run(&cfg, v, &r, err, sizeof(err))) {
				fprintf(stderr, "bench_khugepaged: %s %s: %s\n", names[n], r.name, err);
				return 1;
			}
			dt = cpu_now() - t0;
			total += dt;
			acc = r.counters[SIM_TLB_ACCESSES];
			printf("%-20s %-6s host CPU %6.2f s  accesses %11llu  %6.1f M accesses/s\n",
			       names[n], r.name, dt, (unsigned long long)acc, acc / dt / 1e6);
		}
	}
	printf("all four runs: %.2f s of host CPU time\n", total);
	return 0;
}
