// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the virtual CPU time goes, by modelled kernel function: what
 * `perf record -g` with the cpu-clock event and `perf report --children`
 * would show of the model, integrated exactly instead of sampled.
 *
 * Models nothing of the kernel; it plays the part of perf.  The functions
 * are the spans the trace hooks mark (sim_trace_begin("mm",
 * "handle_mm_fault") ... sim_trace_end(), include/mmsim/trace.h); the
 * hooks call in here when sim_funcprof_active, with or without --trace.
 *
 * A call stack per context: one per task (a task that sleeps inside a
 * span, or wakes on another vCPU, keeps its stack; the task that runs
 * meanwhile has its own), and one per vCPU for interrupts taken while it
 * is idle.  An interrupt handler's spans go on the stack of the task it
 * interrupted, as the kernel's callchain of an IPI shows the interrupted
 * function under the handler.  Time is the context's CPU clock: a task's
 * runs only while it is on its vCPU (se.sum_exec_runtime, src/engine/
 * sched.c), spinning included, so a span across a sleep counts only its
 * CPU time, as cpu-clock samples would.  When a span ends:
 *
 *   total  = clock now - clock at its begin
 *   self  += total - (the totals of the spans it opened)
 *   children += total, unless a span of the same function is open below
 *            it (recursion counts once per stack, as perf's --children)
 *
 * so the self times of all functions, plus "[other]" (CPU time in no
 * span: user space, syscall entry, unmarked kernel code, context
 * switches outside a span), sum to the vCPUs' busy time exactly.
 *
 * Lock spans: a spinlock's "wait NAME" span (the failed fast path to the
 * hand-off, src/hw/spinlock.c) becomes the pseudo-function "spin: NAME",
 * a child of the function that took the lock (the kernel's
 * queued_spin_lock_slowpath()).  Its "hold NAME" span is not a function:
 * time under a lock is the time of the functions that run under it.
 *
 * An end that does not match the innermost open span of its context (it
 * should not happen: only lock holds end out of order, and they are not
 * counted) drops the spans above it, whose time stays in the span that
 * opened them; `dropped` counts them.
 *
 * Everything is deterministic: functions are numbered in first-use order
 * by name; the pointer cache in front of that only saves the comparisons.
 * Not thread-safe: one engine runs at a time in a process, as elsewhere.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "mmsim/funcprof.h"
#include "mmsim/trace.h"

#define FP_DEPTH	64		/* open spans per context */
#define FP_MAX_FNS	256		/* functions of a run */
#define FP_KEYS		1024		/* (prefix, name) pointer cache, a power of two */
#define FP_SKIP		UINT16_MAX	/* not a function (a lock hold), or no room */

bool sim_funcprof_active;

/* An open span.  Invariant: child <= clock now - start. */
struct fp_frame {
	const void *key;		/* a lock wait's lock, else NULL */
	sim_time_t start;		/* the context's CPU clock at its begin */
	sim_time_t child;		/* CPU time of the spans it opened (their totals) */
	uint16_t fn;			/* index into fp.fn */
	bool outer;			/* no span of fn open below it */
};

/* A context's call stack.  Invariant: depth <= FP_DEPTH. */
struct fp_stack {
	int depth;
	struct fp_frame f[FP_DEPTH];
};

/* A function.  Invariant: self <= children; the sum of all self + root == cpu. */
struct fp_fn {
	char name[SIM_FUNCTION_NAME];
	bool lock_wait;			/* "spin: NAME": name is the lock class */
	uint64_t calls;			/* spans begun */
	sim_time_t self, children;
};

/* A cached lookup: the pointers a hook passes, and the function they name. */
struct fp_key {
	const char *prefix, *name;
	uint16_t fn;
	bool used;
};

