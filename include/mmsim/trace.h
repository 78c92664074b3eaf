/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's timeline: spans of virtual time per vCPU, written as a
 * Chrome trace-event JSON file that Perfetto (ui.perfetto.dev) and
 * chrome://tracing open.
 *
 * Model code marks a span with sim_trace_begin()/sim_trace_end() on the
 * current vCPU.  Spans nest and end in LIFO order per vCPU, like the
 * kernel's tracepoint pairs.  A span is timed by the vCPU's virtual clock,
 * so tracing changes no result.  When tracing is off (always, unless the
 * command line started it) each hook is one load and one branch.
 *
 *   sim_trace_begin("mm", "handle_mm_fault");
 *   ...
 *   sim_trace_end();
 *
 * Spans of an object that may be ended out of order (a lock released
 * while a later one is still held) carry the object as a key:
 * sim_trace_begin_obj() and sim_trace_end_obj().
 *
 * A function's span in one line, ended at whatever return (the compiler's
 * cleanup attribute), optionally with a count as its argument:
 *
 *   SIM_TRACE_SCOPE_ARG("reclaim", "shrink_folio_list", "folios", nr_taken);
 *
 * Besides spans: a flow from one vCPU's span to another's (an IPI's send
 * to its handler: sim_trace_flow_out() returns the id the handler gives
 * sim_trace_flow_in()), and counters, one track each (an LRU list's size,
 * a lock's queue depth: sim_trace_counter(), sim_trace_counter_add()).  An end that does not
 * match the vCPU's innermost open span drops that span (it is counted as
 * dropped in the file), so the file stays well nested.
 *
 * Where hooks are, and where they should go, is listed in docs/trace.md.
 */
#ifndef MMSIM_TRACE_H
#define MMSIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "mmsim/sim.h"

struct sim_out;

/* the hooks are on: recording a trace, or --report functions (funcprof.h) */
extern bool sim_trace_enabled;
void sim_trace_hooks_update(void);

void sim_trace_begin_slow(const char *cat, const char *prefix,
			  const char *name, const void *key);
void sim_trace_end_slow(const void *key);
void sim_trace_arg_slow(const char *key, int64_t value);
uint64_t sim_trace_flow_slow(const char *cat, const char *name, uint64_t id);
void sim_trace_counter_slow(const char *prefix, const char *name, const void *key,
			    int64_t value, bool add);

/* Open a span @name of category @cat on this vCPU, now. */
static inline void sim_trace_begin(const char *cat, const char *name)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		sim_trace_begin_slow(cat, NULL, name, NULL);
}

/* Close this vCPU's innermost span, now. */
static inline void sim_trace_end(void)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		sim_trace_end_slow(NULL);
}

/* A span of object @key, named "@prefix@name" (e.g. "wait lru_lock"). */
static inline void sim_trace_begin_obj(const char *cat, const char *prefix,
				       const char *name, const void *key)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		sim_trace_begin_slow(cat, prefix, name, key);
}

/* Close the span of object @key if it is this vCPU's innermost. */
static inline void sim_trace_end_obj(const void *key)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		sim_trace_end_slow(key);
}

/* A count (@key, e.g. "folios") on this vCPU's innermost open span. */
static inline void sim_trace_arg(const char *key, int64_t value)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		sim_trace_arg_slow(key, value);
}

/*
 * The start of a flow (an arrow) in this vCPU's innermost span, now.
 * Return: its id, for sim_trace_flow_in(); 0 when tracing is off.
 */
static inline uint64_t sim_trace_flow_out(const char *cat, const char *name)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		return sim_trace_flow_slow(cat, name, 0);
	return 0;
}

/* The end of flow @id in the span this vCPU has just opened; same @cat, @name. */
static inline void sim_trace_flow_in(const char *cat, const char *name, uint64_t id)
{
	if (__builtin_expect(sim_trace_enabled, 0) && id)
		sim_trace_flow_slow(cat, name, id);
}

/* Counter "@prefix@name" of object @key is @value from now (a point if it changed). */
static inline void sim_trace_counter(const char *prefix, const char *name, const void *key,
				     int64_t value)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		sim_trace_counter_slow(prefix, name, key, value, false);
}

/* Counter "@prefix@name" of object @key changes by @delta now. */
static inline void sim_trace_counter_add(const char *prefix, const char *name, const void *key,
					 int64_t delta)
{
	if (__builtin_expect(sim_trace_enabled, 0))
		sim_trace_counter_slow(prefix, name, key, delta, true);
}

/* A span that ends when the enclosing block does (SIM_TRACE_SCOPE). */
struct sim_trace_scope {
	bool on;			/* begun: tracing was on */
};

static inline struct sim_trace_scope sim_trace_scope_begin(const char *cat, const char *name,
							   const char *arg, int64_t value)
{
	struct sim_trace_scope sc = { .on = sim_trace_enabled };

	if (__builtin_expect(sc.on, 0)) {
		sim_trace_begin_slow(cat, NULL, name, NULL);
		if (arg)
			sim_trace_arg_slow(arg, value);
	}
	return sc;
}

static inline void sim_trace_scope_end(struct sim_trace_scope *sc)
{
	if (__builtin_expect(sc->on, 0))
		sim_trace_end_slow(NULL);
}

#define SIM_TRACE_CONCAT_(a, b)	a##b
#define SIM_TRACE_CONCAT(a, b)	SIM_TRACE_CONCAT_(a, b)
/* A span @name of category @cat from here to the end of the block. */
#define SIM_TRACE_SCOPE(cat, name)						\
	SIM_TRACE_SCOPE_ARG(cat, name, NULL, 0)
/* The same, with the count @arg = @value. */
#define SIM_TRACE_SCOPE_ARG(cat, name, arg, value)				\
	struct sim_trace_scope SIM_TRACE_CONCAT(sim_trace_scope_, __LINE__)	\
		__attribute__((cleanup(sim_trace_scope_end), unused)) =		\
		sim_trace_scope_begin(cat, name, arg, value)

/* ---- for the command line ------------------------------------------------ */

int sim_trace_start(uint64_t limit);
void sim_trace_stop(void);
bool sim_trace_truncated(void);
uint64_t sim_trace_nr_events(void);
sim_time_t sim_trace_stopped_at(void);
int sim_trace_write(struct sim_out *o, const char *process_name);
/* One document of several processes (one per variant run): begin, a process each, end. */
void sim_trace_write_begin(struct sim_out *o);
int sim_trace_write_process(struct sim_out *o, int pid, const char *process_name, bool first);
int sim_trace_write_end(struct sim_out *o, uint64_t events, uint64_t limit, bool truncated,
			uint64_t dropped);
uint64_t sim_trace_dropped(void);
void sim_trace_release(void);

#endif /* MMSIM_TRACE_H */
