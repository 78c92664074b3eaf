// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine: vCPUs in virtual time, tasks as coroutines, the scheduler.
 *
 * Order.  The scheduler always resumes the vCPU with the smallest
 * (next_time, rank, seq): virtual time first, then the vCPU's rank (a
 * permutation of the cpu numbers drawn from the seed), then the
 * order in which it was queued.  Nothing else decides order: no host time,
 * no pointer value, no hash order.  This is the engine's one rule for
 * determinism.
 *
 * Sync points.  sim_sync() (and every lock acquisition, IPI send, block
 * and wake, which call it) first yields until this vCPU is the earliest,
 * so the order of those operations is exact.  Between sync points a task
 * may run ahead of the earliest other vCPU by at most one quantum (the
 * profile's sched.quantum_ns); sim_cost_*() yields when it would go past.
 *
 * Interrupts.  An IPI's function calls are queued on the target vCPU with
 * an arrival time.  A running task takes them at its next sync point (or
 * local_irq_enable()) with interrupts enabled, at or after arrival; a vCPU
 * that is idle, or spinning with interrupts enabled, is scheduled at the
 * arrival time to take them.  A vCPU spinning with interrupts disabled
 * takes none until it stops spinning and enables them.
 *
 * A vCPU runs one task at a time (curr).  Other runnable tasks of the same
 * vCPU wait on its run queue; a time slice (sched.slice_us) is enforced at
 * sync points, and every switch costs sched.context_switch_ns.
 *
 * Migration (kernel/sched/fair.c, v6.15).  A waking task goes where
 * select_task_rq_fair() sends it: wake_affine() picks the waker's CPU or
 * the task's previous one as the target (the waker's if idle, else the
 * previous if idle, else the one with fewer runnable tasks, ties to the
 * previous), then select_idle_sibling() takes the target if idle, else
 * the previous CPU if idle and in the target's LLC, else the first idle
 * core of the LLC (both SMT threads idle) scanning from target + 1, else
 * the first idle CPU of the LLC, else the target.  A timer wake-up has
 * the timer's CPU (the task's previous one) as waker.  A vCPU that goes
 * idle pulls the longest-waiting queued task of the busiest vCPU of its
 * LLC, then of the machine (newly-idle balancing, idle_balance()).  A
 * task resumed on a vCPU calls sim_switch_mm_hook, where the mm layer
 * loads its mm.  Pinned tasks (sim_task_pin()) never move.  Every
 * decision reads model state only.
 *
 * Fork placement and the tick's balancer (fair.c, v6.15): sim_task_fork()
 * places the child with sched_balance_find_dst_cpu() (SD_BALANCE_FORK),
 * and the tick balances each sched domain (SMT, MC, PKG) when its
 * interval has passed (sched_balance_tick(): sched_balance_rq() with the
 * busiest group and queue, task_hot() and nr_balance_failed), and kicks
 * idle CPUs to pull while a task waits (nohz idle balancing).  See the
 * comments at those functions.
 *
 * Left out: priorities, recent_used_cpu, NUMA balancing, active balancing,
 * task_hot() in newly-idle and nohz pulls, exec placement, preemption
 * between sync points.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine/ctx/ctx.h"
#include "engine/engine.h"
#include "mmsim/hw.h"
#include "mmsim/profile.h"

struct sim_engine *sim_engine_current;
struct sim_vcpu *sim_vcpu_current;
uint64_t *sim_counters_current;
uint64_t sim_smt_scale_q10 = 1024;
void (*sim_switch_mm_hook)(struct sim_task *next);

#define SIM_DEFAULT_STACK	(64 * 1024)
#define SCHED_TICK		SIM_MS	/* HZ 1000: see sched_balance_tick() */

/* ---- the heap of vCPUs, keyed by (next_time, id, seq) ----------------- */

static inline bool vcpu_before(const struct sim_vcpu *a, const struct sim_vcpu *b)
{
	if (a->next_time != b->next_time)
		return a->next_time < b->next_time;
	if (a->rank != b->rank)
		return a->rank < b->rank;
	return a->seq < b->seq;
}

static void heap_set(struct sim_engine *e, int i, struct sim_vcpu *v)
{
	e->heap[i] = v;
	v->heap_pos = i;
}

static void heap_up(struct sim_engine *e, int i)
{
	struct sim_vcpu *v = e->heap[i];

	while (i > 0) {
		int parent = (i - 1) / 2;

		if (!vcpu_before(v, e->heap[parent]))
			break;
		heap_set(e, i, e->heap[parent]);
		i = parent;
	}
	heap_set(e, i, v);
}

