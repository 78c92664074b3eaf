// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timeline of a run: spans of virtual time per vCPU, kept in memory
 * and written as Chrome trace-event JSON (the "JSON Object Format" of the
 * Trace Event Format document, which Perfetto and chrome://tracing read).
 *
 * Models nothing of the kernel; it plays the part of ftrace.  Each vCPU
 * has a stack of open spans.  sim_trace_begin*() pushes one stamped with
 * the vCPU's virtual time; sim_trace_end*() pops the innermost and
 * records one complete event ("ph":"X") with its start and duration.  A
 * vCPU's clock never goes back, and spans are popped in LIFO order, so
 * the events of one track are always well nested:
 *
 *   begin A (t0)  begin B (t1)  end B (t2)  end A (t3)
 *   => X A [t0, t3] contains X B [t1, t2]
 *
 * An end that does not match the innermost span (a lock released while a
 * later one is still held, or another task's span left open on a vCPU
 * across a sleep) marks its span dropped instead; dropped spans are
 * discarded when they become innermost and are counted in the file.
 *
 * Besides complete events, three kinds are recorded as they happen:
 *   flows     "s" (start) in the sender's open span and "f" (finish,
 *             "bp":"e": bound to the enclosing span) in the handler's, one
 *             pair per IPI function call, the id unique in the file;
 *   counters  "C", one track per (name, object), a point when the value
 *             changes: an LRU list's size, a lock class's queue depth;
 *   args      on a complete event: the task that opened it ("task":
 *             "comm/pid"), the object of an object span ("lock"), and one
 *             count (e.g. "folios") from sim_trace_arg().
 * Flows use the first version of the format ("s"/"f" events with an id)
 * rather than "bind_id" on the slices, because one send span fans out to
 * many handlers, and a slice has one bind_id.
 *
 * Size: recording stops after `limit` events (--trace-limit); the file
 * then says so in its otherData and in a metadata event.  The events are
 * stored as small records with interned names and formatted only when the
 * file is written, so that a run with tracing off pays one branch per
 * hook (sim_trace_enabled) and a run with tracing on pays no printf.
 *
 * Everything is deterministic: the engine decides the order in which
 * spans end, names are interned in first-use order, and times are printed
 * exactly (picoseconds as microseconds with six decimals).
 *
 * Not thread-safe: one engine runs at a time in a process, as elsewhere.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/funcprof.h"
#include "mmsim/output.h"
#include "mmsim/trace.h"

#define TRACE_DEPTH	64		/* open spans per vCPU */
#define TRACE_NAME_MAX	96
#define TRACE_HASH	4096		/* interned names, a power of two */
#define TRACE_COUNTERS	512		/* counter tracks, a power of two */
#define TRACE_NONE	UINT32_MAX	/* no name interned */

bool sim_trace_enabled;

/* What a complete event says besides its name: "args". */
struct trace_args {
	uint32_t comm;			/* the task's comm, interned, or TRACE_NONE */
	int32_t pid;			/* its pid */
	uint32_t obj;			/* an object span's object (lock name), or TRACE_NONE */
	uint32_t count_key;		/* sim_trace_arg()'s key, or TRACE_NONE */
	int64_t count;
};

/* An open span on a vCPU's stack. */
struct trace_open {
	sim_time_t start;
	const void *key;		/* the object, or NULL */
	const struct sim_task *task;	/* who opened it (compared only) */
	uint32_t name, cat;		/* interned */
	struct trace_args args;
	bool dropped;			/* ended out of order: discard */
};

/* Invariant: depth <= TRACE_DEPTH; overflow counts pushes not stored. */
struct trace_stack {
	int depth, overflow;
	struct trace_open open[TRACE_DEPTH];
};

/* One event: complete ('X'), flow start ('s') or end ('f'), counter ('C'). */
struct trace_event {
	sim_time_t ts, dur;		/* dur: 'X' only */
	uint32_t name, cat;
	uint32_t tid;
	char ph;
	int64_t value;			/* 'C': the value; 's', 'f': the flow id */
	struct trace_args args;		/* 'X' only */
};

