// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sleeping reader/writer semaphores (kernel/locking/rwsem.c), used for
 * mmap_lock.  FIFO hand-off: a release wakes the head waiter, or every
 * reader at the head of the queue.  A waiter sleeps, so its vCPU may run
 * another task.  Statistics go to the lock class like a spinlock's, per
 * read/write state as /proc/lock_stat keeps them: the write side in the
 * class's own fields, the read side in stat->read.  Wait: from queueing to
 * the wake-up that grants the lock.  Hold: from the acquisition to the
 * release (a reader's start is kept in its task, sim_task->read_since: a
 * task holds at most one rw_semaphore for read at a time here).
 * downgrade_write() ends the write hold and starts a read hold.
 * Left out: optimistic spinning, writer lock stealing, handoff bits.
 */
#include "mmsim/hw.h"

#define RWSEM_WAIT_WRITER	1U

void init_rwsem_named(struct rw_semaphore *sem, const char *name)
{
	sem->readers = 0;
	sem->writer = NULL;
	sem->waiters_head = sem->waiters_tail = NULL;
	sem->line.last_writer = -1;
	sem->line_busy = 0;
	sem->write_since = 0;
	sem->stat = sim_lock_class(sim_engine_current, name);
	sem->stat->rwsem = true;
}

static void rwsem_queue(struct rw_semaphore *sem, struct sim_task *t, unsigned int flags)
{
	t->wait_flags = flags;
	t->wait_start = sim_now();
	t->rq_next = NULL;
	if (sem->waiters_tail)
		sem->waiters_tail->rq_next = t;
	else
		sem->waiters_head = t;
	sem->waiters_tail = t;
}

/* A wait that began at @start ended now, with the lock granted. */
static void rwsem_account(struct rw_semaphore *sem, sim_time_t start, bool write)
{
	struct lock_class_stat *s = sem->stat;
	sim_time_t wait = sim_now() - start;

	if (write) {
		s->contentions++;
		lock_stat_time(wait, &s->wait_total, &s->wait_min, &s->wait_max);
	} else {
		s->read.contentions++;
		lock_stat_time(wait, &s->read.wait_total, &s->read.wait_min, &s->read.wait_max);
	}
}

/* Every acquisition and release writes the count word: one RMW queue. */
static void rwsem_fast(struct rw_semaphore *sem)
{
	sim_line_rmw_queued(&sem->line, &sem->line_busy);
}

bool down_read_trylock(struct rw_semaphore *sem)
{
	sim_sync();
	if (sem->writer || sem->waiters_head)
		return false;
	sem->stat->read.acquisitions++;
	sem->readers++;
	rwsem_fast(sem);
	sim_current()->read_since = sim_now();
	return true;
}

void down_read(struct rw_semaphore *sem)
{
	struct sim_task *t;
	sim_time_t start;

	if (down_read_trylock(sem))
		return;
	t = sim_current();
	sem->stat->read.acquisitions++;
	start = sim_now();
	rwsem_queue(sem, t, 0);
	sim_sleep_block("rwsem", sem, sem->stat->name);
	rwsem_account(sem, start, false);
	t->read_since = sim_now();
}

void down_write(struct rw_semaphore *sem)
{
	struct sim_task *t;
	sim_time_t start;

	sim_sync();
	t = sim_current();
	sem->stat->acquisitions++;
	if (!sem->writer && !sem->readers && !sem->waiters_head) {
		sem->writer = t;
		rwsem_fast(sem);
		sem->write_since = sim_now();
		return;
	}
	start = sim_now();
	rwsem_queue(sem, t, RWSEM_WAIT_WRITER);
	sim_sleep_block("rwsem", sem, sem->stat->name);
	rwsem_account(sem, start, true);
	sem->write_since = sim_now();
}

/* The current task's read hold of @sem ends now. */
static void rwsem_read_held(struct rw_semaphore *sem)
{
	struct lock_read_stat *r = &sem->stat->read;

	lock_stat_time(sim_now() - sim_current()->read_since, &r->hold_total, &r->hold_min,
		       &r->hold_max);
}

/* The write hold of @sem ends now. */
static void rwsem_write_held(struct rw_semaphore *sem)
{
	struct lock_class_stat *s = sem->stat;

	lock_stat_time(sim_now() - sem->write_since, &s->hold_total, &s->hold_min, &s->hold_max);
}

/* Grant the lock to every reader at the head of the queue, from @w on. */
static void rwsem_wake_readers(struct rw_semaphore *sem, struct sim_task *w, sim_time_t at)
{
	while (w && !(w->wait_flags & RWSEM_WAIT_WRITER)) {
		struct sim_task *next = w->rq_next;

		sem->readers++;
		sim_wake(w, at);
		w = next;
	}
	sem->waiters_head = w;
	if (!w)
		sem->waiters_tail = NULL;
}

/* Grant the lock to the head waiter, or to every reader at the head. */
static void rwsem_wake(struct rw_semaphore *sem)
{
	sim_time_t at = sim_now();	/* sim_wake() adds the wake-up latency */
	struct sim_task *w = sem->waiters_head;

	if (!w)
		return;
	if (w->wait_flags & RWSEM_WAIT_WRITER) {
		if (sem->readers)
			return;
		sem->waiters_head = w->rq_next;
		if (!sem->waiters_head)
			sem->waiters_tail = NULL;
		sem->writer = w;
		sim_wake(w, at);
		return;
	}
	rwsem_wake_readers(sem, w, at);
}

void up_read(struct rw_semaphore *sem)
{
	rwsem_read_held(sem);
	sim_sync();
	rwsem_fast(sem);
	if (--sem->readers == 0)
		rwsem_wake(sem);
}

void up_write(struct rw_semaphore *sem)
{
	rwsem_write_held(sem);
	sim_sync();
	rwsem_fast(sem);
	sem->writer = NULL;
	rwsem_wake(sem);
}

void downgrade_write(struct rw_semaphore *sem)
{
	struct sim_task *w = sem->waiters_head;
	sim_time_t at = sim_now();

	rwsem_write_held(sem);
	sim_line_rmw(&sem->line);
	sem->writer = NULL;
	sem->readers = 1;
	/* Held for read from here: a read hold, as lockdep starts one, not an acquisition. */
	sim_current()->read_since = sim_now();
	rwsem_wake_readers(sem, w, at);
}
