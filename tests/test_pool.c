// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of src/harness/pool.c, the one process pool: bytes come back in
 * job order whatever order the children end in (the later jobs end
 * first here), a crash is that job's failure with its signal, and with
 * stop_at_failure no job after the first failed one (in job order) is
 * started while the ones before it still run.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness/harness.h"

#define NR_JOBS	6

/* What job i does: its behaviour per index, set by each test. */
static const char *job_does[NR_JOBS];

static int job_run(void *arg, int i, struct sim_out *o)
{
	(void)arg;
	/* later jobs end first: job i sleeps (NR_JOBS - i) x 30 ms */
	usleep((useconds_t)(NR_JOBS - i) * 30000);
	if (job_does[i] && !strcmp(job_does[i], "crash"))
		raise(SIGKILL);
	if (job_does[i] && !strcmp(job_does[i], "fail")) {
		sim_out_printf(o, "job %d failed", i);
		return 1;
	}
	sim_out_printf(o, "job %d\n", i);
	return 0;
}

static int ended_order[NR_JOBS], nr_ended_seen;

static void job_ended(void *arg, int i, int nr_ended)
{
	(void)arg;
	ended_order[nr_ended_seen++] = i;
	assert_int_equal(nr_ended, nr_ended_seen);
}

static void pool_setup(struct pool *p, uint64_t jobs, bool stop)
{
	*p = (struct pool){ .nr = NR_JOBS, .jobs = jobs, .stop_at_failure = stop,
			    .run = job_run, .ended = job_ended };
	nr_ended_seen = 0;
}

static void test_job_order(void **state)
{
	struct pool p;
	int i;

	(void)state;
	memset(job_does, 0, sizeof(job_does));
	pool_setup(&p, NR_JOBS, false);
	assert_int_equal(pool_run(&p), 0);
	assert_int_equal(p.first_failed, -1);
	assert_int_equal(nr_ended_seen, NR_JOBS);
	/* all ran at once and the last job ended first ... */
	assert_int_equal(ended_order[0], NR_JOBS - 1);
	/* ... but each job's bytes are its own, in job order */
	for (i = 0; i < NR_JOBS; i++) {
		char want[32];

		snprintf(want, sizeof(want), "job %d\n", i);
		assert_true(p.job[i].ok);
		assert_string_equal(sim_out_text(&p.job[i].out), want);
	}
	pool_release(&p);
}

static void test_crash_is_the_jobs_failure(void **state)
{
	struct pool p;

	(void)state;
	memset(job_does, 0, sizeof(job_does));
	job_does[2] = "crash";
	job_does[4] = "fail";
	pool_setup(&p, 2, false);
	assert_int_equal(pool_run(&p), 0);
	assert_int_equal(nr_ended_seen, NR_JOBS);	/* every job ran */
	assert_int_equal(p.first_failed, 2);
	assert_false(p.job[2].ok);
	assert_non_null(strstr(p.job[2].why, "killed by signal 9"));
	assert_false(p.job[4].ok);
	assert_string_equal(p.job[4].why, "");		/* it said why itself */
	assert_string_equal(sim_out_text(&p.job[4].out), "job 4 failed");
	assert_true(p.job[5].ok);
	pool_release(&p);
}

static void test_stop_at_failure(void **state)
{
	struct pool p;
	int i;

	(void)state;
	memset(job_does, 0, sizeof(job_does));
	job_does[1] = "fail";
	/* one at a time: job 1 fails before 2..5 could start */
	pool_setup(&p, 1, true);
	assert_int_equal(pool_run(&p), 0);
	assert_int_equal(p.first_failed, 1);
	assert_int_equal(nr_ended_seen, 2);
	for (i = 2; i < NR_JOBS; i++)
		assert_false(p.job[i].started);
	pool_release(&p);

	/* started in reverse: 5..2 succeed, 1 fails, 0 still runs (it may fail too) */
	{
		static const int reverse[NR_JOBS] = { 5, 4, 3, 2, 1, 0 };

		job_does[0] = "fail";
		pool_setup(&p, 1, true);
		p.order = reverse;
		assert_int_equal(pool_run(&p), 0);
		assert_int_equal(nr_ended_seen, NR_JOBS);
		assert_int_equal(p.first_failed, 0);
		pool_release(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_order),
		cmocka_unit_test(test_crash_is_the_jobs_failure),
		cmocka_unit_test(test_stop_at_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
