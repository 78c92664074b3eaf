// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copy what a finished engine measured into a variant's result: the
 * counters, the lock classes (as /proc/lock_stat would print them), the
 * number of engine events and the virtual makespan.
 */
#include <stdio.h>
#include <string.h>

#include "core/engine.h"
#include "mmsim/scenario.h"

void sim_result_collect(struct sim_engine *e, struct sim_variant_result *res)
{
	struct lock_class_stat *c;

	memcpy(res->counters, e->counters, sizeof(res->counters));
	res->nr_locks = 0;
	for (c = e->classes; c && res->nr_locks < SIM_MAX_LOCKS; c = c->next) {
		struct sim_lock_result *l = &res->locks[res->nr_locks++];

		snprintf(l->name, sizeof(l->name), "%s", c->name);
		l->acquisitions = c->acquisitions;
		l->contentions = c->contentions;
		l->wait_total_s = (double)c->wait_total / (double)SIM_SEC;
		l->wait_max_us = (double)c->wait_max / (double)SIM_US;
		l->wait_avg_ns = c->contentions ?
			(double)c->wait_total / (double)c->contentions / (double)SIM_NS : 0.0;
		l->hold_total_s = (double)c->hold_total / (double)SIM_SEC;
		l->hold_avg_ns = c->acquisitions ?
			(double)c->hold_total / (double)c->acquisitions / (double)SIM_NS : 0.0;
	}
	res->events = e->events;
	res->runtime_s = (double)sim_engine_end_time(e) / (double)SIM_SEC;
}
