// SPDX-License-Identifier: GPL-2.0-only
/*
 * The variant runs of run, reproduce and sensitivity in the harness's
 * process pool (src/harness/pool.c): one job per variant of every
 * configured scenario, each child's result sent back as the bytes of a
 * struct cli_variant_msg and put back in the order a sequential run would
 * have.  Models nothing; the results do not depend on --jobs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_impl.h"
#include "harness/harness.h"

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

/* Job seq (in the order of a sequential run): variant v of prep p. */
struct cli_job {
	struct cli_prep *p;
	int v;				/* index into p->idx and p->res */
};

struct cli_jobs {
	struct cli_job *job;		/* [nr] in job order */
	struct pool *pool;
	double t0;			/* cli_host_seconds() at the start */
	int nr;
};

/* In the child: run job @i, its message into @o. */
static int cli_job_run(void *arg, int i, struct sim_out *o)
{
	static struct cli_variant_msg msg;
	struct cli_jobs *js = arg;
	struct cli_job *j = &js->job[i];

	memset(&msg, 0, sizeof(msg));
	msg.res.name = j->p->s->variants[j->p->idx[j->v]].name;
	msg.rc = cli_run_variant(j->p, &j->p->cfg, j->v, &msg.res, msg.err, sizeof(msg.err));
	msg.cpu_s = cli_host_cpu_seconds();
	sim_out_write(o, (const char *)&msg, sizeof(msg));
	return msg.rc ? 1 : 0;
}

/* In the parent, as job @i ends: its result, the host-time tally, progress. */
static void cli_job_ended(void *arg, int i, int nr_ended)
{
	struct cli_jobs *js = arg;
	struct cli_job *j = &js->job[i];
	const struct pool_job *pj = &js->pool->job[i];
	const struct cli_variant_msg *msg = (const void *)pj->out.buf;

	if (pj->ok && pj->out.len == sizeof(*msg)) {
		j->p->res[j->v] = msg->res;
		j->p->cpu_s += msg->cpu_s;
		j->p->nr_procs++;
		j->p->wall_s = cli_host_seconds() - js->t0;
	}
	cli_progress_step(nr_ended);
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
	struct pool pool;
	struct cli_jobs js = { .pool = &pool, .t0 = cli_host_seconds() };
	int *order;
	int nr = 0, ret = 0, i, v;

	for (i = 0; i < nr_prep; i++)
		nr += prep[i].nr;
	js.job = calloc((size_t)nr + 1, sizeof(*js.job));
	order = calloc((size_t)nr + 1, sizeof(*order));
	if (!js.job || !order) {
		free(js.job);
		free(order);
		snprintf(c->msg, sizeof(c->msg), "out of memory");
		return 1;
	}
	for (i = 0; i < nr_prep; i++)
		for (v = 0; v < prep[i].nr; v++)
			js.job[js.nr++] = (struct cli_job){ .p = &prep[i], .v = v };
	/*
	 * Started: the first variant of every scenario, then the second, and
	 * so on: the first is the baseline, usually the longer run when the
	 * change under test is an improvement, and the longest runs should
	 * start first, so that no process is left running alone at the end.
	 */
	for (v = 0, nr = 0; v < SIM_MAX_VARIANTS; v++) {
		int seq0 = 0;

		for (i = 0; i < nr_prep; i++) {
			if (v < prep[i].nr)
				order[nr++] = seq0 + v;
			seq0 += prep[i].nr;
		}
	}
	pool = (struct pool){
		.nr = js.nr, .order = order, .jobs = jobs, .stop_at_failure = true,
		.run = cli_job_run, .ended = cli_job_ended, .arg = &js,
	};
	cli_progress_begin(c, what, js.nr);
	if (pool_run(&pool)) {
		snprintf(c->msg, sizeof(c->msg), "%s: %s", pool.failed_call,
			 strerror(pool.failed_errno));
		ret = 1;
	} else if (pool.first_failed >= 0) {
		struct cli_job *j = &js.job[pool.first_failed];
		const struct pool_job *pj = &pool.job[pool.first_failed];
		const struct cli_variant_msg *msg = (const void *)pj->out.buf;
		const char *vname = j->p->s->variants[j->p->idx[j->v]].name;

		if (pj->out.len != sizeof(*msg))
			snprintf(c->msg, sizeof(c->msg), "%s, variant %s: the run's process died",
				 j->p->s->name, vname);
		else
			snprintf(c->msg, sizeof(c->msg), "%s, variant %s: %.300s", j->p->s->name,
				 vname, msg->err[0] ? msg->err : "the run failed");
		ret = 1;
	} else {
		for (i = 0; i < nr_prep; i++)
			prep[i].ran = true;
	}
	cli_progress_end();
	pool_release(&pool);
	free(js.job);
	free(order);
	return ret;
}
