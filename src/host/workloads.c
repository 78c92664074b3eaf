// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode's process helpers, under every experiment's live workload
 * (src/experiments/NAME/live.c, struct live_ops): forking the workload
 * processes, releasing them together, waiting for them while watching for
 * signals and deaths, killing and reaping them, and the page they share
 * with mmsim.

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

#include "host/live_internal.h"

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

/**
 * live_sleep_ms - sleep @ms milliseconds (or until a signal)
 * @ms: milliseconds
 *
 * Context: may sleep.
 */
void live_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/**
 * live_map_aligned - map anonymous memory at an aligned address
 * @size: bytes wanted
 * @align: their alignment (a power of two: the mTHP or PMD size)
 * @base: what to munmap() at the end
 * @len: its length
 *
 * Context: any.
 * Return: the aligned start, or NULL with errno set.
 */
char *live_map_aligned(size_t size, size_t align, void **base, size_t *len)
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
/*
 * A KVM guest with virtio-balloon's free page reporting gives free blocks
 * (page_reporting_order and up) back to its host about 2 s after they are
 * freed (mm/page_reporting.c), and the host drops them; the guest's next
 * touch of such a page exits to the host, which maps it again.  A run that
 * takes pages from those blocks measures the hypervisor: a copy-on-write
 * fault here took 11.4 us on the first pass over 512 MiB of such pages and
 * 1.9 us after (docs/validation.md).  So, just before the run (before its
 * counters' first snapshot, so that these faults are not the run's),
 * the memory it will map is touched once in this process and freed: the
 * pages then lie at the head of the free lists, mapped by the host again,
 * and the workload takes them (the next report is 2 s away).  Only where
 * the kernel has page reporting (/sys/module/page_reporting); at most half
 * of MemAvailable; twice the run's memory (a forked child's copies).
 */
void live_guest_prefault(struct live_run *r)
{
	const struct live_ops *ops = r->cfg->scenario->live;
	struct live_counters *mi;
	uint64_t bytes, avail_kb;
	char path[512], *p;

	if (live_sys_path(path, sizeof(path), "/sys/module/page_reporting") ||
	    access(path, F_OK) || !ops || !ops->memory_bytes)
		return;
	bytes = ops->memory_bytes(r->cfg) * 2;
	mi = calloc(1, sizeof(*mi));
	if (!mi)
		return;
	live_read_meminfo(mi);
	if (live_counters_get(mi, "MemAvailable", &avail_kb) && bytes > avail_kb * 1024 / 2)
		bytes = avail_kb * 1024 / 2;
	free(mi);
	bytes &= ~(uint64_t)4095;
	if (!bytes)
		return;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return;
	madvise(p, bytes, MADV_NOHUGEPAGE);	/* 4K pages, as most workloads take */
	for (uint64_t off = 0; off < bytes; off += 4096)
		((volatile char *)p)[off] = 1;
	munmap(p, bytes);
	if (r->res)
		live_note(r->res, "free page reporting: %llu MiB touched and freed just before "
			  "the workload, so that it does not take pages its host has dropped",
			  (unsigned long long)(bytes >> 20));
}

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
	if (r->profile && !r->prof && !r->prof_why[0]) {
		pid_t pids[LIVE_MAX_CHILDREN];
		int nr = 0;

		for (int i = 0; i < r->kids.nr; i++)
			if (r->kids.pid[i])
				pids[nr++] = r->kids.pid[i];
		live_prof_start(&r->prof, pids, nr, r->prof_why, sizeof(r->prof_why));
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

/**
 * live_shm_map - the page shared with the workload processes
 * @r: the run; @r->err says why on failure
 *
 * Context: parent only, before the processes are forked.
 * Return: the zeroed struct live_shm, or NULL.
 */
struct live_shm *live_shm_map(struct live_run *r)
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

/**
 * live_shm_unmap - unmap what live_shm_map() mapped
 * @shm: the shared page
 *
 * Context: parent only.
 */
void live_shm_unmap(struct live_shm *shm)
{
	munmap(shm, sizeof(*shm));
}

/**
 * live_open_start_pipe - the pipe the workload processes wait on
 * @r: the run; live_start() closes its write end
 *
 * Context: parent only, before live_spawn().
 * Return: 0, or -1 with @r->err set.
 */
int live_open_start_pipe(struct live_run *r)
{
	if (pipe2(r->start_pipe, O_CLOEXEC) == 0)
		return 0;
	snprintf(r->err, sizeof(r->err), "pipe: %s", strerror(errno));
	r->start_pipe[0] = r->start_pipe[1] = -1;
	return -1;
}

/**
 * live_close_start_pipe - close both ends of the start pipe, if open
 * @r: the run
 *
 * Context: parent only.
 */
void live_close_start_pipe(struct live_run *r)
{
	if (r->start_pipe[1] >= 0)
		close(r->start_pipe[1]);
	r->start_pipe[1] = -1;
	if (r->start_pipe[0] >= 0)
		close(r->start_pipe[0]);
	r->start_pipe[0] = -1;
}