static void heap_down(struct sim_engine *e, int i)
{
	struct sim_vcpu *v = e->heap[i];

	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = l;

		if (l >= e->heap_n)
			break;
		if (r < e->heap_n && vcpu_before(e->heap[r], e->heap[l]))
			m = r;
		if (!vcpu_before(e->heap[m], v))
			break;
		heap_set(e, i, e->heap[m]);
		i = m;
	}
	heap_set(e, i, v);
}

static void heap_remove(struct sim_engine *e, struct sim_vcpu *v)
{
	int i = v->heap_pos;
	struct sim_vcpu *last;

	if (i < 0)
		return;
	v->heap_pos = -1;
	last = e->heap[--e->heap_n];
	if (last == v)
		return;
	heap_set(e, i, last);
	heap_up(e, i);
	heap_down(e, last->heap_pos);
}

/* Insert @v with key @t, or move it if it is already queued. */
static void heap_update(struct sim_engine *e, struct sim_vcpu *v, sim_time_t t)
{
	v->next_time = t;
	v->seq = e->seq++;
	if (v->heap_pos < 0) {
		e->heap_n++;
		heap_set(e, e->heap_n - 1, v);
		heap_up(e, v->heap_pos);
	} else {
		heap_up(e, v->heap_pos);
		heap_down(e, v->heap_pos);
	}
}

static struct sim_vcpu *heap_pop(struct sim_engine *e)
{
	struct sim_vcpu *v;

	if (!e->heap_n)
		return NULL;
	v = e->heap[0];
	heap_remove(e, v);
	return v;
}

/* ---- per-vCPU state ------------------------------------------------------ */

static bool vcpu_takes_irqs(const struct sim_vcpu *v)
{
	if (!v->curr)
		return true;			/* idle */
	return v->curr->state == SIM_TASK_SPINNING && !v->irq_disabled;
}

/*
 * Put @v in the heap at the time of its next event, or take it out if it
 * has none: a runnable task runs at v->now; otherwise the first interrupt
 * it can take or, when idle, the first timer.
 */
static void vcpu_requeue(struct sim_engine *e, struct sim_vcpu *v)
{
	sim_time_t t = SIM_TIME_MAX;

	if (v->curr && v->curr->state == SIM_TASK_RUNNABLE) {
		t = v->now;
	} else {
		if (v->csd_head && vcpu_takes_irqs(v))
			t = v->csd_head->arrival > v->now ? v->csd_head->arrival : v->now;
		if (!v->curr && v->sleepers) {
			sim_time_t w = v->sleepers->wake_at > v->now ?
				       v->sleepers->wake_at : v->now;
			if (w < t)
				t = w;
		}
	}
	if (t == SIM_TIME_MAX)
		heap_remove(e, v);
	else
		heap_update(e, v, t);
}

static void rq_push(struct sim_engine *e, struct sim_vcpu *v, struct sim_task *t)
{
	e->nr_queued++;
	if (v->next_balance_min > v->now + SCHED_TICK)
		v->next_balance_min = v->now + SCHED_TICK;	/* the tick's nohz kick */
	t->rq_next = NULL;
	if (v->rq_tail)
		v->rq_tail->rq_next = t;
	else
		v->rq_head = t;
	v->rq_tail = t;
}

static struct sim_task *rq_pop(struct sim_engine *e, struct sim_vcpu *v)
{
	struct sim_task *t = v->rq_head;

	if (t) {
		e->nr_queued--;
		v->rq_head = t->rq_next;
		if (!v->rq_head)
			v->rq_tail = NULL;
		t->rq_next = NULL;
	}
	return t;
}

/* ---- placement and migration ---------------------------------------------- */

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

/*
 * select_task_rq_fair() for a wake-up of @t by a task (or timer) on
 * @waker: wake_affine() chooses the target between the waker's CPU and the
 * previous one, select_idle_sibling() the CPU.
 */
static struct sim_vcpu *select_task_rq(struct sim_engine *e, struct sim_task *t,
				       struct sim_vcpu *waker)
{
	struct sim_vcpu *prev = t->vcpu, *target = prev;

	if (t->pinned)
		return prev;
	if (waker && waker != prev && cpus_share_cache(waker, prev)) {
		/* wake_affine_idle(), then wake_affine_weight() by queue length */
		if (vcpu_idle(waker))
			target = waker;
		else if (!vcpu_idle(prev) && vcpu_nr_running(waker) < vcpu_nr_running(prev))
			target = waker;
	}
	return select_idle_sibling(e, prev, target);
}

/* Move a not-running task @t to @to (set_task_cpu()). */
static void task_migrate(struct sim_engine *e, struct sim_task *t, struct sim_vcpu *to)
{
	t->vcpu = to;
	t->nr_migrations++;
	e->counters[SIM_NR_MIGRATIONS]++;
}

