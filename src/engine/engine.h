/* SPDX-License-Identifier: GPL-2.0-only */
/* The engine's private state, shared by the files of src/engine. */
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


#endif
