// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scenario of a workload file: the scenario_ops every command reads
 * (run, show, sweep, live, compare, validate), filled in by workload_load()
 * (parse.c); the look-up of a workload by the name a command line gives;
 * and the shipped workloads (workloads/, embedded at build time as
 * wl_builtins[] by cmake/embed_workloads.cmake).
 *
 * Models nothing of the kernel: a run resolves the plan (resolve.c) and
 * hands it to the simulated executor (workload_sim_run(), sim.c), then
 * reads the generic metrics of docs/workloads.md's "What a run reports".
 *
 * Loaded workloads are kept for the life of the process (at most
 * WL_MAX_LOADED), so that one name gives one scenario.  No locks: only the
 * host process's main thread looks them up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/profile.h"
#include "mmsim/workload.h"
#include "workload/wl_internal.h"

#define WL_MAX_LOADED	16

/* Live: the lock wait from perf lock, the rest (faults: each task's, by getrusage()) from the workload. */
static const struct sim_metric wl_metrics[] = {
	{ "ops_per_task_s", "ops per task per second", 0, "ops/s" },
	{ "ops_per_s", "ops per second, all tasks", 0, "ops/s" },
	{ "ops", "operations counted", 0, "ops" },
	{ "runtime_s", "runtime (s)", 3, "s" },
	{ "faults", "page faults", 0, "faults" },
	{ "lruvec_lock_wait_s", "lruvec lock wait, summed (s)", 3, "s" },
	{ 0 },
};

/* With [workload] op_bytes: each task's bytes over its loop, summed (LKP's vm-scalability.throughput). */
static const struct sim_metric wl_metric_bytes = {
	"throughput_bytes_s", "throughput, all tasks (bytes/s)", 0, "bytes/s"
};

static const struct sim_published wl_published[] = { { NULL, NULL, 0 } };

static int wl_run(const struct sim_run_config *cfg, int variant,
		  struct sim_variant_result *res, char *err, size_t len);

/**
 * workload_of() - the workload behind a scenario
 * @s: a scenario
 *
 * Return: the workload when @s was built by workload_load(), else NULL.
 */
const struct workload *workload_of(const struct scenario_ops *s)
{
	if (!s || s->run != wl_run)
		return NULL;
	return (const struct workload *)((const char *)s - offsetof(struct workload, ops));
}

/* The plan of @cfg's run (its profile's CPUs). */
static int wl_plan_of(const struct sim_run_config *cfg, struct wl_plan *plan, char *err,
		      size_t len)
{
	int cpus = cfg->profile ? sim_profile_nr_cpus(cfg->profile) : 2;

	return workload_resolve(workload_of(cfg->scenario), cfg, cpus, plan, err, len);
}

/* --set values are resolved before any run: their errors are exit 2. */
static int wl_validate(const struct sim_run_config *cfg, char *err, size_t len)
{
	struct wl_plan *plan = calloc(1, sizeof(*plan));
	int ret;

	if (!plan) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	ret = wl_plan_of(cfg, plan, err, len);
	free(plan);
	return ret;
}

/* Each memory once per task that maps it (per = task), once if shared. */
static uint64_t wl_mapped_bytes(const struct sim_run_config *cfg)
{
	struct wl_plan *plan = calloc(1, sizeof(*plan));
	uint64_t bytes = 0;
	char err[512];

	if (!plan || wl_plan_of(cfg, plan, err, sizeof(err))) {
		free(plan);
		return 0;
	}
	for (int i = 0; i < plan->nr_memory; i++) {
		const struct wl_memory *m = &plan->memory[i];

		bytes += m->per_workload ? m->size : m->size * (uint64_t)plan->nr_tasks;
	}
	free(plan);
	return bytes;
}

static int wl_run(const struct sim_run_config *cfg, int variant,
		  struct sim_variant_result *res, char *err, size_t len)
{
	const struct workload *w = workload_of(cfg->scenario);
	const struct scenario_ops *s = cfg->scenario;
	struct wl_plan *plan = calloc(1, sizeof(*plan));
	struct wl_sim_out out = { 0 };
	double wait = 0;
	int ret = -1;

	if (!plan) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	if (wl_plan_of(cfg, plan, err, len))
		goto out_free;
	if (workload_sim_run(plan, cfg, w->variants[variant].mm, NULL, res, &out, err, len))
		goto out_free;
	for (int i = 0; i < res->nr_locks; i++)
		if (!strcmp(res->locks[i].name, "lru_lock"))
			wait = res->locks[i].wait_total_s;
	sim_result_set(s, res, "ops_per_task_s", out.ops_per_task_s);
	sim_result_set(s, res, "ops_per_s", out.ops_per_s);
	sim_result_set(s, res, "ops", (double)out.ops);
	sim_result_set(s, res, "runtime_s", out.runtime_s);
	sim_result_set(s, res, "faults", (double)res->counters[SIM_PGFAULT]);
	sim_result_set(s, res, "lruvec_lock_wait_s", wait);
	if (plan->op_bytes)
		sim_result_set(s, res, "throughput_bytes_s", out.ops_per_s * (double)plan->op_bytes);
	ret = 0;
out_free:
	free(plan);
	return ret;
}

