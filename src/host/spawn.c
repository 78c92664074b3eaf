// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running another program and waiting for it: perf for live mode's lock
 * waits (src/host/lockstat.c), validate's runs of this binary
 * (src/cli/cmd-validate.c) and gnuplot for the plots (src/cli/plot.c).
 * The CLI calls it too: starting and reaping processes is process control,
 * which belongs to the host layer, and both callers above it need the
 * same care with signals.
 *
 * Mirrors no kernel function.  What each run gets:
 *   - SIGINT, SIGTERM and SIGHUP blocked from before fork() until the
 *     caller's record of the child (struct host_cmd.child) is set, and
 *     again while it is cleared and the child reaped (below);
 *   - in the child, those three back to their default action and the mask
 *     restored before exec, so that none runs the parent's handler;
 *   - PR_SET_PDEATHSIG where the caller asks, with the check that the
 *     parent did not end before it was set;
 *   - exec's failure told to the parent through a close-on-exec pipe (its
 *     errno), so that "cannot run" is not guessed from an exit status.
 *
 *   parent                               its signal handler
 *   block SIGINT, SIGTERM, SIGHUP
 *   pid = fork(); *child = pid
 *   unblock  ----------------------->    kills *child (set: no leak)
 *   waitid(WNOWAIT): it ended
 *   block; *child = 0; waitpid; unblock  (a zombie until reaped: the pid
 *                                         it kills is never another's)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/spawn.h"

static const int host_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define HOST_NR_SIGNALS ((int)(sizeof(host_signals) / sizeof(host_signals[0])))

static void host_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (int i = 0; i < HOST_NR_SIGNALS; i++)
		sigaddset(&set, host_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* In the child, between fork and exec; only async-signal-safe calls. */
static void host_child(const struct host_cmd *c, int stderr_fd, int report,
		       pid_t parent, const sigset_t *mask)
{
	struct sigaction dfl;
	int e;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int i = 0; i < HOST_NR_SIGNALS; i++)
		sigaction(host_signals[i], &dfl, NULL);
	pthread_sigmask(SIG_SETMASK, mask, NULL);
	if (c->pdeathsig && (prctl(PR_SET_PDEATHSIG, c->pdeathsig) || getppid() != parent))
		_exit(127);
	if (c->quiet) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			if (null > 2)
				close(null);
		}
	}
	if (c->output) {
		int fd = open(c->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0)
			goto out_report;
		dup2(fd, 1);
		dup2(fd, 2);
	} else if (stderr_fd >= 0) {
		dup2(stderr_fd, 2);
	}
	if (strchr(c->file, '/'))
		execv(c->file, c->argv);
	else
		execvp(c->file, c->argv);
out_report:
	e = errno;
	if (write(report, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(126);
	_exit(127);
}

/**
 * host_spawn - start a program
 * @c: what to run and how
 * @stderr_fd: the child's standard error (when @c->output is NULL), or -1
 *             to inherit it; the caller's copy stays open
 *
 * Context: process context; the caller's signal handlers see @c->child
 * set before the child can run.  Sleeps until the child has exec'd.
 * Return: the child's pid, to be reaped with host_reap(); or a negative
 * errno: fork() failed, or the program could not be run (not found, not
 * executable, @c->output not writable), the child then already reaped.
 */
pid_t host_spawn(const struct host_cmd *c, int stderr_fd)
{
	sigset_t old;
	int report[2], e = 0;
	pid_t pid, parent = getpid();
	ssize_t n;

	if (pipe2(report, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	host_block(&old);
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		host_child(c, stderr_fd, report[1], parent, &old);
	}
	e = errno;
	if (pid > 0 && c->child)
		*c->child = pid;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(report[1]);
	if (pid < 0) {
		close(report[0]);
		return -e;
	}
	/* EOF: the exec closed the pipe; an int: why it failed */
	do
		n = read(report[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof(e)) {
		host_reap(pid, c->child);
		return -(e ? e : ENOEXEC);
	}
	return pid;
}

/**
 * host_reap - wait for a child host_spawn() started, and reap it
 * @pid: the child
 * @child: the caller's record of it (struct host_cmd.child), or NULL
 *
 * Context: process context; sleeps.  *@child is cleared, with the signals
 * blocked, only once the child has ended and before it is reaped.
 * Return: its wait status (WIFEXITED() and so on), or -1 when it is not
 * this process's child.
 */
int host_reap(pid_t pid, volatile pid_t *child)
{
	siginfo_t info;
	sigset_t old;
	int status = -1;
	pid_t r;

	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	host_block(&old);
	if (child)
		*child = 0;
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r == pid ? status : -1;
}

/**
 * host_run - run a program to its end, keeping the end of its stderr
 * @c: what to run and how (@c->output NULL: stderr is captured)
 * @tail: the last @len - 1 bytes or more of its standard error, at least
 *        the second half of @tail when it said more; NUL-terminated
 * @len: size of @tail, at least 2
 *
 * Context: process context; sleeps until the program ends.
 * Return: its wait status, or a negative errno when it could not be run
 * (@tail then says why, "cannot run FILE: REASON").
 */
int host_run(const struct host_cmd *c, char *tail, size_t len)
{
	int pe[2];
	size_t used = 0;
	pid_t pid;

	tail[0] = '\0';
	if (pipe2(pe, O_CLOEXEC)) {
		int e = errno;

		snprintf(tail, len, "cannot run %s: pipe: %s", c->file, strerror(e));
		return -e;
	}
	pid = host_spawn(c, pe[1]);
	close(pe[1]);
	if (pid < 0) {
		close(pe[0]);
		snprintf(tail, len, "cannot run %s: %s", c->file, strerror((int)-pid));
		return (int)pid;
	}
	for (;;) {
		ssize_t r = read(pe[0], tail + used, len - 1 - used);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		used += (size_t)r;
		if (used == len - 1) {		/* keep the second half */
			memmove(tail, tail + used / 2, used - used / 2);
			used -= used / 2;
		}
	}
	close(pe[0]);
	tail[used] = '\0';
	return host_reap(pid, c->child);
}

/**
 * host_last_line - the last line of a program's output that says something
 * @text: what it printed
 * @line: where the line goes, without its newline, cut to fit
 * @len: size of @line
 */
void host_last_line(const char *text, char *line, size_t len)
{
	const char *end = text + strlen(text), *b;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (b = end; b > text && b[-1] != '\n'; b--)
		;
	snprintf(line, len, "%.*s", (int)(end - b), b);
}
