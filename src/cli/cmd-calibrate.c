// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim calibrate [--out FILE] [--quick]`: measure this machine and write
 * its profile (src/host/calibrate.c, which parses its own options and
 * prints its own --help).
 */
#include <stdio.h>

#include "cli/cli_impl.h"
#include "host/calibrate.h"

int cmd_calibrate(struct cli *c, int argc, char **argv)
{
	fflush(c->out);
	return calibrate_main(argc, argv, c->out, c->err);
}