/* A counter track.  Invariant: value == the sum of what was added. */
struct trace_counter {
	const void *key;		/* the object; NULL: an empty slot */
	uint32_t name;			/* the name given */
	uint32_t track;			/* its track's name: name, or "name #N" */
	int64_t value;
	bool shown;			/* a point recorded */
	int64_t last;			/* the value of the last point */
};

static struct {
	bool active;				/* between start and stop */
	uint64_t limit;
	struct trace_event *ev;
	uint64_t nr, cap;
	struct trace_stack *stacks[SIM_MAX_CPUS];
	uint8_t used[SIM_MAX_CPUS];		/* tracks that have events */
	char (*names)[TRACE_NAME_MAX];		/* interned, in first-use order */
	uint32_t nr_names, cap_names;
	uint32_t hash[TRACE_HASH];		/* name index + 1, 0: empty */
	bool truncated;
	sim_time_t stopped_at;
	uint64_t dropped;
	uint64_t nr_flows;			/* the last flow id */
	struct trace_counter counters[TRACE_COUNTERS];
	uint32_t nr_counters;
} tr;

/**
 * sim_trace_hooks_update() - turn the hooks on while the trace or the report needs them
 *
 * The span hooks feed both the trace (when recording) and --report
 * functions (src/engine/funcprof.c); sim_trace_enabled is their one flag.
 */
void sim_trace_hooks_update(void)
{
	sim_trace_enabled = tr.active || sim_funcprof_active;
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The index of @s in the name table, adding it; UINT32_MAX when full. */
static uint32_t trace_intern(const char *prefix, const char *name)
{
	char buf[TRACE_NAME_MAX];
	uint32_t h, i;

	snprintf(buf, sizeof(buf), "%s%s", prefix ? prefix : "", name ? name : "?");
	h = fnv1a(buf) & (TRACE_HASH - 1);
	for (i = 0; i < TRACE_HASH; i++, h = (h + 1) & (TRACE_HASH - 1)) {
		uint32_t k = tr.hash[h];

		if (!k)
			break;
		if (!strcmp(tr.names[k - 1], buf))
			return k - 1;
	}
	if (i == TRACE_HASH || tr.nr_names >= TRACE_HASH / 2)
		return TRACE_NONE;
	if (tr.nr_names == tr.cap_names) {
		uint32_t cap = tr.cap_names ? tr.cap_names * 2 : 64;
		void *n = realloc(tr.names, (size_t)cap * TRACE_NAME_MAX);

		if (!n)
			return TRACE_NONE;
		tr.names = n;
		tr.cap_names = cap;
	}
	memcpy(tr.names[tr.nr_names], buf, sizeof(buf));
	tr.hash[h] = ++tr.nr_names;
	return tr.nr_names - 1;
}

static void trace_limit_reached(void)
{
	tr.active = false;
	sim_trace_hooks_update();
	tr.truncated = true;
	tr.stopped_at = sim_vcpu_current ? sim_vcpu_current->now : 0;
}

/* A new event, or NULL when the limit (or memory) stops recording. */
static struct trace_event *trace_new_event(void)
{
	if (tr.nr >= tr.limit) {
		trace_limit_reached();
		return NULL;
	}
	if (tr.nr == tr.cap) {
		uint64_t cap = tr.cap ? tr.cap * 2 : 4096;
		void *n;

		if (cap > tr.limit)
			cap = tr.limit;
		n = realloc(tr.ev, cap * sizeof(*tr.ev));
		if (!n) {
			trace_limit_reached();
			return NULL;
		}
		tr.ev = n;
		tr.cap = cap;
	}
	return &tr.ev[tr.nr++];
}

static void trace_record(struct trace_open *o, int cpu, sim_time_t end)
{
	struct trace_event *e = trace_new_event();

	if (!e)
		return;
	e->ph = 'X';
	e->value = 0;
	e->args = o->args;
	e->ts = o->start;
	e->dur = end - o->start;
	e->name = o->name;
	e->cat = o->cat;
	e->tid = (uint32_t)cpu;
	tr.used[cpu] = 1;
}

/**
 * sim_trace_begin_slow() - open a span on the current vCPU
 * @cat: its category ("lock", "ipi", "mm")
 * @prefix: put before @name, or NULL
 * @name: its name; copied
 * @key: the object it belongs to, or NULL
 *
 * Context: a task or an interrupt handler on a vCPU; tracing on.
 */
void sim_trace_begin_slow(const char *cat, const char *prefix,
			  const char *name, const void *key)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct trace_stack *st;
	struct trace_open *o;

	if (sim_funcprof_active)
		sim_funcprof_begin(prefix, name, key);
	if (!v || !tr.active)
		return;
	st = tr.stacks[v->id];
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st) {
			trace_limit_reached();
			return;
		}
		tr.stacks[v->id] = st;
	}
	if (st->depth == TRACE_DEPTH) {
		st->overflow++;
		return;
	}
	o = &st->open[st->depth++];
	o->start = v->now;
	o->key = key;
	o->task = v->curr;
	o->cat = trace_intern(NULL, cat);
	o->name = trace_intern(prefix, name);
	o->dropped = o->cat == TRACE_NONE || o->name == TRACE_NONE;
	o->args.comm = v->curr ? trace_intern(NULL, v->curr->comm) : TRACE_NONE;
	o->args.pid = v->curr ? v->curr->pid : 0;
	o->args.obj = prefix ? trace_intern(NULL, name) : TRACE_NONE;
	o->args.count_key = TRACE_NONE;
	o->args.count = 0;
}

