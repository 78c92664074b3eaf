// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the profile parser (INI text -> struct sim_profile, the
 * PROFILE_LIMITS ranges, the checks across fields) and sim_profile_set()
 * (the text of --cost), on the same input.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mmsim/profile.h"

int fuzz_profile(const uint8_t *data, size_t size)
{
	struct sim_profile *p = malloc(sizeof(*p));
	char *text = malloc(size + 1), err[512];

	if (!p || !text)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';		/* the file reader refuses NUL bytes */
	if (!sim_profile_parse(text, "fuzz.ini", p, err, sizeof(err)))
		sim_profile_check(p, err, sizeof(err));
	if (!sim_profile_load("desktop", p, err, sizeof(err)) &&
	    !sim_profile_set(p, text, err, sizeof(err)))
		sim_profile_check(p, err, sizeof(err));
out:
	free(text);
	free(p);
	return 0;
}

FUZZ_ENTRY(fuzz_profile)