/* parse.c: the functions and tables every workload's scenario_ops shares. */
void wl_scenario_fill(struct workload *w)
{
	size_t n = 0;

	while (wl_metrics[n].key && n + 2 < sizeof(w->metrics) / sizeof(w->metrics[0])) {
		w->metrics[n] = wl_metrics[n];
		n++;
	}
	if (wl_find(w, "workload", "", "op_bytes"))
		w->metrics[n++] = wl_metric_bytes;
	memset(&w->metrics[n], 0, sizeof(w->metrics[n]));
	w->ops.metrics = w->metrics;
	w->ops.published = wl_published;
	w->ops.validate = wl_validate;
	w->ops.mapped_bytes = wl_mapped_bytes;
	w->ops.run = wl_run;
	w->ops.live = &workload_live;
}

/**
 * workload_builtin_text() - a shipped workload's text
 * @name: its name (the file name in workloads/ without .ini)
 *
 * Return: the INI text, or NULL.
 */
const char *workload_builtin_text(const char *name)
{
	for (int i = 0; wl_builtins[i].name; i++)
		if (!strcmp(wl_builtins[i].name, name))
			return wl_builtins[i].text;
	return NULL;
}

static struct {
	char arg[256];			/* the name it was looked up by */
	struct workload *w;
} wl_loaded[WL_MAX_LOADED];

/**
 * workload_scenario() - the workload a command line names
 * @name: a file (with '/' or ending in .ini) or a shipped workload's name
 * @err: empty when @name names no workload; else one line why it is bad
 * @len: size of @err
 *
 * Context: the host process; loads each name once and keeps it.
 * Return: its scenario, or NULL.
 */
const struct scenario_ops *workload_scenario(const char *name, char *err, size_t len)
{
	struct workload *w;
	int i;

	err[0] = '\0';
	if (!workload_names_file(name) && !workload_builtin_text(name))
		return NULL;
	for (i = 0; i < WL_MAX_LOADED && wl_loaded[i].w; i++)
		if (!strcmp(wl_loaded[i].arg, name))
			return &wl_loaded[i].w->ops;
	if (strlen(name) >= sizeof(wl_loaded[0].arg)) {
		snprintf(err, len, "workload %.100s...: a path of %zu characters: expected at "
			 "most %zu", name, strlen(name), sizeof(wl_loaded[0].arg) - 1);
		return NULL;
	}
	if (i == WL_MAX_LOADED) {
		snprintf(err, len, "workload %s: more than %d workloads in one command: expected "
			 "fewer", name, WL_MAX_LOADED);
		return NULL;
	}
	w = workload_load(name, err, len);
	if (!w)
		return NULL;
	snprintf(wl_loaded[i].arg, sizeof(wl_loaded[i].arg), "%s", name);
	wl_loaded[i].w = w;
	return &w->ops;
}

/**
 * sim_scenario_arg() - what names a scenario on a command line
 * @s: the scenario
 *
 * Return: a workload's file path or shipped name, else the experiment's name.
 */
const char *sim_scenario_arg(const struct scenario_ops *s)
{
	for (int i = 0; i < WL_MAX_LOADED && wl_loaded[i].w; i++)
		if (&wl_loaded[i].w->ops == s)
			return wl_loaded[i].arg;
	return s->name;
}

/**
 * workload_plan_for() - an experiment's workload file, at the experiment's run
 * @name: the shipped workload (workloads/experiments/)
 * @cfg: the experiment's run: each parameter of the workload takes the value
 *       of the experiment's parameter of the same name
 * @nr_cpus: the CPUs of the run
 * @err: one line why, on failure
 * @len: size of @err
 *
 * Context: the host process or a pool child.
 * Return: the resolved plan (the caller frees it), or NULL with @err set.
 */
struct wl_plan *workload_plan_for(const char *name, const struct sim_run_config *cfg,
				  int nr_cpus, char *err, size_t len)
{
	const struct scenario_ops *s = cfg->scenario, *ws;
	struct sim_run_config wcfg;
	char text[64], assign[128];
	struct wl_plan *plan;
	int i, j;

	ws = workload_scenario(name, err, len);
	if (!ws) {
		if (!err[0])
			snprintf(err, len, "the shipped workload %s is missing", name);
		return NULL;
	}
	sim_run_config_init(&wcfg, ws, cfg->profile, cfg->seed);
	wcfg.check = cfg->check;
	for (i = 0; ws->params[i].key; i++) {
		j = sim_scenario_param_index(s, ws->params[i].key);
		if (j < 0) {
			snprintf(err, len, "%s: parameter %s: expected one of %s's", name,
				 ws->params[i].key, s->name);
			return NULL;
		}
		sim_param_format(&s->params[j], cfg->params[j], text, sizeof(text));
		snprintf(assign, sizeof(assign), "%s=%s", ws->params[i].key, text);
		if (sim_run_config_set(&wcfg, assign, err, len) < 0)
			return NULL;
	}
	plan = calloc(1, sizeof(*plan));
	if (!plan) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	if (workload_resolve(workload_of(ws), &wcfg, nr_cpus, plan, err, len)) {
		free(plan);
		return NULL;
	}
	return plan;
}
