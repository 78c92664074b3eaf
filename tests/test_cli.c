// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the command line, the printers, parameter parsing and profiles.
 *
 * No engine: a fake registry holds one tiny scenario whose run() fills its
 * metrics from its parameters.  mmsim_main() runs in-process with its
 * streams captured by open_memstream(), so each test sees the exact text
 * and exit code.  cli.c is included to reach it without the executable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.c"

/* ---- the fake scenario -------------------------------------------------- */

static const struct sim_variant tiny_variants[] = { { "before" }, { "after" }, { NULL } };
static const char *const tiny_modes[] = { "fifo", "lifo", NULL };

static const struct sim_param tiny_params[] = {
	{ .key = "cpus", .type = SIM_PARAM_COUNT, .def = 2, .min = 1, .max = 1024,
	  .help = "vCPUs" },
	{ .key = "size", .type = SIM_PARAM_SIZE, .def = 16 << 20, .min = 4096,
	  .max = 1ULL << 40, .help = "bytes per task" },
	{ .key = "hold", .type = SIM_PARAM_TIME, .def = 10000, .min = 0,
	  .max = 10000000000ULL, .help = "hold time" },
	{ .key = "fast", .type = SIM_PARAM_BOOL, .def = 0, .max = 1,
	  .help = "a switch" },
	{ .key = "mode", .type = SIM_PARAM_ENUM, .def = 0, .max = 1,
	  .choices = tiny_modes, .help = "queue order" },
	{ .key = NULL },
};

static const struct sim_metric tiny_metrics[] = {
	{ "runtime_s", "runtime (s)", 3 },
	{ "acquisitions", "acquisitions", 0 },
	{ NULL, NULL, 0 },
};

static const struct sim_published tiny_published[] = {
	{ "before", "runtime_s", 2.0 },
	{ "after", "runtime_s", 4.0 },
	{ NULL, NULL, 0 },
};

static int tiny_validate(const struct sim_run_config *cfg, char *err, size_t len)
{
	if (sim_param(cfg, "cpus") > (uint64_t)sim_profile_nr_cpus(cfg->profile)) {
		snprintf(err, len, "cpus=%" PRIu64 ": expected at most %d, the profile's CPUs",
			 sim_param(cfg, "cpus"), sim_profile_nr_cpus(cfg->profile));
		return -1;
	}
	return 0;
}

static const struct scenario_ops tiny_scenario;

static int tiny_run(const struct sim_run_config *cfg, int variant,
		    struct sim_variant_result *res, char *err, size_t len)
{
	uint64_t cpus = sim_param(cfg, "cpus");

	if (cpus == 13) {
		snprintf(err, len, "unlucky");
		return -1;
	}
	sim_result_set(cfg->scenario, res, "runtime_s", (double)cpus * (variant + 1) * 0.5);
	sim_result_set(cfg->scenario, res, "acquisitions",
		       (double)(sim_param(cfg, "size") / 4096 + (uint64_t)variant));
	res->counters[SIM_PGFAULT] = 100 + (uint64_t)variant;
	res->counters[SIM_DTLB_LOAD_MISSES] = variant ? 7 : 0;
	res->nr_locks = 1;
	snprintf(res->locks[0].name, sizeof(res->locks[0].name), "lru_lock");
	res->locks[0].acquisitions = 10;
	res->locks[0].contentions = 3;
	res->locks[0].wait_total_s = 0.5;
	res->locks[0].wait_avg_ns = 1234.5;
	res->locks[0].hold_avg_ns = 50;
	res->locks[0].side[0] = (struct sim_lock_side){
		.acquisitions = 10, .contentions = 3, .wait_total = 500000000000ULL,
		.wait_min = 2000, .wait_max = 4000000, .hold_total = 500000, .hold_max = 70000,
	};
	/* and a rw_semaphore: 4 ms of read waits, a write side never contended */
	res->nr_locks = 2;
	snprintf(res->locks[1].name, sizeof(res->locks[1].name), "mmap_lock");
	res->locks[1].rwsem = true;
	res->locks[1].side[0] = (struct sim_lock_side){ .acquisitions = 5, .hold_total = 5000000 };
	res->locks[1].side[1] = (struct sim_lock_side){
		.acquisitions = 7, .contentions = 2, .wait_total = 4000000000ULL,
		.wait_min = 1000000000ULL, .wait_max = 3000000000ULL,
	};
	res->nr_cpus = 2;
	res->irq_tlb[1] = variant ? 5 : 0;	/* "after" had shootdowns, on CPU1 */
	res->irq_call[0] = variant ? 3 : 0;	/* and function-call interrupts on CPU0 */
	res->events = 1000;
	return 0;
}

static const struct scenario_ops tiny_scenario = {
	.name = "tiny",
	.summary = "a test scenario",
	.description = "Fills its metrics from its parameters.",
	.profile = "desktop",
	.variants = tiny_variants,
	.baseline = "before",
	.changed = "after",
	.params = tiny_params,
	.metrics = tiny_metrics,
	.published = tiny_published,
	.published_source = "a test",
	.validate = tiny_validate,
	.run = tiny_run,
};

static const struct scenario_ops *const fake_registry[] = { &tiny_scenario, NULL };

/* ---- running mmsim_main() in-process --------------------------------------- */

struct captured {
	int rc;
	char *out, *err;
	size_t out_len, err_len;
};

static struct captured run_argv(int argc, char **argv)
{
	struct captured c;
	FILE *out = open_memstream(&c.out, &c.out_len);
	FILE *err = open_memstream(&c.err, &c.err_len);

	assert_non_null(out);
	assert_non_null(err);
	c.rc = mmsim_main(argc, argv, fake_registry, out, err);
	fclose(out);
	fclose(err);
	return c;
}

