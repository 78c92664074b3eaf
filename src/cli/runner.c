// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running scenarios for run and reproduce: the configuration (profile,
 * --cost, --set, variants), checked before anything runs; the runs, in
 * this process or the pool (pool.c); the results written to the table,
 * --json, --csv and --trace, each file whole or not at all.
 *
 * The host clocks (CLOCK_MONOTONIC, cli_host_seconds(), and the process's
 * CPU clock, cli_host_cpu_seconds()) are read here and in the pool around
 * the runs, for the "host time" line and the JSON "host" object.  Nothing
 * they return reaches the table, the CSV or the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cli_impl.h"
#include "mm/access.h"
#include "mm/mm.h"
#include "mmsim/funcprof.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/trace.h"

/* ---- running a scenario --------------------------------------------------- */

/**
 * cli_host_seconds() - the host's monotonic clock, in seconds
 *
 * Only the command line reads the host clock; nothing it returns reaches
 * the model or a result file.
 *
 * Return: seconds since an arbitrary start.
 */
double cli_host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/**
 * cli_host_cpu_seconds() - the CPU time of this process, in seconds
 *
 * A process forked by the pool starts at zero, so its value at the end of
 * the child's run is the CPU time the run cost the host.
 *
 * Return: user and system seconds of this process so far.
 */
double cli_host_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

/*
 * Host bytes of model state per page mapped at once: its PTE and, at worst
 * (order-0 folios), a struct folio of its own; per 512 pages (a PMD) a
 * page-table lock, a huge-folio pointer and a flag byte (vma_alloc()).
 */
#define CLI_HOST_BYTES_PER_PAGE	(sizeof(pte_t) + sizeof(struct folio))
#define CLI_HOST_BYTES_PER_PMD	(sizeof(struct spinlock) + sizeof(struct folio *) + 1)
/* What a run needs whatever it maps: engine, stacks, TLBs, tables. */
#define CLI_HOST_BYTES_BASE	((uint64_t)64 << 20)

/**
 * cli_host_bytes_estimate() - host memory one run of @cfg needs, roughly
 * @cfg: the run's configuration
 *
 * The model's state grows with the memory the run maps at once (the
 * scenario's mapped_bytes()), and with the data caches of the overlap model
 * (one 8-byte tag per 64-byte line of every L1D, L2 and L3).
 * Return: bytes.
 */
uint64_t cli_host_bytes_estimate(const struct sim_run_config *cfg)
{
	const struct scenario_ops *s = cfg->scenario;
	const struct sim_profile *p = cfg->profile;
	uint64_t pages = s->mapped_bytes ? s->mapped_bytes(cfg) >> PAGE_SHIFT : 0;
	uint64_t bytes = CLI_HOST_BYTES_BASE + pages * CLI_HOST_BYTES_PER_PAGE +
			 (pages >> HPAGE_PMD_ORDER) * CLI_HOST_BYTES_PER_PMD;

	if (p && p->mem_overlap) {
		uint64_t cores = p->topology_sockets * p->topology_cores_per_socket;
		uint64_t kib = cores * (p->cache_l1d_kib + p->cache_l2_kib) +
			       p->topology_sockets * p->cache_l3_kib;

		bytes += kib * 1024 / 64 * sizeof(uint64_t);
	}
	return bytes;
}

/* Physical memory of this host, bytes; UINT64_MAX when unknown. */
static uint64_t cli_host_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);

	if (pages <= 0 || size <= 0)
		return UINT64_MAX;
	return (uint64_t)pages * (uint64_t)size;
}

/*
 * What this process may still map under RLIMIT_AS (`ulimit -v`): the limit
 * less what it maps now (/proc/self/statm); UINT64_MAX when unlimited.  A
 * run past it ends in a failed allocation (an abort, or "the run's process
 * died" from the pool) instead of a message.
 */
static uint64_t cli_address_space_left(void)
{
	unsigned long long pages = 0;
	long size = sysconf(_SC_PAGE_SIZE);
	struct rlimit rl;
	FILE *f;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	if (size > 0 && (uint64_t)rl.rlim_cur > pages * (uint64_t)size)
		return (uint64_t)rl.rlim_cur - pages * (uint64_t)size;
	return 0;
}

/**
 * cli_validate() - the scenario's checks of @cfg, then whether it fits
 * @c: the invocation (c->msg gets the error)
 * @cfg: a run's configuration
 *
 * A run whose model state cannot fit in this host's memory, or in the
 * address space RLIMIT_AS leaves this process, would grow until an
 * allocation fails; it is refused before it starts, with the estimate.
 * Return: 0, or 2 with c->msg set.
 */
