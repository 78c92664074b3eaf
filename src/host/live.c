// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: `mmsim live SCENARIO` and `mmsim compare SCENARIO`.
 *
 * Runs an experiment's live workload (scenario_ops.live, in its folder
 * src/experiments/NAME/live.c) on the kernel mmsim runs on and
 * prints the simulator's table for it: one row per contract metric
 * (DESIGN.md section 5), one column "live", each value either measured or
 * "unavailable" with what is missing; then the kernel's counters (deltas
 * of /proc/vmstat, the TLB and CAL rows of /proc/interrupts, mTHP stats,
 * khugepaged's counters) over the run.
 *
 * `compare` is in compare.c, the default host profile in host_profile.c.
 *
 * Mirrors no kernel function.  The order of one run, and what undoes what:
 *
 *   parse options, check requirements   (errors: one line, exit 2)
 *   read settings; --apply writes them  undone by live_settings_restore()
 *   install SIGINT/SIGTERM handlers     undone at the end
 *   snapshot counters; run; snapshot    workload processes: live_kill_all()
 *                                       memory cgroup: live_memcg_destroy()
 *   print
 *
 * Every undo runs on every way out: normal end, signal, a dead workload
 * process, an error.  Only workload processes call _exit().
 */
#include <errno.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host/live.h"
#include "mmsim/counters.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"
#include "host/calibrate.h"
#include "host/live_internal.h"
#include "mmsim/profile.h"

/* A run may use at most this share of MemAvailable. */
#define LIVE_MEM_SHARE_PCT 25

volatile sig_atomic_t live_signal;

static void live_on_signal(int sig)
{
	live_signal = sig;
}

/* The index of the experiment's metric @key; a wrong key is a bug. */
static int live_metric_index(const struct scenario_ops *s, const char *key)
{
	int i = sim_scenario_metric_index(s, key);

	if (i < 0 || i >= SIM_MAX_METRICS) {
		fprintf(stderr, "mmsim: BUG: scenario %s has no metric %s\n", s->name, key);
		abort();
	}
	return i;
}

/**
 * live_set_metric - record a measured metric
 * @r: the run
 * @key: the experiment's metric ("runtime_s")
 * @v: its value, in the metric's unit
 *
 * Context: any.
 */
void live_set_metric(struct live_run *r, const char *key, double v)
{
	struct live_metric_result *m = &r->res->m[live_metric_index(r->cfg->scenario, key)];

	m->available = true;
	m->value = v;
	m->why[0] = '\0';
}

/**
 * live_unavailable - record that a metric cannot be measured here, and why
 * @r: the run
 * @key: the experiment's metric
 * @fmt: what is missing (printf format)
 *
 * Context: any.
 */