/* run_cli("run", "tiny", "--quiet", NULL) */
static struct captured run_cli(const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	const char *a;
	va_list ap;

	argv[argc++] = (char *)"mmsim";
	va_start(ap, first);
	for (a = first; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return run_argv(argc, argv);
}

static void captured_free(struct captured *c)
{
	free(c->out);
	free(c->err);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- tests ------------------------------------------------------------------- */

static void test_table_exact(void **state)
{
	struct captured c = run_cli("run", "tiny", "--quiet", "--set", "cpus=2", NULL);
	const char *expect =
		"metric        before  after             delta\n"
		"---------------------------------------------\n"
		"runtime (s)    1.000  2.000  +1.000 (+100.0%)\n"
		"acquisitions    4096   4097        +1 (+0.0%)\n"
		"---------------------------------------------\n";

	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, expect);
	assert_string_equal(c.err, "");
	captured_free(&c);
}

static void test_table_one_variant_no_delta(void **state)
{
	struct captured c = run_cli("run", "tiny", "--quiet", "--variant", "after", NULL);
	const char *expect =
		"metric        after\n"
		"-------------------\n"
		"runtime (s)   2.000\n"
		"acquisitions   4097\n"
		"-------------------\n";

	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, expect);
	captured_free(&c);
}

static void test_reproduce_columns(void **state)
{
	struct captured c = run_cli("reproduce", "--quiet", NULL);
	const char *expect =
		"metric        before  after             delta  published before  sim/pub before  published after  sim/pub after\n"
		"---------------------------------------------------------------------------------------------------------------\n"
		"runtime (s)    1.000  2.000  +1.000 (+100.0%)             2.000            0.50            4.000           0.50\n"
		"acquisitions    4096   4097        +1 (+0.0%)                 -               -                -              -\n"
		"---------------------------------------------------------------------------------------------------------------\n"
		"\n"
		"verdict: tiny (before -> after; bands: docs/uncertainty.md)\n"
		"metric              published         simulated                    band  values in band  verdict\n"
		"runtime (s)    change +100.0%    change +100.0%                       -             yes  same direction\n"
		"tiny: 0 of 1 published metrics agree, 1 same direction, 0 disagree, 0 not judged\n"
		"\n";

	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, expect);
	captured_free(&c);
}

static void test_full_output_sections(void **state)
{
	struct captured c = run_cli("run", "tiny", "--set", "size=8K", NULL);

	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "scenario tiny, profile desktop, seed 1\n"));
	assert_non_null(strstr(c.out, "  size = 8K "));
	assert_non_null(strstr(c.out, "repeat: mmsim run tiny --profile desktop --seed 1 --set cpus=2 --set size=8K --set hold=10us --set fast=no --set mode=fifo\n"));
	/* perf lock contention's layout, by total wait, kernel names, units that show the values */
	assert_non_null(strstr(c.out,
		"locks: before (perf lock contention)\n"
		" contended   total wait     max wait     avg wait         type   lock\n\n"
		"         3    500.00 ms      4.00 us    166.67 ms     spinlock   &lruvec->lru_lock\n"
		"         2      4.00 ms      3.00 ms      2.00 ms      rwsem:R   &mm->mmap_lock\n"));
	/* the write side was never contended: left out */
	assert_null(strstr(c.out, "rwsem:W"));
	assert_non_null(strstr(c.out, "counter           before  after\n"));
	assert_non_null(strstr(c.out, "dtlb_load_misses       0      7\n"));
	assert_null(strstr(c.out, "pgmajfault"));
	/* the host's cost, labelled: CPU over the processes, and wall */
	assert_non_null(strstr(c.out, "host time: CPU time "));
	assert_non_null(strstr(c.out, " s (one process), wall time ")
			?: strstr(c.out, " s (summed over 2 processes), wall time "));
	captured_free(&c);
}

/* --locks-format lock_stat: /proc/lock_stat's rows, -W and -R for a rw_semaphore */
static void test_lock_stat_format(void **state)
{
	struct captured c = run_cli("run", "tiny", "--variant", "before", "--locks-format",
				    "lock_stat", NULL);

	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "lock_stat version 0.4\n"));
	assert_non_null(strstr(c.out,
		"                              class name    con-bounces    contentions   waittime-min"));
	/* 2 contentions of 1 and 3 ms: min 1000.00 us, max 3000.00, total 4000.00, avg 2000.00 */
	assert_non_null(strstr(c.out,
		"                        &mm->mmap_lock-R:             0              2        1000.00"
		"        3000.00        4000.00        2000.00              0              7"));
	assert_non_null(strstr(c.out, "                        &mm->mmap_lock-W:             0              0"));
	/* the spinlock, by contentions first: 3 waits, 10 acquisitions, hold 0.50 us total */
	assert_true(strstr(c.out, "&lruvec->lru_lock:") < strstr(c.out, "&mm->mmap_lock-W:"));
	assert_non_null(strstr(c.out, "               &lruvec->lru_lock:             0              3"
				      "           0.00           4.00      500000.00      166666.67"
				      "              0             10           0.00           0.07"
				      "           0.50           0.05\n"));
	captured_free(&c);
	c = run_cli("run", "tiny", "--locks-format", "lockstat", NULL);
	assert_int_equal(c.rc, 2);
	assert_non_null(strstr(c.err, "--locks-format lockstat: expected perf or lock_stat"));
	captured_free(&c);
}

/* --version, help COMMAND, COMMAND --help, -j */
static void test_version_help_jobs(void **state)
{
	struct captured c = run_cli("--version", NULL);

	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, "mmsim " MMSIM_VERSION "\n");
	captured_free(&c);

	c = run_cli("help", "run", NULL);
	assert_int_equal(c.rc, 0);
	assert_ptr_equal(strstr(c.out, "usage: mmsim run SCENARIO [options]\n"), c.out);
	assert_non_null(strstr(c.out, "  --locks-format perf|lock_stat"));
	assert_non_null(strstr(c.out, "-j N is --jobs N."));
	assert_null(strstr(c.out, "--vary"));		/* sweep's, not run's */
	captured_free(&c);

	c = run_cli("sweep", "tiny", "--help", NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "usage: mmsim sweep "));
	assert_non_null(strstr(c.out, "  --vary "));
	captured_free(&c);

	c = run_cli("reproduce", "tiny", "--profile", "server-16", "--quiet", NULL);
	assert_int_equal(c.rc, 0);		/* reproduce --profile: another machine */
	captured_free(&c);

	c = run_cli("help", "merge", NULL);
	assert_int_equal(c.rc, 0);
	assert_null(strstr(c.out, "--jobs"));
	captured_free(&c);

	/* sensitivity's options: its row of the option table, and only those */
	c = run_cli("help", "sensitivity", NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "\noptions:\n"));
	assert_non_null(strstr(c.out, "  --set KEY=VALUE "));
	assert_non_null(strstr(c.out, "  --shard I/N "));
	assert_non_null(strstr(c.out, "  --plot FILE|DIR "));
	assert_null(strstr(c.out, "--vary"));
	assert_null(strstr(c.out, "--csv"));
	captured_free(&c);
	c = run_cli("sensitivity", "tiny", "--csv", "x.csv", NULL);
	assert_int_equal(c.rc, 2);
	assert_non_null(strstr(c.err, "unknown option --csv for sensitivity: expected one of --set,"));
	captured_free(&c);

	c = run_cli("help", "nope", NULL);
	assert_int_equal(c.rc, 2);
	assert_non_null(strstr(c.err, "mmsim: error: help nope: no such command: expected one of list,"));
	captured_free(&c);

	c = run_cli("run", "tiny", "--quiet", "-j1", NULL);
	assert_int_equal(c.rc, 0);
	captured_free(&c);
	c = run_cli("run", "tiny", "--quiet", "-j", "1", NULL);
	assert_int_equal(c.rc, 0);
	captured_free(&c);
	c = run_cli("run", "tiny", "-j0", NULL);
	assert_int_equal(c.rc, 2);
	assert_non_null(strstr(c.err, "--jobs=0: expected an integer (K, M, G, T: x1000 each) from 1"));
	captured_free(&c);
}

