// SPDX-License-Identifier: GPL-2.0-only
/*
 * The second seed: "mm: batch TLB flushing for dirty folios in vmscan"
 * (Zhang Peng, v4 0/5, May 2026).  `stress-ng --vm 16 --vm-bytes 2G
 * --vm-keep --timeout 60` in a memcg limited to 512M with 8G of swap, on
 * 16 CPUs.  Each worker is a process; the memcg's direct reclaim swaps
 * their anon folios out, and every dirty folio's write needs its stale
 * TLB entries flushed first.  Variants:
 *   before - try_to_unmap_flush_dirty() once per dirty folio;
 *   after  - up to 31 dirty folios per flush (pageout_batch()).
 * Metrics: bogo ops/s over the timeout, /proc/interrupts' TLB and CAL
 * rows summed over CPUs, vmstat pgscan_anon and pgsteal_anon.
 *
 * The workers start as stress-ng starts them (start=fork: the main process
 * forks the instances, each forks its worker; the scheduler places each
 * fork), or worker i on cpu i mod the CPUs (start=direct); they may move
 * (src/mm/fair.c);
 * every vCPU has the profile's TLB (src/mm/access.c), which the workers'
 * accesses go through.  The swap device is zram by default (see
 * docs/results.md "reclaim-tlb" for the evidence), ssd as a parameter.
 * worker_kind=threads runs the workers as threads of one process (one mm,
 * one VMA each), for comparison; stress-ng forks processes.
 */
#include <stdio.h>
#include <string.h>

#include "mm/access.h"
#include "mm/mm.h"
#include "mmsim/scenario.h"
#include "experiments/reclaim-tlb/stress_vm.h"

extern const struct live_ops reclaim_tlb_live;	/* live.c */

/* The variants, each with what it changes in the kernel model. */
static const struct sim_variant reclaim_tlb_variants[] = {
	{ "before", &(const struct mm_variant){ 0 } },
	{ "after", &(const struct mm_variant){ .batch_dirty_flush = true } },
	{ NULL },
};

static int reclaim_tlb_validate(const struct sim_run_config *cfg, char *err, size_t len)
{
	uint64_t workers = sim_param(cfg, "workers");
	uint64_t bytes = sim_param(cfg, "vm_bytes");

	if (bytes / workers < PAGE_SIZE) {
		snprintf(err, len, "vm_bytes=%llu: expected at least 4K per worker",
			 (unsigned long long)bytes);
		return -1;
	}
	if (sim_param(cfg, "memcg_limit") > sim_param(cfg, "node_memory")) {
		snprintf(err, len, "memcg_limit=%llu: expected at most node_memory",
			 (unsigned long long)sim_param(cfg, "memcg_limit"));
		return -1;
	}
	return 0;
}

/* The workers map vm_bytes between them. */
static uint64_t reclaim_tlb_mapped_bytes(const struct sim_run_config *cfg)
{
	return sim_param(cfg, "vm_bytes");
}

/*
 * stress-ng's start (stress-ng.c and core-out-of-memory.c, ColinIanKing/
 * stress-ng): the main process forks one process per --vm instance; each
 * runs stress_vm(), which forks its worker in stress_oomable_child() and
 * waits for it (waitpid()); the main process waits for the instances.
 * Every process has its own mm; every fork is placed by the scheduler
 * (sim_task_fork(): sched_balance_find_dst_cpu()).
 */
struct reclaim_tlb_proc {
	struct mm_struct *mm;			/* this process's own */
	struct stress_vm_worker *w;		/* an instance's worker */
	struct reclaim_tlb_proc *inst;		/* main: the instances */
	uint64_t nr;
};

static void stress_ng_instance(void *arg)
{
	struct reclaim_tlb_proc *p = arg;
	struct sim_task *child;

	switch_mm_irqs_off(p->mm);
	child = sim_task_fork("stress-ng-vm", stress_vm_worker, p->w);
	if (child)
		sim_waitpid(child);
}

static void stress_ng_main(void *arg)
{
	struct reclaim_tlb_proc *p = arg;
	struct sim_task *inst[SIM_MAX_CPUS];
	uint64_t i;

	switch_mm_irqs_off(p->mm);
	for (i = 0; i < p->nr; i++)
		inst[i] = sim_task_fork("stress-ng-vm", stress_ng_instance, &p->inst[i]);
	for (i = 0; i < p->nr; i++)
		if (inst[i])
			sim_waitpid(inst[i]);
}

