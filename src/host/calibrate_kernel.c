// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim calibrate`: the kernel's side of this machine.
 *
 *   ipi.*               membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): it IPIs
 *                       every CPU that runs a thread of this mm.  Its time with
 *                       a thread of the mm spinning on another CPU, less its
 *                       time without one, is an IPI round trip; the spinning
 *                       thread sees the interrupt as a gap in its TSC readings,
 *                       which is the receiver's entry, handler and exit
 *   tlb.invlpg_ns, flush_all_ns  the same gaps for a TLB shootdown: a 1-page,
 *                       a 32-page and a (ceiling + 1)-page mprotect() of pages
 *                       the spinning thread touched (flush_tlb_func() does one
 *                       INVLPG per page up to the ceiling, then a full flush)
 *   single-thread kernel paths, for the fit (calibrate_fit.c) and the notes:
 *                       a write fault of a new 4K page and of 16K and 64K mTHP,
 *                       munmap() and MADV_DONTNEED per folio, mmap()+munmap()
 *                       of an empty region; a read and a write fault of a
 *                       new page of a tmpfs file (a memfd) mapped shared; a
 *                       copy-on-write fault of a page shared with a forked
 *                       child (the parent writes); swap-out (MADV_PAGEOUT) and
 *                       swap-in (a touch) of a 4K page through zram (root)
 *   mm.lru_add_ns, lru_del_ns  the lru_lock's hold per folio added (a 4K
 *                       fault batch's drain) and freed (munmap()), from
 *                       cpu-clock samples taken as interrupts come back on
 *                       (root, kernel callchains and /proc/kallsyms)
 *   mm.zap_pte_ns, rmap_del_ns, uncharge_ns, page_free_ns  the same samples:
 *                       an unmap's parts per 4K folio (unmap_page_range()'s
 *                       own, folio_remove_rmap_ptes(), the memcg uncharge,
 *                       free_unref_folios())
 *   mm.bh_begin_ns, bh_commit_ns, bh_dirty_ns  the same over page_fault3's
 *                       loop on a /tmp file: the buffer_head passes a block
 *   mm.i_pages_add_ns, i_pages_del_ns, shmem_acct_ns  the same samples over
 *                       tmpfs rounds: the i_pages lock's hold per page added
 *                       (shmem_add_to_page_cache()) and deleted at the
 *                       file's truncation (filemap_remove_folio()), and a
 *                       new page's block accounting (shmem_inode_acct_blocks())
 *   mm.read_ahead_kb    sysfs, the device holding /tmp
 *   note: a perf sample of a tracepoint (syscalls:sys_enter_getppid, every
 *                       call), without and with a kernel callchain: what a
 *                       traced live run adds per lock:contention_end, the
 *                       value of --cost lock.contention_trace_ns that models
 *                       it (root, tracefs)
 *   swap.zram_*         O_DIRECT writes and reads of 4K pages on a zram
 *                       device of our own, text-like pages less zero-filled
 *                       pages (zram stores those without compressing)
 *
 * As root, an mTHP size that is off is set to "madvise" for its runs (and
 * larger sizes that would win to "never"), through host/settings.c, and
 * restored at once; zram devices are made and removed through
 * /sys/class/zram-control.  SIGINT, SIGTERM and SIGHUP wait while a
 * setting is changed.  Without root nothing is changed, and the run says
 * what it skipped.  Mirrors no kernel function.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "host/calibrate.h"
#include "host/live_internal.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static double cal_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * While a setting of the machine is changed, signals that would end the
 * run wait.  Another live run or calibrate is kept out for the whole run
 * by the state file's lock (live_state_lock(), taken in
 * calibrate_profile_text()), so that two runs never save each other's
 * temporary values as the ones to restore.
 */
static void cal_hold_signals(bool hold)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	pthread_sigmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

/* ---- IPIs and shootdowns ---- */

#if defined(__x86_64__)
#define CAL_MAX_GAPS	8192

/*
 * A thread of this mm on another CPU that reads the TSC in a loop and
 * records every gap longer than a threshold: the time an interrupt took
 * from it.
 */
struct cal_spinner {
	int cpu;
	int stop, ready;		/* atomics */
	uint64_t thresh;		/* TSC ticks */
	const char *touch;		/* pages it reads first, or NULL */
	uint64_t touch_bytes;
	uint64_t gap_a[CAL_MAX_GAPS], gap_b[CAL_MAX_GAPS];
	int nr_gaps;
};

static void *cal_spinner_thread(void *p)
{
	struct cal_spinner *s = p;
	uint64_t prev, now, sum = 0;

	cal_pin(s->cpu);
	for (uint64_t off = 0; s->touch && off < s->touch_bytes; off += 4096)
		sum += (uint64_t)s->touch[off];
	__asm__ volatile("" : : "r"(sum));
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	prev = __rdtsc();
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		now = __rdtsc();
		if (now - prev > s->thresh && s->nr_gaps < CAL_MAX_GAPS) {
			s->gap_a[s->nr_gaps] = prev;
			s->gap_b[s->nr_gaps] = now;
			s->nr_gaps++;
		}
		prev = now;
	}
	return NULL;
}

static double cal_tsc_per_ns(void)
{
	double t0 = cal_now_ns(), t1;
	uint64_t c0 = __rdtsc(), c1;

	do
		t1 = cal_now_ns();
	while (t1 - t0 < 20e6);
	c1 = __rdtsc();
	return (double)(c1 - c0) / (t1 - t0);
}

enum cal_op { CAL_OP_MEMBARRIER, CAL_OP_MPROTECT };

/*
 * @nr calls of @op, each timed by the TSC into @t0/@t1, spaced by a few
 * microseconds so that the spinner's gaps do not run together.
 */
static int cal_ops(enum cal_op op, char *pages, uint64_t bytes, int nr, uint64_t *t0,
		   uint64_t *t1)
{
	for (int i = 0; i < nr; i++) {
		uint64_t wait;

		if (op == CAL_OP_MPROTECT) {
			for (uint64_t off = 0; off < bytes; off += 4096)
				pages[off]++;		/* present and writable in this TLB */
			t0[i] = __rdtsc();
			if (mprotect(pages, bytes, PROT_READ))
				return -errno;
			t1[i] = __rdtsc();
			if (mprotect(pages, bytes, PROT_READ | PROT_WRITE))
				return -errno;
		} else {
			t0[i] = __rdtsc();
			if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
				return -errno;
			t1[i] = __rdtsc();
		}
		wait = __rdtsc();
		while (__rdtsc() - wait < 20000)
			;
	}
	return 0;
}

/*
 * The spinner shares its CPU with whatever else runs there: an IPI is
 * sent (membarrier) or seen (a flush) only while it runs.  So with a
 * spinner, only the calls in which it saw a gap count.
 */
struct cal_ipi_result {
	struct cal_stat rt;		/* every call (ns) */
	struct cal_stat rt_seen;	/* the calls whose IPI the spinner saw (ns) */
	struct cal_stat gap;		/* the spinner's gap inside those calls (ns) */
	int nr_matched;
};

#define CAL_MAX_SPINNERS	8

/*
 * @op with @nr_spin spinners of this mm on @spin_cpus (0: none).  A call
 * counts as seen when every spinner has a gap inside it; the gap is the
 * first spinner's.
 */
