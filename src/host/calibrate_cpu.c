// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim calibrate`: the CPU's side of this machine.
 *
 *   topology.*          /sys/devices/system/cpu/cpuN/topology, /sys/devices/system/node
 *   cache.*_kib, _ways  /sys/devices/system/cpu/cpu0/cache/indexN
 *   clock.mhz           a chain of dependent adds (one cycle each) on every CPU at once
 *   cache.l1d/l2/l3_cycles  pointer chase over half of each level (L3: at
 *                       most 4 x L2), in 2M pages
 *   mem.loads_per_cycle 12 independent L1 loads a loop iteration (x86)
 *   lock.atomic_cycles  back-to-back lock xadd on one line this CPU owns
 *   lock.pause_cycles   a loop of PAUSE (x86)
 *   tlb.* geometry      cpuid 0x80000005/0x80000006 (AMD), leaf 0x18 (Intel)
 *   tlb.stlb_hit_cycles, walk_cycles  the same lines chased in few 4K pages
 *                       and spread one per page over many: the difference
 *   mm.syscall_ns       getppid()
 *   sched.context_switch_ns  pipe ping-pong of two threads pinned on one CPU
 *   sched.wakeup_ns     the same across two CPUs, less a switch and the pipe
 *   sched.fork_us       fork() in the parent, the child exits at once
 *
 * Single-thread loops are timed with the thread's CPU clock, so that
 * another process sharing the CPU does not count; anything that waits for
 * another CPU or thread is timed with CLOCK_MONOTONIC.
 * Mirrors no kernel function.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "host/calibrate.h"
#include "host/topology.h"
#include "host/live_internal.h"
#include "mmsim/workload.h"

/* The calling thread's CPU time, in ns: what it ran, not what it waited. */
static double cal_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The machine's /sys: the real one.  MMSIM_LIVE_SYS_ROOT fakes only the
 * THP settings that live mode writes (tests/validate.sh); a test that
 * fakes the CPUs themselves sets MMSIM_CALIBRATE_SYS_ROOT (tests/calibrate.sh).
 */
static int cal_sys_path(char *buf, size_t len, const char *abs)
{
	return host_sys_path(buf, len, getenv("MMSIM_CALIBRATE_SYS_ROOT"), abs);
}

static int cal_read_int(const char *abs, long *v)
{
	char path[512], buf[64];

	if (cal_sys_path(path, sizeof(path), abs) || live_read_file(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	*v = strtol(buf, NULL, 10);
	return 0;
}

static int cal_read_text(const char *abs, char *buf, size_t len)
{
	char path[512];
	ssize_t n;

	if (cal_sys_path(path, sizeof(path), abs))
		return -ENOENT;
	n = live_read_file(path, buf, len);
	if (n <= 0)
		return -ENOENT;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* The L3 instance of @cpu: its shared_cpu_list, "" if none. */
static void cal_llc_of(int cpu, char *buf, size_t len)
{
	char abs[160];
	long level;

	buf[0] = '\0';
	for (int i = 0; i < 8; i++) {
		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
		if (cal_read_int(abs, &level))
			break;
		if (level != 3)
			continue;
		snprintf(abs, sizeof(abs),
			 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
		cal_read_text(abs, buf, len);
	}
}

/* Ways the model can take: 1-16 that divide @lines (cache) or give power-of-two sets (TLB). */
static void cal_fit_ways(uint64_t entries, uint64_t ways, bool pow2_sets, uint64_t *e_out,
			 uint64_t *w_out)
{
	uint64_t w, sets;

	if (ways >= 1 && ways <= 16 && entries % ways == 0 &&
	    (!pow2_sets || !((entries / ways) & (entries / ways - 1)))) {
		*e_out = entries;
		*w_out = ways;
		return;
	}
	for (w = 16; w >= 1; w--) {	/* fully associative, or too many ways */
		sets = entries / w;
		if (entries % w == 0 && sets && (!pow2_sets || !(sets & (sets - 1)))) {
			*e_out = entries;
			*w_out = w;
			return;
		}
	}
	w = ways >= 1 && ways <= 16 ? ways : 16;
	for (sets = 1; sets * 2 * w <= entries; sets *= 2)
		;
	*e_out = sets * w;
	*w_out = w;
}

static void cal_cache_geometry(struct cal_run *r)
{
	const char *names[] = { NULL, "l1d", "l2", "l3" };
	char abs[160], type[32], list[256], seen[16][256];
	int nr_seen = 0;

	for (int i = 0; i < 8; i++) {
		long level, kib, ways;
		uint64_t lines, e, w, inst = 1;
		char key[48], sz[32];

		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
			 r->cpus[0], i);
		if (cal_read_int(abs, &level))
			break;
		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/cache/index%d/type",
			 r->cpus[0], i);
		if (cal_read_text(abs, type, sizeof(type)) || !strcmp(type, "Instruction") ||
		    level < 1 || level > 3)
			continue;
		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
			 r->cpus[0], i);
		if (cal_read_text(abs, sz, sizeof(sz)))
			continue;
		kib = strtol(sz, NULL, 10) * (strchr(sz, 'M') ? 1024 : 1);
		snprintf(abs, sizeof(abs),
			 "/sys/devices/system/cpu/cpu%d/cache/index%d/ways_of_associativity",
			 r->cpus[0], i);
		if (cal_read_int(abs, &ways))
			ways = 0;
		if (kib <= 0)
			continue;
		if (level == 1)
			r->l1d_bytes = (uint64_t)kib << 10;
		else if (level == 2)
			r->l2_bytes = (uint64_t)kib << 10;
		else
			r->llc_bytes = (uint64_t)kib << 10;
		if (level == 3) {
			/* per socket: this instance times the instances on the socket */
			for (int c = 0; c < r->nr_cpus; c++) {
				long pkg0 = 0, pkg = 0;
				bool dup = false;

				snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/topology/"
					 "physical_package_id", r->cpus[0]);
				cal_read_int(abs, &pkg0);
				snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/topology/"
					 "physical_package_id", r->cpus[c]);
				cal_read_int(abs, &pkg);
				if (pkg != pkg0)
					continue;
				cal_llc_of(r->cpus[c], list, sizeof(list));
				for (int s = 0; s < nr_seen; s++)
					dup |= !strcmp(seen[s], list);
				if (!dup && nr_seen < 16)
					snprintf(seen[nr_seen++], sizeof(seen[0]), "%s", list);
			}
			inst = nr_seen ? (uint64_t)nr_seen : 1;
		}
		lines = (uint64_t)kib * inst * 1024 / 64;
		cal_fit_ways(lines, (uint64_t)ways, false, &e, &w);
		snprintf(key, sizeof(key), "cache.%s_kib", names[level]);
		cal_key_set(r, key, e * 64 / 1024, "measured: sysfs cache/index%d/size%s, %s", i,
			    inst > 1 ? " x the L3s of a socket" : "", r->date);
		snprintf(key, sizeof(key), "cache.%s_ways", names[level]);
		if (w == (uint64_t)ways)
			cal_key_set(r, key, w, "measured: sysfs cache/index%d/ways_of_associativity, %s",
				    i, r->date);
		else
			cal_key_set(r, key, w, "derived: sysfs says %ld ways; the model takes 1-16 "
				    "that divide the lines, %s", ways, r->date);
	}
}

