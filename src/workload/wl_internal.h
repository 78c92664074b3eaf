/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the workload parser (parse.c), the resolver (resolve.c) and
 * the scenario built from a file (scenario.c); not the public API.
 */
#ifndef MMSIM_WL_INTERNAL_H
#define MMSIM_WL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmsim/workload.h"

bool wl_name_ok(const char *s);
char *wl_strdup(struct workload *w, const char *s);
/* The key @key of section [@kind @name], or NULL. */
const struct wl_key *wl_find(const struct workload *w, const char *kind, const char *name,
			     const char *key);
const struct wl_key *wl_section_first(const struct workload *w, const char *kind,
				      const char *name);
/* Names of the sections of @kind in order; more than @max: @max + 1. */
int wl_sections_of(const struct workload *w, const char *kind, const char **names, int max);
/* "FILE:LINE: " of @k, then the message; returns -1. */
int wl_key_err(const struct wl_key *k, char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* ---- resolve.c and steps.c ---- */

#define WL_VALUE_LEN		1024

/* One resolution: its inputs and where its error goes. */
struct wl_res {
	const struct workload *w;
	const struct sim_run_config *cfg;
	int nr_cpus;
	struct wl_plan *plan;
	const char *task_names[WL_MAX_TASKS + 1];	/* NULL after the last */
	char *err;
	size_t len;
};

extern const char *const wl_ops[];	/* by enum wl_op, NULL after the last */
/* @k's value, each ${NAME} replaced by parameter NAME's text, into @out. */
int wl_subst(struct wl_res *r, const struct wl_key *k, char *out, size_t outlen);
/* @text as a count, size or time in [@min, @max]: a term, or two joined by * or /. */
int wl_eval(struct wl_res *r, const struct wl_key *k, const char *text,
	    enum sim_param_type type, uint64_t min, uint64_t max, uint64_t *out);
/* @text as one of @words: its index, or -1 with the error. */
int wl_word(struct wl_res *r, const struct wl_key *k, const char *text,
	    const char *const *words);
/* The plan's memory @name: its index, or -1 with the error. */
int wl_mem_index(struct wl_res *r, const struct wl_key *k, const char *name);
/* One step line; *@present: false when its `if` does not hold. */
int wl_step(struct wl_res *r, const struct wl_key *k, struct wl_step *st, bool *present);

/* scenario.c: the scenario_ops' functions and metrics of a parsed workload. */
void wl_scenario_fill(struct workload *w);

#endif /* MMSIM_WL_INTERNAL_H */