static int cal_ipi_measure(struct cal_run *r, enum cal_op op, char *pages, uint64_t bytes,
			   const int *spin_cpus, int nr_spin, double tpn, struct cal_ipi_result *res)
{
	int nr = r->quick ? 400 : 1500;
	uint64_t *t0 = calloc((size_t)nr, sizeof(*t0)), *t1 = calloc((size_t)nr, sizeof(*t1));
	double *rt = calloc((size_t)nr, sizeof(*rt)), *gap = calloc((size_t)nr, sizeof(*gap));
	double *seen = calloc((size_t)nr, sizeof(*seen));
	struct cal_spinner *s = calloc(CAL_MAX_SPINNERS, sizeof(*s));
	pthread_t t[CAL_MAX_SPINNERS];
	int ret = -ENOMEM, g[CAL_MAX_SPINNERS] = { 0 }, ng = 0, started = 0;

	memset(res, 0, sizeof(*res));
	if (!t0 || !t1 || !rt || !gap || !seen || !s)
		goto out_free;
	ret = 0;
	for (int k = 0; k < nr_spin && k < CAL_MAX_SPINNERS; k++) {
		s[k].cpu = spin_cpus[k];
		s[k].thresh = (uint64_t)(120 * tpn);
		s[k].touch = pages;
		s[k].touch_bytes = bytes;
		if (pthread_create(&t[k], NULL, cal_spinner_thread, &s[k])) {
			ret = -EAGAIN;
			break;
		}
		started++;
		while (!__atomic_load_n(&s[k].ready, __ATOMIC_ACQUIRE))
			;
	}
	if (!ret)
		ret = cal_ops(op, pages, bytes, nr, t0, t1);
	for (int k = 0; k < started; k++) {
		__atomic_store_n(&s[k].stop, 1, __ATOMIC_RELEASE);
		pthread_join(t[k], NULL);
	}
	if (ret)
		goto out_free;
	for (int i = 0; i < nr; i++) {
		bool all = started > 0;
		double first = 0;

		rt[i] = (double)(t1[i] - t0[i]) / tpn;
		for (int k = 0; k < started; k++) {
			struct cal_spinner *x = &s[k];
			uint64_t best = 0;

			/* the longest gap inside the call: small ones are the host's or noise */
			while (g[k] < x->nr_gaps && x->gap_a[g[k]] < t0[i])
				g[k]++;
			for (int j = g[k]; j < x->nr_gaps && x->gap_a[j] <= t1[i]; j++)
				if (x->gap_b[j] - x->gap_a[j] <= t1[i] - t0[i] &&
				    x->gap_b[j] - x->gap_a[j] > best)
					best = x->gap_b[j] - x->gap_a[j];
			all &= best > 0;
			if (!k)
				first = (double)best / tpn;
		}
		if (all) {
			seen[ng] = rt[i];
			gap[ng++] = first;
		}
	}
	cal_stat_of(rt, nr, &res->rt);
	res->nr_matched = ng;
	if (ng) {
		cal_stat_of(gap, ng, &res->gap);
		cal_stat_of(seen, ng, &res->rt_seen);
	}
out_free:
	free(seen);
	free(t0);
	free(t1);
	free(rt);
	free(gap);
	free(s);
	return ret;
}

/*
 * With a spinner: a CPU shared with other work may leave it off the CPU
 * for a whole attempt, so up to four attempts, keeping the one in which it
 * saw the most IPIs.
 */
static int cal_ipi_measure_spun(struct cal_run *r, enum cal_op op, char *pages, uint64_t bytes,
				const int *spin_cpus, int nr_spin, double tpn,
				struct cal_ipi_result *res)
{
	struct cal_ipi_result t;
	int ret;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < 4 && res->nr_matched < 50; i++) {
		ret = cal_ipi_measure(r, op, pages, bytes, spin_cpus, nr_spin, tpn, &t);
		if (ret)
			return ret;
		if (t.nr_matched >= res->nr_matched)
			*res = t;
	}
	return 0;
}

static void cal_stat_ns(struct cal_stat *s, double less)
{
	s->med -= less;
	s->lo -= less;
	s->hi -= less;
}

/*
 * With 3 or more CPUs: the membarrier round trip to k targets (a spinner
 * on each) less the round trip to one, per extra target, is what the
 * sender spends per target (smp_call_function_many_cond() queues a csd
 * and sends to each, then waits once); delivery is the rest of the round
 * trip to one target.  @rest: the round trip to one target less the
 * receiver and the ack.  Return: 0 with the keys set, or -1 when the k
 * spinners were not all seen.
 */
static int cal_ipi_send_slope(struct cal_run *r, char *pages, double tpn, double rt1,
			      double *rest)
{
	int k = r->nr_cpus - 1 < CAL_MAX_SPINNERS ? r->nr_cpus - 1 : CAL_MAX_SPINNERS;
	struct cal_ipi_result many;
	double send, lat;
	char method[96];

	if (cal_ipi_measure_spun(r, CAL_OP_MEMBARRIER, pages, 0, r->cpus + 1, k, tpn, &many) ||
	    many.nr_matched < 10) {
		cal_note(r, "IPIs to %d targets: the spinners were not all seen; send_ns inferred",
			 k);
		return -1;
	}
	send = (many.rt_seen.med - rt1) / (k - 1);
	if (send < 0)
		send = 0;
	lat = *rest - send > 0 ? *rest - send : 0;
	snprintf(method, sizeof(method), "membarrier to %d targets minus to 1, per target", k);
	many.rt_seen.med = send;
	many.rt_seen.lo = (many.rt_seen.lo - rt1) / (k - 1);
	many.rt_seen.hi = (many.rt_seen.hi - rt1) / (k - 1);
	cal_key_measured(r, "ipi.send_ns", (uint64_t)(send + 0.5), method, &many.rt_seen, "ns");
	cal_key_set(r, "ipi.latency_ns", (uint64_t)(lat + 0.5),
		    "derived: the membarrier round trip to 1 target less send, entry_exit and "
		    "the ack's line transfer, %s", r->date);
	return 0;
}

/**
 * cal_ipi - IPI send, delivery and handling; INVLPG and full flush in a shootdown
 * @r: the run
 */
void cal_ipi(struct cal_run *r)
{
	long ceiling = 33;
	const char *ceiling_src = "the kernel's default";
	struct cal_ipi_result base, with, mp[3][2];
	double tpn, rt, rest;
	uint64_t bytes[3];
	char *pages;
	char method[96];
	int spin;

	cal_progress(r, "IPIs and TLB shootdowns (membarrier, mprotect)");
	if (r->nr_cpus < 2) {
		cal_note(r, "IPIs: one CPU, no IPI to time; the builtin's cited values kept");
		return;
	}
	spin = r->cpus[1];
	cal_pin(r->cpus[0]);
	tpn = cal_tsc_per_ns();
	{
		char buf[32];

		if (live_read_file("/sys/kernel/debug/x86/tlb_single_page_flush_ceiling", buf,
				   sizeof(buf)) > 0 && atol(buf) > 0) {
			ceiling = atol(buf);
			ceiling_src = "debugfs";
			cal_key_set(r, "tlb.single_page_flush_ceiling", (uint64_t)ceiling,
				    "measured: debugfs x86/tlb_single_page_flush_ceiling, %s", r->date);
		}
	}
	bytes[0] = 4096;
	bytes[1] = 32 * 4096 < (uint64_t)ceiling * 4096 ? 32 * 4096 : (uint64_t)ceiling * 4096;
	bytes[2] = (uint64_t)(ceiling + 1) * 4096;
	pages = cal_map(bytes[2], false);
	if (!pages)
		return;
	/* without a spinner first: no other CPU has run this mm yet */
	for (int k = 0; k < 3; k++)
		if (cal_ipi_measure(r, CAL_OP_MPROTECT, pages, bytes[k], NULL, 0, tpn, &mp[k][0]))
			goto out_unmap;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) ||
	    cal_ipi_measure(r, CAL_OP_MEMBARRIER, pages, 0, NULL, 0, tpn, &base) ||
	    cal_ipi_measure_spun(r, CAL_OP_MEMBARRIER, pages, 0, &spin, 1, tpn, &with)) {
		cal_note(r, "IPIs: membarrier(PRIVATE_EXPEDITED) failed (%s); the builtin's "
			 "cited values kept", strerror(errno));
		goto out_mprotect;
	}
	rt = with.rt_seen.med - base.rt.med;
	cal_note(r, "IPI round trip (membarrier, CPUs %d->%d): %.0f ns (%.0f with, %.0f without "
		 "a thread of the mm there; %d of %d calls found it running)", r->cpus[0], spin,
		 rt, with.rt_seen.med, base.rt.med, with.nr_matched, with.rt.n);
	if (with.nr_matched < 10) {
		cal_note(r, "IPIs: the receiver saw too few of them; ipi.* keep the builtin's "
			 "cited values");
		goto out_mprotect;
	}
	snprintf(method, sizeof(method), "receiver's TSC gap in membarrier IPIs, CPU %d", spin);
	cal_key_measured(r, "ipi.entry_exit_ns", (uint64_t)(with.gap.med + 0.5), method, &with.gap,
			 "ns");
	rest = rt - with.gap.med - r->transfer_ns;
	if (rest < 0)
		rest = 0;
	if (r->nr_cpus >= 3 && !cal_ipi_send_slope(r, pages, tpn, with.rt_seen.med, &rest))
		goto out_mprotect;
	cal_key_set(r, "ipi.send_ns", (uint64_t)(rest / 2 + 0.5),
		    "inferred: half of the membarrier IPI round trip %.0f ns less entry_exit and "
		    "the ack's line transfer, %s", rt, r->date);
	cal_key_set(r, "ipi.latency_ns", (uint64_t)(rest / 2 + 0.5),
		    "inferred: the other half of that round trip (send and delivery cannot be "
		    "told apart from user space), %s", r->date);
	fprintf(r->log, "  %-30s %10llu   (inferred)\n  %-30s %10llu   (inferred)\n", "ipi.send_ns",
		(unsigned long long)(rest / 2 + 0.5), "ipi.latency_ns",
		(unsigned long long)(rest / 2 + 0.5));
	cal_note(r, "ipi.send_ns and latency_ns: one round trip split in halves, an inference "
		 "(a machine of 3 or more CPUs measures the send per target)");

