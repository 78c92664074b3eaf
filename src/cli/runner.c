// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running scenarios for run and reproduce: the plan, built once from the
 * command line before anything runs (src/harness/plan.c); the runs, in
 * this process or the harness's pool; the results written to the table,
 * --json, --csv and --trace, each file whole or not at all.
 *
 * The host clocks (harness_host_seconds(), harness_host_cpu_seconds()) are
 * read here and in the pool around the runs, for the "host time" line and
 * the JSON "host" object.  Nothing they return reaches the table, the CSV
 * or the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_impl.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/trace.h"

/* ---- running a scenario --------------------------------------------------- */

/**
 * cli_print_host_time() - the host's cost of a report's runs
 * @o: the sink
 * @r: the report, its host_* fields set
 *
 * One meaning everywhere: the CPU time summed over the processes that ran
 * the variants, and the wall time from the start of the runs to the end of
 * the last one (in a pool shared by several scenarios, the time until this
 * scenario's last run ended).  The line starts "host time:", which the
 * golden transcripts leave out.
 */
void cli_print_host_time(struct sim_out *o, const struct sim_report *r)
{
	char procs[48];

	if (r->host_processes == 1)
		snprintf(procs, sizeof(procs), "one process");
	else
		snprintf(procs, sizeof(procs), "summed over %d processes", r->host_processes);
	sim_out_printf(o, "\nhost time: CPU time %.3f s (%s), wall time %.3f s, %" PRIu64
		       " events\n", r->host_cpu_seconds, procs, r->host_wall_seconds,
		       r->host_events);
}

/* Add the trace of variant run @nth (1-based: its pid) to k->trace and forget it. */
static int cli_add_trace(struct cli *c, const struct scenario_ops *s,
			 const struct sim_run_config *cfg, const char *variant, int nth,
			 const char *path, struct cli_sinks *k)
{
	char pname[160];

	sim_trace_stop();
	snprintf(pname, sizeof(pname), "mmsim %s %s (seed %" PRIu64 ")", s->name,
		 variant, cfg->seed);
	sim_trace_write_process(&k->trace, nth, pname, nth == 1);
	if (sim_trace_truncated())
		fprintf(c->err, "mmsim: note: --trace %s: variant %s: stopped recording after %"
			PRIu64 " events (--trace-limit) at %.6f ms of virtual time\n",
			path, variant, sim_trace_nr_events(),
			(double)sim_trace_stopped_at() / (double)SIM_MS);
	k->trace_events += sim_trace_nr_events();
	k->trace_dropped += sim_trace_dropped();
	k->trace_truncated |= sim_trace_truncated();
	sim_trace_release();
	return k->trace.failed ? cli_fail(c, "out of memory") - 1 : 0;
}

/**
 * cli_sinks_add_json() - keep one scenario's JSON document
 * @k: the command's sinks
 * @doc: the document (a reference the sinks take)
 * @reproduce: reproduce gathers an array; run keeps the one document
 */
void cli_sinks_add_json(struct cli_sinks *k, json_t *doc, bool reproduce)
{
	if (reproduce) {
		json_array_append_new(k->json, doc);
	} else {
		json_decref(k->json);
		k->json = doc;
	}
}

/**
 * cli_sinks_add_rows() - one scenario's CSV rows and, for reproduce, its chart
 * @c: the command line
 * @a: its options
 * @k: the command's sinks
 * @rep: the scenario's report
 * @reproduce: whether this is reproduce (only it draws)
 *
 * A chart that fails is remembered (k->plot_ret, k->plot_msg) and no more
 * are drawn; the tables are still printed.
 */
void cli_sinks_add_rows(struct cli *c, const struct plan_args *a, struct cli_sinks *k,
			const struct sim_report *rep, bool reproduce)
{
	if (a->csv) {
		sim_print_csv(&k->csv, rep, !k->csv_header_done);
		k->csv_header_done = true;
	}
	if (reproduce && a->plot && !k->plot_ret) {
		char settings[512];

		cli_settings_text(a, settings, sizeof(settings));
		k->plot_ret = cli_plot_reproduce(c, a->plot, rep, settings);
		if (k->plot_ret) {
			snprintf(k->plot_msg, sizeof(k->plot_msg), "%s", c->msg);
			c->msg[0] = '\0';
		}
	}
}

