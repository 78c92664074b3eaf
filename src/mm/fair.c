// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where tasks run: the placement and load balancing of the kernel's fair
 * scheduler (kernel/sched/fair.c, v6.15) over the engine's vCPUs and run
 * queues (src/engine/sched.c, which calls in here).
 *
 * What it models
 *   - Wake-up placement.  A waking task goes where select_task_rq_fair()
 *     sends it: wake_affine() picks the waker's CPU or the task's previous
 *     one as the target (the waker's if idle, else the previous if idle,
 *     else the one with fewer runnable tasks, ties to the previous), then
 *     select_idle_sibling() takes the target if idle, else the previous
 *     CPU if idle and in the target's LLC, else the first idle core of the
 *     LLC (both SMT threads idle) scanning from target + 1, else the first
 *     idle CPU of the LLC, else the target.  A timer wake-up has the
 *     timer's CPU (the task's previous one) as waker.  Pinned tasks
 *     (sim_task_pin()) never move: the engine does not ask.
 *   - Newly-idle balancing.  A vCPU that goes idle pulls the
 *     longest-waiting queued task of the busiest vCPU of its LLC, then of
 *     the machine (idle_balance()).
 *   - Fork placement.  sim_task_fork() places the child with
 *     sched_balance_find_dst_cpu() (SD_BALANCE_FORK).
 *   - The tick's balancer.  The tick balances each sched domain (SMT, MC,
 *     PKG) when its interval has passed (sched_balance_tick():
 *     sched_balance_rq() with the busiest group and queue, task_hot() and
 *     nr_balance_failed), and kicks idle CPUs to pull while a task waits
 *     (nohz idle balancing).  See the comments at those functions.
 *   Every decision reads model state only.
 *
 * Kernel functions it mirrors: select_task_rq_fair(), wake_affine_idle(),
 * wake_affine_weight(), select_idle_sibling(), sched_balance_newidle()
 * (idle_balance()), sched_balance_find_dst_cpu(),
 * sched_balance_find_dst_group(), sched_balance_find_dst_group_cpu(),
 * update_pick_idlest(), group_classify(), should_we_balance(),
 * sched_balance_rq(), sched_balance_find_src_rq(), can_migrate_task(),
 * detach_task() and attach_task(), sched_balance_trigger() and
 * rebalance_domains(), _nohz_idle_balance(), sd_init().
 *
 * What it leaves out: priorities (every task is nice 0, and a runnable
 * task's load is NICE_0_LOAD: PELT's averages are left out),
 * recent_used_cpu, NUMA balancing, active balancing, task_hot() in
 * newly-idle and nohz pulls, exec placement, cpuidle exit latencies.
 *
 * Locks: none.  The kernel takes run-queue locks (rq_lock(),
 * double_rq_lock()); here every decision runs in the engine between two
 * coroutine switches, so no other vCPU runs meanwhile.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

/* available_idle_cpu(): nothing running, nothing queued. */
static bool vcpu_idle(const struct sim_vcpu *v)
{
	return !v->curr && !v->rq_head;
}

/* rq->nr_running: the running (or spinning) task and the queued ones. */
static int vcpu_nr_running(const struct sim_vcpu *v)
{
	const struct sim_task *t;
	int n = v->curr ? 1 : 0;

	for (t = v->rq_head; t; t = t->rq_next)
		n++;
	return n;
}

/* cpus_share_cache(): the LLC is the socket's L3. */
static bool cpus_share_cache(const struct sim_vcpu *a, const struct sim_vcpu *b)
{
	return a->socket == b->socket;
}

/* An idle core: this thread and its SMT sibling (if any) are idle. */
static bool vcpu_idle_core(const struct sim_vcpu *v)
{
	return vcpu_idle(v) && (!v->smt_sibling || vcpu_idle(v->smt_sibling));
}

/*
 * select_idle_sibling(): @target if idle, else @prev if idle and sharing
 * its LLC, else the first idle core, then the first idle CPU, of
 * @target's LLC scanning from target + 1 (for_each_cpu_wrap()), else
 * @target.
 */
