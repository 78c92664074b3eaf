// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the fit of `mmsim calibrate` (src/host/calibrate_fit.c): the
 * model's kernel-internal costs solved from single-thread paths.
 *
 * The targets are the model's own rounds at known costs, so that the test
 * does not depend on this machine: a fitted cost must make the model's
 * single-thread run reproduce the measurement it came from, and predict
 * the size it was not fitted on.
 *
 * And the topology (src/host/topology.c): calibrate and live mode's
 * profile "host" read one fake /sys and /proc/cpuinfo with one reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "host/calibrate.h"
#include "host/topology.h"
#include "host/live_internal.h"
#include "mmsim/profile.h"
#include "mmsim/counters.h"
#include "mmsim/scenario.h"
#include "mmsim/workload.h"

#define REGION (2ULL << 20)

/* Every form the fit knows: the rounds of each size, and the per-page paths. */
static int all_forms(struct cal_form *f)
{
	int n = 0;

	for (int o = 0; o < CAL_NR_ORDERS; o++)
		for (int d = 0; d < 2; d++)
			f[n++] = (struct cal_form){ .kind = d ? CAL_FORM_DONTNEED : CAL_FORM_MUNMAP,
						    .kib = cal_fault_kib[o], .fit = o < 2 };
	f[n++] = (struct cal_form){ .kind = CAL_FORM_SHMEM_READ, .fit = true };
	f[n++] = (struct cal_form){ .kind = CAL_FORM_SHMEM_WRITE, .fit = false };
	f[n++] = (struct cal_form){ .kind = CAL_FORM_COW, .fit = true };
	return n;
}

/* The model's time of each form at costs @x, into @out[]. */
static void model_forms(const struct sim_profile *base, const double x[CAL_FIT_NR],
			const struct cal_form *f, int n, double *out)
{
	struct sim_profile *p = malloc(sizeof(*p));
	char err[256];

	assert_non_null(p);
	*p = *base;
	p->mm_fault_entry_ns = (uint64_t)x[0];
	p->mm_pte_op_ns = (uint64_t)x[1];
	p->mm_folio_op_ns = (uint64_t)x[2];
	p->mm_list_op_ns = (uint64_t)x[3];
	for (int i = 0; i < n; i++)
		if (cal_model_form_ns(p, REGION, &f[i], &out[i], err, sizeof(err)))
			fail_msg("form %d: %s", i, err);
	free(p);
}

/* The builtin profile the fit tests start from (calloc()ed: free() it). */
static struct sim_profile *kvm_profile(void)
{
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[256];

	assert_non_null(p);
	if (sim_profile_load("desktop-kvm", p, err, sizeof(err)))
		fail_msg("%s", err);
	return p;
}

/*
 * Fitted on the 4K and 16K rounds, the tmpfs read fault and the
 * copy-on-write fault: the model reproduces them, and predicts the 64K
 * rounds and the tmpfs write fault, which it was not fitted on.
 */
