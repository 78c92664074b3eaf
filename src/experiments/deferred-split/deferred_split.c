// SPDX-License-Identifier: GPL-2.0-only
/*
 * The first seed: "mm: unqueue deferred split folios outside the lruvec
 * lock" (Joanne Koong, v3, Oct 2026).  `threads` workers on a 2-socket
 * Skylake-SP, memory bound to node 0, each mapping, faulting in (16K mTHP)
 * and unmapping 16 MiB, 200 times.  The post says threads; whether they
 * shared one mm, and how a round unmapped, are parameters, and the default
 * (one process each, munmap()) is the combination the published numbers
 * allow (docs/results.md).  Variants:
 *   unqueued - the kernel without the mTHP shrinker series: nothing queued;
 *   before   - every mTHP queued at fault; dying folios unqueued under lru_lock;
 *   after    - queued; unqueued after lru_lock is released (P1).
 * queueing_cost_pct is each variant's runtime relative to `unqueued`.
 * The workload is the shipped file deferred-split-rounds
 * (workloads/experiments/deferred-split-rounds.ini), run by the workload
 * executor (src/workload/sim.c); this file adds the model's settings and
 * the metrics (its hooks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/mm.h"
#include "mmsim/scenario.h"
#include "mmsim/workload.h"

extern const struct live_ops deferred_split_live;	/* live.c */

/* The variants, each with what it changes in the kernel model. */
static const struct sim_variant deferred_split_variants[] = {
	{ "unqueued", &(const struct mm_variant){ 0 } },
	{ "before", &(const struct mm_variant){ .queue_mthp_on_fault = true } },
	{ "after", &(const struct mm_variant){ .queue_mthp_on_fault = true,
					       .unqueue_after_lru_unlock = true } },
	{ NULL },
};

static int deferred_split_validate(const struct sim_run_config *cfg, char *err, size_t len)
{
	uint64_t threads = sim_param(cfg, "threads");
	uint64_t region = sim_param(cfg, "region");
	uint64_t mthp = sim_param(cfg, "mthp");
	uint64_t node_mem = sim_param(cfg, "node_memory");

	if (mthp & (mthp - 1) || mthp < PAGE_SIZE || mthp > PMD_SIZE) {
		snprintf(err, len, "mthp=%llu: expected a power of two from 4K to 2M",
			 (unsigned long long)mthp);
		return -1;
	}
	if (region % mthp) {
		snprintf(err, len, "region=%llu: expected a multiple of mthp (%llu)",
			 (unsigned long long)region, (unsigned long long)mthp);
		return -1;
	}
	if (threads > (uint64_t)sim_profile_nr_cpus(cfg->profile)) {
		snprintf(err, len, "threads=%llu: expected at most the %d CPUs of profile %s",
			 (unsigned long long)threads, sim_profile_nr_cpus(cfg->profile),
			 cfg->profile->machine_name);
		return -1;
	}
	if (threads * region > node_mem) {
		snprintf(err, len, "threads x region = %llu bytes: expected at most node_memory (%llu)",
			 (unsigned long long)(threads * region), (unsigned long long)node_mem);
		return -1;
	}
	return 0;
}

/* Every thread maps its region at once. */
static uint64_t deferred_split_mapped_bytes(const struct sim_run_config *cfg)
{
	return sim_param(cfg, "threads") * sim_param(cfg, "region");
}

/* The experiment's model settings (numactl --membind=0 and its two assumptions). */
static void deferred_split_setup(struct mm_model *m, const struct sim_run_config *cfg)
{
	m->preferred_nid = 0;		/* numactl --membind=0 */
	m->queue_after_ptl = sim_param(cfg, "queue_site") == 1;
	m->unqueue_batch_locked = sim_param(cfg, "unqueue_lock") == 1;
}

/* The experiment's metrics, from the engine and model before they are freed. */
static void deferred_split_collect(struct sim_engine *e, struct mm_model *m,
				   const struct sim_run_config *cfg, struct sim_variant_result *res)
{
	const struct scenario_ops *s = cfg->scenario;
	struct lock_class_stat *st;

	sim_result_set(s, res, "runtime_s", res->runtime_s);
	st = sim_lock_class(e, "lru_lock");
	sim_result_set(s, res, "lruvec_lock_wait_s", (double)st->wait_total / (double)SIM_SEC);
	st = sim_lock_class(e, "deferred_split_lru");
	sim_result_set(s, res, "deferred_split_lock_wait_s",
		       (double)st->wait_total / (double)SIM_SEC);
	sim_result_set(s, res, "faults", (double)res->counters[SIM_PGFAULT]);
	if (res->runtime_s > 0) {
		double run_ps = res->runtime_s * (double)SIM_SEC;

		sim_result_set(s, res, "node0_busy_pct",
			       100.0 * (double)m->memsys->node[0].busy_ps / run_ps);
		sim_result_set(s, res, "link_busy_pct",
			       m->memsys->nr_sockets > 1 ?
			       100.0 * (double)m->memsys->link[1][0].busy_ps / run_ps : 0.0);
	}
}

