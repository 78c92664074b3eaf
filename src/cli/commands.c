// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command table: every command is one row of cli_cmds[], which
 * dispatch (mmsim_main()), help, man and completion all read, as git.c's
 * commands[] and perf's builtin table are read.  Each command's code is
 * its own file, cmd-NAME.c.  Adding a command is that file and one row;
 * its options, if it shares run's, are a bit (.opts) in CLI_OPTIONS.
 */
#include <stddef.h>

#include "cli/cli_impl.h"

const struct cli_cmd cli_cmds[] = {
	{ "list", cmd_list, "scenarios, one line each", "" },
	{ "show", cmd_show, "its variants, parameters, metrics and profile", "SCENARIO",
	  .operand = CLI_OPERAND_SCENARIO },
	{ "run", cmd_run, "run the variants and print the table", "SCENARIO [options]",
	  .opts = CLI_RUN, .operand = CLI_OPERAND_SCENARIO },
	{ "reproduce", cmd_reproduce, "the published experiments, simulated beside published",
	  "[SCENARIO...] [options]", .opts = CLI_REPRO, .operand = CLI_OPERAND_SCENARIO },
	{ "sweep", cmd_sweep, "a grid of runs, one process each, as one CSV",
	  "SCENARIO --vary K=V1,V2 [options]", .opts = CLI_SWEEP,
	  .operand = CLI_OPERAND_SCENARIO },
	{ "merge", cmd_merge, "join the CSVs of a sweep's shards, in order",
	  "A.csv B.csv ... [--csv OUT]", .opts = CLI_MERGE, .operand = CLI_OPERAND_FILE },
	{ "diff", cmd_diff, "two saved runs side by side, metric by metric and "
	  "lock by lock, with the changes", "A.json B.json", .operand = CLI_OPERAND_FILE },
	{ "sensitivity", cmd_sensitivity,
	  "every assumption at both ends of its range: which conclusions hold",
	  "SCENARIO [options]", .opts = CLI_SENS, .operand = CLI_OPERAND_SCENARIO },
	{ "profiles", cmd_profiles,
	  "list profiles, print one with sources, or write this machine's (calibrate --quick)",
	  "[NAME|FILE | --from-host [FILE]]", .operand = CLI_OPERAND_PROFILE },
	{ "calibrate", cmd_calibrate,
	  "measure this machine and write its profile (at most 2 minutes)",
	  "[--out FILE] [--quick]", .operand = CLI_OPERAND_FILE, .own_help = true },
	{ "live", cmd_live, "run a workload on this machine's kernel", "...",
	  .operand = CLI_OPERAND_SCENARIO, .own_help = true },
	{ "compare", cmd_compare, "compare live and simulated results", "...",
	  .operand = CLI_OPERAND_SCENARIO, .own_help = true },
	{ "validate", cmd_validate, "the model against this machine's kernel, thread "
	  "count by thread count", "...", .operand = CLI_OPERAND_SCENARIO, .own_help = true },
	{ "help", cmd_help, "this text (also --help), or one command's (and a scenario's parameters)", "[COMMAND [SCENARIO]]",
	  .operand = CLI_OPERAND_COMMAND },
	{ "version", cmd_version, "the version (also --version)", "" },
	{ "man", cmd_man, "the manual page, in roff (man -l <(mmsim man))", "" },
	{ "completion", cmd_completion, "a bash completion script", "bash" },
	{ NULL },
};