static void test_fit_reproduces_its_measurement(void **state)
{
	/*
	 * mm.list_op_ns moves these forms little since the LRU's own work is
	 * mm.lru_add_ns and lru_del_ns (measured, not fitted), and
	 * mm.folio_op_ns and mm.pte_op_ns since an unmap's PTE clearing, rmap
	 * removal, uncharge and free are measured keys too: the fit's pull holds
	 * the three near the builtin's (3, 6 and 2), so the truth has those
	 * values, and the fit finds the fault's fixed cost.
	 */
	static const double truth[CAL_FIT_NR] = { 900, 2, 6, 3 };
	struct sim_profile *p = kvm_profile();
	struct cal_form f[CAL_MAX_FORMS];
	double target[CAL_MAX_FORMS], check[CAL_MAX_FORMS], x[CAL_FIT_NR];
	char err[256], name[64];
	int n, nr;

	(void)state;
	n = all_forms(f);
	model_forms(p, truth, f, n, target);
	for (int i = 0; i < n; i++)
		f[i].target = target[i];
	nr = cal_fit_solve(p, REGION, f, n, x, err, sizeof(err));
	assert_int_equal(nr, 6);
	for (int i = 0; i < n; i++) {
		double e = fabs(f[i].model / f[i].target - 1);

		/* 1% where fitted, 5% where held out */
		if (e > (f[i].fit ? 0.01 : 0.05))
			fail_msg("%s: model %.0f ns, target %.0f ns",
				 cal_form_name(&f[i], name, sizeof(name)), f[i].model, f[i].target);
	}
	/* and the profile with the fitted costs, run again, gives the same */
	for (int k = 0; k < CAL_FIT_NR; k++)
		x[k] = floor(x[k] + 0.5);
	model_forms(p, x, f, n, check);
	for (int i = 0; i < n; i++)
		if (fabs(check[i] / target[i] - 1) > (f[i].fit ? 0.02 : 0.05))
			fail_msg("%s: rerun %.0f ns, target %.0f ns",
				 cal_form_name(&f[i], name, sizeof(name)), check[i], target[i]);
	free(p);
}

/*
 * The per-page forms are the path's time per page, the workload's loop
 * alone: one more fault cost per page adds that cost once per page (the
 * copy-on-write form's parent faults its pages in before the fork, and
 * that is not the child's loop).
 */
static void test_form_is_per_page_loop(void **state)
{
	struct sim_profile *p = kvm_profile();
	struct cal_form f[CAL_MAX_FORMS];
	double lo[CAL_MAX_FORMS], hi[CAL_MAX_FORMS];
	static const double a[CAL_FIT_NR] = { 500, 4, 11, 6 }, b[CAL_FIT_NR] = { 1500, 4, 11, 6 };
	int n;

	(void)state;
	n = all_forms(f);
	model_forms(p, a, f, n, lo);
	model_forms(p, b, f, n, hi);
	for (int i = 0; i < n; i++)
		if (f[i].kind >= CAL_FORM_SHMEM_READ && fabs(hi[i] - lo[i] - 1000) > 20)
			fail_msg("form %d: +1000 ns a fault gives %+.0f ns a page", i, hi[i] - lo[i]);
	free(p);
}

/*
 * The copy-on-write form copies: the parent, whose pages the child shares,
 * waits for the child (as usemem's parent and the live executor do), so
 * each of the child's stores allocates a page for its copy.  A parent that
 * exited first left the child its pages to reuse, and nothing was copied.
 */
static void test_cow_form_copies(void **state)
{
	const struct scenario_ops *s;
	struct sim_profile *p = kvm_profile();
	struct sim_variant_result *res = calloc(1, sizeof(*res));
	struct sim_run_config cfg;
	char err[256];

	(void)state;
	assert_non_null(res);
	s = workload_scenario("calibrate-cow", err, sizeof(err));
	assert_non_null(s);
	sim_run_config_init(&cfg, s, p, 1);
	assert_true(sim_run_config_set(&cfg, "size=1M", err, sizeof(err)) >= 0);
	res->name = s->variants[0].name;
	if (s->run(&cfg, 0, res, err, sizeof(err)))
		fail_msg("%s", err);
	/* 256 pages filled by the parent, 256 copies by the child */
	assert_int_equal(res->counters[SIM_PGALLOC_NORMAL], 512);
	assert_int_equal(res->counters[SIM_PGFAULT], 512);
	free(res);
	free(p);
}

/* A target the model cannot reach with non-negative costs: every cost stays >= 0. */
static void test_fit_keeps_costs_non_negative(void **state)
{
	static const double zero[CAL_FIT_NR] = { 0, 0, 0, 0 };
	struct sim_profile *p = kvm_profile();
	struct cal_form f[CAL_MAX_FORMS];
	double target[CAL_MAX_FORMS], x[CAL_FIT_NR];
	char err[256];
	int n;

	(void)state;
	n = all_forms(f);
	model_forms(p, zero, f, n, target);
	for (int i = 0; i < n; i++)
		f[i].target = target[i] / 2;	/* faster than the model with every cost 0 */
	assert_true(cal_fit_solve(p, REGION, f, n, x, err, sizeof(err)) > 0);
	for (int k = 0; k < CAL_FIT_NR; k++)
		assert_true(x[k] >= 0);
	free(p);
}

