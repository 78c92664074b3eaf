// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: lock waits summed while the run goes, from the kernel's
 * lock:contention_begin and lock:contention_end tracepoints, in bounded
 * memory and time.
 *
 * Mirrors no kernel function; it does what `perf lock contention` does in
 * its tracepoint mode (tools/perf/builtin-lock.c: pair begin and end per
 * task, name the wait by the first caller outside the locking code, sum
 * per caller), but as the events come, instead of from a perf.data file:
 * a 60 s, 16-worker reclaim run makes some 23 M contentions, 47 M samples,
 * gigabytes of perf.data that `perf lock contention -i` did not turn into
 * a table.  Here each workload process gets, on each CPU, a counter per
 * tracepoint with inherit (what it forks or spawns is counted too),
 * sampling every event with its task, time, kernel call chain (at most
 * LIVE_LS_STACK entries) and raw fields (the lock's flags) into that
 * CPU's ring buffer (LIVE_LS_RB_BYTES over all CPUs); a reader thread
 * empties the buffers every 10 ms, sorts the round's events by time and
 * pairs them.  Memory: the buffers, one round's events, one entry per
 * task with a wait in progress and one per caller.  Samples the kernel
 * could not write because a buffer was full are counted (a
 * PERF_RECORD_LOST), and the table says how many.
 *
 * The caller of a wait: the first address of the begin event's call chain
 * that is not in the kernel's lock or sched text (__lock_text_start..end,
 * __sched_text_start..end, as perf's machine__is_lock_function()) nor in
 * a slow path or the tracepoint's own functions (by name, below).  Names
 * come from /proc/kallsyms (root; with kptr_restrict addresses read 0 and
 * the method says so).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <time.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/live_internal.h"

/*
 * The begin sample's call chain: deep enough to name the caller (the lock
 * slow path, the lock function, then the caller: the third address for the
 * lruvec lock, the fourth for a mutex), and no deeper, since perf stamps
 * the sample's time before it unwinds, so the wait counted holds the
 * unwinding.  deferred-split at 2 threads x 100 rounds here (5 December):
 * 40-41 ms of lruvec waits with 16 entries, 24-25.5 ms with 6, 22-25 ms
 * with 4, the callers named alike; perf record without call chains, 17 ms.
 */
#define LIVE_LS_STACK		6
#define LIVE_LS_RB_BYTES	(32UL << 20)	/* all buffers together */
#define LIVE_LS_TIDS		65536		/* tasks with a wait pending */
#define LIVE_LS_CALLERS		16384

struct live_ls_task {
	int tid;			/* 0: free */
	uint32_t flags;
	uint64_t t0;			/* 0: no wait in progress */
	uint64_t ip;
};

struct live_ls_caller {
	uint64_t ip;			/* 0: free */
	uint32_t flags;
	uint64_t contended, total_ns, max_ns;
};

struct live_lockagg {
	struct live_ls_task task[LIVE_LS_TIDS];
	struct live_ls_caller caller[LIVE_LS_CALLERS];
	uint64_t samples, lost, unpaired, dropped;
};

static uint64_t live_ls_hash(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return v;
}

/**
 * live_lockagg_new - an empty table of waits
 *
 * Return: the table (free() it), or NULL.
 */
struct live_lockagg *live_lockagg_new(void)
{
	return calloc(1, sizeof(struct live_lockagg));
}

static struct live_ls_task *live_ls_task(struct live_lockagg *a, int tid, bool add)
{
	uint64_t h = live_ls_hash((uint64_t)tid);

	for (int i = 0; i < 64; i++) {
		struct live_ls_task *t = &a->task[(h + (uint64_t)i) % LIVE_LS_TIDS];

		if (t->tid == tid)
			return t;
		if (!t->tid) {
			if (!add)
				return NULL;
			t->tid = tid;
			return t;
		}
	}
	return NULL;
}

/**
 * live_lockagg_begin - a task starts waiting (lock:contention_begin)
 * @a: the table
 * @tid: the task
 * @t_ns: the event's time
 * @ip: the caller (live_ksyms_caller())
 * @flags: the event's flags field (LCB_F_SPIN, READ, WRITE, ...)
 */
void live_lockagg_begin(struct live_lockagg *a, int tid, uint64_t t_ns,
			uint64_t ip, uint32_t flags)
{
	struct live_ls_task *t = live_ls_task(a, tid, true);

	a->samples++;
	if (!t) {
		a->dropped++;
		return;
	}
	if (t->t0)
		a->unpaired++;	/* a begin whose end was lost */
	t->t0 = t_ns ? t_ns : 1;
	t->ip = ip;
	t->flags = flags;
}

/**
 * live_lockagg_end - the task's wait ends (lock:contention_end)
 * @a: the table
 * @tid: the task
 * @t_ns: the event's time
 */
void live_lockagg_end(struct live_lockagg *a, int tid, uint64_t t_ns)
{
	struct live_ls_task *t = live_ls_task(a, tid, false);
	uint64_t h, wait;

	a->samples++;
	if (!t || !t->t0) {
		a->unpaired++;	/* an end whose begin was lost or before the start */
		return;
	}
	wait = t_ns > t->t0 ? t_ns - t->t0 : 0;
	t->t0 = 0;
	h = live_ls_hash(t->ip);
	for (int i = 0; i < 256; i++) {
		struct live_ls_caller *c = &a->caller[(h + (uint64_t)i) % LIVE_LS_CALLERS];

		if (!c->ip || c->ip == t->ip) {
			c->ip = t->ip ? t->ip : 1;
			c->flags = t->flags;
			c->contended++;
			c->total_ns += wait;
			if (wait > c->max_ns)
				c->max_ns = wait;
			return;
		}
	}
	a->dropped++;
}

/* The columns of perf lock's "type", from the tracepoint's flags. */
static const char *live_ls_type(uint32_t f)
{
	enum { SPIN = 1, READ = 2, WRITE = 4, RT = 8, PERCPU = 16, MUTEX = 32 };

	if (f & SPIN)
		return f & READ ? "rwlock:R" : f & WRITE ? "rwlock:W" : "spinlock";
	if (f & PERCPU)
		return f & READ ? "pcpu-sem:R" : "pcpu-sem:W";
	if (f & MUTEX)
		return "mutex";
	if (f & RT)
		return "rtmutex";
	return f & READ ? "rwsem:R" : f & WRITE ? "rwsem:W" : "unknown";
}

static int live_ksym_cmp(const void *a, const void *b)
{
	const struct live_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/**
 * live_ksyms_parse - the kernel's text symbols, from /proc/kallsyms' text
 * @k: filled (live_ksyms_free() it)
 * @text: "ffffffff81000000 T _stext" lines
 *
 * Return: the number of symbols, or -ENOENT when every address is 0
 * (kptr_restrict: not root) or there is none.
 */
int live_ksyms_parse(struct live_ksyms *k, const char *text)
{
	size_t cap = 0;

	memset(k, 0, sizeof(*k));
	for (const char *line = text; line && *line; ) {
		const char *next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);
		unsigned long long addr;
		char type, name[128], one[256];

		/*
		 * sscanf() of the text itself would measure the rest of the
		 * text (strlen) at every line: quadratic, about a second of CPU
		 * for /proc/kallsyms' 200,000 lines.  One line at a time.
		 */
		if (n >= sizeof(one))
			n = sizeof(one) - 1;
		memcpy(one, line, n);
		one[n] = '\0';
		if (sscanf(one, "%llx %c %127s", &addr, &type, name) == 3 && addr &&
		    (type == 't' || type == 'T' || type == 'w' || type == 'W')) {
			if (!strcmp(name, "__lock_text_start"))
				k->lock_lo = addr;
			else if (!strcmp(name, "__lock_text_end"))
				k->lock_hi = addr;
			else if (!strcmp(name, "__sched_text_start"))
				k->sched_lo = addr;
			else if (!strcmp(name, "__sched_text_end"))
				k->sched_hi = addr;
			if (k->nr == cap) {
				struct live_ksym *n;

				cap = cap ? 2 * cap : 4096;
				n = realloc(k->s, cap * sizeof(*n));
				if (!n)
					break;
				k->s = n;
			}
			k->s[k->nr].addr = addr;
			snprintf(k->s[k->nr].name, sizeof(k->s[0].name), "%.55s", name);
			k->nr++;
		}
		line = next ? next + 1 : NULL;
	}
	if (!k->nr)
		return -ENOENT;
	qsort(k->s, k->nr, sizeof(k->s[0]), live_ksym_cmp);
	return (int)k->nr;
}

void live_ksyms_free(struct live_ksyms *k)
{
	free(k->s);
	memset(k, 0, sizeof(*k));
}

const struct live_ksym *live_ksyms_find(const struct live_ksyms *k, uint64_t ip)
{
	size_t lo = 0, hi = k->nr;

	if (!k->nr || ip < k->s[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (k->s[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return &k->s[lo];
}

/**
 * live_ksyms_name - "symbol+0xoff", as perf names a caller
 * @k: the symbols
 * @ip: the address
 * @buf: where to write it
 * @len: size of @buf
 */
void live_ksyms_name(const struct live_ksyms *k, uint64_t ip, char *buf, size_t len)
{
	const struct live_ksym *s = live_ksyms_find(k, ip);

	if (s)
		snprintf(buf, len, "%s+0x%llx", s->name,
			 (unsigned long long)(ip - s->addr));
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
}

/* The lock's own code: slow paths and the tracepoint's functions. */
static bool live_ls_lock_name(const char *name)
{
	static const char *const prefix[] = {
		"__traceiter_", "trace_contention", "perf_trace", "queued_",
		"native_queued_", "__pv_queued_", "pv_queued_", "do_raw_",
		"_raw_", "rwsem_down_", "__rwsem_", "rwsem_optimistic",
		"__mutex_lock", "mutex_lock", "__percpu_down", "percpu_down",
		"__down_", "down_read", "down_write", "osq_lock", "rt_mutex",
		"__rt_mutex", "rt_spin_lock", "rtlock_", "__lll_",
	};

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

/**
 * live_ksyms_caller - the caller a wait is named by
 * @k: the symbols
 * @ips: the begin event's kernel call chain (context markers allowed)
 * @nr: its length
 *
 * Return: the first address outside the lock and sched text, slow paths
 * and the tracepoint's functions; 0 when there is none.
 */
uint64_t live_ksyms_caller(const struct live_ksyms *k, const uint64_t *ips, int nr)
{
	for (int i = 0; i < nr; i++) {
		uint64_t ip = ips[i];
		const struct live_ksym *s;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;	/* PERF_CONTEXT_KERNEL and the like */
		if ((ip >= k->lock_lo && ip < k->lock_hi) ||
		    (ip >= k->sched_lo && ip < k->sched_hi))
			continue;
		s = live_ksyms_find(k, ip);
		if (s && live_ls_lock_name(s->name))
			continue;
		return ip;
	}
	return 0;
}

/**
 * live_lockagg_table - the table of waits, as perf lock prints it
 * @a: the waits
 * @k: symbols to name the callers
 * @l: filled: the LIVE_MAX_LOCK_ROWS callers with the longest total wait,
 *     and the sums per lock class over every caller (not only those rows)
 */
void live_lockagg_table(const struct live_lockagg *a, const struct live_ksyms *k,
			struct live_locks *l)
{
	memset(l->row, 0, sizeof(l->row));
	l->nr = 0;
	memset(l->wait_s, 0, sizeof(l->wait_s));
	memset(l->contended, 0, sizeof(l->contended));
	for (int i = 0; i < LIVE_LS_CALLERS; i++) {
		const struct live_ls_caller *c = &a->caller[i];
		struct live_lock_row r;
		int at;

		if (!c->ip)
			continue;
		memset(&r, 0, sizeof(r));
		live_ksyms_name(k, c->ip, r.caller, sizeof(r.caller));
		snprintf(r.type, sizeof(r.type), "%s", live_ls_type(c->flags));
		r.contended = c->contended;
		r.wait_total_s = (double)c->total_ns * 1e-9;
		r.wait_max_s = (double)c->max_ns * 1e-9;
		r.cls = live_lock_class(r.caller);
		l->wait_s[r.cls] += r.wait_total_s;
		l->contended[r.cls] += r.contended;
		/* keep the rows sorted by total wait, longest first */
		for (at = l->nr; at > 0 && l->row[at - 1].wait_total_s < r.wait_total_s; at--)
			;
		if (at >= LIVE_MAX_LOCK_ROWS)
			continue;
		if (l->nr < LIVE_MAX_LOCK_ROWS)
			l->nr++;
		memmove(&l->row[at + 1], &l->row[at],
			(size_t)(l->nr - 1 - at) * sizeof(l->row[0]));
		l->row[at] = r;
	}
}

/* ---- the counters and their ring buffers ---- */

/*
 * The kernel maps no buffer of an inherited per-task counter (perf_mmap():
 * all children would write to one buffer), so, as perf record -p does,
 * each process gets a counter per CPU, and every counter of one CPU
 * writes to that CPU's buffer (PERF_EVENT_IOC_SET_OUTPUT).
 */

/* One sample, parsed, waiting to be put in time order. */
struct live_ls_ev {
	uint64_t time, ip;
	int tid;
	uint32_t flags;
	bool begin;
};

struct live_lockstream {
	struct live_rb *rb;		/* one per CPU */
	int nr_cpus;
	int *fd;			/* nr_cpus x nr_pids x 2, -1 when not open */
	int nr_fd;
	long id_begin, id_end;		/* tracepoint ids */
	uint64_t *end_ids;		/* perf event ids of the contention_end events, sorted */
	int nr_end_ids;
	size_t flags_off;		/* of "flags" in the raw data */
	struct live_lockagg *agg;
	struct live_ksyms ksyms;
	struct live_ls_ev *ev;		/* one round's samples */
	size_t nr_ev, cap_ev;
	pthread_t reader;
	volatile int stop;
	bool reader_started;
};

/* offset of a field in a tracepoint's format file */
static long live_ls_field_offset(const char *format, const char *field)
{
	char want[64];
	const char *p, *o;

	snprintf(want, sizeof(want), " %s;", field);
	p = strstr(format, want);
	o = p ? strstr(p, "offset:") : NULL;
	return o ? strtol(o + 7, NULL, 10) : -1;
}

static int live_ls_id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Parse one PERF_RECORD_SAMPLE: the event's id (PERF_SAMPLE_IDENTIFIER),
 * pid, tid, time; a contention_begin sample then has its callchain and raw
 * data, a contention_end sample nothing more (live_ls_open()).
 */
static void live_lockstream_sample(struct live_lockstream *ls, const uint8_t *body,
				   size_t len)
{
	uint32_t pid_tid[2], raw_size, flags = 0;
	uint64_t time, nr, id;
	uint16_t type;
	const uint8_t *p = body, *end = body + len, *chain;
	struct live_ls_ev *e;

	if (ls->nr_ev >= ls->cap_ev) {
		ls->agg->dropped++;	/* cannot happen: a record is 32 bytes or more */
		return;
	}
	if (len < 24)
		return;
	memcpy(&id, p, 8);
	memcpy(pid_tid, p + 8, 8);
	memcpy(&time, p + 16, 8);
	p += 24;
	if (bsearch(&id, ls->end_ids, (size_t)ls->nr_end_ids, sizeof(id), live_ls_id_cmp)) {
		e = &ls->ev[ls->nr_ev++];
		*e = (struct live_ls_ev){ .time = time, .tid = (int)pid_tid[1], .begin = false };
		return;
	}
	if (end - p < 8)
		return;
	memcpy(&nr, p, 8);
	p += 8;
	if (nr > (uint64_t)(end - p) / 8)
		return;
	chain = p;
	p += nr * 8;
	if (end - p < 4)
		return;
	memcpy(&raw_size, p, 4);
	p += 4;
	if (raw_size < 2 || raw_size > (size_t)(end - p))
		return;
	memcpy(&type, p, 2);
	if (type != ls->id_begin && type != ls->id_end)
		return;
	e = &ls->ev[ls->nr_ev++];
	e->time = time;
	e->tid = (int)pid_tid[1];
	e->begin = type == ls->id_begin;
	e->ip = 0;
	e->flags = 0;
	if (e->begin) {
		uint64_t ips[LIVE_LS_STACK + 8];
		int n = nr < sizeof(ips) / 8 ? (int)nr : (int)(sizeof(ips) / 8);

		memcpy(ips, chain, (size_t)n * 8);
		if (ls->flags_off + 4 <= raw_size)
			memcpy(&flags, p + ls->flags_off, 4);
		e->ip = live_ksyms_caller(&ls->ksyms, ips, n);
		e->flags = flags;
	}
}

/**
 * live_rbs_close - close the counters and unmap the per-CPU ring buffers
 * @fd: the counters, -1 for none (NULL: nothing opened)
 * @nr_fd: how many
 * @rb: the buffers, one per CPU (NULL: none mapped)
 * @nr_cpus: how many
 */
void live_rbs_close(int *fd, int nr_fd, struct live_rb *rb, int nr_cpus)
{
	for (int i = 0; fd && i < nr_fd; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	for (int c = 0; rb && c < nr_cpus; c++)
		if (rb[c].meta)
			munmap(rb[c].meta, rb[c].data_len + 4096);
}

/**
 * live_perf_open_rb - open a sampling counter whose samples go to a ring buffer
 * @a: the counter (its watermark is set here: a quarter of the buffer)
 * @pid: the task, with @a's inherit its children
 * @cpu: the CPU
 * @output: the counter whose buffer takes the samples, or -1 for its own
 * @pages: the buffer's data pages
 *
 * Return: the counter's fd, or a negative errno.
 */
int live_perf_open_rb(struct perf_event_attr *a, pid_t pid, int cpu, int output, size_t pages)
{
	long fd;

	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(pages * 4096 / 4);
	fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (output >= 0 && ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, output)) {
		int e = errno;

		close((int)fd);
		return -e;
	}
	return (int)fd;
}

/**
 * live_rb_poll - a reader thread's loop (the lock recorder's, the profiler's)
 * @stop: set by the parent when the run is over
 * @round: empties the buffers once
 * @arg: passed to @round
 *
 * Every 10 ms a round, until *@stop; what the buffers could not hold is
 * counted as lost (PERF_RECORD_LOST) by the round.
 */
void live_rb_poll(volatile int *stop, void (*round)(void *arg), void *arg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	while (!*stop) {
		nanosleep(&ts, NULL);
		round(arg);
	}
}

/**
 * live_rb_read - read a perf ring buffer's records up to @head
 * @meta: the buffer's first page (data_tail is advanced)
 * @data_len: its data size, a power of two
 * @head: where to stop (a snapshot of data_head)
 * @sample: called with each PERF_RECORD_SAMPLE's body and its length
 * @ctx: passed to @sample
 *
 * Return: the samples the kernel could not write (PERF_RECORD_LOST).
 */
uint64_t live_rb_read(struct perf_event_mmap_page *meta, size_t data_len, uint64_t head,
		      void (*sample)(void *ctx, const uint8_t *body, size_t len), void *ctx)
{
	uint8_t *data = (uint8_t *)meta + meta->data_offset;
	uint64_t tail = meta->data_tail, lost = 0;
	static __thread uint8_t rec[65536];	/* each reader thread its own */

	while (tail < head) {
		struct perf_event_header h;
		size_t off = (size_t)(tail & (data_len - 1)), first;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(off + i) & (data_len - 1)];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		first = data_len - off < h.size ? data_len - off : h.size;
		memcpy(rec, data + off, first);	/* it may wrap */
		memcpy(rec + first, data, h.size - first);
		if (h.type == PERF_RECORD_SAMPLE) {
			sample(ctx, rec + sizeof(h), h.size - sizeof(h));
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t n;

			memcpy(&n, rec + sizeof(h) + 8, 8);
			lost += n;
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return lost;
}

static void live_ls_sample_cb(void *ctx, const uint8_t *body, size_t len)
{
	live_lockstream_sample(ctx, body, len);
}

/* Read one buffer up to its snapshot head into ls->ev. */
static void live_ls_drain(struct live_lockstream *ls, struct live_rb *rb)
{
	ls->agg->lost += live_rb_read(rb->meta, rb->data_len, rb->head, live_ls_sample_cb, ls);
}

static int live_ls_ev_cmp(const void *a, const void *b)
{
	const struct live_ls_ev *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * One round: every buffer's head is read first, so that an end that is
 * in a buffer has its begin in the samples of this round or an earlier
 * one (a task that slept on a rwsem may end its wait on another CPU);
 * the round's samples are then summed in time order.
 */
static void live_ls_round(void *arg)
{
	struct live_lockstream *ls = arg;

	for (int c = 0; c < ls->nr_cpus; c++)
		if (ls->rb[c].meta)
			ls->rb[c].head = __atomic_load_n(&ls->rb[c].meta->data_head,
							 __ATOMIC_ACQUIRE);
	ls->nr_ev = 0;
	for (int c = 0; c < ls->nr_cpus; c++)
		if (ls->rb[c].meta)
			live_ls_drain(ls, &ls->rb[c]);
	qsort(ls->ev, ls->nr_ev, sizeof(ls->ev[0]), live_ls_ev_cmp);
	for (size_t i = 0; i < ls->nr_ev; i++) {
		const struct live_ls_ev *e = &ls->ev[i];

		if (e->begin)
			live_lockagg_begin(ls->agg, e->tid, e->time, e->ip, e->flags);
		else
			live_lockagg_end(ls->agg, e->tid, e->time);
	}
}

static void *live_ls_reader(void *arg)
{
	struct live_lockstream *ls = arg;

	live_rb_poll(&ls->stop, live_ls_round, ls);
	return NULL;
}

/*
 * One event: contention_begin (@chain) with the kernel callchain that names
 * the caller and the raw data (the lock's flags); contention_end with its
 * time alone.  contention_end fires with the lock just taken: a callchain
 * unwound there lengthened every hold by the unwinding, and the waits grew
 * with it (deferred-split at 2 threads here: 0.115-0.124 s traced against
 * 0.069-0.081 s untraced; 0.073-0.09 s with the end's callchain dropped,
 * docs/validation.md).  PERF_SAMPLE_IDENTIFIER tells the two apart in the
 * shared buffer (an inherited event reports its parent's id).  calibrate
 * times the same sample (cal_trace_sample()).
 */
int live_ls_open(long id, pid_t pid, int cpu, int output, size_t pages, bool chain)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			(chain ? PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW : 0);
	a.inherit = 1;
	a.exclude_callchain_user = 1;
	a.sample_max_stack = LIVE_LS_STACK;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	return live_perf_open_rb(&a, pid, cpu, output, pages);
}

/**
 * live_lockstream_start - count the workload's lock waits as they come
 * @lr: the recording; lr->ls is set on success, lr->why on failure
 * @pids: the workload processes (blocked until released)
 * @nr: how many
 *
 * Context: parent; starts a reader thread.
 * Return: 0, or a negative errno with @lr->why set.
 */
int live_lockstream_start(struct live_lockrec *lr, const pid_t *pids, int nr)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
		"/sys/kernel/debug/tracing" };
	static char text[8 * 1024 * 1024];
	struct live_lockstream *ls;
	char path[600], buf[8192];
	size_t pages;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int ret, online = 0;

	ls = calloc(1, sizeof(*ls));
	if (!ls || !(ls->agg = live_lockagg_new())) {
		free(ls);
		snprintf(lr->why, sizeof(lr->why), "out of memory");
		return -ENOMEM;
	}
	lr->ls = ls;
	ls->nr_cpus = ncpu > 0 ? (int)ncpu : 1;
	ls->nr_fd = ls->nr_cpus * nr * 2;
	ls->rb = calloc((size_t)ls->nr_cpus, sizeof(*ls->rb));
	ls->fd = malloc((size_t)(ls->nr_fd ? ls->nr_fd : 1) * sizeof(int));
	ls->end_ids = malloc((size_t)(ls->nr_fd ? ls->nr_fd : 1) * sizeof(uint64_t));
	if (!ls->rb || !ls->fd || !ls->end_ids) {
		snprintf(lr->why, sizeof(lr->why), "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < ls->nr_fd; i++)
		ls->fd[i] = -1;
	ls->id_begin = ls->id_end = -1;
	for (size_t d = 0; d < 2 && ls->id_begin < 0; d++) {
		char dir[512];

		if (live_sys_path(dir, sizeof(dir), dirs[d]))
			continue;
		snprintf(path, sizeof(path), "%s/events/lock/contention_begin/id", dir);
		if (live_read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		ls->id_begin = strtol(buf, NULL, 10);
		snprintf(path, sizeof(path), "%s/events/lock/contention_end/id", dir);
		if (live_read_file(path, buf, sizeof(buf)) > 0)
			ls->id_end = strtol(buf, NULL, 10);
		snprintf(path, sizeof(path), "%s/events/lock/contention_begin/format", dir);
		if (live_read_file(path, buf, sizeof(buf)) > 0)
			ls->flags_off = (size_t)live_ls_field_offset(buf, "flags");
	}
	if (ls->id_begin < 0 || ls->id_end < 0) {
		snprintf(lr->why, sizeof(lr->why), "this kernel has no "
			 "lock:contention_begin/end tracepoints (Linux 5.19 or later)");
		ret = -ENOENT;
		goto fail;
	}
	if (live_proc_path(path, sizeof(path), "/proc/kallsyms") ||
	    live_read_file(path, text, sizeof(text)) <= 0 ||
	    live_ksyms_parse(&ls->ksyms, text) < 0) {
		snprintf(lr->why, sizeof(lr->why), "no kernel symbols in "
			 "/proc/kallsyms to name the callers (run as root)");
		ret = -EACCES;
		goto fail;
	}
	pages = LIVE_LS_RB_BYTES / 4096 / (size_t)ls->nr_cpus;
	while (pages & (pages - 1))
		pages &= pages - 1;
	if (pages < 16)
		pages = 16;
	for (int c = 0; c < ls->nr_cpus; c++) {
		int *fd = &ls->fd[c * nr * 2], first;
		void *m;

		first = fd[0] = live_ls_open(ls->id_begin, pids[0], c, -1, pages, true);
		if (first == -ENODEV || first == -EINVAL)
			continue;	/* an offline CPU */
		if (first < 0) {
			ret = first;
			goto fail_open;
		}
		m = mmap(NULL, (pages + 1) * 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED, first, 0);
		if (m == MAP_FAILED) {
			ret = -errno;
			goto fail_open;
		}
		ls->rb[c].meta = m;
		ls->rb[c].data_len = pages * 4096;
		online++;
		for (int i = 1; i < nr * 2; i++) {
			uint64_t eid;

			fd[i] = live_ls_open(i & 1 ? ls->id_end : ls->id_begin,
					     pids[i / 2], c, first, pages, !(i & 1));
			if (fd[i] < 0) {
				ret = fd[i];
				goto fail_open;
			}
			if (!(i & 1))
				continue;
			if (ioctl(fd[i], PERF_EVENT_IOC_ID, &eid)) {
				ret = -errno;
				goto fail_open;
			}
			ls->end_ids[ls->nr_end_ids++] = eid;
		}
	}
	qsort(ls->end_ids, (size_t)ls->nr_end_ids, sizeof(ls->end_ids[0]), live_ls_id_cmp);
	ls->cap_ev = (size_t)online * pages * 4096 / 32 + 1;	/* an end record: 32 bytes */
	ls->ev = malloc(ls->cap_ev * sizeof(*ls->ev));
	if (!online || !ls->ev) {
		ret = online ? -ENOMEM : -ENODEV;
		goto fail_open;
	}
	if (pthread_create(&ls->reader, NULL, live_ls_reader, ls)) {
		ret = -EAGAIN;
		snprintf(lr->why, sizeof(lr->why), "cannot start the reader thread");
		goto fail;
	}
	ls->reader_started = true;
	lr->running = true;
	snprintf(lr->method, sizeof(lr->method), "mmsim's own count of "
		 "lock:contention_begin/end as they come (perf has no BPF mode "
		 "here), a %zu KiB buffer per CPU", pages * 4);
	return 0;

fail_open:
	snprintf(lr->why, sizeof(lr->why), "perf_event_open of "
		 "lock:contention_begin/end: %s%s", strerror(-ret),
		 ret == -EACCES || ret == -EPERM ? " (run as root)" : "");
fail:
	live_lockstream_stop(lr, NULL);
	return ret;
}

/**
 * live_lockstream_stop - stop counting and make the table
 * @lr: the recording; its stream is freed
 * @l: the table (ok, or why), or NULL to only free
 */
void live_lockstream_stop(struct live_lockrec *lr, struct live_locks *l)
{
	struct live_lockstream *ls = lr->ls;

	if (!ls)
		return;
	for (int i = 0; ls->fd && i < ls->nr_fd; i++)
		if (ls->fd[i] >= 0)
			ioctl(ls->fd[i], PERF_EVENT_IOC_DISABLE, 0);
	if (ls->reader_started) {
		ls->stop = 1;
		pthread_join(ls->reader, NULL);
		live_ls_round(ls);	/* what came since the last round */
	}
	if (l) {
		live_lockagg_table(ls->agg, &ls->ksyms, l);
		l->ok = true;
		snprintf(l->method, sizeof(l->method), "%s; %llu events, %llu "
			 "lost (buffer full), %llu unpaired", lr->method,
			 (unsigned long long)ls->agg->samples,
			 (unsigned long long)ls->agg->lost,
			 (unsigned long long)(ls->agg->unpaired + ls->agg->dropped));
	}
	live_rbs_close(ls->fd, ls->nr_fd, ls->rb, ls->nr_cpus);
	live_ksyms_free(&ls->ksyms);
	free(ls->ev);
	free(ls->fd);
	free(ls->end_ids);
	free(ls->rb);
	free(ls->agg);
	free(ls);
	lr->ls = NULL;
	lr->running = false;
}
