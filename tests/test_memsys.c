// SPDX-License-Identifier: GPL-2.0-only
/*
 * The memory system (src/hw/memsys.c), with answers worked out by hand.
 * The test machine (engine_util.h) gets: node DRAM 64 GB/s for writes,
 * 10 line fill buffers per core, DRAM latency 80 ns local and 160 ns
 * remote, so a core keeps 10 x 64 B in flight: 8 GB/s to its own node,
 * 4 GB/s to the other; its own store rate (zero_gbps) is 16 GB/s.
 * 1 GB/s is 1 byte per ns: 4 KiB at 64 GB/s takes 64 ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_util.h"
#include "mmsim/hw.h"
#include "mmsim/memsys.h"
#include "mmsim/scenario.h"

static struct sim_profile prof;
static struct memsys *ms;
static sim_time_t end_ps[16];
static int nr_requests;
static uint64_t request_bytes;

static void memsys_profile(int sockets, int cores)
{
	test_profile(&prof, sockets, cores, 1);
	prof.mem_node_write_gbps = 64;
	prof.mem_node_read_gbps = 64;
	prof.mem_line_fill_buffers = 10;
	prof.mem_string_store_rfo = 1;
	prof.cache_dram_local_ns = 80;
	prof.cache_dram_remote_ns = 160;
	prof.mem_upi_links = 1;
	prof.mem_upi_mtps = 8000;		/* 16 GB/s each way */
}

static struct sim_engine *new_engine(int cpus)
{
	struct sim_engine_opts o = { .profile = &prof, .nr_cpus = cpus, .seed = 1 };
	struct sim_engine *e = sim_engine_create(&o);

	assert_non_null(e);
	ms = memsys_create(&prof, (int)(prof.topology_sockets * prof.topology_cores_per_socket));
	assert_non_null(ms);
	memset(end_ps, 0, sizeof(end_ps));
	return e;
}

/* Write nr_requests x request_bytes to node 0, one request after another. */
static void writer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < nr_requests; i++)
		memsys_write(ms, 0, request_bytes, prof.mem_zero_gbps);
	end_ps[smp_processor_id()] = sim_now();
}

