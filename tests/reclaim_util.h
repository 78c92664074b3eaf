/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reclaim-tlb runs for the tests: a parameter by name, and a small checked
 * run of one variant (64 MiB of stress-ng vm in a 16 MiB memcg on server-16).
 * Include after cmocka.h and mmsim/scenario.h.
 */
#ifndef MMSIM_TESTS_RECLAIM_UTIL_H
#define MMSIM_TESTS_RECLAIM_UTIL_H

static void set_param(struct sim_run_config *cfg, const char *key, uint64_t v)
{
	int i = sim_scenario_param_index(cfg->scenario, key);

	assert_true(i >= 0);
	cfg->params[i] = v;
}

/* @variant of reclaim-tlb for @duration_ms with invariant checks, @key = @value set too. */
static void reclaim_tlb_small_checked(const char *variant, uint64_t duration_ms,
				      const char *key, uint64_t value,
				      struct sim_variant_result *r)
{
	const struct scenario_ops *s = sim_scenario_find("reclaim-tlb");
	struct sim_run_config cfg;
	static struct sim_profile p;
	char err[256];

	assert_int_equal(sim_profile_load("server-16", &p, err, sizeof(err)), 0);
	sim_run_config_init(&cfg, s, &p, 1);
	cfg.check = true;
	set_param(&cfg, "vm_bytes", 64ULL << 20);
	set_param(&cfg, "memcg_limit", 16ULL << 20);
	set_param(&cfg, "node_memory", 256ULL << 20);
	set_param(&cfg, "swap", 256ULL << 20);
	set_param(&cfg, "duration", duration_ms * 1000000);
	set_param(&cfg, key, value);
	memset(r, 0, sizeof(*r));
	r->name = variant;
	assert_int_equal(s->run(&cfg, sim_scenario_variant_index(s, variant), r, err,
				sizeof(err)), 0);
}

#endif