static struct sim_vcpu *select_idle_sibling(struct sim_engine *e, struct sim_vcpu *prev,
					    struct sim_vcpu *target)
{
	struct sim_vcpu *idle_cpu = NULL;
	int i;

	if (vcpu_idle(target))
		return target;
	if (prev != target && cpus_share_cache(prev, target) && vcpu_idle(prev))
		return prev;
	for (i = 1; i <= e->nr_cpus; i++) {
		struct sim_vcpu *v = &e->vcpus[(target->id + i) % e->nr_cpus];

		if (!cpus_share_cache(v, target) || !vcpu_idle(v))
			continue;
		if (vcpu_idle_core(v))
			return v;
		if (!idle_cpu)
			idle_cpu = v;
	}
	return idle_cpu ? idle_cpu : target;
}

/**
 * select_task_rq_fair() - where a waking task runs
 * @e: the engine
 * @t: the task, not pinned, on no run queue; t->vcpu is its previous CPU
 * @waker: the CPU of the waking task, or of the timer (t->vcpu); may be NULL
 *
 * wake_affine() chooses the target between the waker's CPU and the
 * previous one, select_idle_sibling() the CPU.
 * Context: the engine, at the wake-up (sim_wake(), a due timer).
 * Return: the CPU; the caller moves @t there (set_task_cpu()).
 */
struct sim_vcpu *select_task_rq_fair(struct sim_engine *e, struct sim_task *t,
				     struct sim_vcpu *waker)
{
	struct sim_vcpu *prev = t->vcpu, *target = prev;

	if (waker && waker != prev && cpus_share_cache(waker, prev)) {
		/* wake_affine_idle(), then wake_affine_weight() by queue length */
		if (vcpu_idle(waker))
			target = waker;
		else if (!vcpu_idle(prev) && vcpu_nr_running(waker) < vcpu_nr_running(prev))
			target = waker;
	}
	return select_idle_sibling(e, prev, target);
}

/**
 * newidle_balance() - idle_balance() of @v, which has nothing to run
 * @e: the engine
 * @v: the idle vCPU
 * @gained: the counter of the pull (SIM_LB_GAINED_NEWIDLE, or _IDLE for a
 *	nohz kick)
 *
 * The longest-waiting movable task of the vCPU with the most queued
 * tasks, in @v's LLC first, then anywhere (ties: the lowest cpu number).
 * Context: the engine, when @v's task stops and none is queued.
 * Return: that task, unlinked and moved to @v, or NULL.
 */
struct sim_task *newidle_balance(struct sim_engine *e, struct sim_vcpu *v,
				 enum sim_counter gained)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		struct sim_task *best = NULL;
		struct sim_vcpu *src = NULL;
		int best_n = 1, i;

		for (i = 0; i < e->nr_cpus; i++) {
			struct sim_vcpu *u = &e->vcpus[i];
			struct sim_task *t;
			int n;

			if (u == v || !u->rq_head || cpus_share_cache(u, v) != (pass == 0))
				continue;
			n = vcpu_nr_running(u);
			if (n <= best_n)
				continue;
			for (t = u->rq_head; t && (t->pinned || t->no_pull); t = t->rq_next)
				;
			if (!t)
				continue;
			best = t;
			best_n = n;
			src = u;
		}
		if (best) {
			rq_remove(e, src, best);
			set_task_cpu(e, best, v);
			e->counters[gained]++;
			return best;
		}
	}
	return NULL;
}

/* ---- sched domains: fork placement and the periodic balancer --------------- */

/*
 * Constants of kernel/sched (v6.15), not costs: sysctl_sched_migration_cost
 * (a task that left its CPU less than 0.5 ms ago is cache hot, task_hot()),
 * sd_init()'s busy_factor (a busy CPU balances 16 times less often),
 * imbalance_pct (110 for SMT, 117 above), cache_nice_tries (0 for SMT, 1
 * above: the failed balances after which a hot task may move), and the
 * balance interval of a domain of N CPUs: N ms after a move, doubled up
 * to 2N ms while balanced.  NICE_0_LOAD scaled down (1024) is the load of
 * a task that always runs; the model's tasks are all nice 0 and the load
 * of a runnable one is that (PELT's averages left out).  The tick is HZ
 * 1000 (CONFIG_HZ_1000, Fedora's and most distributions' configuration):
 * SCHED_TICK in src/engine/engine.h.
 */
