// SPDX-License-Identifier: GPL-2.0-only
/*
 * IPIs with the semantics of smp_call_function_many_cond() (kernel/smp.c):
 *
 *   sender (CPU A)                         target (CPU B)
 *   for each target: queue a csd,          ...
 *     send an interrupt only if B's        interrupt arrives (latency)
 *     queue was empty                      at B's next point with IRQs on:
 *   run func locally if asked                entry, drain B's whole queue,
 *   spin (IRQs on) until all targets         run each func, exit
 *     have run func  <----- csd unlock ----  (line transfer back to A)
 *
 * Counters follow /proc/interrupts: "CAL" (irq_call_count) counts the
 * interrupts taken, "TLB" (irq_tlb_count) counts flush functions run on
 * a remote CPU, so one interrupt may serve several queued flushes.
 * Costs: ipi.send_ns per target on the sender, ipi.latency_ns delivery,
 * ipi.entry_exit_ns on the receiver plus what func charges.
 * Left out: wait == false (every caller in the model waits), the csd
 * lock of a reused per-CPU csd, x2APIC cluster-mode batching.
 *
 * Trace (--trace): the sender's "smp_call_function_many_cond" span (send
 * and wait), an "ipi handler" span around each function a target runs, and
 * a flow (an arrow) from each queued function's send to its handler.
 */
#include <stdlib.h>

#include "hw/machine.h"
#include "mmsim/trace.h"

struct sim_call {
	struct sim_task *sender;
	int remaining;			/* targets that have not run func yet */
	bool blocked;			/* the sender spins on it */
	sim_time_t done;		/* when the last target finished */
	int last_cpu;			/* that target, for the ack transfer */
};

static struct sim_csd *csd_free_list;

static struct sim_csd *csd_alloc(void)
{
	struct sim_csd *csd = csd_free_list;

	if (csd) {
		csd_free_list = csd->next;
		return csd;
	}
	csd = malloc(sizeof(*csd));
	if (!csd)
		abort();
	return csd;
}

void sim_ipi_run_csd(struct sim_csd *csd)
{
	struct sim_vcpu *v = sim_vcpu_current;
	struct sim_call *call = csd->call;

	sim_trace_begin("ipi", csd->is_tlb ? "ipi handler: TLB flush" : "ipi handler");
	sim_trace_flow_in("ipi", csd->is_tlb ? "IPI: TLB flush" : "IPI", csd->trace_flow);
	csd->func(csd->info);
	sim_trace_end();
	if (csd->is_tlb) {
		count_event(SIM_IRQ_TLB_COUNT);
		v->irq_tlb_count++;		/* per CPU, as /proc/interrupts keeps it */
	}
	if (v->now >= call->done) {
		call->done = v->now;
		call->last_cpu = v->id;
	}
	if (--call->remaining == 0 && call->blocked)
		sim_wake(call->sender, call->done +
			 sim_line_transfer_ps(call->last_cpu, call->sender->vcpu->id));
	csd->next = csd_free_list;
	csd_free_list = csd;
}

int smp_call_function_many_cond(const struct cpumask *mask,
				smp_call_func_t func, void *info, bool wait,
				bool (*cond)(int cpu, void *info),
				bool run_local, bool is_tlb)
{
	const struct sim_machine *m = sim_machine_current;
	struct sim_call call = { 0 };
	struct sim_vcpu *v;
	int cpu, me, nr = 0;

	(void)wait;	/* always waits; see the header comment */
	sim_sync();
	v = sim_vcpu_current;
	me = v->id;
	call.sender = v->curr;
	call.last_cpu = me;
	sim_trace_begin("ipi", is_tlb ? "send and wait: TLB flush" : "send and wait");
	for_each_cpu(cpu, mask, m->nr_cpus) {
		struct sim_csd *csd;

		if (cpu == me || (cond && !cond(cpu, info)))
			continue;
		csd = csd_alloc();
		csd->func = func;
		csd->info = info;
		csd->call = &call;
		csd->is_tlb = is_tlb;
		call.remaining++;
		nr++;
		sim_cost_ps(m->ipi_send_ps);
		csd->arrival = sim_vcpu_current->now + m->ipi_latency_ps;
		csd->trace_flow = sim_trace_flow_out("ipi", is_tlb ? "IPI: TLB flush" : "IPI");
		if (sim_vcpu_queue_csd(sim_engine_vcpu(sim_engine_current, cpu), csd))
			count_event(SIM_SIM_IPIS_SENT);
	}
	if (run_local && cpumask_test_cpu(me, mask)) {
		local_irq_disable();
		func(info);
		local_irq_enable();
	}
	v = sim_vcpu_current;
	if (call.remaining) {
		call.blocked = true;
		sim_spin_block("csd", &call, "smp_call_function_many_cond");
	} else if (nr) {
		sim_time_t t = call.done + sim_line_transfer_ps(call.last_cpu, me);

		if (t > v->now)
			v->now = t;
	}
	sim_trace_end();
	return nr;
}
