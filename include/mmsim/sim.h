/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmsim engine API: virtual time, virtual CPUs, tasks as coroutines.
 *
 * Virtual time is an integer count of picoseconds.  The scheduler always
 * resumes the vCPU with the smallest (time, id, seq); see src/engine/sched.c
 * and docs/design.md for the rules (sync points, run-ahead quantum).
 *
 * Model code charges its cost as it goes (sim_cost_ns(), sim_cost_cycles())
 * and calls sim_sync() before it does something whose order against other
 * vCPUs matters.  Locks, IPIs, blocking and waking sync by themselves.
 */
#ifndef MMSIM_SIM_H
#define MMSIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmsim/counters.h"

typedef uint64_t sim_time_t;		/* picoseconds of virtual time */

#define SIM_PS		((sim_time_t)1)
#define SIM_NS		((sim_time_t)1000)
#define SIM_US		((sim_time_t)1000000)
#define SIM_MS		((sim_time_t)1000000000)
#define SIM_SEC		((sim_time_t)1000000000000)
#define SIM_TIME_MAX	UINT64_MAX

#define SIM_MAX_CPUS	1024

struct sim_engine;
struct sim_vcpu;
struct sim_task;
struct spinlock;
struct sim_profile;

/* A set of vCPUs, like the kernel's struct cpumask. */
struct cpumask {
	uint64_t bits[SIM_MAX_CPUS / 64];
};

static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{
	m->bits[cpu >> 6] |= 1ULL << (cpu & 63);
}
static inline void cpumask_clear_cpu(int cpu, struct cpumask *m)
{
	m->bits[cpu >> 6] &= ~(1ULL << (cpu & 63));
}
static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return (m->bits[cpu >> 6] >> (cpu & 63)) & 1;
}
void cpumask_clear(struct cpumask *m);
void cpumask_or(struct cpumask *dst, const struct cpumask *a,
		const struct cpumask *b);
int cpumask_weight(const struct cpumask *m);
bool cpumask_empty(const struct cpumask *m);
/* Next set cpu after @cpu (start with -1), or -1 when none is left. */
int cpumask_next(int cpu, const struct cpumask *m, int nr_cpus);
#define for_each_cpu(cpu, mask, nr)                                   \
	for ((cpu) = cpumask_next(-1, (mask), (nr)); (cpu) >= 0;      \
	     (cpu) = cpumask_next((cpu), (mask), (nr)))