#define SCHED_MIGRATION_COST	(500 * SIM_US)
#define SD_BUSY_FACTOR		16
#define SCHED_LOAD		1024

static const unsigned int sd_imbalance_pct[SIM_NR_SD_LEVELS] = { 110, 117, 117 };
static const unsigned int sd_cache_nice_tries[SIM_NR_SD_LEVELS] = { 0, 1, 1 };

enum { GROUP_HAS_SPARE, GROUP_FULLY_BUSY, GROUP_OVERLOADED };

/* A sched group's statistics (struct sg_lb_stats), by nr_running. */
struct sg_stats {
	int key;			/* the group: see group_key() */
	struct sim_vcpu *first;		/* its first CPU in the domain's order */
	int weight, nr_running, idle_cpus;
	int type;			/* group_classify(): GROUP_* */
};

/* @a and @b are in one span of @level; level -1 is the CPU alone. */
static bool sd_span_has(int level, const struct sim_vcpu *a, const struct sim_vcpu *b)
{
	switch (level) {
	case -1:
		return a == b;
	case SIM_SD_SMT:
		return a == b || a->smt_sibling == b;
	case SIM_SD_MC:
		return a->socket == b->socket;
	default:
		return true;
	}
}

/* Which group of the domain at @level + 1 holds @v. */
static int group_key(int level, const struct sim_vcpu *v)
{
	switch (level) {
	case -1:
		return v->id;
	case SIM_SD_SMT:
		return v->core;
	case SIM_SD_MC:
		return v->socket;
	default:
		return 0;
	}
}

/* The domain of @level exists for @v: it spans more CPUs than its child. */
static bool sd_exists(const struct sim_vcpu *v, int level)
{
	return v->sd_weight[level] > (level ? v->sd_weight[level - 1] : 1);
}

/*
 * The groups of @v's domain at @level, in e->sg[], local group first, the
 * others in for_each_cpu_wrap() order from @v; returns how many.
 */
static int sd_groups(struct sim_engine *e, int level, struct sim_vcpu *v)
{
	int k, n = 0;

	for (k = 0; k < e->nr_cpus; k++) {
		struct sim_vcpu *u = &e->vcpus[(v->id + k) % e->nr_cpus];
		int key = group_key(level - 1, u), j;
		struct sg_stats *g;

		if (!sd_span_has(level, v, u))
			continue;
		for (j = 0; j < n && e->sg[j].key != key; j++)
			;
		g = &e->sg[j];
		if (j == n) {
			memset(g, 0, sizeof(*g));
			g->key = key;
			g->first = u;
			n++;
		}
		g->weight++;
		g->nr_running += vcpu_nr_running(u);
		g->idle_cpus += vcpu_idle(u);
	}
	for (k = 0; k < n; k++) {
		struct sg_stats *g = &e->sg[k];

		g->type = g->nr_running < g->weight ? GROUP_HAS_SPARE :
			  g->nr_running > g->weight ? GROUP_OVERLOADED : GROUP_FULLY_BUSY;
	}
	return n;
}

/* avg_load: load per CPU of capacity, in SCHED_LOAD units. */
static long sg_avg_load(const struct sg_stats *g)
{
	return (long)g->nr_running * SCHED_LOAD / g->weight;
}

/* update_pick_idlest(): is @g idler than @idlest? */
static bool sg_idler(const struct sg_stats *g, const struct sg_stats *idlest)
{
	if (g->type != idlest->type)
		return g->type < idlest->type;
	if (g->type == GROUP_HAS_SPARE) {
		if (g->idle_cpus != idlest->idle_cpus)
			return g->idle_cpus > idlest->idle_cpus;
		return g->nr_running < idlest->nr_running;	/* group_util */
	}
	return sg_avg_load(g) < sg_avg_load(idlest);
}

/*
 * sched_balance_find_dst_group(): the idlest group of @v's domain at
 * @level, or NULL if the local group is as idle (then the child domain
 * decides).
 */
