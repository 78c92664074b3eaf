// SPDX-License-Identifier: GPL-2.0-only
/*
 * Charts through gnuplot: a sweep's metrics against its first varied key,
 * and `reproduce --plot`'s published-versus-simulated bars.
 *
 * Models nothing.  mmsim writes a gnuplot script (data inline, as
 * datablocks) next to the output, runs gnuplot on it and renames the
 * picture into place, so the file is whole or absent.  The terminal
 * follows the file's extension: .svg (svg) or .png (pngcairo).  gnuplot is
 * `gnuplot` on the PATH, or the program named by the environment variable
 * MMSIM_GNUPLOT.  If it cannot be started, the command fails with one
 * line and exit code 2 (bad input: a missing tool), after the CSV is
 * written.  The same data and gnuplot version give the same bytes.
 *
 * A sweep chart is one file with one plot per metric (gnuplot multiplot,
 * two columns): the mean over the seeds as a line with points, one line
 * per variant (and per value of the other varied keys), error bars from
 * the smallest to the largest seed's value.
 *
 * What makes a chart readable, in every chart here: the legend is below
 * the plot, never on the data; the y axis is the metric's title with its
 * unit; a y axis whose positive values span more than two decades
 * (max / min > 100) is logarithmic; mmsim places the value ticks itself
 * (gp_value_axis(): 1, 2 or 5 x 10^k apart, or each decade) and writes
 * their labels without exponents (cli_plot_tick_label(): 50M, 1.2G, 2,500,
 * 20µ); and the title names the run's --set and --cost.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_impl.h"
#include "host/spawn.h"
#include "mmsim/profile.h"

enum plot_kind { PLOT_SVG, PLOT_PNG, PLOT_BAD };

static enum plot_kind plot_kind_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".svg"))
		return PLOT_SVG;
	if (dot && !strcasecmp(dot, ".png"))
		return PLOT_PNG;
	return PLOT_BAD;
}

/**
 * cli_plot_check_path() - check a sweep's --plot FILE before any work
 * @c: the invocation
 * @path: the file
 *
 * Return: 0, or 2 with c->msg filled.
 */
int cli_plot_check_path(struct cli *c, const char *path)
{
	struct stat st;

	if (plot_kind_of(path) == PLOT_BAD)
		return cli_fail(c, "--plot %s: expected a file name ending in .svg or .png",
				path);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return cli_fail(c, "--plot %s: expected a file, not a directory", path);
	if (sim_outfile_check("--plot", path, c->msg, sizeof(c->msg)))
		return 2;
	return 0;
}

/*
 * Put gnuplot's finished drawing @tmp_out at @path through the result-file
 * rules (sim_outfile_open(): whole or not at all; a device or FIFO
 * written, never replaced; a link followed).  0, or -1 with @err filled.
 */
static int plot_put(const char *opt, const char *path, const char *tmp_out,
		    char *err, size_t len)
{
	struct sim_outfile f;
	struct sim_out text;
	char buf[65536];
	size_t n;
	FILE *in = fopen(tmp_out, "rb");
	int ret;

	if (!in) {
		snprintf(err, len, "%s %s: gnuplot wrote nothing (%s)", opt, path,
			 strerror(errno));
		return -1;
	}
	sim_out_init_buffer(&text);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		sim_out_write(&text, buf, n);
	ret = ferror(in) ? -1 : 0;
	fclose(in);
	if (ret)
		snprintf(err, len, "%s %s: cannot read gnuplot's drawing", opt, path);
	else if (sim_outfile_open(&f, opt, path, NULL, err, len))
		ret = -1;
	else if (sim_outfile_commit(&f, sim_out_text(&text), text.len, err, len))
		ret = -1;
	sim_out_release(&text);
	return ret;
}

/* A gnuplot double-quoted string; a newline in @s is a line break. */
static void gp_str(struct sim_out *o, const char *s)
{
	sim_out_write(o, "\"", 1);
	for (; *s; s++) {
		if (*s == '\n') {
			sim_out_write(o, "\\n", 2);
			continue;
		}
		if (*s == '"' || *s == '\\')
			sim_out_write(o, "\\", 1);
		sim_out_write(o, s, 1);
	}
	sim_out_write(o, "\"", 1);
}

