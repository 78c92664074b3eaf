// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's own experiment: `cpus` vCPUs each take one spinlock
 * `iterations` times, hold it `hold_ns`, release it and work `think_ns`
 * outside it.  When cpus x hold is much larger than think the lock is
 * saturated and the average wait approaches
 *   (cpus - 1) x (hold + hand-off) - think.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mmsim/hw.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"

struct spin_ctx {
	struct spinlock lock;
	uint64_t hold_ns, think_ns, iterations;
};

static void spin_worker(void *arg)
{
	struct spin_ctx *c = arg;
	uint64_t i;

	for (i = 0; i < c->iterations; i++) {
		spin_lock_irq(&c->lock);
		sim_cost_ns(c->hold_ns);
		spin_unlock_irq(&c->lock);
		sim_cost_ns(c->think_ns);
		sim_work_done(1);
	}
}

static int spinlock_run(const struct sim_run_config *cfg, int variant,
			struct sim_variant_result *res, char *err, size_t len)
{
	const struct scenario_ops *s = cfg->scenario;
	struct sim_engine_opts o = {
		.profile = cfg->profile,
		.nr_cpus = (int)sim_param(cfg, "cpus"),
		.seed = cfg->seed,
		.check = cfg->check,
	};
	struct sim_engine *e = sim_engine_create(&o);
	struct lock_class_stat *st;
	struct spin_ctx c;
	int cpu;

	if (!e) {
		snprintf(err, len, "cannot create an engine of %d vCPUs", o.nr_cpus);
		return -1;
	}
	spin_lock_init_named(&c.lock, "spinlock");
	c.hold_ns = sim_param(cfg, "hold_ns");
	c.think_ns = sim_param(cfg, "think_ns");
	c.iterations = sim_param(cfg, "iterations");
	sim_engine_set_work(e, c.iterations * (uint64_t)o.nr_cpus);
	for (cpu = 0; cpu < o.nr_cpus; cpu++)
		if (!sim_task_create(e, cpu, "spinner", spin_worker, &c)) {
			snprintf(err, len, "cannot create task on cpu %d", cpu);
			sim_engine_destroy(e);
			return -1;
		}
	if (sim_engine_run(e, err, len)) {
		sim_engine_destroy(e);
		return -1;
	}
	sim_result_collect(e, res);
	st = sim_lock_class(e, "spinlock");
	sim_result_set(s, res, "runtime_s", res->runtime_s);
	sim_result_set(s, res, "acquisitions", (double)st->acquisitions);
	sim_result_set(s, res, "contentions", (double)st->contentions);
	sim_result_set(s, res, "lock_wait_total_s", (double)st->wait_total / (double)SIM_SEC);
	sim_result_set(s, res, "lock_wait_avg_ns", st->acquisitions ?
		       (double)st->wait_total / (double)st->acquisitions / (double)SIM_NS : 0);
	sim_result_set(s, res, "lock_hold_avg_ns", st->acquisitions ?
		       (double)st->hold_total / (double)st->acquisitions / (double)SIM_NS : 0);
	sim_engine_destroy(e);
	(void)variant;
	return 0;
}

/* One variant: the engine's queued spinlock (no kernel model). */
static const struct sim_variant spinlock_variants[] = { { "qspinlock" }, { NULL } };

static const struct sim_param spinlock_params[] = {
	{ .key = "cpus", .type = SIM_PARAM_COUNT, .def = 80, .min = 1, .max = SIM_MAX_CPUS,
	  .help = "vCPUs taking the lock (at most the profile's CPUs)", .cpus_default = true },
	{ .key = "hold_ns", .type = SIM_PARAM_TIME, .def = 500, .min = 0, .max = 1000000000,
	  .help = "time the lock is held per acquisition" },
	{ .key = "think_ns", .type = SIM_PARAM_TIME, .def = 2000, .min = 0, .max = 1000000000,
	  .help = "work outside the lock between acquisitions" },
	{ .key = "iterations", .type = SIM_PARAM_COUNT, .def = 10000, .min = 1, .max = 100000000,
	  .help = "acquisitions per vCPU" },
	{ 0 },
};

static const struct sim_metric spinlock_metrics[] = {
	{ "runtime_s", "runtime (s)", 6, "s" },
	{ "acquisitions", "acquisitions", 0, "acquisitions" },
	{ "contentions", "contentions", 0, "contentions" },
	{ "lock_wait_total_s", "lock wait, summed (s)", 6, "s" },
	{ "lock_wait_avg_ns", "lock wait per acquisition (ns)", 1, "ns" },
	{ "lock_hold_avg_ns", "lock hold per acquisition (ns)", 1, "ns" },
	{ 0 },
};

static int spinlock_validate(const struct sim_run_config *cfg, char *err, size_t len)
{
	int cpus = (int)sim_param(cfg, "cpus");

	if (cpus > sim_profile_nr_cpus(cfg->profile)) {
		snprintf(err, len, "cpus=%d: expected at most the %d CPUs of profile %s",
			 cpus, sim_profile_nr_cpus(cfg->profile), cfg->profile->machine_name);
		return -1;
	}
	return 0;
}

const struct scenario_ops scenario_spinlock = {
	.name = "spinlock",
	.summary = "the engine's own experiment: N vCPUs contend on one queued spinlock",
	.description = "Each of `cpus` vCPUs takes one spinlock (interrupts off) `iterations` "
		       "times, holds it `hold_ns`, releases it and works `think_ns` outside it.",
	.profile = "skylake-sp-2s",
	.variants = spinlock_variants,
	.params = spinlock_params,
	.metrics = spinlock_metrics,
	.validate = spinlock_validate,
	.run = spinlock_run,
};
