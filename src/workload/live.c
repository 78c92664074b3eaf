// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload files on the running kernel (`mmsim live FILE`, `mmsim compare
 * FILE`; docs/workloads.md, docs/live.md): the resolved struct wl_plan,
 * the one the simulated executor reads, executed with real system calls
 * under live mode's harness (src/host/: settings, state file, perf lock,
 * the start pipe).
 *
 * Mirrors no kernel function: every step is the system call whose kernel
 * path the model runs (mmap(2), munmap(2), a load or store that faults,
 * madvise(2), mprotect(2), fork(2), mbind(2), ftruncate(2)).
 *
 * Who does what:
 *
 *   mmsim (workload_live.run)             a task (process, or thread of a
 *                                         group's process)
 *   resolve the plan at this machine's    -
 *   online CPUs; make the run's files
 *   (/tmp/mmsim-live-wl-X, state file)
 *   and per = workload objects; map the
 *   shared page (struct wl_live_shared)
 *   live_spawn() each process ----------> wait on the start pipe
 *   live_start(): close the pipe -------> pin to its CPU, start_delay,
 *                                         setup steps; loop (timed,
 *                                         CLOCK_MONOTONIC), teardown;
 *                                         results into the shared page
 *   wait (SIGINT, SIGTERM, a death: kill
 *   every process); metrics; remove the
 *   files, unmap, forget the tmpdir
 *
 * A fork step starts the forked group's tasks (a process each, or one
 * process of their threads) in copies of the forking task's mm; each runs
 * the group's steps into its own slot (a second fork step's run adds to
 * it) and exits.  They die with their parent (PR_SET_PDEATHSIG), and the
 * forking task waits for them before it ends.
 *
 * The barrier: one for the workload, in the shared page (a process-shared
 * mutex and condition variable).  Its members are the tasks that have a
 * barrier step, from their start to the end of their loop; a barrier
 * opens when every member has reached it, so a task whose loop has ended
 * (a duration loop, a shorter repeat) no longer holds the others.  A
 * barrier step after the loop waits until no member is left.
 *
 * Left out: a per = workload anonymous memory is mapped once before the
 * tasks start (processes inherit it, threads share it); mmap and munmap
 * steps on it are refused.  Files live in /tmp, which must be a disk file
 * system for kind = file (else the page cache path is not the one run).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/live_internal.h"
#include "workload/live.h"
#include "workload/wl_rand.h"

#define WL_TMPFS_MAGIC		0x01021994UL	/* include/uapi/linux/magic.h */
#define WL_MAX_NODES		1024
#define WL_MPOL_PREFERRED	1		/* include/uapi/linux/mempolicy.h */
#define WL_MPOL_BIND		2
#define WL_MPOL_INTERLEAVE	3

/* ---- shared between mmsim and every task ---- */

struct wl_live_slot {
	/*
	 * Sums over the task's runs: one for a task started with the run, one
	 * per fork step that started it for a forked group's task.
	 */
	uint64_t runs;
	uint64_t ops;			/* counted operations of its loops */
	uint64_t loop_ns;		/* its loops' time, CLOCK_MONOTONIC */
	uint64_t max_loop_ns;		/* its longest loop */
	uint64_t minflt, majflt;
	uint64_t forks;			/* fork steps it ran */
	uint64_t rss_anon_kb, rss_file_kb, rss_shmem_kb;
	pid_t pid, tid;
	int vmas_delta;			/* with probe: /proc/self/maps lines, end - start */
};

/*
 * bar_arrived <= bar_members; bar_gen changes each time the barrier opens.
 * fail != 0 implies stop; the first failure's line and text are kept.
 */
struct wl_live_shared {
	pthread_mutex_t lock;		/* process-shared: the barrier, fail */
	pthread_cond_t cond;
	int bar_members;		/* tasks with a barrier step, before their loop ends */
	int bar_arrived;
	unsigned int bar_gen;
	volatile int stop;		/* a task failed: the others end */
	int fail;			/* errno of the first failure */
	char fail_what[200];
	struct wl_live_slot slot[];	/* one per task of every group, in order */
};

/* What mmsim makes before the tasks start; inherited by every task. */
struct wl_live_objs {
	char tmpdir[64];		/* "" when no memory is a file */
	int fd[WL_MAX_MEMORY];		/* per = workload shmem or file, else -1 */
	char *addr[WL_MAX_MEMORY];	/* per = workload anon, else NULL */
	void *base[WL_MAX_MEMORY];
	size_t len[WL_MAX_MEMORY];
	int cpus[CPU_SETSIZE];		/* the CPUs mmsim may run on, in order */
	int nr_cpus;
	unsigned long nodes[WL_MAX_NODES / 64];	/* nodes with memory (interleave) */
	bool probe;			/* tests: count the mappings around the loop */
};

/* One task's view of one memory. */
struct wl_live_map {
	char *addr;			/* the memory's start, NULL: not mapped here */
	void *base;			/* what munmap() takes */
	size_t len;
	int fd;				/* per = task shmem or file: its own, else -1 */
};

/* One task, in the process (or thread) that runs it. */
struct wl_live_task {
	const struct wl_plan *plan;
	const struct wl_task *g;	/* its group */
	struct wl_live_shared *sh;
	const struct wl_live_objs *objs;
	int slot;			/* its slot, or the forking task's */
	int idx;			/* its index among all tasks (CPU, generator) */
	bool forked;			/* started by a fork step */
	bool member;			/* of the barrier, until its loop ends */
	uint64_t rng;
	struct wl_live_map m[WL_MAX_MEMORY];
	uint32_t *perm[3][WL_MAX_STEPS]; /* fault steps with order=random, per list */
	pid_t *kids;			/* fork children not yet reaped */
	int nr_kids, cap_kids;
	uint64_t forks;
	double deadline;		/* a duration loop's end (live_now()), 0: none */
};

/* ---- failures ---- */

/* Record the first failure (line, what) and make every task stop. */
static void wl_fail(struct wl_live_task *t, int line, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void wl_fail(struct wl_live_task *t, int line, int err, const char *fmt, ...)
{
	struct wl_live_shared *sh = t->sh;
	va_list ap;

	pthread_mutex_lock(&sh->lock);
	if (!sh->fail) {
		int n = snprintf(sh->fail_what, sizeof(sh->fail_what), "%s line %d: ",
				 t->plan->w ? t->plan->w->path : "workload", line);

		va_start(ap, fmt);
		vsnprintf(sh->fail_what + n, sizeof(sh->fail_what) - (size_t)n, fmt, ap);
		va_end(ap);
		sh->fail = err ? err : EINVAL;
	}
	sh->stop = 1;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

/* ---- the barrier ---- */

static bool wl_steps_have(const struct wl_step *s, int nr, enum wl_op op)
{
	for (int i = 0; i < nr; i++)
		if (s[i].op == op)
			return true;
	return false;
}

/* A member of the barrier: a barrier step before its loop ends. */
static bool wl_group_barrier(const struct wl_task *g)
{
	return wl_steps_have(g->setup, g->nr_setup, WL_OP_BARRIER) ||
	       wl_steps_have(g->loop, g->nr_loop, WL_OP_BARRIER);
}

static void wl_barrier_open_locked(struct wl_live_shared *sh)
{
	sh->bar_arrived = 0;
	sh->bar_gen++;
	pthread_cond_broadcast(&sh->cond);
}

static void wl_barrier_wait(struct wl_live_task *t)
{
	struct wl_live_shared *sh = t->sh;

	pthread_mutex_lock(&sh->lock);
	if (!t->member) {
		/* after its loop: until every member's loop has ended */
		while (sh->bar_members > 0 && !sh->stop)
			pthread_cond_wait(&sh->cond, &sh->lock);
	} else {
		unsigned int gen = sh->bar_gen;

		if (++sh->bar_arrived >= sh->bar_members)
			wl_barrier_open_locked(sh);
		else
			while (gen == sh->bar_gen && !sh->stop)
				pthread_cond_wait(&sh->cond, &sh->lock);
	}
	pthread_mutex_unlock(&sh->lock);
}

static void wl_barrier_join(struct wl_live_task *t)
{
	pthread_mutex_lock(&t->sh->lock);
	t->sh->bar_members++;
	pthread_mutex_unlock(&t->sh->lock);
	t->member = true;
}

static void wl_barrier_leave(struct wl_live_task *t)
{
	struct wl_live_shared *sh = t->sh;

	if (!t->member)
		return;
	t->member = false;
	pthread_mutex_lock(&sh->lock);
	sh->bar_members--;
	if (sh->bar_arrived && sh->bar_arrived >= sh->bar_members)
		wl_barrier_open_locked(sh);
	if (!sh->bar_members)
		pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

/* Whether a step of group @g names memory @mem. */
static bool wl_group_uses(const struct wl_task *g, int mem)
{
	const struct wl_step *l[3] = { g->setup, g->loop, g->teardown };
	int n[3] = { g->nr_setup, g->nr_loop, g->nr_teardown };

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < n[k]; i++)
			if (l[k][i].mem == mem)
				return true;
	return false;
}

/* ---- memory ---- */

static void wl_file_path(const struct wl_live_objs *o, int mem, int task, char *buf,
			 size_t len)
{
	if (task < 0)
		snprintf(buf, len, "%s/wl-%d", o->tmpdir, mem);
	else
		snprintf(buf, len, "%s/wl-%d-%d", o->tmpdir, mem, task);
}

/* The object's file descriptor in this task, or -1 (anonymous memory). */
static int wl_mem_fd(const struct wl_live_task *t, int mem)
{
	return t->objs->fd[mem] >= 0 ? t->objs->fd[mem] : t->m[mem].fd;
}

static long wl_mbind(void *addr, size_t len, int mode, const unsigned long *mask,
		     unsigned long maxnode)
{
	return syscall(SYS_mbind, addr, len, mode, mask, maxnode, 0);
}

/* mbind() and MADV_HUGEPAGE as the memory asks; 0 or -errno. */
static int wl_mem_policy(const struct wl_live_objs *o, const struct wl_memory *mem,
			 char *addr)
{
	unsigned long mask[WL_MAX_NODES / 64] = { 0 };
	int mode = 0;

	switch (mem->numa) {
	case WL_NUMA_LOCAL:
		break;
	case WL_NUMA_BIND:
	case WL_NUMA_PREFERRED:
		mode = mem->numa == WL_NUMA_BIND ? WL_MPOL_BIND : WL_MPOL_PREFERRED;
		mask[mem->node / 64] |= 1UL << (mem->node % 64);
		break;
	case WL_NUMA_INTERLEAVE:
		mode = WL_MPOL_INTERLEAVE;
		memcpy(mask, o->nodes, sizeof(mask));
		break;
	}
	if (mode && wl_mbind(addr, mem->size, mode, mask, WL_MAX_NODES))
		return -errno;
	if (mem->thp && madvise(addr, mem->size, MADV_HUGEPAGE))
		return -errno;
	return 0;
}

/*
 * Map memory @mem: anonymous memory at an address aligned to its page
 * size (an mTHP or a PMD, as deferred-split's live run does), a shmem or
 * file object at @fd.  0 or -errno.
 */
static int wl_mem_map(const struct wl_live_objs *o, const struct wl_memory *mem, int fd,
		      struct wl_live_map *m)
{
	int flags = mem->shared ? MAP_SHARED : MAP_PRIVATE;
	size_t align = mem->kind == WL_MEM_ANON && mem->page > LIVE_PAGE ? mem->page : 0;
	char *p;

	if (mem->kind == WL_MEM_ANON)
		flags |= MAP_ANONYMOUS;
	m->len = mem->size + align;
	p = mmap(NULL, m->len, PROT_READ | PROT_WRITE, flags,
		 mem->kind == WL_MEM_ANON ? -1 : fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->base = p;
	if (align)
		p = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	m->addr = p;
	return wl_mem_policy(o, mem, p);
}

static void wl_mem_unmap(struct wl_live_map *m)
{
	if (m->addr)
		munmap(m->base, m->len);
	m->addr = NULL;
}

/* ---- steps ---- */

static const char *const wl_op_names[] = {
	[WL_OP_MMAP] = "mmap", [WL_OP_MUNMAP] = "munmap", [WL_OP_FAULT] = "fault",
	[WL_OP_ACCESS] = "access", [WL_OP_MADVISE] = "madvise",
	[WL_OP_MPROTECT] = "mprotect", [WL_OP_FORK] = "fork", [WL_OP_SLEEP] = "sleep",
	[WL_OP_BARRIER] = "barrier", [WL_OP_TRUNCATE] = "truncate",
};

/* The memory a step names, mapped in this task; NULL after wl_fail(). */
static char *wl_step_addr(struct wl_live_task *t, const struct wl_step *s)
{
	char *p = t->m[s->mem].addr;

	if (!p)
		wl_fail(t, s->line, EINVAL, "%s %s: the memory is not mapped in this "
			"task (expected an mmap step before it)", wl_op_names[s->op],
			t->plan->memory[s->mem].name);
	return p;
}

/*
 * A random permutation of 0..n-1 from the task's generator (Fisher-Yates),
 * for a fault step with order=random: made once, before the loop.
 */
static uint32_t *wl_permutation(uint64_t *rng, uint64_t n)
{
	uint32_t *p = malloc((size_t)n * sizeof(*p));

	if (!p)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		p[i] = (uint32_t)i;
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = wl_rand(rng) % i;
		uint32_t x = p[i - 1];

		p[i - 1] = p[j];
		p[j] = x;
	}
	return p;
}

/* Touch addresses [lo, hi) of the step's order: one byte each. */
/*
 * Operations of a step done by the task's deadline, as a duration loop
 * counts them (the simulated executor counts each one whose end is not
 * after it; will-it-scale reads its counters at the end of each second):
 * the clock is read after every chunk of @chunk operations, and of the
 * chunk that ends past the deadline the share before it is counted, at the
 * chunk's mean rate.
 */
struct wl_counter {
	double deadline, t;		/* 0: no deadline; the last chunk's end */
	uint64_t chunk, in_chunk, done;
};

static void wl_counter_init(struct wl_counter *c, double deadline, uint64_t chunk)
{
	*c = (struct wl_counter){ .deadline = deadline, .chunk = chunk };
	if (deadline > 0)
		c->t = live_now();
}

static inline void wl_counter_tick(struct wl_counter *c)
{
	double now, share;

	if (c->deadline <= 0) {
		c->done++;
		return;
	}
	if (++c->in_chunk < c->chunk)
		return;
	if (c->t < c->deadline) {
		now = live_now();
		share = now <= c->deadline ? 1.0 : (c->deadline - c->t) / (now - c->t);
		c->done += (uint64_t)((double)c->in_chunk * share + 0.5);
		c->t = now;
	}
	c->in_chunk = 0;
}

static uint64_t wl_counter_end(struct wl_counter *c)
{
	if (c->in_chunk) {
		c->chunk = c->in_chunk;
		c->in_chunk--;
		wl_counter_tick(c);
	}
	return c->done;
}

/* One store or load per stride in the step's order; the ops by the deadline. */
static uint64_t wl_do_fault(struct wl_live_task *t, char *p, const struct wl_step *s,
			    const uint32_t *perm, uint64_t lo, uint64_t hi)
{
	volatile char *v = p;
	struct wl_counter c;

	wl_counter_init(&c, t->deadline, 16);
	for (uint64_t i = lo; i < hi; i++) {
		uint64_t k = s->order == WL_ORDER_SEQ ? i :
			     s->order == WL_ORDER_REVERSE ? s->nr - 1 - i : perm[i];

		if (s->write)
			v[k * s->stride] = 1;
		else
			(void)v[k * s->stride];
		wl_counter_tick(&c);
	}
	return wl_counter_end(&c);
}

/*
 * The slot of access @i among @slots for the step's pattern: seq in order;
 * random uniform; zipf:S by the inverse of the continuous Zipf CDF
 * (slot 0 the hottest); hot:P:F the first fraction F of the slots with
 * probability P, the rest otherwise.
 */
static uint64_t wl_access_slot(const struct wl_step *s, uint64_t *rng, uint64_t i,
			       uint64_t slots)
{
	uint64_t hot, k;
	double u;

	switch (s->pattern) {
	case WL_PAT_SEQ:
		return i % slots;
	case WL_PAT_RANDOM:
		return wl_rand(rng) % slots;
	case WL_PAT_ZIPF:
		u = wl_rand_unit(rng);
		if (fabs(s->zipf_s - 1.0) < 1e-9)
			k = (uint64_t)pow((double)slots, u);
		else
			k = (uint64_t)pow((pow((double)slots, 1.0 - s->zipf_s) - 1.0) * u + 1.0,
					  1.0 / (1.0 - s->zipf_s));
		return k >= 1 && k <= slots ? k - 1 : slots - 1;
	case WL_PAT_HOT:
		hot = (uint64_t)((double)slots * s->hot_frac);
		hot = hot < 1 ? 1 : hot > slots ? slots : hot;
		if (hot == slots || wl_rand_unit(rng) < s->hot_prob)
			return wl_rand(rng) % hot;
		return hot + wl_rand(rng) % (slots - hot);
	}
	return 0;
}

static uint64_t wl_do_access(struct wl_live_task *t, char *p, const struct wl_step *s,
			     uint64_t size)
{
	uint64_t slots = size / s->stride;
	struct wl_counter c;

	wl_counter_init(&c, t->deadline, 4096);
	for (uint64_t i = 0; i < s->nr; i++) {
		uint64_t off = wl_access_slot(s, &t->rng, i, slots) * s->stride;
		volatile uint64_t *w = (volatile uint64_t *)(p + (off & ~7ULL));

		if (s->write)
			*w = i;
		else
			(void)*w;
		wl_counter_tick(&c);
	}
	return wl_counter_end(&c);
}

/* Reap the fork children that have ended; with @all, wait for every one. */
static void wl_reap(struct wl_live_task *t, bool all)
{
	for (int i = 0; i < t->nr_kids; ) {
		int st;
		pid_t ret;

		do
			ret = waitpid(t->kids[i], &st, all ? 0 : WNOHANG);
		while (ret < 0 && errno == EINTR);
		if (ret == 0) {
			i++;
			continue;
		}
		if (ret > 0 && !(WIFEXITED(st) && !WEXITSTATUS(st)) && !t->sh->stop)
			wl_fail(t, 0, ECHILD, "a child of a fork step %s %d", WIFSIGNALED(st) ?
				"was killed by signal" : "failed with exit status",
				WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		t->kids[i] = t->kids[--t->nr_kids];
	}
}

static void wl_task_body(struct wl_live_task *t);

/* fork: the child runs group @s->task's steps in a copy of this mm. */
/* The first slot of group @g: tasks are numbered group by group. */
static int wl_group_first(const struct wl_plan *plan, int g)
{
	int n = 0;

	for (int i = 0; i < g; i++)
		n += plan->task[i].count;
	return n;
}

static int wl_task_open_files(struct wl_live_task *t);

static void *wl_forked_thread(void *arg)
{
	wl_task_body(arg);
	return NULL;
}

/*
 * In a fork step's child: tasks @c..@c+@nr-1 of group @group, in a copy
 * of @parent's mm (its mappings and objects are theirs), on threads of
 * this process when the group is as = threads.  Never returns.
 */
static void wl_forked_run(const struct wl_live_task *parent, int group, int c, int nr)
{
	struct wl_live_task *t = calloc((size_t)nr, sizeof(*t));
	pthread_t *tid = calloc((size_t)nr, sizeof(*tid));
	int first = wl_group_first(parent->plan, group);

	if (!t || !tid)
		_exit(3);
	for (int i = 0; i < nr; i++) {
		t[i] = *parent;
		t[i].g = &parent->plan->task[group];
		t[i].forked = true;
		t[i].member = false;
		t[i].kids = NULL;
		t[i].nr_kids = t[i].cap_kids = 0;
		t[i].forks = 0;
		t[i].slot = t[i].idx = first + c + i;
		t[i].rng = wl_rand_seed(parent->rng ^ parent->forks, (uint64_t)(c + i));
		memset(t[i].perm, 0, sizeof(t[i].perm));	/* the parent's stay its own */
	}
	for (int i = 0; i < nr; i++)
		if (wl_task_open_files(&t[i]))
			_exit(5);
	if (nr == 1) {
		wl_task_body(&t[0]);
	} else {
		for (int i = 0; i < nr; i++)
			if (pthread_create(&tid[i], NULL, wl_forked_thread, &t[i]))
				_exit(4);
		for (int i = 0; i < nr; i++)
			pthread_join(tid[i], NULL);
	}
	_exit(parent->sh->fail ? 5 : 0);
}

/*
 * fork TASK: start group TASK's tasks as children of this one, each in a
 * copy of this mm (dup_mmap()): a process each (as = processes), or one
 * process of the group's threads.
 */
static int wl_do_fork(struct wl_live_task *t, const struct wl_step *s)
{
	const struct wl_task *g = &t->plan->task[s->task];
	int nr_procs = g->threads ? 1 : g->count;
	pid_t parent = getpid(), pid;

	wl_reap(t, false);
	for (int c = 0; c < nr_procs; c++) {
		if (t->nr_kids == t->cap_kids) {
			int cap = t->cap_kids ? 2 * t->cap_kids : 16;
			pid_t *k = realloc(t->kids, (size_t)cap * sizeof(*k));

			if (!k) {
				wl_fail(t, s->line, ENOMEM, "fork: out of memory");
				return -ENOMEM;
			}
			t->kids = k;
			t->cap_kids = cap;
		}
		pid = fork();
		if (pid < 0) {
			wl_fail(t, s->line, errno, "fork: %s", strerror(errno));
			return -errno;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			wl_forked_run(t, s->task, g->threads ? 0 : c, g->threads ? g->count : 1);
		}
		t->kids[t->nr_kids++] = pid;
	}
	t->forks++;
	return 0;
}

/*
 * Run one step; @lo, @hi: the addresses of a fault step (start_phase).
 * Return: the operations it counts, or -1 after wl_fail().
 */
static int64_t wl_step(struct wl_live_task *t, const struct wl_step *s,
		       const uint32_t *perm, uint64_t lo, uint64_t hi)
{
	const struct wl_memory *mem = s->mem >= 0 ? &t->plan->memory[s->mem] : NULL;
	struct wl_live_map *m = s->mem >= 0 ? &t->m[s->mem] : NULL;
	struct timespec ts;
	uint64_t off, len;
	int64_t n = 1;
	char *p;
	int ret;

	switch (s->op) {
	case WL_OP_MMAP:
		if (m->addr) {
			wl_fail(t, s->line, EEXIST, "mmap %s: already mapped in this task "
				"(expected a munmap step before mapping it again)", mem->name);
			return -1;
		}
		ret = wl_mem_map(t->objs, mem, wl_mem_fd(t, s->mem), m);
		if (ret) {
			wl_fail(t, s->line, -ret, "mmap %s (%llu bytes): %s", mem->name,
				(unsigned long long)mem->size, strerror(-ret));
			return -1;
		}
		break;
	case WL_OP_MUNMAP:
		if (!wl_step_addr(t, s))
			return -1;
		wl_mem_unmap(m);
		break;
	case WL_OP_FAULT:
		p = wl_step_addr(t, s);
		if (!p)
			return -1;
		n = (int64_t)wl_do_fault(t, p, s, perm, lo, hi);
		break;
	case WL_OP_ACCESS:
		p = wl_step_addr(t, s);
		if (!p)
			return -1;
		n = (int64_t)wl_do_access(t, p, s, mem->size);
		break;
	case WL_OP_MADVISE:
		p = wl_step_addr(t, s);
		if (!p)
			return -1;
		off = s->offset;
		len = s->len ? s->len : mem->size - off;
		if (madvise(p + off, len, s->advice)) {
			wl_fail(t, s->line, errno, "madvise %s advice %d: %s", mem->name,
				s->advice, strerror(errno));
			return -1;
		}
		break;
	case WL_OP_MPROTECT:
		p = wl_step_addr(t, s);
		if (!p)
			return -1;
		if (mprotect(p, mem->size, (int)s->prot)) {
			wl_fail(t, s->line, errno, "mprotect %s: %s", mem->name, strerror(errno));
			return -1;
		}
		break;
	case WL_OP_FORK:
		if (wl_do_fork(t, s))
			return -1;
		break;
	case WL_OP_SLEEP:
		ts.tv_sec = (time_t)(s->time_ns / 1000000000ULL);
		ts.tv_nsec = (long)(s->time_ns % 1000000000ULL);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		n = 0;
		break;
	case WL_OP_BARRIER:
		wl_barrier_wait(t);
		n = 0;
		break;
	case WL_OP_TRUNCATE:
		if (wl_mem_fd(t, s->mem) < 0 ||
		    ftruncate(wl_mem_fd(t, s->mem), (off_t)s->size)) {
			wl_fail(t, s->line, errno ? errno : EINVAL, "truncate %s: %s", mem->name,
				wl_mem_fd(t, s->mem) < 0 ? "not a shmem or file memory" :
				strerror(errno));
			return -1;
		}
		break;
	}
	if (!s->counted)
		return 0;
	/* a step of one operation counts when it ended by the deadline */
	if (t->deadline > 0 && s->op != WL_OP_FAULT && s->op != WL_OP_ACCESS && n &&
	    live_now() > t->deadline)
		return 0;
	return n;
}

enum { WL_LIST_SETUP, WL_LIST_LOOP, WL_LIST_TEARDOWN };

/*
 * Run list @list of the task's group once, adding its counted operations
 * to @ops; fault step @phase_step runs addresses [@lo, @hi) of its order
 * only (start_phase=random), -1: none.  0, or -1 after a failure.
 */
static int wl_run_list(struct wl_live_task *t, int list, int phase_step, uint64_t lo,
		       uint64_t hi, uint64_t *ops)
{
	const struct wl_task *g = t->g;
	const struct wl_step *s = list == WL_LIST_SETUP ? g->setup :
				  list == WL_LIST_LOOP ? g->loop : g->teardown;
	int nr = list == WL_LIST_SETUP ? g->nr_setup :
		 list == WL_LIST_LOOP ? g->nr_loop : g->nr_teardown;

	for (int i = 0; i < nr; i++) {
		bool phased = i == phase_step;
		int64_t n = wl_step(t, &s[i], t->perm[list][i], phased ? lo : 0,
				    phased && hi < s[i].nr ? hi : s[i].nr);

		if (n < 0)
			return -1;
		*ops += (uint64_t)n;
	}
	return 0;
}

/* RssAnon, RssFile, RssShmem of this process (kB), from /proc/self/status. */
static void wl_read_rss(struct wl_live_slot *sl)
{
	char buf[4096], *p;
	ssize_t n = live_read_file("/proc/self/status", buf, sizeof(buf));

	if (n <= 0)
		return;
	if ((p = strstr(buf, "RssAnon:")))
		sl->rss_anon_kb = strtoull(p + 8, NULL, 10);
	if ((p = strstr(buf, "RssFile:")))
		sl->rss_file_kb = strtoull(p + 8, NULL, 10);
	if ((p = strstr(buf, "RssShmem:")))
		sl->rss_shmem_kb = strtoull(p + 9, NULL, 10);
}

/* Mappings of this mm: lines of /proc/self/maps (tests only). */
static int wl_count_vmas(void)
{
	char buf[8192];
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t r;

	if (fd < 0)
		return 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	close(fd);
	return n;
}

/*
 * One task from its start to its end: CPU, start delay, setup, the timed
 * loop, teardown, then its fork children.  Results into its slot (a task
 * started by a fork step adds its operations to the forking task's).
 */
static void wl_task_body(struct wl_live_task *t)
{
	const struct wl_task *g = t->g;
	struct wl_live_shared *sh = t->sh;
	struct wl_live_slot *sl = &sh->slot[t->slot];
	const struct wl_step *lists[3] = { g->setup, g->loop, g->teardown };
	int nr[3] = { g->nr_setup, g->nr_loop, g->nr_teardown };
	int phase_step = -1, vmas = 0;
	uint64_t k = 0, ops = 0, setup_ops = 0, it, loop_ns;
	struct rusage ru0, ru1;
	double t0, t1, deadline;

	if (t->objs->nr_cpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(g->cpu >= 0 ? g->cpu : t->objs->cpus[t->idx % t->objs->nr_cpus], &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			wl_fail(t, 0, errno, "task %s: sched_setaffinity: %s", g->name,
				strerror(errno));
			goto out_leave;
		}
	}
	if (t->forked && wl_group_barrier(g))
		wl_barrier_join(t);
	/* per = task shmem: a memfd each (tmpfs, gone with its last user) */
	for (int i = 0; i < t->plan->nr_memory; i++) {
		const struct wl_memory *mem = &t->plan->memory[i];

		if (mem->kind != WL_MEM_SHMEM || mem->per_workload || t->m[i].fd >= 0 ||
		    !wl_group_uses(g, i))
			continue;
		t->m[i].fd = memfd_create(mem->name, MFD_CLOEXEC);
		/* cached = yes: its pages allocated before the run (shmem_fallocate()) */
		if (t->m[i].fd < 0 || ftruncate(t->m[i].fd, (off_t)mem->size) ||
		    (mem->cached && fallocate(t->m[i].fd, 0, 0, (off_t)mem->size))) {
			wl_fail(t, 0, errno, "memory %s: memfd_create: %s", mem->name,
				strerror(errno));
			goto out_leave;
		}
	}
	for (int l = 0; l < 3; l++)
		for (int i = 0; i < nr[l]; i++) {
			const struct wl_step *s = &lists[l][i];

			if (l == WL_LIST_LOOP && s->op == WL_OP_FAULT && phase_step < 0)
				phase_step = i;
			if (s->op != WL_OP_FAULT || s->order != WL_ORDER_RANDOM)
				continue;
			t->perm[l][i] = wl_permutation(&t->rng, s->nr);
			if (!t->perm[l][i]) {
				wl_fail(t, s->line, ENOMEM, "fault order=random: out of memory");
				goto out_leave;
			}
		}
	if (g->start_random_phase && phase_step >= 0 && g->loop[phase_step].nr)
		k = wl_rand(&t->rng) % g->loop[phase_step].nr;
	if (g->start_delay_ns) {
		uint64_t ns = wl_rand(&t->rng) % g->start_delay_ns;
		struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	/* only the loop's operations are the workload's: it alone is timed */
	if (wl_run_list(t, WL_LIST_SETUP, -1, 0, 0, &setup_ops))
		goto out_leave;

	if (t->objs->probe)
		vmas = wl_count_vmas();
	getrusage(RUSAGE_THREAD, &ru0);
	t0 = live_now();
	deadline = t0 + (double)g->duration_ns * 1e-9;
	t->deadline = g->duration_ns ? deadline : 0;
	for (it = 0; !sh->stop; it++) {
		if (g->repeat ? it >= g->repeat : live_now() >= deadline)
			break;
		if (wl_run_list(t, WL_LIST_LOOP, it == 0 ? phase_step : -1, k, ~0ULL, &ops))
			goto out_leave;
	}
	/* start_phase=random: addresses 0..k-1 of the first iteration's step */
	if (k && !sh->stop && wl_run_list(t, WL_LIST_LOOP, phase_step, 0, k, &ops))
		goto out_leave;
	t->deadline = 0;
	t1 = live_now();
	getrusage(RUSAGE_THREAD, &ru1);
	wl_barrier_leave(t);
	loop_ns = (uint64_t)((t1 - t0) * 1e9);
	__atomic_fetch_add(&sl->runs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sl->ops, ops, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sl->loop_ns, loop_ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sl->minflt, (uint64_t)(ru1.ru_minflt - ru0.ru_minflt),
			   __ATOMIC_RELAXED);
	__atomic_fetch_add(&sl->majflt, (uint64_t)(ru1.ru_majflt - ru0.ru_majflt),
			   __ATOMIC_RELAXED);
	for (uint64_t old = __atomic_load_n(&sl->max_loop_ns, __ATOMIC_RELAXED);
	     loop_ns > old && !__atomic_compare_exchange_n(&sl->max_loop_ns, &old, loop_ns,
							   false, __ATOMIC_RELAXED,
							   __ATOMIC_RELAXED); )
		;
	/* the last run's, for the tests */
	sl->pid = getpid();
	sl->tid = (pid_t)syscall(SYS_gettid);
	wl_read_rss(sl);
	if (t->objs->probe)
		sl->vmas_delta = wl_count_vmas() - vmas;
	wl_run_list(t, WL_LIST_TEARDOWN, -1, 0, 0, &setup_ops);
	wl_reap(t, true);
	__atomic_fetch_add(&sl->forks, t->forks, __ATOMIC_RELAXED);
	goto out_free;

out_leave:
	wl_barrier_leave(t);
	wl_reap(t, true);
out_free:
	for (int l = 0; l < 3; l++)
		for (int i = 0; i < WL_MAX_STEPS; i++)
			free(t->perm[l][i]);
	free(t->kids);
}

/* ---- processes and threads ---- */

/* What each spawned process is told: its group and its first task. */
struct wl_live_proc {
	const struct wl_plan *plan;
	struct wl_live_shared *sh;
	const struct wl_live_objs *objs;
	uint64_t seed;
	int group;
	int first;			/* index of its first task among all */
	int slot;			/* its first task's slot */
};

static void wl_task_init(struct wl_live_task *t, const struct wl_live_proc *pr, int i)
{
	memset(t, 0, sizeof(*t));
	t->plan = pr->plan;
	t->g = &pr->plan->task[pr->group];
	t->sh = pr->sh;
	t->objs = pr->objs;
	t->slot = pr->slot + i;
	t->idx = pr->first + i;
	t->rng = wl_rand_seed(pr->seed, (uint64_t)t->idx);
	for (int m = 0; m < WL_MAX_MEMORY; m++) {
		t->m[m].fd = -1;
		if (pr->objs->addr[m]) {	/* per = workload anon: mapped already */
			t->m[m].addr = pr->objs->addr[m];
			t->m[m].base = pr->objs->base[m];
			t->m[m].len = pr->objs->len[m];
		}
	}
	t->member = wl_group_barrier(t->g);	/* counted in bar_members already */
}

/* Open the group's own files (per = task, kind = file), made by mmsim. */
static int wl_task_open_files(struct wl_live_task *t)
{
	for (int i = 0; i < t->plan->nr_memory; i++) {
		const struct wl_memory *mem = &t->plan->memory[i];
		char path[128];

		if (mem->kind != WL_MEM_FILE || mem->per_workload || t->m[i].fd >= 0 ||
		    !wl_group_uses(t->g, i))
			continue;
		wl_file_path(t->objs, i, t->idx, path, sizeof(path));
		t->m[i].fd = open(path, O_RDWR | O_CLOEXEC);
		if (t->m[i].fd < 0) {
			wl_fail(t, 0, errno, "memory %s: %s: %s", mem->name, path,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void *wl_thread_fn(void *arg)
{
	struct wl_live_task *t = arg;

	if (!wl_task_open_files(t))
		wl_task_body(t);
	else
		wl_barrier_leave(t);
	return NULL;
}

/* One spawned process: one task (as = processes) or the group's threads. */
static void wl_process(struct live_run *r, void *arg, int idx)
{
	struct wl_live_proc *pr = arg;
	const struct wl_task *g = &pr->plan->task[pr->group];
	int nr = g->threads ? g->count : 1;
	struct wl_live_task *t = calloc((size_t)nr, sizeof(*t));
	pthread_t *tid = calloc((size_t)nr, sizeof(*tid));

	(void)r;
	if (!t || !tid)
		_exit(3);
	if (!g->threads) {
		struct wl_live_proc me = *pr;

		me.first += idx;
		me.slot += idx;
		wl_task_init(&t[0], &me, 0);
		wl_thread_fn(&t[0]);
		_exit(pr->sh->fail ? 5 : 0);
	}
	for (int i = 0; i < nr; i++) {
		wl_task_init(&t[i], pr, i);
		if (pthread_create(&tid[i], NULL, wl_thread_fn, &t[i]))
			_exit(4);
	}
	for (int i = 0; i < nr; i++)
		pthread_join(tid[i], NULL);
	_exit(pr->sh->fail ? 5 : 0);
}

/* ---- the plan, checked and sized ---- */

/* Processes that live_spawn() starts, and tasks with a slot. */
static void wl_plan_counts(const struct wl_plan *plan, int *nr_procs, int *nr_slots)
{
	*nr_procs = *nr_slots = 0;
	for (int i = 0; i < plan->nr_task; i++) {
		const struct wl_task *g = &plan->task[i];

		*nr_slots += g->count;
		if (!g->forked)
			*nr_procs += g->threads ? 1 : g->count;
	}
}

/**
 * wl_live_memory_plan - the most memory a live run of @plan maps
 * @plan: the resolved plan
 *
 * Each memory's size once (per = workload) or once per task of each group
 * that names it (forked groups counted once per task of their group too),
 * with its alignment.
 *
 * Context: any.
 * Return: bytes.
 */
uint64_t wl_live_memory_plan(const struct wl_plan *plan)
{
	uint64_t total = 0;

	for (int m = 0; m < plan->nr_memory; m++) {
		const struct wl_memory *mem = &plan->memory[m];
		uint64_t one = mem->size + (mem->page > LIVE_PAGE ? mem->page : 0);

		if (mem->per_workload) {
			total += one;
			continue;
		}
		for (int i = 0; i < plan->nr_task; i++)
			if (wl_group_uses(&plan->task[i], m))
				total += one * (uint64_t)plan->task[i].count;
	}
	return total;
}

static bool wl_path_exists(const char *abs)
{
	char path[512];

	return !live_sys_path(path, sizeof(path), abs) && !access(path, F_OK);
}

/**
 * wl_live_check_plan - what this machine must have to run @plan live
 * @plan: the resolved plan
 * @err: one line naming what is missing, and what was expected
 * @len: its size
 *
 * Context: any; changes nothing.
 * Return: 0, or -errno.
 */
int wl_live_check_plan(const struct wl_plan *plan, char *err, size_t len)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	bool files = false;
	int nr_procs, nr_slots;
	struct statfs fs;

	wl_plan_counts(plan, &nr_procs, &nr_slots);
	if (nr_procs > LIVE_MAX_CHILDREN || plan->nr_tasks > WL_LIVE_MAX_TASKS ||
	    nr_slots > WL_LIVE_MAX_TASKS) {
		snprintf(err, len, "live runs start at most %d processes and %d tasks: "
			 "this plan has %d processes and %d tasks; lower its task count "
			 "with --set (or use as = threads)", LIVE_MAX_CHILDREN,
			 WL_LIVE_MAX_TASKS, nr_procs, plan->nr_tasks);
		return -E2BIG;
	}
	for (int i = 0; i < plan->nr_task; i++) {
		const struct wl_task *g = &plan->task[i];

		if (g->cpu >= online) {
			snprintf(err, len, "task %s: cpu = %d, and this machine has %ld "
				 "online CPUs: expected 0 to %ld, or spread", g->name, g->cpu,
				 online, online - 1);
			return -EINVAL;
		}
	}
	for (int m = 0; m < plan->nr_memory; m++) {
		const struct wl_memory *mem = &plan->memory[m];
		char abs[128];

		if (mem->numa == WL_NUMA_BIND || mem->numa == WL_NUMA_PREFERRED) {
			snprintf(abs, sizeof(abs), "/sys/devices/system/node/node%d", mem->node);
			if (mem->node < 0 || mem->node >= WL_MAX_NODES || !wl_path_exists(abs)) {
				snprintf(err, len, "memory %s: numa = %s:%d, and this machine "
					 "has no NUMA node %d (no %s): expected a node it has",
					 mem->name, mem->numa == WL_NUMA_BIND ? "bind" : "preferred",
					 mem->node, mem->node, abs);
				return -ENOENT;
			}
		}
		if (mem->kind == WL_MEM_ANON && mem->page > LIVE_PAGE && !mem->thp) {
			snprintf(abs, sizeof(abs), "%s/hugepages-%llukB/enabled", LIVE_THP_DIR,
				 (unsigned long long)(mem->page >> 10));
			if (!wl_path_exists(abs)) {
				snprintf(err, len, "memory %s: page = %lluK, and this kernel has "
					 "no such mTHP size (no %s): it needs Linux 6.8 or later "
					 "with CONFIG_TRANSPARENT_HUGEPAGE", mem->name,
					 (unsigned long long)(mem->page >> 10), abs);
				return -ENOENT;
			}
		}
		if (mem->thp && !wl_path_exists(LIVE_THP_DIR)) {
			snprintf(err, len, "memory %s: page = thp, and this kernel has no %s "
				 "(CONFIG_TRANSPARENT_HUGEPAGE=n)", mem->name, LIVE_THP_DIR);
			return -ENOENT;
		}
		if (mem->kind == WL_MEM_FILE)
			files = true;
		if (mem->per_workload && mem->kind == WL_MEM_ANON)
			for (int i = 0; i < plan->nr_task; i++) {
				const struct wl_task *g = &plan->task[i];
				const struct wl_step *l[3] = { g->setup, g->loop, g->teardown };
				int n[3] = { g->nr_setup, g->nr_loop, g->nr_teardown };

				for (int k = 0; k < 3; k++)
					for (int s = 0; s < n[k]; s++)
						if (l[k][s].mem == m && (l[k][s].op == WL_OP_MMAP ||
									 l[k][s].op == WL_OP_MUNMAP)) {
							snprintf(err, len, "line %d: %s %s: memory %s is "
								 "anonymous and per = workload, which "
								 "a live run maps once before the "
								 "tasks start: expected no mmap or "
								 "munmap step on it (or per = task)",
								 l[k][s].line, wl_op_names[l[k][s].op],
								 mem->name, mem->name);
							return -EINVAL;
						}
			}
	}
	if (files) {
		struct stat st;

		if (stat("/tmp", &st) || !S_ISDIR(st.st_mode)) {
			snprintf(err, len, "kind = file memory is made in /tmp, which this "
				 "machine does not have: expected a directory /tmp on a disk");
			return -ENOENT;
		}
		if (!statfs("/tmp", &fs) && (unsigned long)fs.f_type == WL_TMPFS_MAGIC) {
			snprintf(err, len, "kind = file memory is made in /tmp, which is a "
				 "tmpfs here (its pages would be shmem, not a disk file's page "
				 "cache): expected /tmp on a disk file system");
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * wl_live_want_plan - the THP settings @plan runs with (written by --apply)
 * @plan: the resolved plan
 * @st: the settings read; wants are marked
 *
 * The top-level "enabled" is the plan's thp; every mTHP size "never" but
 * the plan's one ("always") and the PMD size ("inherit": it follows
 * "enabled", for page = thp), as deferred-split's live run does.
 *
 * Context: any.
 */
void wl_live_want_plan(const struct wl_plan *plan, struct live_settings *st)
{
	static const char *const thp[] = {
		[WL_THP_MADVISE] = "madvise", [WL_THP_ALWAYS] = "always",
		[WL_THP_NEVER] = "never",
	};
	char rel[80];

	live_settings_want(st, "enabled", thp[plan->thp]);
	for (int i = 0; i < st->nr; i++)
		if (!strncmp(st->s[i].rel, "hugepages-", 10))
			snprintf(st->s[i].want, sizeof(st->s[i].want), "%s",
				 strtoull(st->s[i].rel + 10, NULL, 10) << 10 == LIVE_PMD_SIZE ?
				 "inherit" : "never");
	if (plan->mthp_order > 0) {
		snprintf(rel, sizeof(rel), "hugepages-%lukB/enabled",
			 (LIVE_PAGE << plan->mthp_order) >> 10);
		live_settings_want(st, rel, "always");
	}
}

/* ---- the run ---- */

/* Nodes with memory, from /sys/devices/system/node/has_memory ("0-1,3"). */
static void wl_read_nodes(struct wl_live_objs *o)
{
	char buf[512], path[512];
	char *p = buf;

	o->nodes[0] = 1;
	if (live_sys_path(path, sizeof(path), "/sys/devices/system/node/has_memory") ||
	    live_read_file(path, buf, sizeof(buf)) <= 0)
		return;
	o->nodes[0] = 0;
	while (*p >= '0' && *p <= '9') {
		unsigned long a = strtoul(p, &p, 10), b = a;

		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		for (unsigned long n = a; n <= b && n < WL_MAX_NODES; n++)
			o->nodes[n / 64] |= 1UL << (n % 64);
		if (*p == ',')
			p++;
	}
	if (!o->nodes[0] && !o->nodes[1])
		o->nodes[0] = 1;
}

/*
 * A sparse file (sparse = yes): ftruncate() only, no block; cached, read
 * through once, so that the page cache holds its holes' zeroed folios.
 */
static int wl_sparse_file(int fd, uint64_t size, bool cached)
{
	static char buf[1 << 16];

	if (ftruncate(fd, (off_t)size))
		return -errno;
	for (uint64_t done = 0; cached && done < size; ) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (uint64_t)n;
	}
	return 0;
}

/* Write @size bytes to @fd: the file's pages in the page cache, on disk. */
static int wl_fill_file(int fd, uint64_t size, bool cached)
{
	static char zero[1 << 16];

	for (uint64_t done = 0; done < size; ) {
		size_t n = size - done < sizeof(zero) ? (size_t)(size - done) : sizeof(zero);
		ssize_t w = write(fd, zero, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (uint64_t)w;
	}
	if (fdatasync(fd))
		return -errno;
	if (!cached)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

static int wl_make_file(struct live_run *r, const struct wl_live_objs *o,
			const struct wl_memory *mem, int m, int task, int *fdp)
{
	char path[128];
	int fd, ret;

	wl_file_path(o, m, task, path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(r->err, sizeof(r->err), "memory %s: %s: %s", mem->name, path,
			 strerror(errno));
		return -1;
	}
	ret = mem->sparse ? wl_sparse_file(fd, mem->size, mem->cached) :
			    wl_fill_file(fd, mem->size, mem->cached);
	if (ret) {
		snprintf(r->err, sizeof(r->err), "memory %s: writing %s: %s", mem->name,
			 path, strerror(-ret));
		close(fd);
		return -1;
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return 0;
}

/* Undo wl_make_objs(): close, unmap, remove the files and the directory. */
static void wl_free_objs(const struct wl_plan *plan, struct wl_live_objs *o, int nr_slots)
{
	for (int m = 0; m < WL_MAX_MEMORY; m++) {
		if (o->fd[m] >= 0)
			close(o->fd[m]);
		o->fd[m] = -1;
		if (o->addr[m])
			munmap(o->base[m], o->len[m]);
		o->addr[m] = NULL;
	}
	if (!o->tmpdir[0])
		return;
	for (int m = 0; m < plan->nr_memory; m++) {
		char path[128];

		if (plan->memory[m].kind != WL_MEM_FILE)
			continue;
		wl_file_path(o, m, -1, path, sizeof(path));
		unlink(path);
		for (int t = 0; t < nr_slots; t++) {
			wl_file_path(o, m, t, path, sizeof(path));
			unlink(path);
		}
	}
	rmdir(o->tmpdir);
	live_state_note_tmpdir(LIVE_STATE_TMPDIR_WORKLOAD, NULL);
	o->tmpdir[0] = '\0';
}

/*
 * Before the tasks start: the directory of the run's files (noted in the
 * state file first, so that a killed run's are removed by the next), the
 * files, per = workload objects, the CPUs and nodes.  0, or -1 with r->err.
 */
static int wl_make_objs(struct live_run *r, const struct wl_plan *plan,
			struct wl_live_objs *o, int nr_slots)
{
	cpu_set_t set;
	bool files = false;

	for (int m = 0; m < WL_MAX_MEMORY; m++)
		o->fd[m] = -1;
	if (!sched_getaffinity(0, sizeof(set), &set))
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				o->cpus[o->nr_cpus++] = c;
	wl_read_nodes(o);
	for (int m = 0; m < plan->nr_memory; m++)
		files |= plan->memory[m].kind == WL_MEM_FILE;
	if (files) {
		snprintf(o->tmpdir, sizeof(o->tmpdir), "/tmp/mmsim-live-wl-XXXXXX");
		if (!mkdtemp(o->tmpdir)) {
			snprintf(r->err, sizeof(r->err), "mkdtemp %s: %s", o->tmpdir,
				 strerror(errno));
			o->tmpdir[0] = '\0';
			return -1;
		}
		live_state_note_tmpdir(LIVE_STATE_TMPDIR_WORKLOAD, o->tmpdir);
	}
	for (int m = 0; m < plan->nr_memory; m++) {
		const struct wl_memory *mem = &plan->memory[m];
		struct wl_live_map map = { .fd = -1 };
		int ret;

		if (mem->kind == WL_MEM_FILE && !mem->per_workload) {
			int t = 0;

			for (int g = 0; g < plan->nr_task; g++)
				for (int i = 0; i < plan->task[g].count; i++, t++)
					if (wl_group_uses(&plan->task[g], m) &&
					    wl_make_file(r, o, mem, m, t, NULL))
						return -1;
			continue;
		}
		if (!mem->per_workload)
			continue;
		if (mem->kind == WL_MEM_FILE && wl_make_file(r, o, mem, m, -1, &o->fd[m]))
			return -1;
		if (mem->kind == WL_MEM_SHMEM) {
			o->fd[m] = memfd_create(mem->name, MFD_CLOEXEC);
			if (o->fd[m] < 0 || ftruncate(o->fd[m], (off_t)mem->size) ||
			    (mem->cached && fallocate(o->fd[m], 0, 0, (off_t)mem->size))) {
				snprintf(r->err, sizeof(r->err), "memory %s: memfd_create: %s",
					 mem->name, strerror(errno));
				return -1;
			}
		}
		if (mem->kind != WL_MEM_ANON)
			continue;
		ret = wl_mem_map(o, mem, -1, &map);
		if (ret) {
			snprintf(r->err, sizeof(r->err), "memory %s: mmap of %llu bytes: %s",
				 mem->name, (unsigned long long)mem->size, strerror(-ret));
			if (map.addr)
				munmap(map.base, map.len);
			return -1;
		}
		o->addr[m] = map.addr;
		o->base[m] = map.base;
		o->len[m] = map.len;
	}
	return 0;
}

static struct wl_live_shared *wl_shared_map(struct live_run *r, int nr_slots, size_t *len)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	struct wl_live_shared *sh;

	*len = sizeof(*sh) + (size_t)nr_slots * sizeof(sh->slot[0]);
	sh = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(r->err, sizeof(r->err), "mmap: %s", strerror(errno));
		return NULL;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&sh->cond, &ca);
	pthread_condattr_destroy(&ca);
	return sh;
}

/* A metric, where the scenario has it (a hand-built test scenario may not). */
static void wl_metric(struct live_run *r, const char *key, double v)
{
	if (sim_scenario_metric_index(r->cfg->scenario, key) >= 0)
		live_set_metric(r, key, v);
}

/*
 * The run's metrics from the slots, as the simulated executor computes
 * them (docs/workloads.md): a task's rate is its operations over its
 * loop's time, a duration loop's over the duration (an iteration that
 * runs past it is not cut short: with iterations as long as the duration
 * the rate is overstated, on both sides alike); ops_per_task_s the mean of
 * the rates of the tasks whose loop counts (not a parent that only forks),
 * ops_per_s their sum (x op_bytes: throughput_bytes_s), runtime_s the
 * longest loop of those tasks.
 */
static void wl_metrics(struct live_run *r, const struct wl_plan *plan,
		       const struct wl_live_shared *sh, int nr_slots, struct wl_live_stats *stats)
{
	double rate_sum = 0, runtime = 0;
	uint64_t ops = 0;
	int nr_ran = 0, g = 0, g_end = plan->nr_task ? plan->task[0].count : 0;

	for (int s = 0; s < nr_slots; s++) {
		const struct wl_live_slot *sl = &sh->slot[s];
		bool counts = false;
		double loop = (double)sl->loop_ns * 1e-9;
		double secs;
		double longest = (double)sl->max_loop_ns * 1e-9;

		if (stats && s < WL_LIVE_MAX_TASKS)
			stats->task[s] = (struct wl_live_task_stats){
				.pid = sl->pid, .tid = sl->tid, .runs = sl->runs,
				.ops = sl->ops, .loop_s = loop, .minflt = sl->minflt,
				.majflt = sl->majflt, .forks = sl->forks,
				.rss_anon_kb = sl->rss_anon_kb,
				.rss_file_kb = sl->rss_file_kb,
				.rss_shmem_kb = sl->rss_shmem_kb,
				.vmas_delta = sl->vmas_delta,
			};
		while (s >= g_end && g + 1 < plan->nr_task)
			g_end += plan->task[++g].count;
		for (int i = 0; i < plan->task[g].nr_loop; i++)
			counts |= plan->task[g].loop[i].counted;
		ops += sl->ops;
		/* the mean is over tasks whose loop counts, of those that ran */
		if (!sl->runs || !counts)
			continue;
		runtime = longest > runtime ? longest : runtime;
		nr_ran++;
		/* a forked task's runs: the duration each time */
		secs = plan->task[g].duration_ns ?
		       (double)plan->task[g].duration_ns * 1e-9 * (double)sl->runs : loop;
		rate_sum += secs > 0 ? (double)sl->ops / secs : 0;
	}
	if (stats)
		stats->nr_tasks = nr_slots;
	wl_metric(r, "ops", (double)ops);
	wl_metric(r, "runtime_s", runtime);
	if (nr_ran)
		wl_metric(r, "ops_per_task_s", rate_sum / nr_ran);
	wl_metric(r, "ops_per_s", rate_sum);
	if (plan->op_bytes)
		wl_metric(r, "throughput_bytes_s", rate_sum * (double)plan->op_bytes);
}

/**
 * wl_live_run_plan - run a resolved plan on this kernel
 * @r: the run (live mode's harness: start pipe, children, result)
 * @plan: the plan, resolved at this machine's online CPUs
 * @stats: what each task did (for the tests), or NULL
 *
 * Every process, file, memfd and mapping it makes is gone when it returns,
 * on every way out (a signal, a dead task, an error).
 *
 * Context: live mode's parent; forks; sleeps until the tasks end.
 * Return: how the run ended (struct live_stop), with @r->err on failure.
 */
enum live_stop wl_live_run_plan(struct live_run *r, const struct wl_plan *plan,
				struct wl_live_stats *stats)
{
	static struct wl_live_objs objs;
	struct wl_live_proc proc[WL_MAX_TASKS];
	struct wl_live_shared *sh;
	int nr_procs, nr_slots, slot = 0, first = 0;
	enum live_stop stop = LIVE_STOP_ERROR;
	size_t sh_len;

	memset(&objs, 0, sizeof(objs));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	wl_plan_counts(plan, &nr_procs, &nr_slots);
	if (wl_live_check_plan(plan, r->err, sizeof(r->err)))
		return LIVE_STOP_ERROR;
	sh = wl_shared_map(r, nr_slots, &sh_len);
	if (!sh)
		return LIVE_STOP_ERROR;
	for (int g = 0; g < plan->nr_task; g++)
		if (!plan->task[g].forked && wl_group_barrier(&plan->task[g]))
			sh->bar_members += plan->task[g].count;
	objs.probe = stats != NULL;
	if (wl_make_objs(r, plan, &objs, nr_slots))
		goto out_objs;
	if (stats)
		snprintf(stats->tmpdir, sizeof(stats->tmpdir), "%s", objs.tmpdir);
	if (live_open_start_pipe(r))
		goto out_objs;
	for (int g = 0; g < plan->nr_task; g++) {
		const struct wl_task *grp = &plan->task[g];

		proc[g] = (struct wl_live_proc){ .plan = plan, .sh = sh, .objs = &objs,
			.seed = r->cfg->seed, .group = g, .first = first, .slot = slot };
		first += grp->count;
		slot += grp->count;
		if (grp->forked)
			continue;
		for (int i = 0; i < (grp->threads ? 1 : grp->count); i++) {
			char name[16];

			snprintf(name, sizeof(name), "%.10s%d", grp->name, i % 100);
			if (live_spawn(r, name, wl_process, &proc[g], i) < 0)
				goto out_kill;
		}
	}
	live_start(r);
	stop = live_wait_all(r, NULL, NULL);
	if (stop == LIVE_STOP_CHILD_DIED && sh->fail)
		snprintf(r->err, sizeof(r->err), "%s", sh->fail_what);
	if (stop == LIVE_STOP_NONE)
		wl_metrics(r, plan, sh, nr_slots, stats);
out_kill:
	live_kill_all(&r->kids);
	live_close_start_pipe(r);
out_objs:
	wl_free_objs(plan, &objs, nr_slots);
	munmap(sh, sh_len);
	return stop;
}

/* ---- live_ops ---- */

static int wl_live_plan(const struct sim_run_config *cfg, struct wl_plan *plan, char *err,
			size_t len)
{
	const struct workload *w = workload_of(cfg->scenario);
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (!w) {
		snprintf(err, len, "scenario %s is not a workload file", cfg->scenario->name);
		return -EINVAL;
	}
	return workload_resolve(w, cfg, online > 0 ? (int)online : 1, plan, err, len) ?
	       -EINVAL : 0;
}

static uint64_t wl_live_memory(const struct sim_run_config *cfg)
{
	static struct wl_plan plan;
	char err[256];

	return wl_live_plan(cfg, &plan, err, sizeof(err)) ? 0 : wl_live_memory_plan(&plan);
}

static int wl_live_check(const struct sim_run_config *cfg, bool apply, char *err,
			 size_t errlen)
{
	static struct wl_plan plan;
	int ret = wl_live_plan(cfg, &plan, err, errlen);

	(void)apply;
	return ret ? ret : wl_live_check_plan(&plan, err, errlen);
}

static int wl_live_want(const struct sim_run_config *cfg, struct live_settings *st)
{
	static struct wl_plan plan;
	char err[256];

	if (wl_live_plan(cfg, &plan, err, sizeof(err)))
		return -EINVAL;
	wl_live_want_plan(&plan, st);
	return 0;
}

static enum live_stop wl_live_run(struct live_run *r)
{
	static struct wl_plan plan;

	if (wl_live_plan(r->cfg, &plan, r->err, sizeof(r->err)))
		return LIVE_STOP_ERROR;
	return wl_live_run_plan(r, &plan, NULL);
}

const struct live_ops workload_live = {
	.summary = "a workload file's tasks, memory and steps, with real system calls",
	.record_locks = true,
	.memory_bytes = wl_live_memory,
	.check = wl_live_check,
	.want_settings = wl_live_want,
	.run = wl_live_run,
};

