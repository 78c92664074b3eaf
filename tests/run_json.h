/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * For tests that run an mmsim binary: its JSON output as a document.
 * Include after <cmocka.h> and <jansson.h>.
 */
#ifndef MMSIM_TEST_RUN_JSON_H
#define MMSIM_TEST_RUN_JSON_H

#include <stdio.h>

/* `BIN ARGS --json -`: the run must succeed and print one JSON document. */
static json_t *run_json(const char *bin, const char *args)
{
	char cmd[1024];
	json_error_t jerr;
	json_t *doc;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s %s --json - 2>/dev/null", bin, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	doc = json_loadf(p, 0, &jerr);
	assert_int_equal(pclose(p), 0);
	assert_non_null(doc);
	return doc;
}

#endif
