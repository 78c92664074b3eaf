// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload files (docs/workloads.md): INI text -> struct workload.
 *
 * Models nothing of the kernel.  A file is read whole (sim_input_read(),
 * bounded), its includes first, with inih; every `key = value` is kept as
 * written, with its file and line, in workload.keys[] (values may hold
 * ${PARAM}, resolved per run by workload_resolve(), resolve.c).  What does
 * not depend on a run is built here, once: the parameters (struct
 * sim_param), the variants (struct mm_variant through mm_variant_set(),
 * src/mm/variant.c) and the scenario_ops every command reads
 * (scenario.c).  The file is then resolved at its simulated and its live
 * defaults, so that a bad file is refused before any work.
 *
 * Includes: `include = PATH` before the first section (relative to the
 * including file, or a shipped workload's name), WL_MAX_INCLUDE_DEPTH deep,
 * a cycle refused.  The included file's keys come first; a key of the same
 * section given again by a later file replaces the earlier value in place
 * (so sections keep their order), and a later file's first `setup`,
 * `loop` or `teardown` line replaces that list of the earlier file.
 *
 * Every error is one line: "FILE:LINE: what was wrong: expected ...".
 * No locks: nothing here runs inside the engine.
 */
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/mm.h"
#include "mmsim/input.h"
#include "mmsim/profile.h"
#include "mmsim/workload.h"
#include "workload/wl_internal.h"

/* A workload file is a few KiB; more is not one. */
#define WL_MAX_BYTES		(256 * 1024)
/* inih's line buffer (INI_MAX_LINE of the system's libinih): longer is refused. */
#define WL_MAX_LINE		199

static const char *const wl_sections[] = { "workload", "param", "memory", "task", "variant",
					   NULL };

static const char *const wl_workload_keys[] = { "name", "summary", "description", "source",
						"profile", "node_memory", "thp", "baseline",
						"changed", "mainline", "op_bytes", "first_fault",
						"khugepaged", "khugepaged_pages_to_scan",
						"khugepaged_scan_sleep", "khugepaged_first_wake",
						"khugepaged_max_ptes_none", "khugepaged_cpu", NULL };
static const char *const wl_param_keys[] = { "type", "default", "live", "min", "max",
					     "choices", "help", "tasks", "model_only", NULL };
static const char *const wl_memory_keys[] = { "kind", "size", "mapping", "page", "numa",
					      "per", "cached", "sparse", NULL };
static const char *const wl_task_keys[] = { "count", "as", "cpu", "repeat", "duration",
					    "start_delay", "start_phase", "forked", "setup",
					    "loop", "teardown", "until", "loop_at", NULL };

/* The state of one file's parse; includes nest through @parent. */
struct wl_parse {
	struct workload *w;
	const char *origin;		/* this file's path, or "builtin:NAME" */
	struct wl_parse *parent;	/* the including file's parse */
	int depth;
	int first_key;			/* w->keys[first_key..]: this file's own */
	struct sim_ini_lines in;	/* the reader (include/mmsim/input.h) */
	bool failed;
	bool err_whole;			/* err already names file:line (an include's) */
	int err_line;
	char err[600];
};

static bool wl_in(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static void wl_list(char *buf, size_t len, const char *const *list)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; list[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", list[i]);
}

/* A name of a section: letters, digits, _ and -, shorter than WL_NAME_LEN. */
bool wl_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= WL_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

bool workload_names_file(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n >= 4 && !strcmp(name + n - 4, ".ini"));
}

static int wl_fail(struct wl_parse *pp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int wl_fail(struct wl_parse *pp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pp->err, sizeof(pp->err), fmt, ap);
	va_end(ap);
	pp->failed = true;
	pp->err_line = pp->in.line;
	return 0;
}

static int wl_parse_text(struct workload *w, const char *text, const char *origin,
			 struct wl_parse *parent, char *err, size_t len);

/* `include = NAME`: the file (relative to this one) or shipped workload NAME, first. */
static int wl_include(struct wl_parse *pp, const char *name)
{
	char path[512], why[600];
	const char *slash = strrchr(pp->origin, '/'), *text;
	char *buf = NULL;
	size_t n;
	int ret;

	if (pp->depth >= WL_MAX_INCLUDE_DEPTH)
		return wl_fail(pp, "include %s: more than %d includes deep: expected at most %d",
			       name, WL_MAX_INCLUDE_DEPTH, WL_MAX_INCLUDE_DEPTH);
	if (workload_names_file(name)) {
		if (name[0] != '/' && slash && strncmp(pp->origin, "builtin:", 8))
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - pp->origin),
				 pp->origin, name);
		else
			snprintf(path, sizeof(path), "%s", name);
	} else {
		snprintf(path, sizeof(path), "builtin:%s", name);
	}
	for (struct wl_parse *q = pp; q; q = q->parent)
		if (!strcmp(q->origin, path))
			return wl_fail(pp, "include %s: an include cycle (%s includes itself): "
				       "expected files that do not include each other", name, path);
	if (workload_names_file(name)) {
		if (sim_input_read(path, WL_MAX_BYTES, "a workload file (INI)", &buf, &n, why,
				   sizeof(why)))
			return wl_fail(pp, "include %.500s", why);
		text = buf;
	} else {
		text = workload_builtin_text(name);
		if (!text)
			return wl_fail(pp, "include %s: no shipped workload of that name: expected "
				       "a shipped workload (mmsim list) or a file path (with / or .ini)",
				       name);
	}
	ret = wl_parse_text(pp->w, text, path, pp, pp->err, sizeof(pp->err));
	free(buf);
	if (ret) {
		pp->failed = true;
		pp->err_whole = true;
		pp->err_line = pp->in.line;
		return 0;
	}
	pp->first_key = pp->w->nr_keys;
	return 1;
}