static int reclaim_tlb_run(const struct sim_run_config *cfg, int variant,
			   struct sim_variant_result *res, char *err, size_t len)
{
	const struct scenario_ops *s = cfg->scenario;
	uint64_t nr = sim_param(cfg, "workers");
	struct sim_engine_opts o = {
		.profile = cfg->profile,
		.nr_cpus = sim_profile_nr_cpus(cfg->profile),
		.seed = cfg->seed,
		.check = cfg->check,
	};
	struct stress_vm_worker *w = NULL;
	struct reclaim_tlb_proc *procs = NULL;	/* [0]: main, [1..nr]: the instances */
	bool fork_start = sim_param(cfg, "start") == 0;
	bool threads = sim_param(cfg, "worker_kind") == 1;
	struct sim_engine *e;
	struct mm_model *m;
	uint64_t i, bogo = 0;
	double secs;
	int ret = -1;

	e = sim_engine_create(&o);
	if (!e) {
		snprintf(err, len, "cannot create an engine of %d vCPUs", o.nr_cpus);
		return -1;
	}
	m = mm_model_create(e, s->variants[variant].mm,
			    (long)(sim_param(cfg, "node_memory") >> PAGE_SHIFT), err, len);
	if (!m)
		goto out_engine;
	m->root_memcg->memory.max = (long)(sim_param(cfg, "memcg_limit") >> PAGE_SHIFT);
	m->lru_gen_enabled = sim_param(cfg, "lru") == 1;
	if (mm_tlb_init(e)) {
		snprintf(err, len, "profile %s: cannot build its TLBs", cfg->profile->machine_name);
		goto out_model;
	}
	if (swap_device_create(sim_param(cfg, "swap"), sim_param(cfg, "swap_device") == 1)) {
		snprintf(err, len, "out of memory for the swap map");
		goto out_model;
	}
	w = calloc(nr, sizeof(*w));
	if (!w) {
		snprintf(err, len, "out of memory");
		goto out_model;
	}
	if (fork_start) {
		procs = calloc(nr + 1, sizeof(*procs));
		if (!procs) {
			snprintf(err, len, "out of memory");
			goto out_workers;
		}
		procs[0].inst = &procs[1];
		procs[0].nr = nr;
		for (i = 0; i <= nr; i++)
			procs[i].mm = mm_alloc(m->root_memcg);
		if (!sim_task_create(e, 0, "stress-ng", stress_ng_main, &procs[0])) {
			snprintf(err, len, "cannot create stress-ng's main process");
			goto out_workers;
		}
	}
	for (i = 0; i < nr; i++) {
		w[i].mm = threads && i ? w[0].mm : mm_alloc(m->root_memcg);
		w[i].bytes = (sim_param(cfg, "vm_bytes") / nr) & ~(PAGE_SIZE - 1);
		w[i].duration = sim_param(cfg, "duration") * SIM_NS;
		w[i].version = (unsigned int)sim_param(cfg, "stress_ng");
		if (fork_start) {
			procs[i + 1].w = &w[i];
			continue;
		}
		if (!sim_task_create(e, (int)(i % (uint64_t)o.nr_cpus), "stress-ng-vm",
				     stress_vm_worker, &w[i])) {
			snprintf(err, len, "cannot create worker %llu", (unsigned long long)i);
			goto out_workers;
		}
	}
	if (sim_engine_run(e, err, len))
		goto out_workers;
	if (cfg->check)
		mm_check_final();
	sim_result_collect(e, res);
	for (i = 0; i < nr; i++)
		bogo += stress_vm_bogo_ops(&w[i]);
	secs = (double)sim_param(cfg, "duration") / 1e9;
	sim_result_set(s, res, "bogo_ops_per_s", (double)bogo / secs);
	sim_result_set(s, res, "tlb_shootdowns", (double)res->counters[SIM_IRQ_TLB_COUNT]);
	sim_result_set(s, res, "function_call_ipis", (double)res->counters[SIM_IRQ_CALL_COUNT]);
	sim_result_set(s, res, "pgscan_anon", (double)res->counters[SIM_PGSCAN_ANON]);
	sim_result_set(s, res, "pgsteal_anon", (double)res->counters[SIM_PGSTEAL_ANON]);
	ret = 0;
out_workers:
	for (i = 0; i < nr; i++)
		if (w[i].mm && !(threads && i))
			mm_free(w[i].mm);
	free(w);
	if (procs)
		for (i = 0; i <= nr; i++)
			if (procs[i].mm)
				mm_free(procs[i].mm);
	free(procs);
out_model:
	mm_tlb_destroy(e);
	mm_model_destroy(m);
out_engine:
	sim_engine_destroy(e);
	return ret;
}