/**
 * cli_plot_tick_label() - a value as a tick label, never with an exponent
 * @v: the value
 * @buf: the label: "50M", "1.2G", "12k", "2,500", "0.5", "20µ"
 * @len: size of @buf
 *
 * Three significant digits; 10^4 and more, and below 10^-4, with an SI
 * prefix (k, M, G, T; µ, n, p); 1,000 to 9,999 with a thousands comma.
 */
void cli_plot_tick_label(double v, char *buf, size_t len)
{
	static const struct { double scale; const char *prefix; } si[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};
	static const struct { double scale; const char *prefix; } small[] = {
		{ 1e-6, "\u00b5" }, { 1e-9, "n" }, { 1e-12, "p" },
	};
	double a = fabs(v);
	size_t k;

	if (!isfinite(v)) {
		snprintf(buf, len, "%s", "?");
		return;
	}
	if (a >= 9999.5) {
		for (k = 0; k < sizeof(si) / sizeof(si[0]) - 1; k++)
			if (a >= si[k].scale * 0.9995)
				break;
		snprintf(buf, len, "%.3g%s", v / si[k].scale, si[k].prefix);
		return;
	}
	if (a >= 999.5) {
		long n = lround(v);

		snprintf(buf, len, "%s%ld,%03ld", n < 0 ? "-" : "", labs(n) / 1000, labs(n) % 1000);
		return;
	}
	if (a == 0 || a >= 1e-4) {
		snprintf(buf, len, "%.3g", v);
		return;
	}
	for (k = 0; k < sizeof(small) / sizeof(small[0]) - 1; k++)
		if (a >= small[k].scale * 0.9995)
			break;
	snprintf(buf, len, "%.3g%s", v / small[k].scale, small[k].prefix);
}

/*
 * The value axis @ax ("x" or "y") for values in [@lo, @hi]: logarithmic
 * (ticks at each power of ten) when @log_ok and the values are positive
 * and span more than two decades, else linear from 0 (if @from_zero and
 * nothing is negative) with ticks 1, 2 or 5 x 10^k apart, about five.
 * The range is the ticks' and every tick is labelled by
 * cli_plot_tick_label(), so that no label is in gnuplot's 5e+07 form.
 */
static void gp_value_axis(struct sim_out *o, const char *ax, double lo, double hi,
			  bool from_zero, bool log_ok)
{
	char label[32];
	double step, mag, f, v;
	long i, i0, i1;

	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (log_ok && lo > 0 && hi / lo > 100) {
		i0 = lround(floor(log10(lo) + 1e-9));
		i1 = lround(ceil(log10(hi) - 1e-9));
		sim_out_printf(o, "set logscale %s 10\nset %srange [1e%ld:1e%ld]\nset %stics (",
			       ax, ax, i0, i1, ax);
		for (i = i0; i <= i1; i++) {
			cli_plot_tick_label(pow(10, (double)i), label, sizeof(label));
			sim_out_printf(o, "%s", i > i0 ? ", " : "");
			gp_str(o, label);
			sim_out_printf(o, " 1e%ld", i);
		}
		sim_out_printf(o, ")\n");
		return;
	}
	if (from_zero && lo >= 0)
		lo = 0;
	if (hi <= lo)
		hi = lo + (lo != 0 ? fabs(lo) : 1);
	step = (hi - lo) / 5;
	mag = pow(10, floor(log10(step)));
	f = step / mag;
	step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
	i0 = lround(floor(lo / step + 1e-9));
	i1 = lround(ceil(hi / step - 1e-9));
	if (i1 <= i0)
		i1 = i0 + 1;
	sim_out_printf(o, "unset logscale %s\nset %srange [%.15g:%.15g]\nset %stics (", ax, ax,
		       (double)i0 * step, (double)i1 * step, ax);
	for (i = i0; i <= i1; i++) {
		v = (double)i * step;
		cli_plot_tick_label(v, label, sizeof(label));
		sim_out_printf(o, "%s", i > i0 ? ", " : "");
		gp_str(o, label);
		sim_out_printf(o, " %.15g", v);
	}
	sim_out_printf(o, ")\n");
}