/* xoshiro256** stream; one per vCPU, split from the run's seed. */
struct sim_rng {
	uint64_t s[4];
};
void sim_rng_seed(struct sim_rng *rng, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(struct sim_rng *rng);
/* Uniform in [0, n); n > 0. */
uint64_t sim_rng_below(struct sim_rng *rng, uint64_t n);

typedef void (*sim_task_fn)(void *arg);

enum sim_task_state {
	SIM_TASK_RUNNABLE,	/* on its vCPU's run queue or running */
	SIM_TASK_SPINNING,	/* busy-waiting: its vCPU does nothing else */
	SIM_TASK_SLEEPING,	/* blocked: its vCPU may run something else */
	SIM_TASK_DEAD,
};

/* What a blocked task waits for, for the deadlock report. */
struct sim_wait_info {
	const char *what;		/* "spinlock", "rwsem", "csd", ... */
	const void *obj;		/* the lock or object */
	const char *name;		/* its name */
};

/**
 * struct sim_task - a simulated task (user thread, process or kthread)
 *
 * A task runs on one vCPU at a time (@vcpu).  It starts where it is
 * created, or where fork placement puts it (sim_task_fork()), and moves
 * to another when it wakes up (select_task_rq_fair(), src/mm/fair.c) or
 * when a vCPU pulls it from a run queue (newly-idle balancing, the tick's
 * balancer), unless @pinned (a per-CPU kthread, or a test that places
 * tasks by hand).
 */
struct sim_task {
	struct sim_ctx *ctx;		/* saved registers; see src/engine/ctx */
	void *stack;			/* base of the mmap'ed stack */
	size_t stack_size;
	void *asan_fake_stack;		/* ASan fiber bookkeeping */
	struct sim_vcpu *vcpu;		/* where it runs */
	struct sim_task *rq_next;	/* run queue / wait queue link */
	enum sim_task_state state;
	sim_task_fn fn;
	void *arg;
	char comm[24];			/* like task_struct->comm */
	int pid;			/* task id, in creation order */
	sim_time_t wake_at;		/* SLEEPING on a timer: wake time */
	sim_time_t ready_at;		/* earliest time it may run again */
	struct sim_wait_info wait;	/* what it blocks on */
	unsigned int wait_flags;	/* the lock's: e.g. waits as a writer */
	sim_time_t wait_start;		/* when the current wait began */
	sim_time_t read_since;		/* when it took the rw_semaphore it holds for read */
	void *mm;			/* the model's struct mm_struct */
	void *priv;			/* for the workload */
	struct sim_rng rng;		/* the task's own random stream */
	struct sim_task *all_next;	/* engine's list of all tasks */
	bool pinned;			/* nr_cpus_allowed == 1: never migrates */
	bool switched_in;		/* switched to since it last ran: finish_task_switch() due */
	bool no_pull;			/* queued after a preemption inside kernel code */
	bool preemptible;		/* sim_preemptible(): may be pulled if preempted */
	uint64_t nr_migrations;		/* se.nr_migrations */
	sim_time_t last_ran;		/* se.exec_start: when it last left a CPU (task_hot()) */
	sim_time_t oncpu_since;		/* when it last came on its CPU (valid while curr) */
	sim_time_t sum_exec_ps;		/* se.sum_exec_runtime: CPU time before oncpu_since */
	struct sim_task *waiter;	/* a task in sim_waitpid() on this one */
};

/*
 * The sched domain levels of x86 without NUMA: SMT (the two threads of a
 * core), MC (the LLC: a socket) and PKG (the machine); a level that spans
 * no more CPUs than the one below does not exist (degenerate domain).
 */
enum { SIM_SD_SMT, SIM_SD_MC, SIM_SD_PKG, SIM_NR_SD_LEVELS };

/**
 * struct sim_vcpu - one hardware thread
 *
 * Invariant: heap_pos >= 0 iff the vCPU has something to do at next_time
 * (a runnable task, a due timer or a pending interrupt it can take).
 */
struct sim_vcpu {
	sim_time_t now;			/* this vCPU's virtual time */
	sim_time_t quantum_end;		/* run-ahead bound while running */
	sim_time_t next_time;		/* heap key */
	uint64_t seq;			/* heap tie-break after id */
	int heap_pos;			/* index in the engine's heap, -1 if out */
	int id;				/* cpu number, smp_processor_id() */
	int rank;			/* order among vCPUs due at one time (seed) */
	int socket, core, smt, node;	/* place in the topology */
	int irq_disabled;		/* local_irq_disable() depth */
	int in_irq;			/* running an interrupt handler */
	int nr_spinlocks_held;		/* spinlocks held by the running task */
	uint64_t irq_tlb_count;		/* TLB shootdowns it handled (/proc/interrupts TLB) */
	uint64_t irq_call_count;	/* function-call interrupts it took (/proc/interrupts CAL) */
	struct sim_task *curr;		/* the task on the CPU, NULL if idle */
	struct sim_task *rq_head, *rq_tail; /* other runnable tasks */
	struct sim_task *sleepers;	/* timer-sleeping tasks, by wake_at */
	sim_time_t slice_end;		/* time-slice end for curr */
	struct sim_csd *csd_head, *csd_tail; /* queued IPI requests */
	struct sim_rng rng;		/* this vCPU's random stream */
	struct sim_vcpu *smt_sibling;	/* the other thread of its core, or NULL */
	void *tlb;			/* the model's per-CPU TLB, if any */
	void *dcache;			/* the model's data caches (struct cache_path), if any */
	void *loaded_mm;		/* the model's cpu_tlbstate.loaded_mm */
	uint64_t loaded_tlb_gen;	/* the tlb_gen of loaded_mm this CPU has flushed to */
	void *percpu;			/* the model's per-CPU data */
	sim_time_t stores_done;		/* when the store buffer's RFOs complete */
	sim_time_t busy_ps;		/* time running tasks or irqs, spinning included */
	sim_time_t spin_ps;		/* of busy_ps, time spent spinning */
	uint64_t nr_switches;		/* context switches on this vCPU */
	sim_time_t idle_stamp;		/* rq->idle_stamp: when it last went idle */
	/* the periodic balancer, per sched domain level (SIM_SD_*) */
	sim_time_t next_balance[SIM_NR_SD_LEVELS];
	sim_time_t balance_interval[SIM_NR_SD_LEVELS];	/* sd->balance_interval */
	unsigned int nr_balance_failed[SIM_NR_SD_LEVELS];
	sim_time_t next_balance_min;	/* the earliest of next_balance[], or the next tick while a task is queued */
	int sd_weight[SIM_NR_SD_LEVELS];	/* CPUs its domain of each level spans */
};

/* A kernel thread or user task whose body is @fn(@arg). */
struct sim_task *sim_task_create(struct sim_engine *e, int cpu,
				 const char *comm, sim_task_fn fn, void *arg);

/*
 * fork() from the running task: copy_process() (sched.fork_us of the
 * parent's CPU time), then wake_up_new_task() places the child where
 * select_task_rq(SD_BALANCE_FORK) sends it (sched_balance_find_dst_cpu()).
 */
struct sim_task *sim_task_fork(const char *comm, sim_task_fn fn, void *arg);
/* waitpid(): sleep until @child has ended. */
void sim_waitpid(struct sim_task *child);

/* Keep @t on its vCPU (kthread_bind(), or a test's hand placement). */
static inline void sim_task_pin(struct sim_task *t)
{
	t->pinned = true;
}

/*
 * Called on a task's own stack each time it resumes after a context switch
 * (finish_task_switch()): the mm layer loads the task's mm (switch_mm) if
 * it has one.  NULL: no mm layer.
 */
extern void (*sim_switch_mm_hook)(struct sim_task *next);

/* ---- the running context ------------------------------------------- */

extern struct sim_engine *sim_engine_current;	/* the engine being run */
extern struct sim_vcpu *sim_vcpu_current;	/* the vCPU being run */

static inline struct sim_vcpu *sim_this_vcpu(void)
{
	return sim_vcpu_current;
}
static inline int smp_processor_id(void)
{
	return sim_vcpu_current->id;
}
static inline sim_time_t sim_now(void)
{
	return sim_vcpu_current->now;
}
static inline struct sim_task *sim_current(void)
{
	return sim_vcpu_current->curr;
}

/* Charge @ps of work to this vCPU; may end the run-ahead quantum. */
void sim_quantum_expired(void);
static inline void sim_cost_ps(sim_time_t ps)
{
	struct sim_vcpu *v = sim_vcpu_current;

	v->now += ps;
	if (v->now > v->quantum_end)
		sim_quantum_expired();
}
/*
 * Charge @ps of the CPU's own work (instructions, not memory latency):
 * while the SMT sibling runs a task too, the two share the core and each
 * gets sched.smt_throughput_pct of it.  A sibling that spins (PAUSE) or
 * idles leaves the core to this thread.
 */
extern uint64_t sim_smt_scale_q10;	/* 1024 * 100 / smt_throughput_pct */
/* @ps of CPU work as it takes on this vCPU now, the sibling's share deducted. */
static inline sim_time_t sim_smt_scaled_ps(sim_time_t ps)
{
	const struct sim_vcpu *s = sim_vcpu_current->smt_sibling;

	if (s && s->curr && s->curr->state == SIM_TASK_RUNNABLE)
		ps = (ps * sim_smt_scale_q10) >> 10;
	return ps;
}
static inline void sim_cost_cpu_ps(sim_time_t ps)
{
	sim_cost_ps(sim_smt_scaled_ps(ps));
}
static inline void sim_cost_ns(uint64_t ns)
{
	sim_cost_ps(ns * SIM_NS);
}

/* Wait until this vCPU is the earliest; take due interrupts if enabled. */
void sim_sync(void);

/* Block the current task until sim_wake() (a sleeping wait). */
void sim_sleep_block(const char *what, const void *obj, const char *name);
/* Busy-wait the current task until sim_wake(); the vCPU runs nothing else. */
void sim_spin_block(const char *what, const void *obj, const char *name);
/* Make @t runnable at virtual time @at (>= its vCPU's time). */
void sim_wake(struct sim_task *t, sim_time_t at);
/* Sleep for @ps of virtual time (like schedule_timeout()). */
void sim_sleep_ps(sim_time_t ps);
/* Let another runnable task on this vCPU run (cond_resched()). */
void cond_resched(void);
/*
 * Mark the current task as running code that may be preempted and moved
 * to another vCPU at its sync points (user mode; cond_resched() marks its
 * own sync): it holds nothing per-CPU.  Unmarked, a task preempted at a
 * sync point is never pulled to another vCPU (it may be in a
 * preempt-disabled section the model does not track).
 */
static inline void sim_preemptible(bool on)
{
	sim_vcpu_current->curr->preemptible = on;
}

/* Per-vCPU random numbers. */
static inline uint64_t sim_rand(void)
{
	return sim_rng_next(&sim_vcpu_current->rng);
}

/* ---- interrupts ------------------------------------------------------ */
struct sim_csd;
/*
 * Queue the function call @csd on @target, to be taken at or after
 * csd->arrival (src/hw/ipi.c); returns true if @target's queue was empty,
 * when the sender raises an interrupt.
 */
bool sim_vcpu_queue_csd(struct sim_vcpu *target, struct sim_csd *csd);
void local_irq_disable(void);
void local_irq_enable(void);
static inline bool irqs_disabled(void)
{
	return sim_vcpu_current->irq_disabled > 0;
}
#define local_irq_save(flags)                         \
	do {                                          \
		(flags) = irqs_disabled();            \
		local_irq_disable();                  \
	} while (0)
#define local_irq_restore(flags)                      \
	do {                                          \
		if (!(flags))                         \
			local_irq_enable();           \
		else                                  \
			sim_vcpu_current->irq_disabled--; \
	} while (0)

/* ---- the engine ------------------------------------------------------ */

struct sim_engine_opts {
	const struct sim_profile *profile;
	int nr_cpus;			/* vCPUs to create (<= profile's) */
	uint64_t seed;
	size_t stack_size;		/* 0: default */
	bool check;			/* run the model's invariant checks */
};

struct sim_engine *sim_engine_create(const struct sim_engine_opts *o);
void sim_engine_destroy(struct sim_engine *e);
int sim_engine_nr_cpus(const struct sim_engine *e);
struct sim_vcpu *sim_engine_vcpu(struct sim_engine *e, int cpu);
const struct sim_profile *sim_engine_profile(const struct sim_engine *e);

/*
 * Run until every task has ended.  Returns 0, or -EDEADLK after writing a
 * report of each blocked task, the lock it waits for and that lock's owner
 * into @report (may be NULL).
 */
int sim_engine_run(struct sim_engine *e, char *report, size_t len);

/* The latest vCPU time: the run's makespan. */
sim_time_t sim_engine_end_time(const struct sim_engine *e);
/* Scheduler events (task resumptions and interrupt deliveries). */
uint64_t sim_engine_events(const struct sim_engine *e);
/* Counters of the model, indexed by enum sim_counter. */
uint64_t *sim_engine_counters(struct sim_engine *e);
/* Invariant checks requested (test builds and --check). */
bool sim_engine_checking(const struct sim_engine *e);
/* A hook the model installs to check its invariants at every sync point. */
void sim_engine_set_check_hook(struct sim_engine *e, void (*fn)(void *),
			       void *arg);
/* Model-wide private data (the mm layer's global state). */
void sim_engine_set_priv(struct sim_engine *e, void *priv);
void *sim_engine_priv(const struct sim_engine *e);

/*
 * Progress, for the command line's progress line only; it never changes
 * what the model does.  A scenario states its total work in units it
 * chooses (rounds, iterations) and its tasks report units done.  The
 * hook, if set, is called every SIM_PROGRESS_EVERY scheduler events with
 * the share done, 0..1 (or -1 when the scenario states no total).
 */
#define SIM_PROGRESS_EVERY	(1ULL << 18)
void sim_set_progress_hook(void (*fn)(void *arg, double done), void *arg);
void sim_engine_set_work(struct sim_engine *e, uint64_t total);
void sim_work_done(uint64_t n);

static inline void count_event(enum sim_counter c)
{
	extern uint64_t *sim_counters_current;
	sim_counters_current[c]++;
}
static inline void count_events(enum sim_counter c, uint64_t n)
{
	extern uint64_t *sim_counters_current;
	sim_counters_current[c] += n;
}

#endif /* MMSIM_SIM_H */