static struct sg_stats *find_dst_group(struct sim_engine *e, int level, struct sim_vcpu *v)
{
	int n = sd_groups(e, level, v), j;
	struct sg_stats *local = &e->sg[0], *idlest = NULL;
	long imbalance;

	for (j = 1; j < n; j++)
		if (!idlest || sg_idler(&e->sg[j], idlest))
			idlest = &e->sg[j];
	if (!idlest || local->type < idlest->type)
		return NULL;
	if (local->type > idlest->type)
		return idlest;
	if (local->type == GROUP_HAS_SPARE)
		return local->idle_cpus >= idlest->idle_cpus ? NULL : idlest;
	imbalance = SCHED_LOAD * (sd_imbalance_pct[level] - 100) / 100;
	if (sg_avg_load(idlest) >= sg_avg_load(local) + imbalance)
		return NULL;
	if (100 * sg_avg_load(local) <= (long)sd_imbalance_pct[level] * sg_avg_load(idlest))
		return NULL;
	return idlest;
}

/*
 * sched_balance_find_dst_group_cpu(): in group @g (a span of @level - 1),
 * the idle CPU that went idle last (no cpuidle exit latencies in the
 * model), else the least loaded, else @this.
 */
static struct sim_vcpu *find_dst_group_cpu(struct sim_engine *e, int level,
					   const struct sg_stats *g, struct sim_vcpu *this)
{
	struct sim_vcpu *idlest = NULL, *least = this;
	sim_time_t latest = 0;
	int i, min_load = INT_MAX;

	if (g->weight == 1)
		return g->first;
	for (i = 0; i < e->nr_cpus; i++) {
		struct sim_vcpu *u = &e->vcpus[i];

		if (!sd_span_has(level - 1, g->first, u))
			continue;
		if (vcpu_idle(u)) {
			if (u->idle_stamp > latest) {
				latest = u->idle_stamp;
				idlest = u;
			}
		} else if (!idlest && vcpu_nr_running(u) < min_load) {
			min_load = vcpu_nr_running(u);
			least = u;
		}
	}
	return idlest ? idlest : least;
}

/**
 * sched_balance_find_dst_cpu() - where a forked task starts
 * @e: the engine
 * @v: the parent's CPU
 *
 * For SD_BALANCE_FORK (every level has it): from the top domain of the
 * parent's CPU down, the idlest group, then its idlest CPU, then that
 * CPU's lower domains.
 * Context: the engine, in sim_task_fork() (wake_up_new_task()).
 * Return: the CPU.
 */
struct sim_vcpu *sched_balance_find_dst_cpu(struct sim_engine *e, struct sim_vcpu *v)
{
	struct sim_vcpu *cpu = v, *new_cpu = v;
	int level;

	for (level = SIM_NR_SD_LEVELS - 1; level >= 0; level--) {
		struct sg_stats *g;

		if (!sd_exists(cpu, level))
			continue;
		g = find_dst_group(e, level, cpu);
		if (!g)
			continue;
		new_cpu = find_dst_group_cpu(e, level, g, cpu);
		cpu = new_cpu;		/* then new_cpu's lower domains */
	}
	return new_cpu;
}

/* The task @t, queued on @src, moves to @dst's queue (detach/attach_task()). */
static void move_queued_task(struct sim_engine *e, struct sim_task *t, struct sim_vcpu *src,
			     struct sim_vcpu *dst, sim_time_t at)
{
	rq_remove(e, src, t);
	set_task_cpu(e, t, dst);
	if (t->ready_at < at)
		t->ready_at = at;
	rq_push(e, dst, t);
}

/*
 * should_we_balance(): of the local group (the span of @level - 1), the
 * first idle CPU balances, or the first CPU if none is idle.  @v is busy.
 */
static bool should_we_balance(struct sim_engine *e, int level, struct sim_vcpu *v)
{
	int i;

	for (i = 0; i < e->nr_cpus; i++) {
		struct sim_vcpu *u = &e->vcpus[i];

		if (sd_span_has(level - 1, v, u) && vcpu_idle(u))
			return false;	/* the idle one balances (nohz kick) */
	}
	for (i = 0; i < e->nr_cpus; i++)
		if (sd_span_has(level - 1, v, &e->vcpus[i]))
			return &e->vcpus[i] == v;
	return false;
}

