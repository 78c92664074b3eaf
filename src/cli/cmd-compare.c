// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim compare ...`: live and simulated results side by side (src/host/,
 * which parses its own options and prints its own --help).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "host/live.h"

int cmd_compare(struct cli *c, int argc, char **argv)
{
	fflush(c->out);
	return compare_cmd_main(argc, argv, c->out, c->err);
}
