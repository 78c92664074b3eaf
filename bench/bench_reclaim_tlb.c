// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host time of the reclaim-tlb scenario (seed 003), both variants.
 * Usage: bench_reclaim_tlb [duration_ms [vm_bytes_mb [memcg_mb]]]
 * Default: the published scale (60 s of virtual time, 2G over 512M).
 * Only bench/ reads the host clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmsim/profile.h"
#include "mmsim/scenario.h"

static double host_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const struct scenario_ops *s = sim_scenario_find("reclaim-tlb");
	struct sim_variant_result r;
	struct sim_run_config cfg;
	struct sim_profile p;
	char err[256];
	int v;

	if (!s || sim_profile_load("server-16", &p, err, sizeof(err)))
		return 1;
	sim_run_config_init(&cfg, s, &p, 1);
	if (argc > 1)
		cfg.params[sim_scenario_param_index(s, "duration")] = strtoull(argv[1], NULL, 0) * 1000000ULL;
	if (argc > 2)
		cfg.params[sim_scenario_param_index(s, "vm_bytes")] = strtoull(argv[2], NULL, 0) << 20;
	if (argc > 3)
		cfg.params[sim_scenario_param_index(s, "memcg_limit")] = strtoull(argv[3], NULL, 0) << 20;
	for (v = 0; s->variants[v]; v++) {
		double t0 = host_now();

		memset(&r, 0, sizeof(r));
		r.name = s->variants[v];
		if (s->run(&cfg, v, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_reclaim_tlb: %s\n", err);
			return 1;
		}
		printf("%-7s host %.2f s  events %llu  bogo_ops_per_s %.2f\n", r.name,
		       host_now() - t0, (unsigned long long)r.events,
		       r.metrics[sim_scenario_metric_index(s, "bogo_ops_per_s")]);
	}
	return 0;
}
