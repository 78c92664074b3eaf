/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The harness under every command that runs scenarios (docs/design.md,
 * "The harness"): the process pool (pool.c).  The command line (src/cli/)
 * depends on it; it depends on the model's public API (include/mmsim/)
 * and never on src/cli/.  Nothing here is part of the public API.
 */
#ifndef MMSIM_HARNESS_H
#define MMSIM_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmsim/output.h"

/* ---- pool.c: one process pool ---------------------------------------------- */

/*
 * One job of a pool: a fork()ed child that writes bytes to a pipe.
 * Invariant: fd >= 0 iff the child runs and has not been reaped; ended
 * jobs have ok == (the child exited 0 and every byte was kept).
 */
struct pool_job {
	struct sim_out out;		/* the bytes the child wrote, in memory */
	pid_t pid;			/* 0: not started or reaped */
	int fd;				/* read end of its pipe, -1: none */
	bool started, ended, ok;
	char why[96];			/* how it failed when not by its own bytes */
};

/*
 * A pool: @nr jobs, at most @jobs at a time.  The results are in job
 * order whatever the order the children end in; @order only says which
 * to start first (the longest runs, so that none is left alone at the end).
 */
struct pool {
	int nr;				/* jobs */
	const int *order;		/* [nr] the order to start them, NULL: 0..nr-1 */
	uint64_t jobs;			/* children at a time, >= 1 */
	bool stop_at_failure;		/* start no job after (in job order) one that failed */
	/* In the child: run job @i, its bytes into @o.  Return: its exit code. */
	int (*run)(void *arg, int i, struct sim_out *o);
	/* In the parent as job @i ends (the @nr_ended-th to), NULL: none. */
	void (*ended)(void *arg, int i, int nr_ended);
	void *arg;
	/* What pool_run() fills: */
	struct pool_job *job;		/* [nr] */
	int first_failed;		/* the failed job first in job order, -1: none */
	const char *failed_call;	/* pool_run() returned -1: "pipe", "fork" or "poll" */
	int failed_errno;		/* and its errno */
};

int pool_run(struct pool *p);
void pool_release(struct pool *p);
void pool_child_dies_with(pid_t parent);

#endif /* MMSIM_HARNESS_H */