/**
 * cli_run_pool() - the variants of @nr scenarios in the pool, with the progress line
 * @c: the invocation (c->msg gets the error)
 * @scn: the configured scenarios
 * @nr: how many
 * @jobs: processes at a time
 * @what: the progress line's name of the work, "run", "reproduce", "sensitivity"
 *
 * Return: 0, or 1 with c->msg set (plan_run_pool()).
 */
int cli_run_pool(struct cli *c, struct plan_scenario *scn, int nr, uint64_t jobs,
		 const char *what)
{
	int i, nr_runs = 0, ret;

	for (i = 0; i < nr; i++)
		nr_runs += scn[i].nr;
	cli_progress_begin(c, what, nr_runs);
	ret = plan_run_pool(scn, nr, jobs, cli_progress_step, c->msg, sizeof(c->msg));
	cli_progress_end();
	return ret;
}

/*
 * Run the variants of @p that the process pool has not run (all of them,
 * in this process, one after another), then write its report to @k.
 */
static int cli_run_scenario(struct cli *c, struct plan_scenario *p,
			    const struct plan_args *a, bool reproduce,
			    struct cli_sinks *k)
{
	const struct scenario_ops *s = p->s;
	struct sim_variant_result *res = p->res;
	struct sim_run_config cfg = p->cfg;
	struct sim_report rep;
	int *idx = p->idx, nr = p->nr, i, ret = 2;
	double t0, cpu0;

	if (a->trace) {
		sim_out_init_buffer(&k->trace);
		k->trace_events = k->trace_dropped = 0;
		k->trace_truncated = false;
		if (sim_outfile_open(&k->trace_f, "--trace", a->trace, c->out, c->msg,
				     sizeof(c->msg)))
			goto out_free;
		sim_trace_write_begin(&k->trace);
	}
	if (!p->ran) {
		char what[96];

		snprintf(what, sizeof(what), "%s %s", reproduce ? "reproduce" : "run", s->name);
		cli_progress_begin(c, what, nr);
	}
	t0 = harness_host_seconds();
	cpu0 = harness_host_cpu_seconds();
	memset(&rep, 0, sizeof(rep));
	rep.cfg = &cfg;
	rep.res = res;
	rep.nr_res = nr;
	rep.reproduce = reproduce;
	rep.baseline = a->baseline;
	rep.locks_format = a->locks_format;
	i = p->ran ? nr : 0;	/* the pool ran them: nothing left to do here */
	for (; i < nr; i++) {
		char err[CLI_ERR] = "";

		res[i].name = s->variants[idx[i]].name;
		if (a->trace)
			sim_trace_start(a->trace_limit);
		if (plan_run_variant(p, &cfg, i, &res[i], err, sizeof(err))) {
			sim_trace_stop();
			cli_progress_end();
			cli_fail(c, "%s, variant %s: %s", s->name, res[i].name,
				 err[0] ? err : "the run failed");
			ret = 1;
			goto out_free;
		}
		rep.host_events += res[i].events;
		cli_progress_step(i + 1);
		if (a->trace && (ret = cli_add_trace(c, s, &cfg, res[i].name, i + 1, a->trace, k)))
			goto out_free;
	}
	if (a->trace) {
		sim_trace_write_end(&k->trace, k->trace_events, a->trace_limit, k->trace_truncated,
				    k->trace_dropped);
		if (k->trace.failed) {
			ret = cli_fail(c, "out of memory") - 1;
			goto out_free;
		}
		if (sim_outfile_commit(&k->trace_f, sim_out_text(&k->trace), k->trace.len, c->msg,
				       sizeof(c->msg))) {
			ret = 1;
			goto out_free;
		}
	}
	if (!p->ran)
		cli_progress_end();
	if (s->finish)
		s->finish(&cfg, res, nr);
	if (!p->ran) {
		p->cpu_s = harness_host_cpu_seconds() - cpu0;
		p->nr_procs = 1;
		p->wall_s = harness_host_seconds() - t0;
	}
	rep.host_cpu_seconds = p->cpu_s;
	rep.host_processes = p->nr_procs;
	rep.host_wall_seconds = p->wall_s;
	if (p->ran)
		for (i = 0; i < nr; i++)
			rep.host_events += res[i].events;

