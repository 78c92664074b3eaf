/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running another program: fork, exec, capture, reap (src/host/spawn.c),
 * for perf (live mode), validate's runs of this binary and gnuplot.
 */
#ifndef MMSIM_HOST_SPAWN_H
#define MMSIM_HOST_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * What to run and how.  A caller whose signal handler kills the child
 * names it in @child: *child is the pid from before any of SIGINT,
 * SIGTERM and SIGHUP can be handled until it is reaped, and 0 otherwise
 * (host_spawn() and host_reap() block the three around each change), so
 * that the handler neither misses the child nor kills a reaped pid.
 */
struct host_cmd {
	const char *file;		/* a path, or a name looked up in $PATH */
	char *const *argv;		/* argv[0] is what the program is told */
	int pdeathsig;			/* sent to the child when its parent ends; 0: none */
	const char *output;		/* stdout and stderr to this file (made 0600,
					 * emptied), or NULL: inherited (host_run():
					 * stderr captured) */
	bool quiet;			/* stdin and stdout from/to /dev/null */
	volatile pid_t *child;		/* kept up to date, or NULL */
};

pid_t host_spawn(const struct host_cmd *c, int stderr_fd);
int host_reap(pid_t pid, volatile pid_t *child);
int host_run(const struct host_cmd *c, char *tail, size_t len);
void host_last_line(const char *text, char *line, size_t len);

#endif /* MMSIM_HOST_SPAWN_H */