/* Unlink @t from @v's run queue. */
static void rq_remove(struct sim_engine *e, struct sim_vcpu *v, struct sim_task *t)
{
	struct sim_task **pp, *prev = NULL;

	for (pp = &v->rq_head; *pp; prev = *pp, pp = &(*pp)->rq_next) {
		if (*pp != t)
			continue;
		*pp = t->rq_next;
		if (v->rq_tail == t)
			v->rq_tail = prev;
		t->rq_next = NULL;
		e->nr_queued--;
		return;
	}
}

/*
 * idle_balance() of @v, which has nothing to run: the longest-waiting
 * movable task of the vCPU with the most queued tasks, in @v's LLC first,
 * then anywhere (ties: the lowest cpu number).  Returns it, unlinked and
 * moved to @v, or NULL.
 */
static struct sim_task *newidle_balance(struct sim_engine *e, struct sim_vcpu *v,
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
			task_migrate(e, best, v);
			e->counters[gained]++;
			return best;
		}
	}
	return NULL;
}

/* ---- sched domains: fork placement and the periodic balancer --------------- */

static void vcpu_switch_to(struct sim_engine *e, struct sim_vcpu *v, struct sim_task *t);

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
 * 1000 (CONFIG_HZ_1000, Fedora's and most distributions' configuration).
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

/*
 * sched_balance_find_dst_cpu() for SD_BALANCE_FORK (every level has it):
 * from the top domain of the parent's CPU down, the idlest group, then
 * its idlest CPU, then that CPU's lower domains.
 */
static struct sim_vcpu *sched_balance_find_dst_cpu(struct sim_engine *e, struct sim_vcpu *v)
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
	task_migrate(e, t, dst);
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
		vcpu_switch_to(e, u, t);
		vcpu_requeue(e, u);
	}
}

/*
 * The scheduler tick's balancing on busy @v (sched_balance_trigger(),
 * rebalance_domains()): each domain whose interval has passed balances;
 * a move resets its interval to the shortest, a balanced domain doubles
 * it up to the longest; a busy CPU waits busy_factor times longer.
 */
static void sched_balance_tick(struct sim_engine *e, struct sim_vcpu *v)
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

/*
 * finish_task_switch(): the current task has just resumed on this vCPU;
 * the mm layer loads its mm.  Cheap when nothing changed.
 */
static inline void finish_task_switch(void)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct sim_task *t = v->curr;

	if (t && t->switched_in) {
		t->switched_in = false;
		if (sim_switch_mm_hook && t->mm)
			sim_switch_mm_hook(t);
	}
}

/* Make @t the vCPU's running task, paying for the switch. */
static void vcpu_switch_to(struct sim_engine *e, struct sim_vcpu *v,
			   struct sim_task *t)
{
	v->curr = t;
	t->rq_next = NULL;
	t->switched_in = true;
	t->no_pull = false;
	if (t->ready_at > v->now)
		v->now = t->ready_at;
	v->now += e->ctxsw_ps;
	v->nr_switches++;
	e->counters[SIM_SIM_CONTEXT_SWITCHES]++;
	v->slice_end = v->now + e->slice_ps;
}

/* Move due timer sleepers to the run queue (or onto the idle CPU). */
static void vcpu_run_timers(struct sim_engine *e, struct sim_vcpu *v)
{
	while (v->sleepers && v->sleepers->wake_at <= v->now) {
		struct sim_task *t = v->sleepers;

		struct sim_vcpu *to;

		v->sleepers = t->rq_next;
		t->state = SIM_TASK_RUNNABLE;
		t->ready_at = t->wake_at;
		to = select_task_rq(e, t, v);
		if (to != v) {
			task_migrate(e, t, to);
			e->counters[SIM_NR_WAKEUPS_MIGRATE]++;
		}
		if (!to->curr) {
			vcpu_switch_to(e, to, t);
			if (to != v)
				vcpu_requeue(e, to);
		} else {
			rq_push(e, to, t);
		}
	}
}

/* Run the queued function calls of @v that have arrived (an interrupt). */
static void vcpu_handle_irqs(struct sim_engine *e, struct sim_vcpu *v)
{
	struct sim_vcpu *saved = sim_vcpu_current;

	if (!v->csd_head || v->csd_head->arrival > v->now)
		return;
	sim_vcpu_current = v;
	v->in_irq++;
	v->irq_disabled++;
	e->events++;
	e->counters[SIM_IRQ_CALL_COUNT]++;
	v->irq_call_count++;		/* per CPU: /proc/interrupts' CAL row */
	v->now += e->machine.irq_entry_exit_ps;
	/* The handler drains every request queued before it runs. */
	while (v->csd_head && v->csd_head->arrival - e->machine.ipi_latency_ps <= v->now) {
		struct sim_csd *csd = v->csd_head;

		v->csd_head = csd->next;
		if (!v->csd_head)
			v->csd_tail = NULL;
		sim_ipi_run_csd(csd);
	}
	v->irq_disabled--;
	v->in_irq--;
	sim_vcpu_current = saved;
}

