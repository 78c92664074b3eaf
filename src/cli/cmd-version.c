// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim version` (also --version).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"

int cmd_version(struct cli *c, int argc, char **argv)
{
	if (argc > 1)
		return cli_fail(c, "version %s: takes no operand: expected none", argv[1]);
	fprintf(c->out, "mmsim %s\n", MMSIM_VERSION);
	return 0;
}