/* The live targets: a round is its folios' faults and unmaps, plus the mapping. */
static void test_fit_targets(void **state)
{
	struct cal_paths m = { .region = 1 << 20 };
	double t[2];

	(void)state;
	m.fault[1] = (struct cal_path){ 2000, 5 };
	m.munmap[1] = (struct cal_path){ 300, 5 };
	m.dontneed[1] = (struct cal_path){ 250, 5 };
	m.mmap_ns = (struct cal_path){ 4000, 5 };
	cal_fit_targets(&m, 1, t);
	assert_true(fabs(t[0] - (64 * 2300.0 + 4000)) < 1e-6);	/* 1M of 16K folios */
	assert_true(fabs(t[1] - 64 * 2250.0) < 1e-6);
	cal_fit_targets(&m, 2, t);				/* not timed */
	assert_true(t[0] == 0 && t[1] == 0);
}

/*
 * A calibrated profile includes a builtin and sets measured keys: the
 * include's [ranges] row of a key set again goes (a measured value is no
 * assumption); the other rows stay.
 */
static void test_include_drops_ranges_of_keys_set_again(void **state)
{
	static const char text[] =
		"include = desktop-kvm\n"
		"[mm]\n"
		"list_op_ns = 9\n"
		"[sources]\n"
		"mm.list_op_ns = measured: a test, median of 3 runs, spread 8-10 ns, 2026-12-04\n";
	struct sim_profile *p = calloc(1, sizeof(*p)), *base = calloc(1, sizeof(*base));
	char err[256];
	bool list = false, pte = false;

	(void)state;
	assert_non_null(p);
	assert_non_null(base);
	assert_int_equal(sim_profile_load("desktop-kvm", base, err, sizeof(err)), 0);
	if (sim_profile_parse(text, "calibrated", p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(p->mm_list_op_ns, 9);
	for (int i = 0; i < p->nr_ranges; i++) {
		list |= !strcmp(p->ranges[i].key, "mm.list_op_ns");
		pte |= !strcmp(p->ranges[i].key, "mm.pte_op_ns");
	}
	assert_false(list);
	assert_true(pte);
	assert_int_equal(p->nr_ranges, base->nr_ranges - 1);
	free(p);
	free(base);
}

static void fake_write(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A fake machine: 2 packages x 2 cores x 2 threads (cpu0-7, cpu0 and cpu1
 * one core), cpu9 without its core_id (offline: not counted), nodes 0 and
 * 1 (and "possible", which is not a node), a guest at 2345.678 MHz.
 *
 *   cpu  0 1 2 3 | 4 5 6 7
 *   pkg  0 0 0 0 | 1 1 1 1
 *   core 0 0 1 1 | 0 0 1 1
 */
static void test_topology_one_reader(void **state)
{
	static struct host_topology t;
	static char ini[16384];
	char root[64], abs[128], v[16], cmd[128];
	struct cal_run *r = calloc(1, sizeof(*r));
	cpu_set_t two, mine;

	(void)state;
	assert_non_null(r);
	snprintf(root, sizeof(root), "/tmp/mmsim-test-topology-%d", (int)getpid());
	for (int cpu = 0; cpu < 8; cpu++) {
		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/topology/"
			 "physical_package_id", cpu);
		snprintf(v, sizeof(v), "%d\n", cpu / 4);
		fake_write(root, abs, v);
		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		snprintf(v, sizeof(v), "%d\n", cpu % 4 / 2);
		fake_write(root, abs, v);
	}
	fake_write(root, "/sys/devices/system/cpu/cpu9/topology/physical_package_id", "0\n");
	fake_write(root, "/sys/devices/system/node/node0/x", "");
	fake_write(root, "/sys/devices/system/node/node1/x", "");
	fake_write(root, "/sys/devices/system/node/possible", "0-1\n");
	fake_write(root, "/proc/cpuinfo", "processor\t: 0\nmodel name\t: Fake CPU 9000\n"
		   "cpu MHz\t\t: 2345.678\nflags\t\t: fpu sse hypervisor avx\n\n"
		   "processor\t: 1\nmodel name\t: Other\ncpu MHz\t\t: 1000.000\n");
	setenv("MMSIM_LIVE_PROC_ROOT", root, 1);

	assert_int_equal(host_topology_read(&t, root, NULL), 0);
	assert_int_equal(t.nr_cpus, 8);
	assert_int_equal(t.sockets, 2);
	assert_int_equal(t.cores_per_socket, 2);
	assert_int_equal(t.threads_per_core, 2);
	assert_int_equal(t.nodes, 2);
	assert_true(t.mhz > 2345.6 && t.mhz < 2345.7);
	assert_string_equal(t.model, "Fake CPU 9000");
	assert_true(t.hypervisor);
	CPU_ZERO(&two);
	CPU_SET(4, &two);
	CPU_SET(6, &two);
	assert_int_equal(host_topology_read(&t, root, &two), 0);
	assert_int_equal(t.nr_cpus, 2);
	assert_int_equal(t.cpu[1], 6);
	assert_int_equal(t.sockets, 1);
	assert_int_equal(t.cores_per_socket, 2);
	assert_int_equal(t.threads_per_core, 1);
	CPU_ZERO(&two);
	CPU_SET(9, &two);
	assert_int_equal(host_topology_read(&t, root, &two), -ENODEV);

	/* live mode's profile "host": every CPU the fake /sys lists */
	setenv("MMSIM_LIVE_SYS_ROOT", root, 1);
	assert_true(live_host_profile(ini, sizeof(ini)) > 0);
	assert_non_null(strstr(ini, "\nsockets = 2\ncores_per_socket = 2\n"
			       "threads_per_core = 2\nnodes = 2\n"));
	assert_non_null(strstr(ini, "\nmhz = 2346\n"));
	assert_non_null(strstr(ini, "\nwalk_dims = 2\n"));
	assert_true(live_cpu_mhz() > 2345.6 && live_cpu_mhz() < 2345.7);
	assert_true(live_host_is_guest());
	unsetenv("MMSIM_LIVE_SYS_ROOT");

	/* calibrate: the CPUs it may run on; cpu0 and cpu1 are one core */
	setenv("MMSIM_CALIBRATE_SYS_ROOT", root, 1);
	if (!sched_getaffinity(0, sizeof(mine), &mine) && CPU_ISSET(0, &mine) &&
	    CPU_ISSET(1, &mine) && CPU_COUNT(&mine) == 2) {
		char err[256];

		assert_int_equal(cal_topology(r, err, sizeof(err)), 0);
		assert_int_equal(r->nr_cpus, 2);
		assert_int_equal(r->sockets, 1);
		assert_int_equal(r->cores_per_socket, 1);
		assert_int_equal(r->threads_per_core, 2);
		assert_int_equal(r->nodes, 2);
		assert_int_equal(r->pair_smt[0], 0);
		assert_int_equal(r->pair_smt[1], 1);
		assert_int_equal(r->pair_remote[0], -1);
		assert_true(r->hypervisor);
		assert_string_equal(r->cpu_model, "Fake CPU 9000");
		assert_non_null(cal_key_find(r, "topology.threads_per_core"));
		assert_int_equal(cal_key_find(r, "topology.threads_per_core")->value, 2);
	}
	unsetenv("MMSIM_CALIBRATE_SYS_ROOT");
	unsetenv("MMSIM_LIVE_PROC_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	free(r);
}

/*
 * A note as long as a note can be (199 bytes) is written over more than
 * one comment line: inih reads a line of at most 199 bytes, and a longer
 * one made the written profile fail to load ("expected [section] or
 * key = value"), which calibrate reports as its own bug.
 */
static void test_long_note_loads(void **state)
{
	struct cal_run *r = calloc(1, sizeof(*r));
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[256], words[400] = "";

	(void)state;
	assert_non_null(r);
	assert_non_null(p);
	r->log = fopen("/dev/null", "w");
	assert_non_null(r->log);
	snprintf(r->date, sizeof(r->date), "2026-12-05");
	while (strlen(words) < 300)
		strcat(words, "lru_lock held 113 ns ");
	cal_note(r, "%s", words);
	cal_note(r, "%s", "x");
	assert_int_equal(strlen(r->notes[0]), 199);
	if (cal_run_profile(r, "desktop-kvm", p, err, sizeof(err)))
		fail_msg("%s", err);
	fclose(r->log);
	free(p);
	free(r);
}

/*
 * The STLB's size from the chases (cal_stlb_estimate()): this guest's
 * fractions of walking loads give 4096 entries (QEMU's cpuid says 128),
 * however steeply they rise past it; a TLB half that size, one that holds
 * every rung, and one below the first.
 */
static void test_stlb_estimate(void **state)
{
	static const uint64_t pages[] = { 512, 1024, 2048, 4096, 8192, 16384 };
	static const double guest[] = { 0.02, 0.03, 0.07, 0.25, 0.61, 0.99 };
	static const double half[] = { 0.02, 0.05, 0.22, 0.55, 0.80, 0.95 };
	static const double big[] = { 0.01, 0.01, 0.02, 0.03, 0.05, 0.20 };
	static const double tiny[] = { 0.90, 0.95, 0.97, 0.98, 0.99, 1.00 };
	/* a run of this guest's where twice the STLB walked 0.81: still 4096 */
	static const double steep[] = { 0.02, 0.02, 0.05, 0.24, 0.81, 0.95 };

	(void)state;
	assert_int_equal(cal_stlb_estimate(pages, guest, 6), 4096);
	assert_int_equal(cal_stlb_estimate(pages, half, 6), 2048);
	assert_int_equal(cal_stlb_estimate(pages, big, 6), 16384);
	assert_int_equal(cal_stlb_estimate(pages, tiny, 6), 64);
	assert_int_equal(cal_stlb_estimate(pages, steep, 6), 4096);
}

/*
 * mm.fault_spread_ns (calibrate's measured spread of single faults): each
 * fault's fixed cost a draw within +- the spread, so a round of 256 16K
 * faults moves, by less than a few per cent of the spread's sum (the draws
 * centre on mm.fault_entry_ns), and the same profile gives the same round.
 */
static void test_fault_spread(void **state)
{
	struct sim_profile *p = kvm_profile();
	double flat, spread, again;
	char err[256];

	(void)state;
	p->mm_fault_spread_ns = 0;
	if (cal_model_round_ns(p, 4ULL << 20, 16, false, &flat, err, sizeof(err)))
		fail_msg("%s", err);
	p->mm_fault_spread_ns = 300;
	if (cal_model_round_ns(p, 4ULL << 20, 16, false, &spread, err, sizeof(err)) ||
	    cal_model_round_ns(p, 4ULL << 20, 16, false, &again, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(spread != flat);
	assert_true(fabs(spread - flat) < 256 * 300 * 0.25);
	assert_true(spread == again);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_include_drops_ranges_of_keys_set_again),
		cmocka_unit_test(test_fit_targets),
		cmocka_unit_test(test_stlb_estimate),
		cmocka_unit_test(test_fault_spread),
		cmocka_unit_test(test_fit_reproduces_its_measurement),
		cmocka_unit_test(test_fit_keeps_costs_non_negative),
		cmocka_unit_test(test_form_is_per_page_loop),
		cmocka_unit_test(test_cow_form_copies),
		cmocka_unit_test(test_topology_one_reader),
		cmocka_unit_test(test_long_note_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
