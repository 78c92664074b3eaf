// SPDX-License-Identifier: GPL-2.0-only
/*
 * The progress line on standard error: share of the work done and an
 * estimate of the host time left, for runs that take more than a couple
 * of seconds, only when standard error is a terminal.
 *
 * Models nothing.  This is the one place besides cli_host_seconds()'s
 * callers where the host clock is read, and only here: the engine calls
 * progress_hook() every SIM_PROGRESS_EVERY scheduler events (a counter
 * compare in the scheduler, no clock), with the share of the scenario's
 * work units done (sim_engine_set_work(), sim_work_done()).  A command is
 * a number of steps (variants of a run, runs of a sweep); the share of
 * the whole is (steps done + share of this step) / steps.  Nothing here
 * reaches standard output or a result file.
 */
#include <stdio.h>
#include <unistd.h>

#include "cli/cli_impl.h"

#define PROGRESS_AFTER_S	2.0	/* say nothing for short runs */
#define PROGRESS_EVERY_S	0.5	/* at most two updates a second */

static struct {
	bool on;			/* standard error is a terminal */
	bool shown;			/* a line is on the screen */
	FILE *err;
	char what[96];			/* copied: callers pass a local buffer */
	int nr_steps, step;
	double t0, last;
} pg;

static void progress_print(double share)
{
	double now = cli_host_seconds(), left;
	char eta[32];

	if (!pg.on || now - pg.t0 < PROGRESS_AFTER_S ||
	    (pg.shown && now - pg.last < PROGRESS_EVERY_S))
		return;
	pg.last = now;
	pg.shown = true;
	if (share <= 0) {
		fprintf(pg.err, "\rmmsim: %s: running for %.0f s\033[K", pg.what,
			now - pg.t0);
		fflush(pg.err);
		return;
	}
	left = (now - pg.t0) * (1 - share) / share;
	if (left >= 3600)
		snprintf(eta, sizeof(eta), "%.0fh%02.0fm", left / 3600,
			 (double)((long)left % 3600 / 60));
	else if (left >= 60)
		snprintf(eta, sizeof(eta), "%.0fm%02.0fs", (double)((long)left / 60),
			 (double)((long)left % 60));
	else
		snprintf(eta, sizeof(eta), "%.0fs", left);
	fprintf(pg.err, "\rmmsim: %s: %4.1f%% done, about %s left\033[K", pg.what,
		share * 100, eta);
	fflush(pg.err);
}

static void progress_hook(void *arg, double done)
{
	(void)arg;
	if (done < 0)
		progress_print(-1);
	else
		progress_print((pg.step + done) / pg.nr_steps);
}

/**
 * cli_progress_begin() - start a progress line, if standard error is a tty
 * @c: the invocation (its error stream)
 * @what: what runs, e.g. "run deferred-split" or "sweep"
 * @nr_steps: steps of the command (variants, or runs of a sweep)
 *
 * Installs the engine's progress hook for the engines created until
 * cli_progress_end().
 */
void cli_progress_begin(struct cli *c, const char *what, int nr_steps)
{
	int fd = c->err ? fileno(c->err) : -1;

	pg.on = fd >= 0 && isatty(fd) && nr_steps > 0;
	pg.shown = false;
	pg.err = c->err;
	snprintf(pg.what, sizeof(pg.what), "%s", what);
	pg.nr_steps = nr_steps;
	pg.step = 0;
	pg.t0 = pg.last = cli_host_seconds();
	if (pg.on)
		sim_set_progress_hook(progress_hook, NULL);
}

/**
 * cli_progress_step() - @step steps are done
 * @step: steps done so far
 */
void cli_progress_step(int step)
{
	pg.step = step;
	if (pg.on)
		progress_print((double)step / pg.nr_steps);
}

/**
 * cli_progress_end() - clear the line and remove the engine's hook
 */
void cli_progress_end(void)
{
	if (pg.shown)
		fprintf(pg.err, "\r\033[K");
	if (pg.on)
		fflush(pg.err);
	sim_set_progress_hook(NULL, NULL);
	pg.on = pg.shown = false;
}
