/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model: cache lines with a last writer, queued spinlocks with
 * lock_stat statistics, sleeping reader/writer locks, and IPIs with the
 * semantics of smp_call_function_many_cond().
 */
#ifndef MMSIM_HW_H
#define MMSIM_HW_H

#include "mmsim/sim.h"

/* ---- the clock -------------------------------------------------------- */

/* Charge @cycles at the machine's clock (clock.mhz). */
void sim_cost_cycles(uint64_t cycles);
/* @cycles at the machine's clock, in ps (rounded down). */
sim_time_t sim_cycles_to_ps(uint64_t cycles);

/* ---- cache lines ------------------------------------------------------ */

/*
 * A shared cache line of the model.  A touch costs a hit if this CPU wrote
 * it last, else one transfer whose cost grows with the distance to the
 * last writer (SMT sibling, same socket, other socket).
 */
struct sim_line {
	int16_t last_writer;		/* cpu that wrote it last, -1: nobody */
};

#define SIM_LINE_INIT { .last_writer = -1 }

/* Cost of moving a modified line from @from to @to (hit if equal). */
sim_time_t sim_line_transfer_ps(int from, int to);
/*
 * A store to the line.  Like an x86 store it retires at once (a hit's
 * cost); the line's transfer (the RFO) completes in the background, and
 * RFOs of independent stores overlap.  TSO: a locked RMW or a lock release
 * waits until every earlier store has completed (sim_store_drain()).
 */
void sim_line_write_slow(struct sim_line *l);
extern sim_time_t sim_line_hit_ps;	/* the current machine's hit cost (line_ps[0]) */
static inline void sim_line_write(struct sim_line *l)
{
	if (l->last_writer == sim_vcpu_current->id)
		sim_cost_ps(sim_line_hit_ps);
	else
		sim_line_write_slow(l);
}
/* A load from the line: this CPU waits for the transfer. */
void sim_line_read_slow(struct sim_line *l);
static inline void sim_line_read(struct sim_line *l)
{
	if (l->last_writer == sim_vcpu_current->id)
		sim_cost_ps(sim_line_hit_ps);
	else
		sim_line_read_slow(l);
}
/* A locked RMW (atomic): drain the store buffer, then own the line. */
void sim_line_rmw(struct sim_line *l);
/*
 * A locked RMW whose own time a measured cost already holds (a profile key
 * timed on the running kernel): drain the store buffer and take the line,
 * the atomic not charged again.
 */
void sim_line_rmw_measured(struct sim_line *l);
/*
 * A locked RMW on a line that many CPUs write: it waits until the line
 * has served every earlier RMW (*@busy_until), then owns it for the
 * transfer from the last writer and the atomic.  Context: a sync point
 * came just before, so that RMWs reach the line in virtual-time order.
 */
void sim_line_rmw_queued(struct sim_line *l, sim_time_t *busy_until);
/* Wait until this CPU's earlier stores have completed. */
void sim_store_drain(void);
/* Distance class between two cpus: 0 same, 1 SMT, 2 socket, 3 remote. */
int sim_cpu_distance(int a, int b);

/* ---- spinlocks -------------------------------------------------------- */

/*
 * /proc/lock_stat-style statistics, one per lock class (name).  A spinlock
 * uses the top fields; a rw_semaphore counts its write side there and its
 * read side in @read, as lock_stat keeps them per read/write state.
 */
struct lock_class_stat {
	char name[48];
	uint64_t acquisitions;		/* all acquisitions */
	uint64_t contentions;		/* acquisitions that had to wait */
	uint64_t nested;		/* taken while holding another spinlock */
	sim_time_t wait_total;		/* summed slow-path wait */
	sim_time_t wait_max;
	sim_time_t hold_total;		/* summed hold time */
	sim_time_t hold_max;
	sim_time_t wait_min, hold_min;	/* shortest nonzero, 0: none yet */
	bool rwsem;			/* a rw_semaphore: the fields above are its W side */
	struct lock_read_stat {
		uint64_t acquisitions, contentions;
		sim_time_t wait_total, wait_min, wait_max;
		sim_time_t hold_total, hold_min, hold_max;
	} read;				/* rw_semaphore: its R side */
	struct lock_class_stat *next;
};

/* Add one wait or hold time @t to its total, minimum (nonzero) and maximum. */
static inline void lock_stat_time(sim_time_t t, sim_time_t *total, sim_time_t *min,
				  sim_time_t *max)
{
	*total += t;
	if (t && (!*min || t < *min))
		*min = t;
	if (t > *max)
		*max = t;
}