static struct {
	struct fp_fn fn[FP_MAX_FNS];	/* in first-use order */
	unsigned int nr_fn;
	uint64_t nr_unnamed;		/* spans past FP_MAX_FNS functions: not counted */
	struct fp_key keys[FP_KEYS];	/* valid for one engine run (lock names are its) */
	unsigned int nr_keys;
	struct fp_stack **task;		/* by pid; a pid is an index in one engine */
	int nr_task;
	struct fp_stack *idle[SIM_MAX_CPUS];	/* interrupts of an idle vCPU */
	sim_time_t root;		/* the totals of the outermost spans */
	sim_time_t busy0, spin0;	/* the vCPUs' at sim_funcprof_run_begin() */
	sim_time_t cpu, spin;		/* busy and spinning time of the runs that ended */
	uint64_t dropped;
	bool failed;			/* out of memory: collect fails */
} fp;

/* The function named "@prefix@name" by string, added if new; FP_SKIP for a lock hold. */
static uint16_t fp_fn_by_name(const char *prefix, const char *name)
{
	char buf[SIM_FUNCTION_NAME];
	bool wait = false;
	unsigned int i;

	if (prefix && !strcmp(prefix, "hold "))
		return FP_SKIP;
	if (prefix && !strcmp(prefix, "wait ")) {
		wait = true;
		prefix = NULL;
	}
	snprintf(buf, sizeof(buf), "%s%s", prefix ? prefix : "", name ? name : "?");
	for (i = 0; i < fp.nr_fn; i++)
		if (fp.fn[i].lock_wait == wait && !strcmp(fp.fn[i].name, buf))
			return (uint16_t)i;
	if (fp.nr_fn == FP_MAX_FNS)
		return FP_SKIP;
	memcpy(fp.fn[fp.nr_fn].name, buf, sizeof(buf));
	fp.fn[fp.nr_fn].lock_wait = wait;
	return (uint16_t)fp.nr_fn++;
}

/* The function a hook's (@prefix, @name) pointers name: the cache, then the names. */
static uint16_t fp_fn_lookup(const char *prefix, const char *name)
{
	uintptr_t h = ((uintptr_t)prefix * 31u + (uintptr_t)name) * 2654435761u;
	unsigned int i, slot = (unsigned int)(h >> 7) & (FP_KEYS - 1);
	struct fp_key *k;

	for (i = 0; i < FP_KEYS; i++, slot = (slot + 1) & (FP_KEYS - 1)) {
		k = &fp.keys[slot];
		if (!k->used)
			break;
		if (k->prefix == prefix && k->name == name)
			return k->fn;
	}
	if (i == FP_KEYS || fp.nr_keys >= FP_KEYS / 2)
		return fp_fn_by_name(prefix, name);
	k->used = true;
	k->prefix = prefix;
	k->name = name;
	k->fn = fp_fn_by_name(prefix, name);
	fp.nr_keys++;
	return k->fn;
}

/* The stack of the context running on @v, and its CPU clock now; NULL: no memory. */
static struct fp_stack *fp_context(struct sim_vcpu *v, sim_time_t *clock)
{
	struct sim_task *t = v->curr;
	struct fp_stack **slot;

	if (t) {
		*clock = t->sum_exec_ps + (v->now - t->oncpu_since);
		if (t->pid >= fp.nr_task) {
			int n = fp.nr_task ? fp.nr_task : 64;
			struct fp_stack **p;

			while (n <= t->pid)
				n *= 2;
			p = realloc(fp.task, (size_t)n * sizeof(*p));
			if (!p) {
				fp.failed = true;
				return NULL;
			}
			memset(p + fp.nr_task, 0, (size_t)(n - fp.nr_task) * sizeof(*p));
			fp.task = p;
			fp.nr_task = n;
		}
		slot = &fp.task[t->pid];
	} else {
		*clock = v->now;	/* an idle vCPU's interrupt: on the CPU throughout */
		slot = &fp.idle[v->id];
	}
	if (!*slot) {
		*slot = calloc(1, sizeof(**slot));
		if (!*slot)
			fp.failed = true;
	}
	return *slot;
}

/**
 * sim_funcprof_begin() - a span begins on the current vCPU: push its function
 * @prefix: the span's name prefix ("wait ", "hold " for a lock), or NULL
 * @name: its name
 * @key: its object (a lock), or NULL
 *
 * Context: a task or an interrupt handler on a vCPU; sim_funcprof_active.
 */
