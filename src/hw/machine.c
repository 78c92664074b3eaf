// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine: its topology and its hardware costs, read from the profile
 * (docs/costs.md) into struct sim_machine once per engine, so that the
 * hot paths of src/hw (cacheline.c, spinlock.c, ipi.c) read a picosecond
 * count instead of converting a profile value each time.
 *
 * Also the clock: sim_cost_cycles() charges cycles at clock.mhz.
 *
 * Left out: anything that changes during a run (frequency scaling, turbo).
 * No locks: built before the engine runs.
 */
#include <errno.h>
#include <stdlib.h>

#include "hw/machine.h"

struct sim_machine *sim_machine_current;
sim_time_t sim_line_hit_ps;

void sim_machine_cpu_place(const struct sim_profile *p, int cpu, int *socket, int *core,
			   int *smt, int *node)
{
	int per_socket = (int)p->topology_cores_per_socket;
	int siblings_apart = (int)(p->topology_sockets * p->topology_cores_per_socket);
	int rem = cpu % siblings_apart;

	*smt = cpu / siblings_apart;
	*socket = rem / per_socket;
	*core = rem;
	*node = (int)((uint64_t)*socket * p->topology_nodes / p->topology_sockets);
}

static sim_time_t cycles_to_ps(const struct sim_machine *m, uint64_t cycles)
{
	return (cycles * m->ps_per_cycle_q20) >> 20;
}

/**
 * sim_machine_init() - the machine of @p with @nr_cpus CPUs
 * @m: filled in
 * @p: the profile, which must outlive @m
 * @nr_cpus: CPUs simulated, 1 to the profile's
 *
 * Context: before the engine runs.
 * Return: 0, or -ENOMEM (then nothing is left to free).
 */
int sim_machine_init(struct sim_machine *m, const struct sim_profile *p, int nr_cpus)
{
	int i;

	m->profile = p;
	m->nr_cpus = nr_cpus;
	m->mhz = p->clock_mhz;
	m->ps_per_cycle_q20 = (1000000ULL << 20) / p->clock_mhz;
	m->line_ps[0] = p->cache_l1_hit_ns * SIM_NS;
	m->line_ps[1] = p->cache_smt_transfer_ns * SIM_NS;
	m->line_ps[2] = p->cache_socket_transfer_ns * SIM_NS;
	m->line_ps[3] = p->cache_remote_transfer_ns * SIM_NS;
	m->atomic_ps = cycles_to_ps(m, p->lock_atomic_cycles);
	m->pause_half_ps = cycles_to_ps(m, p->lock_pause_cycles) / 2;
	m->trace_end_ps = (sim_time_t)p->lock_contention_trace_ns * SIM_NS;
	m->trace_begin_ps = (sim_time_t)p->lock_contention_begin_ns * SIM_NS;
	m->ipi_send_ps = p->ipi_send_ns * SIM_NS;
	m->ipi_latency_ps = p->ipi_latency_ns * SIM_NS;
	m->irq_entry_exit_ps = p->ipi_entry_exit_ns * SIM_NS;
	m->cpu_topo = calloc((size_t)nr_cpus, sizeof(*m->cpu_topo));
	if (!m->cpu_topo)
		return -ENOMEM;
	for (i = 0; i < nr_cpus; i++) {
		int socket, core, smt, node;

		sim_machine_cpu_place(p, i, &socket, &core, &smt, &node);
		m->cpu_topo[i] = (uint32_t)socket << 16 | (uint32_t)core;
	}
	return 0;
}

/**
 * sim_machine_destroy() - free what sim_machine_init() allocated
 * @m: the machine
 */
void sim_machine_destroy(struct sim_machine *m)
{
	free(m->cpu_topo);
	m->cpu_topo = NULL;
	if (sim_machine_current == m)
		sim_machine_set_current(NULL);
}

/**
 * sim_machine_set_current() - make @m the machine that src/hw charges for
 * @m: the machine, or NULL
 *
 * Context: the engine, when it is created and when it runs.
 */
void sim_machine_set_current(struct sim_machine *m)
{
	sim_machine_current = m;
	sim_line_hit_ps = m ? m->line_ps[0] : 0;
}

/**
 * sim_cycles_to_ps() - @cycles at the current machine's clock
 * @cycles: cycles
 *
 * Return: picoseconds, rounded down.
 */
sim_time_t sim_cycles_to_ps(uint64_t cycles)
{
	return cycles_to_ps(sim_machine_current, cycles);
}

/**
 * sim_cost_cycles() - charge @cycles of the current machine's clock
 * @cycles: cycles
 *
 * Context: a task or an interrupt handler.
 */
void sim_cost_cycles(uint64_t cycles)
{
	sim_cost_ps(sim_cycles_to_ps(cycles));
}
