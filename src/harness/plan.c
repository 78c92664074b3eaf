// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run plan: everything a command runs, configured once from the
 * parsed command line (struct plan_args) before anything runs, so that bad
 * input in any scenario stops the command before output starts.  One
 * configured scenario (struct plan_scenario) is its profile (loaded, then
 * --cost), its parameters (defaults, then --set, then the scenario's and
 * the host's checks), the variants to run and a seed; a plan (struct plan)
 * is every scenario at every seed of --seeds, and --jobs.  run and
 * reproduce build one with plan_build(); sweep and sensitivity configure
 * their base scenario with plan_scenario_prepare() and vary it per point;
 * every variant then runs through plan_run_variant(), in this process or
 * in the process pool (plan_run_pool(), over src/harness/pool.c).
 *
 * Models nothing.  The host is read only to refuse a run that cannot fit
 * (its memory, RLIMIT_AS) and for the "host time" tally.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness/harness.h"
#include "mm/access.h"
#include "mm/mm.h"
#include "mmsim/funcprof.h"
#include "mmsim/profile.h"

/* A user's mistake: one line into @msg.  Return: 2, the exit code of bad input. */
static int plan_fail(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int plan_fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return 2;
}

/*
 * Host bytes of model state per page mapped at once: its PTE and, at worst
 * (order-0 folios), a struct folio of its own; per 512 pages (a PMD) a
 * page-table lock, a huge-folio pointer and a flag byte (vma_alloc()).
 */
#define CLI_HOST_BYTES_PER_PAGE	(sizeof(pte_t) + sizeof(struct folio))
#define CLI_HOST_BYTES_PER_PMD	(sizeof(struct spinlock) + sizeof(struct folio *) + 1)
/* What a run needs whatever it maps: engine, stacks, TLBs, tables. */
#define CLI_HOST_BYTES_BASE	((uint64_t)64 << 20)

/**
 * plan_host_bytes_estimate() - host memory one run of @cfg needs, roughly
 * @cfg: the run's configuration
 *
 * The model's state grows with the memory the run maps at once (the
 * scenario's mapped_bytes()), and with the data caches of the overlap model
 * (one 8-byte tag per 64-byte line of every L1D, L2 and L3).
 * Return: bytes.
 */
uint64_t plan_host_bytes_estimate(const struct sim_run_config *cfg)
{
	const struct scenario_ops *s = cfg->scenario;
	const struct sim_profile *p = cfg->profile;
	uint64_t pages = s->mapped_bytes ? s->mapped_bytes(cfg) >> PAGE_SHIFT : 0;
	uint64_t bytes = CLI_HOST_BYTES_BASE + pages * CLI_HOST_BYTES_PER_PAGE +
			 (pages >> HPAGE_PMD_ORDER) * CLI_HOST_BYTES_PER_PMD;

	if (p && p->mem_overlap) {
		uint64_t cores = p->topology_sockets * p->topology_cores_per_socket;
		uint64_t kib = cores * (p->cache_l1d_kib + p->cache_l2_kib) +
			       p->topology_sockets * p->cache_l3_kib;

		bytes += kib * 1024 / 64 * sizeof(uint64_t);
	}
	return bytes;
}

/* Physical memory of this host, bytes; UINT64_MAX when unknown. */
static uint64_t plan_host_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);

	if (pages <= 0 || size <= 0)
		return UINT64_MAX;
	return (uint64_t)pages * (uint64_t)size;
}

/*
 * What this process may still map under RLIMIT_AS (`ulimit -v`): the limit
 * less what it maps now (/proc/self/statm); UINT64_MAX when unlimited.  A
 * run past it ends in a failed allocation (an abort, or "the run's process
 * died" from the pool) instead of a message.
 */
static uint64_t plan_address_space_left(void)
{
	unsigned long long pages = 0;
	long size = sysconf(_SC_PAGE_SIZE);
	struct rlimit rl;
	FILE *f;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	if (size > 0 && (uint64_t)rl.rlim_cur > pages * (uint64_t)size)
		return (uint64_t)rl.rlim_cur - pages * (uint64_t)size;
	return 0;
}