/**
 * struct spinlock - a queued spinlock (qspinlock) in virtual time
 *
 * Waiters queue FIFO and spin on their own vCPU; a release hands the lock
 * to the head waiter after one transfer of the lock word's line.
 * Invariant: owner == NULL implies waiters_head == NULL.
 */
struct spinlock {
	struct sim_vcpu *owner;		/* holder's vCPU, NULL when free */
	struct sim_task *owner_task;	/* holder task, for reports */
	struct sim_task *waiters_head;	/* FIFO of spinning tasks */
	struct sim_task *waiters_tail;
	sim_time_t free_at;		/* virtual time of the last release */
	sim_time_t acquired_at;		/* when the holder got it */
	struct sim_line line;		/* the lock word */
	struct lock_class_stat *stat;	/* its class */
	struct spinlock *all_next;	/* engine's list, for deadlock reports */
};
typedef struct spinlock spinlock_t;

void spin_lock_init_named(struct spinlock *lock, const char *name);
#define spin_lock_init(lock) spin_lock_init_named((lock), #lock)

void spin_lock(struct spinlock *lock);
void spin_unlock(struct spinlock *lock);
bool spin_trylock(struct spinlock *lock);
void spin_lock_irq(struct spinlock *lock);
void spin_unlock_irq(struct spinlock *lock);
#define spin_lock_irqsave(lock, flags)         \
	do {                                   \
		local_irq_save(flags);         \
		spin_lock(lock);               \
	} while (0)
#define spin_unlock_irqrestore(lock, flags)    \
	do {                                   \
		spin_unlock(lock);             \
		local_irq_restore(flags);      \
	} while (0)
static inline bool spin_is_locked(const struct spinlock *lock)
{
	return lock->owner != NULL;
}
/* Held by the current task on this vCPU. */
bool spin_is_held(const struct spinlock *lock);

/* The lock classes of the current engine, in creation order. */
struct lock_class_stat *sim_lock_classes(struct sim_engine *e);
struct lock_class_stat *sim_lock_class(struct sim_engine *e, const char *name);

/* ---- sleeping reader/writer lock (mmap_lock) --------------------------- */

struct rw_semaphore {
	int readers;			/* active readers */
	struct sim_task *writer;	/* active writer */
	struct sim_task *waiters_head;	/* FIFO of sleeping tasks */
	struct sim_task *waiters_tail;
	struct sim_line line;		/* the count word */
	sim_time_t line_busy;		/* the count word's RMW queue (sim_line_rmw_queued()) */
	sim_time_t write_since;		/* when the writer took it */
	struct lock_class_stat *stat;
};

void init_rwsem_named(struct rw_semaphore *sem, const char *name);
void down_read(struct rw_semaphore *sem);
bool down_read_trylock(struct rw_semaphore *sem);
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);
/* A writer becomes a reader; readers queued at the head join it. */
void downgrade_write(struct rw_semaphore *sem);

/* ---- IPIs --------------------------------------------------------------- */

typedef void (*smp_call_func_t)(void *info);

/* A queued function call on one target (call_single_data). */
struct sim_csd {
	smp_call_func_t func;
	void *info;
	sim_time_t arrival;		/* when the interrupt can be taken */
	struct sim_csd *next;
	struct sim_call *call;		/* the request it belongs to */
	bool is_tlb;			/* counted as a TLB shootdown */
	uint64_t trace_flow;		/* --trace: the flow from the send to the handler */
};

/*
 * smp_call_function_many_cond(): queue @func on every CPU in @mask for
 * which @cond (if not NULL) is true, except this one; interrupt a target
 * only when its queue was empty; run @func here too if this CPU is in
 * @mask and @run_local; with @wait, spin until every target has run it.
 * @is_tlb marks the call as a TLB flush for the "TLB shootdowns" count.
 * Returns the number of remote targets.
 */
int smp_call_function_many_cond(const struct cpumask *mask,
				smp_call_func_t func, void *info, bool wait,
				bool (*cond)(int cpu, void *info),
				bool run_local, bool is_tlb);

/*
 * Run one queued call on this vCPU: the engine's interrupt entry calls it
 * for each request it drains (sim_vcpu_queue_csd()).
 */
void sim_ipi_run_csd(struct sim_csd *csd);

/* Cost charged by a handler while it runs (it may also call sim_cost_*). */

#endif /* MMSIM_HW_H */
