// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cache lines with a last writer.  A touch of a line that another CPU
 * wrote last costs one transfer, by distance: SMT sibling (shared L1/L2),
 * same socket (a HITM snoop through the L3 mesh), other socket (over UPI).
 * Costs come from the profile's [cache] section (docs/costs.md).
 *
 * Stores overlap: see sim_line_write() in include/mmsim/hw.h (the store
 * buffer and its parallel RFOs, Intel SDM vol. 3 section 8.2, TSO).
 * A line that many CPUs write with atomics (a lock or reference count word)
 * serves one RMW at a time: sim_line_rmw_queued() makes it a FIFO queue in
 * virtual time, each RMW owning the line for its transfer and its atomic,
 * as a contended spinlock's word is handed from waiter to waiter
 * (src/hw/spinlock.c).
 *
 * Left out: the Shared state (a read does not make later reads of the
 * same CPU cheap unless it also wrote the line), capacity misses, and
 * bandwidth limits of the interconnect.
 */
#include "hw/machine.h"

int sim_cpu_distance(int a, int b)
{
	uint32_t ta, tb;

	if (a == b)
		return 0;
	ta = sim_machine_current->cpu_topo[a];
	tb = sim_machine_current->cpu_topo[b];
	if (ta == tb)
		return 1;		/* same socket and core: SMT siblings */
	if ((ta >> 16) == (tb >> 16))
		return 2;
	return 3;
}

sim_time_t sim_line_transfer_ps(int from, int to)
{
	if (from < 0)
		return sim_machine_current->line_ps[0];
	return sim_machine_current->line_ps[sim_cpu_distance(from, to)];
}


void sim_line_write_slow(struct sim_line *l)
{
	struct sim_vcpu *v = sim_vcpu_current;
	sim_time_t hit = sim_machine_current->line_ps[0];
	sim_time_t t = sim_line_transfer_ps(l->last_writer, v->id);

	l->last_writer = (int16_t)v->id;
	if (t > hit && v->now + t > v->stores_done)
		v->stores_done = v->now + t;
	sim_cost_ps(hit);
}

void sim_line_read_slow(struct sim_line *l)
{
	sim_cost_ps(sim_line_transfer_ps(l->last_writer, sim_vcpu_current->id));
}

void sim_store_drain(void)
{
	struct sim_vcpu *v = sim_vcpu_current;

	if (v->stores_done > v->now)
		sim_cost_ps(v->stores_done - v->now);
}

void sim_line_rmw(struct sim_line *l)
{
	struct sim_vcpu *v;

	sim_store_drain();
	v = sim_vcpu_current;
	sim_cost_ps(sim_line_transfer_ps(l->last_writer, v->id) + sim_machine_current->atomic_ps);
	l->last_writer = (int16_t)sim_vcpu_current->id;
}

void sim_line_rmw_measured(struct sim_line *l)
{
	sim_store_drain();
	if (l->last_writer != sim_vcpu_current->id)
		sim_cost_ps(sim_line_transfer_ps(l->last_writer, sim_vcpu_current->id));
	l->last_writer = (int16_t)sim_vcpu_current->id;
}

void sim_line_rmw_queued(struct sim_line *l, sim_time_t *busy_until)
{
	struct sim_vcpu *v;
	sim_time_t start, end;

	sim_store_drain();
	v = sim_vcpu_current;
	start = v->now > *busy_until ? v->now : *busy_until;
	end = start + sim_line_transfer_ps(l->last_writer, v->id) + sim_machine_current->atomic_ps;
	*busy_until = end;
	l->last_writer = (int16_t)v->id;
	sim_cost_ps(end - v->now);
}