void sim_funcprof_begin(const char *prefix, const char *name, const void *key)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct fp_stack *st;
	struct fp_frame *f;
	sim_time_t clock;
	uint16_t fn;
	int i;

	if (!v)
		return;
	fn = fp_fn_lookup(prefix, name);
	if (fn == FP_SKIP) {
		fp.nr_unnamed += !(prefix && !strcmp(prefix, "hold "));
		return;
	}
	st = fp_context(v, &clock);
	if (!st)
		return;
	if (st->depth == FP_DEPTH) {
		fprintf(stderr, "mmsim: BUG: --report functions: more than %d spans open on cpu %d (%s)\n",
			FP_DEPTH, v->id, fp.fn[fn].name);
		abort();
	}
	f = &st->f[st->depth];
	f->outer = true;
	for (i = 0; i < st->depth; i++)
		if (st->f[i].fn == fn) {
			f->outer = false;
			break;
		}
	f->fn = fn;
	f->key = key;
	f->start = clock;
	f->child = 0;
	st->depth++;
	fp.fn[fn].calls++;
}

/* Close @st's innermost span at @clock. */
static void fp_pop(struct fp_stack *st, sim_time_t clock)
{
	struct fp_frame *f = &st->f[--st->depth];
	struct fp_fn *fn = &fp.fn[f->fn];
	sim_time_t total = clock - f->start;

	fn->self += total - f->child;
	if (f->outer)
		fn->children += total;
	if (st->depth)
		st->f[st->depth - 1].child += total;
	else
		fp.root += total;
}

/**
 * sim_funcprof_end() - a span ends on the current vCPU: pop its function
 * @key: the object given to begin, or NULL
 *
 * The end of a lock's hold span (its key, and no wait span of that lock
 * innermost) is not a function's: nothing to pop.
 *
 * Context: the task or handler that began it; sim_funcprof_active.
 */
void sim_funcprof_end(const void *key)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct fp_stack *st;
	sim_time_t clock;

	if (!v)
		return;
	st = fp_context(v, &clock);
	if (!st || !st->depth)
		return;
	if (key) {
		if (st->f[st->depth - 1].key == key)
			fp_pop(st, clock);
		return;
	}
	/* A lock wait left open under a plain span: drop it (its time stays below). */
	while (st->depth && st->f[st->depth - 1].key) {
		st->depth--;
		fp.dropped++;
	}
	if (st->depth)
		fp_pop(st, clock);
}

/* The busy and spinning time of @e's vCPUs so far. */
static void fp_engine_time(struct sim_engine *e, sim_time_t *busy, sim_time_t *spin)
{
	int i;

	*busy = *spin = 0;
	for (i = 0; i < e->nr_cpus; i++) {
		*busy += e->vcpus[i].busy_ps;
		*spin += e->vcpus[i].spin_ps;
	}
}

/* Forget every open span (a new engine: new tasks, new lock names). */
static void fp_reset_contexts(void)
{
	int i;

	for (i = 0; i < fp.nr_task; i++)
		if (fp.task[i]) {
			fp.dropped += (uint64_t)fp.task[i]->depth;
			fp.task[i]->depth = 0;
		}
	for (i = 0; i < SIM_MAX_CPUS; i++)
		if (fp.idle[i]) {
			fp.dropped += (uint64_t)fp.idle[i]->depth;
			fp.idle[i]->depth = 0;
		}
	memset(fp.keys, 0, sizeof(fp.keys));
	fp.nr_keys = 0;
}

/**
 * sim_funcprof_run_begin() - an engine run starts
 * @e: the engine
 *
 * Context: sim_engine_run(), before any task runs; sim_funcprof_active.
 */
void sim_funcprof_run_begin(struct sim_engine *e)
{
	fp_reset_contexts();
	fp_engine_time(e, &fp.busy0, &fp.spin0);
}