/* Add (or replace) one key of this file. */
static int wl_add_key(struct wl_parse *pp, const char *kind, const char *sname,
		      const char *key, const char *value)
{
	struct workload *w = pp->w;
	bool list = !strcmp(kind, "task") && (!strcmp(key, "setup") || !strcmp(key, "loop") ||
					      !strcmp(key, "teardown"));
	struct wl_key *k;
	int i, j;

	for (i = 0; i < w->nr_keys; i++) {
		k = &w->keys[i];
		if (strcmp(k->section, kind) || strcmp(k->name, sname) || strcmp(k->key, key))
			continue;
		if (i >= pp->first_key) {		/* this file's own */
			if (list)
				continue;
			return wl_fail(pp, "%s given twice in [%s%s%s] (line %d): expected each "
				       "key once", key, kind, sname[0] ? " " : "", sname, k->line);
		}
		if (list) {			/* an included list: dropped, replaced */
			free(k->value);
			memmove(k, k + 1, (size_t)(w->nr_keys - i - 1) * sizeof(*k));
			w->nr_keys--;
			pp->first_key--;
			i--;
			continue;
		}
		free(k->value);			/* an included value: replaced in place */
		k->value = strdup(value);
		if (!k->value)
			return wl_fail(pp, "out of memory");
		snprintf(k->file, sizeof(k->file), "%s", pp->origin);
		k->line = pp->in.line;
		return 1;
	}
	if (w->nr_keys >= WL_MAX_KEYS)
		return wl_fail(pp, "more than %d keys: expected a smaller workload", WL_MAX_KEYS);
	j = w->nr_keys;
	k = &w->keys[j];
	memset(k, 0, sizeof(*k));
	snprintf(k->section, sizeof(k->section), "%s", kind);
	snprintf(k->name, sizeof(k->name), "%s", sname);
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->file, sizeof(k->file), "%s", pp->origin);
	k->line = pp->in.line;
	k->value = strdup(value);
	if (!k->value)
		return wl_fail(pp, "out of memory");
	w->nr_keys++;
	return 1;
}