	if (k->text_on) {
		if (!a->quiet)
			sim_print_header(&k->text, &rep);
		sim_print_table(&k->text, &rep);
		if (reproduce) {
			sim_out_printf(&k->text, "\n");
			sim_print_verdict(&k->text, &rep);
		}
		if (!a->quiet) {
			sim_print_locks(&k->text, &rep);
			sim_print_counters(&k->text, &rep);
			sim_print_interrupts(&k->text, &rep);
			if (a->vmstat)
				sim_print_vmstat(&k->text, &rep);
		}
		if (a->report_functions)
			sim_print_functions(&k->text, &rep);
		if (!a->quiet)
			cli_print_host_time(&k->text, &rep);
		if (reproduce)
			sim_out_printf(&k->text, "\n");
	}
	if (a->json) {
		json_t *doc = sim_report_json(&rep);

		if (!doc) {
			cli_fail(c, "out of memory");
			ret = 1;
			goto out_free;
		}
		cli_sinks_add_json(k, doc, reproduce);
	}
	cli_sinks_add_rows(c, a, k, &rep, reproduce);
	ret = 0;
out_free:
	if (a->trace) {
		sim_outfile_abort(&k->trace_f);
		sim_out_release(&k->trace);
	}
	return ret;
}

/* Path @path resolved, as far as it exists: the directory by realpath(). */
static void cli_resolve_path(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], *real;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	real = realpath(dir, NULL);
	snprintf(buf, len, "%s/%s", real ? real : dir, slash ? slash + 1 : path);
	free(real);
}

/**
 * cli_outputs_distinct() - refuse two output files that are one file
 * @c: the invocation (c->msg gets the error)
 * @opt: the options, "--json" ..., @nr of them
 * @path: their paths ("-" and NULL are skipped)
 * @nr: how many
 *
 * Two outputs at one path would overwrite each other.  Paths are compared
 * resolved (the directory through realpath(), so "x", "./x" and "d/../x"
 * are one), and an existing file also by device and inode (hard links).
 * Return: 0, or 2 with c->msg set.
 */
int cli_outputs_distinct(struct cli *c, const char *const *opt, const char *const *path, int nr)
{
	char ri[PATH_MAX + 256], rj[PATH_MAX + 256];
	struct stat si, sj;
	int i, j;

	for (i = 0; i < nr; i++) {
		if (!path[i] || !strcmp(path[i], "-"))
			continue;
		cli_resolve_path(path[i], ri, sizeof(ri));
		for (j = i + 1; j < nr; j++) {
			if (!path[j] || !strcmp(path[j], "-"))
				continue;
			cli_resolve_path(path[j], rj, sizeof(rj));
			if (!strcmp(ri, rj) ||
			    (!stat(path[i], &si) && !stat(path[j], &sj) &&
			     si.st_dev == sj.st_dev && si.st_ino == sj.st_ino))
				return cli_fail(c, "%s %s and %s %s are one file: expected a file of its own for each output",
						opt[i], path[i], opt[j], path[j]);
		}
	}
	return 0;
}

/* --json, --csv and --trace. */
static int cli_check_outputs(struct cli *c, const struct plan_args *a)
{
	const char *opt[] = { "--json", "--csv", "--trace" };
	const char *path[] = { a->json, a->csv, a->trace };

	return cli_outputs_distinct(c, opt, path, 3);
}

/*
 * Run @scn (nr_scn scenarios) with @a and write the results: the text to
 * c->out, --json and --csv each whole or not at all.
 */
