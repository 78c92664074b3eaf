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
 * sim_trace_begin_obj() and sim_trace_end_obj().  An end that does not
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

extern bool sim_trace_enabled;		/* recording; false: hooks do nothing */

void sim_trace_begin_slow(const char *cat, const char *prefix,
			  const char *name, const void *key);
void sim_trace_end_slow(const void *key);

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
