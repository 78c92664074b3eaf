// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until live mode lands (issue 7). */
#include "live/live.h"

int live_cmd_main(int argc, char **argv, FILE *out, FILE *err)
{
	fprintf(err, "mmsim: error: live mode is not built yet\n");
	return 2;
}

int compare_cmd_main(int argc, char **argv, FILE *out, FILE *err)
{
	fprintf(err, "mmsim: error: compare is not built yet\n");
	return 2;
}