/*
 * sched_balance_rq() of busy @v (CPU_NOT_IDLE) at @level: the busiest
 * group must be overloaded (queued tasks) and busier than the local one;
 * a local group with spare capacity takes one task (migrate_task), a busy
 * one takes a task whose load fits the imbalance (migrate_load: a task's
 * load halves in the comparison with each failed balance, shr_bound()).
 * From the busiest queue of the group, the longest-waiting task that may
 * move (can_migrate_task(): not pinned, not preempted in kernel code, not
 * cache hot unless the domain failed more than cache_nice_tries times;
 * SMT siblings share the cache, so nothing is hot there).  Returns 1 if a
 * task moved, 0 if balanced, -1 if imbalanced and nothing could move.
 * Active balancing (the stopper pushing a running task) is left out.
 */
static int sched_balance_rq(struct sim_engine *e, int level, struct sim_vcpu *v)
{
	struct sg_stats *local, *busiest = NULL;
	struct sim_vcpu *src = NULL;
	long imbalance = SCHED_LOAD, total_nr = 0, total_w = 0, avg;
	struct sim_task *t;
	int n, j, i, max_nr = 1;

	if (!should_we_balance(e, level, v))
		return 0;
	n = sd_groups(e, level, v);
	local = &e->sg[0];
	for (j = 0; j < n; j++) {
		struct sg_stats *g = &e->sg[j];

		total_nr += g->nr_running;
		total_w += g->weight;
		if (j && (!busiest || g->type > busiest->type ||
			  (g->type == busiest->type && sg_avg_load(g) > sg_avg_load(busiest))))
			busiest = g;
	}
	if (!busiest || busiest->type != GROUP_OVERLOADED)
		return 0;
	if (local->type != GROUP_HAS_SPARE) {
		avg = total_nr * SCHED_LOAD / total_w;
		if (sg_avg_load(local) >= sg_avg_load(busiest) || sg_avg_load(local) >= avg)
			return 0;
		if (local->type == GROUP_OVERLOADED &&
		    100 * sg_avg_load(busiest) <= (long)sd_imbalance_pct[level] * sg_avg_load(local))
			return 0;
		imbalance = (sg_avg_load(busiest) - avg) * busiest->weight;
		if ((avg - sg_avg_load(local)) * local->weight < imbalance)
			imbalance = (avg - sg_avg_load(local)) * local->weight;
	} else if (busiest->nr_running - local->nr_running < 2 &&
		   local->idle_cpus <= busiest->idle_cpus) {
		return 0;
	}
	/* sched_balance_find_src_rq(): the most loaded queue of the group */
	for (i = 0; i < e->nr_cpus; i++) {
		struct sim_vcpu *u = &e->vcpus[i];

		if (u != v && sd_span_has(level - 1, busiest->first, u) &&
		    vcpu_nr_running(u) > max_nr) {
			max_nr = vcpu_nr_running(u);
			src = u;
		}
	}
	if (!src)
		return 0;
	for (t = src->rq_head; t; t = t->rq_next) {
		unsigned int failed = v->nr_balance_failed[level];
		bool hot = level != SIM_SD_SMT &&
			   v->now < t->last_ran + SCHED_MIGRATION_COST;

		if (t->pinned || t->no_pull)
			continue;
		if (hot && failed <= sd_cache_nice_tries[level])
			continue;
		if ((SCHED_LOAD >> (failed < 10 ? failed : 10)) > imbalance)
			continue;
		move_queued_task(e, t, src, v, v->now);
		e->counters[SIM_LB_GAINED_BUSY]++;
		return 1;
	}
	return -1;
}

/* When @v next balances: the earliest level due, and its tick while queued. */
static void vcpu_next_balance(struct sim_vcpu *v)
{
	sim_time_t next = SIM_TIME_MAX;
	int level;

	for (level = 0; level < SIM_NR_SD_LEVELS; level++)
		if (sd_exists(v, level) && v->next_balance[level] < next)
			next = v->next_balance[level];
	v->next_balance_min = next;
}

