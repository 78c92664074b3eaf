// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cache lines with a last writer.  A touch of a line that another CPU
 * wrote last costs one transfer, by distance: SMT sibling (shared L1/L2),
 * same socket (a HITM snoop through the L3 mesh), other socket (over UPI).
 * Costs come from the profile's [cache] section (docs/costs.md).
 *
 * Left out: the Shared state (a read does not make later reads of the
 * same CPU cheap unless it also wrote the line), capacity misses, and
 * bandwidth limits of the interconnect.
 */
#include "core/engine.h"

int sim_cpu_distance(int a, int b)
{
	const struct sim_vcpu *va, *vb;

	if (a == b)
		return 0;
	va = &sim_engine_current->vcpus[a];
	vb = &sim_engine_current->vcpus[b];
	if (va->socket != vb->socket)
		return 3;
	if (va->core == vb->core)
		return 1;
	return 2;
}

sim_time_t sim_line_transfer_ps(int from, int to)
{
	if (from < 0)
		return sim_engine_current->line_ps[0];
	return sim_engine_current->line_ps[sim_cpu_distance(from, to)];
}

void sim_line_write(struct sim_line *l)
{
	int cpu = sim_vcpu_current->id;

	sim_cost_ps(sim_line_transfer_ps(l->last_writer, cpu));
	l->last_writer = (int16_t)cpu;
}

void sim_line_read(struct sim_line *l)
{
	sim_cost_ps(sim_line_transfer_ps(l->last_writer, sim_vcpu_current->id));
}