/**
 * cal_topology - CPUs, sockets, cores, threads, nodes and caches of this machine
 * @r: the run; cpus, pairs and geometry filled, topology keys set
 * @err: why the machine cannot be measured
 * @len: size of @err
 *
 * Return: 0, or -ENODEV when /sys lists no CPU that this process may run on.
 */
int cal_topology(struct cal_run *r, char *err, size_t len)
{
	static struct host_topology t;
	char llc_a[256], llc_b[256];
	cpu_set_t allowed;

	for (int i = 0; i < 2; i++)
		r->pair_smt[i] = r->pair_llc[i] = r->pair_socket[i] = r->pair_remote[i] = -1;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	if (host_topology_read(&t, getenv("MMSIM_CALIBRATE_SYS_ROOT"), &allowed)) {
		snprintf(err, len, "calibrate: this machine cannot be measured: /sys/devices/system/cpu "
			 "lists no CPU topology for the CPUs this process may run on");
		return -ENODEV;
	}
	r->nr_cpus = t.nr_cpus < CAL_MAX_CPUS ? t.nr_cpus : CAL_MAX_CPUS;
	for (int i = 0; i < r->nr_cpus; i++) {
		r->cpus[i] = t.cpu[i];
		for (int j = 0; j < i; j++) {
			bool same_pkg = t.pkg[j] == t.pkg[i], same_core = t.core[j] == t.core[i];

			if (same_pkg && same_core && r->pair_smt[0] < 0) {
				r->pair_smt[0] = t.cpu[j];
				r->pair_smt[1] = t.cpu[i];
			}
			if (!same_pkg && r->pair_remote[0] < 0) {
				r->pair_remote[0] = t.cpu[j];
				r->pair_remote[1] = t.cpu[i];
			}
			if (same_pkg && !same_core) {
				cal_llc_of(t.cpu[j], llc_a, sizeof(llc_a));
				cal_llc_of(t.cpu[i], llc_b, sizeof(llc_b));
				if (!strcmp(llc_a, llc_b) && r->pair_llc[0] < 0) {
					r->pair_llc[0] = t.cpu[j];
					r->pair_llc[1] = t.cpu[i];
				} else if (strcmp(llc_a, llc_b) && r->pair_socket[0] < 0) {
					r->pair_socket[0] = t.cpu[j];
					r->pair_socket[1] = t.cpu[i];
				}
			}
		}
	}
	r->sockets = t.sockets;
	r->threads_per_core = t.threads_per_core;
	r->cores_per_socket = t.cores_per_socket;
	r->nodes = t.nodes > 8 ? 8 : t.nodes;	/* the most a profile has */
	r->hypervisor = t.hypervisor;
	snprintf(r->cpu_model, sizeof(r->cpu_model), "%s", t.model);
	cal_key_set(r, "topology.sockets", (uint64_t)r->sockets,
		    "measured: distinct physical_package_id in sysfs, %s", r->date);
	cal_key_set(r, "topology.cores_per_socket", (uint64_t)r->cores_per_socket,
		    "measured: distinct core_id per package in sysfs, %s", r->date);
	cal_key_set(r, "topology.threads_per_core", (uint64_t)r->threads_per_core,
		    "measured: CPUs per core in sysfs, %s", r->date);
	cal_key_set(r, "topology.nodes", (uint64_t)r->nodes,
		    "measured: /sys/devices/system/node, %s", r->date);
	if (r->hypervisor)
		cal_key_set(r, "tlb.walk_dims", 2,
			    "measured: the hypervisor CPU flag: a guest walks two dimensions, %s",
			    r->date);
	cal_cache_geometry(r);
	return 0;
}

/* ---- the clock ---- */

struct cal_clock_arg {
	int cpu;
	double ms;			/* how long to run */
	double mhz;			/* the result */
};

/**
 * host_clock_mhz - the clock this thread runs at, measured
 * @ms: how long to measure (thread CPU time)
 *
 * A chain of dependent one-cycle adds: adds over time is the core clock,
 * whatever /proc/cpuinfo says (in a guest its "cpu MHz" is the TSC's rate).
 * Used by calibrate (clock.mhz) and by live runs whose metric is in cycles.
 *
 * Return: MHz, or 0 on an architecture without the chain.
 */
