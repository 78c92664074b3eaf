// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim compare SCENARIO`: the experiment live (live_run_scenario() in
 * live.c), then the simulator on a profile of this machine with the same
 * parameters, in the variant that models the running kernel, side by
 * side: every metric, the kernel's tracepoint counts beside the model's
 * counters, perf lock's waits beside the model's locks, and which
 * differences come from the host (docs/live.md).  Mirrors no kernel
 * function.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/calibrate.h"
#include "host/live.h"
#include "host/live_internal.h"
#include "mmsim/funcprof.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/scenario.h"

/*
 * Run the simulator on the host profile with the live run's parameters.
 * With @dry, only check that it can: when the scenario refuses the host
 * profile (for example too few CPUs), return 3 with the reason in @why;
 * the comparison then shows the live side alone.
 */
/* The live lock recorder's samples, timed here, that the simulated side carries (0: none). */
struct compare_samples {
	double end_ns;		/* lock:contention_end's, in each contended hold */
	double begin_ns;	/* lock:contention_begin's with a call chain, in each wait */
};

static int compare_simulate(const struct live_opts *o, const char *ini,
			    const struct compare_samples *smp, struct sim_variant_result *res,
			    int *variant, bool dry,
			    char *why, size_t whylen, FILE *err)
{
	static struct sim_profile prof;
	const struct scenario_ops *s = o->s;
	struct sim_run_config cfg;
	char msg[256] = "";
	int ret;

	if (sim_profile_parse(ini, "host", &prof, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: host profile: %s\n", msg);
		return 1;
	}
	if (smp->end_ns > 0)	/* the live run's recorder (compare_run()) */
		prof.lock_contention_trace_ns = (uint64_t)(smp->end_ns + 0.5);
	if (smp->begin_ns > 0)	/* and its begin sample, in each wait */
		prof.lock_contention_begin_ns = (uint64_t)(smp->begin_ns + 0.5);
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
	*variant = sim_scenario_mainline(s);
	memset(res, 0, sizeof(*res));
	res->name = s->variants[*variant].name;
	if (o->report_functions)
		sim_funcprof_start();
	ret = s->run(&cfg, *variant, res, msg, sizeof(msg));
	if (o->report_functions) {
		sim_funcprof_stop();
		if (!ret && sim_funcprof_collect(&res->functions)) {
			fprintf(err, "mmsim: error: compare %s: out of memory\n", s->name);
			return 1;
		}
	}
	if (ret) {
		fprintf(err, "mmsim: error: compare %s: the simulation failed: %s\n", s->name, msg);
		return 1;
	}
	/* metrics relative to a baseline: this variant is its own */
	if (s->finish)
		s->finish(&cfg, res, 1);
	return 0;
}

/* The simulated side's row of function @name, or NULL. */
static const struct sim_function_row *compare_sim_function(const struct sim_functions *f,
							   const char *name)
{
	for (int i = 0; i < f->nr; i++)
		if (!f->rows[i].lock_wait && !strcmp(f->rows[i].name, name))
			return &f->rows[i];
	return NULL;
}

/*
 * --report functions: the live run's samples and the simulated side's
 * virtual CPU time, function by function (docs/report.md): the model's
 * functions in its order, then the live run's that the model has not.
 */
static void compare_print_functions(const struct live_funcs *lf,
				    const struct sim_functions *sf, bool has_sim, FILE *out)
{
	double ls = lf->ok && lf->samples ? (double)lf->samples : 0;
	double st = has_sim && sf->cpu_ps ? (double)sf->cpu_ps : 0;
	int shown = 0;

	if (!lf->ok)
		fprintf(out, "\nfunctions: live unavailable (%s)\n", lf->why);
	fprintf(out, "\nfunctions, live and simulated (as perf report --children: %% of the "
		"workload's samples live, of its virtual CPU time simulated)\n");
	fprintf(out, "%-40s %14s %10s %14s %10s\n", "function", "live children", "live self",
		"sim children", "sim self");
	for (int i = 0; has_sim && i < sf->nr && shown < 30; i++) {
		const struct sim_function_row *r = &sf->rows[i];
		char name[64], lc[16] = "-", lsf[16] = "-";

		snprintf(name, sizeof(name), "%s%s", r->lock_wait ? "spin: " : "", r->name);
		for (int j = 0; ls && !r->lock_wait && j < lf->nr; j++)
			if (!strcmp(lf->row[j].name, r->name)) {
				snprintf(lc, sizeof(lc), "%.2f%%", 100.0 * (double)lf->row[j].children / ls);
				snprintf(lsf, sizeof(lsf), "%.2f%%", 100.0 * (double)lf->row[j].self / ls);
			}
		fprintf(out, "%-40s %14s %10s %13.2f%% %9.2f%%\n", name, lc, lsf,
			st ? 100.0 * (double)r->children_ps / st : 0,
			st ? 100.0 * (double)r->self_ps / st : 0);
		shown++;
	}
	for (int j = 0; ls && j < lf->nr && shown < 45; j++) {
		if (has_sim && compare_sim_function(sf, lf->row[j].name))
			continue;
		fprintf(out, "%-40s %13.2f%% %9.2f%% %14s %10s\n", lf->row[j].name,
			100.0 * (double)lf->row[j].children / ls,
			100.0 * (double)lf->row[j].self / ls, "-", "-");
		shown++;
	}
	if (lf->ok)
		fprintf(out, "  live sampled by: %s\n", lf->method);
	fprintf(out, "  a live function with interrupts off is sampled where they are on again "
		"(cpu-clock: an hrtimer), e.g. at _raw_spin_unlock_irqrestore\n");
}

/* The command that runs the simulated side of a comparison by itself. */
static void compare_print_command(const struct live_opts *o, int variant,
				  const struct compare_samples *smp, FILE *out)
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
	if (smp->end_ns > 0)
		fprintf(out, " --cost lock.contention_trace_ns=%.0f", smp->end_ns);
	if (smp->begin_ns > 0)
		fprintf(out, " --cost lock.contention_begin_ns=%.0f", smp->begin_ns);
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


/* The simulated side's profile: 0 the defaults, 1 --profile, 2 calibrated (--profile-out). */
static int compare_profile_kind;

/* Tracepoint counts and lock waits beside the simulator's (@sim may be NULL). */
static void compare_print_trace(const struct live_result *live,
				const struct sim_variant_result *sim,
				const struct compare_samples *smp, FILE *out)
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
	if (smp->end_ns > 0)
		fprintf(out, "- the live run recorded lock waits: its lock:contention_end "
			"sample (%.0f ns, timed here) lengthened each contended hold; the "
			"simulated side carries it (lock.contention_trace_ns).\n", smp->end_ns);
	if (smp->begin_ns > 0)
		fprintf(out, "- and its lock:contention_begin sample with a call chain (%.0f ns), "
			"which each waiter takes before it spins: the simulated side takes it "
			"too (lock.contention_begin_ns).\n", smp->begin_ns);
	fprintf(out, "- tracepoint and /proc counts are system-wide: other "
		"work on this machine adds to them; perf lock counts only the "
		"workload's own tasks.\n");
	if (live_host_is_guest())
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

/* compare_cmd_main() past its options, under the state file's lock. */
static int compare_run(struct live_opts *o, FILE *out, FILE *err)
{
	static char ini[65536];
	static struct sim_variant_result sim;
	const struct live_result *live = NULL;
	const struct scenario_ops *s;
	char msg[512], why[512] = "";
	struct compare_samples smp = { 0, 0 };
	int ret;
	int i, variant = 0;
	bool no_sim;

	compare_profile_kind = o->profile ? 1 : o->profile_out ? 2 : 0;
	if (o->profile) {
		/* the file, with its own includes resolved from its directory */
		char *abs = realpath(o->profile, NULL);

		if (!abs) {
			fprintf(err, "mmsim: error: compare --profile %s: %s\n", o->profile,
				strerror(errno));
			return 2;
		}
		snprintf(ini, sizeof(ini), "include = %s\n", abs);
		free(abs);
	} else if (o->profile_out) {
		/* issue 29: the profile saved is this machine's, calibrated */
		struct sim_outfile pf;

		/* an unwritable FILE fails before anything is measured */
		if (sim_outfile_open(&pf, "--profile-out", o->profile_out, out, msg, sizeof(msg))) {
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
	ret = compare_simulate(o, ini, &smp, &sim, &variant, true, why, sizeof(why), err);
	if (ret && ret != 3)
		return ret;
	no_sim = ret == 3;
	ret = live_run_scenario(o, out, err, &live);
	if (ret)
		return ret;
	/* what the live run found on the machine (model_params), unless a --set named it */
	for (int k = 0; k < live->nr_model_params; k++) {
		int i = sim_scenario_param_index(o->s, live->model_param[k][0]);
		char set[112], m[128];

		if (i < 0 || o->given[i])
			continue;
		snprintf(set, sizeof(set), "%s=%s", live->model_param[k][0],
			 live->model_param[k][1]);
		if (sim_run_config_set(&o->cfg, set, m, sizeof(m)) < 0)
			fprintf(err, "mmsim: warning: %s: %s\n", set, m);
	}
	/*
	 * The lock recorder's lock:contention_end sample is taken with the lock
	 * just acquired: every contended hold of the live run was one sample
	 * longer.  The simulated side carries that sample's cost, timed now as
	 * calibrate's note times it (as validate does; docs/validation.md).
	 */
	if (!no_sim && live->locks_wanted && live->locks.ok) {
		double cost[2], base;

		if (!cal_trace_sample_now(-1, cost, &base, msg, sizeof(msg)) && cost[0] >= 1) {
			smp.end_ns = cost[0];
			smp.begin_ns = cost[1] >= 1 ? cost[1] : 0;
		}
	}
	if (!no_sim) {
		ret = compare_simulate(o, ini, &smp, &sim, &variant, false, why,
				       sizeof(why), err);
		if (ret)
			return ret;
	}
	s = o->s;
	if (no_sim) {
		memset(&sim, 0, sizeof(sim));
		fprintf(out, "\nlive and simulated: the simulated side is "
			"unavailable (%s)\n", why);
	} else {
		fprintf(out, "\nlive and simulated (variant %s, profile %s%s%s):\n",
			s->variants[variant].name, o->profile ? o->profile : "host",
			o->profile_out ? ", calibrated, saved in " : "",
			o->profile_out ? o->profile_out : "");
		compare_print_command(o, variant, &smp, out);
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
	if (o->report_functions)
		compare_print_functions(&live->funcs, &sim.functions, !no_sim, out);
	compare_print_trace(live, no_sim ? NULL : &sim, &smp, out);
	return 0;
}

/**
 * compare_cmd_main - `mmsim compare SCENARIO [options] [--profile-out FILE]`
 * @argc: argument count
 * @argv: arguments; argv[0] is "compare"
 * @out: where the tables go
 * @err: where errors go
 *
 * Runs the scenario live, then the simulator with the same parameters, in
 * the variant that models this kernel (sim_scenario_mainline()), and
 * prints both side by side.  The simulated side's profile: --profile FILE;
 * with --profile-out FILE, this machine calibrated now (`calibrate
 * --quick`) and saved there whole; else the profile "host" (its topology
 * from /sys, the costs it cannot measure from the documented defaults).
 *
 * Context: as live_cmd_main().
 * Return: the exit code, as live_cmd_main().
 */
int compare_cmd_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct live_opts o;
	char msg[512];
	int ret = live_parse_args(argc, argv, &o, out, err);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (o.profile && o.profile_out) {
		fprintf(err, "mmsim: error: compare: --profile and --profile-out: expected "
			"one of them\n");
		return 2;
	}
	/* one lock over the calibration and the live run (live_state_lock()) */
	if (live_state_lock(msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	ret = compare_run(&o, out, err);
	live_state_unlock();
	return ret;
}
