// SPDX-License-Identifier: GPL-2.0-only
/*
 * khugepaged-cold on the running kernel (`mmsim live khugepaged-cold`,
 * docs/live.md): processes hot1, cold and hot2, created in that order.
 * Each maps `task_size` aligned to 2M, faults it in with 4K pages, then
 * calls MADV_HUGEPAGE (which puts its mm on khugepaged's scan list:
 * khugepaged_enter_vma()).  hot1 reads random words until told to stop;
 * cold calls MADV_COLD or MADV_FREE (`advice`) and sleeps; hot2 makes
 * `accesses` random 8-byte reads and times them, with perf counters on
 * itself.
 *
 * Its parameters are the experiment's (khugepaged_cold.c, those marked
 * .live).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live/live_internal.h"

enum { KC_HOT1, KC_COLD, KC_HOT2, KC_NR_TASKS };

/* One store per 4K page: each faults a small page in. */
static void kc_touch(char *p, size_t size)
{
	for (size_t off = 0; off < size; off += LIVE_PAGE)
		((volatile char *)p)[off] = 1;
}
static const char *const kc_task_names[KC_NR_TASKS] = { "hot1", "cold", "hot2" };

static uint64_t kc_random_reads(const char *p, uint64_t nr_words,
				uint64_t nr, uint64_t *seed,
				volatile int *stop)
{
	uint64_t x = *seed, sum = 0;

	for (uint64_t i = 0; i < nr && !(stop && *stop); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += ((const volatile uint64_t *)p)
			[(uint64_t)(((unsigned __int128)x * nr_words) >> 64)];
	}
	*seed = x;
	return sum;
}

static void kc_task(struct live_run *r, void *arg, int idx)
{
	struct live_shm *shm = arg;
	size_t size = live_param(r, "task_size") & ~(LIVE_PMD_SIZE - 1);
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(idx + 1);
	volatile uint64_t sink;
	void *base;
	size_t len;
	char *p = live_map_aligned(size, LIVE_PMD_SIZE, &base, &len);

	if (!p) {
		shm->fail = errno;
		_exit(5);
	}
	/* 4K faults first; then khugepaged has something to collapse */
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
	if (idx == KC_HOT2) {
		struct live_perf perf;
		double t0;

		live_perf_open(&perf, 0, false);
		live_perf_enable(&perf);
		t0 = live_now();
		sink = kc_random_reads(p, size / 8, live_param(r, "accesses"), &seed, NULL);
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
			sink = kc_random_reads(p, size / 8, 1 << 20, &seed,
					       &shm->stop);
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
	live_settings_want(st, "khugepaged/max_ptes_none", "511");
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
	double mhz = live_cpu_mhz();
	struct kc_watch w = { .r = r, .shm = shm };
	enum live_stop stop = LIVE_STOP_NONE;

	if (!shm)
		return LIVE_STOP_ERROR;
	w.t0 = live_now();
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
		/* as the simulator's: time x clock / accesses (not perf's cycles) */
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