static int wl_handler(void *user, const char *section, const char *key, const char *value)
{
	struct wl_parse *pp = user;
	char kind[16], sname[64], names[400];
	const char *sp;
	const char *const *keys = NULL;

	if (pp->failed)
		return 1;
	if (!section[0]) {
		if (strcmp(key, "include"))
			return wl_fail(pp, "%s before the first section: expected include = PATH "
				       "or a [section]", key);
		return wl_include(pp, value);
	}
	sp = strchr(section, ' ');
	snprintf(kind, sizeof(kind), "%.*s", sp ? (int)(sp - section) : (int)strlen(section),
		 section);
	snprintf(sname, sizeof(sname), "%s", sp ? sp + 1 : "");
	if (!wl_in(wl_sections, kind)) {
		wl_list(names, sizeof(names), wl_sections);
		wl_fail(pp, "unknown section [%s]: expected one of %s", section, names);
		pp->err_line = pp->in.section_line;
		return 0;
	}
	if ((!strcmp(kind, "workload") && sname[0]) ||
	    (strcmp(kind, "workload") && !wl_name_ok(sname))) {
		wl_fail(pp, "[%s]: expected [workload], or [%s NAME] with NAME of letters, digits, "
			"_ and - (at most %d)", section, kind, WL_NAME_LEN - 1);
		pp->err_line = pp->in.section_line;
		return 0;
	}
	if (!strcmp(kind, "workload"))
		keys = wl_workload_keys;
	else if (!strcmp(kind, "param"))
		keys = wl_param_keys;
	else if (!strcmp(kind, "memory"))
		keys = wl_memory_keys;
	else if (!strcmp(kind, "task"))
		keys = wl_task_keys;
	if (keys && !wl_in(keys, key)) {
		wl_list(names, sizeof(names), keys);
		return wl_fail(pp, "unknown key %s in [%s]: expected one of %s", key, section, names);
	}
	if (!strcmp(key, "include"))
		return wl_fail(pp, "include in [%s]: expected it before the first section", section);
	if (!value[0])
		return wl_fail(pp, "%s in [%s] has no value: expected %s = VALUE", key, section, key);
	return wl_add_key(pp, kind, sname, key, value);
}

/* Parse @text (from @origin) into @w after what is there. */
static int wl_parse_text(struct workload *w, const char *text, const char *origin,
			 struct wl_parse *parent, char *err, size_t len)
{
	struct wl_parse *pp = calloc(1, sizeof(*pp));
	const char *p = text;
	int line = 1, ret = -1;

	if (!pp) {
		snprintf(err, len, "%s: out of memory", origin);
		return -1;
	}
	/* inih would cut a longer line in two: refuse it */
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > WL_MAX_LINE) {
			snprintf(err, len, "%s:%d: a line of %zu characters: expected at most %d",
				 origin, line, n, WL_MAX_LINE);
			goto out_free;
		}
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	pp->w = w;
	pp->origin = origin;
	pp->parent = parent;
	pp->depth = parent ? parent->depth + 1 : 0;
	pp->first_key = w->nr_keys;
	pp->in.next = text;
	line = ini_parse_stream(sim_ini_reader, &pp->in, wl_handler, pp);
	if (line == 0 && !pp->failed) {
		ret = 0;
		goto out_free;
	}
	if (pp->failed && pp->err_whole)
		snprintf(err, len, "%s", pp->err);
	else if (pp->failed)
		snprintf(err, len, "%s:%d: %s", origin, pp->err_line, pp->err);
	else
		snprintf(err, len, "%s:%d: expected [section], key = value or a comment", origin,
			 line);
out_free:
	free(pp);
	return ret;
}

/* ---- building the scenario ------------------------------------------------------ */

/* A copy of @s in w's string arena (never moved: sized at load). */
char *wl_strdup(struct workload *w, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (w->strings_len + n > w->strings_cap)
		return NULL;
	p = w->strings + w->strings_len;
	memcpy(p, s, n);
	w->strings_len += n;
	return p;
}

