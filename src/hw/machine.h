/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine a run simulates: its topology and the costs of its hardware
 * (cache-line transfers, atomics, PAUSE, IPIs), in picoseconds, taken from
 * the profile once when the engine is created.  src/hw reads its costs
 * here, never from the engine: the engine holds a machine (struct
 * sim_engine.machine) and makes it the current one while it runs, as it
 * does with its counters.
 */
#ifndef MMSIM_HW_MACHINE_H
#define MMSIM_HW_MACHINE_H

#include "mmsim/hw.h"
#include "mmsim/profile.h"

/*
 * Invariants: cpu_topo[cpu] == socket << 16 | core, by sim_machine_cpu_place();
 * ps_per_cycle_q20 == (10^6 << 20) / mhz.
 */
struct sim_machine {
	const struct sim_profile *profile;
	int nr_cpus;			/* CPUs simulated (<= the profile's) */
	uint32_t *cpu_topo;		/* [nr_cpus]: socket << 16 | core */
	uint64_t mhz;			/* clock.mhz */
	uint64_t ps_per_cycle_q20;	/* ps per cycle, 20 fractional bits */
	sim_time_t line_ps[4];		/* a line's transfer, by sim_cpu_distance() */
	sim_time_t atomic_ps;		/* lock.atomic_cycles */
	sim_time_t pause_half_ps;	/* half of lock.pause_cycles */
	sim_time_t trace_end_ps;	/* lock.contention_trace_ns */
	sim_time_t trace_begin_ps;	/* lock.contention_begin_ns */
	sim_time_t ipi_send_ps;		/* ipi.send_ns, per target */
	sim_time_t ipi_latency_ps;	/* ipi.latency_ns, send to arrival */
	sim_time_t irq_entry_exit_ps;	/* ipi.entry_exit_ns, on the receiver */
};

/* The machine of the engine that runs (or was created last). */
extern struct sim_machine *sim_machine_current;

/*
 * Where Linux numbers @cpu on @p's machine (Intel servers): first one
 * thread of every core, socket by socket, then the SMT siblings in the
 * same order.  @core counts cores across sockets; @smt is the thread.
 */
void sim_machine_cpu_place(const struct sim_profile *p, int cpu, int *socket, int *core,
			   int *smt, int *node);
int sim_machine_init(struct sim_machine *m, const struct sim_profile *p, int nr_cpus);
void sim_machine_destroy(struct sim_machine *m);
void sim_machine_set_current(struct sim_machine *m);

#endif /* MMSIM_HW_MACHINE_H */
