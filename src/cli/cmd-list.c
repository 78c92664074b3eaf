// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim list`: the scenarios, one line each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"

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
	return 0;
}
