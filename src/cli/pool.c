// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process pool of run and reproduce: each variant run in a fork()ed
 * child (--jobs at a time), its result sent back through a pipe, and put
 * back in the order a sequential run would have.  Models nothing; the
 * results do not depend on --jobs.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_impl.h"

/*
 * --jobs when not given: one process for a sweep (its documented default),
 * the host's online CPUs for run and reproduce.  Only speed depends on it.
 */
uint64_t cli_default_jobs(const struct cli_args *a, bool sweep)
{
	long n;

	if (a->jobs)
		return a->jobs;
	if (sweep)
		return 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (uint64_t)n : 1;
}

/* What a child sends back for one variant: its return code, error and result. */
struct cli_variant_msg {
	int rc;
	char err[CLI_ERR];
	struct sim_variant_result res;
	double cpu_s;			/* the child's CPU seconds (it starts at zero) */
};

static int cli_read_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}


/* One variant run in a child process. */
struct cli_job {
	struct cli_prep *p;
	int v;				/* index into p->idx and p->res */
	int seq;			/* place in the order of a sequential run */
	pid_t pid;
	int fd;				/* read end of the result pipe */
};

static void cli_job_child(struct cli_job *j, int wfd)
{
	static struct cli_variant_msg msg;
	const struct scenario_ops *s = j->p->s;

	memset(&msg, 0, sizeof(msg));
	msg.res.name = s->variants[j->p->idx[j->v]].name;
	msg.rc = cli_run_variant(j->p, &j->p->cfg, j->v, &msg.res, msg.err, sizeof(msg.err));
	msg.cpu_s = cli_host_cpu_seconds();
	_exit(write(wfd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg) ? 0 : 1);
}

/**
 * cli_child_dies_with() - end this forked child when its parent ends
 * @parent: the parent's pid, taken before fork()
 *
 * A pool child left running after mmsim is killed would run on alone; the
 * kernel sends it SIGKILL when the parent dies (PR_SET_PDEATHSIG), and if
 * the parent died before that was set, it ends now.
 */
void cli_child_dies_with(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
}

/*
 * Collect job @j, whose result is ready (or whose process died); the pool
 * started at @t0 (cli_host_seconds()).
 */
static int cli_job_reap(struct cli *c, struct cli_job *j, double t0)
{
	static struct cli_variant_msg msg;
	const struct scenario_ops *s = j->p->s;
	const char *vname = s->variants[j->p->idx[j->v]].name;
	int ret = 0;

	if (cli_read_all(j->fd, &msg, sizeof(msg))) {
		snprintf(c->msg, sizeof(c->msg), "%s, variant %s: the run's process died",
			 s->name, vname);
		ret = 1;
	} else if (msg.rc) {
		snprintf(c->msg, sizeof(c->msg), "%s, variant %s: %.300s", s->name, vname,
			 msg.err[0] ? msg.err : "the run failed");
		ret = 1;
	} else {
		j->p->res[j->v] = msg.res;
		j->p->cpu_s += msg.cpu_s;
		j->p->nr_procs++;
		j->p->wall_s = cli_host_seconds() - t0;
	}
	close(j->fd);
	waitpid(j->pid, NULL, 0);
	j->pid = 0;
	return ret;
}

/*
 * Run every variant of the @nr_prep scenarios in child processes, at most
 * @jobs at a time, starting the next one as soon as any finishes.  Each
 * child runs one variant in-process and writes its result back through a
 * pipe.  Every variant is an independent simulation, so the results are
 * those of a sequential run, and so is a failure: the one reported is the
 * failed variant a sequential run would have reached first.  Once one has
 * failed, no variant after it (in that order) is started; the ones before
 * it still run, since one of them may fail too.
 * Returns 0, or 1 with c->msg set.
 */
int cli_run_pool(struct cli *c, struct cli_prep *prep, int nr_prep,
			uint64_t jobs, const char *what)
{
	static char fail_msg[sizeof(c->msg)];
	struct cli_job *job;
	struct pollfd *pfd;
	int nr = 0, next = 0, done = 0, running = 0, ret = 0, i, v;
	int first_fail = INT_MAX;	/* seq of the earliest failed variant */
	pid_t parent;
	double t0 = cli_host_seconds();

	for (i = 0; i < nr_prep; i++)
		nr += prep[i].nr;
	job = calloc((size_t)nr, sizeof(*job));
	pfd = calloc((size_t)nr, sizeof(*pfd));
	if (!job || !pfd) {
		free(job);
		free(pfd);
		snprintf(c->msg, sizeof(c->msg), "out of memory");
		return 1;
	}
	/*
	 * The first variant of every scenario, then the second, and so on:
	 * the first is the baseline, usually the longer run when the change
	 * under test is an improvement, and the longest runs should start
	 * first, so that no process is left running alone at the end.
	 */
	for (v = 0, nr = 0; v < SIM_MAX_VARIANTS; v++) {
		int seq0 = 0;

		for (i = 0; i < nr_prep; i++) {
			if (v < prep[i].nr) {
				job[nr].p = &prep[i];
				job[nr].v = v;
				job[nr].seq = seq0 + v;
				nr++;
			}
			seq0 += prep[i].nr;
		}
	}
	cli_progress_begin(c, what, nr);
	fflush(NULL);
	parent = getpid();
	for (;;) {
		int n = 0;

		while (next < nr && (uint64_t)running < jobs) {
			int p[2];

			if (job[next].seq > first_fail) {
				next++;			/* a sequential run stops before it */
				continue;
			}

			if (pipe(p)) {
				snprintf(c->msg, sizeof(c->msg), "pipe: %s", strerror(errno));
				ret = 1;
				goto out_reap;
			}
			job[next].pid = fork();
			if (job[next].pid < 0) {
				snprintf(c->msg, sizeof(c->msg), "fork: %s", strerror(errno));
				job[next].pid = 0;
				close(p[0]);
				close(p[1]);
				ret = 1;
				goto out_reap;
			}
			if (job[next].pid == 0) {
				close(p[0]);
				cli_child_dies_with(parent);
				cli_job_child(&job[next], p[1]);
			}
			close(p[1]);
			job[next].fd = p[0];
			next++;
			running++;
		}
		if (!running)
			break;
		/* Wait for any running job: its result, or EOF if it died. */
		for (i = 0; i < next; i++) {
			if (!job[i].pid)
				continue;
			pfd[n].fd = job[i].fd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			n++;
		}
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(c->msg, sizeof(c->msg), "poll: %s", strerror(errno));
			ret = 1;
			goto out_reap;
		}
		for (i = 0, n = 0; i < next; i++) {
			if (!job[i].pid)
				continue;
			if (pfd[n++].revents) {
				if (cli_job_reap(c, &job[i], t0) && job[i].seq < first_fail) {
					first_fail = job[i].seq;
					memcpy(fail_msg, c->msg, sizeof(fail_msg));
				}
				running--;
				done++;
				cli_progress_step(done);
			}
		}
	}
	if (first_fail != INT_MAX) {
		memcpy(c->msg, fail_msg, sizeof(c->msg));
		ret = 1;
		goto out_reap;
	}
	for (i = 0; i < nr_prep; i++)
		prep[i].ran = true;
out_reap:
	cli_progress_end();
	for (i = 0; i < next; i++) {
		if (job[i].pid > 0) {
			kill(job[i].pid, SIGKILL);
			close(job[i].fd);
			waitpid(job[i].pid, NULL, 0);
		}
	}
	free(job);
	free(pfd);
	return ret;
}
