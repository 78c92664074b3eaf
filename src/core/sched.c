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
 * Left out: priorities, the periodic load balancer of the scheduler tick
 * (with every CPU busy it moves tasks between equal queues only; while a
 * CPU is idle the two paths above already move them), task_hot() cache
 * hotness and the migration cost, recent_used_cpu, NUMA balancing,
 * fork/exec placement (a task starts where it is created), preemption
 * between sync points.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/ctx/ctx.h"
#include "core/engine.h"
#include "mmsim/hw.h"
#include "mmsim/profile.h"

struct sim_engine *sim_engine_current;
struct sim_vcpu *sim_vcpu_current;
uint64_t *sim_counters_current;
uint64_t sim_smt_scale_q10 = 1024;
void (*sim_switch_mm_hook)(struct sim_task *next);

#define SIM_DEFAULT_STACK	(64 * 1024)

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

static void rq_push(struct sim_vcpu *v, struct sim_task *t)
{
	t->rq_next = NULL;
	if (v->rq_tail)
		v->rq_tail->rq_next = t;
	else
		v->rq_head = t;
	v->rq_tail = t;
}

static struct sim_task *rq_pop(struct sim_vcpu *v)
{
	struct sim_task *t = v->rq_head;

	if (t) {
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
static void rq_remove(struct sim_vcpu *v, struct sim_task *t)
{
	struct sim_task **pp, *prev = NULL;

	for (pp = &v->rq_head; *pp; prev = *pp, pp = &(*pp)->rq_next) {
		if (*pp != t)
			continue;
		*pp = t->rq_next;
		if (v->rq_tail == t)
			v->rq_tail = prev;
		t->rq_next = NULL;
		return;
	}
}

/*
 * idle_balance() of @v, which has nothing to run: the longest-waiting
 * movable task of the vCPU with the most queued tasks, in @v's LLC first,
 * then anywhere (ties: the lowest cpu number).  Returns it, unlinked and
 * moved to @v, or NULL.
 */
static struct sim_task *newidle_balance(struct sim_engine *e, struct sim_vcpu *v)
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
			rq_remove(src, best);
			task_migrate(e, best, v);
			e->counters[SIM_LB_GAINED_NEWIDLE]++;
			return best;
		}
	}
	return NULL;
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
			rq_push(to, t);
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
	v->now += e->irq_entry_exit_ps;
	/* The handler drains every request queued before it runs. */
	while (v->csd_head && v->csd_head->arrival - e->ipi_latency_ps <= v->now) {
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
			self->no_pull = !self->preemptible;
			rq_push(v, self);
			vcpu_switch_to(e, v, rq_pop(v));
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

void sim_cost_cycles(uint64_t cycles)
{
	sim_cost_ps(sim_cycles_to_ps(cycles));
}

sim_time_t sim_cycles_to_ps(uint64_t cycles)
{
	return (cycles * sim_engine_current->ps_per_cycle_q20) >> 20;
}

/* The current task stops running; the vCPU runs the next one, if any. */
static void task_stop(struct sim_engine *e, struct sim_vcpu *v, int dying)
{
	struct sim_task *next = rq_pop(v);

	if (next) {
		vcpu_switch_to(e, v, next);
	} else {
		v->curr = NULL;
		vcpu_run_timers(e, v);
		if (!v->curr) {
			next = newidle_balance(e, v);
			if (next)
				vcpu_switch_to(e, v, next);
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
		rq_push(v, t);
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

struct sim_task *sim_task_create(struct sim_engine *e, int cpu,
				 const char *comm, sim_task_fn fn, void *arg)
{
	struct sim_task *t;
	struct sim_vcpu *v;

	if (cpu < 0 || cpu >= e->nr_cpus)
		return NULL;
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
	v = &e->vcpus[cpu];
	t->vcpu = v;
	t->fn = fn;
	t->arg = arg;
	t->pid = ++e->nr_tasks;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	sim_rng_seed(&t->rng, e->seed, (1ULL << 32) | (uint64_t)t->pid);
	t->state = SIM_TASK_RUNNABLE;
	t->ready_at = v->now + task_start_jitter(e, t);
	t->all_next = e->tasks;
	e->tasks = t;
	e->nr_live++;
	if (!v->curr) {
		v->curr = t;
		if (t->ready_at > v->now)
			v->now = t->ready_at;	/* idle until then */
		v->slice_end = v->now + vcpu_tick_phase(e, v);
		vcpu_requeue(e, v);
	} else {
		rq_push(v, t);
	}
	return t;
}

static sim_time_t sim_cycles_to_ps_q20(const struct sim_engine *e, uint64_t cycles)
{
	return (cycles * e->ps_per_cycle_q20) >> 20;
}

/* ---- the engine ---------------------------------------------------------------- */

struct sim_engine *sim_engine_create(const struct sim_engine_opts *o)
{
	const struct sim_profile *p = o->profile;
	struct sim_engine *e;
	int i, n = o->nr_cpus;
	int per_socket, siblings_apart;

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
	e->mhz = p->clock_mhz;
	e->quantum_ps = p->sched_quantum_ns * SIM_NS;
	e->ctxsw_ps = p->sched_context_switch_ns * SIM_NS;
	e->wakeup_ps = p->sched_wakeup_ns * SIM_NS;
	e->slice_ps = p->sched_slice_us * SIM_US;
	e->start_jitter_ps = p->sched_start_jitter_us * SIM_US;
	e->ipi_send_ps = p->ipi_send_ns * SIM_NS;
	e->ipi_latency_ps = p->ipi_latency_ns * SIM_NS;
	e->irq_entry_exit_ps = p->ipi_entry_exit_ns * SIM_NS;
	e->line_ps[0] = p->cache_l1_hit_ns * SIM_NS;
	e->line_ps[1] = p->cache_smt_transfer_ns * SIM_NS;
	e->line_ps[2] = p->cache_socket_transfer_ns * SIM_NS;
	e->line_ps[3] = p->cache_remote_transfer_ns * SIM_NS;
	e->ps_per_cycle_q20 = (1000000ULL << 20) / p->clock_mhz;
	e->atomic_ps = sim_cycles_to_ps_q20(e, p->lock_atomic_cycles);
	e->pause_half_ps = sim_cycles_to_ps_q20(e, p->lock_pause_cycles) / 2;
	e->vcpus = calloc((size_t)n, sizeof(*e->vcpus));
	e->cpu_topo = calloc((size_t)n, sizeof(*e->cpu_topo));
	e->heap = calloc((size_t)n, sizeof(*e->heap));
	e->main_ctx = sim_ctx_create_main();
	if (!e->vcpus || !e->cpu_topo || !e->heap || !e->main_ctx) {
		sim_engine_destroy(e);
		return NULL;
	}
	/*
	 * Linux's numbering on Intel servers: first one thread of every core,
	 * socket by socket, then the SMT siblings in the same order.
	 */
	per_socket = (int)p->topology_cores_per_socket;
	siblings_apart = (int)(p->topology_sockets * p->topology_cores_per_socket);
	for (i = 0; i < n; i++) {
		struct sim_vcpu *v = &e->vcpus[i];
		int rem = i % siblings_apart;

		v->id = i;
		v->heap_pos = -1;
		v->smt = i / siblings_apart;
		v->socket = rem / per_socket;
		v->core = rem;
		v->node = (int)((uint64_t)v->socket * p->topology_nodes /
				p->topology_sockets);
		sim_rng_seed(&v->rng, o->seed, (uint64_t)i);
		e->cpu_topo[i] = (uint32_t)v->socket << 16 | (uint32_t)v->core;
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
	e->smt_scale_q10 = p->sched_smt_throughput_pct ?
			   1024 * 100 / p->sched_smt_throughput_pct : 1024;
	e->class_tail = &e->classes;
	e->progress_at = progress_fn ? SIM_PROGRESS_EVERY : UINT64_MAX;
	sim_engine_current = e;
	sim_counters_current = e->counters;
	sim_vcpu_current = &e->vcpus[0];
	sim_line_hit_ps = e->line_ps[0];
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
	free(e->vcpus);
	free(e->cpu_topo);
	free(e->heap);
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
	sim_line_hit_ps = e->line_ps[0];
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
