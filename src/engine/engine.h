/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's private state, shared by the files of src/engine and the
 * fair scheduler's placement and balancing (src/mm/fair.c), as the
 * kernel's kernel/sched/sched.h is by core.c and fair.c.
 */
#ifndef MMSIM_ENGINE_H
#define MMSIM_ENGINE_H

#include "engine/ctx/asan_fiber.h"
#include "hw/machine.h"
#include "mmsim/hw.h"
#include "mmsim/sim.h"

/*
 * Invariants: heap[0..heap_n) holds exactly the vCPUs with heap_pos >= 0;
 * nr_live == number of tasks not SIM_TASK_DEAD.
 */
struct sim_engine {
	const struct sim_profile *profile;
	struct sim_machine machine;	/* the hardware and its costs */
	int nr_cpus;
	struct sim_vcpu *vcpus;		/* [nr_cpus] */
	struct sim_vcpu **heap;		/* vCPUs with an event, min-heap */
	struct sg_stats *sg;		/* [nr_cpus]: a domain's groups, scratch */
	int heap_n;
	uint64_t seq;			/* heap tie-break counter */
	struct sim_task *running;	/* task whose coroutine runs, NULL: main */
	struct sim_ctx *main_ctx;
	struct sim_task *tasks;		/* all tasks, newest first */
	int nr_tasks, nr_live;
	int nr_queued;			/* tasks on all run queues */
	uint64_t seed;
	bool check;
	size_t stack_size;
	uint64_t events;		/* resumptions and interrupts */
	uint64_t counters[NR_SIM_COUNTERS];
	struct lock_class_stat *classes, **class_tail;
	int nr_mid_step;		/* vCPUs suspended by a quantum yield */
	void (*check_fn)(void *);
	void *check_arg;
	void *priv;
	/* the scheduler's costs from the profile, in ps (the machine's: machine) */
	sim_time_t quantum_ps, ctxsw_ps, wakeup_ps, slice_ps;
	sim_time_t start_jitter_ps;	/* sched.start_jitter_us */
	sim_time_t fork_ps;		/* sched.fork_us */
	uint64_t smt_scale_q10;		/* 1024 * 100 / sched.smt_throughput_pct */
	/* progress (sim_engine_set_work()); never decides anything */
	uint64_t progress_at;		/* next events count to report at */
	uint64_t work_total, work_done;	/* units of the scenario's work */
};


/* HZ 1000: the scheduler tick (see sched_balance_tick() in src/mm/fair.c). */
#define SCHED_TICK		SIM_MS

/* ---- src/engine/sched.c: the scheduler core ---------------------------- */

/* Put @v in the heap at the time of its next event, or take it out. */
void sim_vcpu_requeue(struct sim_engine *e, struct sim_vcpu *v);
/* Make @t the running task of idle @v, paying for the switch. */
void sim_vcpu_switch_to(struct sim_engine *e, struct sim_vcpu *v, struct sim_task *t);
/* Run the tasks from the main context until none can run. */
void sim_sched_start(struct sim_engine *e);
/* src/engine/engine.c: report progress (e->events reached e->progress_at). */
void sim_engine_progress(struct sim_engine *e);

/* Append @t to @v's run queue (enqueue_task()). */
static inline void rq_push(struct sim_engine *e, struct sim_vcpu *v, struct sim_task *t)
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

/* Unlink @t from @v's run queue (dequeue_task()). */
static inline void rq_remove(struct sim_engine *e, struct sim_vcpu *v, struct sim_task *t)
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

/* Move a not-running task @t to @to. */
static inline void set_task_cpu(struct sim_engine *e, struct sim_task *t, struct sim_vcpu *to)
{
	t->vcpu = to;
	t->nr_migrations++;
	e->counters[SIM_NR_MIGRATIONS]++;
}

/* ---- src/mm/fair.c: where tasks run (kernel/sched/fair.c) --------------- */

struct sim_vcpu *select_task_rq_fair(struct sim_engine *e, struct sim_task *t,
				     struct sim_vcpu *waker);
struct sim_task *newidle_balance(struct sim_engine *e, struct sim_vcpu *v,
				 enum sim_counter gained);
struct sim_vcpu *sched_balance_find_dst_cpu(struct sim_engine *e, struct sim_vcpu *v);
void sched_balance_tick(struct sim_engine *e, struct sim_vcpu *v);
int sched_init_domains(struct sim_engine *e);

#endif
