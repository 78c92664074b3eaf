// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: the three scenarios' workloads, run with real processes and
 * threads on the kernel mmsim runs on.  They do what src/experiments/ makes
 * the simulated tasks do:
 *
 *   deferred-split   one process with @threads threads (workers=processes:
 *                    @threads processes of one thread); each maps @region
 *                    of anonymous memory aligned to the mTHP size, writes
 *                    one byte to every 4K page (one fault per folio), and
 *                    unmaps it, @rounds times.  With only that mTHP size
 *                    enabled, each unmap queues its folios for deferred
 *                    split (deferred_split_folio()) and frees them.
 *   reclaim-tlb      `stress-ng --vm @workers --vm-bytes @vm_bytes --vm-keep`
 *                    in a memory cgroup limited to @memcg_limit (stress-ng
 *                    forks a process per worker); worker_type=threads:
 *                    @workers threads of one process, each keeping
 *                    vm_bytes/workers mapped and rewriting one word per
 *                    cache line of it; one bogo op is one MiB rewritten.  Reclaim (shrink_folio_list()) unmaps and
 *                    swaps their pages and flushes the other CPUs' TLBs.
 *   khugepaged-cold  processes hot1, cold and hot2, created in that order.
 *                    Each maps @task_size aligned to 2M, faults it in with
 *                    4K pages, then calls MADV_HUGEPAGE (which puts its mm
 *                    on khugepaged's scan list: khugepaged_enter_vma()).
 *                    hot1 reads random words until told to stop; cold calls
 *                    MADV_COLD or MADV_FREE and sleeps; hot2 makes
 *                    @accesses random 8-byte reads and times them, with
 *                    perf counters on itself.
 *
 * Process protocol (one parent, N workload processes):
 *
 *   parent (live_cmd_main)               workload process
 *   pipe(start_pipe); fork  ------------> PR_SET_PDEATHSIG(SIGKILL)
 *   attach pid to memcg, open perf        ignore SIGINT/SIGTERM
 *   live_start(): close start_pipe[1] --> read(start_pipe[0]) returns 0
 *   poll: waitpid(WNOHANG), live_signal   run; poll shm->stop
 *   shm->stop = 1 ----------------------> see stop, _exit(0)
 *   reap; on SIGINT, SIGTERM or a         (killed with SIGKILL if still
 *   dead workload: SIGKILL the rest        running)
 *
 * Results come back through a MAP_SHARED page made before fork.  Only
 * workload processes call _exit(); everything else returns to
 * live_cmd_main().
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/live_internal.h"

#define LIVE_PAGE	4096UL
#define LIVE_PMD_SIZE	(2UL << 20)

/**
 * live_now - monotonic time in seconds (live mode only; the model never
 * reads the host clock)
 *
 * Context: any.
 * Return: seconds since an arbitrary point.
 */
double live_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void live_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Map @size bytes of anonymous memory aligned to @align. */
static char *live_map_aligned(size_t size, size_t align, void **base,
			      size_t *len)
{
	char *p;
	uintptr_t a;

	*len = size + align;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	*base = p;
	a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	return (char *)a;
}

static void live_touch(char *p, size_t size)
{
	for (size_t off = 0; off < size; off += LIVE_PAGE)
		((volatile char *)p)[off] = 1;
}

/**
 * live_spawn - fork one workload process
 * @r: the run; the process is added to @r->kids
 * @name: its name in messages ("hot2", "worker1")
 * @fn: what it runs; returning means success (_exit(0))
 * @arg: passed to @fn
 * @idx: passed to @fn
 *
 * The child dies with its parent (PR_SET_PDEATHSIG), ignores SIGINT and
 * SIGTERM (the parent handles them and kills it), and, if @r->start_pipe
 * is open, waits until live_start() before calling @fn.
 *
 * Context: parent only.
 * Return: the pid, or -1 with @r->err set.
 */
pid_t live_spawn(struct live_run *r, const char *name,
		 void (*fn)(struct live_run *r, void *arg, int idx), void *arg,
		 int idx)
{
	pid_t parent = getpid(), pid;
	int i = r->kids.nr;

	if (i >= LIVE_MAX_CHILDREN) {
		snprintf(r->err, sizeof(r->err), "too many workload processes");
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(r->err, sizeof(r->err), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		prctl(PR_SET_NAME, name);
		if (r->start_pipe[1] >= 0) {
			close(r->start_pipe[1]);
			while (read(r->start_pipe[0], &c, 1) < 0 && errno == EINTR)
				;
		}
		fn(r, arg, idx);
		_exit(0);
	}
	r->kids.pid[i] = pid;
	r->kids.status[i] = 0;
	snprintf(r->kids.name[i], sizeof(r->kids.name[i]), "%s", name);
	r->kids.nr++;
	return pid;
}

/**
 * live_start - release every workload process waiting in live_spawn()
 * @r: the run
 *
 * If @r->record_locks, first starts `perf record` of the lock contention
 * tracepoints on the workload processes (lockstat.c) and waits until it
 * records.
 *
 * Context: parent only.
 */
void live_start(struct live_run *r)
{
	if (r->record_locks && !r->lockrec.running && !r->lockrec.why[0]) {
		pid_t pids[LIVE_MAX_CHILDREN];
		int nr = 0;

		for (int i = 0; i < r->kids.nr; i++)
			if (r->kids.pid[i])
				pids[nr++] = r->kids.pid[i];
		live_lockrec_start(&r->lockrec, pids, nr, r->tracefs_ok);
	}
	if (r->start_pipe[1] >= 0)
		close(r->start_pipe[1]);
	r->start_pipe[1] = -1;
}

/**
 * live_wait_all - wait for the workload processes, watching for trouble
 * @r: the run
 * @done: polled every 10 ms; when it returns true, stop waiting.  NULL:
 *        wait until every process has exited.
 * @arg: passed to @done
 *
 * Context: parent only; sleeps.
 * Return: LIVE_STOP_NONE, LIVE_STOP_SIGNAL when SIGINT or SIGTERM arrived,
 * or LIVE_STOP_CHILD_DIED (with @r->err naming the process and its fate)
 * when a workload process died or failed.
 */
enum live_stop live_wait_all(struct live_run *r, bool (*done)(void *),
			     void *arg)
{
	for (;;) {
		int nr_running = 0;

		if (live_signal)
			return LIVE_STOP_SIGNAL;
		for (int i = 0; i < r->kids.nr; i++) {
			int st;
			pid_t ret;

			if (!r->kids.pid[i])
				continue;
			ret = waitpid(r->kids.pid[i], &st, WNOHANG);
			if (ret == 0) {
				nr_running++;
				continue;
			}
			r->kids.pid[i] = 0;
			r->kids.status[i] = st;
			if (ret < 0 || (WIFEXITED(st) && !WEXITSTATUS(st)))
				continue;
			if (WIFSIGNALED(st))
				snprintf(r->err, sizeof(r->err),
					 "workload process %s was killed by "
					 "signal %d (%s)%s", r->kids.name[i],
					 WTERMSIG(st), strsignal(WTERMSIG(st)),
					 WTERMSIG(st) == SIGKILL ?
					 "; if nobody killed it, the OOM killer "
					 "may have (see dmesg)" : "");
			else
				snprintf(r->err, sizeof(r->err),
					 "workload process %s failed (exit "
					 "status %d)", r->kids.name[i],
					 WEXITSTATUS(st));
			return LIVE_STOP_CHILD_DIED;
		}
		if (done ? done(arg) : !nr_running)
			return LIVE_STOP_NONE;
		if (!nr_running && done)
			return LIVE_STOP_NONE;
		live_sleep_ms(10);
	}
}

/**
 * live_kill_all - SIGKILL every workload process still running and reap it
 * @kids: the processes; each pid is cleared once reaped
 *
 * Context: parent only; sleeps until they are gone.
 */
void live_kill_all(struct live_children *kids)
{
	for (int i = 0; i < kids->nr; i++)
		if (kids->pid[i])
			kill(kids->pid[i], SIGKILL);
	for (int i = 0; i < kids->nr; i++) {
		if (!kids->pid[i])
			continue;
		while (waitpid(kids->pid[i], &kids->status[i], 0) < 0 &&
		       errno == EINTR)
			;
		kids->pid[i] = 0;
	}
}

/* Shared with the workload processes; one page, made before fork. */
struct live_shm {
	volatile int stop;		/* parent -> workloads: finish now */
	volatile int ready[4];		/* workload i has set up its memory */
	volatile int done;		/* hot2 finished its accesses */
	double t_start[LIVE_MAX_CHILDREN]; /* deferred-split: each faulter's */
	double t_end[LIVE_MAX_CHILDREN];   /* loops, CLOCK_MONOTONIC */
	uint64_t ops[LIVE_MAX_CHILDREN]; /* bogo ops per worker (reclaim-tlb), faults per process (deferred-split) */
	double hot2_time_s;		/* khugepaged-cold: hot2's access time */
	bool perf_ok[LIVE_PERF_NR];	/* hot2's counters */
	int perf_err[LIVE_PERF_NR];
	uint64_t perf[LIVE_PERF_NR];
	int fail;			/* errno of a failed mmap or madvise */
};

static struct live_shm *live_shm_map(struct live_run *r)
{
	void *p = mmap(NULL, sizeof(struct live_shm), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		snprintf(r->err, sizeof(r->err), "mmap: %s", strerror(errno));
		return NULL;
	}
	memset(p, 0, sizeof(struct live_shm));
	return p;
}

static int live_open_start_pipe(struct live_run *r)
{
	if (pipe2(r->start_pipe, O_CLOEXEC) == 0)
		return 0;
	snprintf(r->err, sizeof(r->err), "pipe: %s", strerror(errno));
	r->start_pipe[0] = r->start_pipe[1] = -1;
	return -1;
}

static void live_close_start_pipe(struct live_run *r)
{
	if (r->start_pipe[1] >= 0)
		close(r->start_pipe[1]);
	r->start_pipe[1] = -1;
	if (r->start_pipe[0] >= 0)
		close(r->start_pipe[0]);
	r->start_pipe[0] = -1;
}

/* ------------------------------------------------------------------ */
/* deferred-split                                                       */

enum { DS_THREADS, DS_ROUNDS, DS_REGION, DS_MTHP, DS_WORKERS, DS_NR };

/* The simulator's choices, in its order (compare passes the index on). */
static const char *const ds_worker_kinds[] = { "threads", "processes", NULL };

static const struct live_param ds_params[DS_NR] = {
	[DS_THREADS] = { "threads", LIVE_PARAM_COUNT, "2", 1, 1024,
			 "threads that fault in and unmap memory" },
	[DS_ROUNDS] = { "rounds", LIVE_PARAM_COUNT, "5", 1, 1000000,
			"map, fault in, unmap rounds per thread" },
	[DS_REGION] = { "region", LIVE_PARAM_SIZE, "16M", 64 << 10, 1ULL << 40,
			"bytes mapped per thread per round" },
	[DS_MTHP] = { "mthp", LIVE_PARAM_SIZE, "16K", 8 << 10, 2 << 20,
		      "the one mTHP size enabled (--apply)" },
	[DS_WORKERS] = { "workers", LIVE_PARAM_WORD, "threads", 0, 1,
			 "threads of one process (one mm, the post's words) or "
			 "one process each", ds_worker_kinds },
};

static const struct live_metric ds_metrics[] = {
	{ "runtime_s", NULL, 3 },
	{ "lruvec_lock_wait_s", NULL, 3 },
	{ "deferred_split_lock_wait_s", NULL, 3 },
	{ "queueing_cost_pct", NULL, 1 },
	{ "faults", NULL, 0 },
};

struct ds_thread {
	const uint64_t *p;
	pthread_barrier_t *barrier;
	int fail;
};

static void *ds_thread_fn(void *arg)
{
	struct ds_thread *t = arg;
	size_t region = t->p[DS_REGION], align = t->p[DS_MTHP];

	pthread_barrier_wait(t->barrier);
	for (uint64_t i = 0; i < t->p[DS_ROUNDS] && !t->fail; i++) {
		void *base;
		size_t len;
		char *p = live_map_aligned(region, align, &base, &len);

		if (!p) {
			t->fail = errno;
			break;
		}
		live_touch(p, region);
		munmap(base, len);
	}
	return NULL;
}

/*
 * One faulter process: all @threads threads (workers=threads), or one
 * (workers=processes, process @idx of @threads).
 */
static void ds_process(struct live_run *r, void *arg, int idx)
{
	struct live_shm *shm = arg;
	int nr = r->p[DS_WORKERS] ? 1 : (int)r->p[DS_THREADS];
	pthread_t *tid = calloc((size_t)nr, sizeof(*tid));
	struct ds_thread *t = calloc((size_t)nr, sizeof(*t));
	pthread_barrier_t barrier;
	struct rusage ru0, ru1;
	double t0;

	if (!tid || !t)
		_exit(3);
	pthread_barrier_init(&barrier, NULL, (unsigned)nr + 1);
	for (int i = 0; i < nr; i++) {
		t[i].p = r->p;
		t[i].barrier = &barrier;
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

static uint64_t ds_memory(const uint64_t *p)
{
	return p[DS_THREADS] * (p[DS_REGION] + p[DS_MTHP]);
}

static void ds_mthp_dir(const uint64_t *p, char *buf, size_t len)
{
	snprintf(buf, len, "hugepages-%llukB",
		 (unsigned long long)(p[DS_MTHP] >> 10));
}

static int ds_check(const uint64_t *p, bool apply, char *err, size_t errlen)
{
	char name[48], path[512], abs[256];

	if (p[DS_WORKERS] && p[DS_THREADS] > LIVE_MAX_CHILDREN) {
		snprintf(err, errlen, "workers=processes runs one process per "
			 "thread: threads=%llu, expected at most %d",
			 (unsigned long long)p[DS_THREADS], LIVE_MAX_CHILDREN);
		return -EINVAL;
	}
	if (p[DS_MTHP] & (p[DS_MTHP] - 1)) {
		snprintf(err, errlen, "mthp=%llu is not a power of two; "
			 "expected a size such as 16K or 64K",
			 (unsigned long long)p[DS_MTHP]);
		return -EINVAL;
	}
	ds_mthp_dir(p, name, sizeof(name));
	snprintf(abs, sizeof(abs), "%s/%s/enabled", LIVE_THP_DIR, name);
	if (!live_sys_path(path, sizeof(path), abs) && access(path, F_OK)) {
		snprintf(err, errlen, "mthp=%lluK: this kernel has no such "
			 "mTHP size (no %s); it needs Linux 6.8 or later with "
			 "CONFIG_TRANSPARENT_HUGEPAGE, and a size listed in %s",
			 (unsigned long long)(p[DS_MTHP] >> 10), path,
			 LIVE_THP_DIR);
		return -ENOENT;
	}
	return 0;
}

static int ds_want(const uint64_t *p, struct live_settings *st)
{
	char name[48], rel[80];

	ds_mthp_dir(p, name, sizeof(name));
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
	struct live_result *res = r->res;
	int nr_procs = r->p[DS_WORKERS] ? (int)r->p[DS_THREADS] : 1;
	enum live_stop stop;

	if (!shm)
		return LIVE_STOP_ERROR;
	if (live_open_start_pipe(r)) {
		munmap(shm, sizeof(*shm));
		return LIVE_STOP_ERROR;
	}
	for (int i = 0; i < nr_procs; i++) {
		char name[16];

		snprintf(name, sizeof(name), "faulter%u", (unsigned)i % 100);
		if (live_spawn(r, name, ds_process, shm, i) < 0) {
			live_close_start_pipe(r);
			munmap(shm, sizeof(*shm));
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
		live_set_metric(res, 0, t1 - t0);
		live_set_metric(res, 4, (double)faults);
	} else if (stop == LIVE_STOP_CHILD_DIED && shm->fail) {
		snprintf(r->err, sizeof(r->err), "a faulter thread's mmap "
			 "failed: %s", strerror(shm->fail));
	}
	/* lruvec_lock_wait_s, deferred_split_lock_wait_s: live.c, from perf lock */
	live_unavailable(res, 3, "needs a second kernel without deferred "
			 "split queueing: compare runtime_s of two kernels");
	munmap(shm, sizeof(*shm));
	return stop;
}

const struct live_scenario_ops live_deferred_split = {
	.name = "deferred-split",
	.summary = "threads fault in and unmap mTHP-backed anonymous memory",
	.params = ds_params,
	.nr_params = DS_NR,
	.metrics = ds_metrics,
	.nr_metrics = sizeof(ds_metrics) / sizeof(ds_metrics[0]),
	.memory_bytes = ds_memory,
	.check = ds_check,
	.want_settings = ds_want,
	.run = ds_run,
};

/* ------------------------------------------------------------------ */
/* reclaim-tlb                                                          */

enum { RT_WORKERS, RT_VM_BYTES, RT_MEMCG_LIMIT, RT_DURATION, RT_WORKER_TYPE,
       RT_NR };

static const char *const rt_worker_types[] = { "processes", "threads", NULL };

static const struct live_param rt_params[RT_NR] = {
	[RT_WORKERS] = { "workers", LIVE_PARAM_COUNT, "2", 1, LIVE_MAX_CHILDREN,
			 "stress-ng --vm N: vm workers" },
	[RT_VM_BYTES] = { "vm_bytes", LIVE_PARAM_SIZE, "256M", 1 << 20,
			  1ULL << 42, "--vm-bytes: memory of all workers together" },
	[RT_MEMCG_LIMIT] = { "memcg_limit", LIVE_PARAM_SIZE, "64M", 8 << 20,
			     1ULL << 42, "limit of the workers' memory cgroup" },
	[RT_DURATION] = { "duration", LIVE_PARAM_TIME, "5s", 1000000000ULL,
			  3600000000000ULL, "--timeout, whole seconds" },
	[RT_WORKER_TYPE] = { "worker_type", LIVE_PARAM_WORD, "processes", 0, 1,
			     "processes: stress-ng --vm (it forks); threads: "
			     "mmsim's own vm loop in threads of one process",
			     rt_worker_types },
};

static const struct live_metric rt_metrics[] = {
	{ "bogo_ops_per_s", NULL, 2 },
	{ "tlb_shootdowns", "TLB", 0 },
	{ "function_call_ipis", "CAL", 0 },
	{ "pgscan_anon", "pgscan_anon", 0 },
	{ "pgsteal_anon", "pgsteal_anon", 0 },
};

/**
 * live_parse_stress_ng_yaml - a stressor's bogo ops from `stress-ng --yaml`
 * @text: the YAML file; its "metrics:" list has, per stressor,
 *        "- stressor: vm", "bogo-ops: N", "bogo-ops-per-second-real-time: X"
 * @stressor: "vm"
 * @ops_per_s: bogo ops per second of wall time (the post's "bogo ops/s")
 * @ops: bogo ops
 *
 * Context: any.
 * Return: 0, or -ENOENT when @stressor has no metrics in @text.
 */
int live_parse_stress_ng_yaml(const char *text, const char *stressor,
			      double *ops_per_s, uint64_t *ops)
{
	char key[64];
	const char *p = strstr(text, "\nmetrics:");
	const char *q, *end;
	bool have_rate = false, have_ops = false;

	if (!p)
		return -ENOENT;
	snprintf(key, sizeof(key), "- stressor: %s\n", stressor);
	p = strstr(p, key);
	if (!p)
		return -ENOENT;
	p += strlen(key);
	end = strstr(p, "- stressor:");
	if (!end)
		end = p + strlen(p);
	q = strstr(p, "bogo-ops-per-second-real-time:");
	if (q && q < end) {
		*ops_per_s = strtod(q + strlen("bogo-ops-per-second-real-time:"), NULL);
		have_rate = true;
	}
	q = strstr(p, "bogo-ops:");
	if (q && q < end) {
		*ops = strtoull(q + strlen("bogo-ops:"), NULL, 10);
		have_ops = true;
	}
	return have_rate && have_ops ? 0 : -ENOENT;
}

/**
 * live_parse_stress_ng_brief - a stressor's bogo ops from --metrics-brief
 * @text: stress-ng's output; the row is
 *        "stress-ng: metrc: [PID] vm  2075  2.01  0.51  0.26  1032.40  2690.01"
 *        (bogo ops, real, usr, sys seconds, bogo ops/s real time, usr+sys)
 * @stressor: "vm"
 * @ops_per_s: bogo ops/s (real time)
 * @ops: bogo ops
 *
 * Context: any.
 * Return: 0, or -ENOENT when there is no such row.
 */
int live_parse_stress_ng_brief(const char *text, const char *stressor,
			       double *ops_per_s, uint64_t *ops)
{
	for (const char *line = text; line && *line; ) {
		const char *next = strchr(line, '\n');
		const char *m = strstr(line, "] ");
		char name[32];
		unsigned long long n;
		double real, usr, sys, rate;

		if (m && (!next || m < next) && strstr(line, "metrc") &&
		    sscanf(m + 2, "%31s %llu %lf %lf %lf %lf", name, &n, &real,
			   &usr, &sys, &rate) == 6 && !strcmp(name, stressor)) {
			*ops = n;
			*ops_per_s = rate;
			return 0;
		}
		line = next ? next + 1 : NULL;
	}
	return -ENOENT;
}

/* What the stress-ng process runs; @arg is its directory (output files). */
static void rt_stress_ng(struct live_run *r, void *arg, int idx)
{
	const char *dir = arg;
	char n[24], bytes[32], timeout[24], yaml[128], out[128];
	int fd;

	snprintf(n, sizeof(n), "%llu", (unsigned long long)r->p[RT_WORKERS]);
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)r->p[RT_VM_BYTES]);
	snprintf(timeout, sizeof(timeout), "%llu",
		 (unsigned long long)((r->p[RT_DURATION] + 999999999ULL) / 1000000000ULL));
	snprintf(yaml, sizeof(yaml), "%s/stress-ng.yaml", dir);
	snprintf(out, sizeof(out), "%s/stress-ng.out", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	/* stress-ng handles SIGINT itself; mmsim stops it with SIGKILL */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execlp("stress-ng", "stress-ng", "--vm", n, "--vm-bytes", bytes,
	       "--vm-keep", "--timeout", timeout, "--metrics-brief", "--yaml",
	       yaml, (char *)NULL);
	(void)idx;
	_exit(127);
}

/* threads: one vm loop per thread, one bogo op per MiB rewritten. */
struct rt_thread {
	struct live_shm *shm;
	const uint64_t *p;
	int idx;
};

static void *rt_thread_fn(void *arg)
{
	struct rt_thread *t = arg;
	struct live_shm *shm = t->shm;
	size_t size = (t->p[RT_VM_BYTES] / t->p[RT_WORKERS]) & ~(LIVE_PAGE - 1);
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t pass = 0;

	if (p == MAP_FAILED) {
		shm->fail = errno;
		return NULL;
	}
	while (!shm->stop) {
		for (size_t off = 0; off < size && !shm->stop; ) {
			size_t end = off + (1UL << 20) < size ? off + (1UL << 20) : size;

			for (; off < end; off += 64)
				*(volatile uint64_t *)(p + off) = pass + off;
			__atomic_fetch_add(&shm->ops[t->idx], 1, __ATOMIC_RELAXED);
		}
		pass++;
	}
	return NULL;
}

static void rt_threads(struct live_run *r, void *arg, int idx)
{
	int nr = (int)r->p[RT_WORKERS];
	pthread_t tid[LIVE_MAX_CHILDREN];
	struct rt_thread t[LIVE_MAX_CHILDREN];

	for (int i = 0; i < nr; i++) {
		t[i] = (struct rt_thread){ .shm = arg, .p = r->p, .idx = i };
		if (pthread_create(&tid[i], NULL, rt_thread_fn, &t[i]))
			_exit(4);
	}
	for (int i = 0; i < nr; i++)
		pthread_join(tid[i], NULL);
	(void)idx;
	_exit(((struct live_shm *)arg)->fail ? 5 : 0);
}

/* All of vm_bytes: what is swapped out may sit in zram, that is in RAM. */
static uint64_t rt_memory(const uint64_t *p)
{
	return p[RT_VM_BYTES];
}

static int rt_check(const uint64_t *p, bool apply, char *err, size_t errlen)
{
	struct live_counters *mi = calloc(1, sizeof(*mi));
	uint64_t swap_kb = 0;
	char dir[512];
	int version;

	if (!mi)
		return -ENOMEM;
	live_read_meminfo(mi);
	live_counters_get(mi, "SwapTotal", &swap_kb);
	free(mi);
	/* --apply on a machine without swap adds zram swap of vm_bytes */
	if (!swap_kb && !apply) {
		snprintf(err, errlen, "reclaim-tlb needs swap and this machine "
			 "has none (SwapTotal is 0 in /proc/meminfo); run with "
			 "--apply (zram swap for the run) or add some, "
			 "e.g. fallocate -l 1G /swapfile && chmod 600 /swapfile "
			 "&& mkswap /swapfile && swapon /swapfile");
		return -ENOENT;
	}
	if (swap_kb && p[RT_VM_BYTES] - p[RT_MEMCG_LIMIT] > swap_kb * 1024 &&
	    p[RT_VM_BYTES] > p[RT_MEMCG_LIMIT]) {
		snprintf(err, errlen, "reclaim-tlb needs vm_bytes - memcg_limit "
			 "= %llu MiB of swap and this machine has %llu MiB; "
			 "add swap or lower vm_bytes",
			 (unsigned long long)((p[RT_VM_BYTES] - p[RT_MEMCG_LIMIT]) >> 20),
			 (unsigned long long)(swap_kb >> 10));
		return -ENOSPC;
	}
	if (p[RT_WORKER_TYPE] == 0 && !live_on_path("stress-ng")) {
		snprintf(err, errlen, "reclaim-tlb runs stress-ng, which is not "
			 "installed (Debian: apt-get install stress-ng); or use "
			 "--set worker_type=threads");
		return -ENOENT;
	}
	return live_memcg_find_parent(dir, sizeof(dir), &version, err, errlen);
}

struct rt_clock {
	double t_end;
};

static bool rt_elapsed(void *arg)
{
	return live_now() >= ((struct rt_clock *)arg)->t_end;
}

static void rt_rmdir(const char *dir)
{
	static const char *const files[] = { "stress-ng.yaml", "stress-ng.out" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
	live_state_note_tmpdir(LIVE_STATE_TMPDIR_STRESS_NG, NULL);
}

/* stress-ng's bogo ops/s, from its YAML, else from its metrics lines. */
static void rt_stress_ng_result(struct live_run *r, const char *dir)
{
	static char text[64 * 1024];
	char path[128];
	double rate = 0;
	uint64_t ops = 0;
	const char *from = "--yaml";

	snprintf(path, sizeof(path), "%s/stress-ng.yaml", dir);
	if (live_read_file(path, text, sizeof(text)) <= 0 ||
	    live_parse_stress_ng_yaml(text, "vm", &rate, &ops)) {
		from = "--metrics-brief";
		snprintf(path, sizeof(path), "%s/stress-ng.out", dir);
		if (live_read_file(path, text, sizeof(text)) <= 0 ||
		    live_parse_stress_ng_brief(text, "vm", &rate, &ops)) {
			live_unavailable(r->res, 0, "stress-ng printed no vm "
					 "metrics (see its output: it ran "
					 "but reported nothing)");
			return;
		}
	}
	live_set_metric(r->res, 0, rate);
	if (!ops)
		live_note(r->res, "stress-ng counted no bogo op: under this "
			  "memcg limit its vm workers spend the run swapping; "
			  "raise duration or memcg_limit");
	live_note(r->res, "stress-ng --vm %llu --vm-bytes %lluM --vm-keep "
		  "--timeout %llus: %llu bogo ops, %.2f bogo ops/s (real time, "
		  "from %s)", (unsigned long long)r->p[RT_WORKERS],
		  (unsigned long long)(r->p[RT_VM_BYTES] >> 20),
		  (unsigned long long)((r->p[RT_DURATION] + 999999999ULL) / 1000000000ULL),
		  (unsigned long long)ops, rate, from);
}

static enum live_stop rt_run(struct live_run *r)
{
	struct live_shm *shm = live_shm_map(r);
	struct live_counters *mi;
	struct rt_clock clk;
	enum live_stop stop;
	char dir[64] = "";
	bool threads = r->p[RT_WORKER_TYPE] == 1;
	uint64_t ops = 0, swap_kb = 0;
	double t0, t1;
	pid_t pid;
	int ret;

	if (!shm)
		return LIVE_STOP_ERROR;
	mi = calloc(1, sizeof(*mi));
	if (mi) {
		live_read_meminfo(mi);
		live_counters_get(mi, "SwapTotal", &swap_kb);
		free(mi);
	}
	if (!swap_kb && r->apply) {
		if (live_zram_setup(&r->zram, r->p[RT_VM_BYTES], r->err,
				    sizeof(r->err)))
			goto out_error;
		live_note(r->res, "no swap: /dev/zram%d of %llu MiB set up as "
			  "swap for the run (removed at exit)", r->zram.dev,
			  (unsigned long long)(r->p[RT_VM_BYTES] >> 20));
	}
	if (live_memcg_create(&r->memcg, r->p[RT_MEMCG_LIMIT], r->err,
			      sizeof(r->err)))
		goto out_error;
	if (live_open_start_pipe(r))
		goto out_error;
	if (!threads) {
		snprintf(dir, sizeof(dir), "/tmp/mmsim-live-sng-XXXXXX");
		if (!mkdtemp(dir)) {
			snprintf(r->err, sizeof(r->err), "mkdtemp: %s", strerror(errno));
			dir[0] = '\0';
			goto out_error;
		}
		live_state_note_tmpdir(LIVE_STATE_TMPDIR_STRESS_NG, dir);
	}
	pid = live_spawn(r, threads ? "vmthreads" : "stress-ng",
			 threads ? rt_threads : rt_stress_ng,
			 threads ? (void *)shm : (void *)dir, 0);
	if (pid < 0)
		goto out_error;
	ret = live_memcg_attach(&r->memcg, pid);
	if (ret) {
		snprintf(r->err, sizeof(r->err), "cannot move the workload into "
			 "%s: %s", r->memcg.path, strerror(-ret));
		goto out_error;
	}
	t0 = live_now();
	clk.t_end = t0 + (double)r->p[RT_DURATION] * 1e-9;
	live_start(r);
	if (threads) {
		stop = live_wait_all(r, rt_elapsed, &clk);
		shm->stop = 1;
	} else {
		stop = LIVE_STOP_NONE;
	}
	t1 = live_now();
	if (stop == LIVE_STOP_NONE)
		stop = live_wait_all(r, NULL, NULL);
	if (!threads)
		t1 = live_now();
	live_close_start_pipe(r);
	if (stop == LIVE_STOP_NONE && threads) {
		for (uint64_t i = 0; i < r->p[RT_WORKERS]; i++)
			ops += shm->ops[i];
		live_set_metric(r->res, 0, (double)ops / (t1 - t0));
		live_note(r->res, "worker_type=threads: %llu threads of one "
			  "process (stress-ng's --vm has no thread mode); one "
			  "bogo op = 1 MiB rewritten, one word per cache line, "
			  "not stress-ng's op; %llu ops in %.2f s",
			  (unsigned long long)r->p[RT_WORKERS],
			  (unsigned long long)ops, t1 - t0);
	} else if (stop == LIVE_STOP_NONE) {
		rt_stress_ng_result(r, dir);
	}
	live_note(r->res, "memory cgroup v%d %s, limit %llu MiB (removed at "
		  "exit)", r->memcg.version, r->memcg.path,
		  (unsigned long long)(r->p[RT_MEMCG_LIMIT] >> 20));
	if (dir[0])
		rt_rmdir(dir);
	munmap(shm, sizeof(*shm));
	return stop;

out_error:
	live_close_start_pipe(r);
	if (dir[0])
		rt_rmdir(dir);
	munmap(shm, sizeof(*shm));
	return LIVE_STOP_ERROR;
}

const struct live_scenario_ops live_reclaim_tlb = {
	.name = "reclaim-tlb",
	.summary = "stress-ng --vm workers reclaimed in a memory cgroup",
	.params = rt_params,
	.nr_params = RT_NR,
	.metrics = rt_metrics,
	.nr_metrics = sizeof(rt_metrics) / sizeof(rt_metrics[0]),
	.memory_bytes = rt_memory,
	.check = rt_check,
	.want_settings = NULL,
	.run = rt_run,
};


/* ------------------------------------------------------------------ */
/* khugepaged-cold                                                      */

enum { KC_TASK_SIZE, KC_ACCESSES, KC_ADVICE, KC_SCAN_SLEEP, KC_NR };

static const char *const kc_advice_words[] = { "cold", "free", NULL };

static const struct live_param kc_params[KC_NR] = {
	[KC_TASK_SIZE] = { "task_size", LIVE_PARAM_SIZE, "32M", 4 << 20,
			   1ULL << 40, "memory of each of hot1, cold, hot2" },
	[KC_ACCESSES] = { "accesses", LIVE_PARAM_COUNT, "50000000", 1,
			  1ULL << 40, "random 8-byte reads made by hot2" },
	[KC_ADVICE] = { "advice", LIVE_PARAM_WORD, "cold", 0, 1,
			"what cold calls: MADV_COLD or MADV_FREE",
			kc_advice_words },
	[KC_SCAN_SLEEP] = { "scan_sleep", LIVE_PARAM_TIME, "100ms", 0,
			    3600000000000ULL,
			    "khugepaged/scan_sleep_millisecs (--apply)" },
};

static const struct live_metric kc_metrics[] = {
	{ "total_access_time_s", NULL, 3 },
	{ "cycles_per_access", NULL, 2 },
	{ "throughput_per_s", NULL, 0 },
	{ "dtlb_load_misses", NULL, 0 },
};

enum { KC_HOT1, KC_COLD, KC_HOT2, KC_NR_TASKS };
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
	size_t size = r->p[KC_TASK_SIZE] & ~(LIVE_PMD_SIZE - 1);
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
	live_touch(p, size);
	if (madvise(p, size, MADV_HUGEPAGE)) {
		shm->fail = errno;
		_exit(6);
	}
	if (idx == KC_COLD &&
	    madvise(p, size, r->p[KC_ADVICE] ? MADV_FREE : MADV_COLD)) {
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
		sink = kc_random_reads(p, size / 8, r->p[KC_ACCESSES], &seed, NULL);
		shm->hot2_time_s = live_now() - t0;
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

static uint64_t kc_memory(const uint64_t *p)
{
	return KC_NR_TASKS * (p[KC_TASK_SIZE] + LIVE_PMD_SIZE);
}

static int kc_check(const uint64_t *p, bool apply, char *err, size_t errlen)
{
	if (p[KC_TASK_SIZE] < LIVE_PMD_SIZE) {
		snprintf(err, errlen, "task_size must be at least 2M");
		return -EINVAL;
	}
	return 0;
}

static int kc_want(const uint64_t *p, struct live_settings *st)
{
	char ms[32];

	/* faults stay 4K; only MADV_HUGEPAGE regions are collapsed */
	live_settings_want(st, "enabled", "madvise");
	live_settings_want(st, "khugepaged/max_ptes_none", "511");
	snprintf(ms, sizeof(ms), "%llu",
		 (unsigned long long)(p[KC_SCAN_SLEEP] / 1000000));
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
	uint64_t full_kb = (w->r->p[KC_TASK_SIZE] & ~(LIVE_PMD_SIZE - 1)) >> 10;
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
		double t = shm->hot2_time_s, n = (double)r->p[KC_ACCESSES];

		live_set_metric(res, 0, t);
		if (shm->perf_ok[LIVE_PERF_CYCLES])
			live_set_metric(res, 1, (double)shm->perf[LIVE_PERF_CYCLES] / n);
		else
			live_unavailable(res, 1, "perf event 'cycles' cannot be "
					 "counted here: %s", kc_perf_why(shm->perf_err[LIVE_PERF_CYCLES]));
		live_set_metric(res, 2, n / t);
		if (shm->perf_ok[LIVE_PERF_DTLB_LOAD_MISSES])
			live_set_metric(res, 3, (double)shm->perf[LIVE_PERF_DTLB_LOAD_MISSES]);
		else
			live_unavailable(res, 3, "perf event 'dTLB-load-misses' "
					 "cannot be counted here: %s",
					 kc_perf_why(shm->perf_err[LIVE_PERF_DTLB_LOAD_MISSES]));
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
	munmap(shm, sizeof(*shm));
	return stop;
}

const struct live_scenario_ops live_khugepaged_cold = {
	.name = "khugepaged-cold",
	.summary = "hot1, cold, hot2: does khugepaged reach hot2 before cold?",
	.params = kc_params,
	.nr_params = KC_NR,
	.metrics = kc_metrics,
	.nr_metrics = sizeof(kc_metrics) / sizeof(kc_metrics[0]),
	.memory_bytes = kc_memory,
	.check = kc_check,
	.want_settings = kc_want,
	.run = kc_run,
};

const struct live_scenario_ops *const live_scenarios[] = {
	&live_deferred_split,
	&live_reclaim_tlb,
	&live_khugepaged_cold,
	NULL,
};