int cli_validate(struct cli *c, const struct sim_run_config *cfg)
{
	const struct scenario_ops *s = cfg->scenario;
	uint64_t need, have, left;

	if (s->validate && s->validate(cfg, c->msg, sizeof(c->msg)))
		return 2;
	need = cli_host_bytes_estimate(cfg);
	have = cli_host_memory();
	left = cli_address_space_left();
	if (need > left && left < have)
		return cli_fail(c, "the run needs about %.1f GiB of host memory for the model's state (%" PRIu64
				" MiB mapped at once, %zu bytes per page): the address-space limit (ulimit -v) leaves this process %.1f GiB: expected a smaller run or a higher limit",
				(double)need / (double)(1ULL << 30),
				(s->mapped_bytes ? s->mapped_bytes(cfg) : 0) >> 20,
				CLI_HOST_BYTES_PER_PAGE, (double)left / (double)(1ULL << 30));
	if (need > have)
		return cli_fail(c, "the run needs about %.1f GiB of host memory for the model's state (%" PRIu64
				" MiB mapped at once, %zu bytes per page): this host has %.1f GiB: expected a smaller run",
				(double)need / (double)(1ULL << 30),
				(s->mapped_bytes ? s->mapped_bytes(cfg) : 0) >> 20,
				CLI_HOST_BYTES_PER_PAGE, (double)have / (double)(1ULL << 30));
	return 0;
}

/**
 * cli_configure() - the configuration of a run: defaults, --set, checks
 * @c: the invocation
 * @s: the scenario
 * @a: the options
 * @cfg: the result; cfg->profile is left as the caller set it
 *
 * Return: 0, or 2 with c->msg filled.
 */
int cli_configure(struct cli *c, const struct scenario_ops *s,
			 const struct cli_args *a, struct sim_run_config *cfg)
{
	bool given[SIM_MAX_PARAMS] = { false };
	int i, k;

	sim_run_config_init(cfg, s, cfg->profile, a->seed);
	cfg->check = a->check;
	for (k = 0; k < a->nr_sets; k++) {
		i = sim_run_config_set(cfg, a->sets[k], c->msg, sizeof(c->msg));
		if (i < 0)
			return 2;
		if (given[i])
			return cli_fail(c, "--set %s: %s given twice: expected each key once",
					a->sets[k], s->params[i].key);
		given[i] = true;
	}
	return cli_validate(c, cfg);
}

/**
 * cli_select_variants() - the variants to run, in the scenario's order
 * @c: the invocation
 * @s: the scenario
 * @a: the options (--variant)
 * @idx: the result, SIM_MAX_VARIANTS indices into s->variants
 *
 * Return: their count, or -1 with c->msg filled.
 */
int cli_select_variants(struct cli *c, const struct scenario_ops *s,
			       const struct cli_args *a, int *idx)
{
	int i, k, nr = 0;

	for (k = 0; k < a->nr_variants; k++)
		if (sim_scenario_variant_index(s, a->variants[k]) < 0) {
			snprintf(c->msg, sizeof(c->msg),
				 "unknown variant %s for scenario %s: expected one of",
				 a->variants[k], s->name);
			for (i = 0; s->variants[i].name; i++) {
				size_t n = strlen(c->msg);

				snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s", i ? "," : "",
					 s->variants[i].name);
			}
			return -1;
		}
	for (i = 0; s->variants && s->variants[i].name && nr < SIM_MAX_VARIANTS; i++) {
		bool take = !a->nr_variants;

		for (k = 0; k < a->nr_variants; k++)
			take |= !strcmp(a->variants[k], s->variants[i].name);
		if (take)
			idx[nr++] = i;
	}
	if (!nr) {
		snprintf(c->msg, sizeof(c->msg), "scenario %s has no variants", s->name);
		return -1;
	}
	return nr;
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
 * cli_apply_costs() - apply every --cost of @a to the loaded profile @p
 * @c: the invocation (c->msg gets the error)
 * @a: the options
 * @p: the profile
 *
 * Then checks what no single value's range can: that the model can build
 * the profile's TLBs and caches.  Every check is here, in the parent,
 * before any process is forked: a bad value is bad input (exit 2), not a
 * failed run.
 *
 * Return: 0, or 2 with c->msg set.
 */
int cli_apply_costs(struct cli *c, const struct cli_args *a, struct sim_profile *p)
{
	char why[CLI_ERR];
	int k;

	for (k = 0; k < a->nr_costs; k++)
		if (sim_profile_set(p, a->costs[k], why, sizeof(why)))
			return cli_fail(c, "--cost %s", why);
	if (sim_profile_check(p, c->msg, sizeof(c->msg)) ||
	    mm_tlb_check_profile(p, c->msg, sizeof(c->msg)))
		return 2;
	return 0;
}

/*
 * Configure @p for scenario @s from @a: profile, parameters, variants.
 * Returns 0; 2 for bad input or 1 for an internal failure, with c->msg set.
 * cli_prep_release() frees what it allocated, whatever it returned.
 */
