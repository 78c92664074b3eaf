// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim profiles [NAME|FILE | --from-host [FILE]]`: the builtin profiles,
 * one of them with the source of every value, or this machine's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_impl.h"
#include "host/calibrate.h"
#include "mmsim/profile.h"

/*
 * Every value with its meaning and source; a source the profile inherits
 * from the one it includes says so ("as skylake-sp-2s: ..."), as
 * docs/costs.md does (scripts/gen_costs.py), so that it is not read as
 * the including machine's own.
 */
static void print_profile(struct cli *c, const struct sim_profile *p)
{
	int i;

	fprintf(c->out, "profile %s: %s\n", p->origin, p->machine_description);
	fprintf(c->out, "%d CPUs: %" PRIu64 " sockets x %" PRIu64
		" cores x %" PRIu64 " threads, %" PRIu64 " nodes\n\n",
		sim_profile_nr_cpus(p), p->topology_sockets,
		p->topology_cores_per_socket, p->topology_threads_per_core,
		p->topology_nodes);
#define PROFILE_PRINT_U64(sec, key, unit)                                      \
	fprintf(c->out, "%-32s %10" PRIu64 " %-7s", #sec "." #key, p->sec##_##key, unit)
#define PROFILE_PRINT_STR(sec, key, unit)                                      \
	fprintf(c->out, "%-32s %s", #sec "." #key, p->sec##_##key)
#define PROFILE_PRINT_FIELD(sec, key, type, unit, meaning)                     \
	do {                                                                   \
		const char *src = "no source given", *as = "";                \
		size_t kn = strlen(#sec "." #key);                             \
		PROFILE_PRINT_##type(sec, key, unit);                          \
		for (i = 0; i < p->nr_sources; i++)                            \
			if (!strncmp(p->sources[i], #sec "." #key " = ", kn + 3)) { \
				src = p->sources[i] + kn + 3;                  \
				as = i < p->nr_inherited_sources ? p->included : ""; \
			}                                                      \
		fprintf(c->out, "  %s; %s%s%s%s\n", meaning, *as ? "as " : "", as, \
			*as ? ": " : "", src);                                 \
	} while (0);
	PROFILE_FIELDS(PROFILE_PRINT_FIELD)
#undef PROFILE_PRINT_FIELD
#undef PROFILE_PRINT_STR
#undef PROFILE_PRINT_U64
	if (p->nr_ranges)
		fprintf(c->out, "\nranges of the assumed values (`mmsim sensitivity` runs both ends):\n");
	for (i = 0; i < p->nr_ranges; i++)
		fprintf(c->out, "%-32s %10" PRIu64 "..%-10" PRIu64 " %s\n", p->ranges[i].key,
			p->ranges[i].lo, p->ranges[i].hi, p->ranges[i].reason);
}

/*
 * `mmsim profiles --from-host [FILE]`: the profile of this machine, which is
 * what `mmsim calibrate --quick [--out FILE]` writes (src/host/calibrate.c:
 * the nearest builtin, then every key measured here), checked as any
 * profile is, to FILE (whole or not at all) or standard output.  Progress
 * and what could not be measured go to standard error.
 */
static int cmd_profiles_from_host(struct cli *c, int argc, char **argv)
{
	static const char head[] = "; written by `mmsim profiles --from-host`, which is "
				   "`mmsim calibrate --quick`\n";
	static char ini[65536], out[65536 + sizeof(head)];
	struct sim_profile *p;
	struct sim_outfile f;
	int n, ret = 0;

	if (argc > 3)
		return cli_fail(c, "profiles --from-host: expected at most one FILE, got %d",
				argc - 2);
	/* an unwritable FILE fails before anything is measured */
	if (sim_outfile_open(&f, "profiles --from-host", argc == 3 ? argv[2] : "-", c->out,
			     c->msg, sizeof(c->msg)))
		return 2;
	fflush(c->out);
	n = calibrate_profile_text(true, c->err, ini, sizeof(ini), c->msg, sizeof(c->msg));
	if (n < 0) {
		sim_outfile_abort(&f);
		return 2;
	}
	p = calloc(1, sizeof(*p));
	if (!p || sim_profile_parse(ini, "host", p, c->msg, sizeof(c->msg)))
		ret = 1;	/* what calibrate wrote does not parse: our bug */
	free(p);
	n = snprintf(out, sizeof(out), "%s%s", head, ini);
	if (!ret && sim_outfile_commit(&f, out, (size_t)n, c->msg, sizeof(c->msg)))
		ret = 1;
	sim_outfile_abort(&f);
	return ret;
}

int cmd_profiles(struct cli *c, int argc, char **argv)
{
	const char *const *names = sim_profile_builtin_names();
	struct sim_profile *p;
	int i, ret = 0;

	if (argc >= 2 && !strcmp(argv[1], "--from-host"))
		return cmd_profiles_from_host(c, argc, argv);
	if (argc > 2)
		return cli_fail(c, "profiles: expected at most one profile, got %d operands",
				argc - 1);
	p = calloc(1, sizeof(*p));
	if (!p)
		return cli_fail(c, "out of memory") - 1;
	if (argc == 2) {
		if (sim_profile_load(argv[1], p, c->msg, sizeof(c->msg)))
			ret = 2;
		else
			print_profile(c, p);
		free(p);
		return ret;
	}
	for (i = 0; names[i]; i++) {
		if (sim_profile_load(names[i], p, c->msg, sizeof(c->msg))) {
			ret = 1;	/* a builtin profile is broken: our bug */
			break;
		}
		fprintf(c->out, "%-16s %4d CPUs  %s\n", names[i],
			sim_profile_nr_cpus(p), p->machine_description);
	}
	free(p);
	return ret;
}