/* ---- progress (the command line's, never the model's) ------------------- */

static void (*progress_fn)(void *arg, double done);
static void *progress_arg;

/**
 * sim_set_progress_hook() - report progress of engines created from now on
 * @fn: called every SIM_PROGRESS_EVERY events with the share done, or NULL
 * @arg: its first argument
 *
 * Context: outside any engine run (the command line).
 */
void sim_set_progress_hook(void (*fn)(void *arg, double done), void *arg)
{
	progress_fn = fn;
	progress_arg = arg;
}

/**
 * sim_engine_set_work() - the total work of a run, in the scenario's units
 * @e: the engine
 * @total: units; sim_work_done() counts them
 */
void sim_engine_set_work(struct sim_engine *e, uint64_t total)
{
	e->work_total = total;
}

/**
 * sim_work_done() - @n units of the current engine's work are done
 * @n: units
 *
 * Context: a task; costs nothing in virtual time.
 */
void sim_work_done(uint64_t n)
{
	sim_engine_current->work_done += n;
}

static void engine_progress(struct sim_engine *e)
{
	double done = -1;

	e->progress_at += SIM_PROGRESS_EVERY;
	if (!progress_fn)
		return;
	if (e->work_total)
		done = e->work_done >= e->work_total ? 1.0 :
		       (double)e->work_done / (double)e->work_total;
	progress_fn(progress_arg, done);
}

/* ---- switching ------------------------------------------------------------ */

static inline struct sim_ctx *running_ctx(struct sim_engine *e)
{
	return e->running ? e->running->ctx : e->main_ctx;
}

/*
 * Give the host CPU to the earliest vCPU.  Called on the coroutine of the
 * task that stops running (or on the main loop); returns when that task is
 * resumed.  vCPUs whose event is an interrupt or a timer are served here,
 * on the caller's stack, without a coroutine switch.
 */
static void sched_next_from(struct sim_engine *e, int dying, struct sim_vcpu *first)
{
	struct sim_task *self = e->running;

	for (;;) {
		struct sim_vcpu *v = first ? first : heap_pop(e);
		struct sim_task *t;

		first = NULL;
		if (!v) {
			/* Everything ended, or everything waits: a deadlock. */
			e->running = NULL;
			if (self)
				sim_ctx_switch(self->ctx, e->main_ctx, dying);
			return;
		}
		if (v->next_time > v->now)
			v->now = v->next_time;
		t = v->curr;
		if (!t || t->state != SIM_TASK_RUNNABLE) {
			if (vcpu_takes_irqs(v))
				vcpu_handle_irqs(e, v);
			if (!v->curr)
				vcpu_run_timers(e, v);
			vcpu_requeue(e, v);
			continue;
		}
		if (++e->events >= e->progress_at)
			engine_progress(e);
		sim_vcpu_current = v;
		v->quantum_end = (e->heap_n ? e->heap[0]->next_time : v->now) +
				 e->quantum_ps;
		if (t == self)
			return;
		e->running = t;
		if (self)
			sim_ctx_switch(self->ctx, t->ctx, dying);
		else
			sim_ctx_switch(e->main_ctx, t->ctx, 0);
		return;
	}
}

static void sched_next(struct sim_engine *e, int dying)
{
	sched_next_from(e, dying, NULL);
}

/* Put @v in the heap in place of the top, which is returned (one sift). */
static struct sim_vcpu *heap_replace_top(struct sim_engine *e, struct sim_vcpu *v)
{
	struct sim_vcpu *top = e->heap[0];

	top->heap_pos = -1;
	v->next_time = v->now;
	v->seq = e->seq++;
	heap_set(e, 0, v);
	heap_down(e, 0);
	return top;
}

/* The current task gives way if it is not the earliest. */
static void sched_yield_if_late(struct sim_engine *e, struct sim_vcpu *v)
{
	if (e->heap_n) {
		struct sim_vcpu *top = e->heap[0];

		if (top->next_time < v->now ||
		    (top->next_time == v->now && top->rank < v->rank)) {
			sched_next_from(e, 0, heap_replace_top(e, v));
			return;
		}
		v->quantum_end = top->next_time + e->quantum_ps;
	} else {
		v->quantum_end = SIM_TIME_MAX;
	}
}

