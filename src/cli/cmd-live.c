// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim live ...`: a workload on this machine's kernel (src/host/, which
 * parses its own options and prints its own --help).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "host/live.h"

int cmd_live(struct cli *c, int argc, char **argv)
{
	fflush(c->out);
	return live_cmd_main(argc, argv, c->out, c->err);
}
