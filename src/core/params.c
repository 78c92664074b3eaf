// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parameters, metrics and the registry look-ups of the scenario API.
 *
 * This file models nothing of the kernel.  It turns the text a user gives
 * with `--set KEY=VALUE` into a parameter value and back ("16M", "10ms",
 * "yes"), finds scenarios, variants, parameters and metrics by name, and
 * generates sim_counter_names[] from the SIM_COUNTERS X-macro list.
 *
 * Parsing rules (the user's contract, see docs and `mmsim show`):
 *   count  decimal digits only
 *   size   digits with an optional K, M, G or T suffix (base 1024), an
 *          optional trailing B ("16MB", "16M" and "16777216" are equal)
 *   time   digits with an optional ns, us, ms or s suffix; stored in ns;
 *          no suffix means ns
 *   bool   yes/no, on/off, true/false, 1/0
 *   enum   one of the parameter's choice names, stored as its index
 * Every value is range-checked against [min, max].  An error is one line
 * that names the key, the value and what was expected, without the
 * "mmsim: error: " prefix (main adds it).
 *
 * No locks: everything here is a pure function of its arguments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mmsim/profile.h"
#include "mmsim/scenario.h"
#include "mmsim/workload.h"

const char *const sim_counter_names[NR_SIM_COUNTERS] = {
#define SIM_COUNTER_NAME(id, name) [SIM_##id] = name,
	SIM_COUNTERS(SIM_COUNTER_NAME)
#undef SIM_COUNTER_NAME
};

/* A unit suffix and its multiplier. */
struct param_unit {
	const char *suffix;
	uint64_t mult;
};

/* Largest first, so that the formatter picks the largest exact unit. */
static const struct param_unit size_units[] = {
	{ "T", 1ULL << 40 }, { "G", 1ULL << 30 }, { "M", 1ULL << 20 },
	{ "K", 1ULL << 10 }, { NULL, 0 },
};

static const struct param_unit time_units[] = {
	{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
	{ "ns", 1ULL }, { NULL, 0 },
};

static int toupper_ascii(int c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* Digits only, no sign, no blanks; *end points after the digits. */
static int parse_digits(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return 0;
}

static int mul_check(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b && a > UINT64_MAX / b)
		return -1;
	*out = a * b;
	return 0;
}

static int parse_size(const char *s, uint64_t *out)
{
	const char *p;
	uint64_t v, mult = 1;
	int i;

	if (parse_digits(s, &v, &p))
		return -1;
	if (*p) {
		for (i = 0; size_units[i].suffix; i++)
			if (toupper_ascii(*p) == size_units[i].suffix[0])
				break;
		if (!size_units[i].suffix && *p != 'B' && *p != 'b')
			return -1;
		if (size_units[i].suffix) {
			mult = size_units[i].mult;
			p++;
			if (*p == 'i' && (p[1] == 'B' || p[1] == 'b'))
				p++;
		}
		if (*p == 'B' || *p == 'b')
			p++;
		if (*p)
			return -1;
	}
	return mul_check(v, mult, out);
}

static int parse_time(const char *s, uint64_t *out)
{
	const char *p;
	uint64_t v;
	int i;

	if (parse_digits(s, &v, &p))
		return -1;
	if (!*p) {
		*out = v;
		return 0;
	}
	for (i = 0; time_units[i].suffix; i++)
		if (!strcmp(p, time_units[i].suffix))
			return mul_check(v, time_units[i].mult, out);
	return -1;
}

static int parse_bool(const char *s, uint64_t *out)
{
	static const char *const yes[] = { "yes", "on", "true", "1", NULL };
	static const char *const no[] = { "no", "off", "false", "0", NULL };
	int i;

	for (i = 0; yes[i]; i++)
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
	for (i = 0; no[i]; i++)
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	return -1;
}

static int parse_enum(const struct sim_param *p, const char *s, uint64_t *out)
{
	uint64_t i;

	for (i = 0; p->choices && p->choices[i]; i++)
		if (!strcmp(s, p->choices[i])) {
			*out = i;
			return 0;
		}
	return -1;
}

static void format_with_units(const struct param_unit *units, uint64_t v,
			      char *buf, size_t len)
{
	int i;

	for (i = 0; units[i].suffix; i++)
		if (v && v % units[i].mult == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", v / units[i].mult,
				 units[i].suffix);
			return;
		}
	snprintf(buf, len, "%" PRIu64, v);
}

/* What a value of @p must look like, for an error line. */
static void expected(const struct sim_param *p, char *buf, size_t len)
{
	char lo[32], hi[32];
	size_t n;
	int i;

	sim_param_format(p, p->min, lo, sizeof(lo));
	sim_param_format(p, p->max, hi, sizeof(hi));
	switch (p->type) {
	case SIM_PARAM_COUNT:
		snprintf(buf, len, "an integer (K, M, G, T: x1000 each) from %s to %s", lo, hi);
		break;
	case SIM_PARAM_SIZE:
		snprintf(buf, len,
			 "a size in bytes with an optional K, M, G or T suffix, from %s to %s",
			 lo, hi);
		break;
	case SIM_PARAM_TIME:
		snprintf(buf, len,
			 "a time with a ns, us, ms or s suffix, from %s to %s",
			 lo, hi);
		break;
	case SIM_PARAM_BOOL:
		snprintf(buf, len, "yes, no, on, off, 1 or 0");
		break;
	case SIM_PARAM_ENUM:
		n = (size_t)snprintf(buf, len, "one of");
		for (i = 0; p->choices && p->choices[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s %s",
					      i ? "," : "", p->choices[i]);
		break;
	}
}

/**
 * sim_param_parse() - parse the text of a parameter value
 * @p: the parameter
 * @text: what the user wrote after "KEY="
 * @out: the value (bytes, ns, a count, 0/1 or a choice index)
 * @err: one line naming the key, the value and what was expected
 * @len: size of @err
 *
 * Return: 0, or -1 with @err filled when @text does not parse or is out of
 * the parameter's range.
 */
int sim_param_parse(const struct sim_param *p, const char *text, uint64_t *out,
		    char *err, size_t len)
{
	char what[256];
	uint64_t v = 0;
	int ret = -1;

	switch (p->type) {
	case SIM_PARAM_COUNT: {
		/* decimal suffixes, as counts are said: 20M accesses = 20 000 000 */
		static const char suffixes[] = "KMGT";
		const char *end, *sfx;
		uint64_t mult = 1;

		ret = parse_digits(text, &v, &end);
		if (!ret && *end) {
			sfx = end[1] ? NULL : strchr(suffixes, *end);
			if (!sfx || !*end)
				ret = -1;
			for (int k = 0; !ret && k <= sfx - suffixes; k++)
				mult *= 1000;
			if (!ret && v > UINT64_MAX / mult)
				ret = -1;
			v *= mult;
		}
		break;
	}
	case SIM_PARAM_SIZE:
		ret = parse_size(text, &v);
		break;
	case SIM_PARAM_TIME:
		ret = parse_time(text, &v);
		break;
	case SIM_PARAM_BOOL:
		ret = parse_bool(text, &v);
		break;
	case SIM_PARAM_ENUM:
		ret = parse_enum(p, text, &v);
		break;
	}
	if (!ret && (p->type == SIM_PARAM_COUNT || p->type == SIM_PARAM_SIZE ||
		     p->type == SIM_PARAM_TIME) &&
	    (v < p->min || v > p->max))
		ret = -1;
	if (ret) {
		expected(p, what, sizeof(what));
		snprintf(err, len, "%s=%s: expected %s", p->key, text, what);
		return -1;
	}
	*out = v;
	return 0;
}

/**
 * sim_param_format() - format a parameter value the way a user writes it
 * @p: the parameter
 * @v: its value
 * @buf: where to write ("16M", "10ms", "80", "yes", a choice name)
 * @len: size of @buf
 *
 * Sizes and times use the largest unit that divides the value exactly, so
 * that the text parses back to the same value.
 */
void sim_param_format(const struct sim_param *p, uint64_t v, char *buf,
		      size_t len)
{
	uint64_t i;

	switch (p->type) {
	case SIM_PARAM_COUNT:
		snprintf(buf, len, "%" PRIu64, v);
		break;
	case SIM_PARAM_SIZE:
		format_with_units(size_units, v, buf, len);
		break;
	case SIM_PARAM_TIME:
		if (!v)
			snprintf(buf, len, "0ns");
		else
			format_with_units(time_units, v, buf, len);
		break;
	case SIM_PARAM_BOOL:
		snprintf(buf, len, "%s", v ? "yes" : "no");
		break;
	case SIM_PARAM_ENUM:
		for (i = 0; p->choices && p->choices[i]; i++)
			if (i == v) {
				snprintf(buf, len, "%s", p->choices[i]);
				return;
			}
		snprintf(buf, len, "%" PRIu64, v);
		break;
	}
}

/**
 * sim_scenario_find() - look a scenario up in the registry
 * @name: its name, as `mmsim list` prints it
 *
 * Return: the scenario, or NULL.
 */
const struct scenario_ops *sim_scenario_find(const char *name)
{
	char err[8];
	int i;

	for (i = 0; sim_scenarios[i]; i++)
		if (!strcmp(sim_scenarios[i]->name, name))
			return sim_scenarios[i];
	return workload_scenario(name, err, sizeof(err));
}

/**
 * sim_run_config_init() - a run configuration at a scenario's defaults
 * @cfg: the configuration to fill
 * @s: the scenario
 * @profile: the machine (may be NULL, to be set later)
 * @seed: the run's seed
 *
 * Zeroes @cfg (no invariant checks) and sets every parameter of @s to its
 * default.
 */
void sim_run_config_init(struct sim_run_config *cfg, const struct scenario_ops *s,
			 const struct sim_profile *profile, uint64_t seed)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->scenario = s;
	cfg->profile = profile;
	cfg->seed = seed;
	for (i = 0; s->params && s->params[i].key && i < SIM_MAX_PARAMS; i++) {
		const struct sim_param *p = &s->params[i];

		cfg->params[i] = p->def;
		/* one thread per CPU follows the machine: --profile desktop runs 16 */
		if (p->cpus_default && profile) {
			uint64_t cpus = (uint64_t)sim_profile_nr_cpus(profile);

			cfg->params[i] = cpus < p->min ? p->min : cpus > p->max ? p->max : cpus;
		}
	}
}

/**
 * sim_run_config_init_live() - a run configuration at a live run's defaults
 * @cfg: the configuration to fill
 * @s: the scenario
 * @profile: the machine (may be NULL)
 * @seed: the run's seed
 *
 * As sim_run_config_init(), then every parameter that declares a live
 * default (sim_param.has_live_def) at that default: what `mmsim live` runs
 * and `mmsim compare` simulates unless --set says otherwise.
 */
void sim_run_config_init_live(struct sim_run_config *cfg, const struct scenario_ops *s,
			      const struct sim_profile *profile, uint64_t seed)
{
	int i;

	sim_run_config_init(cfg, s, profile, seed);
	for (i = 0; s->params && s->params[i].key && i < SIM_MAX_PARAMS; i++)
		if (s->params[i].has_live_def)
			cfg->params[i] = s->params[i].live_def;
}

/**
 * sim_scenario_lookup() - a scenario of a registry by name, or why not
 * @registry: the scenarios, NULL-terminated
 * @name: the name the user gave: an experiment of @registry first, else a
 *	workload file (with '/' or ending in .ini) or a shipped workload's
 *	name (workload_scenario(), docs/workloads.md)
 * @live: only scenarios with a live form (scenario_ops.live)
 * @err: "unknown scenario NAME: expected one of a, b, c", the wording of
 *	every command that takes a scenario (with @live, a scenario without a
 *	live form: "scenario NAME has no live form: expected one of ...")
 * @len: size of @err
 *
 * Return: the scenario, or NULL with @err filled.
 */
const struct scenario_ops *sim_scenario_lookup(const struct scenario_ops *const *registry,
					       const char *name, bool live, char *err,
					       size_t len)
{
	const struct scenario_ops *w;
	size_t n;
	int i, k = 0;

	for (i = 0; registry[i]; i++)
		if (!strcmp(registry[i]->name, name) && (!live || registry[i]->live))
			return registry[i];
	for (i = 0; registry[i] && strcmp(registry[i]->name, name); i++)
		;
	if (!registry[i]) {
		w = workload_scenario(name, err, len);
		if (w || err[0])
			return w;
	}
	if (registry[i])
		n = (size_t)snprintf(err, len, "scenario %s has no live form: expected one of",
				     name);
	else
		n = (size_t)snprintf(err, len, "unknown scenario %s: expected one of", name);
	for (i = 0; registry[i] && n < len; i++)
		if (!live || registry[i]->live)
			n += (size_t)snprintf(err + n, len - n, "%s %s", k++ ? "," : "",
					      registry[i]->name);
	for (i = 0; wl_builtins[i].name && n < len; i++)
		n += (size_t)snprintf(err + n, len - n, "%s %s", k++ ? "," : "",
				      wl_builtins[i].name);
	if (n < len)
		snprintf(err + n, len - n, "%s a workload file (a path with / or ending in .ini)",
			 k ? ", or" : "");
	return NULL;
}

/**
 * sim_scenario_param_lookup() - a parameter's index, or why there is none
 * @s: the scenario
 * @key: the parameter's name
 * @err: "unknown parameter KEY for scenario S: expected one of a, b, ..."
 * @len: size of @err
 *
 * Return: the index, or -1 with @err filled.
 */
int sim_scenario_param_lookup(const struct scenario_ops *s, const char *key, char *err,
			      size_t len)
{
	int i = sim_scenario_param_index(s, key), j;
	size_t n;

	if (i >= 0 && i < SIM_MAX_PARAMS)
		return i;
	n = (size_t)snprintf(err, len, "unknown parameter %s for scenario %s: expected one of",
			     key, s->name);
	for (j = 0; s->params && s->params[j].key && j < SIM_MAX_PARAMS && n < len; j++)
		n += (size_t)snprintf(err + n, len - n, "%s %s", j ? "," : "", s->params[j].key);
	return -1;
}

/**
 * sim_run_config_set() - set one parameter of a configuration from its text
 * @cfg: the configuration (cfg->scenario names the parameters)
 * @assign: "KEY=VALUE", as --set takes it
 * @err: one line naming what was wrong and what was expected
 * @len: size of @err
 *
 * Return: the parameter's index, or -1 with @err filled and @cfg unchanged.
 */
int sim_run_config_set(struct sim_run_config *cfg, const char *assign, char *err, size_t len)
{
	const struct scenario_ops *s = cfg->scenario;
	const char *eq = strchr(assign, '=');
	char key[64];
	size_t n;
	int i;

	if (!eq || eq == assign) {
		snprintf(err, len, "--set %s: expected KEY=VALUE", assign);
		return -1;
	}
	n = (size_t)(eq - assign);
	if (n >= sizeof(key))
		n = sizeof(key) - 1;
	memcpy(key, assign, n);
	key[n] = '\0';
	i = sim_scenario_param_lookup(s, key, err, len);
	if (i < 0)
		return -1;
	if (sim_param_parse(&s->params[i], eq + 1, &cfg->params[i], err, len))
		return -1;
	return i;
}

/**
 * sim_scenario_param_index() - index of a parameter in a scenario
 * @s: the scenario
 * @key: the parameter's key
 *
 * Return: the index into struct sim_run_config.params, or -1.
 */
int sim_scenario_param_index(const struct scenario_ops *s, const char *key)
{
	int i;

	for (i = 0; s->params && s->params[i].key; i++)
		if (!strcmp(s->params[i].key, key))
			return i;
	return -1;
}

/**
 * sim_scenario_metric_index() - index of a metric in a scenario
 * @s: the scenario
 * @key: the metric's contract name
 *
 * Return: the index into struct sim_variant_result.metrics, or -1.
 */
int sim_scenario_metric_index(const struct scenario_ops *s, const char *key)
{
	int i;

	for (i = 0; s->metrics && s->metrics[i].key; i++)
		if (!strcmp(s->metrics[i].key, key))
			return i;
	return -1;
}

/**
 * sim_scenario_variant_index() - index of a variant in a scenario
 * @s: the scenario
 * @name: the variant's name
 *
 * Return: the index passed to scenario_ops.run(), or -1.
 */
int sim_scenario_variant_index(const struct scenario_ops *s, const char *name)
{
	int i;

	for (i = 0; s->variants && s->variants[i].name; i++)
		if (!strcmp(s->variants[i].name, name))
			return i;
	return -1;
}

/**
 * sim_scenario_mainline() - the variant that models the running kernel
 * @s: the scenario
 *
 * What `compare` and `validate` simulate beside a live run: the
 * experiment's mainline variant (scenario_ops.mainline), else its
 * baseline, else its first.
 *
 * Return: its index.
 */
int sim_scenario_mainline(const struct scenario_ops *s)
{
	int v = s->mainline ? sim_scenario_variant_index(s, s->mainline) : -1;

	if (v < 0 && s->baseline)
		v = sim_scenario_variant_index(s, s->baseline);
	return v < 0 ? 0 : v;
}

/**
 * sim_param() - a parameter's value in a run
 * @cfg: the run's configuration
 * @key: the parameter's key; it must be one of the scenario's
 *
 * An unknown key is a bug in the scenario, so it aborts.
 *
 * Return: the value (bytes, ns, a count, 0/1 or a choice index).
 */
uint64_t sim_param(const struct sim_run_config *cfg, const char *key)
{
	int i = sim_scenario_param_index(cfg->scenario, key);

	if (i < 0) {
		fprintf(stderr, "mmsim: BUG: scenario %s has no parameter %s\n",
			cfg->scenario->name, key);
		abort();
	}
	return cfg->params[i];
}

/**
 * sim_result_set() - set one metric of a variant's result
 * @s: the scenario
 * @res: the variant's result
 * @key: the metric's contract name; it must be one of the scenario's
 * @value: its value, in the metric's unit
 *
 * An unknown key is a bug in the scenario, so it aborts.
 */
void sim_result_set(const struct scenario_ops *s, struct sim_variant_result *res,
		    const char *key, double value)
{
	int i = sim_scenario_metric_index(s, key);

	if (i < 0 || i >= SIM_MAX_METRICS) {
		fprintf(stderr, "mmsim: BUG: scenario %s has no metric %s\n",
			s->name, key);
		abort();
	}
	res->metrics[i] = value;
	res->has_metric[i] = true;
}