void live_unavailable(struct live_run *r, const char *key, const char *fmt, ...)
{
	struct live_metric_result *m = &r->res->m[live_metric_index(r->cfg->scenario, key)];
	va_list ap;

	m->available = false;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

/**
 * live_note - add a line printed under the table
 * @res: the result
 * @fmt: the line (printf format)
 *
 * Context: any.  Lines beyond the eighth are dropped.
 */
void live_note(struct live_result *res, const char *fmt, ...)
{
	va_list ap;

	if (res->nr_notes >= (int)(sizeof(res->notes) / sizeof(res->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(res->notes[res->nr_notes++], sizeof(res->notes[0]), fmt, ap);
	va_end(ap);
}

void live_model_param(struct live_result *res, const char *key, const char *value)
{
	if (res->nr_model_params >= 4)
		return;
	snprintf(res->model_param[res->nr_model_params][0], sizeof(res->model_param[0][0]),
		 "%s", key);
	snprintf(res->model_param[res->nr_model_params][1], sizeof(res->model_param[0][1]),
		 "%s", value);
	res->nr_model_params++;
}

/* ---- counters around the run ---- */

struct live_snapshot {
	struct live_counters vmstat, irq, mthp, khp;
	int vmstat_err, irq_err, mthp_err, khp_err;
};

static void live_snapshot_take(struct live_snapshot *s)
{
	s->vmstat_err = live_read_vmstat(&s->vmstat);
	s->irq_err = live_read_interrupts(&s->irq);
	s->mthp_err = live_read_mthp_stats(&s->mthp);
	s->khp_err = live_read_khugepaged(&s->khp);
}

/* vmstat counters worth printing: those of the paths mmsim models. */
static bool live_vmstat_interesting(const char *name)
{
	static const char *const prefixes[] = {
		"pgfault", "pgmajfault", "thp_", "pgscan_anon", "pgsteal_anon",
		"pswpin", "pswpout", "nr_tlb_", "pgactivate", "pgdeactivate",
		"pgrotated", "workingset_refault_anon", "compact_stall",
		"pgmigrate_success", "oom_kill",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

struct live_deltas {
	struct live_counters vmstat, irq, mthp, khp;
};

static void live_snapshot_delta(const struct live_snapshot *a,
				const struct live_snapshot *b,
				struct live_deltas *d)
{
	live_counters_delta(&a->vmstat, &b->vmstat, &d->vmstat);
	live_counters_delta(&a->irq, &b->irq, &d->irq);
	live_counters_delta(&a->mthp, &b->mthp, &d->mthp);
	live_counters_delta(&a->khp, &b->khp, &d->khp);
}

/*
 * The OOM killer during the run (vmstat oom_kill, system-wide): a workload
 * that lost processes to it measured something the model does not run.
 */
static void live_note_oom_kills(struct live_result *res, const struct live_deltas *d)
{
	uint64_t n;

	if (live_counters_get(&d->vmstat, "oom_kill", &n) && n)
		live_note(res, "the OOM killer took %llu processes during the run (vmstat "
			  "oom_kill; dmesg names them); the model has no OOM killer "
			  "(docs/notes/2026-12-05-oom-kill.md)", (unsigned long long)n);
}

static void live_fill_counter_metrics(struct live_run *r, const struct live_deltas *d)
{
	const struct scenario_ops *s = r->cfg->scenario;

	for (int i = 0; s->metrics[i].key; i++) {
		const char *key = s->metrics[i].key, *c = s->metrics[i].live_counter;
		bool irq = !strcmp(c ? c : "", "TLB") || !strcmp(c ? c : "", "CAL");
		const struct live_counters *src = irq ? &d->irq : &d->vmstat;
		uint64_t v;

		if (!c)
			continue;
		if (live_counters_get(src, c, &v))
			live_set_metric(r, key, (double)v);
		else if (!src->available)
			live_unavailable(r, key, "cannot read %s",
					 irq ? "/proc/interrupts" : "/proc/vmstat");
		else
			live_unavailable(r, key, "this kernel has no %s %s",
					 irq ? "row" : "counter", c);
	}
}

/* ---- output ---- */

static const char *const live_lock_class_names[LIVE_LOCK_NR_CLASSES] = {
	[LIVE_LOCK_OTHER] = "other",
	[LIVE_LOCK_LRUVEC] = "lruvec lock (lruvec->lru_lock)",
	[LIVE_LOCK_DEFERRED_SPLIT] = "deferred split queue lock",
};

/* Tracepoint counts and perf lock's table, or why each is unavailable. */
static void live_print_trace(const struct live_result *res, FILE *out)
{
	const struct live_tracepoints *tp = &res->tp;
	const struct live_locks *l = &res->locks;

	fprintf(out, "\ntracepoints (events over the run, all CPUs):\n");
	for (int i = 0; i < tp->nr; i++) {
		const struct live_tp_count *c = &tp->c[i];

		if (c->ok)
			fprintf(out, "  %-52s %llu\n", c->name,
				(unsigned long long)c->value);
		else
			fprintf(out, "  %-52s unavailable (%s)\n", c->name, c->why);
	}
	if (!res->locks_wanted)
		return;
	if (!l->ok) {
		fprintf(out, "\nlock waits: unavailable (%s)\n", l->why);
		return;
	}
	fprintf(out, "\nlock waits of the workload's tasks, per caller as perf "
		"lock names it:\n");
	fprintf(out, "  %10s %14s %14s  %-10s %s\n", "contended", "total wait s",
		"max wait s", "type", "caller");
	for (int i = 0; i < l->nr; i++)
		fprintf(out, "  %10llu %14.6f %14.6f  %-10s %s\n",
			(unsigned long long)l->row[i].contended,
			l->row[i].wait_total_s, l->row[i].wait_max_s,
			l->row[i].type, l->row[i].caller);
	if (!l->nr)
		fprintf(out, "  (no contended lock)\n");
	for (int k = LIVE_LOCK_LRUVEC; k < LIVE_LOCK_NR_CLASSES; k++)
		fprintf(out, "  summed: %-34s %llu waits, %.6f s\n",
			live_lock_class_names[k],
			(unsigned long long)l->contended[k], l->wait_s[k]);
	fprintf(out, "  counted by: %s\n", l->method);
}

static void live_print_table(const struct scenario_ops *s,
			     const struct live_result *res,
			     const struct live_deltas *d, FILE *out)
{
	fprintf(out, "\n%-28s %16s\n", "metric", "live");
	for (int i = 0; s->metrics[i].key; i++) {
		const struct live_metric_result *m = &res->m[i];

		if (m->available)
			fprintf(out, "%-28s %16.*f\n", s->metrics[i].key,
				s->metrics[i].decimals, m->value);
		else
			fprintf(out, "%-28s %16s  (%s)\n", s->metrics[i].key,
				"unavailable", m->why);
	}
	fprintf(out, "\ncounters (change over the run, kernel names):\n");
	if (!d->vmstat.available)
		fprintf(out, "  /proc/vmstat: unavailable\n");
	for (int i = 0; i < d->vmstat.nr; i++)
		if (d->vmstat.kv[i].value &&
		    live_vmstat_interesting(d->vmstat.kv[i].name))
			fprintf(out, "  %-36s %llu\n", d->vmstat.kv[i].name,
				(unsigned long long)d->vmstat.kv[i].value);
	for (int i = 0; i < 2; i++) {
		static const char *const rows[] = { "TLB", "CAL" };
		static const char *const what[] = { "TLB shootdowns",
			"Function call interrupts" };
		uint64_t v;

		if (live_counters_get(&d->irq, rows[i], &v))
			fprintf(out, "  %-36s %llu\n", what[i], (unsigned long long)v);
		else
			fprintf(out, "  %-36s unavailable (no %s row in "
				"/proc/interrupts)\n", what[i], rows[i]);
	}
	if (!d->mthp.available)
		fprintf(out, "  mTHP stats: unavailable (no %s/hugepages-*/stats; "
			"Linux 6.9 or later)\n", LIVE_THP_DIR);
	for (int i = 0; i < d->mthp.nr; i++)
		if (d->mthp.kv[i].value && !strstr(d->mthp.kv[i].name, "/nr_anon"))
			fprintf(out, "  %-36s %llu\n", d->mthp.kv[i].name,
				(unsigned long long)d->mthp.kv[i].value);
	if (!d->khp.available)
		fprintf(out, "  khugepaged: unavailable\n");
	for (int i = 0; i < d->khp.nr; i++)
		fprintf(out, "  khugepaged/%-25s %llu\n", d->khp.kv[i].name,
			(unsigned long long)d->khp.kv[i].value);
	for (int i = 0; i < res->counters.nr; i++)
		fprintf(out, "  %-36s %llu\n", res->counters.kv[i].name,
			(unsigned long long)res->counters.kv[i].value);
	live_print_trace(res, out);
	for (int i = 0; i < res->nr_notes; i++)
		fprintf(out, "note: %s\n", res->notes[i]);
}

static void live_json_counters(json_t *obj, const struct live_counters *c,
			       const char *prefix)
{
	for (int i = 0; i < c->nr; i++) {
		char key[96];

		snprintf(key, sizeof(key), "%s%s", prefix, c->kv[i].name);
		json_object_set_new(obj, key, json_integer((json_int_t)c->kv[i].value));
	}
}

/*
 * Write @text to @path through the result-file rules (sim_outfile_open():
 * whole or not at all, a device or FIFO written and never replaced).
 */
static int live_write_whole(const char *opt, const char *path,
			    const char *text, char *msg, size_t len)
{
	struct sim_outfile f;

	if (sim_outfile_open(&f, opt, path, stdout, msg, len) ||
	    sim_outfile_commit(&f, text, strlen(text), msg, len))
		return -EIO;
	return 0;
}

static int live_write_json(const char *path, const struct sim_run_config *cfg,
			   const struct live_result *res,
			   const struct live_deltas *d, const struct live_settings *st,
			   bool apply, char *err, size_t errlen)
{
	json_t *root = json_object(), *params = json_object(), *var = json_object();
	json_t *metrics = json_object(), *unavail = json_object();
	json_t *counters = json_object(), *settings = json_object();
	json_t *variants = json_array(), *host = json_object();
	const struct scenario_ops *s = cfg->scenario;
	struct utsname u;
	int ret = 0;

	uname(&u);
	json_object_set_new(root, "mmsim_version", json_string(
#ifdef MMSIM_VERSION
		MMSIM_VERSION
#else
		"dev"
#endif
		));
	json_object_set_new(root, "scenario", json_string(s->name));
	json_object_set_new(root, "profile", json_string("live"));
	json_object_set_new(root, "kernel", json_string(u.release));
	for (int i = 0; s->params[i].key; i++) {
		const struct sim_param *q = &s->params[i];

		if (q->live)
			json_object_set_new(params, q->key, q->type == SIM_PARAM_ENUM ?
					    json_string(q->choices[cfg->params[i]]) :
					    json_integer((json_int_t)cfg->params[i]));
	}
	json_object_set_new(root, "params", params);
	for (int i = 0; s->metrics[i].key; i++) {
		if (res->m[i].available) {
			json_object_set_new(metrics, s->metrics[i].key,
					    json_real(res->m[i].value));
		} else {
			json_object_set_new(metrics, s->metrics[i].key, json_null());
			json_object_set_new(unavail, s->metrics[i].key,
					    json_string(res->m[i].why));
		}
	}
	live_json_counters(counters, &d->vmstat, "");
	live_json_counters(counters, &d->irq, "interrupts/");
	live_json_counters(counters, &d->mthp, "");
	live_json_counters(counters, &d->khp, "khugepaged/");
	live_json_counters(counters, &res->counters, "");
	for (int i = 0; i < res->tp.nr; i++) {
		const struct live_tp_count *c = &res->tp.c[i];

		if (c->ok)
			json_object_set_new(counters, c->name,
					    json_integer((json_int_t)c->value));
		else
			json_object_set_new(unavail, c->name, json_string(c->why));
	}
	if (res->locks_wanted && res->locks.ok) {
		json_t *locks = json_array();

		for (int i = 0; i < res->locks.nr; i++) {
			const struct live_lock_row *lr = &res->locks.row[i];

			json_array_append_new(locks, json_pack("{s:s, s:s, s:I, s:f, s:f}",
				"caller", lr->caller, "type", lr->type,
				"contended", (json_int_t)lr->contended,
				"wait_total_s", lr->wait_total_s,
				"wait_max_s", lr->wait_max_s));
		}
		json_object_set_new(var, "perf_lock_contention", locks);
		json_object_set_new(var, "lock_wait_method",
				    json_string(res->locks.method));
	} else if (res->locks_wanted) {
		json_object_set_new(unavail, "perf_lock_contention",
				    json_string(res->locks.why));
	}
	if (res->funcs_wanted && res->funcs.ok) {
		json_t *fns = json_array();

		for (int i = 0; i < res->funcs.nr; i++) {
			const struct live_func_row *fr = &res->funcs.row[i];

			json_array_append_new(fns, json_pack("{s:s, s:I, s:I}", "function",
				fr->name, "children", (json_int_t)fr->children,
				"self", (json_int_t)fr->self));
		}
		json_object_set_new(var, "functions", fns);
		json_object_set_new(var, "function_samples",
				    json_integer((json_int_t)res->funcs.samples));
		json_object_set_new(var, "functions_method", json_string(res->funcs.method));
	} else if (res->funcs_wanted) {
		json_object_set_new(unavail, "functions", json_string(res->funcs.why));
	}
	for (int i = 0; i < st->nr; i++)
		json_object_set_new(settings, st->s[i].rel, json_string(
			apply && st->s[i].want[0] ? st->s[i].want :
			st->s[i].saved));
	if (res->nr_model_params) {
		json_t *mp = json_object();

		for (int i = 0; i < res->nr_model_params; i++)
			json_object_set_new(mp, res->model_param[i][0],
					    json_string(res->model_param[i][1]));
		json_object_set_new(var, "model_params", mp);
	}
	json_object_set_new(var, "name", json_string("live"));
	json_object_set_new(var, "metrics", metrics);
	json_object_set_new(var, "unavailable", unavail);
	json_object_set_new(var, "counters", counters);
	json_array_append_new(variants, var);
	json_object_set_new(root, "settings", settings);
	json_object_set_new(root, "variants", variants);
	json_object_set_new(host, "wall_seconds", json_real(res->wall_s));
	json_object_set_new(root, "host", host);

	if (!strcmp(path, "-")) {
		json_dumpf(root, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		char *text = json_dumps(root, JSON_INDENT(2));

		if (!text) {
			snprintf(err, errlen, "cannot write %s: out of memory", path);
			ret = -ENOMEM;
		} else {
			ret = live_write_whole("--json", path, text, err, errlen);
			free(text);
		}
	}
	json_decref(root);
	return ret;
}

/* ---- the command ---- */


static void live_usage(const char *cmd, FILE *out)
{
	char def[64];

	fprintf(out, "usage: mmsim %s SCENARIO [--set KEY=VALUE]... [--apply] "
		"[--json FILE] [--report functions]%s\n", cmd,
		strcmp(cmd, "compare") ? "" : " [--profile FILE | --profile-out FILE]");
	fprintf(out, "Runs the scenario's workload on this kernel (docs/live.md)%s.\n",
		strcmp(cmd, "compare") ? "" : ", then simulates it on a profile of "
		"this machine; every parameter of `mmsim show SCENARIO` is taken, "
		"those marked (simulated) by the simulated side only");
	for (int i = 0; sim_scenarios[i]; i++) {
		const struct scenario_ops *s = sim_scenarios[i];

		if (!s->live)
			continue;
		fprintf(out, "  %-16s %s\n", s->name, s->live->summary);
		for (int j = 0; s->params[j].key; j++) {
			const struct sim_param *q = &s->params[j];

			if (!q->live && strcmp(cmd, "compare"))
				continue;
			sim_param_format(q, q->has_live_def ? q->live_def : q->def, def,
					 sizeof(def));
			fprintf(out, "    --set %s=%s\t%s%s\n", q->key, def,
				q->live ? "" : "(simulated) ", q->help ? q->help : "");
		}
	}
	fprintf(out, "  --apply          set the THP/mTHP/khugepaged settings the "
		"experiment needs (reclaim-tlb: zram swap if there is none); "
		"restored at exit\n"
		"  --json FILE      write the results as JSON (\"-\": standard output)\n"
		"  --report functions  also where the workload's CPU time goes, by kernel "
		"function (cpu-clock samples, root; docs/report.md)%s\n",
		strcmp(cmd, "compare") ? "" : ", beside the simulated side's");
	if (!strcmp(cmd, "compare"))
		fprintf(out, "  --profile FILE   simulate on this profile (e.g. one that "
			"`mmsim calibrate` wrote)\n"
			"  --profile-out FILE  calibrate this machine (`mmsim calibrate "
			"--quick`), simulate on it and save it\n");
}

/*
 * The experiment's parameters, from its one table (struct sim_param): live
 * defaults, then each --set through the parser of `mmsim run`.  `live`
 * takes the parameters its workload takes (sim_param.live); `compare`
 * takes every one, the others for its simulated side.  0, or 2 with one
 * line in @msg.
 */
static int live_set_params(struct live_opts *o, const char *const *sets, int nr,
			   bool compare, char *msg, size_t len)
{
	bool *given = o->given;
	const struct scenario_ops *s = o->s;

	memset(o->given, 0, sizeof(o->given));
	sim_run_config_init_live(&o->cfg, s, NULL, 1);
	for (int k = 0; k < nr; k++) {
		int i = sim_run_config_set(&o->cfg, sets[k], msg, len);
		size_t n;

		if (i < 0)
			return 2;
		if (given[i]) {
			snprintf(msg, len, "--set %s: %s given twice", sets[k], s->params[i].key);
			return 2;
		}
		given[i] = true;
		if (compare || s->params[i].live)
			continue;
		n = (size_t)snprintf(msg, len, "--set %s: parameter %s of scenario %s is "
				     "the simulation's alone (mmsim compare takes it): "
				     "live takes one of", sets[k], s->params[i].key, s->name);
		for (int j = 0, c = 0; s->params[j].key && n < len; j++)
			if (s->params[j].live)
				n += (size_t)snprintf(msg + n, len - n, "%s %s", c++ ? "," : "",
						      s->params[j].key);
		return 2;
	}
	return 0;
}

/* Return 0, 1 (help printed) or 2 (error printed). */
int live_parse_args(int argc, char **argv, struct live_opts *o,
			   FILE *out, FILE *err)
{
	const char *cmd = argv[0], *sets[2 * SIM_MAX_PARAMS];
	bool compare = !strcmp(cmd, "compare");
	char msg[1024];
	int i, nr_sets = 0;

	memset(o, 0, sizeof(*o));
	o->compare = compare;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			live_usage(cmd, out);
			return 1;
		}
		if (argv[i][0] != '-')
			break;
	}
	if (argc < 2 || argv[1][0] == '-') {
		sim_scenario_lookup(sim_scenarios, "", true, msg, sizeof(msg));
		fprintf(err, "mmsim: error: %s: expected a scenario:%s\n", cmd,
			strstr(msg, "expected one of") + strlen("expected one of"));
		return 2;
	}
	o->s = sim_scenario_lookup(sim_scenarios, argv[1], true, msg, sizeof(msg));
	if (!o->s) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--apply")) {
			o->apply = true;
		} else if (!strcmp(a, "--json") && i + 1 < argc) {
			o->json = argv[++i];
		} else if (!strcmp(a, "--report") && i + 1 < argc) {
			if (strcmp(argv[i + 1], "functions")) {
				fprintf(err, "mmsim: error: --report %s: expected functions\n",
					argv[i + 1]);
				return 2;
			}
			o->report_functions = true;
			i++;
		} else if (!strcmp(a, "--profile-out") && i + 1 < argc && compare) {
			o->profile_out = argv[++i];
		} else if (!strcmp(a, "--profile") && i + 1 < argc && compare) {
			o->profile = argv[++i];
		} else if (!strcmp(a, "--set") && i + 1 < argc) {
			if (nr_sets == (int)(sizeof(sets) / sizeof(sets[0]))) {
				fprintf(err, "mmsim: error: --set %s: too many --set (at most "
					"%d)\n", argv[i + 1], nr_sets);
				return 2;
			}
			sets[nr_sets++] = argv[++i];
		} else if (i + 1 == argc && !strcmp(a, "--report")) {
			fprintf(err, "mmsim: error: --report: missing value: expected functions "
				"after it\n");
			return 2;
		} else if (i + 1 == argc && (!strcmp(a, "--json") || !strcmp(a, "--set") ||
					     ((!strcmp(a, "--profile-out") ||
					       !strcmp(a, "--profile")) && compare))) {
			fprintf(err, "mmsim: error: %s: missing value: expected %s after it\n", a,
				!strcmp(a, "--set") ? "KEY=VALUE" : "a FILE");
			return 2;
		} else {
			fprintf(err, "mmsim: error: unknown option '%s' for %s: expected --set, "
				"--apply, --json, --report%s (see mmsim %s --help)\n", a, cmd,
				strcmp(cmd, "compare") ? "" : ", --profile, --profile-out", cmd);
			return 2;
		}
	}
	if (live_set_params(o, sets, nr_sets, compare, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	/* every destination is checked before the workload changes anything */
	if ((o->json && sim_outfile_check("--json", o->json, msg, sizeof(msg))) ||
	    (o->profile_out && sim_outfile_check("--profile-out", o->profile_out,
						 msg, sizeof(msg)))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	return 0;
}

static int live_check_memory(const struct live_opts *o, char *msg, size_t len)
{
	struct live_counters *mi = calloc(1, sizeof(*mi));
	uint64_t avail_kb, need = o->s->live->memory_bytes(&o->cfg);
	int ret = 0;

	if (!mi)
		return -ENOMEM;
	live_read_meminfo(mi);
	if (!live_counters_get(mi, "MemAvailable", &avail_kb)) {
		snprintf(msg, len, "cannot read MemAvailable from /proc/meminfo; "
			 "live mode needs it to size the run safely (Linux 3.14 "
			 "or later)");
		ret = -ENOENT;
	} else if (need > avail_kb * 1024 / 100 * LIVE_MEM_SHARE_PCT) {
		snprintf(msg, len, "%s at these parameters needs %llu MiB, more "
			 "than %d%% of MemAvailable (%llu MiB); lower its sizes "
			 "with --set", o->s->name, (unsigned long long)(need >> 20),
			 LIVE_MEM_SHARE_PCT, (unsigned long long)(avail_kb >> 10));
		ret = -ENOMEM;
	}
	free(mi);
	return ret;
}

static void live_print_header(const struct live_opts *o, FILE *out)
{
	struct utsname u;
	char v[32];

	uname(&u);
	fprintf(out, "mmsim live %s on Linux %s (%s), %ld CPUs\n", o->s->name,
		u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(out, "params:");
	for (int i = 0; o->s->params[i].key; i++) {
		if (!o->s->params[i].live)
			continue;
		sim_param_format(&o->s->params[i], o->cfg.params[i], v, sizeof(v));
		fprintf(out, " %s=%s", o->s->params[i].key, v);
	}
	fprintf(out, "\n");
}

/* lruvec_lock_wait_s and deferred_split_lock_wait_s, from perf lock. */
static void live_fill_lock_metrics(struct live_run *r)
{
	const struct scenario_ops *s = r->cfg->scenario;
	const struct live_result *res = r->res;

	static const struct { const char *key; enum live_lock_class cls; } m[] = {
		{ "lruvec_lock_wait_s", LIVE_LOCK_LRUVEC },
		{ "deferred_split_lock_wait_s", LIVE_LOCK_DEFERRED_SPLIT },
	};

	for (int i = 0; s->metrics[i].key; i++)
		for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
			if (strcmp(s->metrics[i].key, m[k].key))
				continue;
			if (!res->locks_wanted)
				live_unavailable(r, m[k].key, "this workload's lock waits are "
						 "not recorded");
			else if (res->locks.ok)
				live_set_metric(r, m[k].key, res->locks.wait_s[m[k].cls]);
			else
				live_unavailable(r, m[k].key, "perf lock contention: %s",
						 res->locks.why);
		}
}

/**
 * live_print_functions - the workload's CPU time by kernel function
 * @f: the samples' table (or why there is none)
 * @out: where to print
 *
 * As `perf report --children` lays it out: a function's share of the
 * workload's samples with it anywhere in the call chain (children) and at
 * its top (self); "[user]" is user mode.
 */
void live_print_functions(const struct live_funcs *f, FILE *out)
{
	if (!f->ok) {
		fprintf(out, "\nfunctions: unavailable (%s)\n", f->why);
		return;
	}
	fprintf(out, "\nfunctions: live (perf report --children of the workload's tasks; %% of "
		"its %llu samples)\n", (unsigned long long)f->samples);
	fprintf(out, "children %%    self %%   samples  function\n");
	for (int i = 0; i < f->nr; i++)
		fprintf(out, "   %6.2f%%   %6.2f%%  %8llu  %s\n",
			f->samples ? 100.0 * (double)f->row[i].children / (double)f->samples : 0,
			f->samples ? 100.0 * (double)f->row[i].self / (double)f->samples : 0,
			(unsigned long long)f->row[i].children, f->row[i].name);
	fprintf(out, "  sampled by: %s\n", f->method);
}

/*
 * Run a scenario live and print its table.  Everything that must be undone
 * is undone here, on every path.  Returns the exit code.
 */
static int live_run_scenario_locked(struct live_opts *o, FILE *out, FILE *err,
				    const struct live_result **resp)
{
	static struct live_settings st;
	static struct live_snapshot before, after;
	static struct live_deltas d;
	static struct live_result res;
	static struct live_tracefs tfs;
	struct live_run r = { .cfg = &o->cfg, .res = &res,
			      .start_pipe = { -1, -1 }, .zram = { .dev = -1 } };
	struct sigaction sa = { .sa_handler = live_on_signal }, old_int, old_term;
	enum live_stop stop;
	char msg[512] = "";
	int ret = 0, code;
	double t0;

	memset(&res, 0, sizeof(res));
	/* first undo what a killed run left: the checks below see the machine */
	if (live_state_recover(err, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	if (o->s->live->check && o->s->live->check(&o->cfg, o->apply, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	if (live_check_memory(o, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	if (live_settings_read(&st) < 0 && o->apply) {
		fprintf(err, "mmsim: error: --apply needs %s, which this kernel "
			"lacks (build it with CONFIG_TRANSPARENT_HUGEPAGE=y)\n",
			LIVE_THP_DIR);
		return 2;
	}
	if (o->s->live->want_settings)
		o->s->live->want_settings(&o->cfg, &st);

	live_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	live_state_note_settings(&st);
	if (o->apply && (ret = live_settings_apply(&st, msg, sizeof(msg)))) {
		live_state_note_settings(&st);
		live_settings_restore(&st, err);
		live_state_note_settings(NULL);
		fprintf(err, "mmsim: error: %s\n", msg);
		code = (ret == -EACCES || ret == -EPERM) ? 2 : 1;
		goto out_signals;
	}
	live_state_note_settings(&st);
	live_print_header(o, out);
	live_settings_print(&st, o->apply, out);
	fflush(out);

	live_tracefs_open(&tfs);
	live_tracepoints_open(&res.tp, &tfs);
	r.apply = o->apply;
	r.tracefs_ok = tfs.available;
	r.record_locks = res.locks_wanted = o->s->live->record_locks;
	r.profile = res.funcs_wanted = o->report_functions;
	r.zram.dev = -1;

	live_guest_prefault(&r);
	live_snapshot_take(&before);
	live_tracepoints_enable(&res.tp);
	t0 = live_now();
	/* every metric unavailable until measured; why, where no run can */
	for (int i = 0; o->s->metrics[i].key; i++)
		live_unavailable(&r, o->s->metrics[i].key, "%s", o->s->metrics[i].no_live ?
				 o->s->metrics[i].no_live : "the workload did not measure it");
	stop = live_signal ? LIVE_STOP_SIGNAL : o->s->live->run(&r);
	res.wall_s = live_now() - t0;
	live_tracepoints_disable(&res.tp);
	live_snapshot_take(&after);
	if (r.record_locks && stop == LIVE_STOP_NONE)
		live_lockrec_stop(&r.lockrec, &res.locks);
	if (r.prof && stop == LIVE_STOP_NONE)
		live_prof_stop(r.prof, &res.funcs);
	else if (r.profile)
		snprintf(res.funcs.why, sizeof(res.funcs.why), "%s",
			 r.prof_why[0] ? r.prof_why : "the workload did not start");

	/* undo, in reverse order of doing */
	live_prof_free(r.prof);
	r.prof = NULL;
	live_lockrec_cleanup(&r.lockrec);
	live_kill_all(&r.kids);
	if (r.start_pipe[0] >= 0)
		close(r.start_pipe[0]);
	if (r.start_pipe[1] >= 0)
		close(r.start_pipe[1]);
	if (live_memcg_destroy(&r.memcg))
		fprintf(err, "mmsim: warning: could not remove memory cgroup "
			"%s; remove it with rmdir\n", r.memcg.path);
	if (r.memcg.subtree_err)
		fprintf(err, "mmsim: warning: could not disable the memory "
			"controller mmsim enabled in %s/cgroup.subtree_control: "
			"%s; disable it with echo -memory > that file\n",
			r.memcg.parent, strerror(r.memcg.subtree_err));
	live_zram_teardown(&r.zram, err);
	live_tracepoints_close(&res.tp);
	live_tracefs_close(&tfs);
	if (live_settings_restore(&st, err))
		stop = stop == LIVE_STOP_NONE ? LIVE_STOP_ERROR : stop;
	live_state_note_settings(NULL);

	/*
	 * A signal after the workload (while perf stopped, the undo ran) or one
	 * that also killed a workload process (the terminal's SIGINT reaches
	 * the whole group) still ends the run as a signal: 128+N, no table.
	 */
	if (live_signal && (stop == LIVE_STOP_NONE || stop == LIVE_STOP_CHILD_DIED))
		stop = LIVE_STOP_SIGNAL;
	switch (stop) {
	case LIVE_STOP_NONE:
		live_snapshot_delta(&before, &after, &d);
		live_fill_counter_metrics(&r, &d);
		live_note_oom_kills(&res, &d);
		live_fill_lock_metrics(&r);
		live_print_table(o->s, &res, &d, out);
		if (res.funcs_wanted && !o->compare)
			live_print_functions(&res.funcs, out);
		fprintf(out, "wall time of the run: %.3f s\n", res.wall_s);
		if (resp)
			*resp = &res;
		code = 0;
		if (o->json && live_write_json(o->json, &o->cfg, &res, &d,
					       &st, o->apply, msg, sizeof(msg))) {
			fprintf(err, "mmsim: error: %s\n", msg);
			code = 1;
		}
		break;
	case LIVE_STOP_SIGNAL:
		fprintf(err, "mmsim: interrupted by %s; workloads stopped%s\n",
			live_signal == SIGINT ? "SIGINT" : "SIGTERM",
			o->apply ? ", settings restored" : "");
		code = 128 + live_signal;
		break;
	case LIVE_STOP_CHILD_DIED:
		fprintf(err, "mmsim: error: %s; run stopped%s\n", r.err,
			o->apply ? ", settings restored" : "");
		code = 1;
		break;
	default:
		fprintf(err, "mmsim: error: %s\n", r.err[0] ? r.err :
			"could not restore every setting");
		code = 1;
		break;
	}
	if (live_signal && code != 128 + live_signal) {	/* while printing the results */
		fprintf(err, "mmsim: interrupted by %s\n", live_signal == SIGINT ? "SIGINT" : "SIGTERM");
		code = 128 + live_signal;
	}
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return code;
}

/**
 * live_run_scenario - run a scenario live and print its table
 * @o: the parsed options
 * @out: where the table goes
 * @err: where errors and warnings go
 * @resp: the results, when the run printed its table (may be NULL)
 *
 * Context: takes the state file's lock (live_state_lock()) for the run;
 * everything the run changes is undone before it returns.
 * Return: the exit code, as live_cmd_main(); 2 when another live run or
 * calibrate holds the lock.
 */
int live_run_scenario(struct live_opts *o, FILE *out, FILE *err,
		      const struct live_result **resp)
{
	char msg[512];
	int code;

	if (live_state_lock(msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	code = live_run_scenario_locked(o, out, err, resp);
	live_state_unlock();
	return code;
}

/**
 * live_cmd_main - `mmsim live SCENARIO [options]`
 * @argc: argument count
 * @argv: arguments; argv[0] is "live"
 * @out: where the table goes
 * @err: where errors go (one line `mmsim: error: ...`)
 *
 * Context: process context; forks workload processes and may create a
 * memory cgroup and change THP settings, all undone before it returns.
 * Return: the exit code: 0, 1 (internal failure, dead workload), 2 (bad
 * input or missing requirement), 128+N after signal N.
 */
int live_cmd_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct live_opts o;
	int ret = live_parse_args(argc, argv, &o, out, err);

	if (ret)
		return ret == 1 ? 0 : ret;
	return live_run_scenario(&o, out, err, NULL);
}