/*
 * The nohz balancer kick: a busy CPU with a queued task, at its tick, has
 * an idle CPU balance on behalf of the idle ones whose balance is due
 * (_nohz_idle_balance()); each pulls as a newly-idle CPU would.
 */
static void nohz_idle_balance(struct sim_engine *e, struct sim_vcpu *v)
{
	int i, level;

	for (i = 0; i < e->nr_cpus && v->rq_head; i++) {
		struct sim_vcpu *u = &e->vcpus[i];
		struct sim_task *t;

		if (!vcpu_idle(u) || u->next_balance_min > v->now)
			continue;
		for (level = 0; level < SIM_NR_SD_LEVELS; level++)
			u->next_balance[level] = v->now + u->balance_interval[level];
		vcpu_next_balance(u);
		t = newidle_balance(e, u, SIM_LB_GAINED_IDLE);
		if (!t)
			continue;
		if (t->ready_at < v->now + e->machine.ipi_latency_ps)
			t->ready_at = v->now + e->machine.ipi_latency_ps;
		sim_vcpu_switch_to(e, u, t);
		sim_vcpu_requeue(e, u);
	}
}

/**
 * sched_balance_tick() - the scheduler tick's balancing on busy @v
 * @e: the engine
 * @v: the vCPU, running a task, whose v->next_balance_min has come
 *
 * sched_balance_trigger(), rebalance_domains(): each domain whose
 * interval has passed balances; a move resets its interval to the
 * shortest, a balanced domain doubles it up to the longest; a busy CPU
 * waits busy_factor times longer.
 * Context: the engine, at a sync point of @v with IRQs enabled.
 */
void sched_balance_tick(struct sim_engine *e, struct sim_vcpu *v)
{
	int level;

	if (v->rq_head)
		nohz_idle_balance(e, v);
	for (level = 0; level < SIM_NR_SD_LEVELS; level++) {
		sim_time_t min_interval = (sim_time_t)v->sd_weight[level] * SIM_MS;
		int ret = 0;

		if (!sd_exists(v, level) || v->now < v->next_balance[level])
			continue;
		if (e->nr_queued)
			ret = sched_balance_rq(e, level, v);
		if (ret > 0) {
			v->nr_balance_failed[level] = 0;
			v->balance_interval[level] = min_interval;
		} else {
			if (ret < 0)
				v->nr_balance_failed[level]++;
			else
				v->nr_balance_failed[level] = 0;
			if (v->balance_interval[level] < 2 * min_interval)
				v->balance_interval[level] *= 2;
		}
		v->next_balance[level] = v->now + v->balance_interval[level] * SD_BUSY_FACTOR;
	}
	vcpu_next_balance(v);
	if (v->rq_head && v->now + SCHED_TICK < v->next_balance_min)
		v->next_balance_min = v->now + SCHED_TICK;	/* kick again next tick */
}

/**
 * sched_init_domains() - the sched domains of every vCPU of @e
 * @e: the engine, its vCPUs placed (socket, core, SMT sibling)
 *
 * The span of each level and the balancer's first intervals (sd_init()),
 * and the scratch space of the group statistics.
 * Context: sim_engine_create().
 * Return: 0, or -ENOMEM.
 */
int sched_init_domains(struct sim_engine *e)
{
	int i, n = e->nr_cpus;

	e->sg = calloc((size_t)n, sizeof(*e->sg));
	if (!e->sg)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct sim_vcpu *v = &e->vcpus[i];
		int level, j;

		v->idle_stamp = 1;	/* idle since boot, all alike */
		for (level = 0; level < SIM_NR_SD_LEVELS; level++) {
			for (j = 0; j < n; j++)
				v->sd_weight[level] += sd_span_has(level, v, &e->vcpus[j]);
			v->balance_interval[level] = (sim_time_t)v->sd_weight[level] * SIM_MS;
			v->next_balance[level] = v->balance_interval[level];
		}
		vcpu_next_balance(v);
	}
	return 0;
}