double host_clock_mhz(double ms)
{
	uint64_t adds = 0, x = 0;
	double t0, t1;

#if !defined(__x86_64__) && !defined(__aarch64__)
	return 0;
#endif
	t0 = cal_cpu_ns();
	do {
		for (int i = 0; i < 1000; i++) {
#if defined(__x86_64__)
			__asm__ volatile(
#define CAL_ADD8 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t" \
		 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
				CAL_ADD8 CAL_ADD8 CAL_ADD8 CAL_ADD8 : "+r"(x));
#undef CAL_ADD8
#elif defined(__aarch64__)
			__asm__ volatile(
#define CAL_ADD8 "add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t" \
		 "add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\t"
				CAL_ADD8 CAL_ADD8 CAL_ADD8 CAL_ADD8 : "+r"(x));
#undef CAL_ADD8
#endif
		}
		adds += 32000;
		t1 = cal_cpu_ns();
	} while (t1 - t0 < ms * 1e6);
	return (double)adds / (t1 - t0) * 1000;
}

static void *cal_clock_thread(void *p)
{
	struct cal_clock_arg *a = p;

	cal_pin(a->cpu);
	a->mhz = host_clock_mhz(a->ms);
	return NULL;
}

/**
 * cal_clock - the core clock under load
 * @r: the run; mhz set
 *
 * Every allowed CPU (up to 64) runs a chain of dependent one-cycle adds at
 * once; cycles per ns of the thread's own CPU time is the clock, turbo and
 * all-core limits included.  Elsewhere than x86-64 and arm64 the chain is
 * not written, and /proc/cpuinfo's MHz is cited instead.
 */
void cal_clock(struct cal_run *r)
{
	int runs = r->quick ? 3 : 7, nr = r->nr_cpus < 64 ? r->nr_cpus : 64;
	struct cal_clock_arg a[64];
	pthread_t t[64];
	double v[16];
	struct cal_stat s;
	char method[80];

	cal_progress(r, "clock under load");
#if defined(__x86_64__) || defined(__aarch64__)
	for (int run = 0; run < runs; run++) {
		double sum = 0;
		int ok = 0;

		for (int i = 0; i < nr; i++) {
			a[i] = (struct cal_clock_arg){ .cpu = r->cpus[i], .ms = r->quick ? 15 : 40 };
			if (pthread_create(&t[i], NULL, cal_clock_thread, &a[i]))
				a[i].cpu = -1;
		}
		for (int i = 0; i < nr; i++) {
			if (a[i].cpu < 0)
				continue;
			pthread_join(t[i], NULL);
			sum += a[i].mhz;
			ok++;
		}
		v[run] = ok ? sum / ok : 0;
	}
	cal_stat_of(v, runs, &s);
	r->mhz = s.med;
	snprintf(method, sizeof(method), "dependent adds on all %d CPUs at once", nr);
	cal_key_measured(r, "clock.mhz", (uint64_t)(s.med + 0.5), method, &s, "MHz");
#else
	{
		char path[512];
		static char cpuinfo[1 << 16];
		const char *m;
		double mhz = 0;

		if (!live_proc_path(path, sizeof(path), "/proc/cpuinfo") &&
		    live_read_file(path, cpuinfo, sizeof(cpuinfo)) > 0 &&
		    (m = strstr(cpuinfo, "cpu MHz")) && (m = strchr(m, ':')))
			mhz = strtod(m + 1, NULL);
		if (mhz >= 100) {
			r->mhz = mhz;
			cal_key_set(r, "clock.mhz", (uint64_t)(mhz + 0.5),
				    "cited: /proc/cpuinfo cpu MHz (no add chain for this "
				    "architecture), %s", r->date);
		}
		cal_note(r, "clock: no add chain for this architecture; /proc/cpuinfo cited");
	}
#endif
}

/* ---- cache latencies ---- */

/*
 * Half the LLC, but no more than 4 x L2: in a guest whose memory the host
 * maps with 4K pages, a 2M guest page still takes one TLB entry per 4K,
 * and a chase over many of them would time nested walks, not the L3.
 */
static uint64_t cal_l3_test_bytes(const struct cal_run *r)
{
	uint64_t b = r->llc_bytes / 2;

	if (r->l2_bytes && b > 4 * r->l2_bytes)
		b = 4 * r->l2_bytes;
	if (b <= 2 * r->l2_bytes)
		b = r->llc_bytes * 3 / 4;
	return b;
}

/**
 * cal_cache_latency - load-to-use latency of L1D, L2 and L3
 * @r: the run
 *
 * A pointer chase in random order over half of each level (and more than
 * twice the level below), in 2M pages so that no TLB miss is counted, in
 * cycles at the measured clock.
 */
void cal_cache_latency(struct cal_run *r)
{
	const struct { const char *key, *name; uint64_t size; } lv[] = {
		{ "cache.l1d_cycles", "L1D", r->l1d_bytes / 2 },
		{ "cache.l2_cycles", "L2", r->l2_bytes / 2 > 2 * r->l1d_bytes ?
					     r->l2_bytes / 2 : r->l2_bytes * 3 / 4 },
		{ "cache.l3_cycles", "L3", cal_l3_test_bytes(r) },
	};
	int runs = r->quick ? 3 : 7;
	uint64_t steps = r->quick ? 1 << 20 : 1 << 22;

	cal_progress(r, "cache latencies (pointer chase)");
	if (!r->mhz)
		return;
	for (size_t l = 0; l < sizeof(lv) / sizeof(lv[0]); l++) {
		double v[16];
		struct cal_stat s;
		char method[96];
		char *buf;
		void **start;

		if (!lv[l].size || lv[l].size < 4096) {
			cal_note(r, "%s latency: no size in sysfs; the builtin's value kept",
				 lv[l].name);
			continue;
		}
		buf = cal_map(lv[l].size, true);
		start = buf ? cal_chase_build(buf, lv[l].size / 64, 64, NULL, 42 + l) : NULL;
		if (!start) {
			cal_unmap(buf, lv[l].size, true);
			continue;
		}
		cal_chase_ns(start, steps / 4);		/* warm */
		for (int i = 0; i < runs; i++) {
			double t0 = cal_cpu_ns();
			void **p = start;

			for (uint64_t k = 0; k < steps; k += 4) {
				p = (void **)*p; p = (void **)*p;
				p = (void **)*p; p = (void **)*p;
			}
			__asm__ volatile("" : : "r"(p) : "memory");
			v[i] = (cal_cpu_ns() - t0) / (double)steps * r->mhz / 1000;
		}
		cal_unmap(buf, lv[l].size, true);
		cal_stat_of(v, runs, &s);
		snprintf(method, sizeof(method), "pointer chase over %llu KiB in 2M pages",
			 (unsigned long long)(lv[l].size >> 10));
		cal_key_measured(r, lv[l].key, (uint64_t)(s.med + 0.5) ? (uint64_t)(s.med + 0.5) : 1,
				 method, &s, "cycles");
	}
}

