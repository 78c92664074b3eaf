// SPDX-License-Identifier: GPL-2.0-only
/*
 * khugepaged-cold on the running kernel (`mmsim live khugepaged-cold`,
 * docs/live.md): processes hot1, cold and hot2, created in that order.
 * Each maps `task_size` aligned to 2M, faults it in with 4K pages, then
 * calls MADV_HUGEPAGE (which puts its mm on khugepaged's scan list:
 * khugepaged_enter_vma()).  cold calls MADV_COLD or MADV_FREE (`advice`)
 * and sleeps; hot1 and hot2 wait until `measure_after` from the start,
 * then hot2 makes `accesses` 8-byte loads in the simulator's `pattern`
 * (kc_accesses(), as the access steps of
 * workloads/experiments/khugepaged-cold-tasks.ini draw them) and times them, with
 * perf counters on itself, while hot1 loads in the same pattern until
 * hot2 is done.  --apply writes khugepaged's tunables from the
 * parameters of the same names (pages_to_scan, scan_sleep, max_ptes_none).
 *
 * Its parameters are the experiment's (khugepaged_cold.c, those marked
 * .live).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "experiments/khugepaged-cold/khugepaged_cold.h"
#include "host/calibrate.h"
#include "host/live_internal.h"

enum { KC_HOT1, KC_COLD, KC_HOT2, KC_NR_TASKS };

/* One store per 4K page: each faults a small page in. */
static void kc_touch(char *p, size_t size)
{
	for (size_t off = 0; off < size; off += LIVE_PAGE)
		((volatile char *)p)[off] = 1;
}
static const char *const kc_task_names[KC_NR_TASKS] = { "hot1", "cold", "hot2" };