/**
 * plan_validate() - the scenario's checks of @cfg, then whether it fits
 * @cfg: a run's configuration
 *
 * A run whose model state cannot fit in this host's memory, or in the
 * address space RLIMIT_AS leaves this process, would grow until an
 * allocation fails; it is refused before it starts, with the estimate.
 * Return: 0, or 2 with msg set.
 */
int plan_validate(const struct sim_run_config *cfg, char *msg, size_t len)
{
	const struct scenario_ops *s = cfg->scenario;
	uint64_t need, have, left;

	if (s->validate && s->validate(cfg, msg, len))
		return 2;
	need = plan_host_bytes_estimate(cfg);
	have = plan_host_memory();
	left = plan_address_space_left();
	if (need > left && left < have)
		return plan_fail(msg, len, "the run needs about %.1f GiB of host memory for the model's state (%" PRIu64
				" MiB mapped at once, %zu bytes per page): the address-space limit (ulimit -v) leaves this process %.1f GiB: expected a smaller run or a higher limit",
				(double)need / (double)(1ULL << 30),
				(s->mapped_bytes ? s->mapped_bytes(cfg) : 0) >> 20,
				CLI_HOST_BYTES_PER_PAGE, (double)left / (double)(1ULL << 30));
	if (need > have)
		return plan_fail(msg, len, "the run needs about %.1f GiB of host memory for the model's state (%" PRIu64
				" MiB mapped at once, %zu bytes per page): this host has %.1f GiB: expected a smaller run",
				(double)need / (double)(1ULL << 30),
				(s->mapped_bytes ? s->mapped_bytes(cfg) : 0) >> 20,
				CLI_HOST_BYTES_PER_PAGE, (double)have / (double)(1ULL << 30));
	return 0;
}

/**
 * plan_configure() - the configuration of a run: defaults, --set, checks
 * @s: the scenario
 * @a: the options
 * @cfg: the result; cfg->profile is left as the caller set it
 *
 * Return: 0, or 2 with msg filled.
 */
int plan_configure(const struct scenario_ops *s, const struct plan_args *a,
		   struct sim_run_config *cfg, char *msg, size_t len)
{
	bool given[SIM_MAX_PARAMS] = { false };
	int i, k;

	sim_run_config_init(cfg, s, cfg->profile, a->seed);
	cfg->check = a->check;
	for (k = 0; k < a->nr_sets; k++) {
		i = sim_run_config_set(cfg, a->sets[k], msg, len);
		if (i < 0)
			return 2;
		if (given[i])
			return plan_fail(msg, len, "--set %s: %s given twice: expected each key once",
					a->sets[k], s->params[i].key);
		given[i] = true;
	}
	return plan_validate(cfg, msg, len);
}

/**
 * plan_select_variants() - the variants to run, in the scenario's order
 * @s: the scenario
 * @a: the options (--variant)
 * @idx: the result, SIM_MAX_VARIANTS indices into s->variants
 *
 * Return: their count, or -1 with msg filled.
 */
int plan_select_variants(const struct scenario_ops *s, const struct plan_args *a,
			 int *idx, char *msg, size_t len)
{
	int i, k, nr = 0;

	for (k = 0; k < a->nr_variants; k++)
		if (sim_scenario_variant_index(s, a->variants[k]) < 0) {
			snprintf(msg, len,
				 "unknown variant %s for scenario %s: expected one of",
				 a->variants[k], s->name);
			for (i = 0; s->variants[i].name; i++) {
				size_t n = strlen(msg);

				snprintf(msg + n, len - n, "%s %s", i ? "," : "",
					 s->variants[i].name);
			}
			return -1;
		}
	for (i = 0; s->variants && s->variants[i].name && nr < SIM_MAX_VARIANTS; i++) {
		bool take = !a->nr_variants;

		for (k = 0; k < a->nr_variants; k++)
			take |= !strcmp(a->variants[k], s->variants[i].name);
		if (take)
			idx[nr++] = i;
	}
	if (!nr) {
		snprintf(msg, len, "scenario %s has no variants", s->name);
		return -1;
	}
	return nr;
}

