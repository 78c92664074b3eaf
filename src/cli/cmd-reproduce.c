// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim reproduce [SCENARIO...]`: the published experiments, simulated
 * beside the published numbers (runner.c does the work).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"

static bool has_published(const struct scenario_ops *s)
{
	return s->published && s->published[0].variant;
}

int cmd_reproduce(struct cli *c, int argc, char **argv)
{
	const struct scenario_ops *scn[PLAN_MAX_POS];
	struct plan_args a;
	int i, k, nr = 0, ret;

	ret = cli_parse_args(c, argc, argv, CLI_REPRO, "reproduce", &a);
	if (ret)
		return ret;
	for (i = 0; i < a.nr_pos; i++) {
		scn[nr] = cli_find_scenario(c, a.pos[i]);
		if (!scn[nr])
			return 2;
		for (k = 0; k < nr; k++)
			if (scn[k] == scn[nr])
				return cli_fail(c, "reproduce %s: given twice: expected each scenario once",
						a.pos[i]);
		nr++;
	}
	if (a.nr_sets && a.nr_pos != 1)
		return cli_fail(c, "reproduce --set %s: expected exactly one SCENARIO named, "
				"whose parameter it sets", a.sets[0]);
	if (!a.nr_pos)
		for (i = 0; c->registry[i] && nr < PLAN_MAX_POS; i++)
			if (has_published(c->registry[i]))
				scn[nr++] = c->registry[i];
	if (!nr) {
		/* keep standard output clean when it carries JSON or CSV */
		FILE *note = (a.json && !strcmp(a.json, "-")) ||
			     (a.csv && !strcmp(a.csv, "-")) ? c->err : c->out;

		fprintf(note, "no published experiment is modelled yet\n");
		for (i = 0; c->registry[i]; i++)
			if (!strcmp(c->registry[i]->name, "spinlock"))
				scn[nr++] = c->registry[i];
		if (!nr) {
			fprintf(note, "and no spinlock scenario is built: nothing to run\n");
			return 0;
		}
		fprintf(note, "running spinlock at its defaults\n\n");
	}
	return cli_run_all(c, scn, nr, &a, true);
}
