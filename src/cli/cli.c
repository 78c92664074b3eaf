// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command line's entry: find the command in the table (commands.c)
 * and run it.
 *
 *   mmsim COMMAND [options]      (mmsim help lists them)
 *
 * As git's git.c and perf's perf.c, this file only dispatches: each
 * command is its own file (cmd-NAME.c), the options every command shares
 * are parsed in options.c, scenarios run through runner.c and pool.c.
 * The commands (cli_cmds[]) and the options (CLI_OPTIONS) are tables;
 * the help text, the manual page, the completion script and every
 * "unknown ..." error are generated from them and from the scenario
 * registry, which is a parameter so that tests can pass their own.  A
 * user's mistake travels back as 2 with one line of text in c->msg;
 * mmsim_main() prints it as "mmsim: error: ..." and returns 2.  A
 * scenario's run() failing is an internal failure: exit code 1.
 *
 * The tests include this file (tests/test_cli.c, test_fuzz.c,
 * test_verdict.c) and take the headers it includes as theirs.
 */
#include <inttypes.h>
#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/trace.h"

/**
 * mmsim_main() - the mmsim command line
 * @argc: argument count
 * @argv: arguments; argv[0] is the program name
 * @registry: the scenarios, NULL-terminated (sim_scenarios, or a test's)
 * @out: standard output
 * @err: standard error; gets at most one "mmsim: error: ..." line
 *
 * Context: the host process, outside any engine run.
 * Return: the exit code: 0 success, 1 internal failure, 2 bad input.
 */
int mmsim_main(int argc, char **argv,
	       const struct scenario_ops *const *registry, FILE *out, FILE *err)
{
	struct cli *c;
	const char *cmd;
	size_t n;
	int i, ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(err, "mmsim: error: out of memory\n");
		return 1;
	}
	c->registry = registry;
	c->out = out;
	c->err = err;
	c->prog = argc > 0 ? argv[0] : "mmsim";
	if (argc < 2) {
		ret = cli_fail(c, "expected a command: try mmsim help");
		goto out_report;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		cmd = "help";
	if (!strcmp(cmd, "--version"))
		cmd = "version";
	for (i = 0; cli_cmds[i].name; i++)
		if (!strcmp(cli_cmds[i].name, cmd))
			break;
	if (!cli_cmds[i].name) {
		n = (size_t)snprintf(c->msg, sizeof(c->msg),
				     "unknown command %s: expected one of", cmd);
		for (i = 0; cli_cmds[i].name && n < sizeof(c->msg); i++)
			n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
					      i ? "," : "", cli_cmds[i].name);
		ret = 2;
		goto out_report;
	}
	for (int k = 2; k < argc && !cli_cmds[i].own_help; k++)
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			ret = cli_cmds[i].fn == cmd_help ? cmd_help(c, 1, argv)
							 : cli_help_command(c, cli_cmds[i].name);
			goto out_report;
		}
	ret = cli_cmds[i].fn(c, argc - 1, argv + 1);
out_report:
	if (ret && c->msg[0])
		fprintf(err, "mmsim: error: %s\n", c->msg);
	fflush(out);
	free(c);
	return ret;
}