/**
 * sim_funcprof_run_end() - an engine run has ended: add its CPU time
 * @e: the engine
 *
 * Spans still open (a deadlocked run) are dropped; their time is "[other]".
 *
 * Context: sim_engine_run(), after the last task; sim_funcprof_active.
 */
void sim_funcprof_run_end(struct sim_engine *e)
{
	sim_time_t busy, spin;

	fp_engine_time(e, &busy, &spin);
	fp.cpu += busy - fp.busy0;
	fp.spin += spin - fp.spin0;
	fp_reset_contexts();
}

/* Free the stacks. */
static void fp_free_contexts(void)
{
	int i;

	for (i = 0; i < fp.nr_task; i++)
		free(fp.task[i]);
	free(fp.task);
	fp.task = NULL;
	fp.nr_task = 0;
	for (i = 0; i < SIM_MAX_CPUS; i++) {
		free(fp.idle[i]);
		fp.idle[i] = NULL;
	}
}

/**
 * sim_funcprof_start() - start accumulating (--report functions), from zero
 *
 * Context: outside any engine run.
 */
void sim_funcprof_start(void)
{
	fp_free_contexts();
	memset(&fp, 0, sizeof(fp));
	sim_funcprof_active = true;
	sim_trace_hooks_update();
}

/**
 * sim_funcprof_stop() - stop accumulating; what was gathered stays for collect
 *
 * Context: outside any engine run.
 */
void sim_funcprof_stop(void)
{
	sim_funcprof_active = false;
	sim_trace_hooks_update();
	fp_free_contexts();
}

/* Rows by children time, largest first; then self; then name (deterministic). */
static int fp_row_cmp(const void *a, const void *b)
{
	const struct sim_function_row *x = a, *y = b;

	if (x->children_ps != y->children_ps)
		return x->children_ps > y->children_ps ? -1 : 1;
	if (x->self_ps != y->self_ps)
		return x->self_ps > y->self_ps ? -1 : 1;
	if (x->lock_wait != y->lock_wait)
		return x->lock_wait ? 1 : -1;
	return strcmp(x->name, y->name);
}

/**
 * sim_funcprof_collect() - the table of what was gathered since the start
 * @out: the rows, sorted by children time, and the totals
 *
 * Every function that was called, and "[other]": the CPU time in no span
 * (its self and children), so that the self times sum to out->cpu_ps.
 * Past SIM_MAX_FUNCTIONS rows the smallest are left out (and counted).
 *
 * Return: 0, or -1 when memory ran out while gathering.
 */
int sim_funcprof_collect(struct sim_functions *out)
{
	struct sim_function_row *rows;
	unsigned int i;
	int n = 0;

	memset(out, 0, sizeof(*out));
	rows = calloc(FP_MAX_FNS + 1, sizeof(*rows));
	if (!rows || fp.failed) {
		free(rows);
		return -1;
	}
	for (i = 0; i < fp.nr_fn; i++) {
		if (!fp.fn[i].calls)
			continue;
		memcpy(rows[n].name, fp.fn[i].name, sizeof(rows[n].name));
		rows[n].lock_wait = fp.fn[i].lock_wait;
		rows[n].calls = fp.fn[i].calls;
		rows[n].self_ps = fp.fn[i].self;
		rows[n].children_ps = fp.fn[i].children;
		n++;
	}
	snprintf(rows[n].name, sizeof(rows[n].name), "[other]");
	rows[n].self_ps = rows[n].children_ps = fp.cpu >= fp.root ? fp.cpu - fp.root : 0;
	n++;
	qsort(rows, (size_t)n, sizeof(*rows), fp_row_cmp);
	out->nr = n < SIM_MAX_FUNCTIONS ? n : SIM_MAX_FUNCTIONS;
	out->nr_left_out = n - out->nr;
	memcpy(out->rows, rows, (size_t)out->nr * sizeof(*rows));
	out->cpu_ps = fp.cpu;
	out->spin_ps = fp.spin;
	out->dropped = fp.dropped + fp.nr_unnamed;
	free(rows);
	return 0;
}