static void *wl_alloc(struct workload *w, size_t n)
{
	size_t at = (w->strings_len + 15) & ~(size_t)15;

	if (at + n > w->strings_cap)
		return NULL;
	w->strings_len = at + n;
	memset(w->strings + at, 0, n);
	return w->strings + at;
}

static const char *const wl_type_names[] = { "count", "size", "time", "bool", "enum", NULL };

/* A parameter's bound or default from its text (nr_cpus aside). */
static int wl_param_value(const struct sim_param *p, const struct wl_key *k, uint64_t *out,
			  char *err, size_t len)
{
	char why[512];

	if (sim_param_parse(p, k->value, out, why, sizeof(why)))
		return wl_key_err(k, err, len, "[param %s] %s = %s: %s", p->key, k->key, k->value,
				  strstr(why, "expected") ? strstr(why, "expected") : why);
	return 0;
}

/* The [param NAME] sections into w->params. */
static int wl_build_params(struct workload *w, char *err, size_t len)
{
	const char *names[SIM_MAX_PARAMS + 1];
	int nr = wl_sections_of(w, "param", names, SIM_MAX_PARAMS);

	if (nr > SIM_MAX_PARAMS)
		return wl_key_err(wl_section_first(w, "param", names[SIM_MAX_PARAMS - 1]), err,
				  len, "more than %d parameters: expected at most %d",
				  SIM_MAX_PARAMS, SIM_MAX_PARAMS);
	for (int i = 0; i < nr; i++) {
		struct sim_param *p = &w->params[i];
		const struct wl_key *first = wl_section_first(w, "param", names[i]);
		const struct wl_key *k;
		char list[96];
		int t;

		if (!strcmp(names[i], "nr_cpus"))
			return wl_key_err(first, err, len, "[param nr_cpus]: expected another name "
					  "(nr_cpus is the run's CPUs)");
		p->key = wl_strdup(w, names[i]);
		k = wl_find(w, "param", names[i], "type");
		if (!k) {
			wl_list(list, sizeof(list), wl_type_names);
			return wl_key_err(first, err, len, "[param %s] has no type: expected type = "
					  "one of %s", names[i], list);
		}
		for (t = 0; wl_type_names[t] && strcmp(wl_type_names[t], k->value); t++)
			;
		if (!wl_type_names[t]) {
			wl_list(list, sizeof(list), wl_type_names);
			return wl_key_err(k, err, len, "[param %s] type = %s: expected one of %s",
					  names[i], k->value, list);
		}
		p->type = (enum sim_param_type)t;
		p->min = 0;
		p->max = p->type == SIM_PARAM_COUNT ? 1000000000000ULL :
			 p->type == SIM_PARAM_SIZE ? 1ULL << 44 :
			 p->type == SIM_PARAM_TIME ? 3600ULL * 1000000000ULL : 1;
		if (p->type == SIM_PARAM_ENUM) {
			const char *words[64];
			char *copy, *save = NULL, *tok;
			const char **choices;
			int n = 0;

			k = wl_find(w, "param", names[i], "choices");
			if (!k)
				return wl_key_err(first, err, len, "[param %s] is an enum with no "
						  "choices: expected choices = WORD WORD ...", names[i]);
			copy = wl_strdup(w, k->value);
			for (tok = copy ? strtok_r(copy, " \t", &save) : NULL; tok && n < 63;
			     tok = strtok_r(NULL, " \t", &save))
				words[n++] = tok;
			if (n < 1 || tok)
				return wl_key_err(k, err, len, "[param %s] choices = %s: expected 1 "
						  "to 63 words", names[i], k->value);
			choices = wl_alloc(w, (size_t)(n + 1) * sizeof(*choices));
			if (!choices)
				return wl_key_err(k, err, len, "out of memory");
			memcpy(choices, words, (size_t)n * sizeof(*choices));
			p->choices = choices;
			p->max = (uint64_t)n - 1;
		} else if (wl_find(w, "param", names[i], "choices")) {
			return wl_key_err(wl_find(w, "param", names[i], "choices"), err, len,
					  "[param %s] choices: expected them on an enum only",
					  names[i]);
		}
		for (int b = 0; b < 2; b++) {
			k = wl_find(w, "param", names[i], b ? "max" : "min");
			if (!k)
				continue;
			if (p->type == SIM_PARAM_BOOL || p->type == SIM_PARAM_ENUM)
				return wl_key_err(k, err, len, "[param %s] %s: expected it on a "
						  "count, size or time only", names[i], k->key);
			if (wl_param_value(&(struct sim_param){ .key = p->key, .type = p->type,
								.max = UINT64_MAX },
					   k, b ? &p->max : &p->min, err, len))
				return -1;
		}
		if (p->min > p->max)
			return wl_key_err(first, err, len, "[param %s]: min above max: expected "
					  "min <= max", names[i]);
		k = wl_find(w, "param", names[i], "default");
		if (!k)
			return wl_key_err(first, err, len, "[param %s] has no default: expected "
					  "default = VALUE", names[i]);
		if (!strcmp(k->value, "nr_cpus")) {
			if (p->type != SIM_PARAM_COUNT)
				return wl_key_err(k, err, len, "[param %s] default = nr_cpus: "
						  "expected it on a count only", names[i]);
			p->cpus_default = true;
			p->def = p->min > 1 ? p->min : 1;
		} else if (wl_param_value(p, k, &p->def, err, len)) {
			return -1;
		}
		k = wl_find(w, "param", names[i], "live");
		if (k) {
			if (!strcmp(k->value, "nr_cpus"))
				return wl_key_err(k, err, len, "[param %s] live = nr_cpus: expected "
						  "a value (the live run's machine is not known "
						  "here)", names[i]);
			if (wl_param_value(p, k, &p->live_def, err, len))
				return -1;
			p->has_live_def = true;
		}
		k = wl_find(w, "param", names[i], "help");
		p->help = wl_strdup(w, k ? k->value : "");
		p->live = true;
		k = wl_find(w, "param", names[i], "model_only");
		if (k && strcmp(k->value, "yes") && strcmp(k->value, "no"))
			return wl_key_err(k, err, len, "[param %s] model_only = %s: expected yes "
					  "or no", names[i], k->value);
		if (k && !strcmp(k->value, "yes"))
			p->live = false;
		k = wl_find(w, "param", names[i], "tasks");
		if (k && strcmp(k->value, "yes") && strcmp(k->value, "no"))
			return wl_key_err(k, err, len, "[param %s] tasks = %s: expected yes or no",
					  names[i], k->value);
		if (k && !strcmp(k->value, "yes")) {
			if (p->type != SIM_PARAM_COUNT)
				return wl_key_err(k, err, len, "[param %s] tasks = yes: expected it "
						  "on a count", names[i]);
			if (w->ops.tasks_param)
				return wl_key_err(k, err, len, "[param %s] tasks = yes: expected one "
						  "such parameter, %s is already", names[i],
						  w->ops.tasks_param);
			w->ops.tasks_param = p->key;
		}
		if (!p->key || !p->help)
			return wl_key_err(first, err, len, "out of memory");
	}
	return 0;
}