/* ---- loads per cycle, locked RMW and PAUSE ---- */

#if defined(__x86_64__)
/* Cycles of @n iterations of 12 independent loads of one L1-resident line pair. */
static double cal_loads_ns(const uint64_t *buf, uint64_t n)
{
	double t0 = cal_cpu_ns();

	__asm__ volatile(
		"1:\n\t"
		"mov (%1), %%rax\n\tmov 8(%1), %%rdx\n\tmov 16(%1), %%rcx\n\t"
		"mov 24(%1), %%r8\n\tmov 32(%1), %%r9\n\tmov 40(%1), %%r10\n\t"
		"mov 48(%1), %%r11\n\tmov 56(%1), %%rax\n\tmov 64(%1), %%rdx\n\t"
		"mov 72(%1), %%rcx\n\tmov 80(%1), %%r8\n\tmov 88(%1), %%r9\n\t"
		"dec %0\n\tjnz 1b"
		: "+r"(n) : "r"(buf)
		: "rax", "rdx", "rcx", "r8", "r9", "r10", "r11", "memory", "cc");
	return cal_cpu_ns() - t0;
}
#endif

/*
 * mem.access_loop: the live executor's own access loop (wl_do_access(),
 * every live access step's) timed over 16 KiB in L1, one pattern at a
 * time: its instructions' cycles per access, the memory's latency aside.
 * A simulated access step charges at least these (src/mm/access.c), so
 * that the model and a live run make the same program's accesses.
 */
static void cal_access_loop(struct cal_run *r)
{
	static const struct {
		enum wl_pattern pat;
		const char *name;
		uint64_t n;		/* accesses a run: about 20 ms on a 4 GHz core */
	} pats[] = {
		{ WL_PAT_SEQ, "seq", 16 << 20 }, { WL_PAT_RANDOM, "random", 8 << 20 },
		{ WL_PAT_SHUFFLED, "shuffled", 4 << 20 }, { WL_PAT_ZIPF, "zipf", 2 << 20 },
		{ WL_PAT_HOT, "hot", 4 << 20 },
	};
	int runs = r->quick ? 3 : 5;
	char val[96] = "", spread[160] = "";
	double v[8];
	struct cal_stat s;

	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		uint64_t n = r->quick ? pats[i].n / 4 : pats[i].n;

		for (int k = 0; k < runs; k++) {
			double ns;

			if (wl_live_loop_ns(pats[i].pat, n, &ns)) {
				cal_note(r, "mem.access_loop: out of memory; the builtin's kept");
				return;
			}
			v[k] = ns * r->mhz / 1000;
		}
		cal_stat_of(v, runs, &s);
		snprintf(val + strlen(val), sizeof(val) - strlen(val), "%s%s:%.2f", i ? " " : "",
			 pats[i].name, s.med);
		snprintf(spread + strlen(spread), sizeof(spread) - strlen(spread), "%s%s %.2f-%.2f",
			 i ? ", " : "", pats[i].name, s.lo, s.hi);
	}
	cal_key_str(r, "mem.access_loop", val, "measured: mmsim's live access loop over 16 KiB "
		    "(L1), cycles an access, median of %d, %s", runs, r->date);
	fprintf(r->log, "  %-30s %s   (cycles an access of the live loop)\n", "mem.access_loop",
		val);
	cal_note(r, "mem.access_loop: spread (cycles) %s", spread);
}

/**
 * cal_atomic_pause - loads per cycle, a locked RMW, PAUSE
 * @r: the run
 */
void cal_atomic_pause(struct cal_run *r)
{
	static uint64_t line __attribute__((aligned(64)));
	int runs = r->quick ? 3 : 7;
	uint64_t n = r->quick ? 1 << 20 : 1 << 22, sum = 0;
	double v[16];
	struct cal_stat s;

	cal_progress(r, "loads per cycle, locked RMW and PAUSE");
	if (!r->mhz)
		return;
	cal_pin(r->cpus[0]);
#if defined(__x86_64__)
	{
		static uint64_t lines[16] __attribute__((aligned(128)));

		for (int i = 0; i < runs; i++)
			v[i] = 12.0 * (double)(n / 4) / (cal_loads_ns(lines, n / 4) * r->mhz / 1000);
		cal_stat_of(v, runs, &s);
		cal_key_measured(r, "mem.loads_per_cycle", s.med >= 1 ? (uint64_t)(s.med + 0.5) : 1,
				 "12 independent L1 loads a loop iteration", &s, "loads/cycle");
	}
#endif
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		for (uint64_t k = 0; k < n; k++)
			sum += __atomic_fetch_add(&line, 1, __ATOMIC_SEQ_CST);
		v[i] = (cal_cpu_ns() - t0) / (double)n * r->mhz / 1000;
	}
	__asm__ volatile("" : : "r"(sum));
	cal_stat_of(v, runs, &s);
	cal_key_measured(r, "lock.atomic_cycles", (uint64_t)(s.med + 0.5),
			 "back-to-back lock xadd on one local line", &s, "cycles");
#if defined(__x86_64__) || defined(__i386__)
	n /= 16;
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		for (uint64_t k = 0; k < n; k += 8)
			__asm__ volatile("pause\n\tpause\n\tpause\n\tpause\n\t"
					 "pause\n\tpause\n\tpause\n\tpause" ::: "memory");
		v[i] = (cal_cpu_ns() - t0) / (double)n * r->mhz / 1000;
	}
	cal_stat_of(v, runs, &s);
	cal_key_measured(r, "lock.pause_cycles", (uint64_t)(s.med + 0.5), "a loop of PAUSE",
			 &s, "cycles");
	if (r->hypervisor)
		cal_note(r, "PAUSE in a guest: a long PAUSE loop may exit to the hypervisor "
			 "(pause-loop exiting); the median is what a spinning guest sees");