out_mprotect:
	for (int k = 0; k < 3; k++)
		if (cal_ipi_measure_spun(r, CAL_OP_MPROTECT, pages, bytes[k], &spin, 1, tpn,
					 &mp[k][1]))
			goto out_unmap;
	cal_note(r, "TLB shootdown round trip (mprotect of 1 page, a thread of the mm on CPU %d): "
		 "%.0f ns, %.0f without that thread (%d of %d calls found it running)", spin,
		 mp[0][1].rt_seen.med, mp[0][0].rt.med, mp[0][1].nr_matched, mp[0][1].rt.n);
	if (mp[0][1].nr_matched < 10 || mp[1][1].nr_matched < 10) {
		cal_note(r, "shootdowns: the receiver saw too few flush IPIs (%d, %d of %d); "
			 "tlb.invlpg_ns and flush_all_ns keep the builtin's cited values",
			 mp[0][1].nr_matched, mp[1][1].nr_matched, mp[0][1].rt.n);
		goto out_unmap;
	}
	{
		struct cal_stat s = mp[1][1].gap;
		double n = (double)(bytes[1] - bytes[0]) / 4096;
		double inv = (mp[1][1].gap.med - mp[0][1].gap.med) / n;

		cal_stat_ns(&s, mp[0][1].gap.med);
		s.med /= n;
		s.lo /= n;
		s.hi /= n;
		snprintf(method, sizeof(method), "flush IPI gap, %.0f-page minus 1-page mprotect, "
			 "per page", n + 1);
		cal_key_difference(r, "tlb.invlpg_ns", method, &s, "ns");
		if (mp[2][1].nr_matched < 10) {
			cal_note(r, "full flush: the receiver saw too few (%d of %d); "
				 "tlb.flush_all_ns keeps the builtin's value", mp[2][1].nr_matched,
				 mp[2][1].rt.n);
			goto out_unmap;
		}
		s = mp[2][1].gap;
		cal_stat_ns(&s, mp[0][1].gap.med - (inv > 0 ? inv : 0));
		snprintf(method, sizeof(method), "flush IPI gap, %ld-page (full flush) minus 1-page "
			 "mprotect, + 1 INVLPG", ceiling + 1);
		cal_key_difference(r, "tlb.flush_all_ns", method, &s, "ns");
		cal_note(r, "full flush: above %ld pages (%s); flush_all_ns excludes the refill, "
			 "which the model charges as walks", ceiling, ceiling_src);
	}
out_unmap:
	cal_unmap(pages, bytes[2], false);
}
#else
void cal_ipi(struct cal_run *r)
{
	cal_progress(r, "IPIs and TLB shootdowns");
	cal_note(r, "IPIs: the receiver's gaps need the x86 TSC; ipi.* and tlb.invlpg_ns keep "
		 "the builtin's cited values");
}
#endif

/* ---- single-thread kernel paths ---- */

/* The mTHP size's setting in force: "never" also for "inherit" under a top-level "never". */
static const char *cal_mthp_effective(struct live_settings *st, unsigned kib)
{
	char rel[80];
	struct live_setting *s, *top = live_settings_find(st, "enabled");

	snprintf(rel, sizeof(rel), "hugepages-%ukB/enabled", kib);
	s = live_settings_find(st, rel);
	if (!s)
		return NULL;
	if (!strcmp(s->saved, "inherit"))
		return top ? top->saved : "never";
	return s->saved;
}

/* Each larger size that would be chosen first: "never" (ds_want() does the same for all). */
static int cal_mthp_want(struct cal_run *r, struct live_settings *st, unsigned kib)
{
	char rel[80];
	const char *eff = cal_mthp_effective(st, kib);
	bool change = false;

	if (!eff)
		return -ENOENT;
	for (int i = 0; i < st->nr; i++)
		st->s[i].want[0] = '\0';
	if (!strcmp(eff, "never")) {
		snprintf(rel, sizeof(rel), "hugepages-%ukB/enabled", kib);
		live_settings_want(st, rel, "madvise");
		change = true;
	}
	for (int i = 0; i < st->nr; i++) {
		unsigned k;
		const char *e;

		if (sscanf(st->s[i].rel, "hugepages-%ukB/enabled", &k) != 1 || k <= kib)
			continue;
		e = cal_mthp_effective(st, k);
		if (e && strcmp(e, "never")) {
			snprintf(st->s[i].want, sizeof(st->s[i].want), "never");
			change = true;
		}
	}
	if (change && !r->may_change)
		return -EPERM;
	return 0;
}

