// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's scheduler core: vCPUs in virtual time, tasks as
 * coroutines, their run queues, interrupts, blocking and waking.
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
 * sync points, and while a task waits the slice's end bounds the running
 * one's run-ahead (the tick's preemption, also of work between sync
 * points); cond_resched() switches only when the slice is used up.  Every
 * switch costs sched.context_switch_ns.
 *
 * Where a task runs.  A waking task goes where select_task_rq() sends
 * it, a forked one where sched_balance_find_dst_cpu() does; a vCPU that
 * goes idle pulls a queued task (newidle_balance()), and the tick
 * balances the sched domains (sched_balance_tick()).  Those are the fair
 * scheduler's policy, in src/mm/fair.c; this file moves the tasks.  A
 * task resumed on a vCPU calls sim_switch_mm_hook, where the mm layer
 * loads its mm.  Pinned tasks (sim_task_pin()) never move.
 *
 * Left out: wake-up preemption (EEVDF's check_preempt_wakeup_fair(): a
 * woken task waits for the running one's slice to end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "engine/ctx/ctx.h"
#include "engine/engine.h"
#include "mmsim/hw.h"
#include "mmsim/profile.h"

struct sim_vcpu *sim_vcpu_current;
uint64_t sim_smt_scale_q10 = 1024;
void (*sim_switch_mm_hook)(struct sim_task *next);

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
void sim_vcpu_requeue(struct sim_engine *e, struct sim_vcpu *v)
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

/* select_task_rq(): a pinned task stays; the fair class places the others. */
static inline struct sim_vcpu *select_task_rq(struct sim_engine *e, struct sim_task *t,
					      struct sim_vcpu *waker)
{
	if (t->pinned)
		return t->vcpu;
	return select_task_rq_fair(e, t, waker);
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

/*
 * CPU time.  A task's runs from when it comes on its vCPU (the switch's
 * cost included: the incoming task pays it) to when it leaves it,
 * spinning included (update_curr(): se.sum_exec_runtime); a vCPU's
 * busy_ps is the sum of its tasks' and of the interrupts it takes while
 * idle.  Nothing in the model reads them; --report functions does.
 */
static inline void task_oncpu(struct sim_vcpu *v, struct sim_task *t)
{
	t->oncpu_since = v->now;
}

static inline void task_offcpu(struct sim_vcpu *v, struct sim_task *t)
{
	t->sum_exec_ps += v->now - t->oncpu_since;
	v->busy_ps += v->now - t->oncpu_since;
}

/* Make @t the vCPU's running task, paying for the switch. */
void sim_vcpu_switch_to(struct sim_engine *e, struct sim_vcpu *v, struct sim_task *t)
{
	v->curr = t;
	t->rq_next = NULL;
	t->switched_in = true;
	t->no_pull = false;
	if (t->ready_at > v->now)
		v->now = t->ready_at;
	task_oncpu(v, t);
	v->now += e->ctxsw_ps;
	v->nr_switches++;
	e->counters[SIM_SIM_CONTEXT_SWITCHES]++;
	v->slice_end = v->now + e->slice_ps;
}

/*
 * The running task's run-ahead bound: @end, or the end of its time slice
 * when another task waits on this vCPU, so that work between sync points
 * (a user-mode loop, sim_cost() alone) is preempted when its slice is used
 * up, as the scheduler tick does (sched_tick() -> update_curr() sets
 * TIF_NEED_RESCHED), even on a vCPU no other vCPU bounds.  A slice that
 * ended while the task could not be preempted (a spinlock held) does not
 * bound it: the next sync point does.
 */
static void vcpu_set_quantum_end(struct sim_vcpu *v, sim_time_t end)
{
	if (v->rq_head && v->slice_end > v->now && v->slice_end < end)
		end = v->slice_end;
	v->quantum_end = end;
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
			set_task_cpu(e, t, to);
			e->counters[SIM_NR_WAKEUPS_MIGRATE]++;
		}
		if (!to->curr) {
			sim_vcpu_switch_to(e, to, t);
			if (to != v)
				sim_vcpu_requeue(e, to);
		} else {
			rq_push(e, to, t);
		}
	}
}

/* Run the queued function calls of @v that have arrived (an interrupt). */
static void vcpu_handle_irqs(struct sim_engine *e, struct sim_vcpu *v)
{
	struct sim_vcpu *saved = sim_vcpu_current;
	sim_time_t start = v->now;

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
	if (!v->curr)
		v->busy_ps += v->now - start;	/* an idle CPU's interrupt; a task's is its own */
	v->irq_disabled--;
	v->in_irq--;
	sim_vcpu_current = saved;
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
			sim_vcpu_requeue(e, v);
			continue;
		}
		if (++e->events >= e->progress_at)
			sim_engine_progress(e);
		sim_vcpu_current = v;
		vcpu_set_quantum_end(v, (e->heap_n ? e->heap[0]->next_time : v->now) +
					   e->quantum_ps);
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

/* Run the tasks from the main context until none can run (sim_engine_run()). */
void sim_sched_start(struct sim_engine *e)
{
	sched_next(e, 0);
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
		vcpu_set_quantum_end(v, top->next_time + e->quantum_ps);
	} else {
		vcpu_set_quantum_end(v, SIM_TIME_MAX);
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
			task_offcpu(v, self);
			rq_push(e, v, self);
			sim_vcpu_switch_to(e, v, rq_pop(e, v));
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
	task_offcpu(v, v->curr);

	if (next) {
		sim_vcpu_switch_to(e, v, next);
	} else {
		v->curr = NULL;
		vcpu_run_timers(e, v);
		if (!v->curr) {
			next = newidle_balance(e, v, SIM_LB_GAINED_NEWIDLE);
			if (next)
				sim_vcpu_switch_to(e, v, next);
			else
				v->idle_stamp = v->now + 1;	/* 0: never idle */
		}
	}
	sim_vcpu_requeue(e, v);
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
	sim_vcpu_requeue(e, v);
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
		sim_vcpu_requeue(e, v);
		return;
	}
	if (t->state != SIM_TASK_SLEEPING)
		return;
	t->state = SIM_TASK_RUNNABLE;
	t->ready_at = at + e->wakeup_ps;
	v = select_task_rq(e, t, sim_vcpu_current);
	if (v != t->vcpu) {
		set_task_cpu(e, t, v);
		e->counters[SIM_NR_WAKEUPS_MIGRATE]++;
	}
	if (!v->curr) {
		if (t->ready_at > v->now)
			v->now = t->ready_at;
		sim_vcpu_switch_to(e, v, t);
		sim_vcpu_requeue(e, v);
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
	sim_current()->preemptible = true;
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
		task_oncpu(v, t);
		v->slice_end = v->now + vcpu_tick_phase(e, v);
		sim_vcpu_requeue(e, v);
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
		sim_vcpu_switch_to(e, to, t);
		sim_vcpu_requeue(e, to);
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
		sim_vcpu_requeue(e, target);
	else if (was_empty && target->heap_pos >= 0 &&
		 !(target->curr && target->curr->state == SIM_TASK_RUNNABLE))
		sim_vcpu_requeue(e, target);
	return was_empty;
}
