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

#include "live/live.h"
#include "mmsim/counters.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"
#include "host/calibrate.h"
#include "live/live_internal.h"
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

	if (res->nr_notes >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(res->notes[res->nr_notes++], sizeof(res->notes[0]), fmt, ap);
	va_end(ap);
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
		"pgmigrate_success",
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
		fprintf(out, "\nlock waits (perf lock contention): unavailable "
			"(%s)\n", l->why);
		return;
	}
	fprintf(out, "\nlock waits of the workload's tasks (perf lock "
		"contention, per caller as perf names it):\n");
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
	} else if (res->locks_wanted) {
		json_object_set_new(unavail, "perf_lock_contention",
				    json_string(res->locks.why));
	}
	for (int i = 0; i < st->nr; i++)
		json_object_set_new(settings, st->s[i].rel, json_string(
			apply && st->s[i].want[0] ? st->s[i].want :
			st->s[i].saved));
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

struct live_opts {
	const struct scenario_ops *s;	/* the experiment; s->live is its live form */
	struct sim_run_config cfg;	/* its parameters: live defaults, then --set */
	bool apply;
	const char *json;
	const char *profile_out;
	const char *profile;		/* compare: the simulated side's profile */
};

static void live_usage(const char *cmd, FILE *out)
{
	char def[64];

	fprintf(out, "usage: mmsim %s SCENARIO [--set KEY=VALUE]... [--apply] "
		"[--json FILE]%s\n", cmd,
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
		"  --json FILE      write the results as JSON (\"-\": standard output)\n");
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
	bool given[SIM_MAX_PARAMS] = { false };
	const struct scenario_ops *s = o->s;

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
static int live_parse_args(int argc, char **argv, struct live_opts *o,
			   FILE *out, FILE *err)
{
	const char *cmd = argv[0], *sets[2 * SIM_MAX_PARAMS];
	bool compare = !strcmp(cmd, "compare");
	char msg[1024];
	int i, nr_sets = 0;

	memset(o, 0, sizeof(*o));
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
		} else if (i + 1 == argc && (!strcmp(a, "--json") || !strcmp(a, "--set") ||
					     ((!strcmp(a, "--profile-out") ||
					       !strcmp(a, "--profile")) && compare))) {
			fprintf(err, "mmsim: error: %s: missing value: expected %s after it\n", a,
				!strcmp(a, "--set") ? "KEY=VALUE" : "a FILE");
			return 2;
		} else {
			fprintf(err, "mmsim: error: unknown option '%s' for %s: expected --set, "
				"--apply, --json%s (see mmsim %s --help)\n", a, cmd,
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

/*
 * Run a scenario live and print its table.  Everything that must be undone
 * is undone here, on every path.  Returns the exit code.
 */
static int live_run_scenario(struct live_opts *o, FILE *out, FILE *err,
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
	r.zram.dev = -1;

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

	/* undo, in reverse order of doing */
	live_lockrec_cleanup(&r.lockrec);
	live_kill_all(&r.kids);
	if (r.start_pipe[0] >= 0)
		close(r.start_pipe[0]);
	if (r.start_pipe[1] >= 0)
		close(r.start_pipe[1]);
	if (live_memcg_destroy(&r.memcg))
		fprintf(err, "mmsim: warning: could not remove memory cgroup "
			"%s; remove it with rmdir\n", r.memcg.path);
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
		live_fill_lock_metrics(&r);
		live_print_table(o->s, &res, &d, out);
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

/* ---- the host profile ---- */

/* Costs live mode cannot measure: "section.key", value, source. */
static const struct {
	const char *key, *value, *source;
} live_profile_defaults[] = {
	{ "machine.name", "host", "live mode" },
	{ "machine.description", "this machine, from /sys and /proc", "live mode" },
	{ "clock.mhz", "2500", "default: typical x86-64 server clock" },
	{ "sched.quantum_ns", "1000", "default: DESIGN.md section 2 (about 1 us)" },
	{ "sched.context_switch_ns", "1500", "default: lmbench lat_ctx order of magnitude" },
	{ "sched.wakeup_ns", "5000", "default: assumed remote wake-up latency" },
	{ "sched.start_jitter_us", "10", "default: about one thread creation (9 us, Lemire 2020)" },
	{ "sched.slice_us", "3000", "default: CFS/EEVDF base slice 3 ms" },
	{ "sched.smt_throughput_pct", "65", "default: Marr et al., Intel Technology Journal 2002 (+30% for two threads)" },
	{ "sched.fork_us", "100", "default: assumed fork() of a small process" },
	{ "cache.l1_hit_ns", "1", "default: about 4 cycles" },
	{ "cache.smt_transfer_ns", "10", "default: assumed L1/L2 sibling transfer" },
	{ "cache.socket_transfer_ns", "40", "default: Skylake-SP core-to-core, same socket" },
	{ "cache.remote_transfer_ns", "120", "default: Skylake-SP cross-socket transfer" },
	{ "cache.dram_local_ns", "90", "default: typical local DRAM latency" },
	{ "cache.dram_remote_ns", "140", "default: typical remote DRAM latency" },
	{ "cache.l1d_kib", "32", "default: Skylake-class L1D" },
	{ "cache.l1d_ways", "8", "default: Skylake-class L1D" },
	{ "cache.l1d_cycles", "4", "default: Skylake-class L1D" },
	{ "cache.l2_kib", "1024", "default: Skylake-SP L2" },
	{ "cache.l2_ways", "16", "default: Skylake-SP L2" },
	{ "cache.l2_cycles", "14", "default: Skylake-SP L2" },
	{ "cache.l3_kib", "16384", "default: assumed L3 per socket" },
	{ "cache.l3_ways", "16", "default: assumed L3 associativity" },
	{ "cache.l3_cycles", "50", "default: assumed L3 latency" },
	{ "lock.atomic_cycles", "20", "default: Agner Fog, LOCK CMPXCHG on Skylake" },
	{ "lock.pause_cycles", "140", "default: PAUSE on Skylake-SP" },
	{ "ipi.send_ns", "300", "default: assumed x2APIC ICR write and csd queueing" },
	{ "ipi.latency_ns", "1000", "default: assumed IPI delivery" },
	{ "ipi.entry_exit_ns", "500", "default: assumed interrupt entry and exit" },
	{ "tlb.invlpg_ns", "100", "default: assumed INVLPG cost" },
	{ "tlb.flush_all_ns", "300", "default: assumed CR3 write with PCID" },
	{ "tlb.single_page_flush_ceiling", "33", "default: the kernel's tlb_single_page_flush_ceiling" },
	{ "tlb.l1_4k_entries", "64", "default: Skylake L1 dTLB" },
	{ "tlb.l1_4k_ways", "4", "default: Skylake L1 dTLB" },
	{ "tlb.l1_2m_entries", "32", "default: Skylake L1 dTLB" },
	{ "tlb.l1_2m_ways", "4", "default: Skylake L1 dTLB" },
	{ "tlb.stlb_entries", "1536", "default: Skylake STLB" },
	{ "tlb.stlb_ways", "12", "default: Skylake STLB" },
	{ "tlb.stlb_hit_cycles", "9", "default: Skylake STLB hit" },
	{ "tlb.walk_cycles", "30", "default: assumed walk with entries in cache" },
	{ "tlb.walk_dims", "1", "default: native" },
	{ "tlb.page_walkers", "2", "default: Skylake has two page walkers" },
	{ "tlb.pml4_cache_entries", "0", "default: none (sizes not published)" },
	{ "tlb.pdpte_cache_entries", "0", "default: none (sizes not published)" },
	{ "tlb.pde_cache_entries", "0", "default: none (sizes not published)" },
	{ "tlb.ept_page_kib", "2048", "default: QEMU backs guest RAM with THP (overlap model)" },
	{ "mem.zero_gbps", "10", "default: assumed clear_page bandwidth per core" },
	{ "mem.copy_gbps", "8", "default: assumed copy_page bandwidth per core" },
	{ "mem.node_write_gbps", "40", "default: assumed node write bandwidth" },
	{ "mem.loads_per_cycle", "2", "default: two load ports (Skylake)" },
	{ "mem.overlap", "0", "default: the flat access model" },
	{ "mem.walk_fill_buffers", "1", "default: walker loads go through the L1D and its fill buffers" },
	{ "mem.loaded_latency", "none", "default: the idle DRAM latency under any load" },
	{ "mem.node_read_gbps", "40", "default: assumed as the node write bandwidth" },
	{ "mem.upi_links", "0", "default: no inter-socket link limit" },
	{ "mem.upi_mtps", "0", "default: no inter-socket link limit" },
	{ "mem.line_fill_buffers", "0", "default: no per-core lines-in-flight limit" },
	{ "mem.load_buffer_entries", "72", "default: Skylake's load buffer (Intel Opt. manual)" },
	{ "mem.rob_entries", "224", "default: Skylake's reorder buffer (Intel Opt. manual)" },
	{ "mem.stream_gbps", "0", "default: no per-core streaming limit (stress-ng vm passes only)" },
	{ "mem.directory", "0", "default: no memory directory (its DRAM writes are counted only on multi-socket profiles)" },
	{ "mm.fault_entry_ns", "300", "default: assumed exception entry/exit and walk" },
	{ "mm.syscall_ns", "100", "default: assumed syscall entry/exit" },
	{ "mm.list_op_ns", "5", "default: assumed list op in cache" },
	{ "mm.folio_op_ns", "5", "default: assumed folio flag/refcount op" },
	{ "mm.pte_op_ns", "2", "default: assumed PTE access in cache" },
	{ "swap.write_us", "20", "default: assumed NVMe write" },
	{ "swap.read_us", "80", "default: assumed NVMe 4K read" },
	{ "swap.bandwidth_mbps", "2000", "default: assumed NVMe bandwidth" },
	{ "swap.zram_compress_mbps", "650", "default: lzo-rle, zram's default compressor (zstd README lzbench lzo1x -1)" },
	{ "swap.zram_decompress_mbps", "825", "default: lzo-rle, zram's default compressor (zstd README lzbench lzo1x -1)" },
	{ "swap.zram_rate_mhz", "4900", "default: the zstd README's lzbench machine, Core i7-9700K @ 4.9GHz" },
};

/* Every profile field's section and key, from the one list. */
#define LIVE_PROFILE_KEY(sec_, key_, type_, unit_, meaning_) { #sec_, #key_ },
static const char *const live_profile_keys[][2] = {
	PROFILE_FIELDS(LIVE_PROFILE_KEY)
};
#undef LIVE_PROFILE_KEY
#define LIVE_PROFILE_NR_FIELDS \
	((int)(sizeof(live_profile_keys) / sizeof(live_profile_keys[0])))

struct live_topology {
	unsigned sockets, cores, threads, nodes, cpus;
	char mhz[32];
	bool hypervisor;
};

static unsigned live_read_uint(const char *abs, bool *ok)
{
	char path[512], buf[64];

	if (live_sys_path(path, sizeof(path), abs) ||
	    live_read_file(path, buf, sizeof(buf)) <= 0) {
		*ok = false;
		return 0;
	}
	return (unsigned)strtoul(buf, NULL, 10);
}

static void live_read_topology(struct live_topology *t)
{
	static char cpuinfo[1 << 20];
	unsigned long pkg_seen[64] = { 0 };
	unsigned pkgs[1024], cores[1024];
	char path[512], abs[128];
	DIR *dir;
	struct dirent *de;
	int nr = 0;

	memset(t, 0, sizeof(*t));
	for (int cpu = 0; cpu < 1024; cpu++) {
		bool ok = true;

		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
		pkgs[nr] = live_read_uint(abs, &ok);
		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		cores[nr] = live_read_uint(abs, &ok);
		if (!ok)
			continue;
		nr++;
	}
	t->cpus = (unsigned)nr;
	for (int i = 0; i < nr; i++) {
		bool seen = false;

		if (pkgs[i] < 64 * 64 && !(pkg_seen[pkgs[i] / 64] & (1UL << (pkgs[i] % 64)))) {
			pkg_seen[pkgs[i] / 64] |= 1UL << (pkgs[i] % 64);
			t->sockets++;
		}
		for (int j = 0; j < i; j++)
			if (pkgs[j] == pkgs[i] && cores[j] == cores[i])
				seen = true;
		if (!seen)
			t->cores++;
	}
	if (!t->sockets)
		t->sockets = 1;
	t->threads = t->cores ? t->cpus / t->cores : 1;
	if (!t->threads)
		t->threads = 1;
	t->cores = t->cores ? t->cores / t->sockets : 1;
	if (!live_sys_path(path, sizeof(path), "/sys/devices/system/node") &&
	    (dir = opendir(path))) {
		while ((de = readdir(dir)))
			if (!strncmp(de->d_name, "node", 4) &&
			    de->d_name[4] >= '0' && de->d_name[4] <= '9')
				t->nodes++;
		closedir(dir);
	}
	if (!t->nodes)
		t->nodes = 1;
	if (!live_proc_path(path, sizeof(path), "/proc/cpuinfo") &&
	    live_read_file(path, cpuinfo, sizeof(cpuinfo)) > 0) {
		const char *m = strstr(cpuinfo, "cpu MHz");
		const char *f = strstr(cpuinfo, "\nflags");
		const char *fend = f ? strchr(f + 1, '\n') : NULL;
		const char *h = strstr(cpuinfo, " hypervisor");
		double mhz;

		if (m && (m = strchr(m, ':')) && sscanf(m + 1, "%lf", &mhz) == 1)
			snprintf(t->mhz, sizeof(t->mhz), "%.0f", mhz);
		t->hypervisor = h && f && h > f && (!fend || h < fend);
	}
}

/**
 * live_cpu_mhz - this machine's clock, as /proc/cpuinfo's first "cpu MHz"
 *
 * Context: may block.
 * Return: MHz, or 0 when /proc/cpuinfo does not say.
 */
double live_cpu_mhz(void)
{
	struct live_topology t;

	live_read_topology(&t);
	return t.mhz[0] ? strtod(t.mhz, NULL) : 0;
}

/**
 * live_host_profile - the INI text of profile "host", describing this machine
 * @buf: where to write it
 * @len: size of @buf
 *
 * Topology (sockets, cores per socket, threads per core, NUMA nodes) and
 * the clock come from /sys and /proc/cpuinfo; a guest (the "hypervisor"
 * CPU flag) gets two-dimensional page walks.  Every other cost cannot be
 * measured here and is copied from live_profile_defaults, with its source
 * in [sources].  Every key of PROFILE_FIELDS is written.
 *
 * Context: may block.
 * Return: the length written, or -ENOSPC, or -ENOENT when a field has
 * neither a measurement nor a default (a bug: the tests check for it).
 */
int live_host_profile(char *buf, size_t len)
{
	struct live_topology t;
	char measured[8][2][64];
	char sources[LIVE_PROFILE_NR_FIELDS][200];
	int nr_measured = 0, nr_sources = 0;
	const char *section = "";
	size_t used = 0;

	live_read_topology(&t);
#define LIVE_MEASURE(k, fmt, v) do { \
		snprintf(measured[nr_measured][0], 64, "%s", k); \
		snprintf(measured[nr_measured][1], 64, fmt, v); \
		nr_measured++; \
	} while (0)
	LIVE_MEASURE("topology.sockets", "%u", t.sockets);
	LIVE_MEASURE("topology.cores_per_socket", "%u", t.cores);
	LIVE_MEASURE("topology.threads_per_core", "%u", t.threads);
	LIVE_MEASURE("topology.nodes", "%u", t.nodes);
	if (t.mhz[0])
		LIVE_MEASURE("clock.mhz", "%s", t.mhz);
	if (t.hypervisor)
		LIVE_MEASURE("tlb.walk_dims", "%u", 2u);
#undef LIVE_MEASURE

#define LIVE_APPEND(...) do { \
		int n_ = snprintf(buf + used, len - used, __VA_ARGS__); \
		if (n_ < 0 || (size_t)n_ >= len - used) \
			return -ENOSPC; \
		used += (size_t)n_; \
	} while (0)
	LIVE_APPEND("; profile \"host\": written by `mmsim compare` from this "
		    "machine's /sys and /proc\n");
	for (int f = 0; f < LIVE_PROFILE_NR_FIELDS; f++) {
		const char *sec = live_profile_keys[f][0];
		const char *v = NULL;
		char k[96];

		snprintf(k, sizeof(k), "%s.%s", sec, live_profile_keys[f][1]);
		if (strcmp(section, sec)) {
			LIVE_APPEND("\n[%s]\n", sec);
			section = sec;
		}
		for (int i = 0; i < nr_measured && !v; i++) {
			if (strcmp(measured[i][0], k))
				continue;
			v = measured[i][1];
			snprintf(sources[nr_sources++], sizeof(sources[0]),
				 "%s = measured: %s", k,
				 !strncmp(k, "topology", 8) ? "/sys/devices/system" :
				 !strcmp(k, "clock.mhz") ? "/proc/cpuinfo cpu MHz" :
				 "/proc/cpuinfo hypervisor flag (a guest walks "
				 "two dimensions)");
		}
		for (size_t i = 0; !v && i < sizeof(live_profile_defaults) /
		     sizeof(live_profile_defaults[0]); i++) {
			if (strcmp(live_profile_defaults[i].key, k))
				continue;
			v = live_profile_defaults[i].value;
			snprintf(sources[nr_sources++], sizeof(sources[0]),
				 "%s = %s", k, live_profile_defaults[i].source);
		}
		if (!v)
			return -ENOENT;
		LIVE_APPEND("%s = %s\n", live_profile_keys[f][1], v);
	}
	LIVE_APPEND("\n[sources]\n");
	for (int i = 0; i < nr_sources; i++)
		LIVE_APPEND("%s\n", sources[i]);
#undef LIVE_APPEND
	return (int)used;
}


/**
 * compare_cmd_main - `mmsim compare SCENARIO [options] [--profile-out FILE]`
 * @argc: argument count
 * @argv: arguments; argv[0] is "compare"
 * @out: where the tables go
 * @err: where errors go
 *
 * Runs the scenario live and prints its table; for the simulated side it
 * prints the profile "host" of this machine (or writes it to --profile-out
 * FILE, whole, through a temporary file and rename) and the command that
 * runs the simulator on it.
 *
 * Context: as live_cmd_main().
 * Return: the exit code, as live_cmd_main().
 */
/*
 * The simulator's variant that models the kernel that runs here: the
 * experiment's mainline variant (deferred-split: `unqueued`), else its
 * baseline.
 */
static int compare_variant(const struct scenario_ops *s)
{
	int v = s->mainline ? sim_scenario_variant_index(s, s->mainline) : -1;

	if (v < 0 && s->baseline)
		v = sim_scenario_variant_index(s, s->baseline);
	return v < 0 ? 0 : v;
}

/*
 * Run the simulator on the host profile with the live run's parameters.
 * With @dry, only check that it can: when the scenario refuses the host
 * profile (for example too few CPUs), return 3 with the reason in @why;
 * the comparison then shows the live side alone.
 */
static int compare_simulate(const struct live_opts *o, const char *ini,
			    struct sim_variant_result *res, int *variant, bool dry,
			    char *why, size_t whylen, FILE *err)
{
	static struct sim_profile prof;
	const struct scenario_ops *s = o->s;
	struct sim_run_config cfg;
	char msg[256] = "";

	if (sim_profile_parse(ini, "host", &prof, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: host profile: %s\n", msg);
		return 1;
	}
	/* every parameter as the live run took it, the others as --set gave them */
	cfg = o->cfg;
	cfg.profile = &prof;
	if (s->validate && s->validate(&cfg, msg, sizeof(msg))) {
		snprintf(why, whylen, "the simulator's %s refuses the host "
			 "profile: %s", s->name, msg);
		return 3;
	}
	if (dry)
		return 0;
	*variant = compare_variant(s);
	memset(res, 0, sizeof(*res));
	res->name = s->variants[*variant].name;
	if (s->run(&cfg, *variant, res, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: compare %s: the simulation failed: %s\n", s->name, msg);
		return 1;
	}
	/* metrics relative to a baseline: this variant is its own */
	if (s->finish)
		s->finish(&cfg, res, 1);
	return 0;
}

/* The command that runs the simulated side of a comparison by itself. */
static void compare_print_command(const struct live_opts *o, int variant, FILE *out)
{
	const struct scenario_ops *s = o->s;
	char v[64];

	fprintf(out, "simulated side%s: mmsim run %s --profile %s --variant %s",
		o->profile || o->profile_out ? "" :
		" (FILE: the host profile, which --profile-out FILE saves)", s->name,
		o->profile ? o->profile : o->profile_out ? o->profile_out : "FILE",
		s->variants[variant].name);
	for (int i = 0; s->params[i].key; i++) {
		sim_param_format(&s->params[i], o->cfg.params[i], v, sizeof(v));
		fprintf(out, " --set %s=%s", s->params[i].key, v);
	}
	fprintf(out, "\n");
}

/*
 * What live mode measures with the kernel's tools, and the simulator's
 * counter of the same event: a tracepoint (summed over the names given),
 * a khugepaged sysfs counter, or a lock class of perf lock.
 */
static const struct {
	const char *what;		/* the row's name */
	const char *live[2];		/* tracepoint counters summed */
	const char *sim;		/* sim_counter_names[] entry */
} compare_rows[] = {
	{ "remote TLB flushes sent", { "tlb:tlb_flush[remote IPI send]" },
	  "nr_tlb_remote_flush" },
	{ "remote TLB flushes received", { "tlb:tlb_flush[remote shootdown]" },
	  "nr_tlb_remote_flush_received" },
	{ "IPIs sent", { "ipi:ipi_send_cpu", "ipi:ipi_send_cpumask" },
	  "sim_ipis_sent" },
	{ "memcg reclaim calls", { "vmscan:mm_vmscan_memcg_reclaim_begin" },
	  "sim_memcg_reclaim_calls" },
	{ "scan_pmd succeeded", { "huge_memory:mm_khugepaged_scan_pmd[succeeded]" },
	  "sim_scan_pmd_succeeded" },
	{ "scan_pmd pmd_none", { "huge_memory:mm_khugepaged_scan_pmd[pmd_none]" },
	  "sim_scan_pmd_pmd_none" },
	{ "scan_pmd page_pmd_mapped",
	  { "huge_memory:mm_khugepaged_scan_pmd[page_pmd_mapped]" },
	  "sim_scan_pmd_page_pmd_mapped" },
	{ "scan_pmd exceed_none_pte",
	  { "huge_memory:mm_khugepaged_scan_pmd[exceed_none_pte]" },
	  "sim_scan_pmd_exceed_none_pte" },
	{ "scan_pmd lack_referenced_page",
	  { "huge_memory:mm_khugepaged_scan_pmd[lack_referenced_page]" },
	  "sim_scan_pmd_lack_referenced_page" },
	{ "scan_pmd not_suitable_page_count",
	  { "huge_memory:mm_khugepaged_scan_pmd[not_suitable_page_count]" },
	  "sim_scan_pmd_not_suitable_page_count" },
};

static int compare_sim_counter(const char *name)
{
	for (int c = 0; c < NR_SIM_COUNTERS; c++)
		if (!strcmp(sim_counter_names[c], name))
			return c;
	return -1;
}

/* The simulator's wait on its lock of one perf lock class. */
static bool compare_sim_lock(const struct sim_variant_result *sim,
			     enum live_lock_class cls, double *wait_s)
{
	const char *name = cls == LIVE_LOCK_LRUVEC ? "lru_lock" : "deferred_split";
	bool found = false;

	*wait_s = 0;
	for (int i = 0; i < sim->nr_locks; i++)
		if (strstr(sim->locks[i].name, name)) {
			*wait_s += sim->locks[i].wait_total_s;
			found = true;
		}
	return found;
}

static bool compare_is_guest(void)
{
	struct live_topology t;

	live_read_topology(&t);
	return t.hypervisor;
}

/* The simulated side's profile: 0 the defaults, 1 --profile, 2 calibrated (--profile-out). */
static int compare_profile_kind;

/* Tracepoint counts and lock waits beside the simulator's (@sim may be NULL). */
static void compare_print_trace(const struct live_result *live,
				const struct sim_variant_result *sim, FILE *out)
{
	uint64_t sent = 0, recv = 0;
	bool have_sent = false, have_recv = false;

	fprintf(out, "\nkernel tools and the simulator's counters:\n");
	fprintf(out, "%-36s %16s %16s\n", "event", "live", "simulated");
	for (size_t i = 0; i < sizeof(compare_rows) / sizeof(compare_rows[0]); i++) {
		int c = compare_sim_counter(compare_rows[i].sim);
		char lv[220] = "", sv[32] = "-";
		uint64_t sum = 0;
		bool ok = true;

		for (int k = 0; k < 2 && compare_rows[i].live[k]; k++) {
			const struct live_tp_count *tc;
			uint64_t v;

			tc = live_tracepoints_get(&live->tp, compare_rows[i].live[k], &v);
			if (!tc || !tc->ok) {
				ok = false;
				snprintf(lv, sizeof(lv), "unavailable (%s)",
					 tc ? tc->why : "no such tracepoint value "
					 "in this kernel");
				break;
			}
			sum += v;
		}
		if (ok)
			snprintf(lv, sizeof(lv), "%llu", (unsigned long long)sum);
		if (sim && c >= 0)
			snprintf(sv, sizeof(sv), "%llu",
				 (unsigned long long)sim->counters[c]);
		fprintf(out, "%-36s %16s %16s\n", compare_rows[i].what, ok ? lv : "unavailable", sv);
		if (!ok)
			fprintf(out, "    (%s)\n", lv);
		if (i == 0) {
			have_sent = ok;
			sent = sum;
		}
		if (i == 1) {
			have_recv = ok;
			recv = sum;
		}
	}
	if (live->locks_wanted) {
		for (int k = LIVE_LOCK_LRUVEC; k < LIVE_LOCK_NR_CLASSES; k++) {
			char lv[32] = "unavailable", sv[32] = "-";
			double w;

			if (live->locks.ok)
				snprintf(lv, sizeof(lv), "%.6f", live->locks.wait_s[k]);
			if (sim && compare_sim_lock(sim, (enum live_lock_class)k, &w))
				snprintf(sv, sizeof(sv), "%.6f", w);
			fprintf(out, "%-36s %16s %16s\n", k == LIVE_LOCK_LRUVEC ?
				"lruvec lock wait (s)" : "deferred split lock wait (s)",
				lv, sv);
		}
	}
	fprintf(out, "\nwhere the differences come from the host:\n");
	fprintf(out, "- tracepoint and /proc counts are system-wide: other "
		"work on this machine adds to them; perf lock counts only the "
		"workload's own tasks.\n");
	if (compare_is_guest())
		fprintf(out, "- this machine is a guest (the 'hypervisor' CPU "
			"flag): a paravirtualised guest flushes remote TLBs "
			"through the hypervisor (KVM: kvm_flush_tlb_multi() "
			"leaves preempted vCPUs to be flushed at their next "
			"entry), so the flushes received (and /proc/interrupts "
			"\"TLB shootdowns\") count fewer events than a bare-metal "
			"kernel%s; and a vCPU preempted by the host lengthens "
			"lock waits.\n", have_sent && have_recv && sent && !recv ?
			" (here: flushes were sent and none was received in the "
			"TLB IPI handler)" : "");
	if (compare_profile_kind == 0)
		fprintf(out, "- the simulated side runs the host profile: its topology "
			"and clock are this machine's, its costs the documented "
			"defaults (docs/live.md), not measurements of this machine; "
			"--profile-out FILE calibrates them (docs/calibrate.md).\n");
	else
		fprintf(out, "- the simulated side runs %s: each key's source says "
			"whether it was measured here (`mmsim profiles FILE`).\n",
			compare_profile_kind == 1 ? "the profile given" :
			"this machine's calibrated profile");
}

/**
 * compare_cmd_main - `mmsim compare SCENARIO [options] [--profile-out FILE]`
 * @argc: argument count
 * @argv: arguments; argv[0] is "compare"
 * @out: where the tables go
 * @err: where errors go
 *
 * Runs the scenario live, then the simulator on the profile "host" of this
 * machine (its topology from /sys; the costs it cannot measure from the
 * documented defaults) with the same parameters, in the variant that
 * models this kernel, and prints both side by side.  --profile-out FILE
 * saves the host profile (whole, through a temporary file and rename).
 *
 * Context: as live_cmd_main().
 * Return: the exit code, as live_cmd_main().
 */
int compare_cmd_main(int argc, char **argv, FILE *out, FILE *err)
{
	static char ini[65536];
	static struct sim_variant_result sim;
	const struct live_result *live = NULL;
	const struct scenario_ops *s;
	struct live_opts o;
	char msg[512], why[512] = "";
	int ret = live_parse_args(argc, argv, &o, out, err);
	int i, variant = 0;
	bool no_sim;

	if (ret)
		return ret == 1 ? 0 : ret;
	if (o.profile && o.profile_out) {
		fprintf(err, "mmsim: error: compare: --profile and --profile-out: expected "
			"one of them\n");
		return 2;
	}
	compare_profile_kind = o.profile ? 1 : o.profile_out ? 2 : 0;
	if (o.profile) {
		/* the file, with its own includes resolved from its directory */
		char *abs = realpath(o.profile, NULL);

		if (!abs) {
			fprintf(err, "mmsim: error: compare --profile %s: %s\n", o.profile,
				strerror(errno));
			return 2;
		}
		snprintf(ini, sizeof(ini), "include = %s\n", abs);
		free(abs);
	} else if (o.profile_out) {
		/* issue 29: the profile saved is this machine's, calibrated */
		struct sim_outfile pf;

		/* an unwritable FILE fails before anything is measured */
		if (sim_outfile_open(&pf, "--profile-out", o.profile_out, out, msg, sizeof(msg))) {
			fprintf(err, "mmsim: error: %s\n", msg);
			return 2;
		}
		if (calibrate_profile_text(true, err, ini, sizeof(ini), msg, sizeof(msg)) < 0 ||
		    sim_outfile_commit(&pf, ini, strlen(ini), msg, sizeof(msg))) {
			sim_outfile_abort(&pf);
			fprintf(err, "mmsim: error: %s\n", msg);
			return 2;
		}
		sim_outfile_abort(&pf);
	} else if (live_host_profile(ini, sizeof(ini)) < 0) {
		fprintf(err, "mmsim: error: cannot build the host profile\n");
		return 1;
	}
	ret = compare_simulate(&o, ini, &sim, &variant, true, why, sizeof(why), err);
	if (ret && ret != 3)
		return ret;
	no_sim = ret == 3;
	ret = live_run_scenario(&o, out, err, &live);
	if (ret)
		return ret;
	if (!no_sim) {
		ret = compare_simulate(&o, ini, &sim, &variant, false, why,
				       sizeof(why), err);
		if (ret)
			return ret;
	}
	s = o.s;
	if (no_sim) {
		memset(&sim, 0, sizeof(sim));
		fprintf(out, "\nlive and simulated: the simulated side is "
			"unavailable (%s)\n", why);
	} else {
		fprintf(out, "\nlive and simulated (variant %s, profile %s%s%s):\n",
			s->variants[variant].name, o.profile ? o.profile : "host",
			o.profile_out ? ", calibrated, saved in " : "",
			o.profile_out ? o.profile_out : "");
		compare_print_command(&o, variant, out);
	}
	fprintf(out, "%-28s %16s %16s %10s\n", "metric", "live", "simulated", "sim/live");
	for (i = 0; s->metrics[i].key; i++) {
		const struct sim_metric *m = &s->metrics[i];
		bool has_sim = !no_sim && sim.has_metric[i];
		char lv[32] = "unavailable", sv[32] = "-", ratio[16] = "-";

		if (live->m[i].available)
			snprintf(lv, sizeof(lv), "%.*f", m->decimals, live->m[i].value);
		if (has_sim)
			snprintf(sv, sizeof(sv), "%.*f", m->decimals, sim.metrics[i]);
		if (has_sim && live->m[i].available && live->m[i].value != 0)
			snprintf(ratio, sizeof(ratio), "%.2f", sim.metrics[i] / live->m[i].value);
		fprintf(out, "%-28s %16s %16s %10s\n", m->key, lv, sv, ratio);
		if (!live->m[i].available)
			fprintf(out, "    (live: %s)\n", live->m[i].why);
		if (!no_sim && !has_sim)
			fprintf(out, "    (simulated: the %s variant alone does not give it)\n",
				s->variants[variant].name);
	}
	compare_print_trace(live, no_sim ? NULL : &sim, out);
	return 0;
}
