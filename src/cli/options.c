// SPDX-License-Identifier: GPL-2.0-only
/*
 * The options every command shares, parsed in one place: the option table
 * (CLI_OPTIONS in cli_impl.h, which help, man and completion also read),
 * cli_parse_args(), and the look-ups whose errors name what was expected
 * (cli_find_scenario()).  A user's mistake travels back as 2 with one line
 * in c->msg (cli_fail()); mmsim_main() prints it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "mmsim/profile.h"

/**
 * cli_fail() - remember a user's mistake
 * @c: the invocation
 * @fmt: printf format of the line, without "mmsim: error: "
 *
 * Return: 2, the exit code of bad input.
 */
int cli_fail(struct cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return 2;
}

/* ---- look-ups over the registry ---------------------------------------- */

/**
 * cli_find_scenario() - a scenario of the registry by name
 * @c: the invocation; c->msg gets the error
 * @name: the name the user gave: an experiment, a workload file or a
 *	shipped workload (sim_scenario_lookup())
 *
 * Return: the scenario, or NULL with c->msg naming the expected ones.
 */
const struct scenario_ops *cli_find_scenario(struct cli *c, const char *name)
{
	return sim_scenario_lookup(c->registry, name, false, c->msg, sizeof(c->msg));
}

/**
 * cli_append_names() - append " a, b, c" to c->msg
 * @c: the invocation
 * @names: NULL-terminated names
 */
void cli_append_names(struct cli *c, const char *const *names)
{
	size_t n = strlen(c->msg);
	int i;

	for (i = 0; names && names[i] && n < sizeof(c->msg); i++)
		n += (size_t)snprintf(c->msg + n, sizeof(c->msg) - n, "%s %s",
				      i ? "," : "", names[i]);
}

/* ---- options -------------------------------------------------------------- */

const struct cli_opt_desc cli_opts[NR_CLI_OPTS] = {
#define CLI_OPT_ROW(id, n, a, c, h) [CLI_OPT_##id] = { n, a, c, h },
	CLI_OPTIONS(CLI_OPT_ROW)
#undef CLI_OPT_ROW
};

static int cli_parse_seed(struct cli *c, const char *text, uint64_t *seed)
{
	static const struct sim_param seed_param = {
		.key = "--seed", .type = SIM_PARAM_COUNT, .min = 0,
		.max = UINT64_MAX,
	};

	if (sim_param_parse(&seed_param, text, seed, c->msg, sizeof(c->msg)))
		return -1;
	return 0;
}

/*
 * Append @val to a repeatable option's list (@list, *@nr of @max used).
 * Returns 0, or 2 with c->msg set when the list is full.
 */
static int cli_push(struct cli *c, const char **list, int *nr, int max, const char *opt,
		    const char *val)
{
	if (*nr >= max)
		return cli_fail(c, "%s %s: too many %s: expected at most %d", opt, val, opt, max);
	list[(*nr)++] = val;
	return 0;
}

/**
 * cli_parse_args() - parse the options and operands of a subcommand
 * @c: the invocation
 * @argc: argument count, argv[0] is the subcommand
 * @argv: the arguments
 * @cmd: the subcommand's bit (CLI_RUN, CLI_REPRO, CLI_SWEEP, CLI_MERGE, CLI_SENS)
 * @cmd_name: its name, for errors
 * @a: the result
 *
 * Options take "--opt VALUE" or "--opt=VALUE".
 *
 * Return: 0, or 2 with c->msg filled.
 */
