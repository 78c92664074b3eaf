// SPDX-License-Identifier: GPL-2.0-only
/*
 * deferred-split on the running kernel (`mmsim live deferred-split`,
 * docs/live.md): the simulated workload's tasks with real threads or
 * processes.  One process with `threads` threads (workers=processes:
 * `threads` processes of one thread each); each maps `region` of anonymous
 * memory aligned to the mTHP size, writes one byte per mTHP folio (one
 * fault each, the simulated workload's accesses: ds_thread_fn()), and
 * unmaps it (or empties it with MADV_DONTNEED), `rounds` times.  With only
 * that mTHP size enabled (--apply), each unmap queues its folios for
 * deferred split (deferred_split_folio()) and frees them; without it the
 * kernel faults one 4K page per store.
 *
 * Its parameters are the experiment's (deferred_split.c, those marked
 * .live); runtime_s and faults are measured here, the lock waits by live
 * mode's perf lock (src/host/lockstat.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "host/live_internal.h"

struct ds_thread {
	const struct live_run *r;
	pthread_barrier_t *barrier;
	uint64_t rng;			/* this worker's generator */
	int fail;
};

/* wyrand: a fast 64-bit generator (the simulator's tasks use one too). */
static uint64_t ds_rand(uint64_t *s)
{
	unsigned __int128 t;

	*s += 0xa0761d6478bd642fULL;
	t = (unsigned __int128)*s * (*s ^ 0xe7037ed1a0b428dbULL);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/*
 * One worker, as the simulated workload (workloads/experiments/
 * deferred-split-rounds.ini): after a random
 * delay below start_spread, `rounds` times map `region`, store one byte
 * per mTHP folio (one fault each), and empty it: munmap(), or
 * madvise(MADV_DONTNEED) of a region mapped once (unmap=dontneed).  With
 * round_phase=random the worker starts at a random fault k of its first
 * round and takes faults 0..k-1 in one more mapping at the end, as
 * workers whose rounds have drifted apart.
 */
static void *ds_thread_fn(void *arg)
{
	struct ds_thread *t = arg;
	const struct live_run *r = t->r;
	size_t region = live_param(r, "region"), step = live_param(r, "mthp");
	uint64_t n = region / step, k = 0, nr_maps, spread = live_param(r, "start_spread");
	bool dontneed = live_param(r, "unmap") == 1, mapped = false;
	void *base = NULL;
	size_t len = 0;
	char *p = NULL;

	pthread_barrier_wait(t->barrier);
	if (spread) {
		uint64_t ns = ds_rand(&t->rng) % spread;
		struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

		nanosleep(&ts, NULL);
	}
	if (live_param(r, "round_phase") == 0 && n)
		k = ds_rand(&t->rng) % n;
	nr_maps = live_param(r, "rounds") + (k ? 1 : 0);
	for (uint64_t i = 0; i < nr_maps && !t->fail; i++) {
		uint64_t lo = i == 0 ? k : 0, hi = k && i == nr_maps - 1 ? k : n;

		if (!mapped) {
			p = live_map_aligned(region, step, &base, &len);
			if (!p) {
				t->fail = errno;
				break;
			}
			mapped = true;
		}
		for (uint64_t f = lo; f < hi; f++)
			((volatile char *)p)[f * step] = 1;
		if (dontneed) {
			madvise(p, region, MADV_DONTNEED);
		} else {
			munmap(base, len);
			mapped = false;
		}
	}
	if (mapped)
		munmap(base, len);
	return NULL;
}

/* workers=processes: each worker a process of its own (the choice's index). */
static bool ds_processes(const struct live_run *r)
{
	return live_param(r, "workers") == 1;
}

/*
 * One faulter process: all `threads` threads (workers=threads), or one
 * (workers=processes, process @idx of `threads`).
 */
static void ds_process(struct live_run *r, void *arg, int idx)
{
	struct live_shm *shm = arg;
	int nr = ds_processes(r) ? 1 : (int)live_param(r, "threads");
	pthread_t *tid = calloc((size_t)nr, sizeof(*tid));
	struct ds_thread *t = calloc((size_t)nr, sizeof(*t));
	pthread_barrier_t barrier;
	struct rusage ru0, ru1;
	double t0;

	if (!tid || !t)
		_exit(3);
	pthread_barrier_init(&barrier, NULL, (unsigned)nr + 1);
	for (int i = 0; i < nr; i++) {
		t[i].r = r;
		t[i].barrier = &barrier;
		t[i].rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(idx * nr + i + 1);
		if (pthread_create(&tid[i], NULL, ds_thread_fn, &t[i]))
			_exit(4);
	}
	getrusage(RUSAGE_SELF, &ru0);
	t0 = live_now();
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < nr; i++) {
		pthread_join(tid[i], NULL);
		if (t[i].fail)
			shm->fail = t[i].fail;
	}
	shm->t_start[idx] = t0;
	shm->t_end[idx] = live_now();
	getrusage(RUSAGE_SELF, &ru1);
	shm->ops[idx] = (uint64_t)(ru1.ru_minflt - ru0.ru_minflt) +
			(uint64_t)(ru1.ru_majflt - ru0.ru_majflt);
	_exit(shm->fail ? 5 : 0);
}