/* /proc/interrupts' CAL and TLB rows per CPU; --vmstat's name value lines */
static void test_interrupts_vmstat(void **state)
{
	struct captured c = run_cli("run", "tiny", "--vmstat", NULL);

	assert_int_equal(c.rc, 0);
	assert_null(strstr(c.out, "interrupts: before"));	/* none: left out */
	assert_non_null(strstr(c.out,
		"interrupts: after (/proc/interrupts)\n"
		"           CPU0       CPU1       \n"
		"CAL:          3          0   Function call interrupts\n"
		"TLB:          0          5   TLB shootdowns\n"));
	assert_non_null(strstr(c.out, "\n# vmstat: before\npgfault 100\npgmajfault 0\n"));
	assert_non_null(strstr(c.out, "\n# vmstat: after\npgfault 101\n"));
	assert_null(strstr(c.out, "dtlb_load_misses 7"));	/* not a vmstat counter */
	captured_free(&c);
	c = run_cli("run", "tiny", NULL);
	assert_null(strstr(c.out, "# vmstat"));
	captured_free(&c);
}

/* mmsim profiles --from-host: this machine's profile, a valid one */
static void test_profiles_from_host(void **state)
{
	struct captured c = run_cli("profiles", "--from-host", NULL);
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[512];

	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "written by `mmsim profiles --from-host`"));
	if (sim_profile_parse(c.out, "host", p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(sim_profile_nr_cpus(p) >= 1);
	assert_string_equal(p->machine_name, "host");
	captured_free(&c);
	c = run_cli("profiles", "--from-host", "a.ini", "b.ini", NULL);
	assert_int_equal(c.rc, 2);
	assert_non_null(strstr(c.err, "expected at most one FILE"));
	captured_free(&c);
	free(p);
}

/*
 * mmsim profiles NAME: a source inherited through `include = NAME` says so
 * ("as NAME: ..."), as docs/costs.md does; the including file's own sources,
 * and those it replaces, do not.  Through two includes it names the direct one.
 */
static void test_profiles_inherited_sources(void **state)
{
	struct captured c = run_cli("profiles", "skylake-sp-8s", NULL);
	FILE *f;

	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "  SMT siblings per core; as skylake-sp-2s: Koong's"));
	assert_non_null(strstr(c.out, "  CPU packages; assumption: Xeon Platinum"));
	assert_null(strstr(c.out, "as skylake-sp-8s"));
	captured_free(&c);

	c = run_cli("profiles", "skylake-sp-2s", NULL);
	assert_int_equal(c.rc, 0);
	assert_null(strstr(c.out, "; as "));		/* it includes nothing */
	captured_free(&c);

	f = fopen("inherit.ini", "w");
	assert_non_null(f);
	fputs("include = skylake-sp-8s\n[machine]\nname = inherit\n"
	      "[sources]\nclock.mhz = this file's own clock\n", f);
	fclose(f);
	c = run_cli("profiles", "./inherit.ini", NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "  core clock under load; this file's own clock\n"));
	assert_non_null(strstr(c.out, "  SMT siblings per core; as skylake-sp-8s: Koong's"));
	assert_non_null(strstr(c.out, "  CPU packages; as skylake-sp-8s: assumption: Xeon"));
	captured_free(&c);
	unlink("inherit.ini");
}

static void test_deterministic(void **state)
{
	struct captured a = run_cli("run", "tiny", "--quiet", "--csv", "-", NULL);
	struct captured b = run_cli("run", "tiny", "--quiet", "--csv", "-", NULL);

	assert_int_equal(a.rc, 0);
	assert_string_equal(a.out, b.out);
	captured_free(&a);
	captured_free(&b);
}

static void test_csv_rows(void **state)
{
	struct captured c = run_cli("run", "tiny", "--csv", "-", "--set", "cpus=3", NULL);

	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out,
		"scenario,variant,metric,value\n"
		"tiny,before,runtime_s,1.5\n"
		"tiny,before,acquisitions,4096\n"
		"tiny,after,runtime_s,3\n"
		"tiny,after,acquisitions,4097\n");
	captured_free(&c);
}

