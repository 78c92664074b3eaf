// SPDX-License-Identifier: GPL-2.0-only
/*
 * The progress line on standard error: the share of the work done and an
 * estimate of the host time left, for runs that take more than a couple
 * of seconds, only when standard error is a terminal.  Never in a file:
 * when standard error is not a terminal, nothing is written at all.
 *
 * Models nothing.  This is the one place besides harness_host_seconds()'s
 * callers where the host clock is read, and only here: the engine calls
 * progress_hook() every SIM_PROGRESS_EVERY scheduler events (a counter
 * compare in the scheduler, no clock), with the share of the scenario's
 * work units done (sim_engine_set_work(), sim_work_done()).  A command is
 * a number of steps (variants of a run, runs of a sweep); the share of
 * the whole is (steps done + share of this step) / steps.
 *
 * The line never goes backwards: a scenario that builds a second engine
 * for one variant starts its work count again at 0, and the shown share
 * is the largest seen so far (pg.best).  The estimate assumes the rest
 * goes at the rate so far:
 *
 *	left = elapsed * (1 - share) / share
 *
 * so 1 of 4 steps done in 30 s leaves 90 s (cli_progress_eta()).
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
	double best;			/* the largest share shown, 0 <= best <= 1 */
	double t0, last;
	double (*now)(void);		/* the host clock; a test's own */
} pg = { .now = harness_host_seconds };

/**
 * cli_progress_eta() - host seconds left at the rate so far
 * @share: the share of the work done, 0..1
 * @elapsed: host seconds since the work began
 *
 * Return: the seconds left, or -1 when nothing is done yet (no rate).
 */
double cli_progress_eta(double share, double elapsed)
{
	if (!(share > 0))
		return -1;
	if (share >= 1)
		return 0;
	return elapsed * (1 - share) / share;
}

/**
 * cli_progress_format() - the text of the progress line
 * @buf: the result
 * @len: its size
 * @what: what runs, "run deferred-split"
 * @share: the share done, 0..1, or below 0 when unknown
 * @elapsed: host seconds since the work began
 *
 * "mmsim: run x: 25.0% done, about 1m30s left", or "running for 12 s" while
 * no share is known.
 */
void cli_progress_format(char *buf, size_t len, const char *what, double share,
			 double elapsed)
{
	double left = cli_progress_eta(share, elapsed);
	long s = (long)(left + 0.5);
	char eta[32];

	if (left < 0) {
		snprintf(buf, len, "mmsim: %s: running for %.0f s", what, elapsed);
		return;
	}
	if (s >= 3600)
		snprintf(eta, sizeof(eta), "%ldh%02ldm", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(eta, sizeof(eta), "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(eta, sizeof(eta), "%lds", s);
	snprintf(buf, len, "mmsim: %s: %4.1f%% done, about %s left", what, share * 100, eta);
}

static void progress_print(double share)
{
	double now = pg.now(), elapsed = now - pg.t0;
	char line[192];

	if (!pg.on || elapsed < PROGRESS_AFTER_S ||
	    (pg.shown && now - pg.last < PROGRESS_EVERY_S))
		return;
	if (share > 1)
		share = 1;
	if (share > pg.best)
		pg.best = share;
	pg.last = now;
	pg.shown = true;
	cli_progress_format(line, sizeof(line), pg.what, pg.best > 0 ? pg.best : -1, elapsed);
	fprintf(pg.err, "\r%s\033[K", line);
	fflush(pg.err);
}

static void progress_hook(void *arg, double done)
{
	(void)arg;
	progress_print(done < 0 ? -1 : (pg.step + done) / pg.nr_steps);
}

/**
 * cli_progress_set_clock() - the clock the progress line reads
 * @now: seconds, monotonic; NULL: the host's (harness_host_seconds())
 *
 * For tests, which cannot wait for PROGRESS_AFTER_S of host time.
 */
void cli_progress_set_clock(double (*now)(void))
{
	pg.now = now ? now : harness_host_seconds;
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
	pg.best = 0;
	pg.t0 = pg.last = pg.now();
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