int cli_parse_args(struct cli *c, int argc, char **argv, unsigned cmd,
			  const char *cmd_name, struct plan_args *a)
{
	int i, k, id;

	memset(a, 0, sizeof(*a));
	a->seed = 1;
	a->seeds = 1;
	a->jobs = 0;		/* set after parsing: see plan_default_jobs() */
	a->trace_limit = 1000000;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		char jobs[64];
		size_t n;

		if (!strncmp(arg, "-j", 2)) {	/* -j N and -jN, as make's */
			snprintf(jobs, sizeof(jobs), "--jobs%s%.40s", arg[2] ? "=" : "", arg + 2);
			arg = jobs;
		}

		if (arg[0] != '-' || !strcmp(arg, "-")) {
			if (a->nr_pos >= PLAN_MAX_POS)
				return cli_fail(c, "%s: too many operands: expected at most %d",
						cmd_name, PLAN_MAX_POS);
			a->pos[a->nr_pos++] = arg;
			continue;
		}
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		for (id = 0; id < NR_CLI_OPTS; id++)
			if (strlen(cli_opts[id].name) == n &&
			    !strncmp(cli_opts[id].name, arg, n))
				break;
		if (id == NR_CLI_OPTS || !(cli_opts[id].cmds & cmd)) {
			size_t m;

			m = (size_t)snprintf(c->msg, sizeof(c->msg),
					     "unknown option %.*s for %s: expected one of",
					     (int)n, arg, cmd_name);
			for (k = 0, id = 0; id < NR_CLI_OPTS && m < sizeof(c->msg); id++)
				if (cli_opts[id].cmds & cmd)
					m += (size_t)snprintf(c->msg + m, sizeof(c->msg) - m,
							      "%s %s", k++ ? "," : "",
							      cli_opts[id].name);
			return 2;
		}
		if (cli_opts[id].arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return cli_fail(c, "%s: expected %s after it",
						cli_opts[id].name, cli_opts[id].arg);
		} else if (eq) {
			return cli_fail(c, "%s: takes no value, got %s: expected %s alone",
					cli_opts[id].name, eq + 1, cli_opts[id].name);
		}
		switch ((enum cli_opt_id)id) {
		case CLI_OPT_SET:
			if (!strchr(val, '=') || val[0] == '=')
				return cli_fail(c, "--set %s: expected KEY=VALUE", val);
			if (cli_push(c, a->sets, &a->nr_sets, PLAN_MAX_SETS, "--set", val))
				return 2;
			break;
		case CLI_OPT_COST:
			/* as a repeated --set key is refused (plan_configure()) */
			n = strcspn(val, "=");
			for (k = 0; k < a->nr_costs; k++)
				if (strcspn(a->costs[k], "=") == n && !strncmp(a->costs[k], val, n))
					return cli_fail(c, "--cost %s: %.*s given twice (first %s): expected each key once",
							val, (int)n, val, a->costs[k]);
			if (cli_push(c, a->costs, &a->nr_costs, PLAN_MAX_SETS, "--cost", val))
				return 2;
			break;
		case CLI_OPT_VARIANT:
			for (k = 0; k < a->nr_variants; k++)
				if (!strcmp(a->variants[k], val))
					return cli_fail(c, "--variant %s: given twice: expected each variant once", val);
			if (a->nr_variants >= SIM_MAX_VARIANTS)
				return cli_fail(c, "--variant %s: too many variants: expected at most %d",
						val, SIM_MAX_VARIANTS);
			a->variants[a->nr_variants++] = val;
			break;
		case CLI_OPT_BASELINE:
		case CLI_OPT_PROFILE:
		case CLI_OPT_JSON:
		case CLI_OPT_CSV:
		case CLI_OPT_PLOT:
		case CLI_OPT_SLURM:
		case CLI_OPT_TRACE: {
			const char **slot = id == CLI_OPT_BASELINE ? &a->baseline :
					    id == CLI_OPT_PROFILE ? &a->profile :
					    id == CLI_OPT_JSON ? &a->json :
					    id == CLI_OPT_CSV ? &a->csv :
					    id == CLI_OPT_PLOT ? &a->plot :
					    id == CLI_OPT_SLURM ? &a->slurm : &a->trace;

			if (*slot)
				return cli_fail(c, "%s %s: given twice (first %s): expected it once",
						cli_opts[id].name, val, *slot);
			if (!*val)
				return cli_fail(c, "%s: expected %s, got an empty value",
						cli_opts[id].name, cli_opts[id].arg);
			*slot = val;
			break;
		}
		case CLI_OPT_SEED:
			if (a->seed_given)
				return cli_fail(c, "--seed %s: given twice: expected one --seed", val);
			if (cli_parse_seed(c, val, &a->seed))
				return 2;
			a->seed_given = true;
			break;
		case CLI_OPT_QUIET:
			a->quiet = true;
			break;
		case CLI_OPT_VMSTAT:
			a->vmstat = true;
			break;
		case CLI_OPT_REPORT:
			if (strcmp(val, "functions"))
				return cli_fail(c, "--report %s: expected functions", val);
			a->report_functions = true;
			break;
		case CLI_OPT_LOCKS_FORMAT:
			if (!strcmp(val, "perf"))
				a->locks_format = SIM_LOCKS_PERF;
			else if (!strcmp(val, "lock_stat"))
				a->locks_format = SIM_LOCKS_LOCK_STAT;
			else
				return cli_fail(c, "--locks-format %s: expected perf or lock_stat", val);
			break;
		case CLI_OPT_VARY:
			if (cli_push(c, a->vary, &a->nr_vary, SIM_MAX_PARAMS, "--vary", val))
				return 2;
			break;
		case CLI_OPT_SEEDS:
		case CLI_OPT_JOBS:
		case CLI_OPT_EMIT_JOBS:
		case CLI_OPT_MERGE_N:
		case CLI_OPT_TRACE_LIMIT: {
			struct sim_param np = {
				.key = cli_opts[id].name, .type = SIM_PARAM_COUNT,
				.min = 1, .max = id == CLI_OPT_TRACE_LIMIT ? 100000000 : 10000,
			};
			uint64_t *slot = id == CLI_OPT_SEEDS ? &a->seeds :
					 id == CLI_OPT_JOBS ? &a->jobs :
					 id == CLI_OPT_EMIT_JOBS ? &a->emit_jobs :
					 id == CLI_OPT_MERGE_N ? &a->merge_n :
					 &a->trace_limit;

			if (sim_param_parse(&np, val, slot, c->msg, sizeof(c->msg)))
				return 2;
			break;
		}
		case CLI_OPT_SHARD: {
			char *end;
			unsigned long long i, n;

			errno = 0;
			i = strtoull(val, &end, 10);
			if (val[0] < '0' || val[0] > '9' || *end != '/' ||
			    end[1] < '0' || end[1] > '9')
				return cli_fail(c, "--shard %s: expected I/N, e.g. 2/4", val);
			n = strtoull(end + 1, &end, 10);
			if (*end || errno || n < 1 || n > 10000 || i < 1 || i > n)
				return cli_fail(c, "--shard %s: expected I/N with 1 <= I <= N <= 10000",
						val);
			a->shard_i = i;
			a->shard_n = n;
			break;
		}
		case CLI_OPT_CHECK:
			a->check = true;
			break;
		case CLI_OPT_SUBMIT:
			a->submit = true;
			break;
		case NR_CLI_OPTS:
			break;
		}
	}
	if (a->json && a->csv && !strcmp(a->json, "-") && !strcmp(a->csv, "-"))
		return cli_fail(c, "--json - and --csv -: expected at most one of them on standard output");
	if (a->json && a->csv && strcmp(a->json, "-") && !strcmp(a->json, a->csv))
		return cli_fail(c, "--json %s and --csv %s: expected two different files",
				a->json, a->csv);
	return 0;
}

/**
 * cli_settings_text() - the run's --set and --cost, as the user gave them
 * @a: the options
 * @buf: "--set iterations=30 --cost cache.remote_transfer_ns=100", or ""
 * @len: size of @buf
 *
 * For a chart's title, so that a picture says what it is a picture of.
 */
void cli_settings_text(const struct plan_args *a, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < a->nr_sets && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s--set %s", n ? " " : "", a->sets[k]);
	for (k = 0; k < a->nr_costs && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s--cost %s", n ? " " : "", a->costs[k]);
}