/* Widen [*lo, *hi] to hold @v, if it is a number. */
static void range_add(double *lo, double *hi, double v)
{
	if (!isfinite(v))
		return;
	if (!(*lo <= v))
		*lo = v;
	if (!(*hi >= v))
		*hi = v;
}

static void gp_terminal(struct sim_out *o, enum plot_kind kind, int w, int h,
			const char *out)
{
	if (kind == PLOT_SVG)
		sim_out_printf(o, "set terminal svg size %d,%d dynamic noenhanced "
			       "font \"sans,12\" background rgb \"white\"\n", w, h);
	else
		sim_out_printf(o, "set terminal pngcairo size %d,%d noenhanced "
			       "font \"sans,10\" background rgb \"white\"\n", w, h);
	sim_out_printf(o, "set output ");
	gp_str(o, out);
	sim_out_printf(o, "\nset encoding utf8\nset grid lc rgb \"#dddddd\"\n"
		       "set border lc rgb \"#555555\"\n");
}

/*
 * A scratch file of gnuplot's in $TMPDIR (or /tmp), never beside the
 * result: the result is written through sim_outfile_open() at the end.
 */
static void plot_tmp_path(char *buf, size_t n, const char *ext)
{
	static unsigned int seq;
	const char *dir = getenv("TMPDIR");

	snprintf(buf, n, "%s/mmsim-plot.%ld.%u%s",
		 dir && *dir && strlen(dir) < 160 ? dir : "/tmp", (long)getpid(),
		 seq++, ext);
}

static const char *gnuplot_program(void)
{
	const char *g = getenv("MMSIM_GNUPLOT");

	return g && *g ? g : "gnuplot";
}

/*
 * What a plot has made while gnuplot runs: its script, the picture gnuplot
 * draws, and gnuplot.  SIGINT, SIGTERM or SIGHUP then kills and reaps
 * gnuplot (so that it cannot write the picture later), removes both files,
 * and passes the signal on to the handler before (outfile.c's, which
 * removes the result files' temporaries, or the default).  gnuplot also
 * dies with mmsim by PR_SET_PDEATHSIG, whatever ends mmsim.
 */
static const int gp_signals[3] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction gp_old[3];
static const char *volatile gp_tmp_script, *volatile gp_tmp_picture;
static volatile pid_t gp_child;

static void gp_on_signal(int sig)
{
	pid_t pid = gp_child;
	int i;

	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (gp_tmp_script)
		unlink(gp_tmp_script);		/* async-signal-safe */
	if (gp_tmp_picture)
		unlink(gp_tmp_picture);
	for (i = 0; i < 3; i++)
		if (gp_signals[i] == sig)
			sigaction(sig, &gp_old[i], NULL);
	raise(sig);
}

