// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim list`: the experiments, one line each, then the shipped workloads
 * (workloads/, docs/workloads.md), each by its [workload] name and summary,
 * when the registry is the real one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "mmsim/workload.h"

int cmd_list(struct cli *c, int argc, char **argv)
{
	size_t w = 0;
	int i;

	if (argc > 1)
		return cli_fail(c, "list %s: expected no operands", argv[1]);
	for (i = 0; c->registry[i]; i++)
		if (strlen(c->registry[i]->name) > w)
			w = strlen(c->registry[i]->name);
	for (i = 0; c->registry[i]; i++)
		fprintf(c->out, "%-*s  %s\n", (int)w, c->registry[i]->name,
			c->registry[i]->summary ? c->registry[i]->summary : "");
	if (c->registry != sim_scenarios || !wl_builtins[0].name)
		return 0;	/* a test's own registry lists only its scenarios */
	fprintf(c->out, "\nshipped workloads (mmsim run NAME, or a file: docs/workloads.md):\n");
	w = 0;
	for (i = 0; wl_builtins[i].name; i++)
		if (strlen(wl_builtins[i].name) > w)
			w = strlen(wl_builtins[i].name);
	for (i = 0; wl_builtins[i].name; i++) {
		const struct scenario_ops *s = sim_scenario_lookup(c->registry, wl_builtins[i].name,
								   false, c->msg, sizeof(c->msg));

		if (!s)		/* a shipped workload is checked by tests/workload_cli.sh */
			return 1;
		fprintf(c->out, "%-*s  %s\n", (int)w, wl_builtins[i].name,
			s->summary ? s->summary : "");
	}
	return 0;
}
