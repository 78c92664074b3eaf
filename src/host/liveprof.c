// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: where the workload's CPU time goes, function by function
 * (`mmsim live|compare EXPERIMENT --report functions`, docs/report.md), as
 * `perf record -e cpu-clock -g` and then `perf report --children` would
 * show it for the workload's own tasks.
 *
 * Mirrors no kernel function.  Each workload process gets, on each CPU, a
 * cpu-clock sampling counter with inherit (what it forks or spawns is
 * sampled too) every LIVE_PROF_PERIOD_NS of its CPU time (4 kHz, perf's
 * default: at 10 kHz page_fault3's guest run lost about 20% of its faults
 * to the sampling, at 4 kHz none beyond the runs' spread), with its kernel
 * call chain (at most LIVE_PROF_STACK entries; user frames excluded),
 * into that CPU's ring buffer; a reader thread empties the buffers every
 * 10 ms and counts as it goes: for each sample, each kernel function of
 * its chain once (children) and the function it was in (self), or
 * "[user]" for a sample taken in user mode.  Memory: the buffers and two
 * counters per kernel symbol.  Functions are named from /proc/kallsyms
 * (root).  cpu-clock is a software event, so a guest without a virtual
 * PMU samples too (the hrtimer interrupt: a function that runs with
 * interrupts disabled is seen where they are enabled again).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "host/live_internal.h"

#define LIVE_PROF_PERIOD_NS	250000		/* 4 kHz of each task's CPU time, perf's default */
#define LIVE_PROF_STACK		64
#define LIVE_PROF_RB_BYTES	(16UL << 20)	/* all buffers together */

struct live_prof {
	int nr_cpus, nr_fd;
	int *fd;
	struct live_rb *rb;
	struct live_ksyms ksyms;
	uint64_t *children, *self;	/* per symbol of ksyms */
	uint64_t samples, user, unknown, lost;
	pthread_t reader;
	bool reader_started;
	volatile int stop;
};

/* One sample: PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN. */
static void live_prof_sample(struct live_prof *p, const uint8_t *body, size_t len)
{
	size_t seen[LIVE_PROF_STACK];
	int nr_seen = 0;
	uint64_t nr;
	bool leaf = true;

	if (len < 16)
		return;
	memcpy(&nr, body + 8, 8);
	if (nr > (len - 16) / 8)
		return;
	p->samples++;
	for (uint64_t i = 0; i < nr; i++) {
		const struct live_ksym *s;
		uint64_t ip;
		size_t k;
		int j;

		memcpy(&ip, body + 16 + i * 8, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;	/* a context marker */
		s = live_ksyms_find(&p->ksyms, ip);
		if (!s) {
			if (leaf)
				p->unknown++;
			leaf = false;
			continue;
		}
		k = (size_t)(s - p->ksyms.s);
		if (leaf)
			p->self[k]++;
		leaf = false;
		for (j = 0; j < nr_seen && seen[j] != k; j++)
			;
		if (j < nr_seen || nr_seen == LIVE_PROF_STACK)
			continue;	/* a function counts once a sample (recursion) */
		seen[nr_seen++] = k;
		p->children[k]++;
	}
	if (leaf)
		p->user++;	/* no kernel frame: the task was in user mode */
}

static void live_prof_sample_cb(void *ctx, const uint8_t *body, size_t len)
{
	live_prof_sample(ctx, body, len);
}

/* Read one buffer up to its head. */
static void live_prof_drain(struct live_prof *p, struct live_rb *rb)
{
	uint64_t head = __atomic_load_n(&rb->meta->data_head, __ATOMIC_ACQUIRE);

	p->lost += live_rb_read(rb->meta, rb->data_len, head, live_prof_sample_cb, p);
}

static void live_prof_round(void *arg)
{
	struct live_prof *p = arg;

	for (int c = 0; c < p->nr_cpus; c++)
		if (p->rb[c].meta)
			live_prof_drain(p, &p->rb[c]);
}

static void *live_prof_reader(void *arg)
{
	struct live_prof *p = arg;

	live_rb_poll(&p->stop, live_prof_round, p);
	return NULL;
}

static int live_prof_open(pid_t pid, int cpu, int output, size_t pages)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = LIVE_PROF_PERIOD_NS;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a.inherit = 1;
	a.exclude_callchain_user = 1;
	a.sample_max_stack = LIVE_PROF_STACK;
	return live_perf_open_rb(&a, pid, cpu, output, pages);
}

/**
 * live_prof_start - sample where the workload's tasks spend their CPU time
 * @pp: set to the profile on success
 * @pids: the workload processes (blocked until released)
 * @nr: how many
 * @why: what stopped it, on failure
 * @len: size of @why
 *
 * Context: parent; starts a reader thread.
 * Return: 0, or a negative errno with @why set.
 */
int live_prof_start(struct live_prof **pp, const pid_t *pids, int nr, char *why, size_t len)
{
	static char text[8 * 1024 * 1024];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct live_prof *p = calloc(1, sizeof(*p));
	char path[512];
	size_t pages;
	int ret = -ENOMEM, online = 0;

	*pp = NULL;
	if (!p || nr < 1)
		goto fail_nomem;
	p->nr_cpus = ncpu > 0 ? (int)ncpu : 1;
	p->nr_fd = p->nr_cpus * nr;
	p->fd = malloc((size_t)p->nr_fd * sizeof(int));
	p->rb = calloc((size_t)p->nr_cpus, sizeof(*p->rb));
	if (!p->fd || !p->rb)
		goto fail_nomem;
	for (int i = 0; i < p->nr_fd; i++)
		p->fd[i] = -1;
	if (live_proc_path(path, sizeof(path), "/proc/kallsyms") ||
	    live_read_file(path, text, sizeof(text)) <= 0 ||
	    live_ksyms_parse(&p->ksyms, text) < 0) {
		snprintf(why, len, "no kernel symbols in /proc/kallsyms to name the "
			 "functions (run as root)");
		ret = -EACCES;
		goto fail;
	}
	p->children = calloc(p->ksyms.nr, sizeof(uint64_t));
	p->self = calloc(p->ksyms.nr, sizeof(uint64_t));
	if (!p->children || !p->self)
		goto fail_nomem;
	pages = LIVE_PROF_RB_BYTES / 4096 / (size_t)p->nr_cpus;
	while (pages & (pages - 1))
		pages &= pages - 1;
	if (pages < 16)
		pages = 16;
	for (int c = 0; c < p->nr_cpus; c++) {
		int *fd = &p->fd[c * nr];
		void *m;

		fd[0] = live_prof_open(pids[0], c, -1, pages);
		if (fd[0] == -ENODEV || fd[0] == -EINVAL)
			continue;	/* an offline CPU */
		if (fd[0] < 0) {
			ret = fd[0];
			goto fail_open;
		}
		m = mmap(NULL, (pages + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd[0], 0);
		if (m == MAP_FAILED) {
			ret = -errno;
			goto fail_open;
		}
		p->rb[c].meta = m;
		p->rb[c].data_len = pages * 4096;
		online++;
		for (int i = 1; i < nr; i++) {
			fd[i] = live_prof_open(pids[i], c, fd[0], pages);
			if (fd[i] < 0) {
				ret = fd[i];
				goto fail_open;
			}
		}
	}
	if (!online) {
		ret = -ENODEV;
		goto fail_open;
	}
	if (pthread_create(&p->reader, NULL, live_prof_reader, p)) {
		snprintf(why, len, "cannot start the reader thread");
		ret = -EAGAIN;
		goto fail;
	}
	p->reader_started = true;
	*pp = p;
	return 0;

fail_open:
	snprintf(why, len, "perf_event_open of cpu-clock samples: %s%s", strerror(-ret),
		 ret == -EACCES || ret == -EPERM ? " (run as root)" : "");
	goto fail;
fail_nomem:
	snprintf(why, len, "out of memory");
fail:
	live_prof_free(p);
	return ret;
}

/**
 * live_prof_offline - a profile with no counters, fed samples by hand
 * @kallsyms: /proc/kallsyms' text, to name the functions
 *
 * For tests: live_prof_feed() counts a sample as the reader would;
 * live_prof_stop() makes the table and live_prof_free() frees it.
 * Return: the profile, or NULL (no symbols, or out of memory).
 */
struct live_prof *live_prof_offline(const char *kallsyms)
{
	struct live_prof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (live_ksyms_parse(&p->ksyms, kallsyms) < 0 ||
	    !(p->children = calloc(p->ksyms.nr, sizeof(uint64_t))) ||
	    !(p->self = calloc(p->ksyms.nr, sizeof(uint64_t)))) {
		live_prof_free(p);
		return NULL;
	}
	return p;
}

/* Count one PERF_RECORD_SAMPLE body (pid, tid, nr, the chain) of @len bytes. */
void live_prof_feed(struct live_prof *p, const void *sample, size_t len)
{
	live_prof_sample(p, sample, len);
}

static int live_prof_row_cmp(const void *a, const void *b)
{
	const struct live_func_row *x = a, *y = b;

	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	return strcmp(x->name, y->name);
}

/**
 * live_prof_stop - stop sampling and make the table
 * @p: the profile (NULL: nothing to do); still to be freed
 * @f: the functions with the most samples, largest first
 */
void live_prof_stop(struct live_prof *p, struct live_funcs *f)
{
	struct live_func_row *rows;
	size_t n = 0;

	if (!p)
		return;
	for (int i = 0; i < p->nr_fd; i++)
		if (p->fd[i] >= 0)
			ioctl(p->fd[i], PERF_EVENT_IOC_DISABLE, 0);
	if (p->reader_started) {
		p->stop = 1;
		pthread_join(p->reader, NULL);
		p->reader_started = false;
		live_prof_round(p);	/* what came since the last round */
	}
	memset(f, 0, sizeof(*f));
	rows = calloc(p->ksyms.nr + 1, sizeof(*rows));
	if (!rows) {
		snprintf(f->why, sizeof(f->why), "out of memory");
		return;
	}
	for (size_t k = 0; k < p->ksyms.nr; k++)
		if (p->children[k]) {
			snprintf(rows[n].name, sizeof(rows[n].name), "%s", p->ksyms.s[k].name);
			rows[n].children = p->children[k];
			rows[n++].self = p->self[k];
		}
	if (p->user) {
		snprintf(rows[n].name, sizeof(rows[n].name), "[user]");
		rows[n].children = rows[n].self = p->user;
		n++;
	}
	qsort(rows, n, sizeof(*rows), live_prof_row_cmp);
	f->nr = n < LIVE_FUNCS ? (int)n : LIVE_FUNCS;
	memcpy(f->row, rows, (size_t)f->nr * sizeof(*rows));
	free(rows);
	f->samples = p->samples;
	f->ok = true;
	snprintf(f->method, sizeof(f->method), "cpu-clock samples of the workload's tasks "
		 "every %d us of their CPU time, kernel call chains; %llu samples (%llu with a "
		 "top address no symbol names), %llu lost (buffer full)",
		 LIVE_PROF_PERIOD_NS / 1000, (unsigned long long)p->samples,
		 (unsigned long long)p->unknown, (unsigned long long)p->lost);
}

/* Close and free everything live_prof_start() made (NULL: nothing). */
void live_prof_free(struct live_prof *p)
{
	if (!p)
		return;
	if (p->reader_started) {
		p->stop = 1;
		pthread_join(p->reader, NULL);
	}
	live_rbs_close(p->fd, p->nr_fd, p->rb, p->nr_cpus);
	live_ksyms_free(&p->ksyms);
	free(p->children);
	free(p->self);
	free(p->fd);
	free(p->rb);
	free(p);
}