int cli_prepare(struct cli *c, const struct scenario_ops *s,
		       const struct cli_args *a, struct cli_prep *p)
{
	const char *pname = a->profile ? a->profile : s->profile;

	memset(p, 0, sizeof(*p));
	p->s = s;
	p->prof = calloc(1, sizeof(*p->prof));
	if (!p->prof)
		return cli_fail(c, "out of memory") - 1;
	if (!pname)
		return cli_fail(c, "scenario %s names no profile: expected --profile NAME|FILE",
				s->name);
	if (sim_profile_load(pname, p->prof, c->msg, sizeof(c->msg)))
		return 2;
	if (cli_apply_costs(c, a, p->prof))
		return 2;
	p->cfg.profile = p->prof;
	if (cli_configure(c, s, a, &p->cfg))
		return 2;
	p->nr = cli_select_variants(c, s, a, p->idx);
	if (p->nr < 0) {
		p->nr = 0;
		return 2;
	}
	if (a->baseline) {
		int i, b = sim_scenario_variant_index(s, a->baseline);

		for (i = 0; b >= 0 && i < p->nr && p->idx[i] != b; i++)
			;
		if (b < 0 || i == p->nr) {
			size_t n = (size_t)snprintf(c->msg, sizeof(c->msg),
						    "--baseline %s: expected one of the variants run:",
						    a->baseline);

			for (i = 0; i < p->nr && n < sizeof(c->msg); i++)
				n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
						      i ? "," : "", s->variants[p->idx[i]].name);
			return 2;
		}
	}
	p->res = calloc((size_t)p->nr, sizeof(*p->res));
	if (!p->res)
		return cli_fail(c, "out of memory") - 1;
	p->functions = a->report_functions;
	return 0;
}

/**
 * cli_run_variant() - run one variant, gathering its --report functions
 * @p: the scenario's configuration (p->functions: gather)
 * @cfg: the run's configuration (p->cfg, or a copy of it)
 * @v: the variant, an index into p->idx
 * @res: its result
 * @err: the run's error
 * @len: size of @err
 *
 * Return: 0, or non-zero with @err set.
 */
int cli_run_variant(const struct cli_prep *p, const struct sim_run_config *cfg, int v,
		    struct sim_variant_result *res, char *err, size_t len)
{
	int rc;

	if (p->functions)
		sim_funcprof_start();
	rc = p->s->run(cfg, p->idx[v], res, err, len);
	if (p->functions) {
		sim_funcprof_stop();
		if (!rc && sim_funcprof_collect(&res->functions)) {
			snprintf(err, len, "out of memory");
			rc = -1;
		}
	}
	return rc;
}

void cli_prep_release(struct cli_prep *p)
{
	free(p->res);
	free(p->prof);
	p->res = NULL;
	p->prof = NULL;
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
void cli_sinks_add_rows(struct cli *c, const struct cli_args *a, struct cli_sinks *k,
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

/*
 * Run the variants of @p that the process pool has not run (all of them,
 * in this process, one after another), then write its report to @k.
 */
static int cli_run_scenario(struct cli *c, struct cli_prep *p,
			    const struct cli_args *a, bool reproduce,
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
	t0 = cli_host_seconds();
	cpu0 = cli_host_cpu_seconds();
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
		if (cli_run_variant(p, &cfg, i, &res[i], err, sizeof(err))) {
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
		p->cpu_s = cli_host_cpu_seconds() - cpu0;
		p->nr_procs = 1;
		p->wall_s = cli_host_seconds() - t0;
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
static int cli_check_outputs(struct cli *c, const struct cli_args *a)
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
		       int nr_scn, const struct cli_args *a, bool reproduce)
{
	struct sim_outfile json_f, csv_f;
	struct cli_prep *prep = NULL;
	struct cli_sinks k;
	int i, ret = 0, nr_runs = 0, nr_seeds;
	uint64_t jobs;

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

	/* --seeds N: N configurations of each scenario, seeds SEED.. SEED+N-1 */
	nr_seeds = (int)a->seeds;
	if (nr_seeds > 1 && (a->trace || a->report_functions)) {
		sim_outfile_abort(&json_f);
		sim_outfile_abort(&csv_f);
		return cli_fail(c, "%s with --seeds %d: expected one seed (--seeds 1)",
				a->trace ? "--trace" : "--report functions", nr_seeds);
	}
	prep = calloc((size_t)nr_scn * (size_t)nr_seeds, sizeof(*prep));
	if (!prep)
		ret = cli_fail(c, "out of memory") - 1;
	for (i = 0; i < nr_scn * nr_seeds && !ret; i++) {
		ret = cli_prepare(c, scn[i / nr_seeds], a, &prep[i]);
		prep[i].cfg.seed = a->seed + (uint64_t)(i % nr_seeds);
		nr_runs += prep[i].nr;
	}
	if (!ret)
		ret = cli_check_outputs(c, a);
	jobs = cli_default_jobs(a, false);
	if (!ret && ((jobs > 1 && nr_runs > 1 && !a->trace) || nr_seeds > 1))
		ret = cli_run_pool(c, prep, nr_scn * nr_seeds, jobs,
				   reproduce ? "reproduce" : "run");
	for (i = 0; i < nr_scn && !ret; i++)
		ret = nr_seeds > 1 ?
		      cli_report_seeds(c, &prep[i * nr_seeds], nr_seeds, a, reproduce, &k) :
		      cli_run_scenario(c, &prep[i], a, reproduce, &k);
	for (i = 0; prep && i < nr_scn * nr_seeds; i++)
		cli_prep_release(&prep[i]);
	free(prep);

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