void sim_sync(void)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_vcpu *v = sim_vcpu_current;

	if (v->in_irq)
		return;
	for (;;) {
		sched_yield_if_late(e, v);
		v = sim_vcpu_current;
		if (v->sleepers && v->sleepers->wake_at <= v->now)
			vcpu_run_timers(e, v);
		if (!v->irq_disabled && v->csd_head && v->csd_head->arrival <= v->now) {
			vcpu_handle_irqs(e, v);
			continue;	/* the handler took time: re-check order */
		}
		if (v->now >= v->next_balance_min && !v->irq_disabled)
			sched_balance_tick(e, v);
		if (v->rq_head && v->now >= v->slice_end && !v->nr_spinlocks_held &&
		    !v->irq_disabled) {
			/*
			 * Time slice over: the next runnable task's turn (never
			 * with a spinlock held or IRQs off: preempt_count).
			 * Preempted elsewhere than at cond_resched(), the task
			 * may be in a section the model does not mark as
			 * preempt-disabled (get_cpu(), local_lock()): it stays
			 * on this vCPU.
			 */
			struct sim_task *self = v->curr;

			self->ready_at = v->now;	/* a CPU that pulls it starts here */
			self->last_ran = v->now;
			self->no_pull = !self->preemptible;
			rq_push(e, v, self);
			vcpu_switch_to(e, v, rq_pop(e, v));
			heap_update(e, v, v->now);
			sched_next(e, 0);
			v = sim_vcpu_current;	/* pulled meanwhile: another vCPU */
			continue;
		}
		break;
	}
	finish_task_switch();
	/*
	 * A step ends at every sync point.  Checks see the model only between
	 * steps: never while a vCPU is suspended in the middle of one by its
	 * quantum.
	 */
	if (e->check_fn && !e->nr_mid_step)
		e->check_fn(e->check_arg);
}

void sim_quantum_expired(void)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_vcpu *v = sim_vcpu_current;

	if (v->in_irq || !e->running)
		return;
	e->nr_mid_step++;
	sim_sync();
	e->nr_mid_step--;
}

/* The current task stops running; the vCPU runs the next one, if any. */
static void task_stop(struct sim_engine *e, struct sim_vcpu *v, int dying)
{
	struct sim_task *next = rq_pop(e, v);

	v->curr->last_ran = v->now;

	if (next) {
		vcpu_switch_to(e, v, next);
	} else {
		v->curr = NULL;
		vcpu_run_timers(e, v);
		if (!v->curr) {
			next = newidle_balance(e, v, SIM_LB_GAINED_NEWIDLE);
			if (next)
				vcpu_switch_to(e, v, next);
			else
				v->idle_stamp = v->now + 1;	/* 0: never idle */
		}
	}
	vcpu_requeue(e, v);
	sched_next(e, dying);
	if (!dying)
		finish_task_switch();
}

void sim_sleep_block(const char *what, const void *obj, const char *name)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_vcpu *v = sim_vcpu_current;
	struct sim_task *t = v->curr;

	t->state = SIM_TASK_SLEEPING;
	t->wait.what = what;
	t->wait.obj = obj;
	t->wait.name = name;
	task_stop(e, v, 0);
}

void sim_spin_block(const char *what, const void *obj, const char *name)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_vcpu *v = sim_vcpu_current;
	struct sim_task *t = v->curr;
	sim_time_t start = v->now;

	t->state = SIM_TASK_SPINNING;
	t->wait.what = what;
	t->wait.obj = obj;
	t->wait.name = name;
	vcpu_requeue(e, v);
	sched_next(e, 0);
	v->spin_ps += v->now - start;
}

void sim_wake(struct sim_task *t, sim_time_t at)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_vcpu *v = t->vcpu;

	t->wait.what = NULL;
	if (t->state == SIM_TASK_SPINNING) {
		t->state = SIM_TASK_RUNNABLE;
		if (at > v->now)
			v->now = at;
		vcpu_requeue(e, v);
		return;
	}
	if (t->state != SIM_TASK_SLEEPING)
		return;
	t->state = SIM_TASK_RUNNABLE;
	t->ready_at = at + e->wakeup_ps;
	v = select_task_rq(e, t, sim_vcpu_current);
	if (v != t->vcpu) {
		task_migrate(e, t, v);
		e->counters[SIM_NR_WAKEUPS_MIGRATE]++;
	}
	if (!v->curr) {
		if (t->ready_at > v->now)
			v->now = t->ready_at;
		vcpu_switch_to(e, v, t);
		vcpu_requeue(e, v);
	} else {
		rq_push(e, v, t);
	}
}

void sim_sleep_ps(sim_time_t ps)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_vcpu *v = sim_vcpu_current;
	struct sim_task *t = v->curr, **pp;

	sim_sync();
	v = sim_vcpu_current;
	t->wake_at = v->now + ps;
	t->state = SIM_TASK_SLEEPING;
	t->wait.what = "timer";
	t->wait.obj = NULL;
	t->wait.name = "sleep";
	for (pp = &v->sleepers; *pp && (*pp)->wake_at <= t->wake_at; pp = &(*pp)->rq_next)
		;
	t->rq_next = *pp;
	*pp = t;
	task_stop(e, v, 0);
}