static void test_json_shape(void **state)
{
	struct captured c = run_cli("run", "tiny", "--json", "-", "--seed", "7",
				    "--set", "fast=on", "--set", "mode=lifo", NULL);
	json_error_t jerr;
	json_t *doc, *v, *p;
	const char *key;
	json_t *val;
	const char *order[] = { "mmsim_version", "scenario", "profile", "seed",
				"params", "variants", "host" };
	int i = 0;

	assert_int_equal(c.rc, 0);
	doc = json_loads(c.out, 0, &jerr);
	assert_non_null(doc);
	json_object_foreach(doc, key, val) {
		assert_true(i < 7);
		assert_string_equal(key, order[i++]);
	}
	assert_int_equal(i, 7);
	assert_string_equal(json_string_value(json_object_get(doc, "scenario")), "tiny");
	assert_string_equal(json_string_value(json_object_get(doc, "profile")), "desktop");
	assert_int_equal(json_integer_value(json_object_get(doc, "seed")), 7);
	p = json_object_get(doc, "params");
	assert_int_equal(json_integer_value(json_object_get(p, "size")), 16777216);
	assert_int_equal(json_integer_value(json_object_get(p, "hold")), 10000);
	assert_true(json_is_true(json_object_get(p, "fast")));
	assert_string_equal(json_string_value(json_object_get(p, "mode")), "lifo");
	v = json_object_get(doc, "variants");
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 0), "name")), "before");
	val = json_object_get(json_object_get(json_array_get(v, 1), "metrics"), "runtime_s");
	assert_true(json_real_value(val) == 2.0);
	val = json_object_get(json_object_get(json_array_get(v, 1), "counters"), "pgfault");
	assert_int_equal(json_integer_value(val), 101);
	val = json_array_get(json_object_get(json_array_get(v, 0), "locks"), 0);
	assert_string_equal(json_string_value(json_object_get(val, "name")), "lru_lock");
	assert_true(json_real_value(json_object_get(val, "wait_total_s")) == 0.5);
	val = json_object_get(doc, "host");
	assert_true(json_is_real(json_object_get(val, "cpu_seconds")));
	/* this process, or one pool child per variant (--jobs: the host's CPUs) */
	assert_in_range(json_integer_value(json_object_get(val, "processes")), 1, 2);
	assert_true(json_is_real(json_object_get(val, "wall_seconds")));
	assert_null(json_object_get(val, "seconds"));
	assert_int_equal(json_integer_value(json_object_get(val, "events")), 2000);
	assert_null(json_object_get(doc, "published"));
	json_decref(doc);
	captured_free(&c);
}

static void test_json_reproduce_published(void **state)
{
	struct captured c = run_cli("reproduce", "tiny", "--json", "-", NULL);
	json_error_t jerr;
	json_t *doc, *pub;

	assert_int_equal(c.rc, 0);
	doc = json_loads(c.out, 0, &jerr);
	assert_non_null(doc);
	assert_true(json_is_array(doc));
	pub = json_object_get(json_array_get(doc, 0), "published");
	assert_non_null(pub);
	assert_string_equal(json_string_value(json_object_get(pub, "source")), "a test");
	assert_true(json_real_value(json_object_get(json_object_get(pub, "after"),
						    "runtime_s")) == 4.0);
	json_decref(doc);
	captured_free(&c);
}

static void test_json_file_written_whole(void **state)
{
	char dir[] = "/tmp/mmsim-test-XXXXXX", path[128], cmd[160];
	struct captured c;
	struct stat st;
	json_error_t jerr;
	json_t *doc;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	c = run_cli("run", "tiny", "--quiet", "--json", path, NULL);
	assert_int_equal(c.rc, 0);
	doc = json_load_file(path, 0, &jerr);
	assert_non_null(doc);
	json_decref(doc);
	captured_free(&c);
	unlink(path);

	/* an internal failure leaves neither the file nor its temporary */
	c = run_cli("run", "tiny", "--quiet", "--json", path, "--set", "cpus=13", NULL);
	assert_int_equal(c.rc, 1);
	assert_int_equal(count_lines(c.err), 1);
	assert_non_null(strstr(c.err, "unlucky"));
	assert_int_not_equal(stat(path, &st), 0);
	captured_free(&c);
	snprintf(cmd, sizeof(cmd), "rmdir %s", dir);	/* fails if not empty */
	assert_int_equal(system(cmd), 0);
}

static void test_json_missing_dir(void **state)
{
	const char *path = "/tmp/mmsim-no-such-dir-4242/r.json";
	struct captured c = run_cli("run", "tiny", "--json", path, NULL);
	struct stat st;

	assert_int_equal(c.rc, 2);
	assert_int_equal(count_lines(c.err), 1);
	assert_non_null(strstr(c.err, "mmsim: error: --json /tmp/mmsim-no-such-dir-4242/r.json"));
	assert_int_not_equal(stat(path, &st), 0);
	assert_string_equal(c.out, "");
	captured_free(&c);
}

/* Each bad input: exit 2, one line "mmsim: error: ...", naming @needle. */
static void expect_bad(const char *needle, const char *a1, const char *a2,
		       const char *a3, const char *a4, const char *a5)
{
	struct captured c = run_cli(a1, a2, a3, a4, a5, NULL);

	if (c.rc != 2 || count_lines(c.err) != 1 ||
	    strncmp(c.err, "mmsim: error: ", 14) || !strstr(c.err, needle))
		fail_msg("%s %s %s %s %s: rc %d, stderr \"%s\", expected \"%s\"",
			 a1, a2 ? a2 : "", a3 ? a3 : "", a4 ? a4 : "", a5 ? a5 : "",
			 c.rc, c.err, needle);
	captured_free(&c);
}

