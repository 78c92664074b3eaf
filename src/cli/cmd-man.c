// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim man`: the manual page, in roff, from the same tables as the help.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "mmsim/profile.h"

/* @s for roff: '-' as "\-", a backslash doubled, a leading '.' or '\'' guarded. */
static void man_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

/*
 * `mmsim man`: the manual page, in roff, from the same tables as the help:
 * commands (cli_cmds), options (CLI_OPTIONS), scenarios and profiles.
 */
int cmd_man(struct cli *c, int argc, char **argv)
{
	const char *const *names = sim_profile_builtin_names();
	FILE *f = c->out;
	unsigned seen;
	int i, k;

	if (argc > 1)
		return cli_fail(c, "man %s: takes no operand: expected none", argv[1]);
	fprintf(f, ".TH MMSIM 1 \"\" \"mmsim %s\" \"User Commands\"\n.SH NAME\n", MMSIM_VERSION);
	fprintf(f, "mmsim \\- a deterministic simulator of Linux memory\\-management hot paths\n");
	fprintf(f, ".SH SYNOPSIS\n.B mmsim\n.I COMMAND\n[\\fIoptions\\fR]\n.SH COMMANDS\n");
	for (i = 0; cli_cmds[i].name; i++) {
		fprintf(f, ".TP\n.B ");
		man_text(f, cli_cmds[i].name);
		if (cli_cmds[i].usage[0]) {
			fputs(" ", f);
			man_text(f, cli_cmds[i].usage);
		}
		fputs("\n", f);
		man_text(f, cli_cmds[i].summary);
		fputs("\n", f);
	}
	fprintf(f, ".SH OPTIONS\n\\-j N is \\-\\-jobs N.\n");
	for (i = 0; i < NR_CLI_OPTS; i++) {
		fprintf(f, ".TP\n.B ");
		man_text(f, cli_opts[i].name);
		if (cli_opts[i].arg) {
			fputs(" \\fI", f);
			man_text(f, cli_opts[i].arg);
			fputs("\\fR", f);
		}
		fputs("\n(", f);
		for (k = 0, seen = 0; cli_cmds[k].name; k++)
			if (cli_opts[i].cmds & cli_cmds[k].opts) {
				fprintf(f, "%s%s", seen ? ", " : "", cli_cmds[k].name);
				seen |= cli_cmds[k].opts;
			}
		fputs(") ", f);
		man_text(f, cli_opts[i].help);
		fputs("\n", f);
	}
	fprintf(f, ".SH SCENARIOS\n");
	for (i = 0; c->registry[i]; i++) {
		fprintf(f, ".TP\n.B ");
		man_text(f, c->registry[i]->name);
		fputs("\n", f);
		man_text(f, c->registry[i]->summary ? c->registry[i]->summary : "");
		fputs("\n", f);
	}
	fprintf(f, ".SH PROFILES\n");
	for (i = 0; names[i]; i++) {
		fputs(i ? ", " : "", f);
		man_text(f, names[i]);
	}
	fprintf(f, "; or an INI file (\\fBmmsim profiles\\fR \\fINAME\\fR prints one).\n");
	fprintf(f, ".SH EXIT STATUS\n0 success, 1 internal failure, 2 bad input "
		"(one line on standard error, before any work).\n");
	fprintf(f, ".SH SEE ALSO\nREADME.md and docs/ in the source tree.\n");
	return 0;
}