/**
 * sim_trace_arg_slow() - a count on the current vCPU's innermost open span
 * @key: its name in the event's args, e.g. "folios"
 * @value: the count
 *
 * Context: the task or handler that opened the span; tracing on.
 */
void sim_trace_arg_slow(const char *key, int64_t value)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct trace_stack *st;

	if (!v || !tr.active)
		return;
	st = tr.stacks[v->id];
	if (!st || !st->depth || st->overflow)
		return;
	st->open[st->depth - 1].args.count_key = trace_intern(NULL, key);
	st->open[st->depth - 1].args.count = value;
}

/**
 * sim_trace_flow_slow() - one end of a flow, on the current vCPU, now
 * @cat: its category
 * @name: its name, the same at both ends
 * @id: 0: start a flow; else the id its start returned: end it
 *
 * Context: inside the span the end binds to (the innermost open one).
 * Return: the flow's id; 0 if nothing was recorded.
 */
uint64_t sim_trace_flow_slow(const char *cat, const char *name, uint64_t id)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct trace_event *e;

	if (!v || !tr.active)
		return 0;
	e = trace_new_event();
	if (!e)
		return 0;
	e->ph = id ? 'f' : 's';
	e->value = (int64_t)(id ? id : ++tr.nr_flows);
	e->ts = v->now;
	e->dur = 0;
	e->cat = trace_intern(NULL, cat);
	e->name = trace_intern(NULL, name);
	e->tid = (uint32_t)v->id;
	tr.used[v->id] = 1;
	if (e->cat == TRACE_NONE || e->name == TRACE_NONE) {
		tr.nr--;
		return 0;
	}
	return (uint64_t)e->value;
}