/**
 * plan_apply_costs() - apply every --cost of @a to the loaded profile @p
 * @a: the options
 * @p: the profile
 *
 * Then checks what no single value's range can: that the model can build
 * the profile's TLBs and caches.  Every check is here, in the parent,
 * before any process is forked: a bad value is bad input (exit 2), not a
 * failed run.
 *
 * Return: 0, or 2 with msg set.
 */
int plan_apply_costs(const struct plan_args *a, struct sim_profile *p, char *msg,
		     size_t len)
{
	char why[PLAN_ERR];
	int k;

	for (k = 0; k < a->nr_costs; k++)
		if (sim_profile_set(p, a->costs[k], why, sizeof(why)))
			return plan_fail(msg, len, "--cost %s", why);
	if (sim_profile_check(p, msg, len) ||
	    mm_tlb_check_profile(p, msg, len))
		return 2;
	return 0;
}

/**
 * plan_scenario_prepare() - configure @p for scenario @s from @a
 * @s: the scenario
 * @a: the parsed command line: --profile, --cost, --set, --variant, --baseline
 * @p: the result; plan_scenario_release() frees it, whatever this returned
 * @msg: the error
 * @len: size of @msg
 *
 * Return: 0; 2 for bad input or 1 for an internal failure, with @msg set.
 */
int plan_scenario_prepare(const struct scenario_ops *s, const struct plan_args *a,
			  struct plan_scenario *p, char *msg, size_t len)
{
	const char *pname = a->profile ? a->profile : s->profile;

	memset(p, 0, sizeof(*p));
	p->s = s;
	p->prof = calloc(1, sizeof(*p->prof));
	if (!p->prof)
		return plan_fail(msg, len, "out of memory") - 1;
	if (!pname)
		return plan_fail(msg, len, "scenario %s names no profile: expected --profile NAME|FILE",
				s->name);
	if (sim_profile_load(pname, p->prof, msg, len))
		return 2;
	if (plan_apply_costs(a, p->prof, msg, len))
		return 2;
	p->cfg.profile = p->prof;
	if (plan_configure(s, a, &p->cfg, msg, len))
		return 2;
	p->nr = plan_select_variants(s, a, p->idx, msg, len);
	if (p->nr < 0) {
		p->nr = 0;
		return 2;
	}
	if (a->baseline) {
		int i, b = sim_scenario_variant_index(s, a->baseline);

		for (i = 0; b >= 0 && i < p->nr && p->idx[i] != b; i++)
			;
		if (b < 0 || i == p->nr) {
			size_t n = (size_t)snprintf(msg, len,
						    "--baseline %s: expected one of the variants run:",
						    a->baseline);

			for (i = 0; i < p->nr && n < len; i++)
				n += (size_t)snprintf(msg + n, len - n, "%s %s",
						      i ? "," : "", s->variants[p->idx[i]].name);
			return 2;
		}
	}
	p->res = calloc((size_t)p->nr, sizeof(*p->res));
	if (!p->res)
		return plan_fail(msg, len, "out of memory") - 1;
	p->functions = a->report_functions;
	return 0;
}

/**
 * plan_run_variant() - run one variant, gathering its --report functions
 * @p: the scenario's configuration (p->functions: gather)
 * @cfg: the run's configuration (p->cfg, or a copy of it)
 * @v: the variant, an index into p->idx
 * @res: its result
 * @err: the run's error
 * @len: size of @err
 *
 * Return: 0, or non-zero with @err set.
 */
int plan_run_variant(const struct plan_scenario *p, const struct sim_run_config *cfg, int v,
		    struct sim_variant_result *res, char *err, size_t len)
{
	int rc;

	if (p->functions)
		sim_funcprof_start();
	rc = p->s->run(cfg, p->idx[v], res, err, len);
	if (p->functions) {
		sim_funcprof_stop();
		if (!rc && sim_funcprof_collect(&res->functions)) {
			snprintf(err, len, "out of memory");
			rc = -1;
		}
	}
	return rc;
}

/**
 * plan_scenario_release() - free what plan_scenario_prepare() allocated
 * @p: the configured scenario
 */
void plan_scenario_release(struct plan_scenario *p)
{
	free(p->res);
	free(p->prof);
	p->res = NULL;
	p->prof = NULL;
}


