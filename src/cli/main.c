// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmsim's entry point: the command line over the real scenario registry.
 * Everything else is in cli.c and the mmsim_cli library, so that the tests can run the same code with
 * a registry of their own.
 */
#include <stdio.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
	return mmsim_main(argc, argv, sim_scenarios, stdout, stderr);
}