static void test_bad_inputs(void **state)
{
	expect_bad("bogus", "bogus", NULL, NULL, NULL, NULL);
	expect_bad("nosuch", "run", "nosuch", NULL, NULL, NULL);
	expect_bad("nosuch", "show", "nosuch", NULL, NULL, NULL);
	expect_bad("nosuch", "reproduce", "nosuch", NULL, NULL, NULL);
	expect_bad("middle", "run", "tiny", "--variant", "middle", NULL);
	expect_bad("expected one of before, after", "run", "tiny", "--variant", "middle", NULL);
	expect_bad("--variant after: given twice", "run", "tiny", "--variant=after", "--variant", "after");
	expect_bad("unknown parameter threads", "run", "tiny", "--set", "threads=4", NULL);
	expect_bad("--set cpus: expected KEY=VALUE", "run", "tiny", "--set", "cpus", NULL);
	expect_bad("cpus=abc: expected an integer (K, M, G, T: x1000 each) from 1 to 1024", "run", "tiny", "--set", "cpus=abc", NULL);
	expect_bad("cpus=0: expected an integer (K, M, G, T: x1000 each) from 1 to 1024", "run", "tiny", "--set", "cpus=0", NULL);
	expect_bad("size=1Z", "run", "tiny", "--set", "size=1Z", NULL);
	expect_bad("hold=5 parsecs", "run", "tiny", "--set", "hold=5 parsecs", NULL);
	expect_bad("fast=maybe: expected yes, no, on, off, 1 or 0", "run", "tiny", "--set", "fast=maybe", NULL);
	expect_bad("mode=random: expected one of fifo, lifo", "run", "tiny", "--set", "mode=random", NULL);
	expect_bad("cpus=32: expected at most 16", "run", "tiny", "--set", "cpus=32", NULL);
	expect_bad("--seed=x", "run", "tiny", "--seed", "x", NULL);
	expect_bad("--seed 3: given twice", "run", "tiny", "--seed=2", "--seed", "3");
	expect_bad("--profile b: given twice", "run", "tiny", "--profile=desktop", "--profile", "b");
	expect_bad("unknown profile nope", "run", "tiny", "--profile", "nope", NULL);
	expect_bad("/no/such/file.ini", "run", "tiny", "--profile", "/no/such/file.ini", NULL);
	expect_bad("unknown option --frobnicate", "run", "tiny", "--frobnicate", NULL, NULL);
	expect_bad("expected exactly one SCENARIO named", "reproduce", "--set", "a=1", NULL, NULL);
	expect_bad("unknown option --trace for reproduce", "reproduce", "--trace", "t.json", NULL, NULL);
	expect_bad("--json: expected FILE", "run", "tiny", "--json", NULL, NULL);
	expect_bad("expected one scenario", "run", NULL, NULL, NULL, NULL);
	expect_bad("--quiet: takes no value", "run", "tiny", "--quiet=1", NULL, NULL);
	expect_bad("unknown profile nope", "profiles", "nope", NULL, NULL, NULL);
	expect_bad("--cost cache.nope=1: no profile key cache.nope", "run", "tiny", "--cost",
		   "cache.nope=1", NULL);
	expect_bad("--cost nodot=1: expected SECTION.KEY=VALUE", "run", "tiny", "--cost",
		   "nodot=1", NULL);
	expect_bad("cache.remote_transfer_ns = x: expected a non-negative integer", "run", "tiny",
		   "--cost", "cache.remote_transfer_ns=x", NULL);
	expect_bad("topology.sockets = 0: expected 1 to 64", "run", "tiny", "--cost",
		   "topology.sockets=0", NULL);
	/* Divisors of the model: each of these used to kill the run (SIGFPE). */
	expect_bad("clock.mhz = 0: expected 100 to 10000", "run", "tiny", "--cost",
		   "clock.mhz=0", NULL);
	expect_bad("mem.zero_gbps = 0: expected 1 to 10000", "run", "tiny", "--cost",
		   "mem.zero_gbps=0", NULL);
	expect_bad("machine.name is a name, not a number", "run", "tiny", "--cost",
		   "machine.name=x y", NULL);
	expect_bad("--cost topology.cores_per_socket=1000: 2000 CPUs in the topology", "run", "tiny",
		   "--cost", "topology.cores_per_socket=1000", NULL);
}

/*
 * --cost changes the machine a run models: the desktop profile's 16 CPUs
 * refuse cpus=32, two sockets of them accept it; the header and the
 * repeat line say so, and the JSON records it.
 */
static void test_cost_override(void **state)
{
	struct captured c;
	json_error_t jerr;
	json_t *doc;

	expect_bad("cpus=32: expected at most 16", "run", "tiny", "--set", "cpus=32", NULL);
	c = run_cli("run", "tiny", "--set", "cpus=32", "--cost", "topology.sockets=2", NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "profile overrides: topology.sockets=2\n"));
	assert_non_null(strstr(c.out, " --cost topology.sockets=2"));
	captured_free(&c);
	c = run_cli("run", "tiny", "--set", "cpus=32", "--cost", "topology.sockets=2",
		    "--cost", "cache.remote_transfer_ns=99", "--json", "-", NULL);
	assert_int_equal(c.rc, 0);
	doc = json_loads(c.out, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "profile_overrides")),
			    "topology.sockets=2 cache.remote_transfer_ns=99");
	json_decref(doc);
	captured_free(&c);
	/* Without --cost the key is absent: earlier outputs are unchanged. */
	c = run_cli("run", "tiny", "--json", "-", NULL);
	doc = json_loads(c.out, 0, &jerr);
	assert_non_null(doc);
	assert_null(json_object_get(doc, "profile_overrides"));
	json_decref(doc);
	captured_free(&c);
}

/* A run that fails: in this process (--jobs 1) and in the pool's children. */
static void test_internal_failure(void **state)
{
	static const char *const jobs[] = { "1", "2" };
	int i;

	for (i = 0; i < 2; i++) {
		struct captured c = run_cli("run", "tiny", "--set", "cpus=13", "--jobs", jobs[i],
					    NULL);

		assert_int_equal(c.rc, 1);
		assert_string_equal(c.err, "mmsim: error: tiny, variant before: unlucky\n");
		assert_int_equal(c.out_len, 0);
		captured_free(&c);
	}
}

static void test_list_show_help(void **state)
{
	struct captured c = run_cli("list", NULL);

	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, "tiny  a test scenario\n");
	captured_free(&c);
	c = run_cli("show", "tiny", NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "  size  16M        bytes  [4K..1T]  bytes per task\n"));
	assert_non_null(strstr(c.out, "variants: before (baseline) after (changed)\n"));
	captured_free(&c);
	c = run_cli("--help", NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "  tiny  a test scenario\n"));
	assert_non_null(strstr(c.out, "--set KEY=VALUE"));
	assert_non_null(strstr(c.out, "skylake-sp-2s"));
	captured_free(&c);
}

/* ---- parameters --------------------------------------------------------------- */