#else
	cal_note(r, "PAUSE: not x86; lock.pause_cycles keeps the builtin's cited value");
#endif
	cal_access_loop(r);
}

/* ---- TLB geometry ---- */

#if defined(__x86_64__) || defined(__i386__)
static unsigned cal_amd_l2_ways(unsigned code, unsigned entries)
{
	static const unsigned ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };

	return code == 0xF ? entries : ways[code & 0xF];
}
#endif

static void cal_tlb_key(struct cal_run *r, const char *name, uint64_t entries, uint64_t ways,
			const char *how)
{
	uint64_t e, w;
	char key[48];

	cal_fit_ways(entries, ways, true, &e, &w);
	snprintf(key, sizeof(key), "tlb.%s_entries", name);
	if (e == entries)
		cal_key_set(r, key, e, "measured: %s%s, %s", how,
			    r->hypervisor ? " as the hypervisor reports it" : "", r->date);
	else
		cal_key_set(r, key, e, "derived: %s says %llu; the model needs power-of-two sets, %s",
			    how, (unsigned long long)entries, r->date);
	snprintf(key, sizeof(key), "tlb.%s_ways", name);
	if (w == ways)
		cal_key_set(r, key, w, "measured: %s%s, %s", how,
			    r->hypervisor ? " as the hypervisor reports it" : "", r->date);
	else
		cal_key_set(r, key, w, "derived: %s says %s%llu ways; the model takes 1-16, %s",
			    how, ways == entries ? "fully associative, " : "",
			    (unsigned long long)ways, r->date);
}

/**
 * cal_tlb_geometry - the dTLBs' entries and ways, from cpuid
 * @r: the run
 *
 * In a guest these are what the hypervisor chose to report, which need
 * not be the host CPU's; docs/calibrate.md says so.
 */
void cal_tlb_geometry(struct cal_run *r)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d, max_ext, max;
	char vendor[13];

	cal_progress(r, "TLB geometry (cpuid)");
	__cpuid(0, max, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	__cpuid(0x80000000, max_ext, b, c, d);
	if ((!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) &&
	    max_ext >= 0x80000006) {
		unsigned e4, w4, e2, w2, s4, sw4;

		__cpuid(0x80000005, a, b, c, d);
		e4 = (b >> 16) & 0xff;
		w4 = (b >> 24) & 0xff;
		e2 = (a >> 16) & 0xff;
		w2 = (a >> 24) & 0xff;
		__cpuid(0x80000006, a, b, c, d);
		s4 = (b >> 16) & 0xfff;
		sw4 = cal_amd_l2_ways((b >> 28) & 0xf, s4);
		if (e4)
			cal_tlb_key(r, "l1_4k", e4, w4 == 0xff ? e4 : w4, "cpuid 0x80000005");
		if (e2)
			cal_tlb_key(r, "l1_2m", e2, w2 == 0xff ? e2 : w2, "cpuid 0x80000005");
		if (s4 && sw4) {
			cal_tlb_key(r, "stlb", s4, sw4, "cpuid 0x80000006");
			r->stlb_entries = s4;
		}
		return;
	}
	if (!strcmp(vendor, "GenuineIntel") && max >= 0x18) {
		unsigned nr_sub;
		bool got = false;

		__cpuid_count(0x18, 0, nr_sub, b, c, d);
		for (unsigned sub = 0; sub <= nr_sub && sub < 32; sub++) {
			unsigned type, level, ways, sets, entries;

			__cpuid_count(0x18, sub, a, b, c, d);
			type = d & 0x1f;
			level = (d >> 5) & 7;
			if (type != 1 && type != 3)	/* data or unified */
				continue;
			ways = (b >> 16) & 0xffff;
			sets = c;
			entries = ways * sets;
			if (d & (1u << 8))
				ways = entries;		/* fully associative */
			if (!entries)
				continue;
			if (level == 1 && (b & 1)) {
				cal_tlb_key(r, "l1_4k", entries, ways, "cpuid leaf 0x18");
				got = true;
			}
			if (level == 1 && (b & 2))
				cal_tlb_key(r, "l1_2m", entries, ways, "cpuid leaf 0x18");
			if (level == 2 && (b & 1)) {
				cal_tlb_key(r, "stlb", entries, ways, "cpuid leaf 0x18");
				r->stlb_entries = entries;
			}
		}
		if (got)
			return;
	}
	cal_note(r, "TLB geometry: cpuid gives none (%s); the builtin's cited values kept", vendor);
#else
	cal_note(r, "TLB geometry: not x86; the builtin's cited values kept");
#endif
}

/* ---- page walks ---- */

/*
 * The chase of a walk test: @nr slots spread over @pages 4K pages, slot i
 * in page i % pages, at a line that differs for the slots of one page and
 * spreads the pages' lines over the cache sets.
 */