/* The [variant NAME] sections into w->variants, or one "mainline". */
static int wl_build_variants(struct workload *w, char *err, size_t len)
{
	const char *names[SIM_MAX_VARIANTS + 1];
	int nr = wl_sections_of(w, "variant", names, SIM_MAX_VARIANTS);
	char why[512];

	w->mm_variants = calloc(SIM_MAX_VARIANTS, sizeof(*w->mm_variants));
	if (!w->mm_variants) {
		snprintf(err, len, "%s: out of memory", w->path);
		return -1;
	}
	if (nr > SIM_MAX_VARIANTS)
		return wl_key_err(wl_section_first(w, "variant", names[SIM_MAX_VARIANTS - 1]), err,
				  len, "more than %d variants: expected at most %d",
				  SIM_MAX_VARIANTS, SIM_MAX_VARIANTS);
	if (!nr) {
		w->variants[0].name = "mainline";
		w->variants[0].mm = &w->mm_variants[0];
		return 0;
	}
	for (int i = 0; i < nr; i++) {
		w->variants[i].name = wl_strdup(w, names[i]);
		w->variants[i].mm = &w->mm_variants[i];
		for (int j = 0; j < w->nr_keys; j++) {
			const struct wl_key *k = &w->keys[j];

			if (strcmp(k->section, "variant") || strcmp(k->name, names[i]))
				continue;
			if (mm_variant_set(&w->mm_variants[i], k->key, k->value, why, sizeof(why)))
				return wl_key_err(k, err, len, "[variant %s] %s", names[i], why);
		}
	}
	return 0;
}

