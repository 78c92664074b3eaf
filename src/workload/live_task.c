// SPDX-License-Identifier: GPL-2.0-only
/*
 * One task of a workload file on the running kernel (src/workload/live.c
 * has the run and the overview): its failures, the workload's barrier,
 * its memory, each step as the system call the model's path mirrors, its
 * timed loop, and the processes and threads the run spawns.
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

#include "workload/live_task.h"
#include "workload/wl_rand.h"

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
bool wl_group_barrier(const struct wl_task *g)
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
bool wl_group_uses(const struct wl_task *g, int mem)
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

void wl_file_path(const struct wl_live_objs *o, int mem, int task, char *buf,
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
int wl_mem_map(const struct wl_live_objs *o, const struct wl_memory *mem, int fd,
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

const char *const wl_op_names[] = {
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

/* @m operations done at once, no more than the chunk holds: as @m ticks. */
static inline void wl_counter_add(struct wl_counter *c, uint64_t m)
{
	if (c->deadline <= 0) {
		c->done += m;
		return;
	}
	c->in_chunk += m - 1;		/* the tick counts the last */
	wl_counter_tick(c);
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
static uint64_t wl_access_slot(const struct wl_step *s, uint64_t *rng, uint64_t k,
			       uint64_t slots)
{
	uint64_t hot, n;
	double u;

	switch (s->pattern) {
	case WL_PAT_SEQ:
		return k;
	case WL_PAT_RANDOM:
		return wl_below(wl_rand(rng), slots);
	case WL_PAT_ZIPF:
		u = wl_rand_unit(rng);
		if (fabs(s->zipf_s - 1.0) < 1e-9)
			n = (uint64_t)pow((double)slots, u);
		else
			n = (uint64_t)pow((pow((double)slots, 1.0 - s->zipf_s) - 1.0) * u + 1.0,
					  1.0 / (1.0 - s->zipf_s));
		return n >= 1 && n <= slots ? n - 1 : slots - 1;
	case WL_PAT_SHUFFLED:		/* wl_do_access() draws its permutation */
		break;
	case WL_PAT_HOT:
		hot = (uint64_t)((double)slots * s->hot_frac);
		hot = hot < 1 ? 1 : hot > slots ? slots : hot;
		if (hot == slots || wl_rand_unit(rng) < s->hot_prob)
			return wl_below(wl_rand(rng), hot);
		return hot + wl_below(wl_rand(rng), slots - hot);
	}
	return 0;
}

/*
 * @m accesses of a sequential or a random step from slot *@k (sequential)
 * or generator state *@rng (random), the first storing @i; both advanced.
 * Inlined for each of the four kinds, the generator's state in a
 * register: a store or load, the next slot, nothing more.
 */
static inline __attribute__((always_inline)) void
wl_access_run(char *p, uint64_t stride, uint64_t slots, uint64_t *k, uint64_t *rng,
	      uint64_t i, uint64_t m, const bool random, const bool write)
{
	uint64_t kk = *k, r = *rng;

	for (uint64_t j = 0; j < m; j++) {
		volatile uint64_t *w;
		uint64_t slot;

		if (random) {
			slot = wl_below(wl_rand(&r), slots);
		} else {
			slot = kk;
			kk = kk + 1 == slots ? 0 : kk + 1;
		}
		w = (volatile uint64_t *)(p + ((slot * stride) & ~7ULL));
		if (write)
			*w = i + j;
		else
			(void)*w;
	}
	*k = kk;
	*rng = r;
}

/* One function each, out of line: wl_do_access() keeps its own registers. */
#define WL_ACCESS_RUN(name, random, write)						\
static __attribute__((noinline)) void name(char *p, uint64_t stride, uint64_t slots,	\
					    uint64_t *k, uint64_t *rng, uint64_t i,	\
					    uint64_t m)					\
{											\
	wl_access_run(p, stride, slots, k, rng, i, m, random, write);			\
}
WL_ACCESS_RUN(wl_access_seq_read, false, false)
WL_ACCESS_RUN(wl_access_seq_write, false, true)
WL_ACCESS_RUN(wl_access_random_read, true, false)
WL_ACCESS_RUN(wl_access_random_write, true, true)
#undef WL_ACCESS_RUN

/*
 * The access loop is the benchmark's loop (usemem's do_unit(), a tester's
 * chase): a store or load and the next address, nothing more.  No
 * division per access: the slot index wraps by compare, and a random draw
 * maps onto [0, n) by a multiply (wl_below()).  A 64-bit div per access
 * made this loop 6.7 cycles a store on a Zen 5 guest, the division's, not
 * the memory's (docs/validation.md).  Sequential and random steps run in
 * chunks of the counter's (4096 accesses) through wl_access_run(): the
 * pattern, the direction and the counter are decided once a chunk, not
 * once an access (27 and 39 instructions an access before, valgrind's
 * count; the reorder buffer held that many fewer of a random step's
 * stores in flight).  The other patterns draw through wl_access_slot().
 */
static uint64_t wl_do_access(struct wl_live_task *t, char *p, const struct wl_step *s,
			     uint64_t size)
{
	uint64_t slots = size / s->stride, k = 0;
	uint32_t *perm = NULL;
	struct wl_counter c;

	wl_counter_init(&c, t->deadline, 4096);
	if (s->pattern == WL_PAT_SEQ || s->pattern == WL_PAT_RANDOM) {
		bool random = s->pattern == WL_PAT_RANDOM;
		uint64_t rng = t->rng;

		for (uint64_t i = 0; i < s->nr; ) {
			uint64_t m = c.chunk - c.in_chunk;

			if (m > s->nr - i)
				m = s->nr - i;
			if (random && s->write)
				wl_access_random_write(p, s->stride, slots, &k, &rng, i, m);
			else if (random)
				wl_access_random_read(p, s->stride, slots, &k, &rng, i, m);
			else if (s->write)
				wl_access_seq_write(p, s->stride, slots, &k, &rng, i, m);
			else
				wl_access_seq_read(p, s->stride, slots, &k, &rng, i, m);
			i += m;
			wl_counter_add(&c, m);
		}
		t->rng = rng;
		return wl_counter_end(&c);
	}
	for (uint64_t i = 0; i < s->nr; i++, k = k + 1 == slots ? 0 : k + 1) {
		uint64_t off;
		volatile uint64_t *w;

		/* shuffled: each pass over the slots in a new random order */
		if (s->pattern == WL_PAT_SHUFFLED && !k) {
			free(perm);
			perm = wl_permutation(&t->rng, slots);
			if (!perm) {
				wl_fail(t, s->line, ENOMEM, "access pattern=shuffled: out of memory");
				break;
			}
		}
		off = (perm ? perm[k] : wl_access_slot(s, &t->rng, k, slots)) * s->stride;
		w = (volatile uint64_t *)(p + (off & ~7ULL));

		if (s->write)
			*w = i;
		else
			(void)*w;
		wl_counter_tick(&c);
	}
	free(perm);
	return wl_counter_end(&c);
}

/**
 * wl_live_loop_ns - the live access loop's own time per access
 * @pattern: the access pattern (zipf at S = 1.2, hot at 0.9:0.1)
 * @accesses: how many stores to time
 * @ns: their thread CPU time per access
 *
 * Runs wl_do_access(), the loop every live access step runs, over 16 KiB
 * of this thread's memory (in L1, written once first), 8-byte stores:
 * what the loop's own instructions cost, the memory's latency aside
 * (mmsim calibrate's mem.access_loop).
 * Context: any thread; allocates.
 * Return: 0 or -ENOMEM.
 */
int wl_live_loop_ns(enum wl_pattern pattern, uint64_t accesses, double *ns)
{
	const uint64_t size = 16 << 10;
	struct wl_live_shared *sh = calloc(1, sizeof(*sh));
	struct wl_live_task t = { .rng = 0x9e3779b97f4a7c15ULL };
	struct wl_plan plan = { .w = NULL };
	struct wl_step s = {
		.op = WL_OP_ACCESS, .pattern = pattern, .stride = 8, .nr = accesses,
		.write = true, .zipf_s = 1.2, .hot_frac = 0.1, .hot_prob = 0.9,
	};
	struct timespec a, b;
	char *p = aligned_alloc(4096, size);
	int fail;

	if (!sh || !p) {
		free(sh);
		free(p);
		return -ENOMEM;
	}
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->cond, NULL);
	t.sh = sh;
	t.plan = &plan;
	memset(p, 1, size);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	wl_do_access(&t, p, &s, size);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	*ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
	      (double)accesses;
	fail = sh->fail;
	pthread_cond_destroy(&sh->cond);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
	free(p);
	return fail ? -ENOMEM : 0;
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
	struct rusage ru0, ru1, rs0, rs1;
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
	/*
	 * The task's faults: from its first step to its last, not the process's
	 * start-up (a fork of mmsim touching its own copy) nor anything else
	 * on the machine (/proc/vmstat's pgfault counted mmsim's lock recorder
	 * too: about 1,900 faults a run, docs/validation.md).
	 */
	getrusage(RUSAGE_THREAD, &rs0);
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
	getrusage(RUSAGE_THREAD, &rs1);
	__atomic_fetch_add(&sl->task_flt, (uint64_t)(rs1.ru_minflt - rs0.ru_minflt) +
			   (uint64_t)(rs1.ru_majflt - rs0.ru_majflt), __ATOMIC_RELAXED);
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
void wl_process(struct live_run *r, void *arg, int idx)
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
