/* SPDX-License-Identifier: GPL-2.0-only */
/* The command line of mmsim, callable with any scenario registry. */
#ifndef MMSIM_CLI_H
#define MMSIM_CLI_H

#include <stdio.h>

#include "mmsim/scenario.h"

/*
 * Run mmsim with @argv (argv[0] is the program name) over the
 * NULL-terminated @registry, writing results to @out and errors to @err.
 * Returns the exit code: 0 success, 1 internal failure, 2 bad input.
 */
int mmsim_main(int argc, char **argv,
	       const struct scenario_ops *const *registry, FILE *out,
	       FILE *err);

#endif /* MMSIM_CLI_H */