/* The counter track of ("@prefix@name", @key), made on first use; NULL when full. */
static struct trace_counter *trace_counter_find(const char *prefix, const char *name,
					       const void *key)
{
	uint32_t nm = trace_intern(prefix, name), h, i, same = 0;
	struct trace_counter *ct;

	if (nm == TRACE_NONE)
		return NULL;
	h = (uint32_t)(((uintptr_t)key >> 4) * 2654435761u + nm) & (TRACE_COUNTERS - 1);
	for (i = 0; i < TRACE_COUNTERS; i++, h = (h + 1) & (TRACE_COUNTERS - 1)) {
		ct = &tr.counters[h];
		if (!ct->key)
			break;
		if (ct->key == key && ct->name == nm)
			return ct;
	}
	if (i == TRACE_COUNTERS || tr.nr_counters >= TRACE_COUNTERS / 2)
		return NULL;
	/* the N-th object with this name: "name #N" (numbered in first-use order) */
	for (i = 0; i < TRACE_COUNTERS; i++)
		same += tr.counters[i].key && tr.counters[i].name == nm;
	ct->key = key;
	ct->name = nm;
	if (same) {
		char n[24];

		snprintf(n, sizeof(n), " #%u", same + 1);
		ct->track = trace_intern(tr.names[nm], n);
	} else {
		ct->track = nm;
	}
	tr.nr_counters++;
	return ct->track == TRACE_NONE ? NULL : ct;
}

/**
 * sim_trace_counter_slow() - set or add to a counter; a point if it changed
 * @prefix: put before @name, or NULL
 * @name: the counter, e.g. "nr_" "inactive_anon"
 * @key: the object it counts for (one track per object)
 * @value: the new value, or the change if @add
 * @add: whether @value is a change
 *
 * Context: a task or handler on a vCPU; tracing on.
 */
void sim_trace_counter_slow(const char *prefix, const char *name, const void *key,
			    int64_t value, bool add)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct trace_counter *ct;
	struct trace_event *e;

	if (!v || !tr.active || !key)
		return;
	ct = trace_counter_find(prefix, name, key);
	if (!ct)
		return;
	ct->value = add ? ct->value + value : value;
	if (ct->shown && ct->last == ct->value)
		return;
	e = trace_new_event();
	if (!e)
		return;
	ct->shown = true;
	ct->last = ct->value;
	e->ph = 'C';
	e->value = ct->value;
	e->ts = v->now;
	e->dur = 0;
	e->name = ct->track;
	e->cat = TRACE_NONE;
	e->tid = 0;
}

/**
 * sim_trace_end_slow() - close the current vCPU's innermost span
 * @key: the object given to begin, or NULL for a span without one
 *
 * A span that is not innermost is dropped (see the file's comment).
 *
 * Context: the task or handler that opened it; tracing on.
 */
void sim_trace_end_slow(const void *key)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct trace_stack *st;
	struct trace_open *o;
	int i;

	if (sim_funcprof_active)
		sim_funcprof_end(key);
	if (!v || !tr.active)
		return;
	st = tr.stacks[v->id];
	if (!st)
		return;
	if (st->overflow) {
		st->overflow--;
		return;
	}
	if (!st->depth)
		return;
	o = &st->open[st->depth - 1];
	if (o->key == key && o->task == v->curr) {
		st->depth--;
		if (!o->dropped)
			trace_record(o, v->id, v->now);
		else
			tr.dropped++;
		/* Spans ended out of order below it are gone now. */
		while (st->depth && st->open[st->depth - 1].dropped) {
			st->depth--;
			tr.dropped++;
		}
		return;
	}
	/* Out of order: drop the matching span, keep the file nested. */
	for (i = st->depth - 1; i >= 0; i--)
		if (st->open[i].key == key && st->open[i].task == v->curr &&
		    !st->open[i].dropped) {
			st->open[i].dropped = true;
			return;
		}
}

/**
 * sim_trace_start() - start recording (the command line's --trace)
 * @limit: stop after this many events
 *
 * Context: outside any engine run.
 * Return: 0.
 */
int sim_trace_start(uint64_t limit)
{
	sim_trace_release();
	tr.limit = limit;
	tr.active = true;
	sim_trace_hooks_update();
	return 0;
}

/**
 * sim_trace_stop() - stop recording; open spans are forgotten
 *
 * Context: outside any engine run.
 */