static void run_writers(struct sim_engine *e, const int *cpus, int n)
{
	int i;

	for (i = 0; i < n; i++)
		assert_non_null(sim_task_create(e, cpus[i], "writer", writer, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
}

/*
 * One core zeroing 64 KiB alone.  Local: lines in flight bound it,
 * 64 KiB x 80 ns / 640 B = 8192 ns (its store rate would take 4096 ns,
 * the node 1024 ns).  Remote: 64 KiB x 160 ns / 640 B = 16384 ns; the
 * link would take 4096 ns.
 */
static void test_one_core_alone(void **state)
{
	struct sim_engine *e;
	int cpu;

	(void)state;
	memsys_profile(2, 2);
	nr_requests = 1;
	request_bytes = 65536;
	e = new_engine(4);
	cpu = 0;
	run_writers(e, &cpu, 1);
	assert_int_equal(end_ps[0], 8192 * SIM_NS);
	assert_int_equal(ms->node[0].bytes, 65536);
	assert_int_equal(ms->link[1][0].bytes, 0);
	memsys_destroy(ms);
	sim_engine_destroy(e);

	/*
	 * mem.string_store_rfo = 0: the stores do not wait for their lines,
	 * so the core's store rate bounds them, 4096 ns.
	 */
	memsys_profile(2, 2);
	prof.mem_string_store_rfo = 0;
	e = new_engine(4);
	run_writers(e, &cpu, 1);
	assert_int_equal(end_ps[0], 4096 * SIM_NS);
	memsys_destroy(ms);
	sim_engine_destroy(e);
	prof.mem_string_store_rfo = 1;

	e = new_engine(4);
	cpu = 2;
	run_writers(e, &cpu, 1);
	assert_int_equal(end_ps[2], 16384 * SIM_NS);
	assert_int_equal(ms->link[1][0].bytes, 65536);
	assert_int_equal(ms->link[0][1].bytes, 0);
	memsys_destroy(ms);
	sim_engine_destroy(e);
}

/* Zero nr_requests pages of node 0, one after another. */
static void zeroer(void *arg)
{
	(void)arg;
	for (int i = 0; i < nr_requests; i++)
		memsys_zero(ms, 0, 4096, prof.mem_zero_gbps);
	end_ps[smp_processor_id()] = sim_now();
}

/*
 * mem.page_zero_ns (write-behind): one core zeroing pages back to back.
 * The node writes 4 KiB in 64 ns (64 GB/s); the core spends 30 ns a page;
 * the caches hold back 1 MiB of L3 (16384 ns at 64 GB/s).  So the first
 * pages cost 30 ns each, until the node's backlog passes the window; then
 * each costs the node's 64 ns: 1000 pages take 30 ns x n1 + 64 ns x the
 * rest, where the backlog (34 ns a page) passes 16384 ns after 482 pages.
 * With mem.page_zero_ns 0 each page is memsys_write()'s: lines in flight,
 * 4096 x 80 ns / 640 B = 512 ns a page.
 */
/* Run zeroer() on cpu 0 of a new engine: the time it ended. */
static sim_time_t run_zeroer(void)
{
	struct sim_engine *e = new_engine(2);
	sim_time_t end;

	assert_non_null(sim_task_create(e, 0, "zeroer", zeroer, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	end = end_ps[0];
	assert_int_equal(ms->node[0].bytes, 4096 * (uint64_t)nr_requests);
	memsys_destroy(ms);
	sim_engine_destroy(e);
	return end;
}

static void test_zero_write_behind(void **state)
{
	sim_time_t end;

	(void)state;
	memsys_profile(1, 2);
	prof.mem_page_zero_ns = 30;
	prof.cache_l3_kib = 1024;
	nr_requests = 1;
	assert_int_equal(run_zeroer(), 30 * SIM_NS);
	/* bandwidth-bound at the end: 1000 x 64 ns less the window, within a page */
	nr_requests = 1000;
	end = run_zeroer();
	assert_true(end >= (1000 * 64 - 16384 - 64) * SIM_NS);
	assert_true(end <= (1000 * 64 - 16384 + 64) * SIM_NS);
	prof.mem_page_zero_ns = 0;
	nr_requests = 1;
	assert_int_equal(run_zeroer(), 512 * SIM_NS);
}

/*
 * mem.zero_l3_gbps: a folio's first page at mem.page_zero_ns, the pages
 * after it drained at the L3's zeroing rate.  A 16K folio, 30 ns and 64
 * GB/s (4096 B in 64 ns): 30 + 3 x 64 = 222 ns; without the rate 4 x 30;
 * a 4K page 30 ns either way.
 */
static uint64_t zero_bytes;

static void folio_zeroer(void *arg)
{
	(void)arg;
	memsys_zero(ms, 0, zero_bytes, prof.mem_zero_gbps);
	end_ps[0] = sim_now();
}

static sim_time_t run_folio_zeroer(uint64_t bytes)
{
	struct sim_engine *e = new_engine(2);
	sim_time_t end;

	zero_bytes = bytes;
	assert_non_null(sim_task_create(e, 0, "zeroer", folio_zeroer, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	end = end_ps[0];
	memsys_destroy(ms);
	sim_engine_destroy(e);
	return end;
}

static void test_zero_folio_drain(void **state)
{
	(void)state;
	memsys_profile(1, 2);
	prof.mem_page_zero_ns = 30;
	prof.cache_l3_kib = 1024;	/* the write-back behind, as above */
	prof.mem_zero_l3_gbps = 64;
	assert_int_equal(run_folio_zeroer(16384), 222 * SIM_NS);
	assert_int_equal(run_folio_zeroer(4096), 30 * SIM_NS);
	prof.mem_zero_l3_gbps = 0;
	assert_int_equal(run_folio_zeroer(16384), 120 * SIM_NS);
}

/*
 * Sixteen cores of one socket each zero 64 KiB in 4 KiB requests: they
 * ask for 16 x 8 GB/s = 128 GB/s of a 64 GB/s node.  The node is never
 * idle, so the last request ends at 1 MiB / 64 GB/s = 16384 ns; shared
 * fairly, no core ends before the last round of requests,
 * 16384 - 16 x 64 ns = 15360 ns.  (Alone, each would take 8192 ns.)
 */
static void test_socket_saturates_controller(void **state)
{
	int cpus[16], i;
	struct sim_engine *e;
	sim_time_t first = ~(sim_time_t)0, last = 0;

	(void)state;
	memsys_profile(1, 16);
	nr_requests = 16;
	request_bytes = 4096;
	e = new_engine(16);
	for (i = 0; i < 16; i++)
		cpus[i] = i;
	run_writers(e, cpus, 16);
	for (i = 0; i < 16; i++) {
		if (end_ps[i] < first)
			first = end_ps[i];
		if (end_ps[i] > last)
			last = end_ps[i];
	}
	assert_int_equal(last, 16384 * SIM_NS);
	assert_true(first >= 15360 * SIM_NS);
	assert_int_equal(ms->node[0].busy_ps, 16384 * SIM_NS);
	memsys_destroy(ms);
	sim_engine_destroy(e);
}

/*
 * Two cores of socket 1 each zero 64 KiB on node 0 through one 4 GB/s
 * link (1 link x 2000 MT/s x 2 B), in 4 KiB requests.  Alone, a core is
 * bound at 4 GB/s by both its lines in flight (160 ns remote) and the
 * link: 16384 ns.  Together they share the link: 128 KiB / 4 GB/s =
 * 32768 ns for the last, and neither ends before 32768 - 2 x 1024 ns.
 * A load that crosses the same link meanwhile waits behind its backlog.
 */
static sim_time_t loaded_ps, probe_ps;

static void probe(void *arg)
{
	(void)arg;
	sim_sleep_ps(100 * SIM_NS);
	sim_sync();	/* the writers have made their first requests */
	loaded_ps = memsys_loaded_latency_ps(ms, smp_processor_id(), 1, sim_now());
	probe_ps = sim_now();
}

static void test_two_flows_share_link(void **state)
{
	struct sim_engine *e;
	int cpus[2] = { 2, 3 };

	(void)state;
	memsys_profile(2, 2);
	prof.mem_upi_mtps = 2000;
	nr_requests = 16;
	request_bytes = 4096;
	e = new_engine(4);
	run_writers(e, cpus, 1);
	assert_int_equal(end_ps[2], 16384 * SIM_NS);
	memsys_destroy(ms);
	sim_engine_destroy(e);

	e = new_engine(4);
	assert_non_null(sim_task_create(e, 0, "probe", probe, NULL));
	run_writers(e, cpus, 2);
	assert_int_equal(end_ps[2] > end_ps[3] ? end_ps[2] : end_ps[3], 32768 * SIM_NS);
	assert_true(end_ps[2] >= 30720 * SIM_NS && end_ps[3] >= 30720 * SIM_NS);
	assert_int_equal(ms->link[1][0].busy_ps, 32768 * SIM_NS);
	/*
	 * A load by cpu0 from node 1 brings its line over link 1 -> 0, the
	 * writers' link.  The probe starts after a context switch (1000 ns)
	 * and sleeps 100 ns: at 1100 ns the writers have reserved the link
	 * for [0, 1024], [1024, 2048] and [2048, 3072] ns, so the load waits
	 * 1972 ns behind them: 160 + 1972 = 2132 ns.
	 */
	assert_int_equal(probe_ps, 1100 * SIM_NS);
	assert_int_equal(loaded_ps, 2132 * SIM_NS);
	memsys_destroy(ms);
	sim_engine_destroy(e);
}

/*
 * The memory directory: a line written from the other socket costs its
 * node a second DRAM write.  With the node at 4 GB/s (4 KiB in 1024 ns),
 * a core of socket 1 zeroing 64 KiB on node 0 is bound by the node, not by
 * its lines in flight (16384 ns): without the directory the node serves
 * 64 KiB in 16384 ns, with it 128 KiB in 32768 ns.  A core of socket 0
 * costs one write a line either way.  A remote load of 4 KiB at 64 GB/s
 * (memsys_read()) costs 64 ns of reading and, with the directory, 64 ns
 * of writing.
 */
static void test_directory_remote_writes(void **state)
{
	struct sim_engine *e;
	int cpu;
	uint64_t dir;

	(void)state;
	for (dir = 0; dir <= 1; dir++) {
		memsys_profile(2, 2);
		prof.mem_node_write_gbps = 4;
		prof.mem_directory = dir;
		nr_requests = 16;
		request_bytes = 4096;
		e = new_engine(4);
		cpu = 2;
		run_writers(e, &cpu, 1);
		assert_int_equal(end_ps[2], (dir ? 32768 : 16384) * SIM_NS);
		assert_int_equal(ms->node[0].busy_ps, (dir ? 32768 : 16384) * SIM_NS);
		assert_int_equal(ms->node[0].bytes, dir ? 131072 : 65536);
		memsys_destroy(ms);
		sim_engine_destroy(e);

		e = new_engine(4);
		cpu = 0;
		run_writers(e, &cpu, 1);
		assert_int_equal(end_ps[0], 16384 * SIM_NS);
		assert_int_equal(ms->node[0].bytes, 65536);
		memsys_destroy(ms);
		sim_engine_destroy(e);

		memsys_profile(2, 2);
		prof.mem_directory = dir;
		ms = memsys_create(&prof, 4);
		assert_non_null(ms);
		memsys_read(ms, 2, 0, 0, 4096);
		assert_int_equal(ms->node[0].busy_ps, (dir ? 128 : 64) * SIM_NS);
		memsys_read(ms, 0, 0, 0, 4096);
		assert_int_equal(ms->node[0].busy_ps, (dir ? 192 : 128) * SIM_NS);
		memsys_destroy(ms);
	}
}

static void test_loaded_latency_remote(void **state)
{
	struct sim_engine *e;

	(void)state;
	memsys_profile(2, 2);
	e = new_engine(4);
	/* Idle: the profile's latencies. */
	assert_int_equal(memsys_loaded_latency_ps(ms, 0, 0, 0), 80 * SIM_NS);
	/* A load from cpu2 (socket 1) to node 0 brings data from socket 0 to
	 * socket 1: a backlog on link 1 -> 0 is not on its path, one on 0 -> 1 is. */
	ms->link[1][0].busy_until = 1000 * SIM_NS;
	assert_int_equal(memsys_loaded_latency_ps(ms, 2, 0, 0), 160 * SIM_NS);
	ms->link[0][1].busy_until = 1000 * SIM_NS;
	assert_int_equal(memsys_loaded_latency_ps(ms, 2, 0, 0), 1160 * SIM_NS);
	memsys_destroy(ms);
	sim_engine_destroy(e);
}

/*
 * A line that four CPUs write with atomics at once (a shared lock word,
 * sim_line_rmw_queued()): each RMW owns the line for its transfer from the
 * last writer and the atomic (10 cycles = 10 ns), one after another.  CPU
 * n arrives at n ns: cpu0 takes the untouched line (a hit, 1 ns): 0..11; cpu1
 * from cpu0, same socket (50): 11..71; cpu2 from cpu1, other socket
 * (100): 71..181; cpu3 from cpu2, same socket: 181..241.  Without the
 * queue each would pay only its own transfer.
 */
static struct sim_line rmw_line = SIM_LINE_INIT;
static sim_time_t rmw_busy;

static void rmw_body(void *arg)
{
	(void)arg;
	sim_cost_ps(smp_processor_id() * SIM_NS);	/* arrive in CPU order */
	sim_sync();
	sim_line_rmw_queued(&rmw_line, &rmw_busy);
	end_ps[smp_processor_id()] = sim_now();
}

static void test_contended_line_queues(void **state)
{
	struct sim_engine *e;
	int cpu;

	(void)state;
	memsys_profile(2, 2);
	e = new_engine(4);
	rmw_line.last_writer = -1;
	rmw_busy = 0;
	for (cpu = 0; cpu < 4; cpu++)
		assert_non_null(sim_task_create(e, cpu, "rmw", rmw_body, NULL));
	assert_int_equal(sim_engine_run(e, NULL, 0), 0);
	assert_int_equal(end_ps[0], 11 * SIM_NS);
	assert_int_equal(end_ps[1], 71 * SIM_NS);
	assert_int_equal(end_ps[2], 181 * SIM_NS);
	assert_int_equal(end_ps[3], 241 * SIM_NS);
	assert_int_equal(rmw_busy, 241 * SIM_NS);
	memsys_destroy(ms);
	sim_engine_destroy(e);
}

/* The desktop's curve (profiles/desktop.ini, from Intel MLC [S21]). */
#define DESKTOP_CURVE "0:1000 19:1027 45:1056 99:1083 217:1126 315:1154 504:1207 968:1509 1000:1590"

static void test_curve(void **state)
{
	struct memsys_curve c;

	(void)state;
	assert_int_equal(memsys_parse_curve(DESKTOP_CURVE, &c), 0);
	assert_int_equal(c.nr, 9);
	/* On a point: the point. */
	assert_int_equal(memsys_curve_at(&c, 0), 1000);
	assert_int_equal(memsys_curve_at(&c, 504), 1207);
	assert_int_equal(memsys_curve_at(&c, 1000), 1590);
	/* Between 315:1154 and 504:1207: 1154 + 53 x 85 / 189 = 1154 + 23 (floor). */
	assert_int_equal(memsys_curve_at(&c, 400), 1177);
	/* Between 504:1207 and 968:1509: 1207 + 302 x 236 / 464 = 1207 + 153. */
	assert_int_equal(memsys_curve_at(&c, 740), 1360);
	/* No curve: always idle. */
	assert_int_equal(memsys_parse_curve("none", &c), 0);
	assert_int_equal(memsys_curve_at(&c, 900), 1000);
	/* Bad: not from 0, not rising, latency under idle, trailing text. */
	assert_int_equal(memsys_parse_curve("10:1000", &c), -1);
	assert_int_equal(memsys_parse_curve("0:1000 500:1200 500:1300", &c), -1);
	assert_int_equal(memsys_parse_curve("0:900", &c), -1);
	assert_int_equal(memsys_parse_curve("0:1000,", &c), -1);
}

/*
 * Loads as traffic, and the latency under that load.  Node 0 reads at
 * 64 GB/s: 256,000 B of reads at t = 0 ask it 4000 ns of service.  The
 * window closes at the first request 10 us or more after it opened: a read
 * at 10 us finds 4000 ns of service in 10,000 ns, 40% (400 per mille).
 * With the desktop's curve a load then waits 80 ns x 1177 / 1000 =
 * 94.16 ns.  Before the window closes, loads see the idle latency; loads
 * make no queue (no backlog for the next load).
 */
static void test_loaded_latency_curve(void **state)
{
	struct sim_engine *e;

	(void)state;
	memsys_profile(1, 2);
	snprintf(prof.mem_loaded_latency, sizeof(prof.mem_loaded_latency), "%s", DESKTOP_CURVE);
	e = new_engine(2);
	memsys_read(ms, 0, 0, 0, 256000);
	assert_int_equal(ms->node[0].bytes, 256000);
	assert_int_equal(ms->node[0].busy_ps, 4000 * SIM_NS);
	assert_int_equal(memsys_loaded_latency_ps(ms, 0, 0, 0), 80 * SIM_NS);
	assert_int_equal(memsys_loaded_latency_ps(ms, 0, 0, 5000 * SIM_NS), 80 * SIM_NS);
	memsys_read(ms, 1, 0, 10 * SIM_US, 0);
	assert_int_equal(ms->load[0].util_permille, 400);
	assert_int_equal(memsys_loaded_latency_ps(ms, 0, 0, 10 * SIM_US), 94160);
	/* A full window: 100%, 1.59 x 80 ns = 127.2 ns. */
	memsys_read(ms, 0, 0, 10 * SIM_US, 640000);
	memsys_read(ms, 0, 0, 20 * SIM_US, 0);
	assert_int_equal(memsys_loaded_latency_ps(ms, 0, 0, 20 * SIM_US), 127200);
	/*
	 * Twice the bandwidth asked: the loads are stretched by 2 (each flow
	 * gets half of what it asked), 2 x 127.2 = 254.4 ns.  The next window
	 * asks what the stretched flows ask, 100%: the stretch stays 2 x 1.
	 */
	memsys_read(ms, 0, 0, 20 * SIM_US, 1280000);
	memsys_read(ms, 0, 0, 30 * SIM_US, 0);
	assert_int_equal(ms->load[0].stretch_permille, 2000);
	assert_int_equal(memsys_loaded_latency_ps(ms, 0, 0, 30 * SIM_US), 254400);
	memsys_read(ms, 0, 0, 30 * SIM_US, 640000);
	memsys_read(ms, 0, 0, 40 * SIM_US, 0);
	assert_int_equal(ms->load[0].stretch_permille, 2000);
	/* The demand gone: an empty window, idle again. */
	memsys_read(ms, 0, 0, 50 * SIM_US, 0);
	assert_int_equal(ms->load[0].stretch_permille, 1000);
	assert_int_equal(memsys_loaded_latency_ps(ms, 0, 0, 50 * SIM_US), 80 * SIM_NS);
	memsys_destroy(ms);
	sim_engine_destroy(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_core_alone),
		cmocka_unit_test(test_zero_write_behind),
		cmocka_unit_test(test_zero_folio_drain),
		cmocka_unit_test(test_socket_saturates_controller),
		cmocka_unit_test(test_two_flows_share_link),
		cmocka_unit_test(test_directory_remote_writes),
		cmocka_unit_test(test_loaded_latency_remote),
		cmocka_unit_test(test_contended_line_queues),
		cmocka_unit_test(test_curve),
		cmocka_unit_test(test_loaded_latency_curve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