void cond_resched(void)
{
	struct sim_vcpu *v = sim_vcpu_current;

	if (v->rq_head)
		v->slice_end = 0;
	v->curr->preemptible = true;
	sim_sync();
	sim_current()->preemptible = false;
}

void local_irq_disable(void)
{
	sim_vcpu_current->irq_disabled++;
}

void local_irq_enable(void)
{
	struct sim_vcpu *v = sim_vcpu_current;

	if (--v->irq_disabled == 0 && v->csd_head && v->csd_head->arrival <= v->now &&
	    !v->in_irq)
		sim_sync();
}

/* ---- tasks ------------------------------------------------------------------ */

static void task_entry(void)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_task *t = e->running;

	sim_ctx_started(t->ctx);
	t->fn(t->arg);
	if (t->waiter) {
		sim_sync();
		sim_wake(t->waiter, sim_now());	/* do_exit(): the parent's waitpid() returns */
		t->waiter = NULL;
	}
	/* The task has ended: never resumed again. */
	t->state = SIM_TASK_DEAD;
	t->wait.what = NULL;
	e->nr_live--;
	task_stop(e, t->vcpu, 1);
	abort();	/* not reached */
}

/*
 * What differs between two runs of one benchmark on a real machine, drawn
 * from the run's seed (docs/design.md, "What a seed changes"), each from a
 * stream of its own so that one does not shift another:
 * - a task created before the run starts begins up to sched.start_jitter_us
 *   late (thread creation and wake-up are not instantaneous nor equal);
 * - the first time slice of each vCPU ends at a random phase of a slice
 *   (the scheduler tick that ends slices runs at its own phase per CPU);
 * - vCPUs due at the same virtual time run in an order drawn from the seed
 *   (e->vcpus[].rank), not by cpu number.
 * A task created while the run is under way (by another task) starts at
 * once: its start is the model's business.  sched.start_jitter_us = 0 is
 * the idealised machine: tasks start at once and the slices are in phase
 * (only the order of simultaneous vCPUs still follows the seed).
 */
static sim_time_t task_start_jitter(struct sim_engine *e, const struct sim_task *t)
{
	struct sim_rng r;

	if (!e->start_jitter_ps || e->events)
		return 0;
	sim_rng_seed(&r, e->seed, (2ULL << 32) | (uint64_t)t->pid);
	return sim_rng_below(&r, e->start_jitter_ps);
}

static sim_time_t vcpu_tick_phase(struct sim_engine *e, const struct sim_vcpu *v)
{
	struct sim_rng r;

	if (!e->slice_ps || !e->start_jitter_ps)
		return e->slice_ps;	/* the idealised machine: every tick in phase */
	sim_rng_seed(&r, e->seed, (3ULL << 32) | (uint64_t)v->id);
	return 1 + sim_rng_below(&r, e->slice_ps);
}