static int cal_walk_chase(uint64_t nr, uint64_t pages, bool huge, uint64_t steps, int runs,
			  double *v)
{
	uint64_t bytes = pages * 4096, before = 0, after = 0;
	uint32_t *perm;
	char *buf;
	uint64_t s = 7;

	if (nr > pages * 64)
		return -EINVAL;		/* two slots would share a line */
	if (huge)
		live_read_smaps_anon_huge(getpid(), &before);
	buf = cal_map(bytes, huge);
	if (!buf)
		return -ENOMEM;
	if (huge && (live_read_smaps_anon_huge(getpid(), &after) ||
		     (after - before) * 1024 < bytes / 2)) {
		cal_unmap(buf, bytes, huge);
		return -EOPNOTSUPP;	/* no 2M pages given */
	}
	perm = malloc(nr * sizeof(*perm));
	if (!perm) {
		cal_unmap(buf, bytes, huge);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < nr; i++)
		perm[i] = (uint32_t)i;
	for (uint64_t i = nr - 1; i > 0; i--) {		/* Sattolo: one cycle */
		uint64_t j = cal_rng(&s) % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
#define CAL_WALK_SLOT(i) ((void **)(buf + ((i) % pages) * 4096 + \
				    (((i) / pages + (i) % pages) % 64) * 64))
	for (uint64_t i = 0; i < nr; i++)
		*CAL_WALK_SLOT(i) = CAL_WALK_SLOT(perm[i]);
	cal_chase_ns(CAL_WALK_SLOT(0), steps / 4);
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();
		void **p = CAL_WALK_SLOT(0);

		for (uint64_t k = 0; k < steps; k += 4) {
			p = (void **)*p; p = (void **)*p;
			p = (void **)*p; p = (void **)*p;
		}
		__asm__ volatile("" : : "r"(p) : "memory");
		v[i] = (cal_cpu_ns() - t0) / (double)steps;
	}
#undef CAL_WALK_SLOT
	free(perm);
	cal_unmap(buf, bytes, huge);
	return 0;
}

/*
 * tlb.ept_page_kib in a guest, from the chases of cal_page_walk(): the
 * 2M-page chase's cost over the STLB-hit chase's, @frac of the 4K-page
 * chase's.  The TLB caches a guest's 2M page as one 2M entry only if the
 * host maps that memory with 2M pages too; on a host's 4K pages it keeps
 * a 4K entry per page touched (the smaller size), and the chase's @pages
 * (8 times the STLB's reach) in 2M pages then walk as often as in 4K
 * pages (frac near 1) where a 2M entry each would hold them all (frac near
 * 0).  Half-way decides.
 */
static void cal_ept_page(struct cal_run *r, uint64_t pages, double frac)
{
	bool small = frac > 0.5;

	cal_key_set(r, "tlb.ept_page_kib", small ? 4 : 2048,
		    "measured: a %llu-page chase walks %.2f as much in 2M pages as in 4K: %s, %s",
		    (unsigned long long)pages, frac, small ? "4K TLB entries" : "2M TLB entries",
		    r->date);
}

/**
 * cal_stlb_estimate - the STLB's entries from the fraction of loads that walk
 * @pages: the chases' page counts, rising, each twice the one before
 * @m: the fraction of each chase's loads that walked
 * @n: how many
 *
 * The most pages of the rungs from the first on where at most 30% of the
 * loads walk.  Where even the first rung walks more, N (1 - m) there,
 * rounded to the nearest power of two.
 * Return: the entries (at least 1).
 */
uint64_t cal_stlb_estimate(const uint64_t *pages, const double *m, int n)
{
	double est;
	uint64_t e;
	int i;

	for (i = 0; i < n && m[i] <= 0.3; i++)
		;
	if (i)
		return pages[i - 1];
	if (!n)
		return 1;
	est = (double)pages[0] * (m[0] < 1 ? 1 - m[0] : 0);
	for (e = 1; (double)e * 1.41421356 < est; e *= 2)
		;
	return e;
}

/*
 * The STLB's reach, measured.  A hypervisor need not report the host's
 * TLBs (QEMU's cpuid 0x80000006 gives a 128-entry L2 dTLB on a Zen 5 host
 * whose loads show thousands), so the chase decides: N lines one per page
 * (sparse) against the same N lines packed into CAL_REACH_DENSE pages or
 * more (dense: the same data in the caches, every load an STLB hit), at
 * each rung of a ladder of page counts.  What the sparse chase costs over
 * the dense one is translation: the fraction of its loads that walk, times
 * a walk.  Against the largest rung (CAL_REACH_ALL pages, a walk nearly
 * every load), m(N) = excess(N) / excess(ALL) is the fraction that walk at
 * N.  Up to the STLB's size few walk (set conflicts: about a fifth at N = E
 * here), twice beyond it a third or more: the reach is the last rung where
 * at most 30% walk (cal_stlb_estimate()).  On this project's guest, over
 * ten runs: m 0.02-0.07 up to 2048 pages, 0.08-0.28 at 4096, 0.34-0.81 at
 * 8192, so 4096 (a rule on N (1 - m) at 8192 gave 2048 in one of them).
 * m reads low past the reach: a walk over 8192 pages finds its entries
 * nearer in the caches than one over 65536.
 * An estimate of the size to within the ladder's factor of 2, not a
 * geometry: the ways stay cpuid's.
 */
#define CAL_REACH_DENSE	192		/* pages: above any L1 dTLB, below any STLB */
#define CAL_REACH_ALL	65536		/* pages: 256 MiB */

/**
 * cal_stlb_reach - the STLB's size from the loads, where cpuid's disagrees
 * @r: the run (r->stlb_entries: cpuid's, then the one the model takes)
 *
 * Before the page-walk tests, which size their chases by it.
 */
