// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one process pool under run, reproduce, sensitivity and sweep: each
 * job a fork()ed child that writes bytes to a pipe (a variant's result, a
 * sweep point's CSV rows), at most --jobs children at a time, the next
 * started as soon as one ends; the parent reads every pipe, reaps every
 * child and keeps each job's bytes and how it ended, in job order.  A
 * crash is contained: it is that job's failure, not the command's.
 *
 * Models nothing of the kernel, and the results never depend on --jobs:
 * every job is an independent simulation, so its bytes are those it would
 * have written in a sequential run, and with stop_at_failure so is a
 * failure: no job after (in job order) the first failed one is started,
 * and the failure reported is the one a sequential run reaches first,
 * whatever order the children end in:
 *
 *	parent				child i (job order)
 *	pipe(); fork()  -------->	dies with the parent (PR_SET_PDEATHSIG)
 *	poll() on every pipe		run(arg, i, out); write(out); _exit(code)
 *	read() to end of file	<-----	...
 *	waitpid(): ok = exit 0
 *	ended(arg, i, nr_ended)		(progress, the host-time tally)
 *
 * The host's progress line is the parent's: a child drops the engine's
 * progress hook.  No lock; one thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/harness.h"
#include "mmsim/sim.h"

/**
 * pool_child_dies_with() - end this forked child when its parent ends
 * @parent: the parent's pid, taken before fork()
 *
 * A pool child left running after mmsim is killed would run on alone; the
 * kernel sends it SIGKILL when the parent dies (PR_SET_PDEATHSIG), and if
 * the parent died before that was set, it ends now.
 *
 * Context: a child of fork(), before it does any work.
 */
void pool_child_dies_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
}

static int pool_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Fork job @i.  Returns 0, or -1 with p->failed_call and p->failed_errno set. */
static int pool_start(struct pool *p, int i, pid_t parent)
{
	struct pool_job *j = &p->job[i];
	int fd[2];

	if (pipe(fd)) {
		p->failed_call = "pipe";
		p->failed_errno = errno;
		return -1;
	}
	fflush(NULL);		/* nothing buffered is written twice */
	j->pid = fork();
	if (j->pid < 0) {
		p->failed_call = "fork";
		p->failed_errno = errno;
		j->pid = 0;
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (!j->pid) {
		struct sim_out o;
		int code;

		close(fd[0]);
		pool_child_dies_with(parent);
		sim_set_progress_hook(NULL, NULL);	/* the parent shows progress */
		sim_out_init_buffer(&o);
		code = p->run(p->arg, i, &o);
		if (o.failed || pool_write_all(fd[1], o.buf ? o.buf : "", o.len))
			code = 1;
		_exit(code);
	}
	close(fd[1]);
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	j->fd = fd[0];
	j->started = true;
	return 0;
}

/*
 * Read what job @j's pipe holds; at end of file reap the child and judge
 * it.  Returns true when the job has ended.
 */
static bool pool_collect(struct pool_job *j)
{
	char buf[8192];
	ssize_t n = read(j->fd, buf, sizeof(buf));
	int status = 0;

	if (n > 0) {
		sim_out_write(&j->out, buf, (size_t)n);
		return false;
	}
	if (n < 0 && errno == EINTR)
		return false;
	close(j->fd);
	j->fd = -1;
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->pid = 0;
	j->ended = true;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !j->out.failed)
		j->ok = true;
	else if (WIFSIGNALED(status))
		snprintf(j->why, sizeof(j->why), "killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!j->out.len)
		snprintf(j->why, sizeof(j->why), "exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return true;
}

/**
 * pool_run() - run every job of @p, at most p->jobs at a time
 * @p: the pool: nr, order, jobs, stop_at_failure, run, ended, arg set
 *
 * Every started job has ended when it returns, each one's bytes in
 * p->job[i].out; a failed one (p->job[i].ok false) is a job's result, not
 * the pool's: p->first_failed names the first in job order.
 *
 * Context: the parent; forks, and reaps every child it forked, also when
 * it fails (those still running are killed).  pool_release() frees p->job.
 * Return: 0, or -1 when a child could not be started or waited for
 * (p->failed_call, p->failed_errno).
 */
int pool_run(struct pool *p)
{
	struct pollfd *pfd;
	int *slot;		/* the jobs running, [running] */
	int next = 0, running = 0, nr_ended = 0, ret = 0, i, k;
	size_t n = p->nr > 0 ? (size_t)p->nr : 1;
	pid_t parent = getpid();

	p->first_failed = -1;
	p->failed_call = NULL;
	p->failed_errno = 0;
	p->job = calloc(n, sizeof(*p->job));
	pfd = calloc(n, sizeof(*pfd));
	slot = calloc(n, sizeof(*slot));
	if (!p->job || !pfd || !slot) {
		p->failed_call = "calloc";
		p->failed_errno = ENOMEM;
		ret = -1;
		goto out_free;
	}
	for (i = 0; i < p->nr; i++) {
		p->job[i].fd = -1;
		sim_out_init_buffer(&p->job[i].out);
	}
	for (;;) {
		while (next < p->nr && (uint64_t)running < p->jobs) {
			i = p->order ? p->order[next] : next;
			next++;
			if (p->stop_at_failure && p->first_failed >= 0 && i > p->first_failed)
				continue;		/* a sequential run stops before it */
			if (pool_start(p, i, parent)) {
				ret = -1;
				goto out_kill;
			}
			slot[running++] = i;
		}
		if (running <= 0)
			break;
		/* Wait for any running job: its bytes, or end of file. */
		for (k = 0; k < running; k++) {
			pfd[k].fd = p->job[slot[k]].fd;
			pfd[k].events = POLLIN;
			pfd[k].revents = 0;
		}
		if (poll(pfd, (nfds_t)running, -1) < 0) {
			if (errno == EINTR)
				continue;
			p->failed_call = "poll";
			p->failed_errno = errno;
			ret = -1;
			goto out_kill;
		}
		for (k = 0; k < running; k++) {
			i = slot[k];
			if (!pfd[k].revents || !pool_collect(&p->job[i]))
				continue;
			if (!p->job[i].ok && (p->first_failed < 0 || i < p->first_failed))
				p->first_failed = i;
			nr_ended++;
			if (p->ended)
				p->ended(p->arg, i, nr_ended);
			slot[k] = slot[running - 1];
			pfd[k] = pfd[running - 1];
			running--;
			k--;
		}
	}
out_kill:
	for (k = 0; k < running; k++) {
		struct pool_job *j = &p->job[slot[k]];

		kill(j->pid, SIGKILL);
		close(j->fd);
		j->fd = -1;
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
		j->pid = 0;
	}
out_free:
	free(pfd);
	free(slot);
	return ret;
}

/**
 * pool_release() - free what pool_run() allocated
 * @p: the pool
 */
void pool_release(struct pool *p)
{
	int i;

	for (i = 0; p->job && i < p->nr; i++)
		sim_out_release(&p->job[i].out);
	free(p->job);
	p->job = NULL;
}

/**
 * harness_host_seconds() - the host's monotonic clock, in seconds
 *
 * Only the harness and the command line read the host clock; nothing it
 * returns reaches the model or a result file.
 *
 * Return: seconds since an arbitrary start.
 */
double harness_host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/**
 * harness_host_cpu_seconds() - the CPU time of this process, in seconds
 *
 * A process forked by the pool starts at zero, so its value at the end of
 * the child's run is the CPU time the run cost the host.
 *
 * Return: user and system seconds of this process so far.
 */
double harness_host_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
