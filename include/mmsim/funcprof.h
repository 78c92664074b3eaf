/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a run's virtual CPU time goes, by modelled kernel function: the
 * table `perf report --children` prints, built from the spans the trace
 * hooks mark (include/mmsim/trace.h), without a trace file.
 *
 *   sim_funcprof_start();            before the scenario's run
 *   ...s->run() (its engine calls sim_funcprof_run_begin() and _end())
 *   sim_funcprof_collect(&res->functions);
 *
 * The span hooks call sim_funcprof_begin()/_end() when sim_funcprof_active;
 * both are gated by the hooks' one flag, sim_trace_enabled, so a run
 * without --report functions (or --trace) pays one branch per hook.
 * Details and what is counted where: src/engine/funcprof.c, docs/report.md.
 */
#ifndef MMSIM_FUNCPROF_H
#define MMSIM_FUNCPROF_H

#include <stdbool.h>

#include "mmsim/scenario.h"
#include "mmsim/sim.h"

extern bool sim_funcprof_active;	/* accumulating; see sim_funcprof_start() */

void sim_funcprof_begin(const char *prefix, const char *name, const void *key);
void sim_funcprof_end(const void *key);

/* The engine, around one sim_engine_run(). */
void sim_funcprof_run_begin(struct sim_engine *e);
void sim_funcprof_run_end(struct sim_engine *e);

/* ---- for the command line ------------------------------------------------ */

void sim_funcprof_start(void);
void sim_funcprof_stop(void);
int sim_funcprof_collect(struct sim_functions *out);

#endif /* MMSIM_FUNCPROF_H */