/* A new task on @v, not yet on any queue (copy_process()). */
static struct sim_task *task_alloc(struct sim_engine *e, struct sim_vcpu *v,
				   const char *comm, sim_task_fn fn, void *arg)
{
	struct sim_task *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->stack_size = e->stack_size;
	t->stack = mmap(NULL, t->stack_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (t->stack == MAP_FAILED) {
		free(t);
		return NULL;
	}
	t->ctx = sim_ctx_create(t->stack, t->stack_size, task_entry);
	if (!t->ctx) {
		munmap(t->stack, t->stack_size);
		free(t);
		return NULL;
	}
	t->vcpu = v;
	t->fn = fn;
	t->arg = arg;
	t->pid = ++e->nr_tasks;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	sim_rng_seed(&t->rng, e->seed, (1ULL << 32) | (uint64_t)t->pid);
	t->state = SIM_TASK_RUNNABLE;
	t->all_next = e->tasks;
	e->tasks = t;
	e->nr_live++;
	return t;
}

struct sim_task *sim_task_create(struct sim_engine *e, int cpu,
				 const char *comm, sim_task_fn fn, void *arg)
{
	struct sim_task *t;
	struct sim_vcpu *v;

	if (cpu < 0 || cpu >= e->nr_cpus)
		return NULL;
	v = &e->vcpus[cpu];
	t = task_alloc(e, v, comm, fn, arg);
	if (!t)
		return NULL;
	t->ready_at = v->now + task_start_jitter(e, t);
	if (!v->curr) {
		v->curr = t;
		if (t->ready_at > v->now)
			v->now = t->ready_at;	/* idle until then */
		v->slice_end = v->now + vcpu_tick_phase(e, v);
		vcpu_requeue(e, v);
	} else {
		rq_push(e, v, t);
	}
	return t;
}

struct sim_task *sim_task_fork(const char *comm, sim_task_fn fn, void *arg)
{
	struct sim_engine *e = sim_engine_current;
	struct sim_vcpu *v, *to;
	struct sim_task *t;

	sim_cost_ps(e->fork_ps);		/* copy_process() */
	sim_sync();
	v = sim_vcpu_current;
	to = sched_balance_find_dst_cpu(e, v);	/* select_task_rq(SD_BALANCE_FORK) */
	t = task_alloc(e, to, comm, fn, arg);
	if (!t)
		return NULL;
	e->counters[SIM_NR_FORKS]++;
	t->ready_at = v->now + (to != v ? e->wakeup_ps : 0);	/* wake_up_new_task() */
	if (!to->curr) {
		vcpu_switch_to(e, to, t);
		vcpu_requeue(e, to);
	} else {
		rq_push(e, to, t);
	}
	return t;
}

void sim_waitpid(struct sim_task *child)
{
	if (child->state == SIM_TASK_DEAD)
		return;
	child->waiter = sim_current();
	sim_sleep_block("waitpid", child, child->comm);
}

/* ---- the engine ---------------------------------------------------------------- */

struct sim_engine *sim_engine_create(const struct sim_engine_opts *o)
{
	const struct sim_profile *p = o->profile;
	struct sim_engine *e;
	int i, n = o->nr_cpus;
	int siblings_apart;

	if (n <= 0 || n > SIM_MAX_CPUS || n > sim_profile_nr_cpus(p))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->profile = p;
	e->nr_cpus = n;
	e->seed = o->seed;
	e->check = o->check;
	e->stack_size = o->stack_size ? o->stack_size : SIM_DEFAULT_STACK;
#if SIM_ASAN
	e->stack_size *= 4;	/* ASan frames are larger */
#endif
	e->quantum_ps = p->sched_quantum_ns * SIM_NS;
	e->ctxsw_ps = p->sched_context_switch_ns * SIM_NS;
	e->wakeup_ps = p->sched_wakeup_ns * SIM_NS;
	e->slice_ps = p->sched_slice_us * SIM_US;
	e->start_jitter_ps = p->sched_start_jitter_us * SIM_US;
	e->fork_ps = p->sched_fork_us * SIM_US;
	e->vcpus = calloc((size_t)n, sizeof(*e->vcpus));
	e->heap = calloc((size_t)n, sizeof(*e->heap));
	e->sg = calloc((size_t)n, sizeof(*e->sg));
	e->main_ctx = sim_ctx_create_main();
	if (!e->vcpus || !e->heap || !e->sg || !e->main_ctx ||
	    sim_machine_init(&e->machine, p, n)) {
		sim_engine_destroy(e);
		return NULL;
	}
	/* Each vCPU where Linux numbers it (sim_machine_cpu_place()). */
	siblings_apart = (int)(p->topology_sockets * p->topology_cores_per_socket);
	for (i = 0; i < n; i++) {
		struct sim_vcpu *v = &e->vcpus[i];

		v->id = i;
		v->heap_pos = -1;
		sim_machine_cpu_place(p, i, &v->socket, &v->core, &v->smt, &v->node);
		sim_rng_seed(&v->rng, o->seed, (uint64_t)i);
	}
	/* The order of vCPUs due at the same time: a permutation from the seed. */
	{
		struct sim_rng r;

		sim_rng_seed(&r, o->seed, 4ULL << 32);
		for (i = 0; i < n; i++)
			e->vcpus[i].rank = i;
		for (i = n - 1; i > 0; i--) {
			int j = (int)sim_rng_below(&r, (uint64_t)i + 1), tmp;

			tmp = e->vcpus[i].rank;
			e->vcpus[i].rank = e->vcpus[j].rank;
			e->vcpus[j].rank = tmp;
		}
	}
	/* SMT siblings: the vCPUs that share a core (one sibling per core here). */
	for (i = 0; i < n; i++) {
		int sib = i < siblings_apart ? i + siblings_apart : i - siblings_apart;

		if (p->topology_threads_per_core > 1 && sib < n)
			e->vcpus[i].smt_sibling = &e->vcpus[sib];
	}
	/* sched domains: spans, and the balancer's first intervals (sd_init()) */
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
	e->smt_scale_q10 = p->sched_smt_throughput_pct ?
			   1024 * 100 / p->sched_smt_throughput_pct : 1024;
	e->class_tail = &e->classes;
	e->progress_at = progress_fn ? SIM_PROGRESS_EVERY : UINT64_MAX;
	sim_engine_current = e;
	sim_counters_current = e->counters;
	sim_vcpu_current = &e->vcpus[0];
	sim_machine_set_current(&e->machine);
	sim_smt_scale_q10 = e->smt_scale_q10;
	return e;
}

void sim_engine_destroy(struct sim_engine *e)
{
	struct sim_task *t, *tn;
	struct lock_class_stat *c, *cn;

	if (!e)
		return;
	for (t = e->tasks; t; t = tn) {
		tn = t->all_next;
		sim_ctx_destroy(t->ctx);
		munmap(t->stack, t->stack_size);
		free(t);
	}
	for (c = e->classes; c; c = cn) {
		cn = c->next;
		free(c);
	}
	sim_ctx_destroy(e->main_ctx);
	sim_machine_destroy(&e->machine);
	free(e->vcpus);
	free(e->heap);
	free(e->sg);
	if (sim_engine_current == e) {
		sim_engine_current = NULL;
		sim_vcpu_current = NULL;
		sim_counters_current = NULL;
	}
	free(e);
}

static void deadlock_report(struct sim_engine *e, char *buf, size_t len)
{
	size_t off = 0;
	struct sim_task *t;

	off += (size_t)snprintf(buf + off, len - off,
				"deadlock: %d task(s) can never run again", e->nr_live);
	for (t = e->tasks; t && off < len; t = t->all_next) {
		if (t->state == SIM_TASK_DEAD)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "; %s (pid %d, cpu %d) waits for %s %s",
					t->comm, t->pid, t->vcpu->id,
					t->wait.what ? t->wait.what : "?",
					t->wait.name ? t->wait.name : "?");
		if (off < len && t->wait.what && !strcmp(t->wait.what, "spinlock")) {
			const struct spinlock *l = t->wait.obj;
			const struct sim_task *w;

			off += (size_t)snprintf(buf + off, len - off, " held by %s (cpu %d), waiters:",
						l->owner_task ? l->owner_task->comm : "?",
						l->owner ? l->owner->id : -1);
			for (w = l->waiters_head; w && off < len; w = w->rq_next)
				off += (size_t)snprintf(buf + off, len - off, " %s", w->comm);
		}
	}
}