/*
 * The simulated workload is the shipped workload file deferred-split-rounds
 * (workloads/experiments/deferred-split-rounds.ini): its parameters are
 * this experiment's of the same names, its plan resolved with one vCPU per
 * worker, run by the workload executor with this experiment's hooks.
 */
static int deferred_split_run(const struct sim_run_config *cfg, int variant,
			      struct sim_variant_result *res, char *err, size_t len)
{
	static const struct wl_sim_hooks hooks = {
		.setup = deferred_split_setup,
		.collect = deferred_split_collect,
	};
	const struct scenario_ops *s = cfg->scenario;
	struct wl_sim_out out;
	struct wl_plan *plan;
	int ret;

	plan = workload_plan_for("deferred-split-rounds", cfg, (int)sim_param(cfg, "threads"),
				 err, len);
	if (!plan)
		return -1;
	ret = workload_sim_run(plan, cfg, s->variants[variant].mm, &hooks, res, &out, err, len);
	free(plan);
	return ret;
}

/* queueing_cost_pct: runtime relative to `unqueued`, when it ran. */
static void deferred_split_finish(const struct sim_run_config *cfg,
				  struct sim_variant_result *res, int nr)
{
	const struct scenario_ops *s = cfg->scenario;
	double base = 0;
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(res[i].name, "unqueued"))
			base = res[i].runtime_s;
	if (base <= 0)
		return;
	for (i = 0; i < nr; i++)
		sim_result_set(s, &res[i], "queueing_cost_pct",
			       (res[i].runtime_s / base - 1.0) * 100.0);
}

static const char *const deferred_split_unmap_choices[] = { "munmap", "dontneed", NULL };
static const char *const deferred_split_workers_choices[] = { "threads", "processes", NULL };
static const char *const deferred_split_queue_choices[] = { "under_ptl", "after_ptl", NULL };
static const char *const deferred_split_unqueue_choices[] = { "per_folio", "per_batch", NULL };
static const char *const deferred_split_phase_choices[] = { "random", "together", NULL };

static const struct sim_param deferred_split_params[] = {
	{ .key = "threads", .type = SIM_PARAM_COUNT, .def = 80, .min = 1, .max = SIM_MAX_CPUS,
	  .help = "threads of the process, one per CPU", .cpus_default = true,
	  .live = true, .has_live_def = true, .live_def = 2 },
	{ .key = "rounds", .type = SIM_PARAM_COUNT, .def = 200, .min = 1, .max = 1000000,
	  .help = "map/fault/unmap rounds per thread",
	  .live = true, .has_live_def = true, .live_def = 5 },
	{ .key = "region", .type = SIM_PARAM_SIZE, .def = 16ULL << 20, .min = 4096,
	  .max = 1ULL << 36, .help = "bytes mapped per round", .live = true },
	{ .key = "mthp", .type = SIM_PARAM_SIZE, .def = 16384, .min = 4096, .max = 2ULL << 20,
	  .help = "the one enabled anonymous mTHP size",
	  .live = true },
	{ .key = "node_memory", .type = SIM_PARAM_SIZE, .def = 96ULL << 30, .min = 1ULL << 20,
	  .max = 1ULL << 42, .help = "memory of each NUMA node" },
	{ .key = "unmap", .type = SIM_PARAM_ENUM, .def = 0, .min = 0, .max = 1,
	  .choices = deferred_split_unmap_choices,
	  .help = "how a round empties its region: munmap() or madvise(MADV_DONTNEED)",
	  .live = true },
	{ .key = "workers", .type = SIM_PARAM_ENUM, .def = 1, .min = 0, .max = 1,
	  .choices = deferred_split_workers_choices,
	  .help = "threads of one process (one mm) or one process each (the default: the published numbers exclude one mm with munmap, docs/results.md)",
	  .live = true, .has_live_def = true, .live_def = 0 },
	{ .key = "queue_site", .type = SIM_PARAM_ENUM, .def = 0, .min = 0, .max = 1,
	  .choices = deferred_split_queue_choices,
	  .help = "assumption: where the unpublished mTHP series queues a new folio at fault, under the PTL or after it" },
	{ .key = "unqueue_lock", .type = SIM_PARAM_ENUM, .def = 0, .min = 0, .max = 1,
	  .choices = deferred_split_unqueue_choices,
	  .help = "after: whether folio_batch_unqueue_deferred_split() takes the sublist lock per folio or once per batch (unpublished)" },
	{ .key = "start_spread", .type = SIM_PARAM_TIME, .def = 0, .min = 0,
	  .max = 10000000000ULL,
	  .help = "each worker starts after a random delay below this (0: all at once)",
	  .live = true },
	{ .key = "round_phase", .type = SIM_PARAM_ENUM, .def = 0, .min = 0, .max = 1,
	  .choices = deferred_split_phase_choices,
	  .help = "where each worker starts in its round: random (a random fault of it, as workers whose rounds drifted apart; chosen by the post's numbers, docs/results.md) or together (round 1's first fault: the rounds stay in step)",
	  .live = true },
	{ 0 },
};

