// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim run SCENARIO [options]`: run the variants and print the table
 * (runner.c does the work).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"

int cmd_run(struct cli *c, int argc, char **argv)
{
	const struct scenario_ops *s;
	struct plan_args a;
	int ret;

	ret = cli_parse_args(c, argc, argv, CLI_RUN, "run", &a);
	if (ret)
		return ret;
	if (a.nr_pos != 1)
		return cli_fail(c, "run: expected one scenario, got %d operands",
				a.nr_pos);
	s = cli_find_scenario(c, a.pos[0]);
	if (!s)
		return 2;
	if (a.trace && !strcmp(a.trace, "-"))
		return cli_fail(c, "--trace -: expected a file name (the trace is not printed)");
	return cli_run_all(c, &s, 1, &a, false);
}