static const char *const reclaim_tlb_swap_devices[] = { "ssd", "zram", NULL };
static const char *const reclaim_tlb_worker_kinds[] = { "processes", "threads", NULL };
static const char *const reclaim_tlb_starts[] = { "fork", "direct", NULL };
static const char *const reclaim_tlb_stress_ng[] = { "v0.22", "v0.19", "v0.17", "v0.15", NULL };
static const char *const reclaim_tlb_lrus[] = { "classic", "mglru", NULL };

static const struct sim_param reclaim_tlb_params[] = {
	{ .key = "workers", .type = SIM_PARAM_COUNT, .def = 16, .min = 1, .max = SIM_MAX_CPUS,
	  .help = "stress-ng --vm N: workers (start=direct: worker i on cpu i mod the CPUs)",
	  .cpus_default = true, .live = true, .has_live_def = true, .live_def = 2 },
	{ .key = "vm_bytes", .type = SIM_PARAM_SIZE, .def = 2ULL << 30, .min = 4096,
	  .max = 1ULL << 40, .help = "--vm-bytes, divided among the workers",
	  .live = true, .has_live_def = true, .live_def = 256ULL << 20 },
	{ .key = "memcg_limit", .type = SIM_PARAM_SIZE, .def = 512ULL << 20, .min = 1ULL << 20,
	  .max = 1ULL << 40, .help = "memory.max of the workers' memcg",
	  .live = true, .has_live_def = true, .live_def = 64ULL << 20 },
	{ .key = "swap", .type = SIM_PARAM_SIZE, .def = 8ULL << 30, .min = 2ULL << 20,
	  .max = 1ULL << 40, .help = "swap device size (SwapTotal)" },
	{ .key = "duration", .type = SIM_PARAM_TIME, .def = 60ULL * 1000000000ULL,
	  .min = 1000000, .max = 3600ULL * 1000000000ULL, .help = "--timeout (virtual time)",
	  .live = true, .has_live_def = true, .live_def = 5ULL * 1000000000ULL },
	{ .key = "node_memory", .type = SIM_PARAM_SIZE, .def = 31834ULL << 20,
	  .min = 1ULL << 20, .max = 1ULL << 42, .help = "memory of the node (MemTotal)" },
	{ .key = "swap_device", .type = SIM_PARAM_ENUM, .def = 1, .min = 0, .max = 1,
	  .choices = reclaim_tlb_swap_devices,
	  .help = "zram (default, by evidence): compressed RAM, CPU work; ssd: a block "
		  "device the task sleeps on" },
	{ .key = "worker_kind", .type = SIM_PARAM_ENUM, .def = 0, .min = 0, .max = 1,
	  .choices = reclaim_tlb_worker_kinds,
	  .help = "processes (stress-ng: one mm each) or threads (one shared mm)",
	  .live = true },
	{ .key = "start", .type = SIM_PARAM_ENUM, .def = 0, .min = 0, .max = 1,
	  .choices = reclaim_tlb_starts,
	  .help = "fork (stress-ng: main forks the instances, each forks its worker, "
		  "placed by the scheduler) or direct (worker i created on cpu i)" },
	{ .key = "stress_ng", .type = SIM_PARAM_ENUM, .def = 2, .min = 0, .max = 3,
	  .choices = reclaim_tlb_stress_ng,
	  .help = "stress-ng's --vm-method all: v0.22 (2026), v0.19 (May 2025: rowhammer "
		  "after grayflip, swap before move-inv) or v0.17 (V0.16.00-V0.17.05: v0.19's "
		  "without walk-flush, page-in sweeps; the default, chosen by the post's "
		  "steals per sweep, docs/results.md) or v0.15 (V0.15.06, Debian 12's: "
		  "v0.17's but cache-lines and the prime-* methods counting as then)" },
	{ .key = "lru", .type = SIM_PARAM_ENUM, .def = 0, .min = 0, .max = 1,
	  .choices = reclaim_tlb_lrus,
	  .help = "classic (two lists, default) or mglru (lru_gen: generations, "
		  "evict_folios(), the aging's page-table walk)" },
	{ 0 },
};

