// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim completion bash`: a bash completion script, from the same tables
 * as the help.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "mmsim/profile.h"

/*
 * `mmsim completion bash`: a bash completion script, from the same tables:
 * commands, each command's options, scenario and profile names.
 */
int cmd_completion(struct cli *c, int argc, char **argv)
{
	/* what each kind of operand completes to, in bash */
	static const char *const words[] = {
		[CLI_OPERAND_SCENARIO] = "$(compgen -W \"$scenarios\" -- \"$cur\")",
		[CLI_OPERAND_PROFILE] = "$(compgen -W \"$profiles\" -- \"$cur\") $(compgen -f -- \"$cur\")",
		[CLI_OPERAND_COMMAND] = "$(compgen -W \"$cmds\" -- \"$cur\")",
		[CLI_OPERAND_FILE] = "$(compgen -f -- \"$cur\")",
	};
	const char *const *names = sim_profile_builtin_names();
	FILE *f = c->out;
	int i, k, n;

	if (argc != 2 || strcmp(argv[1], "bash"))
		return cli_fail(c, "completion%s%s: expected the shell: bash", argc > 1 ? " " : "",
				argc > 1 ? argv[1] : "");
	fprintf(f, "# bash completion for mmsim %s, written by `mmsim completion bash`\n",
		MMSIM_VERSION);
	fprintf(f, "_mmsim()\n{\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}"
		   " opts=\n\tlocal cmds=\"");
	for (i = 0; cli_cmds[i].name; i++)
		fprintf(f, "%s%s", i ? " " : "", cli_cmds[i].name);
	fprintf(f, "\"\n\tlocal scenarios=\"");
	for (i = 0; c->registry[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", c->registry[i]->name);
	fprintf(f, "\"\n\tlocal profiles=\"");
	for (i = 0; names[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", names[i]);
	fprintf(f, "\"\n\n\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"$cmds --help --version\" -- \"$cur\"))\n"
		   "\t\treturn\n\tfi\n\tcase $prev in\n"
		   "\t--profile) COMPREPLY=($(compgen -W \"$profiles\" -- \"$cur\") $(compgen -f -- \"$cur\")); return ;;\n"
		   "\t--locks-format) COMPREPLY=($(compgen -W \"perf lock_stat\" -- \"$cur\")); return ;;\n"
		   "\t--json|--csv|--trace|--plot) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
		   "\tesac\n\tcase ${COMP_WORDS[1]} in\n");
	for (k = 0; cli_cmds[k].name; k++) {
		if (!cli_cmds[k].opts)
			continue;
		fprintf(f, "\t%s) opts=\"", cli_cmds[k].name);
		for (i = 0; i < NR_CLI_OPTS; i++)
			if (cli_opts[i].cmds & cli_cmds[k].opts)
				fprintf(f, "%s ", cli_opts[i].name);
		fprintf(f, "--help\" ;;\n");
	}
	fprintf(f, "\tesac\n\tif [[ $cur == -* ]]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		   "\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n");
	for (k = CLI_OPERAND_SCENARIO; k <= CLI_OPERAND_FILE; k++) {
		for (i = 0, n = 0; cli_cmds[i].name; i++)
			if (cli_cmds[i].operand == (enum cli_operand)k)
				fprintf(f, "%s%s", n++ ? "|" : "\t", cli_cmds[i].name);
		if (n)
			fprintf(f, ") COMPREPLY=(%s) ;;\n", words[k]);
	}
	fprintf(f, "\tesac\n}\ncomplete -F _mmsim mmsim\n");
	return 0;
}
