// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the command line.  The input is split at newlines into
 * arguments; they go through the option parser of every command, and
 * each --set through the parameter parser of every scenario (units,
 * suffixes, ranges) and each --cost through sim_profile_set().  Nothing
 * runs: the parsers are the target, not the model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "fuzz.h"

#define FUZZ_MAX_ARGS	40

int fuzz_options(const uint8_t *data, size_t size)
{
	static const struct { unsigned cmd; const char *name; } cmds[] = {
		{ CLI_RUN, "run" }, { CLI_REPRO, "reproduce" },
		{ CLI_SWEEP, "sweep" }, { CLI_MERGE, "merge" },
	};
	char *text = malloc(size + 1), *argv[FUZZ_MAX_ARGS + 1], *s;
	struct sim_profile *prof = malloc(sizeof(*prof));
	struct plan_args *a = malloc(sizeof(*a));
	struct cli c;
	char *obuf = NULL;
	size_t olen = 0, i;
	int argc = 0, k, n;

	if (!text || !prof || !a)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';
	argv[argc++] = (char *)"cmd";
	for (s = text; argc < FUZZ_MAX_ARGS; ) {
		char *nl = strchr(s, '\n');

		argv[argc++] = s;
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	argv[argc] = NULL;
	memset(&c, 0, sizeof(c));
	c.registry = sim_scenarios;
	c.out = c.err = open_memstream(&obuf, &olen);
	if (!c.out)
		goto out;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (cli_parse_args(&c, argc, argv, cmds[i].cmd, cmds[i].name, a))
			continue;
		if (sim_profile_load("desktop", prof, c.msg, sizeof(c.msg)))
			continue;
		plan_apply_costs(a, prof, c.msg, sizeof(c.msg));
		for (n = 0; sim_scenarios[n]; n++) {
			struct sim_run_config cfg;

			sim_run_config_init(&cfg, sim_scenarios[n], prof, a->seed);
			for (k = 0; k < a->nr_sets; k++)
				sim_run_config_set(&cfg, a->sets[k], c.msg, sizeof(c.msg));
		}
	}
	fclose(c.out);
out:
	free(obuf);
	free(a);
	free(prof);
	free(text);
	return 0;
}

FUZZ_ENTRY(fuzz_options)