/* Live: runtime and faults from the workload, the lock waits from perf lock. */
static const struct sim_metric deferred_split_metrics[] = {
	{ "runtime_s", "runtime (s)", 3, "s" },
	{ "lruvec_lock_wait_s", "lruvec lock wait, summed (s)", 2, "s" },
	{ "deferred_split_lock_wait_s", "deferred split lock wait, summed (s)", 2, "s" },
	{ "queueing_cost_pct", "queueing cost (% of runtime)", 1, "%",
	  .no_live = "needs a second kernel without deferred split queueing: compare "
		     "runtime_s of two kernels",
	  .relative_to = "unqueued" },
	{ "faults", "page faults", 0, "faults" },
	{ "node0_busy_pct", "node 0 DRAM busy (% of runtime)", 1, "%",
	  .no_live = "a node's DRAM busy time needs the uncore PMU, which live mode does not read" },
	{ "link_busy_pct", "link socket 1 -> 0 busy (% of runtime)", 1, "%",
	  .no_live = "the inter-socket link's busy time needs the uncore PMU, which live mode "
		     "does not read" },
	{ 0 },
};

/*
 * What the post does not say (docs/results.md): how a round unmaps, threads or
 * processes, how P1 takes the sublist lock, whether the workers' rounds were in step.
 */
static const char *const deferred_split_unpublished[] = { "unmap", "workers", "unqueue_lock",
							  "round_phase", NULL };

static const struct sim_published deferred_split_published[] = {
	/*
	 * Bands (issue 14): lruvec lock wait within 2x of 491 s and of 38 s,
	 * falling at least fivefold; queueing cost 8-22% before.
	 */
	{ "before", "lruvec_lock_wait_s", 491.0, .ratio = { 0.5, 2.0 } },
	{ "after", "lruvec_lock_wait_s", 38.0, .ratio = { 0.5, 2.0 },
	  .change_pct = { -100.0, -80.0 } },
	{ "before", "queueing_cost_pct", 15.0, .ratio = { 8.0 / 15.0, 22.0 / 15.0 } },
	{ NULL, NULL, 0 },
};

/* 20 rounds: the live default's 5 last about 50 ms, too short for a stable median */
static const char *const deferred_split_validate_sets[] = { "rounds=20", NULL };

const struct scenario_ops scenario_deferred_split = {
	.name = "deferred-split",
	.summary = "seed 000: unqueue deferred split folios outside the lruvec lock",
	.description = "80 workers (by default one process each; workers=threads for threads "
		       "of one process) on a 2-socket Skylake-SP, memory bound to node 0, each "
		       "mapping, faulting in (16K mTHP) and unmapping 16 MiB, 200 times; every "
		       "mTHP is queued for deferred split.",
	.profile = "skylake-sp-2s",
	.variants = deferred_split_variants,
	.baseline = "before",
	.changed = "after",
	.params = deferred_split_params,
	.metrics = deferred_split_metrics,
	.published = deferred_split_published,
	.published_source = "seed 000: Joanne Koong, [PATCH v3] mm: unqueue deferred split "
			    "folios outside the lruvec lock (Oct 2026); after: \"noise\"",
	.unpublished = deferred_split_unpublished,
	.validate = deferred_split_validate,
	.mapped_bytes = deferred_split_mapped_bytes,
	.run = deferred_split_run,
	.finish = deferred_split_finish,
	.live = &deferred_split_live,
	/* mainline does not queue mTHPs on the deferred split list at fault */
	.mainline = "unqueued",
	.tasks_param = "threads",
	.validate_sets = deferred_split_validate_sets,
};