/* baseline, changed, mainline: a variant's name, or the default. */
static int wl_variant_role(struct workload *w, const char *key, const char *def,
			   const char **out, char *err, size_t len)
{
	const struct wl_key *k = wl_find(w, "workload", "", key);
	char names[200];
	size_t n = 0;

	*out = def;
	if (!k)
		return 0;
	for (int i = 0; w->variants[i].name; i++)
		if (!strcmp(w->variants[i].name, k->value)) {
			*out = w->variants[i].name;
			return 0;
		}
	for (int i = 0; w->variants[i].name && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				      w->variants[i].name);
	return wl_key_err(k, err, len, "%s = %s: no such variant: expected one of %s", key,
			  k->value, names);
}

/* [workload]: the scenario's name, texts, profile and variant roles. */
static int wl_build_ops(struct workload *w, char *err, size_t len)
{
	static const char *const required[] = { "name", "summary", "source" };
	struct scenario_ops *o = &w->ops;
	const struct wl_key *k;

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!wl_find(w, "workload", "", required[i])) {
			k = wl_section_first(w, "workload", "");
			if (k)
				return wl_key_err(k, err, len, "[workload] has no %s: expected "
						  "%s = ...", required[i], required[i]);
			snprintf(err, len, "%s:1: no [workload] section: expected one with name, "
				 "summary and source", w->path);
			return -1;
		}
	k = wl_find(w, "workload", "", "name");
	if (!wl_name_ok(k->value))
		return wl_key_err(k, err, len, "name = %s: expected a word of letters, digits, _ "
				  "and - (at most %d)", k->value, WL_NAME_LEN - 1);
	snprintf(w->name, sizeof(w->name), "%s", k->value);
	o->name = w->name;
	o->summary = wl_strdup(w, wl_find(w, "workload", "", "summary")->value);
	k = wl_find(w, "workload", "", "description");
	o->description = k ? wl_strdup(w, k->value) : NULL;
	o->published_source = wl_strdup(w, wl_find(w, "workload", "", "source")->value);
	k = wl_find(w, "workload", "", "profile");
	o->profile = wl_strdup(w, k ? k->value : "skylake-sp-2s");
	o->params = w->params;
	o->variants = w->variants;
	if (!o->summary || !o->published_source || !o->profile) {
		snprintf(err, len, "%s: out of memory", w->path);
		return -1;
	}
	if (wl_variant_role(w, "baseline", w->variants[0].name, &o->baseline, err, len) ||
	    wl_variant_role(w, "changed", w->variants[1].name, &o->changed, err, len) ||
	    wl_variant_role(w, "mainline", w->variants[0].name, &o->mainline, err, len))
		return -1;
	wl_scenario_fill(w);
	return 0;
}

/* Resolve @w at @cfg, @nr_cpus, for the load's check; @what names the defaults. */
static int wl_check_at(struct workload *w, struct sim_run_config *cfg, int nr_cpus,
		       const char *what, char *err, size_t len)
{
	struct wl_plan *plan = calloc(1, sizeof(*plan));
	char why[600];
	int ret;

	if (!plan) {
		snprintf(err, len, "%s: out of memory", w->path);
		return -1;
	}
	ret = workload_resolve(w, cfg, nr_cpus, plan, why, sizeof(why));
	if (ret)
		snprintf(err, len, "%s (at the %s defaults, %d CPUs)", why, what, nr_cpus);
	free(plan);
	return ret;
}