/* Block (@block) or restore the three signals; @old keeps the mask. */
static void gp_block(bool block, sigset_t *old)
{
	sigset_t set;
	int i;

	if (!block) {
		sigprocmask(SIG_SETMASK, old, NULL);
		return;
	}
	sigemptyset(&set);
	for (i = 0; i < 3; i++)
		sigaddset(&set, gp_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void gp_guard(const char *script, const char *picture)
{
	struct sigaction sa;
	sigset_t old;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = gp_on_signal;
	sigfillset(&sa.sa_mask);
	gp_block(true, &old);
	gp_tmp_script = script;
	gp_tmp_picture = picture;
	gp_child = 0;
	for (i = 0; i < 3; i++)
		sigaction(gp_signals[i], &sa, &gp_old[i]);
	gp_block(false, &old);
}

static void gp_unguard(void)
{
	sigset_t old;
	int i;

	gp_block(true, &old);
	for (i = 0; i < 3; i++)
		sigaction(gp_signals[i], &gp_old[i], NULL);
	gp_tmp_script = NULL;
	gp_tmp_picture = NULL;
	gp_child = 0;
	gp_block(false, &old);
}

/*
 * Run gnuplot on @script, drawing into a temporary file that is renamed
 * to @path.  Returns 0, 2 when gnuplot cannot be started, 1 when it fails.
 * host_run() keeps gp_child, which gp_on_signal() kills, up to date.
 */
static int gp_run(struct cli *c, const char *opt, const char *path,
		  const char *tmp_out, const struct sim_out *script)
{
	static char tail[4096];
	char *gp = NULL, line[200] = "";
	int status, ret = 0;
	size_t n = 256;
	FILE *f;

	gp = malloc(n);
	if (!gp)
		return cli_fail(c, "out of memory") - 1;
	plot_tmp_path(gp, n, ".gp");
	gp_guard(gp, tmp_out);
	f = fopen(gp, "w");
	if (!f || fwrite(sim_out_text(script), 1, script->len, f) != script->len) {
		int e = errno;

		if (f)
			fclose(f);
		unlink(gp);
		gp_unguard();
		ret = cli_fail(c, "%s %s: cannot write the gnuplot script %s (%s): expected a writable directory",
			       opt, path, gp, strerror(e));
		free(gp);
		return ret;
	}
	fclose(f);
	{
		char *argv[] = { (char *)gnuplot_program(), gp, NULL };
		/* gnuplot dies with mmsim, even by SIGKILL */
		struct host_cmd cmd = { .file = gnuplot_program(), .argv = argv,
					.pdeathsig = SIGKILL, .quiet = true,
					.child = &gp_child };

		status = host_run(&cmd, tail, sizeof(tail));
	}
	host_last_line(tail, line, sizeof(line));	/* gnuplot's message */
	if (status < 0) {
		ret = cli_fail(c, "%s %s: cannot run gnuplot (%s): expected gnuplot installed "
			       "(Debian: apt-get install gnuplot-nox) or MMSIM_GNUPLOT naming it",
			       opt, path, gnuplot_program());
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ret = cli_fail(c, "%s %s: gnuplot failed: %s", opt, path,
			       line[0] ? line : "no message") - 1;
	} else if (plot_put(opt, path, tmp_out, c->msg, sizeof(c->msg))) {
		ret = 1;
	}
	unlink(tmp_out);
	unlink(gp);
	gp_unguard();
	free(gp);
	return ret;
}

static char *tmp_name(const char *path)
{
	size_t n = 256;
	char *t = malloc(n);
	const char *dot = strrchr(path, '.');

	/* keep the extension last: gnuplot's terminal and some tools look at it */
	if (t)
		plot_tmp_path(t, n, dot ? dot : "");
	return t;
}

static void gp_num(struct sim_out *o, double v)
{
	if (isfinite(v))
		sim_out_printf(o, " %.15g", v);
	else
		sim_out_printf(o, " NaN");
}

/* Characters of legend a chart's width holds, at most (both terminals' fonts). */
#define KEY_LINE_CHARS	60

/**
 * cli_plot_sweep() - draw a sweep's charts into one SVG or PNG file
 * @c: the invocation
 * @path: the file (.svg or .png, checked by cli_plot_check_path())
 * @title: the title above all charts
 * @axis: the x axis shared by the charts
 * @charts: one chart per metric
 * @nr_charts: their number
 *
 * Return: 0, 2 (gnuplot missing) or 1, with c->msg filled.
 */
int cli_plot_sweep(struct cli *c, const char *path, const char *title,
		   const struct plot_axis *axis, const struct plot_chart *charts,
		   int nr_charts)
{
	enum plot_kind kind = plot_kind_of(path);
	int cols, rows, nr_drawn = 0, key_cols, key_rows = 1;
	struct sim_out o;
	char *tmp = tmp_name(path);
	int m, s, j, ret;

	if (!tmp)
		return cli_fail(c, "out of memory") - 1;
	/* A metric no run set (e.g. relative to a variant not run) is left out. */
	for (m = 0; m < nr_charts; m++)
		for (s = 0; s < charts[m].nr_series; s++)
			if (charts[m].series[s].nr) {
				nr_drawn++;
				break;
			}
	if (!nr_drawn) {
		free(tmp);
		return cli_fail(c, "--plot %s: no run set any metric: nothing to draw", path) - 1;
	}
	/*
	 * The legend sits below each chart, under the x axis's title, in a
	 * bottom margin sized for it: gnuplot's own margin lets a legend of
	 * more than a row cover the title.  Its columns are at most
	 * KEY_LINE_CHARS / (the longest entry + its sample) wide, a width that
	 * fits a 560-pixel chart; so many rows, plus 4 lines for the tick
	 * labels, the axis title and the box.
	 */
	for (m = 0; m < nr_charts; m++) {
		int n = 0, w = 1, r;

		for (s = 0; s < charts[m].nr_series; s++)
			if (charts[m].series[s].nr) {
				n++;
				if ((int)strlen(charts[m].series[s].title) > w)
					w = (int)strlen(charts[m].series[s].title);
			}
		key_cols = KEY_LINE_CHARS / (w + 6) > 1 ? KEY_LINE_CHARS / (w + 6) : 1;
		r = (n + key_cols - 1) / key_cols;
		if (r > key_rows)
			key_rows = r;
	}
	cols = nr_drawn > 1 ? 2 : 1;
	rows = (nr_drawn + cols - 1) / cols;
	sim_out_init_buffer(&o);
	gp_terminal(&o, kind, cols * 560, rows * (380 + 16 * (key_rows - 1)) + 50, tmp);
	sim_out_printf(&o, "set key below center horizontal box samplen 2 height 1\n"
		       "set bmargin %d\n"
		       "set style line 1 lw 2 pt 7 ps 0.8\n", key_rows + 5);
	sim_out_printf(&o, "set xlabel ");
	gp_str(&o, axis->label);
	sim_out_printf(&o, "\n");
	if (axis->nr) {
		double lo = axis->pos[0], hi = axis->pos[0];

		for (j = 1; j < axis->nr; j++) {
			lo = fmin(lo, axis->pos[j]);
			hi = fmax(hi, axis->pos[j]);
		}
		/* a margin of 8% of the span, on the scale drawn */
		if (axis->log2) {
			sim_out_printf(&o, "set logscale x 2\nset xrange [%.15g:%.15g]\n",
				       lo / pow(hi / lo, 0.08), hi * pow(hi / lo, 0.08));
		} else if (hi > lo) {
			sim_out_printf(&o, "set xrange [%.15g:%.15g]\n", lo - (hi - lo) * 0.08,
				       hi + (hi - lo) * 0.08);
		}
	}
	sim_out_printf(&o, "set xtics (");
	for (j = 0; j < axis->nr; j++) {
		sim_out_printf(&o, "%s", j ? ", " : "");
		gp_str(&o, axis->text[j]);
		gp_num(&o, axis->pos[j]);
	}
	sim_out_printf(&o, ")\n");
	for (m = 0; m < nr_charts; m++)
		for (s = 0; s < charts[m].nr_series; s++) {
			const struct plot_series *se = &charts[m].series[s];

			sim_out_printf(&o, "$d%d_%d << EOD\n", m, s);
			for (j = 0; j < se->nr; j++) {
				gp_num(&o, se->x[j]);
				gp_num(&o, se->mean[j]);
				gp_num(&o, se->lo[j]);
				gp_num(&o, se->hi[j]);
				sim_out_printf(&o, "\n");
			}
			sim_out_printf(&o, "EOD\n");
		}
	sim_out_printf(&o, "set multiplot layout %d,%d title ", rows, cols);
	gp_str(&o, title);
	sim_out_printf(&o, " font \",13\"\n");
	for (m = 0; m < nr_charts; m++) {
		const struct plot_chart *ch = &charts[m];
		double lo = NAN, hi = NAN;
		bool any = false;

		for (s = 0; s < ch->nr_series; s++)
			for (j = 0; j < ch->series[s].nr; j++) {
				any = true;
				range_add(&lo, &hi, ch->series[s].lo[j]);
				range_add(&lo, &hi, ch->series[s].mean[j]);
				range_add(&lo, &hi, ch->series[s].hi[j]);
			}
		if (!any)
			continue;
		if (ch->title[0]) {
			sim_out_printf(&o, "set title ");
			gp_str(&o, ch->title);
			sim_out_printf(&o, "\n");
		} else {
			sim_out_printf(&o, "unset title\n");
		}
		sim_out_printf(&o, "set ylabel ");
		gp_str(&o, ch->ylabel);
		sim_out_printf(&o, "\n");
		gp_value_axis(&o, "y", lo, hi, true, true);
		for (s = 0, j = 1; s < ch->nr_series; s++)
			if (ch->series[s].nr && (int)strlen(ch->series[s].title) > j)
				j = (int)strlen(ch->series[s].title);
		sim_out_printf(&o, "set key maxcols %d\n",
			       KEY_LINE_CHARS / (j + 6) > 1 ? KEY_LINE_CHARS / (j + 6) : 1);
		sim_out_printf(&o, "plot");
		for (s = 0, j = 0; s < ch->nr_series; s++) {
			if (!ch->series[s].nr)
				continue;
			sim_out_printf(&o, "%s $d%d_%d using 1:2:3:4 with yerrorlines ls 1 lc %d title ",
				       j++ ? "," : "", m, s, s + 1);
			gp_str(&o, ch->series[s].title);
		}
		sim_out_printf(&o, "\n");
	}
	sim_out_printf(&o, "unset multiplot\n");
	ret = o.failed ? cli_fail(c, "out of memory") - 1 :
	      gp_run(c, "--plot", path, tmp, &o);
	sim_out_release(&o);
	free(tmp);
	return ret;
}

/**
 * cli_plot_reproduce() - published and simulated values side by side
 * @c: the invocation
 * @dir: the directory; the chart is DIR/SCENARIO.svg
 * @r: the results of one scenario in reproduce mode
 *
 * One bar chart per metric with a published value: a group per variant,
 * a bar for the published and one for the simulated value.  @settings
 * (the run's --set and --cost, "" for none) is the title's second line.
 *
 * Return: 0, or 1 or 2 with c->msg filled; nothing to draw is 0.
 */
int cli_plot_reproduce(struct cli *c, const char *dir, const struct sim_report *r,
		       const char *settings)
{
	const struct scenario_ops *s = r->cfg->scenario;
	const char *metrics[SIM_MAX_METRICS];
	int nr_m = 0, m, k, v, ret, cols, rows;
	const struct sim_published *p;
	char *path, *tmp, title[512];
	struct sim_out o;
	size_t n;

	for (p = s->published; p && p->variant; p++) {
		for (k = 0; k < nr_m; k++)
			if (!strcmp(metrics[k], p->metric))
				break;
		if (k == nr_m && nr_m < SIM_MAX_METRICS)
			metrics[nr_m++] = p->metric;
	}
	if (!nr_m)
		return 0;
	n = strlen(dir) + strlen(s->name) + 8;
	path = malloc(n);
	if (!path)
		return cli_fail(c, "out of memory") - 1;
	snprintf(path, n, "%s/%s.svg", dir, s->name);
	tmp = tmp_name(path);
	if (!tmp) {
		free(path);
		return cli_fail(c, "out of memory") - 1;
	}
	cols = nr_m > 1 ? 2 : 1;
	rows = (nr_m + cols - 1) / cols;
	sim_out_init_buffer(&o);
	gp_terminal(&o, PLOT_SVG, cols * 520, rows * 380 + 50, tmp);
	sim_out_printf(&o, "set style data histograms\n"
		       "set style histogram clustered gap 1\n"
		       "set style fill solid 0.85 border rgb \"#333333\"\n"
		       "set boxwidth 0.9\nset key below center horizontal box\n"
		       "set grid noxtics ytics\n");
	for (m = 0; m < nr_m; m++) {
		int mi = sim_scenario_metric_index(s, metrics[m]);

		sim_out_printf(&o, "$d%d << EOD\n", m);
		for (v = 0; s->variants[v].name; v++) {
			double pub, sim = NAN;
			bool has_pub = sim_published_value(s, s->variants[v].name, metrics[m], &pub);

			for (k = 0; k < r->nr_res; k++)
				if (!strcmp(r->res[k].name, s->variants[v].name) && mi >= 0 &&
				    r->res[k].has_metric[mi])
					sim = r->res[k].metrics[mi];
			if (!has_pub)
				continue;
			gp_str(&o, s->variants[v].name);
			gp_num(&o, pub);
			gp_num(&o, sim);
			sim_out_printf(&o, "\n");
		}
		sim_out_printf(&o, "EOD\n");
	}
	snprintf(title, sizeof(title), "%s: published vs simulated (profile %s, seed %llu)%s%s",
		 s->name, r->cfg->profile ? r->cfg->profile->origin : "-",
		 (unsigned long long)r->cfg->seed, settings[0] ? "\n" : "", settings);
	sim_out_printf(&o, "set multiplot layout %d,%d title ", rows, cols);
	gp_str(&o, title);
	sim_out_printf(&o, " font \",13\"\n");
	for (m = 0; m < nr_m; m++) {
		int mi = sim_scenario_metric_index(s, metrics[m]);
		double lo = 0, hi = NAN;

		for (v = 0; s->variants[v].name; v++) {
			double pub;

			if (!sim_published_value(s, s->variants[v].name, metrics[m], &pub))
				continue;
			range_add(&lo, &hi, pub);
			for (k = 0; k < r->nr_res; k++)
				if (!strcmp(r->res[k].name, s->variants[v].name) && mi >= 0 &&
				    r->res[k].has_metric[mi])
					range_add(&lo, &hi, r->res[k].metrics[mi]);
		}
		/* bars start at 0: a linear axis, whatever the span */
		sim_out_printf(&o, "unset title\nset ylabel ");
		gp_str(&o, mi >= 0 && s->metrics[mi].label ? s->metrics[mi].label : metrics[m]);
		sim_out_printf(&o, "\n");
		gp_value_axis(&o, "y", lo, hi, true, false);
		sim_out_printf(&o, "plot $d%d using 2:xtic(1) title \"published\" lc rgb \"#4c72b0\", "
			       "'' using 3 title \"simulated (mmsim)\" lc rgb \"#dd8452\"\n", m);
	}
	sim_out_printf(&o, "unset multiplot\n");
	ret = o.failed ? cli_fail(c, "out of memory") - 1 :
	      gp_run(c, "--plot", path, tmp, &o);
	sim_out_release(&o);
	free(tmp);
	free(path);
	return ret;
}

static int tornado_cmp(const void *a, const void *b)
{
	const struct cli_tornado_bar *x = a, *y = b;
	double wx = fabs(x->hi - x->lo), wy = fabs(y->hi - y->lo);

	if (wx != wy)
		return wx < wy ? -1 : 1;	/* the widest bar on top */
	return strcmp(y->label, x->label);
}

/**
 * cli_plot_tornado() - tornado charts of a sensitivity, one per answer
 * @c: the invocation
 * @path: FILE.svg or FILE.png
 * @title: above all charts: the command, scenario, profile, seed and, on a
 *	second line, the run's --set and --cost
 * @charts: one per published change
 * @nr_charts: how many
 *
 * Each chart has one bar per assumption, from the answer at its default
 * to the answer at the low end (blue) and at the high end (orange),
 * sorted by width, the widest on top; a dashed line marks the default and
 * a solid one the published answer.
 *
 * Return: 0, 2 (gnuplot missing) or 1, with c->msg filled.
 */
int cli_plot_tornado(struct cli *c, const char *path, const char *title,
		     const struct cli_tornado *charts, int nr_charts)
{
	enum plot_kind kind = plot_kind_of(path);
	struct sim_out o;
	char *tmp;
	int k, b, ret, maxbars = 1;

	if (!nr_charts)
		return 0;
	tmp = tmp_name(path);
	if (!tmp)
		return cli_fail(c, "out of memory") - 1;
	for (k = 0; k < nr_charts; k++)
		if (charts[k].nr > maxbars)
			maxbars = charts[k].nr;
	sim_out_init_buffer(&o);
	gp_terminal(&o, kind, 760, nr_charts * (60 + 22 * maxbars) + 60, tmp);
	for (k = 0; k < nr_charts; k++) {
		struct cli_tornado_bar *bars = calloc((size_t)charts[k].nr + 1, sizeof(*bars));

		if (!bars) {
			sim_out_release(&o);
			free(tmp);
			return cli_fail(c, "out of memory") - 1;
		}
		memcpy(bars, charts[k].bars, (size_t)charts[k].nr * sizeof(*bars));
		qsort(bars, (size_t)charts[k].nr, sizeof(*bars), tornado_cmp);
		sim_out_printf(&o, "$t%d << EOD\n", k);
		for (b = 0; b < charts[k].nr; b++) {
			gp_str(&o, bars[b].label);
			gp_num(&o, bars[b].lo);
			gp_num(&o, bars[b].hi);
			sim_out_printf(&o, "\n");
		}
		sim_out_printf(&o, "EOD\n");
		free(bars);
	}
	sim_out_printf(&o, "set multiplot layout %d,1 title ", nr_charts);
	gp_str(&o, title);
	sim_out_printf(&o, " font \",13\"\nset style fill solid 0.8 border rgb \"#333333\"\n"
		       "set key below center horizontal box\nset grid xtics noytics\n");
	for (k = 0; k < nr_charts; k++) {
		double lo = NAN, hi = NAN;

		range_add(&lo, &hi, charts[k].base);
		range_add(&lo, &hi, charts[k].pub);
		for (b = 0; b < charts[k].nr; b++) {
			range_add(&lo, &hi, charts[k].bars[b].lo);
			range_add(&lo, &hi, charts[k].bars[b].hi);
		}
		gp_value_axis(&o, "x", lo, hi, false, false);
		sim_out_printf(&o, "set title ");
		gp_str(&o, charts[k].title);
		sim_out_printf(&o, "\nset yrange [-0.6:%d.6]\nunset arrow\n", charts[k].nr - 1);
		sim_out_printf(&o, "set arrow from %.6g, graph 0 to %.6g, graph 1 nohead dt 2 "
			       "lc rgb \"#333333\"\n", charts[k].base, charts[k].base);
		if (isfinite(charts[k].pub))
			sim_out_printf(&o, "set arrow from %.6g, graph 0 to %.6g, graph 1 nohead "
				       "lw 2 lc rgb \"#55a868\"\n", charts[k].pub, charts[k].pub);
		sim_out_printf(&o, "plot $t%d using (%.6g):0:((%.6g) < $2 ? %.6g : $2):"
			       "((%.6g) < $2 ? $2 : %.6g):($0-0.35):($0+0.35):ytic(1) "
			       "with boxxyerror lc rgb \"#4c72b0\" title \"low end\", "
			       "'' using (%.6g):0:((%.6g) < $3 ? %.6g : $3):((%.6g) < $3 ? $3 : %.6g):"
			       "($0-0.35):($0+0.35) with boxxyerror lc rgb \"#dd8452\" "
			       "title \"high end, other value\"\n", k,
			       charts[k].base, charts[k].base, charts[k].base, charts[k].base,
			       charts[k].base, charts[k].base, charts[k].base, charts[k].base,
			       charts[k].base, charts[k].base);
	}
	sim_out_printf(&o, "unset multiplot\n");
	ret = o.failed ? cli_fail(c, "out of memory") - 1 : gp_run(c, "--plot", path, tmp, &o);
	sim_out_release(&o);
	free(tmp);
	return ret;
}
