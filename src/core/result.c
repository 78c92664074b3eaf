// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copy what a finished engine measured into a variant's result: the
 * counters, the lock classes (as /proc/lock_stat would print them), the
 * number of engine events and the virtual makespan.
 */
#include <stdio.h>
#include <string.h>

#include "mmsim/hw.h"
#include "mmsim/sim.h"
#include "mmsim/scenario.h"

void sim_result_collect(struct sim_engine *e, struct sim_variant_result *res)
{
	struct lock_class_stat *c;

	memcpy(res->counters, sim_engine_counters(e), sizeof(res->counters));
	res->nr_locks = 0;
	for (c = sim_lock_classes(e); c && res->nr_locks < SIM_MAX_LOCKS; c = c->next) {
		struct sim_lock_result *l = &res->locks[res->nr_locks++];

		const struct lock_read_stat *r = &c->read;
		uint64_t acq = c->acquisitions + r->acquisitions;
		uint64_t con = c->contentions + r->contentions;
		sim_time_t wait = c->wait_total + r->wait_total;
		sim_time_t hold = c->hold_total + r->hold_total;

		snprintf(l->name, sizeof(l->name), "%s", c->name);
		l->acquisitions = acq;
		l->contentions = con;
		l->wait_total_s = (double)wait / (double)SIM_SEC;
		l->wait_max_us = (double)(c->wait_max > r->wait_max ? c->wait_max : r->wait_max) /
				 (double)SIM_US;
		l->wait_avg_ns = con ? (double)wait / (double)con / (double)SIM_NS : 0.0;
		l->hold_total_s = (double)hold / (double)SIM_SEC;
		l->hold_avg_ns = acq ? (double)hold / (double)acq / (double)SIM_NS : 0.0;
		l->rwsem = c->rwsem;
		l->side[0] = (struct sim_lock_side){
			c->acquisitions, c->contentions, c->wait_total, c->wait_min, c->wait_max,
			c->hold_total, c->hold_min, c->hold_max,
		};
		l->side[1] = (struct sim_lock_side){
			r->acquisitions, r->contentions, r->wait_total, r->wait_min, r->wait_max,
			r->hold_total, r->hold_min, r->hold_max,
		};
	}
	res->nr_cpus = sim_engine_nr_cpus(e);
	for (int cpu = 0; cpu < res->nr_cpus && cpu < SIM_MAX_CPUS; cpu++) {
		const struct sim_vcpu *v = sim_engine_vcpu(e, cpu);

		res->irq_tlb[cpu] = v->irq_tlb_count > UINT32_MAX ?
				    UINT32_MAX : (uint32_t)v->irq_tlb_count;
		res->irq_call[cpu] = v->irq_call_count > UINT32_MAX ?
				     UINT32_MAX : (uint32_t)v->irq_call_count;
	}
	res->events = sim_engine_events(e);
	res->runtime_s = (double)sim_engine_end_time(e) / (double)SIM_SEC;
}