int cli_run_all(struct cli *c, const struct scenario_ops **scn,
		int nr_scn, const struct plan_args *a, bool reproduce)
{
	struct sim_outfile json_f, csv_f;
	struct cli_sinks k;
	struct plan pl;
	int i, ret = 0;

	memset(&k, 0, sizeof(k));
	memset(&json_f, 0, sizeof(json_f));
	memset(&csv_f, 0, sizeof(csv_f));
	sim_out_init_file(&k.text, c->out);
	sim_out_init_buffer(&k.csv);
	k.text_on = !(a->json && !strcmp(a->json, "-")) &&
		    !(a->csv && !strcmp(a->csv, "-"));
	if (a->json && sim_outfile_open(&json_f, "--json", a->json, c->out,
					c->msg, sizeof(c->msg)))
		return 2;
	if (a->csv && sim_outfile_open(&csv_f, "--csv", a->csv, c->out, c->msg,
				       sizeof(c->msg))) {
		sim_outfile_abort(&json_f);
		return 2;
	}
	if (a->json && reproduce)
		k.json = json_array();
	if (a->plot && reproduce) {
		struct stat st;

		if (mkdir(a->plot, 0777) && errno != EEXIST) {
			sim_outfile_abort(&json_f);
			sim_outfile_abort(&csv_f);
			return cli_fail(c, "--plot %s: cannot create the directory (%s): expected a directory path",
					a->plot, strerror(errno));
		}
		if (stat(a->plot, &st) || !S_ISDIR(st.st_mode)) {
			sim_outfile_abort(&json_f);
			sim_outfile_abort(&csv_f);
			return cli_fail(c, "--plot %s: expected a directory for the charts", a->plot);
		}
		if (access(a->plot, W_OK | X_OK)) {
			sim_outfile_abort(&json_f);
			sim_outfile_abort(&csv_f);
			return cli_fail(c, "--plot %s: cannot write in it (%s): expected a "
					"writable directory for the charts", a->plot,
					strerror(errno));
		}
	}

	/* The plan: every scenario, at seeds SEED.. SEED+N-1 with --seeds N. */
	ret = plan_build(&pl, scn, nr_scn, a, c->msg, sizeof(c->msg));
	if (!ret)
		ret = cli_check_outputs(c, a);
	if (!ret && pl.pooled)
		ret = cli_run_pool(c, pl.scn, pl.nr, pl.jobs, reproduce ? "reproduce" : "run");
	for (i = 0; i < nr_scn && !ret; i++)
		ret = pl.nr_seeds > 1 ?
		      cli_report_seeds(c, &pl.scn[i * pl.nr_seeds], pl.nr_seeds, a, reproduce, &k) :
		      cli_run_scenario(c, &pl.scn[i], a, reproduce, &k);
	plan_release(&pl);

	if (!ret && a->json) {
		struct sim_out js;

		sim_out_init_buffer(&js);
		sim_print_json(&js, k.json);
		if (js.failed) {
			ret = cli_fail(c, "out of memory") - 1;
		} else if (sim_outfile_commit(&json_f, sim_out_text(&js), js.len,
					      c->msg, sizeof(c->msg))) {
			ret = 1;
		}
		sim_out_release(&js);
	}
	if (!ret && a->csv) {
		if (k.csv.failed)
			ret = cli_fail(c, "out of memory") - 1;
		else if (sim_outfile_commit(&csv_f, sim_out_text(&k.csv), k.csv.len,
					    c->msg, sizeof(c->msg)))
			ret = 1;
	}
	sim_outfile_abort(&json_f);
	sim_outfile_abort(&csv_f);
	json_decref(k.json);
	sim_out_release(&k.csv);
	if (!ret && (k.text.failed || fflush(c->out)))
		ret = cli_fail(c, "writing to standard output failed") - 1;
	if (!ret && k.plot_ret) {
		snprintf(c->msg, sizeof(c->msg), "%s", k.plot_msg);
		ret = k.plot_ret;
	}
	return ret;
}