/* wyrand, the simulator's generator (wl_arand() in src/workload/sim_steps.c). */
static inline uint64_t kc_rand(uint64_t *s)
{
	unsigned __int128 t;

	*s += 0xa0761d6478bd642fULL;
	t = (unsigned __int128)*s * (*s ^ 0xe7037ed1a0b428dbULL);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* One task's accesses, in the simulator's patterns (enum hot_cold_pattern). */
struct kc_access {
	const char *p;			/* the region */
	uint64_t size;			/* its bytes, a multiple of 2M */
	enum hot_cold_pattern pattern;
	uint64_t rng;			/* random and pages-shuffled */
	uint64_t seq;			/* the next offset, or the place in the pass */
	uint32_t *order;		/* pages-shuffled: this pass's page order */
};

/* A new random order of the region's pages (Fisher-Yates), for the next pass. */
static void kc_shuffle(struct kc_access *a)
{
	uint32_t nr = (uint32_t)(a->size / LIVE_PAGE), i;

	for (i = 0; i < nr; i++)
		a->order[i] = i;
	for (i = nr - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(((unsigned __int128)kc_rand(&a->rng) * (i + 1)) >> 64);
		uint32_t t = a->order[i];

		a->order[i] = a->order[j];
		a->order[j] = t;
	}
}

/*
 * @nr 8-byte loads of the pattern, as the simulated access steps draw them:
 * random 8-byte-aligned offsets; one load per cache line in order (sequential);
 * one load per 4K page at its first byte, in page order (pages) or in a
 * new random order each pass (pages-shuffled).  Stops early when *@stop.
 */
static uint64_t kc_accesses(struct kc_access *a, uint64_t nr, volatile int *stop)
{
	uint64_t sum = 0, off = 0;

	for (uint64_t i = 0; i < nr; i++) {
		if (stop && !(i & 4095) && *stop)
			break;
		switch (a->pattern) {
		case HOT_COLD_RANDOM:
			off = (uint64_t)(((unsigned __int128)kc_rand(&a->rng) * a->size) >> 64) &
			      ~7ULL;
			break;
		case HOT_COLD_PAGES_SHUFFLED:
			if (!a->seq)
				kc_shuffle(a);
			off = (uint64_t)a->order[a->seq] * LIVE_PAGE;
			if (++a->seq == a->size / LIVE_PAGE)
				a->seq = 0;
			break;
		case HOT_COLD_SEQUENTIAL:
		case HOT_COLD_PAGES:
			off = a->seq;
			a->seq += a->pattern == HOT_COLD_SEQUENTIAL ? 64 : LIVE_PAGE;
			if (a->seq >= a->size)
				a->seq = 0;
			break;
		}
		sum += *(const volatile uint64_t *)(a->p + off);
	}
	return sum;
}

static void kc_task(struct live_run *r, void *arg, int idx)
{
	struct live_shm *shm = arg;
	size_t size = live_param(r, "task_size") & ~(LIVE_PMD_SIZE - 1);
	double measure_at = shm->t_start[0] + (double)live_param(r, "measure_after") * 1e-9;
	struct kc_access a = {
		.size = size,
		.pattern = (enum hot_cold_pattern)live_param(r, "pattern"),
		.rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(idx + 1),
	};
	volatile uint64_t sink;
	void *base;
	size_t len;
	char *p = live_map_aligned(size, LIVE_PMD_SIZE, &base, &len);

	if (!p) {
		shm->fail = errno;
		_exit(5);
	}
	a.p = p;
	if (a.pattern == HOT_COLD_PAGES_SHUFFLED) {
		a.order = calloc(size / LIVE_PAGE, sizeof(*a.order));
		if (!a.order) {
			shm->fail = ENOMEM;
			_exit(5);
		}
	}
	/*
	 * 4K faults first, then MADV_HUGEPAGE: the simulator's region is
	 * THP-eligible from its mmap and faults small pages (mthp_order 0);
	 * with enabled=madvise the kernel does so only for memory not yet
	 * advised, so the advice comes after the touch.
	 */
	kc_touch(p, size);
	if (madvise(p, size, MADV_HUGEPAGE)) {
		shm->fail = errno;
		_exit(6);
	}
	if (idx == KC_COLD &&
	    madvise(p, size, live_param(r, "advice") ? MADV_FREE : MADV_COLD)) {
		shm->fail = errno;
		_exit(7);
	}
	shm->ready[idx] = 1;
	/* hot1 and hot2 access nothing before measure_after, as in the model */
	while (idx != KC_COLD && !shm->stop && live_now() < measure_at)
		live_sleep_ms(10);
	if (idx == KC_HOT2) {
		struct live_perf perf;
		double t0;

		live_perf_open(&perf, 0, false);
		live_perf_enable(&perf);
		t0 = live_now();
		sink = kc_accesses(&a, live_param(r, "accesses"), NULL);
		shm->time_s = live_now() - t0;
		live_perf_disable(&perf);
		for (int e = 0; e < LIVE_PERF_NR; e++) {
			shm->perf_ok[e] = live_perf_read(&perf, e, &shm->perf[e]);
			shm->perf_err[e] = perf.err[e];
		}
		live_perf_close(&perf);
		shm->done = 1;
		return;
	}
	while (!shm->stop) {
		if (idx == KC_HOT1)
			sink = kc_accesses(&a, 1 << 20, &shm->stop);
		else
			live_sleep_ms(10);
	}
	(void)sink;
}

static uint64_t kc_memory(const struct sim_run_config *cfg)
{
	return KC_NR_TASKS * (sim_param(cfg, "task_size") + LIVE_PMD_SIZE);
}

static int kc_want(const struct sim_run_config *cfg, struct live_settings *st)
{
	char ms[32];

	/* faults stay 4K; only MADV_HUGEPAGE regions are collapsed */
	live_settings_want(st, "enabled", "madvise");
	snprintf(ms, sizeof(ms), "%llu", (unsigned long long)sim_param(cfg, "max_ptes_none"));
	live_settings_want(st, "khugepaged/max_ptes_none", ms);
	snprintf(ms, sizeof(ms), "%llu", (unsigned long long)sim_param(cfg, "pages_to_scan"));
	live_settings_want(st, "khugepaged/pages_to_scan", ms);
	snprintf(ms, sizeof(ms), "%llu",
		 (unsigned long long)(sim_param(cfg, "scan_sleep") / 1000000));
	live_settings_want(st, "khugepaged/scan_sleep_millisecs", ms);
	return 0;
}

/* Sampling of AnonHugePages while the tasks run. */
struct kc_watch {
	struct live_run *r;
	struct live_shm *shm;
	int wait_for;			/* ready index, or -1 for hot2 done */
	double t0, next;		/* run start; next sample time */
	uint64_t last_kb[KC_NR_TASKS];
	double full_at[KC_NR_TASKS];	/* seconds until fully huge, or -1 */
	bool smaps_ok;
	int nr_samples;
};

static void kc_sample(struct kc_watch *w)
{
	uint64_t full_kb = (live_param(w->r, "task_size") & ~(LIVE_PMD_SIZE - 1)) >> 10;
	double now = live_now();

	if (now < w->next)
		return;
	w->next = now + 0.1;
	w->nr_samples++;
	for (int i = 0; i < KC_NR_TASKS && i < w->r->kids.nr; i++) {
		uint64_t kb;

		if (!w->r->kids.pid[i] ||
		    live_read_smaps_anon_huge(w->r->kids.pid[i], &kb))
			continue;
		w->smaps_ok = true;
		w->last_kb[i] = kb;
		if (kb >= full_kb && w->full_at[i] < 0)
			w->full_at[i] = now - w->t0;
	}
}

static bool kc_poll(void *arg)
{
	struct kc_watch *w = arg;

	kc_sample(w);
	if (w->wait_for >= 0)
		return w->shm->ready[w->wait_for];
	return w->shm->done;
}

static const char *kc_perf_why(int err)
{
	if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		return "the CPU exposes no such hardware event (a VM without "
		       "a virtual PMU?)";
	if (err == EACCES || err == EPERM)
		return "not permitted: lower /proc/sys/kernel/perf_event_paranoid "
		       "or run as root";
	return err ? strerror(err) : "the counter never ran";
}

static enum live_stop kc_run(struct live_run *r)
{
	struct live_shm *shm = live_shm_map(r);
	struct live_result *res = r->res;
	double mhz;
	struct kc_watch w = { .r = r, .shm = shm };
	enum live_stop stop = LIVE_STOP_NONE;

	if (!shm)
		return LIVE_STOP_ERROR;
	w.t0 = live_now();
	shm->t_start[0] = w.t0;		/* measure_after counts from here */
	for (int i = 0; i < KC_NR_TASKS; i++)
		w.full_at[i] = -1;
	/* created in order, each after the previous one is on the list */
	for (int i = 0; i < KC_NR_TASKS && stop == LIVE_STOP_NONE; i++) {
		if (live_spawn(r, kc_task_names[i], kc_task, shm, i) < 0) {
			stop = LIVE_STOP_ERROR;
			break;
		}
		w.wait_for = i < KC_HOT2 ? i : -1;
		stop = live_wait_all(r, kc_poll, &w);
	}
	shm->stop = 1;
	if (stop == LIVE_STOP_NONE)
		stop = live_wait_all(r, NULL, NULL);
	if (stop == LIVE_STOP_CHILD_DIED && shm->fail)
		snprintf(r->err + strlen(r->err), sizeof(r->err) - strlen(r->err),
			 " after a failed mmap or madvise: %s", strerror(shm->fail));
	if (stop == LIVE_STOP_NONE) {
		double t = shm->time_s, n = (double)live_param(r, "accesses");

		live_set_metric(r, "total_access_time_s", t);
		/*
		 * as the simulator's: time x clock / accesses (not perf's
		 * cycles), at the clock the cores run at, measured as
		 * calibrate's clock.mhz is: /proc/cpuinfo's "cpu MHz" is the
		 * nominal (a guest's: its TSC's) rate
		 */
		mhz = host_clock_mhz(50);
		if (mhz <= 0)
			mhz = live_cpu_mhz();
		if (mhz > 0)
			live_set_metric(r, "clock_cycles_per_access", t * mhz * 1e6 / n);
		else
			live_unavailable(r, "clock_cycles_per_access", "no \"cpu MHz\" "
					 "in /proc/cpuinfo");
		live_set_metric(r, "throughput_per_s", n / t);
		if (shm->perf_ok[LIVE_PERF_DTLB_LOAD_MISSES])
			live_set_metric(r, "dtlb_load_misses",
					(double)shm->perf[LIVE_PERF_DTLB_LOAD_MISSES]);
		else
			live_unavailable(r, "dtlb_load_misses", "perf event "
					 "'dTLB-load-misses' cannot be counted here: %s",
					 kc_perf_why(shm->perf_err[LIVE_PERF_DTLB_LOAD_MISSES]));
		if (shm->perf_ok[LIVE_PERF_CYCLES])
			live_counters_set(&res->counters, "hot2.cycles",
					  shm->perf[LIVE_PERF_CYCLES]);
		else
			live_note(res, "hot2's perf event 'cycles' cannot be counted "
				  "here: %s", kc_perf_why(shm->perf_err[LIVE_PERF_CYCLES]));
		if (shm->perf_ok[LIVE_PERF_INSTRUCTIONS])
			live_counters_set(&res->counters, "hot2.instructions",
					  shm->perf[LIVE_PERF_INSTRUCTIONS]);
		for (int i = 0; i < KC_NR_TASKS; i++) {
			if (!w.smaps_ok)
				break;
			live_note(res, "%s AnonHugePages at end %llu kB; fully "
				  "huge after %s%.1f s", kc_task_names[i],
				  (unsigned long long)w.last_kb[i],
				  w.full_at[i] < 0 ? "more than " : "",
				  w.full_at[i] < 0 ? live_now() - w.t0 : w.full_at[i]);
		}
		if (!w.smaps_ok)
			live_note(res, "AnonHugePages over time: unavailable "
				  "(no /proc/PID/smaps_rollup)");
	}
	live_shm_unmap(shm);
	return stop;
}

const struct live_ops khugepaged_cold_live = {
	.summary = "hot1, cold, hot2: does khugepaged reach hot2 before cold?",
	.memory_bytes = kc_memory,
	.want_settings = kc_want,
	.run = kc_run,
};
