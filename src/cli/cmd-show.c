// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim show SCENARIO`: its variants, parameters, metrics, profile and
 * published numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "host/live_internal.h"

static const char *param_type_name(const struct sim_param *p)
{
	switch (p->type) {
	case SIM_PARAM_COUNT:
		return "count";
	case SIM_PARAM_SIZE:
		return "bytes";
	case SIM_PARAM_TIME:
		return "time";
	case SIM_PARAM_BOOL:
		return "bool";
	case SIM_PARAM_ENUM:
		return "choice";
	}
	return "";
}

/**
 * cli_show_params() - a scenario's parameters, one line each
 * @c: the invocation (c->out)
 * @s: the scenario
 *
 * As `mmsim show` and `mmsim help COMMAND SCENARIO` print them: key,
 * default, type, range or choices, help, and the live default.
 */
void cli_show_params(struct cli *c, const struct scenario_ops *s)
{
	char def[64], lo[64], hi[64];
	size_t w = 0;
	int i;

	for (i = 0; s->params && s->params[i].key; i++)
		if (strlen(s->params[i].key) > w)
			w = strlen(s->params[i].key);
	for (i = 0; s->params && s->params[i].key; i++) {
		const struct sim_param *q = &s->params[i];

		sim_param_format(q, q->def, def, sizeof(def));
		fprintf(c->out, "  %-*s  %-10s %-6s ", (int)w, q->key, def,
			param_type_name(q));
		if (q->type == SIM_PARAM_ENUM) {
			int j;

			fprintf(c->out, "[");
			for (j = 0; q->choices && q->choices[j]; j++)
				fprintf(c->out, "%s%s", j ? "|" : "", q->choices[j]);
			fprintf(c->out, "]");
		} else if (q->type != SIM_PARAM_BOOL) {
			sim_param_format(q, q->min, lo, sizeof(lo));
			sim_param_format(q, q->max, hi, sizeof(hi));
			fprintf(c->out, "[%s..%s]", lo, hi);
		}
		fprintf(c->out, "  %s%s", q->help ? q->help : "",
			q->cpus_default ? "; default: the profile's CPUs" : "");
		/* live runs: the default there, or that only the simulation takes it */
		sim_param_format(q, q->live_def, def, sizeof(def));
		if (s->live && q->live && q->has_live_def)
			fprintf(c->out, "; live default: %s", def);
		else if (s->live && !q->live)
			fprintf(c->out, "; simulated only%s%s", q->has_live_def ?
				", under compare: " : "", q->has_live_def ? def : "");
		fprintf(c->out, "\n");
	}
}

int cmd_show(struct cli *c, int argc, char **argv)
{
	const struct scenario_ops *s;
	const struct sim_published *p;
	size_t w = 0;
	int i;

	if (argc != 2)
		return cli_fail(c, "show: expected one scenario, got %d operands",
				argc - 1);
	s = cli_find_scenario(c, argv[1]);
	if (!s)
		return 2;
	fprintf(c->out, "%s: %s\n", s->name, s->summary ? s->summary : "");
	if (s->description)
		fprintf(c->out, "\n%s\n", s->description);
	fprintf(c->out, "\nprofile: %s\n", s->profile ? s->profile : "-");
	if (s->live)
		fprintf(c->out, "live: %s (mmsim live %s, mmsim compare %s; docs/live.md)\n",
			s->live->summary, s->name, s->name);
	fprintf(c->out, "variants:");
	for (i = 0; s->variants && s->variants[i].name; i++) {
		const char *role = "";

		if (s->baseline && !strcmp(s->variants[i].name, s->baseline))
			role = " (baseline)";
		if (s->changed && !strcmp(s->variants[i].name, s->changed))
			role = " (changed)";
		fprintf(c->out, " %s%s", s->variants[i].name, role);
	}
	fprintf(c->out, "\n\nparameters:\n");
	cli_show_params(c, s);
	fprintf(c->out, "\nmetrics:\n");
	w = 0;
	for (i = 0; s->metrics && s->metrics[i].key; i++)
		if (strlen(s->metrics[i].key) > w)
			w = strlen(s->metrics[i].key);
	for (i = 0; s->metrics && s->metrics[i].key; i++) {
		const struct sim_metric *m = &s->metrics[i];

		fprintf(c->out, "  %-*s  %s [%s]", (int)w, m->key, m->label ? m->label : "",
			m->unit ? m->unit : "-");
		if (s->live && m->live_counter)
			fprintf(c->out, "; live: its change over the run in %s %s",
				strcmp(m->live_counter, "TLB") && strcmp(m->live_counter, "CAL") ?
				"/proc/vmstat" : "/proc/interrupts, row", m->live_counter);
		else if (s->live && m->no_live)
			fprintf(c->out, "; live: unavailable (%s)", m->no_live);
		fprintf(c->out, "\n");
	}
	if (s->published && s->published[0].variant) {
		fprintf(c->out, "\npublished (%s):\n",
			s->published_source ? s->published_source : "no source given");
		for (p = s->published; p->variant; p++)
			fprintf(c->out, "  %s %s = %.15g\n", p->variant, p->metric,
				p->value);
	}
	return 0;
}