/**
 * plan_build() - the plan of run or reproduce: every scenario at every seed
 * @pl: the result; plan_release() frees it, whatever this returned
 * @scn: the scenarios, in the order they are reported
 * @nr_scn: how many
 * @a: the parsed command line
 * @msg: the error
 * @len: size of @msg
 *
 * pl->scn[i * nr_seeds + k] is scenario i at seed a->seed + k (--seeds).
 * pl->pooled: the variants run in the process pool (--jobs above one and
 * more than one run, never with --trace; always with --seeds above one).
 *
 * Return: 0; 2 for bad input or 1 for an internal failure, with @msg set.
 */
int plan_build(struct plan *pl, const struct scenario_ops *const *scn, int nr_scn,
	       const struct plan_args *a, char *msg, size_t len)
{
	int i, ret = 0, nr_runs = 0;

	memset(pl, 0, sizeof(*pl));
	pl->nr_seeds = (int)a->seeds;
	if (pl->nr_seeds > 1 && (a->trace || a->report_functions))
		return plan_fail(msg, len, "%s with --seeds %d: expected one seed (--seeds 1)",
				 a->trace ? "--trace" : "--report functions", pl->nr_seeds);
	pl->scn = calloc((size_t)nr_scn * (size_t)pl->nr_seeds, sizeof(*pl->scn));
	if (!pl->scn)
		return plan_fail(msg, len, "out of memory") - 1;
	pl->nr = nr_scn * pl->nr_seeds;
	for (i = 0; i < pl->nr && !ret; i++) {
		ret = plan_scenario_prepare(scn[i / pl->nr_seeds], a, &pl->scn[i], msg, len);
		pl->scn[i].cfg.seed = a->seed + (uint64_t)(i % pl->nr_seeds);
		nr_runs += pl->scn[i].nr;
	}
	pl->jobs = plan_default_jobs(a, false);
	pl->pooled = (pl->jobs > 1 && nr_runs > 1 && !a->trace) || pl->nr_seeds > 1;
	return ret;
}

/**
 * plan_release() - free what plan_build() allocated
 * @pl: the plan
 */
void plan_release(struct plan *pl)
{
	int i;

	for (i = 0; pl->scn && i < pl->nr; i++)
		plan_scenario_release(&pl->scn[i]);
	free(pl->scn);
	pl->scn = NULL;
}

/**
 * plan_default_jobs() - --jobs, or its default when not given
 * @a: the parsed command line
 * @sweep: the default of a sweep (one process, as documented) rather than
 *	of run, reproduce and sensitivity (the host's online CPUs)
 *
 * Only speed depends on it.
 * Return: processes at a time, >= 1.
 */
uint64_t plan_default_jobs(const struct plan_args *a, bool sweep)
{
	long n;

	if (a->jobs)
		return a->jobs;
	if (sweep)
		return 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (uint64_t)n : 1;
}

/* What a child sends back for one variant: its return code, error and result. */
struct plan_variant_msg {
	int rc;
	char err[PLAN_ERR];
	struct sim_variant_result res;
	double cpu_s;			/* the child's CPU seconds (it starts at zero) */
};

/* Job seq (in the order of a sequential run): variant v of prep p. */
struct plan_job {
	struct plan_scenario *p;
	int v;				/* index into p->idx and p->res */
};

struct plan_jobs {
	struct plan_job *job;		/* [nr] in job order */
	struct pool *pool;
	double t0;			/* harness_host_seconds() at the start */
	void (*step)(int nr_ended);	/* progress, NULL: none */
	int nr;
};

/* In the child: run job @i, its message into @o. */
static int plan_job_run(void *arg, int i, struct sim_out *o)
{
	static struct plan_variant_msg msg;
	struct plan_jobs *js = arg;
	struct plan_job *j = &js->job[i];

	memset(&msg, 0, sizeof(msg));
	msg.res.name = j->p->s->variants[j->p->idx[j->v]].name;
	msg.rc = plan_run_variant(j->p, &j->p->cfg, j->v, &msg.res, msg.err, sizeof(msg.err));
	msg.cpu_s = harness_host_cpu_seconds();
	sim_out_write(o, (const char *)&msg, sizeof(msg));
	return msg.rc ? 1 : 0;
}