static uint64_t parse_ok(const struct sim_param *p, const char *text)
{
	char err[256];
	uint64_t v = 0;

	if (sim_param_parse(p, text, &v, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	return v;
}

static void test_param_parse(void **state)
{
	const struct sim_param *size = &tiny_params[1], *hold = &tiny_params[2];
	const struct sim_param *cpus = &tiny_params[0];
	char err[256], buf[64];
	uint64_t v;

	assert_int_equal(parse_ok(size, "16M"), 16777216);
	assert_int_equal(parse_ok(size, "16MB"), 16777216);
	assert_int_equal(parse_ok(size, "2G"), 2147483648ULL);
	assert_int_equal(parse_ok(size, "4k"), 4096);
	assert_int_equal(parse_ok(size, "1T"), 1ULL << 40);
	assert_int_equal(parse_ok(hold, "10ms"), 10000000);
	assert_int_equal(parse_ok(hold, "3us"), 3000);
	assert_int_equal(parse_ok(hold, "2s"), 2000000000);
	assert_int_equal(parse_ok(hold, "250"), 250);
	assert_int_equal(parse_ok(&tiny_params[3], "on"), 1);
	assert_int_equal(parse_ok(&tiny_params[3], "no"), 0);
	assert_int_equal(parse_ok(&tiny_params[4], "lifo"), 1);
	/* counts take decimal suffixes: 1K cpus = 1000 */
	assert_int_equal(parse_ok(cpus, "1K"), 1000);
	assert_int_equal(sim_param_parse(cpus, "2K", &v, err, sizeof(err)), -1);	/* > 1024 */
	assert_int_equal(sim_param_parse(cpus, "1k", &v, err, sizeof(err)), -1);	/* K only */
	assert_int_equal(sim_param_parse(cpus, "1KK", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(cpus, "K", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(cpus, "99999999999999999999T", &v, err, sizeof(err)), -1);

	assert_int_equal(sim_param_parse(cpus, "0", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "cpus=0: expected an integer (K, M, G, T: x1000 each) from 1 to 1024");
	assert_int_equal(sim_param_parse(cpus, "abc", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "cpus=abc: expected an integer (K, M, G, T: x1000 each) from 1 to 1024");
	assert_int_equal(sim_param_parse(cpus, "-1", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(cpus, "", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(size, "1Z", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "size=1Z: expected a size in bytes with an optional K, M, G or T suffix, from 4K to 1T");
	assert_int_equal(sim_param_parse(size, "2T", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(size, "99999999999999999999", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(size, "20000000000T", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(hold, "10 ms", &v, err, sizeof(err)), -1);
	assert_int_equal(sim_param_parse(hold, "11s", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "hold=11s: expected a time with a ns, us, ms or s suffix, from 0ns to 10s");

	sim_param_format(size, 16777216, buf, sizeof(buf));
	assert_string_equal(buf, "16M");
	sim_param_format(size, 16777217, buf, sizeof(buf));
	assert_string_equal(buf, "16777217");
	sim_param_format(hold, 10000000, buf, sizeof(buf));
	assert_string_equal(buf, "10ms");
	sim_param_format(hold, 1500, buf, sizeof(buf));
	assert_string_equal(buf, "1500ns");
	sim_param_format(&tiny_params[4], 1, buf, sizeof(buf));
	assert_string_equal(buf, "lifo");
}

static void test_counter_names(void **state)
{
	assert_string_equal(sim_counter_names[SIM_IRQ_TLB_COUNT], "tlb_shootdowns");
	assert_string_equal(sim_counter_names[SIM_PGSCAN_ANON], "pgscan_anon");
	assert_string_equal(sim_counter_names[NR_SIM_COUNTERS - 1], "numa_interleave");
}

/* ---- profiles ------------------------------------------------------------------ */

/* The desktop profile with @from replaced by @to. */
static char *edited_profile(const char *from, const char *to)
{
	const char *text = sim_profile_builtin_text("desktop");
	const char *at;
	char *out;

	assert_non_null(text);
	at = strstr(text, from);
	assert_non_null(at);
	out = malloc(strlen(text) + strlen(to) + 1);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

/* 1-based line of the first @needle in @text. */
static int line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *p;
	int line = 1;

	for (p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

static void test_profile_errors(void **state)
{
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[256], want[128];
	char *text;

	text = edited_profile("mhz = 3200\n", "");
	assert_int_equal(sim_profile_parse(text, "x.ini", p, err, sizeof(err)), -1);
	assert_string_equal(err, "x.ini: 1 missing key: clock.mhz");
	free(text);

	text = edited_profile("mhz = 3200\n", "mhz = 3200\nturbo = 1\n");
	assert_int_equal(sim_profile_parse(text, "x.ini", p, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "x.ini:%d: unknown key clock.turbo: expected a key that "
		 "`mmsim profiles NAME` lists", line_of(text, "turbo"));
	assert_string_equal(err, want);
	free(text);

	text = edited_profile("mhz = 3200\n", "mhz = fast\n");
	assert_int_equal(sim_profile_parse(text, "x.ini", p, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "x.ini:%d: clock.mhz = fast: expected a non-negative integer",
		 line_of(text, "mhz = fast"));
	assert_string_equal(err, want);
	free(text);

	text = edited_profile("[clock]", "[gpu]\nshaders = 4\n[clock]");
	assert_int_equal(sim_profile_parse(text, "x.ini", p, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "x.ini:%d: unknown section [gpu]",
		 line_of(text, "shaders"));
	assert_string_equal(err, want);
	free(text);

	text = edited_profile("sockets = 1\n", "sockets = 0\n");
	assert_int_equal(sim_profile_parse(text, "x.ini", p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "topology.sockets = 0: expected 1 to 64"));
	free(text);

	text = edited_profile("mhz = 3200\n", "mhz 3200\n");
	assert_int_equal(sim_profile_parse(text, "x.ini", p, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "x.ini:%d: expected [section] or key = value",
		 line_of(text, "mhz 3200"));
	assert_string_equal(err, want);
	free(text);
	free(p);
}

static void test_profile_file(void **state)
{
	struct sim_profile *p = calloc(1, sizeof(*p));
	char path[] = "/tmp/mmsim-profile-XXXXXX", err[256];
	const char *text = sim_profile_builtin_text("server-16");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(sim_profile_load(path, p, err, sizeof(err)), 0);
	assert_int_equal(sim_profile_nr_cpus(p), 16);
	assert_string_equal(p->origin, path);
	unlink(path);
	assert_int_equal(sim_profile_load(path, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	free(p);
}

/* Write @text to @dir/@name. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fclose(f);
}

/* include = NAME: a builtin or a file (relative to the including one), then overrides */
static void test_profile_include(void **state)
{
	struct sim_profile *p = calloc(1, sizeof(*p)), *base = calloc(1, sizeof(*base));
	char dir[] = "/tmp/mmsim-include-XXXXXX", path[256], err[512], want[128];
	int i, n;

	assert_non_null(mkdtemp(dir));
	write_file(dir, "four.ini", "include = skylake-sp-2s\n[machine]\nname = four\n"
		   "description = four sockets\n[topology]\nsockets = 4\nnodes = 4\n"
		   "[sources]\ntopology.sockets = a test\n");
	write_file(dir, "slow.ini", "include = four.ini\n[clock]\nmhz = 2000\n");
	write_file(dir, "loop.ini", "include = loop.ini\n");
	write_file(dir, "late.ini", "; a comment\ninclude = desktop\n[clock]\nmhz = 2000\n"
		   "[sched]\nquantum_ns = 1000\n");
	write_file(dir, "bad.ini", "[sched]\nquantum_ns = 1000\n");
	write_file(dir, "order.ini", "[clock]\nmhz = 2000\ninclude = desktop\n");

	assert_int_equal(sim_profile_load("skylake-sp-2s", base, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/four.ini", dir);
	if (sim_profile_load(path, p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(sim_profile_nr_cpus(p), 160);
	assert_string_equal(p->machine_name, "four");
	assert_int_equal(p->tlb_stlb_entries, base->tlb_stlb_entries);	/* inherited */
	assert_int_equal(p->nr_sources, base->nr_sources);		/* one replaced */
	for (i = 0, n = 0; i < p->nr_sources; i++)
		n += !strncmp(p->sources[i], "topology.sockets = ", 19);
	assert_int_equal(n, 1);
	for (i = 0; i < p->nr_sources; i++)
		if (!strncmp(p->sources[i], "topology.sockets = ", 19))
			assert_string_equal(p->sources[i], "topology.sockets = a test");

	snprintf(path, sizeof(path), "%s/slow.ini", dir);	/* includes four.ini by its name */
	if (sim_profile_load(path, p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(p->clock_mhz, 2000);
	assert_int_equal(sim_profile_nr_cpus(p), 160);

	snprintf(path, sizeof(path), "%s/loop.ini", dir);
	assert_int_equal(sim_profile_load(path, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 8 includes deep: expected no include cycle"));

	snprintf(path, sizeof(path), "%s/late.ini", dir);	/* after a comment: fine */
	assert_int_equal(sim_profile_load(path, p, err, sizeof(err)), 0);

	snprintf(path, sizeof(path), "%s/order.ini", dir);
	assert_int_equal(sim_profile_load(path, p, err, sizeof(err)), -1);

	/*
	 * no include: every missing key is named, as many as fit, then how
	 * many more: all of the profile's keys but the one given
	 */
	snprintf(path, sizeof(path), "%s/bad.ini", dir);
	assert_int_equal(sim_profile_load(path, p, err, sizeof(err)), -1);
#define COUNT_KEY(section, key, type, unit, meaning) + 1
	snprintf(want, sizeof(want), ": %d missing keys: machine.name, machine.description, "
		 "topology.sockets,", 0 PROFILE_FIELDS(COUNT_KEY) - 1);
#undef COUNT_KEY
	assert_non_null(strstr(err, want));
	assert_null(strstr(err, "sched.quantum_ns"));
	assert_non_null(strstr(err, " more"));
	assert_null(strchr(err, '\n'));

	for (i = 0; i < 6; i++) {
		static const char *const names[] = { "four.ini", "slow.ini", "loop.ini",
						     "late.ini", "bad.ini", "order.ini" };

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	free(base);
	free(p);
}

static void test_builtin_profiles(void **state)
{
	const char *const *names = sim_profile_builtin_names();
	struct sim_profile *p = calloc(1, sizeof(*p));
	char err[256];
	int i, nr = 0;

	for (i = 0; names[i]; i++, nr++) {
		if (sim_profile_load(names[i], p, err, sizeof(err)))
			fail_msg("%s: %s", names[i], err);
		assert_string_equal(p->machine_name, names[i]);
		/* every field has a source (machine.* included) */
#define COUNT_FIELD(sec, key, type, unit, meaning) + 1
		assert_int_equal(p->nr_sources, 0 PROFILE_FIELDS(COUNT_FIELD));
#undef COUNT_FIELD
	}
	assert_int_equal(nr, 6);
	assert_int_equal(sim_profile_load("skylake-sp-8s", p, err, sizeof(err)), 0);
	assert_int_equal(sim_profile_nr_cpus(p), 256);
	assert_int_equal(sim_profile_load("scale-1024", p, err, sizeof(err)), 0);
	assert_int_equal(sim_profile_nr_cpus(p), 1024);
	assert_int_equal(p->tlb_stlb_entries, 1536);	/* inherited from skylake-sp-2s */
	assert_int_equal(sim_profile_load("skylake-sp-2s", p, err, sizeof(err)), 0);
	assert_int_equal(sim_profile_nr_cpus(p), 80);
	assert_int_equal(p->tlb_stlb_entries, 1536);
	assert_int_equal(sim_profile_load("desktop-kvm", p, err, sizeof(err)), 0);
	assert_int_equal(p->tlb_walk_dims, 2);
	free(p);
}

/* docs/costs.md lists every key and value of every builtin profile. */
static void test_costs_doc(void **state)
{
	const char *const *names = sim_profile_builtin_names();
	FILE *f = fopen(MMSIM_SOURCE_DIR "/docs/costs.md", "r");
	char *doc = malloc(1 << 18);
	size_t n;
	int i;

	assert_non_null(f);
	assert_non_null(doc);
	n = fread(doc, 1, (1 << 18) - 1, f);
	doc[n] = '\0';
	fclose(f);
	for (i = 0; names[i]; i++) {
		const char *text = sim_profile_builtin_text(names[i]);
		char head[64], section[32] = "", line[256], row[320];
		const char *start, *end, *p = text;
		char *part;

		snprintf(head, sizeof(head), "\n## %s\n", names[i]);
		start = strstr(doc, head);
		if (!start) {
			fail_msg("docs/costs.md has no section for %s", names[i]);
			break;
		}
		end = strstr(start + 1, "\n## ");
		n = end ? (size_t)(end - start) : strlen(start);
		part = strndup(start, n);
		while (*p) {
			size_t len = strcspn(p, "\n");
			char key[64], val[128];

			snprintf(line, sizeof(line), "%.*s", (int)len, p);
			p += len + (p[len] == '\n');
			if (line[0] == '[') {
				sscanf(line, "[%31[^]]]", section);
				continue;
			}
			if (!section[0] || !strcmp(section, "sources") || !strcmp(section, "machine") ||
			    sscanf(line, "%63s = %127[^\n]", key, val) != 2)
				continue;	/* (before any section: include = NAME) */
			if (!strcmp(section, "ranges"))	/* the ranges' own table */
				snprintf(row, sizeof(row), "| %s | %s |", key, val);
			else
				snprintf(row, sizeof(row), "| %s.%s | %s |", section, key, val);
			if (!strstr(part, row))
				fail_msg("docs/costs.md, %s: no row \"%s\"", names[i], row);
		}
		free(part);
	}
	free(doc);
}

/* ---- chart tick labels (plot.c): never 5e+07 -------------------------------- */

static void test_plot_tick_labels(void **state)
{
	static const struct { double v; const char *want; } cases[] = {
		{ 0, "0" }, { 0.5, "0.5" }, { 0.0002, "0.0002" }, { 2e-5, "20\u00b5" },
		{ 3e-9, "3n" }, { 500, "500" }, { 2500, "2,500" }, { 1000, "1,000" },
		{ 12000, "12k" }, { 5e7, "50M" }, { 1.2e9, "1.2G" }, { 999999999, "1G" },
		{ 2e12, "2T" }, { -3e6, "-3M" }, { -1500, "-1,500" },
	};
	char buf[32];
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cli_plot_tick_label(cases[k].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[k].want);
		assert_null(strpbrk(buf, "eE+"));
	}
}

/* ---- the progress line (progress.c) -------------------------------------- */

static double fake_clock_s;

static double fake_clock(void)
{
	return fake_clock_s;
}

/* Hand-worked: 1 of 4 steps in 30 s leaves 3 x 30 = 90 s; 3 of 8 in 1 h leaves 5/3 h. */
static void test_progress_eta(void **state)
{
	char line[128];

	(void)state;
	assert_true(cli_progress_eta(1.0 / 4, 30) == 90);
	assert_true(cli_progress_eta(3.0 / 8, 3600) == 6000);
	assert_true(cli_progress_eta(1, 42) == 0);
	assert_true(cli_progress_eta(0, 10) < 0);	/* no rate yet */
	cli_progress_format(line, sizeof(line), "run x", 1.0 / 4, 30);
	assert_string_equal(line, "mmsim: run x: 25.0% done, about 1m30s left");
	cli_progress_format(line, sizeof(line), "sweep", 3.0 / 8, 3600);
	assert_string_equal(line, "mmsim: sweep: 37.5% done, about 1h40m left");
	cli_progress_format(line, sizeof(line), "sweep", 0.5, 7);
	assert_string_equal(line, "mmsim: sweep: 50.0% done, about 7s left");
	cli_progress_format(line, sizeof(line), "run x", -1, 12);
	assert_string_equal(line, "mmsim: run x: running for 12 s");
}

/* Standard error not a terminal (a file): not one byte, however long the run. */
static void test_progress_silent_off_tty(void **state)
{
	struct cli c = { 0 };
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	c.err = f;
	cli_progress_set_clock(fake_clock);
	fake_clock_s = 100;
	cli_progress_begin(&c, "run x", 4);
	fake_clock_s = 130;
	cli_progress_step(1);
	fake_clock_s = 160;
	cli_progress_step(2);
	cli_progress_end();
	cli_progress_set_clock(NULL);
	assert_int_equal(ftell(f), 0);
	fclose(f);
}

/* What a pseudo-terminal's master reads, NUL-terminated. */
static size_t pty_read(int master, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(master, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return n;
}

/* On a terminal: the line, its estimate, and never a smaller share than shown. */
static void test_progress_tty(void **state)
{
	struct cli c = { 0 };
	char buf[1024];
	int master, slave;
	FILE *err;

	(void)state;
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		if (master >= 0)
			close(master);
		skip();
	}
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	assert_true(slave >= 0);
	assert_int_equal(fcntl(master, F_SETFL, O_NONBLOCK), 0);
	err = fdopen(slave, "w");
	assert_non_null(err);
	c.err = err;
	cli_progress_set_clock(fake_clock);
	fake_clock_s = 100;
	cli_progress_begin(&c, "run x", 4);
	fake_clock_s = 101;		/* under 2 s: nothing yet */
	cli_progress_step(1);
	pty_read(master, buf, sizeof(buf));
	assert_int_equal(buf[0], '\0');
	fake_clock_s = 130;
	cli_progress_step(1);
	pty_read(master, buf, sizeof(buf));
	assert_non_null(strstr(buf, "mmsim: run x: 25.0% done, about 1m30s left"));
	fake_clock_s = 140;
	cli_progress_step(2);
	pty_read(master, buf, sizeof(buf));
	assert_non_null(strstr(buf, "50.0% done, about 40s left"));
	fake_clock_s = 150;		/* a smaller share: the line keeps 50% */
	cli_progress_step(1);
	pty_read(master, buf, sizeof(buf));
	assert_non_null(strstr(buf, "50.0% done, about 50s left"));
	assert_null(strstr(buf, "25.0%"));
	cli_progress_end();
	cli_progress_set_clock(NULL);
	pty_read(master, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\r\033[K"));	/* the line cleared */
	fclose(err);
	close(master);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_exact),
		cmocka_unit_test(test_table_one_variant_no_delta),
		cmocka_unit_test(test_reproduce_columns),
		cmocka_unit_test(test_full_output_sections),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_csv_rows),
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_json_reproduce_published),
		cmocka_unit_test(test_json_file_written_whole),
		cmocka_unit_test(test_json_missing_dir),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_internal_failure),
		cmocka_unit_test(test_cost_override),
		cmocka_unit_test(test_list_show_help),
		cmocka_unit_test(test_param_parse),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_profile_errors),
		cmocka_unit_test(test_profile_file),
		cmocka_unit_test(test_builtin_profiles),
		cmocka_unit_test(test_costs_doc),
		cmocka_unit_test(test_lock_stat_format),
		cmocka_unit_test(test_profile_include),
		cmocka_unit_test(test_version_help_jobs),
		cmocka_unit_test(test_interrupts_vmstat),
		cmocka_unit_test(test_profiles_from_host),
		cmocka_unit_test(test_profiles_inherited_sources),
		cmocka_unit_test(test_plot_tick_labels),
		cmocka_unit_test(test_progress_eta),
		cmocka_unit_test(test_progress_silent_off_tty),
		cmocka_unit_test(test_progress_tty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
