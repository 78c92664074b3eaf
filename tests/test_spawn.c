// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of src/host/spawn.c, the one fork/exec/capture/reap helper of
 * perf (live mode), validate's runs and gnuplot: what a run's stderr
 * leaves, a program that cannot run, output to a file, the death signal,
 * and the caller's record of the child against a signal that comes
 * between fork() and that record (the window validate once left open).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/spawn.h"
#include "host/live_internal.h"

static void test_run_captures_stderr(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo one >&2; echo two >&2; exit 3", NULL };
	struct host_cmd cmd = { .file = "sh", .argv = argv, .quiet = true };
	char tail[256], line[64];
	int st;

	(void)state;
	st = host_run(&cmd, tail, sizeof(tail));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_string_equal(tail, "one\ntwo\n");	/* stdout went to /dev/null */
	host_last_line(tail, line, sizeof(line));
	assert_string_equal(line, "two");
}

/* More than the buffer: its end is kept, and with it the last line. */
static void test_run_keeps_the_tail(void **state)
{
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 500 ]; do echo "
			 "xxxxxxxxxxxxxxxxxxxxxxxx >&2; i=$((i+1)); done; "
			 "echo 'the reason' >&2; exit 1", NULL };
	struct host_cmd cmd = { .file = "/bin/sh", .argv = argv, .quiet = true };
	char tail[64], line[64];
	int st;

	(void)state;
	st = host_run(&cmd, tail, sizeof(tail));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	assert_true(strlen(tail) >= sizeof(tail) / 2);
	host_last_line(tail, line, sizeof(line));
	assert_string_equal(line, "the reason");
}

/* Not found, on $PATH or by path: a negative errno and why, no status. */
static void test_cannot_run(void **state)
{
	char *argv[] = { "x", NULL };
	struct host_cmd by_path = { .file = "/nonexistent/mmsim-test-prog", .argv = argv };
	struct host_cmd on_path = { .file = "mmsim-test-no-such-prog", .argv = argv };
	volatile pid_t child = 77;
	char tail[256];

	(void)state;
	by_path.child = &child;
	assert_int_equal(host_run(&by_path, tail, sizeof(tail)), -ENOENT);
	assert_string_equal(tail, "cannot run /nonexistent/mmsim-test-prog: "
			    "No such file or directory");
	assert_int_equal(child, 0);			/* reaped, record cleared */
	assert_int_equal(host_spawn(&on_path, -1), -ENOENT);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);	/* nothing left */
	assert_int_equal(errno, ECHILD);
}

/* stdout and stderr to a file, as perf's; an unwritable one: not run. */
static void test_output_file(void **state)
{
	char *argv[] = { "sh", "-c", "echo hi; echo err >&2", NULL };
	char path[64], text[64];
	struct host_cmd cmd = { .file = "sh", .argv = argv, .output = path };
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/mmsim-test-spawn-%d", (int)getpid());
	pid = host_spawn(&cmd, -1);
	assert_true(pid > 0);
	assert_int_equal(host_reap(pid, NULL), 0);
	assert_true(live_read_file(path, text, sizeof(text)) > 0);
	assert_string_equal(text, "hi\nerr\n");
	unlink(path);
	cmd.output = "/nonexistent/dir/out";
	assert_int_equal(host_spawn(&cmd, -1), -ENOENT);
}

/* The death signal: the child dies when the process that started it ends. */
static void test_pdeathsig(void **state)
{
	int p[2], st;
	pid_t mid, sleeper = 0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		char *argv[] = { "sleep", "30", NULL };
		struct host_cmd cmd = { .file = "sleep", .argv = argv,
					.pdeathsig = SIGKILL };
		pid_t pid = host_spawn(&cmd, -1);

		_exit(write(p[1], &pid, sizeof(pid)) == sizeof(pid) ? 0 : 1);
	}
	assert_int_equal(read(p[0], &sleeper, sizeof(sleeper)), sizeof(sleeper));
	assert_true(sleeper > 0);
	assert_int_equal(waitpid(mid, &st, 0), mid);
	/* this process is a subreaper (main): the orphan is ours to reap */
	assert_int_equal(waitpid(sleeper, &st, 0), sleeper);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	close(p[0]);
	close(p[1]);
}

/*
 * SIGTERM raised right after fork() returns in the parent, before the
 * caller's record is set (a pthread_atfork() hook): the handler must run
 * only once the record holds the child, and kill it.
 *
 *   host_spawn()                     SIGTERM handler
 *   block; fork()
 *   atfork hook: raise(SIGTERM)      (pending: blocked)
 *   *child = pid; restore mask ----> kill(*child, SIGKILL): the child
 *   host_reap(): killed by SIGKILL
 */
static volatile pid_t race_child;
static volatile pid_t race_seen = -1;
static volatile int race_armed;

static void race_on_term(int sig)
{
	race_seen = race_child;
	if (race_child > 0)
		kill(race_child, SIGKILL);
}

static void race_after_fork(void)
{
	if (race_armed) {
		race_armed = 0;
		raise(SIGTERM);
	}
}

static void test_signal_before_the_record(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct host_cmd cmd = { .file = "sleep", .argv = argv, .pdeathsig = SIGKILL,
				.child = &race_child };
	struct sigaction sa = { .sa_handler = race_on_term }, old;
	pid_t pid;
	int st;

	(void)state;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old);
	race_armed = 1;
	pid = host_spawn(&cmd, -1);
	assert_true(pid > 0);
	assert_int_equal(race_seen, pid);	/* not 0: the child was not leaked */
	st = host_reap(pid, &race_child);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_int_equal(race_child, 0);
	sigaction(SIGTERM, &old, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_captures_stderr),
		cmocka_unit_test(test_run_keeps_the_tail),
		cmocka_unit_test(test_cannot_run),
		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_pdeathsig),
		cmocka_unit_test(test_signal_before_the_record),
	};

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pthread_atfork(NULL, race_after_fork, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