void sim_trace_stop(void)
{
	int i;

	tr.active = false;
	sim_trace_hooks_update();
	for (i = 0; i < SIM_MAX_CPUS; i++)
		if (tr.stacks[i])
			tr.stacks[i]->depth = tr.stacks[i]->overflow = 0;
}

/** sim_trace_truncated() - Return: whether --trace-limit stopped recording. */
bool sim_trace_truncated(void)
{
	return tr.truncated;
}

/** sim_trace_nr_events() - Return: the complete events recorded. */
uint64_t sim_trace_nr_events(void)
{
	return tr.nr;
}

/** sim_trace_stopped_at() - Return: virtual time when the limit stopped it. */
sim_time_t sim_trace_stopped_at(void)
{
	return tr.stopped_at;
}

/* Picoseconds as microseconds with six exact decimals. */
static void print_us(struct sim_out *o, sim_time_t ps)
{
	sim_out_printf(o, "%" PRIu64 ".%06" PRIu64, ps / SIM_US, ps % SIM_US);
}

/* A JSON string; names are identifiers, but escape what JSON needs. */
static void print_str(struct sim_out *o, const char *s)
{
	sim_out_write(o, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sim_out_printf(o, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			sim_out_printf(o, "\\u%04x", (unsigned char)*s);
		else
			sim_out_write(o, s, 1);
	}
	sim_out_write(o, "\"", 1);
}

/* A complete event's args: its task, its object, its count. */
static void print_args(struct sim_out *o, const struct trace_event *e)
{
	const struct trace_args *a = &e->args;
	const char *sep = "";

	if (a->comm == TRACE_NONE && a->obj == TRACE_NONE && a->count_key == TRACE_NONE)
		return;
	sim_out_printf(o, ",\"args\":{");
	if (a->comm != TRACE_NONE) {
		char task[TRACE_NAME_MAX + 16];

		snprintf(task, sizeof(task), "%s/%d", tr.names[a->comm], (int)a->pid);
		sim_out_printf(o, "\"task\":");
		print_str(o, task);
		sep = ",";
	}
	if (a->obj != TRACE_NONE) {
		sim_out_printf(o, "%s\"%s\":", sep, !strcmp(tr.names[e->cat], "lock") ? "lock" : "object");
		print_str(o, tr.names[a->obj]);
		sep = ",";
	}
	if (a->count_key != TRACE_NONE) {
		sim_out_printf(o, "%s", sep);
		print_str(o, tr.names[a->count_key]);
		sim_out_printf(o, ":%" PRId64, a->count);
	}
	sim_out_printf(o, "}");
}

/**
 * sim_trace_write_process() - the recorded timeline as one process's events
 * @o: the sink
 * @pid: the process id it gets in the trace (one per variant run)
 * @process_name: its name, e.g. the scenario, variant and seed
 * @first: the first events of the document (no leading comma)
 *
 * One event per line: the process name, thread names ("vCPU N", sorted by
 * id), then the complete events in the order they ended, then, when the
 * limit stopped recording, a metadata event "mmsim_trace_stopped".
 *
 * Return: 0, or -1 when the sink failed.
 */
int sim_trace_write_process(struct sim_out *o, int pid, const char *process_name, bool first)
{
	uint64_t i;
	int cpu;

	sim_out_printf(o, "%s{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_name\","
		       "\"args\":{\"name\":", first ? "" : ",\n", pid);
	print_str(o, process_name);
	sim_out_printf(o, "}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_sort_index\","
		       "\"args\":{\"sort_index\":%d}}", pid, pid);
	for (cpu = 0; cpu < SIM_MAX_CPUS; cpu++) {
		if (!tr.used[cpu])
			continue;
		sim_out_printf(o, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\","
			       "\"args\":{\"name\":\"vCPU %d\"}}", pid, cpu, cpu);
		sim_out_printf(o, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			       "\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
			       pid, cpu, cpu);
	}
	for (i = 0; i < tr.nr; i++) {
		const struct trace_event *e = &tr.ev[i];

		if (e->ph == 'C') {
			sim_out_printf(o, ",\n{\"ph\":\"C\",\"pid\":%d,\"tid\":0,\"name\":", pid);
			print_str(o, tr.names[e->name]);
			sim_out_printf(o, ",\"ts\":");
			print_us(o, e->ts);
			sim_out_printf(o, ",\"args\":{\"value\":%" PRId64 "}}", e->value);
			continue;
		}
		sim_out_printf(o, ",\n{\"ph\":\"%c\",\"pid\":%d,\"tid\":%u,\"cat\":", e->ph, pid,
			       e->tid);
		print_str(o, tr.names[e->cat]);
		sim_out_printf(o, ",\"name\":");
		print_str(o, tr.names[e->name]);
		sim_out_printf(o, ",\"ts\":");
		print_us(o, e->ts);
		if (e->ph != 'X') {
			/* the flow's id, unique in the file: the process in the high bits */
			sim_out_printf(o, ",\"id\":%" PRIu64 "%s}",
				       ((uint64_t)pid << 32) | (uint64_t)e->value,
				       e->ph == 'f' ? ",\"bp\":\"e\"" : "");
			continue;
		}
		sim_out_printf(o, ",\"dur\":");
		print_us(o, e->dur);
		print_args(o, e);
		sim_out_printf(o, "}");
	}
	if (tr.truncated) {
		sim_out_printf(o, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
			       "\"name\":\"mmsim_trace_stopped\",\"args\":{\"reason\":"
			       "\"--trace-limit %" PRIu64 " events reached\",\"at_us\":",
			       pid, tr.limit);
		print_us(o, tr.stopped_at);
		sim_out_printf(o, "}}");
	}
	return o->failed ? -1 : 0;
}

/* The number of spans dropped by the current recording (ended out of order). */
uint64_t sim_trace_dropped(void)
{
	return tr.dropped;
}

/**
 * sim_trace_write_begin() - the start of a trace-event JSON document
 * @o: the sink
 *
 * Then one sim_trace_write_process() per process, then sim_trace_write_end().
 */
void sim_trace_write_begin(struct sim_out *o)
{
	sim_out_printf(o, "{\"displayTimeUnit\":\"ns\",\n\"traceEvents\":[\n");
}

/**
 * sim_trace_write_end() - the end of the document, with its counts
 * @o: the sink
 * @events: complete events of all its processes
 * @limit: --trace-limit, per process
 * @truncated: whether any process stopped recording at the limit
 * @dropped: spans dropped, all processes
 *
 * Return: 0, or -1 when the sink failed.
 */
int sim_trace_write_end(struct sim_out *o, uint64_t events, uint64_t limit, bool truncated,
			uint64_t dropped)
{
	sim_out_printf(o, "\n],\n\"otherData\":{\"clock\":\"virtual\",\"events\":%" PRIu64
		       ",\"limit\":%" PRIu64 ",\"truncated\":%s,\"dropped_spans\":%" PRIu64 "}}\n",
		       events, limit, truncated ? "true" : "false", dropped);
	return o->failed ? -1 : 0;
}

/**
 * sim_trace_write() - the recorded timeline as a document of one process
 * @o: the sink
 * @process_name: the name of the one process (pid 1)
 *
 * Return: 0, or -1 when the sink failed.
 */
int sim_trace_write(struct sim_out *o, const char *process_name)
{
	sim_trace_write_begin(o);
	sim_trace_write_process(o, 1, process_name, true);
	return sim_trace_write_end(o, tr.nr, tr.limit, tr.truncated, tr.dropped);
}

/**
 * sim_trace_release() - forget everything recorded
 */
void sim_trace_release(void)
{
	int i;

	for (i = 0; i < SIM_MAX_CPUS; i++) {
		free(tr.stacks[i]);
		tr.stacks[i] = NULL;
	}
	free(tr.ev);
	free(tr.names);
	memset(&tr, 0, sizeof(tr));
	sim_trace_hooks_update();
}