static uint64_t ds_memory(const struct sim_run_config *cfg)
{
	return sim_param(cfg, "threads") * (sim_param(cfg, "region") + sim_param(cfg, "mthp"));
}

static void ds_mthp_dir(const struct sim_run_config *cfg, char *buf, size_t len)
{
	snprintf(buf, len, "hugepages-%llukB",
		 (unsigned long long)(sim_param(cfg, "mthp") >> 10));
}

static int ds_check(const struct sim_run_config *cfg, bool apply, char *err, size_t errlen)
{
	uint64_t threads = sim_param(cfg, "threads"), mthp = sim_param(cfg, "mthp");
	char name[48], path[512], abs[256];

	if (sim_param(cfg, "workers") == 1 && threads > LIVE_MAX_CHILDREN) {
		snprintf(err, errlen, "workers=processes runs one process per "
			 "thread: threads=%llu, expected at most %d",
			 (unsigned long long)threads, LIVE_MAX_CHILDREN);
		return -EINVAL;
	}
	if (mthp & (mthp - 1)) {
		snprintf(err, errlen, "mthp=%llu is not a power of two; "
			 "expected a size such as 16K or 64K",
			 (unsigned long long)mthp);
		return -EINVAL;
	}
	ds_mthp_dir(cfg, name, sizeof(name));
	snprintf(abs, sizeof(abs), "%s/%s/enabled", LIVE_THP_DIR, name);
	if (!live_sys_path(path, sizeof(path), abs) && access(path, F_OK)) {
		snprintf(err, errlen, "mthp=%lluK: this kernel has no such "
			 "mTHP size (no %s); it needs Linux 6.8 or later with "
			 "CONFIG_TRANSPARENT_HUGEPAGE, and a size listed in %s",
			 (unsigned long long)(mthp >> 10), path, LIVE_THP_DIR);
		return -ENOENT;
	}
	return 0;
}

static int ds_want(const struct sim_run_config *cfg, struct live_settings *st)
{
	char name[48], rel[80];

	ds_mthp_dir(cfg, name, sizeof(name));
	for (int i = 0; i < st->nr; i++)
		if (!strncmp(st->s[i].rel, "hugepages-", 10))
			snprintf(st->s[i].want, sizeof(st->s[i].want), "never");
	snprintf(rel, sizeof(rel), "%s/enabled", name);
	live_settings_want(st, rel, "always");
	/* every folio stays partly mapped and is queued: the seed's setup */
	live_settings_want(st, "khugepaged/max_ptes_none", "0");
	return 0;
}

static enum live_stop ds_run(struct live_run *r)
{
	struct live_shm *shm = live_shm_map(r);
	int nr_procs = ds_processes(r) ? (int)live_param(r, "threads") : 1;
	enum live_stop stop;

	if (!shm)
		return LIVE_STOP_ERROR;
	if (live_open_start_pipe(r)) {
		live_shm_unmap(shm);
		return LIVE_STOP_ERROR;
	}
	for (int i = 0; i < nr_procs; i++) {
		char name[16];

		snprintf(name, sizeof(name), "faulter%u", (unsigned)i % 100);
		if (live_spawn(r, name, ds_process, shm, i) < 0) {
			live_close_start_pipe(r);
			live_shm_unmap(shm);
			return LIVE_STOP_ERROR;
		}
	}
	live_start(r);
	stop = live_wait_all(r, NULL, NULL);
	live_close_start_pipe(r);
	if (stop == LIVE_STOP_NONE) {
		double t0 = shm->t_start[0], t1 = shm->t_end[0];
		uint64_t faults = 0;

		/* from the first start to the last end, as one process's threads */
		for (int i = 0; i < nr_procs; i++) {
			t0 = shm->t_start[i] < t0 ? shm->t_start[i] : t0;
			t1 = shm->t_end[i] > t1 ? shm->t_end[i] : t1;
			faults += shm->ops[i];
		}
		live_set_metric(r, "runtime_s", t1 - t0);
		live_set_metric(r, "faults", (double)faults);
	} else if (stop == LIVE_STOP_CHILD_DIED && shm->fail) {
		snprintf(r->err, sizeof(r->err), "a faulter thread's mmap "
			 "failed: %s", strerror(shm->fail));
	}
	/* lruvec_lock_wait_s, deferred_split_lock_wait_s: live.c, from perf lock */
	live_shm_unmap(shm);
	return stop;
}

const struct live_ops deferred_split_live = {
	.summary = "threads fault in and unmap mTHP-backed anonymous memory",
	.record_locks = true,
	.memory_bytes = ds_memory,
	.check = ds_check,
	.want_settings = ds_want,
	.run = ds_run,
};