void cal_stlb_reach(struct cal_run *r)
{
	static const uint64_t ladder[] = { 512, 1024, 2048, 4096, 8192, 16384, CAL_REACH_ALL };
	enum { NR = sizeof(ladder) / sizeof(ladder[0]) };
	const struct cal_key *wk = cal_key_find(r, "tlb.stlb_ways");
	uint64_t steps = r->quick ? 1 << 19 : 1 << 20, reach = 0, e, w;
	int runs = r->quick ? 3 : 5, i;
	double excess[NR], m[NR], vs[16], vd[16];
	struct cal_stat ss, sd;
	char rungs[120];
	size_t off = 0;

	cal_progress(r, "STLB reach (chases over one line a page, against the lines packed)");
	for (i = 0; i < NR; i++) {
		uint64_t dense = ladder[i] / 64 > CAL_REACH_DENSE ? ladder[i] / 64 : CAL_REACH_DENSE;

		if (cal_walk_chase(ladder[i], ladder[i], false, steps, runs, vs) ||
		    cal_walk_chase(ladder[i], dense, false, steps, runs, vd)) {
			cal_note(r, "STLB reach: a chase over %llu pages could not run; cpuid's kept",
				 (unsigned long long)ladder[i]);
			return;
		}
		cal_stat_of(vs, runs, &ss);
		cal_stat_of(vd, runs, &sd);
		excess[i] = ss.med - sd.med;
		if (r->mhz && r->nr_reach < (int)(sizeof(r->reach_pages) / sizeof(r->reach_pages[0]))) {
			r->reach_pages[r->nr_reach] = ladder[i];
			r->reach_excess[r->nr_reach++] = excess[i] * r->mhz / 1000;
		}
	}
	if (excess[NR - 1] <= 0) {
		cal_note(r, "STLB reach: %d pages cost no more than their lines packed; cpuid's kept",
			 CAL_REACH_ALL);
		return;
	}
	for (i = 0; i < NR - 1; i++) {
		m[i] = excess[i] / excess[NR - 1];
		off += (size_t)snprintf(rungs + off, sizeof(rungs) - off, "%s%llu %.2f",
					i ? ", " : "", (unsigned long long)ladder[i],
					m[i] < 0 ? 0.0 : m[i]);
	}
	reach = cal_stlb_estimate(ladder, m, NR - 1);
	cal_note(r, "STLB reach: loads that walk at N pages (N m): %s; a walk %.0f cycles over "
		 "an STLB hit at %d pages; reach %llu", rungs, excess[NR - 1] * r->mhz / 1000,
		 CAL_REACH_ALL, (unsigned long long)reach);
	if (reach < 16) {
		cal_note(r, "STLB reach: below 16 pages; cpuid's kept");
		return;
	}
	/* cpuid's figure stands when the chases agree with it within a factor of 2 */
	if (r->stlb_entries && reach <= 2 * r->stlb_entries && r->stlb_entries <= 2 * reach)
		return;
	cal_fit_ways(reach, wk ? wk->value : 8, true, &e, &w);
	cal_key_set(r, "tlb.stlb_entries", e,
		    "measured: chases of a line a page, the most pages (512-16384) with <= 30%% "
		    "of loads walking; cpuid: %llu, %s", (unsigned long long)r->stlb_entries,
		    r->date);
	if (!wk || wk->value != w)
		cal_key_set(r, "tlb.stlb_ways", w, "derived: the measured reach in power-of-two "
			    "sets of 1-16 ways, %s", r->date);
	r->stlb_entries = e;
}

/**
 * cal_page_walk - the cost of an L1 dTLB miss that hits the STLB, and of a walk
 * @r: the run
 *
 * Two chases over the same number of lines (so the same data in the same
 * caches), in 4K pages, that differ only in how many pages hold them:
 *   - 2 x L1-dTLB lines in half the L1 dTLB's pages (every load hits it),
 *     against the same lines one per page (every load misses the L1 dTLB
 *     and hits the STLB): the difference is stlb_hit_cycles;
 *   - 16384 lines filling 256 pages the STLB holds, against one per page over
 *     many more pages than the STLB holds: the difference is a walk whose
 *     entries are in the caches, over an STLB hit.
 * The model charges a walk stlb_hit_cycles + refs x walk_cycles / 4
 * (tlb_walk_cost(): 4 references natively, 24 in two dimensions), so
 * walk_cycles is solved from that.
 */
void cal_page_walk(struct cal_run *r)
{
	const struct cal_key *l1 = cal_key_find(r, "tlb.l1_4k_entries");
	uint64_t l1e = l1 ? l1->value : 64, nr_hit = 2 * l1e;
	uint64_t walk_pages = cal_walk_pages(r);
	uint64_t few = r->stlb_entries && r->stlb_entries / 2 < 256 ? r->stlb_entries / 2 : 256;
	uint64_t steps = r->quick ? 1 << 20 : 1 << 22, refs = r->hypervisor ? 24 : 4;
	int runs = r->quick ? 3 : 7;
	double va[16], vb[16], d[16];
	struct cal_stat s;
	char method[96];

	if (!r->mhz)
		return;
	cal_progress(r, "page walks (the same lines in few pages and in many)");
	if (few < 16384 / 64)
		few = 16384 / 64;	/* every line of each page: no two slots share one */
	if (cal_walk_chase(nr_hit, l1e / 2, false, steps, runs, va) ||
	    cal_walk_chase(nr_hit, nr_hit, false, steps, runs, vb))
		return;
	for (int i = 0; i < runs; i++)
		d[i] = (vb[i] - va[i]) * r->mhz / 1000;
	cal_stat_of(d, runs, &s);
	snprintf(method, sizeof(method), "%llu lines in %llu pages minus in %llu",
		 (unsigned long long)nr_hit, (unsigned long long)nr_hit,
		 (unsigned long long)(l1e / 2));
	cal_key_difference(r, "tlb.stlb_hit_cycles", method, &s, "cycles");
	if (cal_walk_chase(16384, few, false, steps, runs, va) ||
	    cal_walk_chase(16384, walk_pages, false, steps, runs, vb))
		return;
	for (int i = 0; i < runs; i++)
		d[i] = (vb[i] - va[i]) * r->mhz / 1000 * 4 / (double)refs;
	cal_stat_of(d, runs, &s);
	snprintf(method, sizeof(method), "16384 lines in %llu pages minus in %llu, x4/%llu refs",
		 (unsigned long long)walk_pages, (unsigned long long)few,
		 (unsigned long long)refs);
	cal_key_difference(r, "tlb.walk_cycles", method, &s, "cycles");
	/* the classic comparison, printed: the same chase in 2M pages */
	{
		double vh[16];
		struct cal_stat s2;

		if (!cal_walk_chase(16384, walk_pages, true, steps / 4, runs, vh)) {
			struct cal_stat s3;

			cal_stat_of(vh, runs, &s);
			cal_stat_of(vb, runs, &s2);
			cal_stat_of(va, runs, &s3);
			cal_note(r, "page walk: the same %llu-page chase in 2M pages: %.0f cycles a "
				 "load, in 4K pages %.0f, over pages the STLB holds %.0f",
				 (unsigned long long)walk_pages, s.med * r->mhz / 1000,
				 s2.med * r->mhz / 1000, s3.med * r->mhz / 1000);
			if (r->hypervisor && s2.med > s3.med)
				cal_ept_page(r, walk_pages, (s.med - s3.med) / (s2.med - s3.med));
		} else {
			cal_note(r, "page walk: MADV_HUGEPAGE gave no 2M pages; no 4K-2M comparison");
		}
	}
	if (r->stlb_entries && r->stlb_entries < nr_hit)
		cal_note(r, "page walk: cpuid's STLB (%llu entries) holds fewer pages than the "
			 "STLB-hit test's %llu; a real STLB that small would make it a walk",
			 (unsigned long long)r->stlb_entries, (unsigned long long)nr_hit);
}