/* Live: stress-ng's bogo ops/s; the others, the kernel's counters over the run. */
static const struct sim_metric reclaim_tlb_metrics[] = {
	{ "bogo_ops_per_s", "bogo ops/s", 2, "bogo ops/s" },
	{ "tlb_shootdowns", "TLB shootdowns", 0, "interrupts", .live_counter = "TLB" },
	{ "function_call_ipis", "Function call IPIs", 0, "interrupts", .live_counter = "CAL" },
	{ "pgscan_anon", "pgscan_anon (pages)", 0, "pages", .live_counter = "pgscan_anon" },
	{ "pgsteal_anon", "pgsteal_anon (pages)", 0, "pages", .live_counter = "pgsteal_anon" },
	{ 0 },
};

/* What the post does not say (docs/results.md): the swap device, stress-ng's version, the LRU. */
static const char *const reclaim_tlb_unpublished[] = { "swap_device", "stress_ng", "lru", NULL };

static const struct sim_published reclaim_tlb_published[] = {
	/*
	 * Bands (issue 15): each change within a quarter of its value, each
	 * absolute number of both variants within a factor of two.
	 */
	{ "before", "bogo_ops_per_s", 28238.63, .ratio = { 0.5, 2.0 } },
	{ "after", "bogo_ops_per_s", 35833.97, .ratio = { 0.5, 2.0 },
	  .change_pct = { 20.2, 33.6 } },
	{ "before", "tlb_shootdowns", 55428953, .ratio = { 0.5, 2.0 } },
	{ "after", "tlb_shootdowns", 17621697, .ratio = { 0.5, 2.0 },
	  .change_pct = { -85.0, -51.0 } },
	{ "before", "function_call_ipis", 34073695, .ratio = { 0.5, 2.0 } },
	{ "after", "function_call_ipis", 14498768, .ratio = { 0.5, 2.0 },
	  .change_pct = { -72.0, -43.0 } },
	{ "before", "pgscan_anon", 52856224, .ratio = { 0.5, 2.0 } },
	{ "after", "pgscan_anon", 60252894, .ratio = { 0.5, 2.0 },
	  .change_pct = { 10.5, 17.5 } },
	{ "before", "pgsteal_anon", 29004962, .ratio = { 0.5, 2.0 } },
	{ "after", "pgsteal_anon", 34054753, .ratio = { 0.5, 2.0 },
	  .change_pct = { 13.0, 21.8 } },
	{ NULL, NULL, 0 },
};

static const char *const reclaim_tlb_validate_sets[] = { "duration=5s", NULL };

const struct scenario_ops scenario_reclaim_tlb = {
	.name = "reclaim-tlb",
	.summary = "seed 003: batch TLB flushing for dirty folios in vmscan",
	.description = "stress-ng --vm 16 --vm-bytes 2G --vm-keep --timeout 60 in a memcg "
		       "limited to 512M with 8G of swap on 16 CPUs: memcg direct reclaim "
		       "swaps the workers' folios out; before flushes the TLB once per dirty "
		       "folio, after once per 31.",
	.profile = "server-16",
	.variants = reclaim_tlb_variants,
	.baseline = "before",
	.changed = "after",
	.params = reclaim_tlb_params,
	.metrics = reclaim_tlb_metrics,
	.published = reclaim_tlb_published,
	.published_source = "seed 003: Zhang Peng, [PATCH v4 0/5] mm: batch TLB flushing for "
			    "dirty folios in vmscan (May 2026), quoted by Andrew Morton",
	.unpublished = reclaim_tlb_unpublished,
	.validate = reclaim_tlb_validate,
	.mapped_bytes = reclaim_tlb_mapped_bytes,
	.run = reclaim_tlb_run,
	.live = &reclaim_tlb_live,
	.tasks_param = "workers",
	.validate_sets = reclaim_tlb_validate_sets,
};