/* Each parameter's defaults within its range, then the file at both sets of defaults. */
static int wl_check(struct workload *w, char *err, size_t len)
{
	struct sim_profile *prof = calloc(1, sizeof(*prof));
	struct sim_run_config cfg;
	char why[512];
	int ret = -1;

	if (!prof) {
		snprintf(err, len, "%s: out of memory", w->path);
		return -1;
	}
	if (sim_profile_load(w->ops.profile, prof, why, sizeof(why))) {
		const struct wl_key *k = wl_find(w, "workload", "", "profile");

		if (k)
			wl_key_err(k, err, len, "profile = %s: %s", k->value, why);
		else
			snprintf(err, len, "%s: %s", w->path, why);
		goto out_free;
	}
	sim_run_config_init(&cfg, &w->ops, prof, 1);
	if (wl_check_at(w, &cfg, sim_profile_nr_cpus(prof), "simulated", err, len))
		goto out_free;
	sim_run_config_init_live(&cfg, &w->ops, prof, 1);
	if (wl_check_at(w, &cfg, 2, "live", err, len))
		goto out_free;
	ret = 0;
out_free:
	free(prof);
	return ret;
}

/**
 * workload_load() - read, check and build a workload
 * @path: a file (it holds '/' or ends in .ini), or a shipped workload's name
 * @err: one line, "FILE:LINE: what was wrong: expected ..."
 * @len: size of @err
 *
 * The file is resolved at its simulated defaults (on its profile, with the
 * profile's CPUs) and at its live defaults (2 CPUs), so that an error in
 * it is found before any work.
 *
 * Context: the host process, outside any engine run.
 * Return: the workload, to workload_free(), or NULL with @err filled.
 */
struct workload *workload_load(const char *path, char *err, size_t len)
{
	struct workload *w = calloc(1, sizeof(*w));
	const char *text;
	char *buf = NULL, why[600];
	size_t n, need = 4096;

	if (!w) {
		snprintf(err, len, "%s: out of memory", path);
		return NULL;
	}
	if (workload_names_file(path)) {
		snprintf(w->path, sizeof(w->path), "%s", path);
		if (sim_input_read(path, WL_MAX_BYTES, "a workload file (INI)", &buf, &n, why,
				   sizeof(why))) {
			snprintf(err, len, "workload %s", why);
			goto out_free;
		}
		text = buf;
	} else {
		snprintf(w->path, sizeof(w->path), "builtin:%s", path);
		text = workload_builtin_text(path);
		if (!text) {
			snprintf(err, len, "unknown workload %s: expected a shipped workload "
				 "(mmsim list) or a file path (with / or .ini)", path);
			goto out_free;
		}
	}
	if (wl_parse_text(w, text, w->path, NULL, err, len))
		goto out_free;
	for (int i = 0; i < w->nr_keys; i++)
		need += 2 * (strlen(w->keys[i].value) + WL_NAME_LEN) + 64 * sizeof(char *);
	w->strings = calloc(1, need);
	if (!w->strings) {
		snprintf(err, len, "%s: out of memory", path);
		goto out_free;
	}
	w->strings_cap = need;
	if (wl_build_params(w, err, len) || wl_build_variants(w, err, len) ||
	    wl_build_ops(w, err, len) || wl_check(w, err, len))
		goto out_free;
	free(buf);
	return w;
out_free:
	free(buf);
	workload_free(w);
	return NULL;
}

/**
 * workload_free() - free a workload from workload_load()
 * @w: the workload, or NULL
 */
void workload_free(struct workload *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nr_keys; i++)
		free(w->keys[i].value);
	free(w->mm_variants);
	free(w->strings);
	free(w);
}