/* ---- system calls and the scheduler ---- */

struct cal_pp {
	int cpu;
	int in, out;			/* pipe ends */
	int rounds;
};

static void *cal_pp_thread(void *p)
{
	struct cal_pp *a = p;
	char c;

	cal_pin(a->cpu);
	for (int i = 0; i < a->rounds; i++) {
		if (read(a->in, &c, 1) != 1 || write(a->out, &c, 1) != 1)
			break;
	}
	return NULL;
}

/*
 * Round trips of a pipe ping-pong between this thread on @cpu_a and a
 * helper on @cpu_b: @nr batches of @per round trips, ns per round trip.
 */
static int cal_pingpong(int cpu_a, int cpu_b, int nr, int per, double *v)
{
	int ab[2], ba[2];
	struct cal_pp h;
	pthread_t t;
	char c = 'x';
	int ret = 0;

	if (pipe(ab))
		return -errno;
	if (pipe(ba)) {
		close(ab[0]);
		close(ab[1]);
		return -errno;
	}
	cal_pin(cpu_a);
	h = (struct cal_pp){ .cpu = cpu_b, .in = ab[0], .out = ba[1], .rounds = nr * per + 100 };
	if (pthread_create(&t, NULL, cal_pp_thread, &h)) {
		ret = -EAGAIN;
		goto out_close;
	}
	for (int i = 0; i < 100; i++)	/* warm */
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			ret = -EIO;
	for (int b = 0; b < nr && !ret; b++) {
		double t0 = cal_now_ns();

		for (int i = 0; i < per; i++)
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				ret = -EIO;
		v[b] = (cal_now_ns() - t0) / per;
	}
	close(ab[1]);		/* the helper's read ends */
	pthread_join(t, NULL);
	ab[1] = -1;
out_close:
	close(ab[0]);
	if (ab[1] >= 0)
		close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	return ret;
}

/**
 * cal_syscall_sched - system call entry, context switch, remote wake-up, fork
 * @r: the run
 */
void cal_syscall_sched(struct cal_run *r)
{
	int runs = r->quick ? 5 : 11, n = r->quick ? 100000 : 300000;
	int batches = r->quick ? 21 : 61;
	double v[64], rw[32], rw_ns, ctx_ns = 0;
	struct cal_stat s;
	int p[2];
	char c = 0, method[96];

	cal_progress(r, "system call, context switch, wake-up, fork");
	cal_pin(r->cpus[0]);
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		for (int k = 0; k < n; k++)
			syscall(SYS_getppid);
		v[i] = (cal_cpu_ns() - t0) / n;
	}
	cal_stat_of(v, runs, &s);
	r->syscall_ns = s.med;
	cal_key_measured(r, "mm.syscall_ns", (uint64_t)(s.med + 0.5) ? (uint64_t)(s.med + 0.5) : 1,
			 "getppid() in a loop", &s, "ns");

	/* a write and a read of one byte on a pipe, no one waiting */
	if (pipe(p))
		return;
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		for (int k = 0; k < n / 10; k++)
			if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
				break;
		rw[i] = (cal_cpu_ns() - t0) / (n / 10);
	}
	close(p[0]);
	close(p[1]);
	cal_stat_of(rw, runs, &s);
	rw_ns = s.med;

	if (!cal_pingpong(r->cpus[0], r->cpus[0], batches, 200, v)) {
		for (int i = 0; i < batches; i++)
			v[i] = (v[i] - 2 * rw_ns) / 2;
		cal_stat_of(v, batches, &s);
		ctx_ns = s.med > 0 ? s.med : 0;
		snprintf(method, sizeof(method), "pipe ping-pong on CPU %d, less 2 pipe write+read",
			 r->cpus[0]);
		cal_key_difference(r, "sched.context_switch_ns", method, &s, "ns");
	}
	if (r->nr_cpus >= 2 &&
	    !cal_pingpong(r->cpus[0], r->cpus[1], batches, r->quick ? 20 : 40, v)) {
		for (int i = 0; i < batches; i++)
			v[i] = v[i] / 2 - rw_ns - ctx_ns;
		cal_stat_of(v, batches, &s);
		snprintf(method, sizeof(method), "pipe ping-pong CPUs %d-%d, half, less write+read "
			 "and a switch", r->cpus[0], r->cpus[1]);
		cal_key_difference(r, "sched.wakeup_ns", method, &s, "ns");
		if (r->hypervisor)
			cal_note(r, "wake-up in a guest: an idle vCPU halts and the host must "
				 "wake it; that is in sched.wakeup_ns, as a guest kernel sees it");
	} else if (r->nr_cpus < 2) {
		cal_note(r, "wake-up: one CPU, no remote wake-up to time; the builtin's value kept");
	}

	for (int i = 0; i < (r->quick ? 9 : 31); i++) {
		double t0 = cal_cpu_ns();
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		v[i % 32] = (cal_cpu_ns() - t0) / 1000;
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	cal_stat_of(v, r->quick ? 9 : 31, &s);
	cal_key_measured(r, "sched.fork_us", s.med >= 1 ? (uint64_t)(s.med + 0.5) : 1,
			 "fork() returning in the parent, small process", &s, "us");
}
