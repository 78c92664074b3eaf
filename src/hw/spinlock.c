// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queued spinlocks in virtual time (the x86 qspinlock, kernel/locking/
 * qspinlock.c), with /proc/lock_stat statistics per lock class.
 *
 * An acquisition is a sync point, so acquisitions happen in virtual-time
 * order.  A free lock costs one locked RMW plus the transfer of the lock
 * word's line from its last writer.  A held lock queues the caller (FIFO,
 * like the MCS queue) and its vCPU spins: it runs nothing else, and with
 * interrupts disabled it takes no IPIs.  A release hands the lock to the
 * head waiter after one transfer of the lock word to the waiter's CPU,
 * the waiter's detection delay in its PAUSE loop (half a PAUSE on
 * average) and its locked RMW:
 *
 *   CPU A (holder)                    CPU B (head waiter)
 *   spin_unlock(): store 0            spinning on the lock word (PAUSE)
 *        |---- line transfer A->B --->|
 *                                     sees 0 (avg pause/2 later), RMW
 *                                     owns the lock at t_unlock + handoff
 *
 * A release is not a sync point: a holder that ran ahead of the others
 * records free_at, and an acquirer that comes earlier in virtual time
 * waits (spins) until free_at plus a hand-off, as if it had been queued.
 *
 * Wait time is counted as perf lock contention counts it: from the failed
 * fast path to the acquisition.  Hold time: acquisition to release.
 * Left out: the pending-bit path (its cost is the same hand-off), lock
 * stealing, paravirtual spinlocks.
 *
 * Traced (lock.contention_trace_ns > 0, the model of a live run that
 * records lock waits): queued_spin_lock_slowpath() ends with
 * trace_contention_end() after the lock is taken, so a perf sample of that
 * tracepoint is taken while holding it; a contended acquisition then holds
 * the lock that much longer.  With lock.contention_begin_ns the waiter
 * first takes its lock:contention_begin sample (a call chain: the live
 * recorder's), then spins; the wait counts from before the sample, so a
 * lock released meanwhile is taken at once and the wait is the sample's.
 * 0 (every builtin profile): untraced.
 *
 * Trace (--trace): a "wait NAME" span from the failed fast path to the
 * acquisition, then a "hold NAME" span to the release, keyed by the lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/machine.h"
#include "mmsim/trace.h"

void spin_lock_init_named(struct spinlock *lock, const char *name)
{
	const char *base = name;

	/*
	 * spin_lock_init(&lruvec->lru_lock) puts the lock in class "lru_lock",
	 * as lockdep names it; a name given explicitly is kept as it is.
	 */
	if (*name == '&') {
		const char *arrow = strrchr(name, '>');
		const char *dot = strrchr(name, '.');

		base = name + 1;
		if (arrow && arrow + 1 > base)
			base = arrow + 1;
		if (dot && dot + 1 > base)
			base = dot + 1;
	}
	memset(lock, 0, sizeof(*lock));
	lock->line.last_writer = -1;
	lock->stat = sim_lock_class(sim_engine_current, base);
}

static sim_time_t lock_atomic_ps(void)
{
	return sim_machine_current->atomic_ps;
}

/* Hand-off cost from @from to @to: line transfer, PAUSE detection, RMW. */
static sim_time_t lock_handoff_ps(int from, int to)
{
	return sim_line_transfer_ps(from, to) + sim_machine_current->pause_half_ps +
	       lock_atomic_ps();
}

static void lock_acquired(struct spinlock *lock, struct sim_vcpu *v)
{
	if (v->nr_spinlocks_held++)
		lock->stat->nested++;
	lock->owner = v;
	lock->owner_task = v->curr;
	lock->acquired_at = v->now;
	lock->line.last_writer = (int16_t)v->id;
	sim_trace_begin_obj("lock", "hold ", lock->stat->name, lock);
}

static void lock_account_wait(struct spinlock *lock, sim_time_t wait)
{
	struct lock_class_stat *s = lock->stat;

	s->contentions++;
	lock_stat_time(wait, &s->wait_total, &s->wait_min, &s->wait_max);
}

/* A contended acquisition's trace_contention_end(): a traced run's sample, lock held. */
static void lock_contention_end(void)
{
	if (sim_machine_current->trace_end_ps)
		sim_cost_ps(sim_machine_current->trace_end_ps);
}

void spin_lock(struct spinlock *lock)
{
	struct sim_vcpu *v;
	struct sim_task *t;
	sim_time_t start, begin_at = 0;	/* begin_at: a traced wait's begin sample */

	sim_sync();
	v = sim_vcpu_current;
	t = v->curr;
	lock->stat->acquisitions++;
	if (sim_machine_current->trace_begin_ps && (lock->owner || lock->free_at > v->now)) {
		/* Contended: the waiter's lock:contention_begin sample, then the spin. */
		begin_at = v->now;
		sim_cost_ps(sim_machine_current->trace_begin_ps);
		sim_sync();
		v = sim_vcpu_current;
		if (!lock->owner && lock->free_at <= v->now) {
			/* Released while it sampled: taken at once, still a counted wait. */
			lock_account_wait(lock, v->now - begin_at);
			sim_line_rmw(&lock->line);
			v = sim_vcpu_current;
			lock_acquired(lock, v);
			lock_contention_end();
			return;
		}
	}
	if (!lock->owner) {
		if (lock->free_at > v->now) {
			/* Released in our future: we spun until then. */
			start = begin_at ? begin_at : v->now;
			sim_trace_begin_obj("lock", "wait ", lock->stat->name, lock);
			v->now = lock->free_at +
				 lock_handoff_ps(lock->line.last_writer, v->id);
			lock_account_wait(lock, v->now - start);
			v->spin_ps += v->now - start;
			sim_trace_end_obj(lock);
			lock_acquired(lock, v);
			lock_contention_end();
			return;
		}
		sim_line_rmw(&lock->line);
		v = sim_vcpu_current;
		lock_acquired(lock, v);
		return;
	}
	if (lock->owner == v && lock->owner_task == t) {
		fprintf(stderr, "mmsim: BUG: %s (pid %d) takes lock %s it holds\n",
			t->comm, t->pid, lock->stat->name);
		abort();
	}
	/* Slow path: queue and spin until the hand-off. */
	start = begin_at ? begin_at : v->now;
	sim_trace_begin_obj("lock", "wait ", lock->stat->name, lock);
	t->rq_next = NULL;
	if (lock->waiters_tail)
		lock->waiters_tail->rq_next = t;
	else
		lock->waiters_head = t;
	lock->waiters_tail = t;
	sim_trace_counter_add("queue ", lock->stat->name, lock->stat, 1);
	sim_spin_block("spinlock", lock, lock->stat->name);
	v = sim_vcpu_current;
	lock_account_wait(lock, v->now - start);
	sim_trace_end_obj(lock);
	/* The releaser made us the owner at the hand-off time. */
	lock->acquired_at = v->now;
	if (v->nr_spinlocks_held++)
		lock->stat->nested++;
	sim_trace_begin_obj("lock", "hold ", lock->stat->name, lock);
	lock_contention_end();
}

bool spin_trylock(struct spinlock *lock)
{
	struct sim_vcpu *v;

	sim_sync();
	v = sim_vcpu_current;
	if (lock->owner || lock->free_at > v->now)
		return false;
	lock->stat->acquisitions++;
	sim_line_rmw(&lock->line);
	lock_acquired(lock, sim_vcpu_current);
	return true;
}

void spin_unlock(struct spinlock *lock)
{
	struct sim_vcpu *v;
	struct lock_class_stat *s = lock->stat;
	sim_time_t hold;
	struct sim_task *w;

	/* The release store is seen only after every earlier store (TSO). */
	sim_store_drain();
	v = sim_vcpu_current;
	hold = v->now - lock->acquired_at;

	if (lock->owner != v) {
		fprintf(stderr, "mmsim: BUG: cpu %d releases lock %s it does not hold\n",
			v->id, s->name);
		abort();
	}
	v->nr_spinlocks_held--;
	sim_trace_end_obj(lock);
	lock_stat_time(hold, &s->hold_total, &s->hold_min, &s->hold_max);
	w = lock->waiters_head;
	if (!w) {
		lock->owner = NULL;
		lock->owner_task = NULL;
		lock->free_at = v->now;
		return;
	}
	lock->waiters_head = w->rq_next;
	sim_trace_counter_add("queue ", s->name, s, -1);
	if (!lock->waiters_head)
		lock->waiters_tail = NULL;
	w->rq_next = NULL;
	{
		sim_time_t grant = v->now + lock_handoff_ps(v->id, w->vcpu->id);

		lock->owner = w->vcpu;
		lock->owner_task = w;
		lock->line.last_writer = (int16_t)w->vcpu->id;
		sim_wake(w, grant);
	}
}

void spin_lock_irq(struct spinlock *lock)
{
	local_irq_disable();
	spin_lock(lock);
}

void spin_unlock_irq(struct spinlock *lock)
{
	spin_unlock(lock);
	local_irq_enable();
}

bool spin_is_held(const struct spinlock *lock)
{
	return lock->owner == sim_vcpu_current &&
	       lock->owner_task == sim_vcpu_current->curr;
}
