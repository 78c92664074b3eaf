// SPDX-License-Identifier: GPL-2.0-only
/* TEMPORARY until the cli branch lands: the minimum the engine tests need. */
#include <string.h>
#include "mmsim/scenario.h"

const char *const sim_counter_names[NR_SIM_COUNTERS] = {
#define X(id, name) name,
	SIM_COUNTERS(X)
#undef X
};

uint64_t sim_param(const struct sim_run_config *cfg, const char *key)
{
	int i;

	for (i = 0; cfg->scenario->params[i].key; i++)
		if (!strcmp(cfg->scenario->params[i].key, key))
			return cfg->params[i];
	return 0;
}

void sim_result_set(const struct scenario_ops *s, struct sim_variant_result *res,
		    const char *key, double value)
{
	int i;

	for (i = 0; s->metrics[i].key; i++)
		if (!strcmp(s->metrics[i].key, key)) {
			res->metrics[i] = value;
			res->has_metric[i] = true;
		}
}
