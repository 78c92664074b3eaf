// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command line's entry: find the command in the table (commands.c)
 * and run it.
 *
 *   mmsim COMMAND [options]      (mmsim help lists them)
 *
 * As git's git.c and perf's perf.c, this file only dispatches: each
 * command is its own file (cmd-NAME.c), the options every command shares
 * are parsed in options.c, scenarios run through runner.c and the harness
 * (src/harness/: the plan and the process pool).
 * The commands (cli_cmds[]) and the options (CLI_OPTIONS) are tables;
 * the help text, the manual page, the completion script and every
 * "unknown ..." error are generated from them and from the scenario
 * registry, which is a parameter so that tests can pass their own.  A
 * user's mistake travels back as 2 with one line of text in c->msg;
 * mmsim_main() prints it as "mmsim: error: ..." and returns 2.  A
 * scenario's run() failing is an internal failure: exit code 1.
 *
 * `mmsim --dry-run COMMAND ...` parses a command line as the command
 * would (its options, scenarios, variants, --set keys and values, --cost
 * keys, profiles) and stops before anything runs: 0, or 2 with the usual
 * error line.  tests/docs_commands.sh passes every command the docs quote
 * through it.
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
#include "host/calibrate.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"
#include "mmsim/trace.h"

/*
 * Configure @s as the command would (profile, --cost, --set, --variant,
 * --baseline), then drop the configuration.  Return: 0, or 2 with c->msg.
 */
static int cli_dry_prepare(struct cli *c, const struct scenario_ops *s,
			   const struct plan_args *a)
{
	struct plan_scenario p;
	int ret;

	ret = plan_scenario_prepare(s, a, &p, c->msg, sizeof(c->msg));
	plan_scenario_release(&p);
	return ret;
}

/*
 * sweep --vary KEY=V1,V2,...: every value of every key, each as one --set
 * beside the command's own.  Return: 0, or 2 with c->msg.
 */
static int cli_dry_vary(struct cli *c, const struct scenario_ops *s,
			const struct plan_args *a)
{
	static char one[CLI_ERR];
	struct plan_args b;
	const char *v, *end;
	size_t klen;
	int k, ret;

	for (k = 0; k < a->nr_vary; k++) {
		v = strchr(a->vary[k], '=');
		if (!v || v == a->vary[k] || !v[1])
			return cli_fail(c, "--vary %s: expected KEY=V1,V2,...", a->vary[k]);
		klen = (size_t)(v - a->vary[k]);
		for (v++; *v; v = *end ? end + 1 : end) {
			end = strchr(v, ',');
			if (!end)
				end = v + strlen(v);
			snprintf(one, sizeof(one), "%.*s=%.*s", (int)klen, a->vary[k],
				 (int)(end - v), v);
			b = *a;
			if (b.nr_sets >= PLAN_MAX_SETS)
				return cli_fail(c, "--vary %s: too many --set", a->vary[k]);
			b.sets[b.nr_sets++] = one;
			ret = cli_dry_prepare(c, s, &b);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * cli_dry_run() - parse @argv as the command @cmd would, and run nothing
 *
 * run, reproduce, sweep and sensitivity configure every scenario they
 * name (sweep: at every value of --vary); merge and diff check their
 * options and operands; live and compare (which parse their own options
 * in src/host) only their scenario; the commands that print and change
 * nothing (list, show, profiles NAME, help, ...) run into /dev/null.
 *
 * Return: 0, or 2 with c->msg filled.
 */
static int cli_dry_run(struct cli *c, const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct scenario_ops *s;
	struct plan_args a;
	FILE *null, *out;
	int k, ret;

	for (k = 1; k < argc; k++)
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h"))
			return 0;	/* its help, which runs nothing */
	if (cmd->fn == cmd_run || cmd->fn == cmd_reproduce || cmd->fn == cmd_sweep ||
	    cmd->fn == cmd_sensitivity) {
		ret = cli_parse_args(c, argc, argv, cmd->opts, cmd->name, &a);
		if (!ret && cmd->fn == cmd_sweep)
			ret = cli_shards_check(c, &a);
		if (ret)
			return ret;
		if (cmd->fn != cmd_reproduce && a.nr_pos != 1)
			return cli_fail(c, "%s: expected one scenario, got %d operands",
					cmd->name, a.nr_pos);
		if (cmd->fn == cmd_reproduce && a.nr_sets && a.nr_pos != 1)
			return cli_fail(c, "reproduce --set %s: expected exactly one SCENARIO "
					"named, whose parameter it sets", a.sets[0]);
		for (k = 0; k < a.nr_pos; k++) {
			s = cli_find_scenario(c, a.pos[k]);
			if (!s)
				return 2;
			ret = cli_dry_prepare(c, s, &a);
			if (!ret && cmd->fn == cmd_sweep)
				ret = cli_dry_vary(c, s, &a);
			if (ret)
				return ret;
		}
		/* reproduce with no scenario: every published experiment */
		for (k = 0; !a.nr_pos && cmd->fn == cmd_reproduce && c->registry[k]; k++)
			if (c->registry[k]->published && c->registry[k]->published[0].variant &&
			    (ret = cli_dry_prepare(c, c->registry[k], &a)))
				return ret;
		return 0;
	}
	if (cmd->fn == cmd_merge)
		return cli_parse_args(c, argc, argv, CLI_MERGE, cmd->name, &a);
	if (cmd->fn == cmd_diff)
		return argc == 3 ? 0 : cli_fail(c, "diff: expected two files, got %d operands",
						argc - 1);
	if (cmd->fn == cmd_validate)
		return cli_validate_dry_run(c, argc, argv);
	if (cmd->fn == cmd_live || cmd->fn == cmd_compare) {
		if (argc < 2 || argv[1][0] == '-')
			return cli_fail(c, "%s: expected a scenario first", cmd->name);
		return cli_find_scenario(c, argv[1]) ? 0 : 2;
	}
	if (cmd->fn == cmd_profiles)
		for (k = 1; k < argc; k++)
			if (!strcmp(argv[k], "--from-host"))
				return 0;	/* it would measure this machine */
	if (cmd->fn == cmd_calibrate) {		/* its options only: it would measure */
		bool quick;
		const char *path;

		return calibrate_parse_args(argc, argv, c->out, c->err, &quick, &path) == 2 ? 2 : 0;
	}
	null = fopen("/dev/null", "w");
	if (!null)
		return cli_fail(c, "--dry-run: cannot open /dev/null") - 1;
	out = c->out;
	c->out = null;
	ret = cmd->fn(c, argc, argv);
	c->out = out;
	fclose(null);
	return ret;
}

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
	bool dry = false;
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
	if (argc >= 2 && !strcmp(argv[1], "--dry-run")) {
		dry = true;
		argv++;
		argc--;
	}
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
	if (dry) {
		ret = cli_dry_run(c, &cli_cmds[i], argc - 1, argv + 1);
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