int sim_engine_run(struct sim_engine *e, char *report, size_t len)
{
	sim_engine_current = e;
	sim_counters_current = e->counters;
	sim_machine_set_current(&e->machine);
	sim_smt_scale_q10 = e->smt_scale_q10;
	e->running = NULL;
	sched_next(e, 0);
	if (e->nr_live > 0) {
		if (report && len)
			deadlock_report(e, report, len);
		return -EDEADLK;
	}
	return 0;
}

sim_time_t sim_engine_end_time(const struct sim_engine *e)
{
	sim_time_t end = 0;
	int i;

	for (i = 0; i < e->nr_cpus; i++)
		if (e->vcpus[i].now > end)
			end = e->vcpus[i].now;
	return end;
}

int sim_engine_nr_cpus(const struct sim_engine *e) { return e->nr_cpus; }
struct sim_vcpu *sim_engine_vcpu(struct sim_engine *e, int cpu) { return &e->vcpus[cpu]; }
const struct sim_profile *sim_engine_profile(const struct sim_engine *e) { return e->profile; }
uint64_t sim_engine_events(const struct sim_engine *e) { return e->events; }
uint64_t *sim_engine_counters(struct sim_engine *e) { return e->counters; }
bool sim_engine_checking(const struct sim_engine *e) { return e->check; }
void sim_engine_set_priv(struct sim_engine *e, void *priv) { e->priv = priv; }
void *sim_engine_priv(const struct sim_engine *e) { return e->priv; }

/* ---- lock_stat: the run's lock classes, as it keeps its counters ---------- */

/**
 * sim_lock_class() - the lock class named @name of @e, created at first use
 * @e: the engine
 * @name: the class, as lock_stat names it
 *
 * Context: creating a lock (spin_lock_init(), init_rwsem()).
 * Return: the class; it lives as long as @e.
 */
struct lock_class_stat *sim_lock_class(struct sim_engine *e, const char *name)
{
	struct lock_class_stat *c;

	for (c = e->classes; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	snprintf(c->name, sizeof(c->name), "%s", name);
	*e->class_tail = c;
	e->class_tail = &c->next;
	return c;
}

struct lock_class_stat *sim_lock_classes(struct sim_engine *e)
{
	return e->classes;
}

void sim_engine_set_check_hook(struct sim_engine *e, void (*fn)(void *), void *arg)
{
	e->check_fn = fn;
	e->check_arg = arg;
}

/* Queue @csd on @target; returns true if its queue was empty (send an IPI). */
bool sim_vcpu_queue_csd(struct sim_vcpu *target, struct sim_csd *csd)
{
	struct sim_engine *e = sim_engine_current;
	bool was_empty = !target->csd_head;

	csd->next = NULL;
	if (target->csd_tail)
		target->csd_tail->next = csd;
	else
		target->csd_head = csd;
	target->csd_tail = csd;
	if (was_empty && target->heap_pos < 0 && target != sim_vcpu_current)
		vcpu_requeue(e, target);
	else if (was_empty && target->heap_pos >= 0 &&
		 !(target->curr && target->curr->state == SIM_TASK_RUNNABLE))
		vcpu_requeue(e, target);
	return was_empty;
}