/* In the parent, as job @i ends: its result, the host-time tally, progress. */
static void plan_job_ended(void *arg, int i, int nr_ended)
{
	struct plan_jobs *js = arg;
	struct plan_job *j = &js->job[i];
	const struct pool_job *pj = &js->pool->job[i];
	const struct plan_variant_msg *msg = (const void *)pj->out.buf;

	if (pj->ok && pj->out.len == sizeof(*msg)) {
		j->p->res[j->v] = msg->res;
		j->p->cpu_s += msg->cpu_s;
		j->p->nr_procs++;
		j->p->wall_s = harness_host_seconds() - js->t0;
	}
	if (js->step)
		js->step(nr_ended);
}

/**
 * plan_run_pool() - run the variants of @nr scenarios in the process pool
 * @scn: the configured scenarios (a plan's, or a command's own points)
 * @nr: how many
 * @jobs: processes at a time, >= 1
 * @step: progress, called in the parent as each run ends; NULL: none
 * @msg: the error
 * @len: size of @msg
 *
 * Each child runs one variant in-process (plan_run_variant()) and writes
 * its struct plan_variant_msg back.  Every variant is an independent
 * simulation, so the results are those of a sequential run, and so is a
 * failure: the one reported is the failed variant a sequential run would
 * have reached first.  Once one has failed, no variant after it (in that
 * order) is started; the ones before it still run, since one of them may
 * fail too.  Started: the first variant of every scenario, then the
 * second, and so on: the first is the baseline, usually the longer run
 * when the change under test is an improvement, and the longest runs
 * should start first, so that no process is left running alone at the end.
 *
 * Return: 0 (every scn[].ran), or 1 with @msg set.
 */
int plan_run_pool(struct plan_scenario *scn, int nr, uint64_t jobs,
		  void (*step)(int nr_ended), char *msg, size_t len)
{
	struct pool pool;
	struct plan_jobs js = { .pool = &pool, .t0 = harness_host_seconds(), .step = step };
	int *order;
	int nr_runs = 0, ret = 0, i, v;

	for (i = 0; i < nr; i++)
		nr_runs += scn[i].nr;
	js.job = calloc((size_t)nr_runs + 1, sizeof(*js.job));
	order = calloc((size_t)nr_runs + 1, sizeof(*order));
	if (!js.job || !order) {
		free(js.job);
		free(order);
		snprintf(msg, len, "out of memory");
		return 1;
	}
	for (i = 0; i < nr; i++)
		for (v = 0; v < scn[i].nr; v++)
			js.job[js.nr++] = (struct plan_job){ .p = &scn[i], .v = v };
	for (v = 0, nr_runs = 0; v < SIM_MAX_VARIANTS; v++) {
		int seq0 = 0;

		for (i = 0; i < nr; i++) {
			if (v < scn[i].nr)
				order[nr_runs++] = seq0 + v;
			seq0 += scn[i].nr;
		}
	}
	pool = (struct pool){
		.nr = js.nr, .order = order, .jobs = jobs, .stop_at_failure = true,
		.run = plan_job_run, .ended = plan_job_ended, .arg = &js,
	};
	if (pool_run(&pool)) {
		snprintf(msg, len, "%s: %s", pool.failed_call, strerror(pool.failed_errno));
		ret = 1;
	} else if (pool.first_failed >= 0) {
		const struct plan_job *j = &js.job[pool.first_failed];
		const struct pool_job *pj = &pool.job[pool.first_failed];
		const struct plan_variant_msg *m = (const void *)pj->out.buf;
		const char *vname = j->p->s->variants[j->p->idx[j->v]].name;

		if (pj->out.len != sizeof(*m))
			snprintf(msg, len, "%s, variant %s: the run's process died",
				 j->p->s->name, vname);
		else
			snprintf(msg, len, "%s, variant %s: %.300s", j->p->s->name, vname,
				 m->err[0] ? m->err : "the run failed");
		ret = 1;
	} else {
		for (i = 0; i < nr; i++)
			scn[i].ran = true;
	}
	pool_release(&pool);
	free(js.job);
	free(order);
	return ret;
}
