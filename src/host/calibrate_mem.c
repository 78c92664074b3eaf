// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim calibrate`: cache lines between CPUs, and memory.
 *
 *   cache.smt/socket/remote_transfer_ns  ping-pong of one line between two
 *                       pinned CPUs of the pair class (SMT siblings; cores of
 *                       one socket; two sockets), half a round trip
 *   cache.dram_local_ns x86: pointer chase over lines just CLFLUSHed, in pages
 *                       the L1 dTLB holds; elsewhere over many times the LLC
 *   mem.line_fill_buffers  x86: k independent chases over CLFLUSHed lines,
 *                       one load's latency / the time per load
 *   tlb.page_walkers    x86: the same with walks: k chases over a cached line
 *                       in each of 16384 4K pages
 *   mem.rob_entries     x86: two chases of flushed lines with N NOPs between
 *                       their loads: the N at which the misses stop overlapping
 *   mem.zero_gbps, copy_gbps  rep stosb / rep movsb, 4 KiB at a time as
 *                       clear_page_erms() and copy_page() do, one core
 *   mem.zero_l3_gbps    the same over a quarter of the L3, again and again
 *   mem.stream_gbps     a read pass over a large buffer, one core
 *   mem.node_read_gbps, node_write_gbps  the same read and write passes on
 *                       every CPU at once (one node: the machine's)
 *
 * Mirrors no kernel function.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host/calibrate.h"
#include "host/live_internal.h"

static double cal_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- line transfers ---- */

struct cal_line_arg {
	int cpu;
	uint64_t *line;
	uint64_t rounds;
};

static void *cal_line_thread(void *p)
{
	struct cal_line_arg *a = p;

	cal_pin(a->cpu);
	for (uint64_t k = 0; k < a->rounds; k++) {
		while (__atomic_load_n(a->line, __ATOMIC_ACQUIRE) != 2 * k + 1)
			;
		__atomic_store_n(a->line, 2 * k + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* One-way ns of a modified line between @a and @b: @nr batches of @per round trips. */
static int cal_line_pingpong(int a, int b, int nr, uint64_t per, double *v)
{
	static uint64_t line[16] __attribute__((aligned(128)));
	struct cal_line_arg h = { .cpu = b, .line = line, .rounds = (nr + 1) * per };
	pthread_t t;
	uint64_t k = 0;

	__atomic_store_n(line, 0, __ATOMIC_RELEASE);
	if (cal_pin(a) || pthread_create(&t, NULL, cal_line_thread, &h))
		return -EAGAIN;
	for (int batch = -1; batch < nr; batch++) {	/* batch -1 warms */
		double t0 = cal_now_ns();

		for (uint64_t i = 0; i < per; i++, k++) {
			while (__atomic_load_n(line, __ATOMIC_ACQUIRE) != 2 * k)
				;
			__atomic_store_n(line, 2 * k + 1, __ATOMIC_RELEASE);
		}
		while (__atomic_load_n(line, __ATOMIC_ACQUIRE) != 2 * k)
			;
		if (batch >= 0)
			v[batch] = (cal_now_ns() - t0) / (2.0 * (double)per);
	}
	pthread_join(t, NULL);
	return 0;
}

/**
 * cal_line_transfer_now - the one-way transfer between two CPUs, now
 * @ns: the median of 41 batches of 100 round trips, half a round trip
 *
 * The first two CPUs this process may run on (sched_getaffinity()), the
 * calling thread's affinity restored after.  For `mmsim validate`: in a
 * guest the transfer depends on where the host runs the two vCPUs at the
 * moment (40-54 ns or 198-201 ns on the development guest, one core
 * complex or two), so the simulated side of a point takes the transfer
 * measured around that point's live runs (docs/validation.md).
 * Return: 0, or -1 with fewer than two CPUs or no thread.
 */
int cal_line_transfer_now(double *ns)
{
	cpu_set_t saved;
	int cpus[2], n = 0;
	double v[41];
	struct cal_stat s;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &saved))
			cpus[n++] = c;
	if (n < 2)
		return -1;
	if (cal_line_pingpong(cpus[0], cpus[1], 41, 100, v)) {
		sched_setaffinity(0, sizeof(saved), &saved);
		return -1;
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	cal_stat_of(v, 41, &s);
	*ns = s.med;
	return 0;
}

/*
 * The transfer from the first CPU to each other one (up to 64), measured
 * rather than read from sysfs: which CPUs share a last-level cache with it
 * now (a guest's vCPUs: the host's core complexes, which sysfs does not
 * tell and the host may change; on the development guest about 40 ns when
 * the two vCPUs share one, 180-220 when not: docs/validation.md).  CPUs
 * within 1.5 times the nearest count as near.  A note, no key.
 */
static void cal_transfer_map(struct cal_run *r)
{
	char list[1024] = "";
	double t[64], v[21], lo = 0;
	int n = 0, near = 0;
	size_t len = 0;

	for (int i = 1; i < r->nr_cpus && n < 64; i++) {
		struct cal_stat s;

		if (cal_line_pingpong(r->cpus[0], r->cpus[i], 21, 100, v))
			return;
		cal_stat_of(v, 21, &s);
		t[n++] = s.med;
		lo = n == 1 || s.med < lo ? s.med : lo;
	}
	for (int i = 0; i < n; i++) {
		near += t[i] <= 1.5 * lo;
		if (len < sizeof(list) - 24)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d:%.0f",
						i ? " " : "", r->cpus[i + 1], t[i]);
	}
	if (n)
		cal_note(r, "line transfer from CPU %d to each other CPU (ns, measured): %s; %d of %d "
			 "within 1.5x the nearest", r->cpus[0], list, near, n);
}

/**
 * cal_transfers - one-way transfer of a modified line, per pair class
 * @r: the run; transfer_ns set to the socket class's
 *
 * A pair class this machine lacks (SMT siblings, a second socket) keeps
 * the builtin's cited value, and the run says so.
 */
void cal_transfers(struct cal_run *r)
{
	const struct {
		const char *key, *what;
		const int *pair;
	} cls[] = {
		{ "cache.smt_transfer_ns", "SMT siblings", r->pair_smt },
		{ "cache.socket_transfer_ns", "cores of one socket, other LLC", r->pair_socket },
		{ "cache.socket_transfer_ns", "cores of one socket and LLC", r->pair_llc },
		{ "cache.remote_transfer_ns", "two sockets", r->pair_remote },
	};
	int runs = r->quick ? 41 : 201;
	uint64_t per = 100;

	cal_progress(r, "cache-line transfers (pinned ping-pong)");
	for (size_t c = 0; c < sizeof(cls) / sizeof(cls[0]); c++) {
		double v[256];
		struct cal_stat s;
		char method[96];

		if (cls[c].pair[0] < 0) {
			if (c != 1 && !(c == 2 && cal_key_find(r, cls[c].key)))
				cal_note(r, "%s: no pair of %s here; the builtin's cited value kept",
					 cls[c].key, cls[c].what);
			continue;
		}
		if (cal_line_pingpong(cls[c].pair[0], cls[c].pair[1], runs, per, v))
			continue;
		cal_stat_of(v, runs, &s);
		snprintf(method, sizeof(method), "ping-pong CPUs %d-%d (%s), half a round trip",
			 cls[c].pair[0], cls[c].pair[1], cls[c].what);
		if (c == 2 && cal_key_find(r, cls[c].key)) {
			cal_note(r, "transfer within one LLC (CPUs %d-%d): %.0f ns; the socket's key "
				 "takes the other-LLC pair", cls[c].pair[0], cls[c].pair[1], s.med);
			continue;
		}
		cal_key_measured(r, cls[c].key, (uint64_t)(s.med + 0.5) ? (uint64_t)(s.med + 0.5) : 1,
				 method, &s, "ns");
		if (c == 1 || c == 2)
			r->transfer_ns = s.med;
	}
	if (r->hypervisor)
		cal_note(r, "transfers in a guest: two vCPUs need not be the pair of host cores "
			 "that their numbers suggest, and the host may move them");
	cal_transfer_map(r);
}

/* ---- DRAM latency ---- */

static uint64_t cal_mem_available(void)
{
	char path[512], buf[4096];
	const char *m;

	if (live_proc_path(path, sizeof(path), "/proc/meminfo") ||
	    live_read_file(path, buf, sizeof(buf)) <= 0 || !(m = strstr(buf, "MemAvailable:")))
		return 1ULL << 30;
	return strtoull(m + 13, NULL, 10) << 10;
}

static uint64_t cal_big_buffer(const struct cal_run *r, unsigned times_llc, uint64_t min)
{
	uint64_t b = (r->llc_bytes ? r->llc_bytes : 32ULL << 20) * times_llc;
	uint64_t cap = cal_mem_available() / 4;

	if (b < min)
		b = min;
	if (b > (1ULL << 30))
		b = 1ULL << 30;
	if (b > cap)
		b = cap;
	return b & ~((2ULL << 20) - 1);
}

/* ns per load of a chase over a buffer many times the LLC: the loads miss the TLBs too. */
static int cal_dram_big(struct cal_run *r, uint64_t bytes, int runs, double *v, bool *huge)
{
	uint64_t steps = r->quick ? 1 << 19 : 1 << 20, before = 0, after = 0;
	const struct cal_key *l3 = cal_key_find(r, "cache.l3_cycles");
	double f = r->llc_bytes ? (double)r->llc_bytes / (double)bytes : 0;
	double l3_ns = l3 && r->mhz ? (double)l3->value * 1000 / r->mhz : 0;
	char *buf;
	void **start;

	live_read_smaps_anon_huge(getpid(), &before);
	buf = cal_map(bytes, true);
	if (!buf)
		return -ENOMEM;
	*huge = !live_read_smaps_anon_huge(getpid(), &after) && (after - before) * 1024 >= bytes / 2;
	start = cal_chase_build(buf, bytes / 64, 64, NULL, 99);
	if (!start) {
		cal_unmap(buf, bytes, true);
		return -ENOMEM;
	}
	cal_chase_ns(start, steps / 8);
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();
		void **p = start;

		for (uint64_t k = 0; k < steps; k += 4) {
			p = (void **)*p; p = (void **)*p;
			p = (void **)*p; p = (void **)*p;
		}
		__asm__ volatile("" : : "r"(p) : "memory");
		v[i] = (cal_cpu_ns() - t0) / (double)steps;
		if (f < 0.5)		/* about LLC / buffer of the loads still hit the LLC */
			v[i] = (v[i] - f * l3_ns) / (1 - f);
	}
	cal_unmap(buf, bytes, true);
	return 0;
}

#if defined(__x86_64__)
/*
 * ns per load of a chase over lines flushed from every cache by CLFLUSH
 * just before, in a buffer of few enough 4K pages that the L1 dTLB holds
 * them all: DRAM's latency without a TLB miss.  One line per 256 bytes,
 * so that the adjacent-line prefetcher brings nothing the chase uses.
 */
static int cal_dram_flushed(struct cal_run *r, int runs, double *v)
{
	const struct cal_key *l1 = cal_key_find(r, "tlb.l1_4k_entries");
	uint64_t pages = l1 && l1->value < 64 ? l1->value : 64, bytes = pages * 4096;
	uint64_t nr = bytes / 256;
	int passes = r->quick ? 16 : 48;
	char *buf = cal_map(bytes, false);
	void **start;

	if (!buf)
		return -ENOMEM;
	start = cal_chase_build(buf, nr, 256, NULL, 77);
	if (!start) {
		cal_unmap(buf, bytes, false);
		return -ENOMEM;
	}
	for (int i = 0; i < runs; i++) {
		double sum = 0;

		for (int pass = 0; pass < passes; pass++) {
			void **p = start;
			double t0;

			for (uint64_t off = 0; off < bytes; off += 64)
				__asm__ volatile("clflush (%0)" : : "r"(buf + off) : "memory");
			__asm__ volatile("mfence" ::: "memory");
			t0 = cal_cpu_ns();
			for (uint64_t k = 0; k < nr; k++)
				p = (void **)*p;
			__asm__ volatile("" : : "r"(p) : "memory");
			sum += cal_cpu_ns() - t0;
		}
		v[i] = sum / (double)(nr * (uint64_t)passes);
	}
	cal_unmap(buf, bytes, false);
	return 0;
}
#endif

#if defined(__x86_64__)
#define CAL_MLP_MAX	64

/*
 * ns per load of @k independent chases walked in lockstep over @nr slots
 * of @buf, slot i at @slot(@buf, i), in a random order (the median of
 * @passes passes).  With @flush_bytes, the first @flush_bytes of @buf are
 * CLFLUSHed before each pass, so that every load misses the caches: the
 * core keeps up to @k misses in flight, as many as its fill buffers allow;
 * without, one warming pass comes first and the lines stay cached.
 */
static double cal_chase_k(char *buf, uint64_t nr, unsigned k, int passes, uint64_t seed,
			  char *(*slot)(char *buf, uint64_t i), uint64_t flush_bytes)
{
	uint32_t *perm = malloc(nr * sizeof(*perm));
	uint64_t per = nr / k, s = seed | 1;
	void **head[CAL_MLP_MAX];
	double v[64];
	struct cal_stat st;

	if (!perm || k > CAL_MLP_MAX || !per) {
		free(perm);
		return 0;
	}
	for (uint64_t i = 0; i < nr; i++)
		perm[i] = (uint32_t)i;
	for (uint64_t i = nr - 1; i > 0; i--) {
		uint64_t j = cal_rng(&s) % (i + 1);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	/* chain c: slots perm[c * per .. c * per + per), one cycle each */
	for (unsigned c = 0; c < k; c++) {
		for (uint64_t i = 0; i < per; i++)
			*(void **)slot(buf, perm[c * per + i]) =
				slot(buf, perm[c * per + (i + 1) % per]);
		head[c] = (void **)slot(buf, perm[c * per]);
	}
	free(perm);
	for (int pass = flush_bytes ? 0 : -1; pass < passes && pass < 64; pass++) {
		void **p[CAL_MLP_MAX];
		double t0;

		for (unsigned c = 0; c < k; c++)
			p[c] = head[c];
		for (uint64_t off = 0; off < flush_bytes; off += 64)
			__asm__ volatile("clflush (%0)" : : "r"(buf + off) : "memory");
		if (flush_bytes)
			__asm__ volatile("mfence" ::: "memory");
		t0 = cal_cpu_ns();
		for (uint64_t i = 0; i < per; i++)
			for (unsigned c = 0; c < k; c++)
				p[c] = (void **)*p[c];
		__asm__ volatile("" : : "r"(p) : "memory");
		if (pass >= 0)
			v[pass] = (cal_cpu_ns() - t0) / (double)(per * k);
	}
	cal_stat_of(v, passes < 64 ? passes : 64, &st);
	return st.med;
}

/* The fill-buffer test's slots: lines 256 bytes apart. */
static char *cal_mlp_slot(char *buf, uint64_t i)
{
	return buf + i * 256;
}

/**
 * cal_line_fill_buffers - a core's L1D misses in flight
 * @r: the run; cache.dram_local_ns measured
 *
 * k independent chases over flushed lines: one load's latency divided by
 * the time per load with k chases is the misses the core keeps in flight;
 * the largest over k (up to 64) is the key.  Of 64 KiB a chase, so that
 * the L1 dTLB holds every page.
 */
static void cal_line_fill_buffers(struct cal_run *r)
{
	static const unsigned ks[] = { 1, 2, 4, 8, 12, 16, 20, 24, 32, 48, 64 };
	const struct cal_key *l1 = cal_key_find(r, "tlb.l1_4k_entries");
	uint64_t pages = l1 && l1->value < 64 ? l1->value : 64, bytes = pages * 4096;
	uint64_t nr = bytes / 256;
	int runs = r->quick ? 3 : 7, passes = r->quick ? 8 : 24;
	double v[16], best_k = 0;
	struct cal_stat s;
	char method[96];
	char *buf = cal_map(bytes, false);

	if (!buf)
		return;
	for (int i = 0; i < runs; i++) {
		double one = cal_chase_k(buf, nr, 1, passes, 11 + (uint64_t)i, cal_mlp_slot, bytes), best = 0;

		for (size_t j = 1; j < sizeof(ks) / sizeof(ks[0]) && one > 0; j++) {
			double t = cal_chase_k(buf, nr, ks[j], passes, 11 + (uint64_t)i, cal_mlp_slot, bytes);

			if (t > 0 && one / t > best) {
				best = one / t;
				best_k = ks[j];
			}
		}
		v[i] = best;
	}
	cal_unmap(buf, bytes, false);
	cal_stat_of(v, runs, &s);
	if (s.med < 1)
		return;
	snprintf(method, sizeof(method), "1 vs k<=64 chases of CLFLUSHed lines, best k %.0f",
		 best_k);
	cal_key_measured(r, "mem.line_fill_buffers", (uint64_t)(s.med + 0.5), method, &s,
			 "lines");
}

/*
 * The walk test's pages: one in every CAL_WALK_SPREAD of a mapping, the
 * others never touched, so that no two mapped pages are neighbours and no
 * TLB can coalesce them (AMD's parts since Zen hold up to four or eight
 * contiguous 4K translations in one entry, which would let a chase over
 * consecutive pages hit where it should walk).
 */
#define CAL_WALK_SPREAD		8
#define CAL_WALK_SLOT(buf, i)	((buf) + (uint64_t)(i) * CAL_WALK_SPREAD * 4096 + \
				 ((uint64_t)(i) % 64) * 64)

static char *cal_walk_map(uint64_t pages)
{
	uint64_t len = pages * CAL_WALK_SPREAD * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (uint64_t i = 0; i < pages; i++)
		*CAL_WALK_SLOT(p, i) = 1;
	return p;
}

/* The walk test's slots: a line in each spread page (CAL_WALK_SLOT). */
static char *cal_walk_slot(char *buf, uint64_t i)
{
	return CAL_WALK_SLOT(buf, i);
}

/**
 * cal_page_walkers - page walks a core keeps in flight
 * @r: the run
 *
 * As cal_line_fill_buffers(), with walks: k independent chases over one
 * cached line in each of 8 times the STLB's reach in pages, 16384-65536
 * (64 MiB of 4K pages and more, one mapped in every eight: none
 * coalescable), so that nearly every load walks; one chase's time per load over the time per load with
 * k chases is the walks in flight.  The largest over k (up to 16) is the
 * key, tlb.page_walkers.  It bounds the walkers from below where another
 * limit (fill buffers, the load buffer) allows fewer: both are larger on
 * every part the profiles cite.
 */
static void cal_page_walkers(struct cal_run *r)
{
	static const unsigned ks[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
	uint64_t pages = cal_walk_pages(r);
	uint64_t len = pages * CAL_WALK_SPREAD * 4096;
	int runs = r->quick ? 3 : 7, passes = r->quick ? 4 : 12;
	double v[16], best_k = 0, one_ns[16];
	struct cal_stat s, so;
	char method[112];
	char *buf = cal_walk_map(pages);

	if (!buf)
		return;
	cal_progress(r, "page walkers (k chases over 8 x the STLB's reach in pages)");
	for (int i = 0; i < runs; i++) {
		double one = cal_chase_k(buf, pages, 1, passes, 13 + (uint64_t)i, cal_walk_slot, 0), best = 0;

		one_ns[i] = one;
		for (size_t j = 1; j < sizeof(ks) / sizeof(ks[0]) && one > 0; j++) {
			double t = cal_chase_k(buf, pages, ks[j], passes, 13 + (uint64_t)i, cal_walk_slot, 0);

			if (t > 0 && one / t > best) {
				best = one / t;
				best_k = ks[j];
			}
		}
		v[i] = best;
	}
	munmap(buf, len);
	cal_stat_of(v, runs, &s);
	cal_stat_of(one_ns, runs, &so);
	if (s.med < 1)
		return;
	snprintf(method, sizeof(method),
		 "1 vs k<=16 chases over a cached line in each of %llu spread 4K pages, best k %.0f",
		 (unsigned long long)pages, best_k);
	cal_key_measured(r, "tlb.page_walkers", (uint64_t)(s.med + 0.5), method, &s, "walks");
	cal_note(r, "page walk: one chase over %llu spread 4K pages takes %.1f ns a load, "
		 "walk and cached line", (unsigned long long)pages, so.med);
}

/*
 * The reorder buffer (H. Wong, "Measuring Reorder Buffer Capacity", 2013):
 * two independent chases over flushed lines, a load of each per iteration
 * with N one-micro-op fillers after each.  While the load of the second
 * chase is within the reorder buffer's reach of the first's (N + 1 entries
 * behind it), the two misses overlap and an iteration takes about one
 * memory latency; past it, the second waits for the first to retire, and
 * it takes two.  The smallest N at which the time passes 1.5 latencies is
 * the reorder buffer's size, to the step.
 */
#define CAL_ROB_STEP	16
#define CAL_ROB_FN(n)								\
static void cal_rob_##n(void **a, void **b, uint64_t iters)			\
{										\
	for (uint64_t i = 0; i < iters; i++)					\
		__asm__ volatile("mov (%0), %0\n\t.rept " #n "\n\tnop\n\t.endr\n\t"	\
				 "mov (%1), %1\n\t.rept " #n "\n\tnop\n\t.endr"	\
				 : "+r"(a), "+r"(b) : : "memory");		\
}
#define CAL_ROB_LIST(X) X(16) X(32) X(48) X(64) X(80) X(96) X(112) X(128) X(144) X(160) \
	X(176) X(192) X(208) X(224) X(240) X(256) X(272) X(288) X(304) X(320) X(336)	\
	X(352) X(368) X(384) X(400) X(416) X(432) X(448) X(464) X(480) X(496) X(512)	\
	X(544) X(576) X(608) X(640)
CAL_ROB_LIST(CAL_ROB_FN)
#define CAL_ROB_ENTRY(n) { n, cal_rob_##n },
static const struct {
	unsigned n;
	void (*fn)(void **a, void **b, uint64_t iters);
} cal_rob_fns[] = { CAL_ROB_LIST(CAL_ROB_ENTRY) };

/* ns per iteration of cal_rob_N over two chases of @per flushed lines each. */
static double cal_rob_pass(char *buf, uint64_t bytes, void **ha, void **hb, uint64_t per,
			   size_t f, int passes)
{
	double v[64];
	struct cal_stat st;

	for (int pass = 0; pass < passes && pass < 64; pass++) {
		double t0;

		for (uint64_t off = 0; off < bytes; off += 64)
			__asm__ volatile("clflush (%0)" : : "r"(buf + off) : "memory");
		__asm__ volatile("mfence" ::: "memory");
		t0 = cal_cpu_ns();
		cal_rob_fns[f].fn(ha, hb, per);
		v[pass] = (cal_cpu_ns() - t0) / (double)per;
	}
	cal_stat_of(v, passes < 64 ? passes : 64, &st);
	return st.med;
}

/**
 * cal_rob_entries - the reorder buffer's micro-ops in flight
 * @r: the run
 *
 * See CAL_ROB_FN.  Two chases of 512 lines each, 256 bytes apart in 256
 * KiB of pages the L1 dTLB holds (as cal_dram_flushed()), so that each
 * load is a DRAM miss and no walk.  NOP as the filler: one micro-op that
 * takes a reorder-buffer entry and no execution port on the parts the
 * profiles cite (on a part that retires NOPs without a reorder-buffer
 * entry the knee is not found, and the key keeps its builtin value).
 */
static void cal_rob_entries(struct cal_run *r)
{
	uint64_t bytes = 256 << 10, nr = bytes / 256, per = nr / 2;
	int runs = r->quick ? 3 : 7, passes = r->quick ? 4 : 9;
	size_t nf = sizeof(cal_rob_fns) / sizeof(cal_rob_fns[0]);
	double v[16];
	struct cal_stat s;
	char *buf = cal_map(bytes, false);
	void **ha, **hb;
	int n = 0;

	if (!buf)
		return;
	cal_progress(r, "reorder buffer (two chases, NOP fillers)");
	ha = cal_chase_build(buf, per, 256, NULL, 17);
	hb = cal_chase_build(buf + per * 256, per, 256, NULL, 19);
	for (int i = 0; i < runs && ha && hb; i++) {
		double base = cal_rob_pass(buf, bytes, ha, hb, per, 0, passes);

		for (size_t f = 1; f < nf && base > 0; f++) {
			double b2;

			if (cal_rob_pass(buf, bytes, ha, hb, per, f, passes) <= 1.5 * base)
				continue;
			/*
			 * A knee is confirmed by a second pass and a fresh base: a
			 * pass the host interrupted would put it early (a run of
			 * the morning of 5 December measured 224-384 uops where
			 * the others gave 448 every time).
			 */
			b2 = cal_rob_pass(buf, bytes, ha, hb, per, 0, passes);
			if (b2 > 0 && b2 < base)
				base = b2;
			if (cal_rob_pass(buf, bytes, ha, hb, per, f, passes) > 1.5 * base) {
				v[n++] = cal_rob_fns[f].n;
				break;
			}
		}
	}
	cal_unmap(buf, bytes, false);
	if (n < (runs + 1) / 2) {
		cal_note(r, "reorder buffer: no knee up to %u fillers in %d of %d runs; "
			 "the builtin's value kept", cal_rob_fns[nf - 1].n, runs - n, runs);
		return;
	}
	cal_stat_of(v, n, &s);
	cal_key_measured(r, "mem.rob_entries", (uint64_t)(s.med + 0.5),
			 "two chases of flushed lines, NOP fillers between, the knee (step 16)",
			 &s, "uops");
}
#endif

/**
 * cal_dram - idle DRAM latency of the local node
 * @r: the run
 *
 * On x86, a chase over lines that CLFLUSH has just evicted, in pages the
 * L1 dTLB holds (cal_dram_flushed()): the model charges TLB misses apart,
 * as walks.  The classic chase over many times the LLC (lmbench's) is run
 * too, in full runs, and printed beside it: its loads miss the TLBs as
 * well (two-dimensional walks in a guest).  Elsewhere the classic chase is
 * the measurement, less the share of loads that still hit the LLC.
 */
void cal_dram(struct cal_run *r)
{
	uint64_t bytes = cal_big_buffer(r, 8, 64ULL << 20);
	int runs = r->quick ? 3 : 7;
	double v[16], w[16];
	struct cal_stat s, sb;
	char method[96];
	bool huge = false;

	cal_progress(r, "DRAM latency (pointer chase)");
	cal_pin(r->cpus[0]);
#if defined(__x86_64__)
	if (!cal_dram_flushed(r, runs, v)) {
		cal_stat_of(v, runs, &s);
		cal_key_measured(r, "cache.dram_local_ns", (uint64_t)(s.med + 0.5),
				 "chase over lines just CLFLUSHed, 256 KiB in 4K pages", &s, "ns");
		cal_line_fill_buffers(r);
		cal_page_walkers(r);
		cal_rob_entries(r);
		if (!r->quick && !cal_dram_big(r, bytes, runs, w, &huge)) {
			cal_stat_of(w, runs, &sb);
			cal_note(r, "DRAM: a chase over %llu MiB%s takes %.0f ns a load (TLB misses "
				 "included; %.0f ns without)", (unsigned long long)(bytes >> 20),
				 huge ? " in 2M guest pages" : "", sb.med, s.med);
		}
		goto out_remote;
	}
#endif
	if (cal_dram_big(r, bytes, runs, v, &huge)) {
		cal_note(r, "DRAM latency: no memory for %llu MiB; the builtin's value kept",
			 (unsigned long long)(bytes >> 20));
		return;
	}
	cal_stat_of(v, runs, &s);
	snprintf(method, sizeof(method), "chase over %llu MiB%s, less the LLC's hits",
		 (unsigned long long)(bytes >> 20), huge ? " in 2M pages" : " (4K pages: walks in)");
	cal_key_measured(r, "cache.dram_local_ns", (uint64_t)(s.med + 0.5), method, &s, "ns");
	goto out_remote;
out_remote:
	if (r->nodes < 2)
		cal_note(r, "cache.dram_remote_ns: one node here; the builtin's value kept (unused)");
	else
		cal_note(r, "cache.dram_remote_ns: not measured (needs memory bound to another "
			 "node); the builtin's cited value kept");
}

/* ---- bandwidth ---- */

static void cal_zero_pages(char *p, uint64_t bytes)
{
	for (uint64_t off = 0; off < bytes; off += 4096) {
#if defined(__x86_64__)
		void *d = p + off;
		uint64_t n = 4096;

		__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
#else
		memset(p + off, 0, 4096);
		__asm__ volatile("" : : "r"(p) : "memory");
#endif
	}
}

static void cal_copy_pages(char *dst, const char *src, uint64_t bytes)
{
	for (uint64_t off = 0; off < bytes; off += 4096) {
#if defined(__x86_64__)
		void *d = dst + off;
		const void *s = src + off;
		uint64_t n = 4096;

		__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
#else
		memcpy(dst + off, src + off, 4096);
		__asm__ volatile("" : : "r"(dst) : "memory");
#endif
	}
}

static uint64_t cal_read_pass(const char *p, uint64_t bytes)
{
	const uint64_t *q = (const uint64_t *)p;
	uint64_t a = 0, b = 0, c = 0, d = 0;

	for (uint64_t i = 0; i < bytes / 8; i += 4) {
		a += q[i];
		b += q[i + 1];
		c += q[i + 2];
		d += q[i + 3];
	}
	return a + b + c + d;
}

enum cal_bw_kind { CAL_BW_ZERO, CAL_BW_READ };

struct cal_bw_arg {
	int cpu;
	enum cal_bw_kind kind;
	char *buf;
	uint64_t bytes;
	pthread_barrier_t *go;
	double t0, t1;
	uint64_t sink;
};

static void *cal_bw_thread(void *p)
{
	struct cal_bw_arg *a = p;

	cal_pin(a->cpu);
	pthread_barrier_wait(a->go);
	a->t0 = cal_now_ns();
	if (a->kind == CAL_BW_ZERO)
		cal_zero_pages(a->buf, a->bytes);
	else
		a->sink = cal_read_pass(a->buf, a->bytes);
	a->t1 = cal_now_ns();
	return NULL;
}

/* GB/s of every CPU at once: @kind over @per bytes each. */
static double cal_bw_all(struct cal_run *r, enum cal_bw_kind kind, char *buf, uint64_t per,
			 int nr)
{
	struct cal_bw_arg a[64];
	pthread_t t[64];
	pthread_barrier_t go;
	double first = 0, last = 0;
	int started = 0;

	pthread_barrier_init(&go, NULL, (unsigned)nr);
	for (int i = 0; i < nr; i++) {
		a[i] = (struct cal_bw_arg){ .cpu = r->cpus[i], .kind = kind, .buf = buf + i * per,
					    .bytes = per, .go = &go };
		if (pthread_create(&t[i], NULL, cal_bw_thread, &a[i]))
			break;
		started++;
	}
	if (started < nr) {	/* the barrier would wait forever: release it by hand */
		for (int i = started; i < nr; i++)
			pthread_barrier_wait(&go);
	}
	for (int i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		if (!i || a[i].t0 < first)
			first = a[i].t0;
		if (a[i].t1 > last)
			last = a[i].t1;
	}
	pthread_barrier_destroy(&go);
	return last > first ? (double)per * started / (last - first) : 0;
}

static uint64_t cal_gbps(double v)
{
	return v >= 1 ? (uint64_t)(v + 0.5) : 1;
}

/**
 * cal_bandwidth - zeroing, copy and read bandwidth of one core, read and
 * write bandwidth of every core at once
 * @r: the run
 */
/*
 * mem.string_store_rfo: whether a string store waits for its lines.  A
 * store that reads its line first (a read for ownership) holds a fill
 * buffer for the memory's latency, so one core zeroes at most
 * line_fill_buffers x 64 B per DRAM latency; a fast-string store that
 * invalidates whole lines without reading them (Intel SDM vol. 3A 8.2.4)
 * is not bound by that.  One core's rep stosb over DRAM above that bound
 * (by more than its spread and 20%) says the stores do not wait: 0; at
 * or below it, 1.  Needs the fill buffers and the DRAM latency measured
 * first (cal_dram()).
 */
static void cal_string_store_rfo(struct cal_run *r, const struct cal_stat *zero)
{
	const struct cal_key *lfb = cal_key_find(r, "mem.line_fill_buffers");
	const struct cal_key *lat = cal_key_find(r, "cache.dram_local_ns");
	double bound;
	bool rfo;

	if (!lfb || !lat || !lfb->value || !lat->value) {
		cal_note(r, "mem.string_store_rfo: the fill buffers or the DRAM latency not "
			 "measured; the builtin's value kept");
		return;
	}
	bound = (double)lfb->value * 64 / (double)lat->value;	/* bytes/ns = GB/s */
	rfo = zero->lo <= bound * 1.2;
	cal_key_set(r, "mem.string_store_rfo", rfo ? 1 : 0, "inferred: rep stosb at %.1f GB/s "
		    "on one core, %s %llu fill buffers x 64 B / %llu ns = %.1f GB/s, %s",
		    zero->med, rfo ? "within" : "above", (unsigned long long)lfb->value,
		    (unsigned long long)lat->value, bound, r->date);
}

/*
 * The gap between two pages: dependent adds, about @ns of the core's time
 * at the measured clock (one add a cycle).
 */
static uint64_t cal_gap(uint64_t iters, uint64_t x)
{
	for (uint64_t k = 0; k < iters; k++)
		__asm__ volatile("add %1, %0" : "+r"(x) : "r"(k));
	return x;
}

/*
 * mem.page_zero_ns: a 4K page zeroed (rep stosb) between other work, as a
 * fault's clear_page() is: each page of the buffer (cold: the runs above
 * left other lines in the caches) followed by a gap of about three times
 * the page's time at the sustained rate, so that the write-back keeps up;
 * the loop with the stores less the same loop without them, per page.  The
 * core's stores go to its caches as whole lines; their write-back to DRAM
 * overlaps the gap (the model: memsys_zero()).
 */
static void cal_page_zero(struct cal_run *r, char *buf, uint64_t bytes, int runs,
			  const struct cal_stat *zero)
{
	uint64_t pages = bytes / 4096, x = 0;
	uint64_t gap = (uint64_t)(3 * 4096 / zero->med * r->mhz / 1000);	/* cycles */
	double v[16];
	struct cal_stat s;

	for (int i = 0; i < runs; i++) {
		double t0, t1, t2;

		t0 = cal_cpu_ns();
		for (uint64_t pg = 0; pg < pages; pg++) {
#if defined(__x86_64__)
			void *d = buf + pg * 4096;
			uint64_t n = 4096;

			__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
#else
			memset(buf + pg * 4096, 0, 4096);
			__asm__ volatile("" : : "r"(buf) : "memory");
#endif
			x = cal_gap(gap, x);
		}
		t1 = cal_cpu_ns();
		for (uint64_t pg = 0; pg < pages; pg++)
			x = cal_gap(gap, x);
		t2 = cal_cpu_ns();
		v[i] = ((t1 - t0) - (t2 - t1)) / (double)pages;
		if (v[i] < 1)
			v[i] = 1;
	}
	__asm__ volatile("" : : "r"(x));
	cal_stat_of(v, runs, &s);
	cal_key_measured(r, "mem.page_zero_ns", (uint64_t)(s.med + 0.5),
			 "rep stosb of a 4K page, a gap of 3 pages' stream time after each",
			 &s, "ns");
}

/*
 * mem.zero_l3_gbps: rep stosb a 4K page at a time over a buffer a quarter
 * of the L3 holds, zeroed again and again, so that every line is in the
 * L3 when its page is zeroed: the rate a folio's pages after the first
 * drain at when the allocator hands back frames still cached
 * (scripts/validation/zero_rate.c; here 87-102 GB/s, 149-160 within the
 * L2, 27-31 from memory).  Checked by calibrate's fit: a 64K folio's
 * round, held out of the fit, went from -17..-21% to +0.8..+5.9% over
 * three runs (docs/calibrate.md).
 */
static void cal_zero_l3(struct cal_run *r, char *buf, uint64_t bytes, int runs)
{
	const struct cal_key *l3 = cal_key_find(r, "cache.l3_kib");
	uint64_t size = (l3 ? l3->value : 16384) * 1024 / 4 / 4096 * 4096;
	uint64_t passes = size ? (64ULL << 20) / size : 0;
	double v[16];
	struct cal_stat s;
	char method[96];

	if (!size || size > bytes || !passes)
		return;
	cal_zero_pages(buf, size);
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		for (uint64_t p = 0; p < passes; p++)
			cal_zero_pages(buf, size);
		v[i] = (double)(size * passes) / (cal_cpu_ns() - t0);
	}
	cal_stat_of(v, runs, &s);
	snprintf(method, sizeof(method), "rep stosb per 4K page over %llu KiB again and again",
		 (unsigned long long)(size >> 10));
	cal_key_measured(r, "mem.zero_l3_gbps", cal_gbps(s.med), method, &s, "GB/s");
}

void cal_bandwidth(struct cal_run *r)
{
	uint64_t bytes = cal_big_buffer(r, r->quick ? 2 : 4, 64ULL << 20);
	int runs = r->quick ? 3 : 7, nr = r->nr_cpus < 64 ? r->nr_cpus : 64;
	double v[16];
	struct cal_stat s;
	uint64_t sink = 0, per;
	char method[96];
	char *buf;

	cal_progress(r, "memory bandwidth");
	buf = cal_map(bytes, true);
	if (!buf) {
		cal_note(r, "bandwidth: no memory for %llu MiB; the builtin's values kept",
			 (unsigned long long)(bytes >> 20));
		return;
	}
	cal_pin(r->cpus[0]);
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		cal_zero_pages(buf, bytes);
		v[i] = (double)bytes / (cal_cpu_ns() - t0);
	}
	cal_stat_of(v, runs, &s);
	snprintf(method, sizeof(method), "rep stosb per 4K page over %llu MiB, one core",
		 (unsigned long long)(bytes >> 20));
	cal_key_measured(r, "mem.zero_gbps", cal_gbps(s.med), method, &s, "GB/s");
	cal_string_store_rfo(r, &s);
	cal_page_zero(r, buf, bytes, runs, &s);
	cal_zero_l3(r, buf, bytes, runs);
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		cal_copy_pages(buf + bytes / 2, buf, bytes / 2);
		v[i] = (double)(bytes / 2) / (cal_cpu_ns() - t0);
	}
	cal_stat_of(v, runs, &s);
	snprintf(method, sizeof(method), "rep movsb per 4K page, %llu MiB copied, one core",
		 (unsigned long long)(bytes >> 21));
	cal_key_measured(r, "mem.copy_gbps", cal_gbps(s.med), method, &s, "GB/s");
	for (int i = 0; i < runs; i++) {
		double t0 = cal_cpu_ns();

		sink += cal_read_pass(buf, bytes);
		v[i] = (double)bytes / (cal_cpu_ns() - t0);
	}
	__asm__ volatile("" : : "r"(sink));
	cal_stat_of(v, runs, &s);
	snprintf(method, sizeof(method), "read pass over %llu MiB, one core",
		 (unsigned long long)(bytes >> 20));
	cal_key_measured(r, "mem.stream_gbps", cal_gbps(s.med), method, &s, "GB/s");

	per = bytes / (uint64_t)nr / 4096 * 4096;
	for (int i = 0; i < runs; i++)
		v[i] = cal_bw_all(r, CAL_BW_READ, buf, per, nr);
	cal_stat_of(v, runs, &s);
	snprintf(method, sizeof(method), "read passes on all %d CPUs at once, %llu MiB", nr,
		 (unsigned long long)(bytes >> 20));
	cal_key_measured(r, "mem.node_read_gbps", cal_gbps(s.med), method, &s, "GB/s");
	for (int i = 0; i < runs; i++)
		v[i] = cal_bw_all(r, CAL_BW_ZERO, buf, per, nr);
	cal_stat_of(v, runs, &s);
	snprintf(method, sizeof(method), "rep stosb on all %d CPUs at once, %llu MiB", nr,
		 (unsigned long long)(bytes >> 20));
	cal_key_measured(r, "mem.node_write_gbps", cal_gbps(s.med), method, &s, "GB/s");
	cal_unmap(buf, bytes, true);
	if (r->nodes > 1)
		cal_note(r, "node bandwidth: the buffer lies on CPU %d's node, so every CPU "
			 "reads and writes that one node", r->cpus[0]);
}