static uint64_t cal_mthp_allocs(unsigned kib)
{
	char abs[160], path[512], buf[64];

	snprintf(abs, sizeof(abs), LIVE_THP_DIR "/hugepages-%ukB/stats/anon_fault_alloc", kib);
	if (live_sys_path(path, sizeof(path), abs) || live_read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoull(buf, NULL, 10);
}

/* @bytes of anonymous memory aligned to 2M, for faults of @kib folios. */
static char *cal_region(uint64_t bytes, unsigned kib)
{
	const uint64_t align = 2ULL << 20;
	char *p = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0), *q;

	if (p == MAP_FAILED)
		return NULL;
	q = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (q > p)
		munmap(p, (size_t)(q - p));
	munmap(q + bytes, (size_t)(p + align - q));
	madvise(q, bytes, kib > 4 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return q;
}

/*
 * Rounds of: map @region, write one byte per @kib folio, then empty it by
 * munmap() (even rounds) or MADV_DONTNEED and munmap() (odd rounds).
 * Per folio, the thread's CPU time.  Return: 0, -ENOMEM, or -EOPNOTSUPP
 * when the kernel did not give mTHP folios of @kib.
 */
static int cal_fault_runs(struct cal_run *r, int o, uint64_t region, int rounds)
{
	unsigned kib = cal_fault_kib[o];
	uint64_t step = (uint64_t)kib << 10, nr = region / step, allocs = cal_mthp_allocs(kib);
	double f[32], u[32], d[32];
	int nf = 0, nu = 0, nd = 0;
	struct cal_stat s;

	for (int round = -2; round < 2 * rounds; round++) {	/* two rounds warm */
		char *p = cal_region(region, kib);
		double t0, t1, t2;

		if (!p)
			return -ENOMEM;
		t0 = cal_cpu_ns();
		for (uint64_t i = 0; i < nr; i++)
			p[i * step] = 1;
		t1 = cal_cpu_ns();
		if (round & 1)
			madvise(p, region, MADV_DONTNEED);
		t2 = cal_cpu_ns();
		munmap(p, region);
		if (round < 0)
			continue;
		f[nf++] = (t1 - t0) / (double)nr;
		if (round & 1)
			d[nd++] = (t2 - t1) / (double)nr;
		else
			u[nu++] = (cal_cpu_ns() - t2) / (double)nr;
	}
	if (kib > 4 && cal_mthp_allocs(kib) - allocs < (uint64_t)(2 * rounds + 2) * nr * 9 / 10)
		return -EOPNOTSUPP;
	cal_stat_of(f, nf, &s);
	r->paths.fault[o] = (struct cal_path){ s.med, nf };
	cal_note(r, "path: write fault of a new %uK folio %.0f ns (median of %d, %.0f-%.0f)", kib,
		 s.med, nf, s.lo, s.hi);
	cal_stat_of(u, nu, &s);
	r->paths.munmap[o] = (struct cal_path){ s.med, nu };
	cal_note(r, "path: munmap() of %uK folios %.0f ns per folio (median of %d, %.0f-%.0f)",
		 kib, s.med, nu, s.lo, s.hi);
	cal_stat_of(d, nd, &s);
	r->paths.dontneed[o] = (struct cal_path){ s.med, nd };
	cal_note(r, "path: MADV_DONTNEED of %uK folios %.0f ns per folio (median of %d, "
		 "%.0f-%.0f)", kib, s.med, nd, s.lo, s.hi);
	return 0;
}

/*
 * mm.fault_spread_ns: each 4K write fault of @region timed alone (the TSC
 * around the faulting store), over @rounds rounds after one warm-up.  Their
 * 10th and 90th percentiles about the median; the model draws a fault's
 * fixed cost uniformly within +-U of mm.fault_entry_ns, whose 10th and 90th
 * percentiles are +-0.8 U, so U = (p90 - p10) / 1.6.  Interrupts and the
 * host's preemptions land above the 90th percentile and do not count.
 */
static void cal_fault_spread(struct cal_run *r, uint64_t region, int rounds)
{
	uint64_t nr = region / 4096, n = 0;
	double *v = malloc((size_t)(nr * (uint64_t)rounds) * sizeof(*v)), tpn = cal_tsc_per_ns();
	struct cal_stat s;

	if (!v || tpn <= 0) {
		free(v);
		return;
	}
	for (int round = -1; round < rounds; round++) {
		char *p = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			break;
		madvise(p, region, MADV_NOHUGEPAGE);
		for (uint64_t i = 0; i < nr; i++) {
			uint64_t t0 = __rdtsc(), t1;

			((volatile char *)p)[i * 4096] = 1;
			t1 = __rdtsc();
			if (round >= 0)
				v[n++] = (double)(t1 - t0) / tpn;
		}
		munmap(p, region);
	}
	if (n >= 1000) {
		cal_stat_of(v, (int)n, &s);	/* lo, hi: the 10th and 90th percentiles */
		cal_key_set(r, "mm.fault_spread_ns", (uint64_t)((s.hi - s.lo) / 1.6 + 0.5),
			    "measured: %llu 4K write faults timed alone, p10-p90 %.0f-%.0f ns about "
			    "%.0f: a uniform draw of that spread, %s", (unsigned long long)n, s.lo,
			    s.hi, s.med, r->date);
	}
	free(v);
}

/* A new memfd of @region bytes, mapped shared at *@p; 0 or -errno. */
static int cal_memfd_map(uint64_t region, int *fd, volatile char **p)
{
	*fd = (int)syscall(SYS_memfd_create, "mmsim-calibrate", 0);
	if (*fd < 0)
		return -errno;
	if (ftruncate(*fd, (off_t)region)) {
		int err = -errno;

		close(*fd);
		return err;
	}
	*p = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (*p == MAP_FAILED) {
		close(*fd);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Rounds of: a new memfd of @region mapped shared, one load (or store,
 * @write) per page, munmap() and close().  Per page, the thread's CPU
 * time of the touches: do_read_fault() (fault-around over an empty
 * window, then shmem_fault() allocating, zeroing and adding the folio)
 * or do_shared_fault().  The model's version: workloads/calibrate/
 * calibrate-shmem.ini.  Return: 0 or a negative errno.
 */
static int cal_shmem_runs(struct cal_run *r, uint64_t region, int rounds, bool write)
{
	uint64_t nr = region / 4096;
	double v[32];
	int n = 0;
	struct cal_stat s;

	for (int round = -2; round < rounds; round++) {	/* two rounds warm */
		volatile char *p;
		double t0, t1;
		char sum = 0;
		int fd, ret = cal_memfd_map(region, &fd, &p);

		if (ret)
			return ret;
		t0 = cal_cpu_ns();
		for (uint64_t i = 0; i < nr; i++) {
			if (write)
				p[i * 4096] = 1;
			else
				sum += p[i * 4096];
		}
		t1 = cal_cpu_ns();
		__asm__ volatile("" : : "r"(sum));
		munmap((void *)p, region);
		close(fd);
		if (round >= 0)
			v[n++] = (t1 - t0) / (double)nr;
	}
	cal_stat_of(v, n, &s);
	if (write)
		r->paths.shmem_write = (struct cal_path){ s.med, n };
	else
		r->paths.shmem_read = (struct cal_path){ s.med, n };
	cal_note(r, "path: %s fault of a new tmpfs page, shared mapping, %.0f ns (median of %d, "
		 "%.0f-%.0f)", write ? "write" : "read", s.med, n, s.lo, s.hi);
	return 0;
}

/*
 * Rounds of: @region of private anonymous memory filled by
 * MADV_POPULATE_WRITE (4K pages), a fork()ed child that holds it and
 * waits, one store per page by the parent, munmap().  Per page, the
 * parent's CPU time of the stores: do_wp_page() -> wp_page_copy() (the
 * page is shared with the child).  The model's version
 * (workloads/calibrate/calibrate-cow.ini) has the child write; the path
 * is the same.  Return: 0 or a negative errno.
 */
static int cal_cow_runs(struct cal_run *r, uint64_t region, int rounds)
{
	uint64_t nr = region / 4096;
	double v[32];
	int n = 0;
	struct cal_stat s;

	for (int round = -2; round < rounds; round++) {	/* two rounds warm */
		char *p = cal_region(region, 4);
		int pfd[2], st;
		double t0, t1;
		pid_t pid;
		char c;

		if (!p)
			return -ENOMEM;
		if (madvise(p, region, 23 /* MADV_POPULATE_WRITE */)) {
			for (uint64_t i = 0; i < nr; i++)
				p[i * 4096] = 1;
		}
		if (pipe(pfd)) {
			munmap(p, region);
			return -errno;
		}
		pid = fork();
		if (pid < 0) {
			close(pfd[0]);
			close(pfd[1]);
			munmap(p, region);
			return -errno;
		}
		if (!pid) {
			close(pfd[1]);
			while (read(pfd[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		close(pfd[0]);
		t0 = cal_cpu_ns();
		for (uint64_t i = 0; i < nr; i++)
			((volatile char *)p)[i * 4096] = 2;
		t1 = cal_cpu_ns();
		close(pfd[1]);			/* the child reads EOF and exits */
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		munmap(p, region);
		if (round >= 0)
			v[n++] = (t1 - t0) / (double)nr;
	}
	cal_stat_of(v, n, &s);
	r->paths.cow = (struct cal_path){ s.med, n };
	cal_note(r, "path: copy-on-write fault of a 4K page shared with a child %.0f ns (median "
		 "of %d, %.0f-%.0f)", s.med, n, s.lo, s.hi);
	return 0;
}

/* getppid() per call, thread CPU time, over @n calls. */
static double cal_getppid_ns(int n)
{
	double t0 = cal_cpu_ns();

	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (cal_cpu_ns() - t0) / n;
}

/* The best of 5 runs of @n getppid() calls; @rb's buffer emptied before each. */
static double cal_getppid_best(int n, void *rb)
{
	double best = 0;

	for (int k = 0; k < 5; k++) {
		double t;

		if (rb) {
			struct perf_event_mmap_page *m = rb;

			m->data_tail = m->data_head;	/* nothing is dropped */
		}
		t = cal_getppid_ns(n);
		if (!k || t < best)
			best = t;
	}
	return best;
}

/**
 * cal_trace_sample_now - the cost of a perf sample of a tracepoint, now
 * @cpu: the CPU to measure on, or -1 for the first one this process may
 *	 run on (the calling thread is pinned there; its affinity is restored
 *	 after)
 * @cost: the sample's cost without [0] and with [1] a kernel callchain, ns
 * @base: getppid() alone, ns
 * @why: what stopped it, on failure
 *
 * As live mode's lock recorder takes one at each lock:contention_begin
 * (with a callchain) and _end (without), through the recorder's own event
 * (live_ls_open()): getppid() with it on syscalls:sys_enter_getppid,
 * against getppid() alone.  Root and tracefs.
 * Return: 0, or -1 with @why set.
 */
int cal_trace_sample_now(int cpu, double cost[2], double *base, char *why, size_t len)
{
	char path[512], buf[32];
	cpu_set_t saved;
	int ret = 0;
	long id;

	if (live_sys_path(path, sizeof(path),
			  "/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id") ||
	    live_read_file(path, buf, sizeof(buf)) <= 0) {
		snprintf(why, len, "no syscalls:sys_enter_getppid in /sys/kernel/tracing "
			 "(root, tracefs mounted)");
		return -1;
	}
	if (sched_getaffinity(0, sizeof(saved), &saved)) {
		snprintf(why, len, "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	while (cpu < 0 || (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &saved)))
		cpu++;
	cal_pin(cpu);
	id = strtol(buf, NULL, 10);
	cal_getppid_best(2000, NULL);
	*base = cal_getppid_best(2000, NULL);
	for (int chain = 0; chain < 2 && !ret; chain++) {
		const size_t pages = 256;	/* 1 MiB: 2,000 samples of at most 200 bytes */
		void *rb;
		/* the recorder's event, on the CPU this thread is pinned to */
		int fd = live_ls_open(id, 0, cpu, -1, pages, chain);

		if (fd < 0) {
			snprintf(why, len, "perf_event_open: %s", strerror(-fd));
			ret = -1;
			break;
		}
		rb = mmap(NULL, (pages + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rb == MAP_FAILED) {
			close(fd);
			snprintf(why, len, "no ring buffer");
			ret = -1;
			break;
		}
		cost[chain] = cal_getppid_best(2000, rb) - *base;
		munmap(rb, (pages + 1) * 4096);
		close(fd);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	return ret;
}

/*
 * The tracepoint sample's cost, a note, not a key: the model is the
 * untraced kernel, and --cost lock.contention_trace_ns=N compares it with
 * a traced run (docs/live.md; validate passes it for the runs that record
 * lock waits).  Root and tracefs; else skipped with a note.
 */
static void cal_trace_sample(struct cal_run *r)
{
	double base, cost[2] = { 0, 0 };
	char why[256];

	if (cal_trace_sample_now(r->cpus[0], cost, &base, why, sizeof(why))) {
		cal_note(r, "tracepoint sample: %s; not timed", why);
		return;
	}
	cal_note(r, "tracepoint sample: %.0f ns, %.0f ns with a kernel callchain (getppid() "
		 "%.0f ns untraced); --cost lock.contention_trace_ns=N models a traced live run",
		 cost[0], cost[1], base);
}

/**
 * cal_kernel_paths - single-thread faults, unmaps and MADV_DONTNEED
 * @r: the run; paths filled
 */
/*
 * mm.read_ahead_kb: the readahead window of the block device holding the
 * live workloads' files (/tmp: src/workload/live.c), as sysfs says:
 * /sys/dev/block/MAJ:MIN/queue/read_ahead_kb, the whole disk's for a
 * partition (its bdi is the disk's), else /sys/class/bdi/MAJ:MIN's.
 */
static void cal_read_ahead(struct cal_run *r)
{
	static const char *const forms[] = {
		"/sys/dev/block/%u:%u/queue/read_ahead_kb",
		"/sys/dev/block/%u:%u/../queue/read_ahead_kb",
		"/sys/class/bdi/%u:%u/read_ahead_kb",
	};
	char abs[160], path[512], buf[64], *end;
	unsigned int maj, min;
	unsigned long long kb;
	struct stat st;

	if (stat("/tmp", &st)) {
		cal_note(r, "mm.read_ahead_kb: stat /tmp: %s; the builtin's kept", strerror(errno));
		return;
	}
	maj = major(st.st_dev);
	min = minor(st.st_dev);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(abs, sizeof(abs), forms[i], maj, min);
		if (live_sys_path(path, sizeof(path), abs) ||
		    live_read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		kb = strtoull(buf, &end, 10);
		if (end == buf || kb > (1ULL << 20))
			continue;
		cal_key_set(r, "mm.read_ahead_kb", kb, "measured: sysfs %s, the device holding "
			    "/tmp, %s", abs, r->date);
		return;
	}
	cal_note(r, "mm.read_ahead_kb: /tmp is on %u:%u, which has no readahead in sysfs (a "
		 "tmpfs or an overlay); the builtin's kept", maj, min);
}

/*
 * The lru_lock's hold per folio, single thread: the lruvec lock is taken
 * with interrupts off (folio_lruvec_lock_irqsave()), and a cpu-clock
 * sample that comes due while they are off is taken when they come back
 * on, in _raw_spin_unlock_irqrestore(); so the samples there, under
 * folio_batch_move_lru() (a fault's per-CPU batch of 31 new folios
 * drained onto the LRU: lru_add()) and under folios_put_refs() (munmap()
 * freeing the folios: __page_cache_release()), times the period, are the
 * lock's hold (the time the CPU ran with interrupts off there: the lock
 * word's acquisition and release and what is done under it).  4K faults
 * of the fault runs' region, a sample every 10 us of CPU time, kernel
 * callchains (root: perf_event_paranoid and /proc/kallsyms).
 */
/*
 * A sample every 200 us: in this project's guest a cpu-clock sample costs
 * several microseconds (the timer's exits to the host), which at a 10 us
 * period made the run 20 times slower than unsampled and moved where the
 * samples fell; at 200 us the sampled kernel time per folio is within 3%
 * of the unsampled paths' (1.42 against 1.39 us).
 */
#define CAL_HOLD_PERIOD_NS	200000
#define CAL_HOLD_FOLIOS		(512ULL << 10)	/* full run; --quick a quarter */
#define CAL_HOLD_PAGES		1024	/* ring buffer: 4 MiB, drained each round */
#define CAL_HOLD_GROUPS		8
#define CAL_HOLD_SYMS		7
#define CAL_HOLD_RULES		6

/*
 * What to count: samples whose ip is in syms[ip] (-1: anywhere) with
 * syms[under] in their callchain and syms[not_under] not (-1: no such
 * condition).  A sample counts for the first rule it meets.
 */
struct cal_hold_rule {
	int ip, under, not_under;
	const char *key, *source;	/* the key it measures, its source's method */
	int calls;			/* calls a page a round (0: 1): the key is per call */
};

struct cal_hold_spec {
	const char *what;		/* the notes' name for it */
	const char *syms[CAL_HOLD_SYMS];
	struct cal_hold_rule rules[CAL_HOLD_RULES];
	int nr_syms, nr_rules;
	int (*round)(uint64_t region);	/* one round of faults, 0 or -errno */
	void (*done)(void);		/* after the last round, or NULL */
	int scale;			/* pages sampled, times CAL_HOLD_FOLIOS (0: 1) */
};

struct cal_hold_syms {
	uint64_t lo[CAL_HOLD_SYMS], hi[CAL_HOLD_SYMS];
};

static int cal_hold_syms(const struct cal_hold_spec *spec, struct cal_hold_syms *h)
{
	size_t len = 64ULL << 20;
	char path[512], *text = malloc(len);
	struct live_ksyms k;
	unsigned found = 0;

	if (!text)
		return -ENOMEM;
	if (live_proc_path(path, sizeof(path), "/proc/kallsyms") ||
	    live_read_file(path, text, len) <= 0 || live_ksyms_parse(&k, text) < 0) {
		free(text);
		return -EACCES;
	}
	free(text);
	for (size_t i = 0; i + 1 < k.nr; i++)
		for (int n = 0; n < spec->nr_syms; n++)
			if (!strcmp(k.s[i].name, spec->syms[n])) {
				h->lo[n] = k.s[i].addr;
				h->hi[n] = k.s[i + 1].addr;
				found |= 1U << n;
			}
	live_ksyms_free(&k);
	return found == (1U << spec->nr_syms) - 1 ? 0 : -ENOENT;
}

/* Count the ring's samples by the spec's rules into @cnt, all into @all; consume them. */
static void cal_hold_drain(void *rb, const struct cal_hold_spec *spec,
			   const struct cal_hold_syms *h, uint64_t *cnt, uint64_t *all)
{
	struct perf_event_mmap_page *mp = rb;
	const uint8_t *data = (const uint8_t *)rb + 4096;
	uint64_t size = (uint64_t)CAL_HOLD_PAGES * 4096, head, tail = mp->data_tail;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header eh;
		uint8_t rec[4096];
		uint64_t ip, nr, x;
		const uint8_t *b = rec + sizeof(eh);
		bool in[CAL_HOLD_SYMS] = { false }, under[CAL_HOLD_SYMS] = { false };

		for (size_t i = 0; i < sizeof(eh); i++)
			((uint8_t *)&eh)[i] = data[(tail + i) % size];
		if (eh.size < sizeof(eh) || tail + eh.size > head)
			break;
		for (size_t i = 0; i < eh.size && i < sizeof(rec); i++)
			rec[i] = data[(tail + i) % size];
		tail += eh.size;
		if (eh.type != PERF_RECORD_SAMPLE || eh.size < sizeof(eh) + 16 ||
		    eh.size > sizeof(rec))
			continue;
		memcpy(&ip, b, 8);
		memcpy(&nr, b + 8, 8);
		(*all)++;
		for (int n = 0; n < spec->nr_syms; n++)
			in[n] = ip >= h->lo[n] && ip < h->hi[n];
		for (uint64_t i = 0; i < nr && 16 + 8 * (i + 1) <= eh.size - sizeof(eh); i++) {
			memcpy(&x, b + 16 + 8 * i, 8);
			for (int n = 0; n < spec->nr_syms; n++)
				under[n] |= x >= h->lo[n] && x < h->hi[n];
		}
		for (int ru = 0; ru < spec->nr_rules; ru++) {
			const struct cal_hold_rule *rule = &spec->rules[ru];

			if ((rule->ip < 0 || in[rule->ip]) && under[rule->under] &&
			    (rule->not_under < 0 || !under[rule->not_under])) {
				cnt[ru]++;
				break;
			}
		}
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * Sample @spec's rounds of @region (CAL_HOLD_GROUPS groups, a quarter as
 * many folios with --quick) and set each rule's key to its samples times
 * the period per folio: the median over the groups.  Return: 0, or
 * -1 with a note (the builtin's keys kept).
 */
static int cal_hold_sample(struct cal_run *r, const struct cal_hold_spec *spec, uint64_t region)
{
	struct perf_event_attr a;
	struct cal_hold_syms h;
	uint64_t nr = region / 4096, cnt[CAL_HOLD_RULES] = { 0 }, all = 0;
	double v[CAL_HOLD_RULES][CAL_HOLD_GROUPS], vall[CAL_HOLD_GROUPS];
	struct cal_stat s[CAL_HOLD_RULES], st;
	char kept[160] = "";
	int fd, rounds, ret;
	void *rb;

	for (int ru = 0; ru < spec->nr_rules; ru++)
		snprintf(kept + strlen(kept), sizeof(kept) - strlen(kept), "%s%s",
			 ru ? ", " : "", spec->rules[ru].key);
	memset(&h, 0, sizeof(h));
	ret = cal_hold_syms(spec, &h);
	if (ret) {
		cal_note(r, "%s: %s; the builtin's %s kept", spec->what, ret == -ENOENT ?
			 "a function it samples is not in /proc/kallsyms" :
			 "no kernel symbols (root)", kept);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = CAL_HOLD_PERIOD_NS;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	a.exclude_user = 1;
	a.exclude_callchain_user = 1;
	a.sample_max_stack = 32;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		cal_note(r, "%s: perf_event_open(cpu-clock): %s; the builtin's %s kept",
			 spec->what, strerror(errno), kept);
		return -1;
	}
	rb = mmap(NULL, (CAL_HOLD_PAGES + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (rb == MAP_FAILED) {
		close(fd);
		cal_note(r, "%s: no ring buffer; the builtin's %s kept", spec->what, kept);
		return -1;
	}
	/* CAL_HOLD_GROUPS groups of rounds, each its own estimate: their median and spread */
	rounds = (int)((r->quick ? CAL_HOLD_FOLIOS / 4 : CAL_HOLD_FOLIOS) *
		       (uint64_t)(spec->scale ? spec->scale : 1) / nr / CAL_HOLD_GROUPS);
	if (rounds < 1)
		rounds = 1;
	ret = 0;
	for (int g = 0; g < CAL_HOLD_GROUPS && !ret; g++) {
		uint64_t gc[CAL_HOLD_RULES] = { 0 }, gall = 0, none[CAL_HOLD_RULES] = { 0 };
		uint64_t nall = 0;

		for (int round = g ? 0 : -2; round < rounds && !ret; round++) {	/* two warm */
			if (round >= 0)
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			ret = spec->round(region);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			if (round >= 0)
				cal_hold_drain(rb, spec, &h, gc, &gall);
			else
				cal_hold_drain(rb, spec, &h, none, &nall);
		}
		for (int ru = 0; ru < spec->nr_rules; ru++) {
			v[ru][g] = (double)gc[ru] * CAL_HOLD_PERIOD_NS / ((double)nr * rounds) /
				   (spec->rules[ru].calls ? spec->rules[ru].calls : 1);
			cnt[ru] += gc[ru];
		}
		vall[g] = (double)gall * CAL_HOLD_PERIOD_NS / ((double)nr * rounds);
		all += gall;
	}
	munmap(rb, (CAL_HOLD_PAGES + 1) * 4096);
	close(fd);
	if (spec->done)
		spec->done();
	if (ret) {
		cal_note(r, "%s: a round failed: %s; the builtin's %s kept", spec->what,
			 strerror(-ret), kept);
		return -1;
	}
	cal_stat_of(vall, CAL_HOLD_GROUPS, &st);
	for (int ru = 0; ru < spec->nr_rules; ru++) {
		const struct cal_hold_rule *rule = &spec->rules[ru];

		if (cnt[ru] < 30) {	/* this key alone: the builtin's kept */
			cal_note(r, "%s: %llu samples for %s of %llu; too few, the builtin's kept",
				 spec->what, (unsigned long long)cnt[ru], rule->key,
				 (unsigned long long)all);
			s[ru].med = 0;
			continue;
		}
		cal_stat_of(v[ru], CAL_HOLD_GROUPS, &s[ru]);
		cal_key_set(r, rule->key, (uint64_t)(s[ru].med + 0.5),
			    "measured: %s, median of %d, spread %.0f-%.0f, %s", rule->source,
			    CAL_HOLD_GROUPS, s[ru].lo, s[ru].hi, r->date);
		cal_note(r, "path: %s %.0f ns a 4K page (%.0f-%.0f over %d groups, %llu samples)",
			 rule->key, s[ru].med, s[ru].lo, s[ru].hi, CAL_HOLD_GROUPS,
			 (unsigned long long)cnt[ru]);
	}
	cal_note(r, "path: %s: %.0f ns of kernel time a page, a sample every %d us",
		 spec->what, st.med, CAL_HOLD_PERIOD_NS / 1000);
	if (!strcmp(spec->rules[0].key, "mm.lru_add_ns")) {
		r->paths.lru_add = (struct cal_path){ s[0].med, cnt[0] >= 30 ? CAL_HOLD_GROUPS : 0 };
		r->paths.lru_del = (struct cal_path){ s[1].med, cnt[1] >= 30 ? CAL_HOLD_GROUPS : 0 };
	}
	return 0;
}

/* A round of the 4K fault runs: write a page of each 4K folio, munmap(). */
static int cal_hold_anon_round(uint64_t region)
{
	char *p = cal_region(region, 4);

	if (!p)
		return -ENOMEM;
	for (uint64_t i = 0; i < region / 4096; i++)
		p[i * 4096] = 1;
	munmap(p, region);
	return 0;
}

/* A round of the tmpfs read fault runs: a new memfd, each page read, munmap(), close(). */
static int cal_hold_shmem_round(uint64_t region)
{
	volatile char *p;
	char sum = 0;
	int fd, ret = cal_memfd_map(region, &fd, &p);

	if (ret)
		return ret;
	for (uint64_t i = 0; i < region / 4096; i++)
		sum += p[i * 4096];
	__asm__ volatile("" : : "r"(sum));
	munmap((void *)p, region);
	close(fd);		/* the last reference: shmem_evict_inode() truncates */
	return 0;
}

/*
 * The model charges the rest of an lru_lock hold (the lock word, the
 * lines the list operation touches, a drain's 31 folios sharing one
 * acquisition) apart: a few ns a folio, within these samples' spread.
 */
static const struct cal_hold_spec cal_lru_spec = {
	.what = "the lru_lock's hold and an unmap's work per 4K folio",
	.syms = { "_raw_spin_unlock_irqrestore", "folio_batch_move_lru", "folios_put_refs",
		  "free_unref_folios", "__mem_cgroup_uncharge_folios", "folio_remove_rmap_ptes",
		  "unmap_page_range" },
	.nr_syms = 7,
	.rules = {
		{ 0, 1, -1, "mm.lru_add_ns",
		  "irq-off cpu-clock samples under folio_batch_move_lru()" },
		{ 0, 2, 1, "mm.lru_del_ns", "irq-off cpu-clock samples under folios_put_refs()" },
		{ -1, 3, -1, "mm.page_free_ns", "cpu-clock samples under free_unref_folios()" },
		{ -1, 4, -1, "mm.uncharge_ns",
		  "cpu-clock samples under __mem_cgroup_uncharge_folios()" },
		{ -1, 5, -1, "mm.rmap_del_ns", "cpu-clock samples under folio_remove_rmap_ptes()" },
		{ 6, 6, -1, "mm.zap_pte_ns", "cpu-clock samples in unmap_page_range() itself" },
	},
	.nr_rules = 6,
	.scale = 4,		/* an unmap's parts are 20-50 ns a folio: more samples */
	.round = cal_hold_anon_round,
};

/*
 * A new tmpfs page: the i_pages lock is taken with interrupts off
 * (xa_lock_irq()) to insert it (shmem_add_to_page_cache()) and, when the
 * file goes, to delete it (filemap_remove_folio() from
 * shmem_undo_range()); and the inode's block accounting
 * (shmem_inode_acct_blocks(): the VM_NORESERVE commit charge through
 * security_vm_enough_memory_mm(), the superblock's used_blocks counter,
 * quota) runs outside it.
 */
static const struct cal_hold_spec cal_shmem_spec = {
	.what = "a new tmpfs page's costs",
	.syms = { "_raw_spin_unlock_irq", "shmem_add_to_page_cache", "filemap_remove_folio",
		  "shmem_inode_acct_blocks", "shmem_get_folio_gfp" },
	.nr_syms = 5,
	.rules = {
		{ 0, 1, -1, "mm.i_pages_add_ns",
		  "irq-off cpu-clock samples under shmem_add_to_page_cache()" },
		{ 0, 2, -1, "mm.i_pages_del_ns",
		  "irq-off cpu-clock samples under filemap_remove_folio()" },
		{ -1, 3, -1, "mm.shmem_acct_ns",
		  "cpu-clock samples under shmem_inode_acct_blocks() in a fault" },
		{ 4, 4, -1, "mm.shmem_get_ns", "cpu-clock samples in shmem_get_folio_gfp() itself" },
	},
	.nr_rules = 4,
	.round = cal_hold_shmem_round,
};

/*
 * A round of page_fault3's loop over a file in /tmp (ext4 here): the
 * file made sparse and read through with 64 KiB read()s once, as live
 * mode fills it (readahead's large folios), then each round maps it
 * shared, stores a byte to each page and unmaps it.  The file is four
 * times the last-level cache (at most 512 MiB): the model keeps no
 * kernel structure in its caches, so the passes are measured where their
 * buffer_heads and struct pages come from memory, as a large file's do
 * (over a 16 MiB file, which the 32 MiB L3 here holds, they cost about
 * half as much).
 */
static int cal_bh_fd = -1;

static int cal_hold_file_round(uint64_t region)
{
	char *p;

	if (cal_bh_fd < 0) {
		char path[] = "/tmp/mmsim-calibrate-XXXXXX", *buf = malloc(64 << 10);
		int fd = mkstemp(path);

		if (fd < 0 || !buf) {
			free(buf);
			if (fd >= 0)
				close(fd);
			return -ENOMEM;
		}
		unlink(path);
		if (ftruncate(fd, (off_t)region)) {
			free(buf);
			close(fd);
			return -errno;
		}
		for (uint64_t off = 0; off < region; off += 64 << 10)
			if (pread(fd, buf, 64 << 10, (off_t)off) < 0)
				break;
		free(buf);
		cal_bh_fd = fd;
	}
	p = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_SHARED, cal_bh_fd, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	for (uint64_t i = 0; i < region / 4096; i++)
		p[i * 4096] = 0;
	munmap(p, region);
	return 0;
}

static void cal_hold_file_done(void)
{
	if (cal_bh_fd >= 0)
		close(cal_bh_fd);
	cal_bh_fd = -1;
}

/*
 * A write fault on a shared mapping of a file with buffer_heads (ext4):
 * block_page_mkwrite() runs __block_write_begin_int() (a flag test a
 * block), block_commit_write() (mark_buffer_dirty() a block: a fence or
 * a set_bit) and folio_mark_dirty() -> block_dirty_folio() (set_buffer_dirty()
 * a block); the fault's fault_dirty_shared_page() calls folio_mark_dirty()
 * again, and so does the unmap of the dirty mapping: three calls of
 * block_dirty_folio() a page a round (as the model makes them).
 */
static const struct cal_hold_spec cal_bh_spec = {
	.what = "a file page's buffer_head passes",
	.syms = { "__block_write_begin_int", "block_commit_write", "block_dirty_folio" },
	.nr_syms = 3,
	.rules = {
		{ -1, 0, -1, "mm.bh_begin_ns", "cpu-clock samples under __block_write_begin_int()" },
		{ -1, 1, -1, "mm.bh_commit_ns", "cpu-clock samples under block_commit_write()" },
		{ -1, 2, 1, "mm.bh_dirty_ns", "cpu-clock samples under block_dirty_folio(), per call",
		  3 },
	},
	.nr_rules = 3,
	.round = cal_hold_file_round,
	.done = cal_hold_file_done,
	.scale = 16,		/* a page costs about 80 ns here, not 1.4 us */
};

void cal_kernel_paths(struct cal_run *r)
{
	struct live_settings *st = calloc(1, sizeof(*st));
	int rounds = r->quick ? 3 : 9, nr_orders = r->quick ? 2 : CAL_NR_ORDERS;
	uint64_t region = r->quick ? 8ULL << 20 : 16ULL << 20;
	double v[32];
	struct cal_stat s;
	char err[256];
	int ret;

	cal_progress(r, "kernel paths: faults, munmap, MADV_DONTNEED");
	if (!st)
		return;
	cal_pin(r->cpus[0]);
	r->paths.region = region;
	for (int i = 0; i < 2 * rounds + 1; i++) {
		double t0 = cal_cpu_ns();
		void *p = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p != MAP_FAILED)
			munmap(p, region);
		v[i] = cal_cpu_ns() - t0;
	}
	cal_stat_of(v, 2 * rounds + 1, &s);
	r->paths.mmap_ns = (struct cal_path){ s.med, s.n };
	cal_fault_runs(r, 0, region, rounds);
	cal_fault_spread(r, region, r->quick ? 2 : 3);
	ret = cal_shmem_runs(r, region, rounds, false);
	if (!ret)
		ret = cal_shmem_runs(r, region, rounds, true);
	if (ret)
		cal_note(r, "tmpfs faults: a memfd of %llu bytes: %s; not timed",
			 (unsigned long long)region, strerror(-ret));
	ret = cal_cow_runs(r, region, rounds);
	if (ret)
		cal_note(r, "copy-on-write faults: %s; not timed", strerror(-ret));
	cal_trace_sample(r);
	cal_read_ahead(r);
	cal_hold_sample(r, &cal_lru_spec, region);
	cal_hold_sample(r, &cal_shmem_spec, region);
	/* the file beyond the last-level cache: its folios' buffer_heads and struct pages too */
	{
		uint64_t file = r->llc_bytes * 4 > region ? r->llc_bytes * 4 : region;

		cal_hold_sample(r, &cal_bh_spec, file > (512ULL << 20) ? 512ULL << 20 : file);
	}
	if (live_settings_read(st) <= 0) {
		cal_note(r, "mTHP faults: no %s; only 4K faults timed", LIVE_THP_DIR);
		free(st);
		return;
	}
	for (int o = 1; o < nr_orders; o++) {
		unsigned kib = cal_fault_kib[o];

		/* the values to restore are read under the lock */
		cal_hold_signals(true);
		ret = live_settings_read(st) > 0 ? cal_mthp_want(r, st, kib) : -ENOENT;
		if (ret == -ENOENT)
			cal_note(r, "mTHP %uK: this kernel has no such size; skipped", kib);
		if (ret == -EPERM)
			cal_note(r, "mTHP %uK: off (or a larger size would win) and %s: "
				 "skipped; as root calibrate sets it for the run", kib,
				 r->root ? "another live run is in progress" : "not root");
		if (ret) {
			cal_hold_signals(false);
			continue;
		}
		live_state_note_settings(st);
		ret = live_settings_apply(st, err, sizeof(err));
		live_state_note_settings(st);
		if (!ret)
			ret = cal_fault_runs(r, o, region, rounds);
		else
			cal_note(r, "mTHP %uK: %s", kib, err);
		live_settings_restore(st, r->log);
		live_state_note_settings(NULL);
		cal_hold_signals(false);
		if (ret == -EOPNOTSUPP)
			cal_note(r, "mTHP %uK: the kernel fell back to smaller folios; not timed",
				 kib);
	}
	free(st);
}

/* ---- zram ---- */

/* Text-like page content: words of a small vocabulary, compressible about 3:1. */
static void cal_fill_text(char *p, uint64_t bytes, uint64_t seed)
{
	static const char *const words[] = {
		"the ", "folio ", "lruvec ", "lock ", "page ", "of ", "and ", "memory ",
		"reclaim ", "flush ", "a ", "to ", "in ", "mm ", "kernel ", "split ",
	};
	uint64_t s = seed | 1, i = 0;

	while (i < bytes) {
		const char *w = words[cal_rng(&s) % 16];

		for (; *w && i < bytes; w++)
			p[i++] = *w;
		if (cal_rng(&s) % 8 == 0 && i < bytes)
			p[i++] = (char)('0' + cal_rng(&s) % 10);
	}
}

/* A new zram device of @bytes to come, in the live state file at once. */
static int cal_zram_add(uint64_t bytes)
{
	char buf[32];

	if (live_read_file("/sys/class/zram-control/hot_add", buf, sizeof(buf)) <= 0)
		return -ENOENT;
	live_state_note_zram(atoi(buf), bytes);	/* a SIGKILLed run's device goes at the next */
	return atoi(buf);
}

/*
 * Reset and remove zram device @dev.  Right after a reset, something may
 * still hold the device open for a moment (udev's probe) and hot_remove
 * answers EBUSY: it is retried for up to a second.  Return: 0, or -EBUSY
 * with the device left (reset, empty).
 */
static void cal_zram_remove(struct cal_run *r, int dev)
{
	if (live_zram_remove(dev, NULL))
		cal_note(r, "zram: /dev/zram%d could not be removed (busy); remove it with "
			 "echo %d > /sys/class/zram-control/hot_remove", dev, dev);
	live_state_note_zram(-1, 0);
}

/* ns per 4K O_DIRECT write and read on /dev/zram@dev of text (or zero) pages. */
static int cal_zram_rw(int fd, char *buf, uint64_t pages, bool text, double *w, double *rd)
{
	double t0, t1;

	for (uint64_t i = 0; i < pages; i++) {
		if (text)
			cal_fill_text(buf + i * 4096, 4096, i + 1);
		else
			memset(buf + i * 4096, 0, 4096);
	}
	/* zram does the I/O in the caller's context: its CPU time is the work */
	t0 = cal_cpu_ns();
	for (uint64_t i = 0; i < pages; i++)
		if (pwrite(fd, buf + i * 4096, 4096, (off_t)(i * 4096)) != 4096)
			return -EIO;
	t1 = cal_cpu_ns();
	*w = (t1 - t0) / (double)pages;
	for (uint64_t i = 0; i < pages; i++)
		if (pread(fd, buf + i * 4096, 4096, (off_t)(i * 4096)) != 4096)
			return -EIO;
	*rd = (cal_cpu_ns() - t1) / (double)pages;
	return 0;
}

static void cal_zram_rates(struct cal_run *r)
{
	uint64_t pages = r->quick ? 2048 : 8192;
	int runs = r->quick ? 3 : 7, dev, fd;
	double tw[16], tr[16], zw[16], zr[16];
	char path[96], text[128] = "", alg[48] = "?", val[32], method[112];
	struct cal_stat s;
	char *buf;

	dev = cal_zram_add(pages * 4096 * 2);
	if (dev < 0) {
		cal_note(r, "zram: cannot add a device; swap.zram_* keep the builtin's cited values");
		return;
	}
	snprintf(path, sizeof(path), "/sys/block/zram%d/comp_algorithm", dev);
	if (live_read_file(path, text, sizeof(text)) <= 0 || live_parse_choice(text, alg, sizeof(alg)))
		snprintf(alg, sizeof(alg), "?");
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", dev);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)(pages * 4096 * 2));
	if (live_write_file(path, val)) {
		cal_note(r, "zram: cannot size /dev/zram%d; swap.zram_* keep the builtin's "
			 "cited values", dev);
		buf = MAP_FAILED;
		goto out_remove;
	}
	buf = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	snprintf(path, sizeof(path), "/dev/zram%d", dev);
	fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || buf == MAP_FAILED) {
		cal_note(r, "zram: cannot open %s with O_DIRECT (%s)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out_remove;
	}
	for (int i = 0; i < runs; i++) {
		if (cal_zram_rw(fd, buf, pages, true, &tw[i], &tr[i]) ||
		    cal_zram_rw(fd, buf, pages, false, &zw[i], &zr[i])) {
			cal_note(r, "zram: I/O on %s failed", path);
			close(fd);
			goto out_remove;
		}
		tw[i] -= zw[i];		/* ns to compress a page */
		tr[i] -= zr[i];
	}
	close(fd);
	for (int k = 0; k < 2; k++) {
		double *d = k ? tr : tw;

		cal_stat_of(d, runs, &s);
		if (s.med <= 0) {
			cal_note(r, "zram: %s of a text page no slower than of a zero page; "
				 "swap.zram_%scompress_mbps keeps the builtin's value",
				 k ? "a read" : "a write", k ? "de" : "");
			continue;
		}
		/* rates: the spread of times turns over */
		s = (struct cal_stat){ .med = 4096e3 / s.med, .n = s.n,
				       .lo = s.hi > 0 ? 4096e3 / s.hi : 0,
				       .hi = s.lo > 0 ? 4096e3 / s.lo : 0 };
		snprintf(method, sizeof(method), "%s: 4K O_DIRECT %s, text less zero pages", alg,
			 k ? "reads" : "writes");
		cal_key_measured(r, k ? "swap.zram_decompress_mbps" : "swap.zram_compress_mbps",
				 (uint64_t)(s.med + 0.5), method, &s, "MB/s");
	}
	if (r->mhz)
		cal_key_set(r, "swap.zram_rate_mhz", (uint64_t)(r->mhz + 0.5),
			    "measured: clock.mhz of this run, at which the zram rates were "
			    "measured, %s", r->date);
out_remove:
	if (buf != MAP_FAILED)
		munmap(buf, pages * 4096);
	cal_zram_remove(r, dev);
}

/* Swap-out (MADV_PAGEOUT) and swap-in (a read) of 4K pages through zram swap. */
static void cal_zram_swap(struct cal_run *r)
{
	uint64_t bytes = r->quick ? 4ULL << 20 : 16ULL << 20, pages = bytes / 4096;
	int runs = r->quick ? 3 : 5;
	struct live_zram z = { .dev = -1 };
	struct live_counters c0, c1;
	double o[16], in[16];
	uint64_t out0 = 0, out1 = 0, sum = 0;
	struct cal_stat s;
	char err[256];
	int n = 0;

	if (live_zram_setup(&z, 4 * bytes, err, sizeof(err))) {
		cal_note(r, "swap path: %s; not timed", err);
		live_zram_teardown(&z, r->log);
		return;
	}
	for (int i = 0; i < runs; i++) {
		char *p = cal_region(bytes, 4);
		double t0, t1;

		if (!p)
			break;
		cal_fill_text(p, bytes, 5 + (uint64_t)i);
		live_read_vmstat(&c0);
		t0 = cal_cpu_ns();
		madvise(p, bytes, MADV_PAGEOUT);
		t1 = cal_cpu_ns();
		live_read_vmstat(&c1);
		if (!live_counters_get(&c0, "pswpout", &out0) ||
		    !live_counters_get(&c1, "pswpout", &out1) || out1 - out0 < pages * 9 / 10) {
			munmap(p, bytes);
			continue;
		}
		for (uint64_t off = 0; off < bytes; off += 4096)
			sum += (uint64_t)p[off];
		o[n] = (t1 - t0) / (double)pages;
		in[n++] = (cal_cpu_ns() - t1) / (double)pages;
		munmap(p, bytes);
	}
	__asm__ volatile("" : : "r"(sum));
	live_zram_teardown(&z, r->log);	/* retries a busy hot_remove, warns if it stays */
	if (!n) {
		cal_note(r, "swap path: MADV_PAGEOUT did not swap the pages out; not timed");
		return;
	}
	cal_stat_of(o, n, &s);
	r->paths.swapout = (struct cal_path){ s.med, n };
	cal_note(r, "path: swap-out of a 4K page to zram (MADV_PAGEOUT) %.0f ns (median of %d, "
		 "%.0f-%.0f)", s.med, n, s.lo, s.hi);
	cal_stat_of(in, n, &s);
	r->paths.swapin = (struct cal_path){ s.med, n };
	cal_note(r, "path: swap-in of a 4K page from zram (a read fault) %.0f ns (median of %d, "
		 "%.0f-%.0f)", s.med, n, s.lo, s.hi);
}

/**
 * cal_zram - zram's compression and decompression rates, and the swap path
 * @r: the run
 *
 * Root only, full runs only: it makes zram devices (one raw, one for swap)
 * and removes them; --quick (also `profiles --from-host` and `compare
 * --profile-out`) changes no more than the mTHP settings of its faults.
 */
void cal_zram(struct cal_run *r)
{
	cal_progress(r, "zram: compression rates, swap-out and swap-in");
	if (r->quick) {
		cal_note(r, "zram: --quick makes no device; swap.zram_* keep the builtin's cited "
			 "values (a full run measures them)");
		return;
	}
	if (!r->may_change) {
		cal_note(r, "zram: %s; swap.zram_* keep the builtin's cited values and the swap "
			 "path is not timed", r->root ? "another live run is in progress" :
			 "not root");
		return;
	}
	if (access("/sys/class/zram-control/hot_add", R_OK)) {
		cal_note(r, "zram: no /sys/class/zram-control (modprobe zram); swap.zram_* keep "
			 "the builtin's cited values");
		return;
	}
	cal_hold_signals(true);
	cal_zram_rates(r);
	cal_pin(r->cpus[0]);
	cal_zram_swap(r);
	cal_hold_signals(false);
	cal_note(r, "swap.write_us, read_us, bandwidth_mbps: a block device's; this run has "
		 "none to time; the builtin's assumptions kept");
}
