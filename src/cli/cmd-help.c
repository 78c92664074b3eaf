// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim help [COMMAND]` (also --help, and COMMAND --help): the commands
 * (cli_cmds[]), the options (cli_opts[]), the scenarios and the profiles,
 * all from their tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "mmsim/profile.h"

/* The commands that take option @i, "run,reproduce,sweep", into @buf. */
static size_t cli_option_commands(int i, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; cli_cmds[k].name && n < len; k++)
		if (cli_opts[i].cmds & cli_cmds[k].opts)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      cli_cmds[k].name);
	return n;
}

/* The options of one command, as the help text lists them. */
static void cli_print_options(struct cli *c, unsigned cmd_mask)
{
	char cmds[96];
	size_t w = 0;
	int i;

	for (i = 0; i < NR_CLI_OPTS; i++)
		if ((cli_opts[i].cmds & cmd_mask) &&
		    cli_option_commands(i, cmds, sizeof(cmds)) > w)
			w = strlen(cmds);
	for (i = 0; i < NR_CLI_OPTS; i++) {
		char head[64];

		if (!(cli_opts[i].cmds & cmd_mask))
			continue;
		snprintf(head, sizeof(head), "%s%s%s", cli_opts[i].name, cli_opts[i].arg ? " " : "",
			 cli_opts[i].arg ? cli_opts[i].arg : "");
		cli_option_commands(i, cmds, sizeof(cmds));
		fprintf(c->out, "  %-24s %-*s %s\n", head, (int)w, cmds, cli_opts[i].help);
	}
}

/**
 * cli_help_command() - `mmsim help NAME`: its usage, what it does, its options
 * @c: the invocation
 * @name: the command
 *
 * Return: 0, or 2 with c->msg naming the commands when there is no @name.
 */
int cli_help_command(struct cli *c, const char *name)
{
	unsigned mask;
	int i;

	for (i = 0; cli_cmds[i].name; i++)
		if (!strcmp(cli_cmds[i].name, name))
			break;
	if (!cli_cmds[i].name) {
		size_t n = (size_t)snprintf(c->msg, sizeof(c->msg),
					    "help %s: no such command: expected one of", name);

		for (i = 0; cli_cmds[i].name && n < sizeof(c->msg); i++)
			n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
					      i ? "," : "", cli_cmds[i].name);
		return 2;
	}
	fprintf(c->out, "usage: mmsim %s%s%s\n\n%s\n", cli_cmds[i].name,
		cli_cmds[i].usage[0] ? " " : "", cli_cmds[i].usage, cli_cmds[i].summary);
	mask = cli_cmds[i].opts;
	if (mask) {
		fprintf(c->out, "\noptions:\n");
		cli_print_options(c, mask);
		if (cli_opts[CLI_OPT_JOBS].cmds & mask)
			fprintf(c->out, "\n-j N is --jobs N.\n");
	} else if (cli_cmds[i].own_help) {
		fprintf(c->out, "\nits options: mmsim %s --help\n", name);
	}
	return 0;
}

int cmd_help(struct cli *c, int argc, char **argv)
{
	const char *const *names = sim_profile_builtin_names();
	size_t w = 0;
	int i;

	if (argc > 3)
		return cli_fail(c, "help %s %s %s: expected at most COMMAND and SCENARIO", argv[1],
				argv[2], argv[3]);
	if (argc == 3) {	/* `help run FILE`: the command, then the scenario's parameters */
		const struct scenario_ops *s = cli_find_scenario(c, argv[2]);
		int ret;

		if (!s)
			return 2;
		ret = cli_help_command(c, argv[1]);
		if (ret)
			return ret;
		fprintf(c->out, "\nparameters of %s (--set KEY=VALUE):\n", s->name);
		cli_show_params(c, s);
		return 0;
	}
	if (argc == 2)
		return cli_help_command(c, argv[1]);

	fprintf(c->out,
		"mmsim: a deterministic simulator of Linux memory-management hot paths\n\n"
		"usage:\n");
	for (i = 0; cli_cmds[i].name; i++) {
		char head[96];

		snprintf(head, sizeof(head), "mmsim %s%s%s", cli_cmds[i].name,
			 cli_cmds[i].usage[0] ? " " : "", cli_cmds[i].usage);
		fprintf(c->out, "  %-44s %s\n", head, cli_cmds[i].summary);
	}
	fprintf(c->out, "\noptions (-j N is --jobs N):\n");
	cli_print_options(c, CLI_RUN | CLI_REPRO | CLI_SWEEP | CLI_MERGE | CLI_SENS);
	fprintf(c->out, "\nscenarios:\n");
	for (i = 0; c->registry[i]; i++)
		if (strlen(c->registry[i]->name) > w)
			w = strlen(c->registry[i]->name);
	for (i = 0; c->registry[i]; i++)
		fprintf(c->out, "  %-*s  %s\n", (int)w, c->registry[i]->name,
			c->registry[i]->summary ? c->registry[i]->summary : "");
	if (!i)
		fprintf(c->out, "  (none is built yet)\n");
	fprintf(c->out, "\nprofiles:");
	for (i = 0; names[i]; i++)
		fprintf(c->out, "%s %s", i ? "," : "", names[i]);
	fprintf(c->out,
		"\n\nsweep: at most 10000 runs (grid points x seeds); each run's seed is the\n"
		"FNV-1a hash of \"SCENARIO;KEY=VALUE;...;seed=BASE/I\"; rows in grid order\n"
		"(first --vary slowest), then seed, variant, metric; see docs/sweep.md\n"
		"\nexit codes: 0 success, 1 internal failure, 2 bad input\n");
	return 0;
}
