/* SPDX-License-Identifier: GPL-2.0-only */
/* Live mode: the scenarios' workloads on the running kernel (docs/live.md). */
#ifndef MMSIM_LIVE_H
#define MMSIM_LIVE_H
#include <stdio.h>

/* `mmsim live ...` and `mmsim compare ...`; argv[0] is the subcommand.
 * Return the process exit code (0, 1 internal failure, 2 bad input). */
int live_cmd_main(int argc, char **argv, FILE *out, FILE *err);
int compare_cmd_main(int argc, char **argv, FILE *out, FILE *err);

#endif
