// SPDX-License-Identifier: GPL-2.0-only
/*
 * Machine profiles: INI text -> struct sim_profile.
 *
 * A profile is the one place where the model's costs live (docs/costs.md).
 * This file reads one, builtin or from a file, with inih.  It is strict on
 * purpose, so that a profile cannot silently leave a cost at zero:
 *   - every PROFILE_FIELDS key must be present, exactly once;
 *   - an unknown section or key is an error that names file:line;
 *   - U64 values are plain decimal integers within their PROFILE_LIMITS
 *     range (include/mmsim/profile.h), so that nothing later can truncate,
 *     overflow or divide by zero;
 *   - a [sources] section holds "section.key = source" lines, kept in
 *     p->sources for `mmsim profiles NAME`; each must name a known field;
 *     those an `include = NAME` brings stay first, and p->nr_inherited_sources
 *     counts those the file did not replace (printed "as NAME: ...").
 * Builtin profiles are the files in profiles/, embedded at build time by
 * cmake/embed_profiles.cmake as sim_builtin_profiles[] = { name, text, ...,
 * NULL, NULL }.
 *
 * No locks; nothing here runs inside the engine.
 */
#include <errno.h>
#include <inttypes.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/input.h"
#include "mmsim/profile.h"

extern const char *const sim_builtin_profiles[];

enum profile_type {
	PROFILE_TYPE_U64,
	PROFILE_TYPE_STR,
};

/* One row of PROFILE_FIELDS with where its value lives in the struct. */
struct profile_field {
	const char *section;
	const char *key;
	enum profile_type type;
	size_t offset;
	size_t size;
};

static const struct profile_field profile_fields[] = {
#define PROFILE_FIELD_ROW(sec, k, type, unit, meaning)                   \
	{ #sec, #k, PROFILE_TYPE_##type, offsetof(struct sim_profile, sec##_##k), \
	  sizeof(((struct sim_profile *)0)->sec##_##k) },
	PROFILE_FIELDS(PROFILE_FIELD_ROW)
#undef PROFILE_FIELD_ROW
};

#define NR_PROFILE_FIELDS (sizeof(profile_fields) / sizeof(profile_fields[0]))

/* State of one parse; the handler stops at the first error. */
struct profile_parse {
	struct sim_profile *p;
	bool *seen;			/* [NR_PROFILE_FIELDS]: given here or by an include */
	bool own[NR_PROFILE_FIELDS];	/* given in this file: each once */
	const char *origin;		/* this file's path or builtin name */
	int depth;			/* includes above this file */
	int nr_inherited_sources;	/* p->sources[0..n): from includes, may be replaced */
	int nr_inherited_ranges;	/* p->ranges[0..n): from includes, dropped when this file sets the key */
	bool any_key;			/* a key was read: include must come first */
	bool err_whole;			/* err already names file:line (an include's) */
	struct sim_ini_lines in;	/* the reader (include/mmsim/input.h) */
	int err_line;			/* line of the handler's first error */
	char err[256];			/* the handler's message, no file:line */
};

static int profile_field_find(const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < NR_PROFILE_FIELDS; i++)
		if (!strcmp(profile_fields[i].section, section) &&
		    !strcmp(profile_fields[i].key, key))
			return (int)i;
	return -1;
}

static bool profile_section_known(const char *section)
{
	size_t i;

	if (!strcmp(section, "sources") || !strcmp(section, "ranges"))
		return true;
	for (i = 0; i < NR_PROFILE_FIELDS; i++)
		if (!strcmp(profile_fields[i].section, section))
			return true;
	return false;
}

static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -1;
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* "section.key" to a field index, or -1. */
static int profile_field_dotted(const char *name)
{
	char sec[48];
	const char *dot = strchr(name, '.');

	if (!dot || (size_t)(dot - name) >= sizeof(sec))
		return -1;
	memcpy(sec, name, (size_t)(dot - name));
	sec[dot - name] = '\0';
	return profile_field_find(sec, dot + 1);
}

static int profile_add_source(struct profile_parse *pp, const char *name,
			      const char *text)
{
	struct sim_profile *p = pp->p;
	size_t n;
	int i;

	if (!strchr(name, '.')) {
		snprintf(pp->err, sizeof(pp->err),
			 "source for %s: expected section.key", name);
		return -1;
	}
	if (profile_field_dotted(name) < 0) {
		snprintf(pp->err, sizeof(pp->err),
			 "source for unknown field %s: expected section.key of a profile field", name);
		return -1;
	}
	for (i = 0; i < p->nr_sources; i++) {
		n = strlen(name);
		if (!strncmp(p->sources[i], name, n) &&
		    !strncmp(p->sources[i] + n, " = ", 3)) {
			if (i < pp->nr_inherited_sources) {	/* the including file's own */
				memmove(p->sources[i], p->sources[i + 1],
					(size_t)(p->nr_sources - i - 1) * sizeof(p->sources[0]));
				p->nr_sources--;
				pp->nr_inherited_sources--;
				break;
			}
			snprintf(pp->err, sizeof(pp->err),
				 "source for %s given twice: expected one per field", name);
			return -1;
		}
	}
	if (p->nr_sources >= (int)(sizeof(p->sources) / sizeof(p->sources[0]))) {
		snprintf(pp->err, sizeof(pp->err), "too many sources: expected at most %zu",
			 sizeof(p->sources) / sizeof(p->sources[0]));
		return -1;
	}
	n = (size_t)snprintf(p->sources[p->nr_sources], sizeof(p->sources[0]),
			     "%s = %s", name, text);
	if (n >= sizeof(p->sources[0])) {
		snprintf(pp->err, sizeof(pp->err),
			 "source for %s: longer than %zu characters", name,
			 sizeof(p->sources[0]) - 1);
		return -1;
	}
	p->nr_sources++;
	return 0;
}

/* One row of PROFILE_LIMITS. */
struct profile_limit {
	const char *section;
	const char *key;
	uint64_t min, max;
	const char *why;
};

static const struct profile_limit profile_limits[] = {
#define PROFILE_LIMIT_ROW(sec, k, lo, hi, why) { #sec, #k, lo, hi, why },
	PROFILE_LIMITS(PROFILE_LIMIT_ROW)
#undef PROFILE_LIMIT_ROW
};

#define NR_PROFILE_LIMITS (sizeof(profile_limits) / sizeof(profile_limits[0]))

static const struct profile_limit *profile_limit_find(const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < NR_PROFILE_LIMITS; i++)
		if (!strcmp(profile_limits[i].section, section) &&
		    !strcmp(profile_limits[i].key, key))
			return &profile_limits[i];
	return NULL;
}

/**
 * sim_profile_limit() - the valid range of one U64 field
 * @section: its INI section
 * @key: its key
 * @min: where its minimum goes
 * @max: where its maximum goes
 *
 * Return: 0, or -1 when PROFILE_LIMITS has no row for it.
 */
int sim_profile_limit(const char *section, const char *key, uint64_t *min, uint64_t *max)
{
	const struct profile_limit *l = profile_limit_find(section, key);

	if (!l)
		return -1;
	*min = l->min;
	*max = l->max;
	return 0;
}

/* Set field @i of @p from its text @value; 0, or -1 with @err set. */
static int profile_field_assign(struct sim_profile *p, int i, const char *value,
				char *err, size_t errlen)
{
	const struct profile_field *f = &profile_fields[i];
	const struct profile_limit *l;
	uint64_t v;

	if (f->type == PROFILE_TYPE_STR) {
		if (strlen(value) >= f->size) {
			snprintf(err, errlen, "%s.%s: longer than %zu characters: expected a shorter text",
				 f->section, f->key, f->size - 1);
			return -1;
		}
		memcpy((char *)p + f->offset, value, strlen(value) + 1);
		return 0;
	}
	if (parse_u64(value, &v)) {
		snprintf(err, errlen, "%s.%s = %s: expected a non-negative integer",
			 f->section, f->key, value);
		return -1;
	}
	l = profile_limit_find(f->section, f->key);
	if (!l) {
		snprintf(err, errlen, "%s.%s: no valid range in PROFILE_LIMITS (a bug)",
			 f->section, f->key);
		return -1;
	}
	if (v < l->min || v > l->max) {
		snprintf(err, errlen, "%s.%s = %s: expected %" PRIu64 " to %" PRIu64 " (%s)",
			 f->section, f->key, value, l->min, l->max, l->why);
		return -1;
	}
	memcpy((char *)p + f->offset, &v, sizeof(v));
	return 0;
}


/*
 * A [ranges] line: "section.key = LO..HI, reason", the range an assumed
 * value may lie in (`mmsim sensitivity` runs both ends).  Checked here:
 * a known integer key, given once, LO <= HI, a reason; that the value lies
 * in it and its source says "assumption" is checked once the whole file
 * has been read.
 */
static int profile_add_range(struct profile_parse *pp, const char *name, const char *value)
{
	struct sim_profile *p = pp->p;
	struct sim_profile_range *r;
	int i = profile_field_dotted(name), k;
	char lo[32], hi[32];
	const char *dots = strstr(value, ".."), *comma = strchr(value, ',');

	if (i < 0 || profile_fields[i].type != PROFILE_TYPE_U64) {
		snprintf(pp->err, sizeof(pp->err), "[ranges] %s: expected section.key of a "
			 "numeric value", name);
		return -1;
	}
	for (k = 0; k < p->nr_ranges; k++)
		if (!strcmp(p->ranges[k].key, name)) {
			snprintf(pp->err, sizeof(pp->err), "[ranges] %s given twice: expected each key once", name);
			return -1;
		}
	if (p->nr_ranges >= (int)(sizeof(p->ranges) / sizeof(p->ranges[0]))) {
		snprintf(pp->err, sizeof(pp->err), "too many ranges: expected at most %zu",
			 sizeof(p->ranges) / sizeof(p->ranges[0]));
		return -1;
	}
	if (!dots || !comma || comma < dots || (size_t)(dots - value) >= sizeof(lo) ||
	    (size_t)(comma - dots - 2) >= sizeof(hi)) {
		snprintf(pp->err, sizeof(pp->err), "[ranges] %s = %.60s: expected LO..HI, reason",
			 name, value);
		return -1;
	}
	r = &p->ranges[p->nr_ranges];
	memcpy(lo, value, (size_t)(dots - value));
	lo[dots - value] = '\0';
	memcpy(hi, dots + 2, (size_t)(comma - dots - 2));
	hi[comma - dots - 2] = '\0';
	while (*++comma == ' ')
		;
	if (parse_u64(lo, &r->lo) || parse_u64(hi, &r->hi) || r->lo > r->hi || !*comma) {
		snprintf(pp->err, sizeof(pp->err), "[ranges] %s = %.60s: expected LO..HI with "
			 "integers LO <= HI, then a reason", name, value);
		return -1;
	}
	snprintf(r->key, sizeof(r->key), "%s", name);
	snprintf(r->reason, sizeof(r->reason), "%s", comma);
	p->nr_ranges++;
	return 0;
}

/**
 * sim_profile_get() - the value of one integer field
 * @p: the profile
 * @key: "section.key"
 * @value: where the value goes
 *
 * Return: 0, or -1 if @key names no integer field (@value untouched).
 */
int sim_profile_get(const struct sim_profile *p, const char *key, uint64_t *value)
{
	int i = profile_field_dotted(key);

	if (i < 0 || profile_fields[i].type != PROFILE_TYPE_U64)
		return -1;
	memcpy(value, (const char *)p + profile_fields[i].offset, sizeof(*value));
	return 0;
}

/* Each [ranges] line holds its value, and the value's source says "assumption". */
static int profile_check_ranges(const struct sim_profile *p, const char *origin,
				char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < (size_t)p->nr_ranges; i++) {
		const struct sim_profile_range *r = &p->ranges[i];
		size_t n = strlen(r->key);
		uint64_t v = 0;
		int k;

		sim_profile_get(p, r->key, &v);
		if (v < r->lo || v > r->hi) {
			snprintf(err, errlen, "%s: [ranges] %s = %" PRIu64 "..%" PRIu64
				 ": expected a range holding its value %" PRIu64, origin, r->key,
				 r->lo, r->hi, v);
			return -1;
		}
		for (k = 0; k < p->nr_sources; k++)
			if (!strncmp(p->sources[k], r->key, n) &&
			    !strncmp(p->sources[k] + n, " = ", 3) &&
			    strstr(p->sources[k], "assumption"))
				break;
		if (k == p->nr_sources) {
			snprintf(err, errlen, "%s: [ranges] %s: its source does not say "
				 "\"assumption\": expected ranges for assumed values only",
				 origin, r->key);
			return -1;
		}
	}
	return 0;
}

static int profile_include(struct profile_parse *pp, const char *name);

/* inih handler: 1 to go on, 0 to stop with pp->err set. */
static int profile_handler(void *user, const char *section, const char *name,
			   const char *value)
{
	struct profile_parse *pp = user;
	int i;

	if (pp->err_line)	/* keep the first error */
		return 0;
	pp->err_line = pp->in.line;
	if (!*section && !strcmp(name, "include")) {
		if (pp->any_key) {
			snprintf(pp->err, sizeof(pp->err),
				 "include %s: expected it before every section and key", value);
			return 0;
		}
		if (profile_include(pp, value))
			return 0;
		pp->any_key = true;
		pp->err_line = 0;
		return 1;
	}
	pp->any_key = true;
	if (!profile_section_known(section)) {
		snprintf(pp->err, sizeof(pp->err), "unknown section [%s]",
			 section);
		return 0;
	}
	if (!strcmp(section, "sources")) {
		if (profile_add_source(pp, name, value))
			return 0;
		pp->err_line = 0;
		return 1;
	}
	if (!strcmp(section, "ranges")) {
		if (profile_add_range(pp, name, value))
			return 0;
		pp->err_line = 0;
		return 1;
	}
	i = profile_field_find(section, name);
	if (i < 0) {
		snprintf(pp->err, sizeof(pp->err), "unknown key %s.%s: expected a key that `mmsim profiles NAME` lists",
			 section, name);
		return 0;
	}
	if (pp->own[i]) {
		snprintf(pp->err, sizeof(pp->err), "%s.%s given twice: expected each key once",
			 section, name);
		return 0;
	}
	if (profile_field_assign(pp->p, i, value, pp->err, sizeof(pp->err)))
		return 0;
	pp->own[i] = true;
	pp->seen[i] = true;
	pp->err_line = 0;
	return 1;
}

/**
 * sim_profile_check() - the checks across fields of a loaded profile
 * @p: the profile, every field within its PROFILE_LIMITS range
 * @err: one line naming the fields and what was expected
 * @errlen: size of @err
 *
 * The engine lets a vCPU run ahead of the others by one quantum; a single
 * charge at a sync point (a line transfer and a locked RMW, as a spinlock's
 * fast path pays) longer than that lets another vCPU into the step, and two
 * then own one lock.  So the quantum must cover the largest such charge.
 * Also: at most 1024 CPUs (the engine's bound).
 *
 * Return: 0, or -1 with @err filled.
 */
int sim_profile_check(const struct sim_profile *p, char *err, size_t errlen)
{
	const struct { const char *key; uint64_t ns; } lines[] = {
		{ "cache.l1_hit_ns", p->cache_l1_hit_ns },
		{ "cache.smt_transfer_ns", p->cache_smt_transfer_ns },
		{ "cache.socket_transfer_ns", p->cache_socket_transfer_ns },
		{ "cache.remote_transfer_ns", p->cache_remote_transfer_ns },
	};
	/* lock.atomic_cycles in ns, rounded up */
	uint64_t atomic_ns = (p->lock_atomic_cycles * 1000 + p->clock_mhz - 1) / p->clock_mhz;
	size_t i, worst = 0;

	if (sim_profile_nr_cpus(p) > 1024) {
		snprintf(err, errlen, "profile %s: %d CPUs in the topology: expected at most 1024",
			 p->origin, sim_profile_nr_cpus(p));
		return -1;
	}
	for (i = 1; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (lines[i].ns > lines[worst].ns)
			worst = i;
	if (p->sched_quantum_ns < lines[worst].ns + atomic_ns) {
		snprintf(err, errlen,
			 "profile %s: sched.quantum_ns = %" PRIu64 ": expected at least %" PRIu64
			 " ns, %s (%" PRIu64 ") plus lock.atomic_cycles (%" PRIu64
			 " ns): one step at a sync point must fit in the engine's run-ahead",
			 p->origin, p->sched_quantum_ns, lines[worst].ns + atomic_ns,
			 lines[worst].key, lines[worst].ns, atomic_ns);
		return -1;
	}
	return 0;
}

/* Includes nest at most this deep (a cycle ends here). */
#define PROFILE_MAX_INCLUDE_DEPTH	8

/*
 * A range is where an assumed value may lie: it belongs to the value that
 * its file gave.  A file that sets the key again (a measured value over
 * an include's assumption, as `mmsim calibrate` writes) drops the range
 * its include gave for it.
 */
static void profile_drop_inherited_ranges(struct profile_parse *pp)
{
	struct sim_profile *p = pp->p;
	int k = 0;

	while (k < pp->nr_inherited_ranges) {
		int i = profile_field_dotted(p->ranges[k].key);

		if (i < 0 || !pp->own[i]) {
			k++;
			continue;
		}
		memmove(&p->ranges[k], &p->ranges[k + 1],
			(size_t)(p->nr_ranges - k - 1) * sizeof(p->ranges[0]));
		p->nr_ranges--;
		pp->nr_inherited_ranges--;
	}
}

static bool names_a_file(const char *s);
static char *read_whole_file(const char *path, char *err, size_t errlen);

/*
 * Parse @text (from @origin) into @p on top of what is there: the fields
 * it gives are set and marked in @seen.  0, or -1 with @err filled.
 */
static int profile_parse_text(const char *text, const char *origin, struct sim_profile *p,
			      bool *seen, int depth, char *err, size_t errlen)
{
	struct profile_parse *pp;
	int line, ret = -1;

	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		snprintf(err, errlen, "%s: out of memory", origin);
		return -1;
	}
	pp->p = p;
	pp->seen = seen;
	pp->origin = origin;
	pp->depth = depth;
	pp->in.next = text;
	line = ini_parse_stream(sim_ini_reader, &pp->in, profile_handler, pp);
	if (!depth)
		p->nr_inherited_sources = pp->nr_inherited_sources;
	if (line != 0) {
		if (line == pp->err_line && pp->err_whole)
			snprintf(err, errlen, "%s", pp->err);
		else if (line == pp->err_line)
			snprintf(err, errlen, "%s:%d: %s", origin, line, pp->err);
		else
			snprintf(err, errlen,
				 "%s:%d: expected [section] or key = value",
				 origin, line);
		goto out_free;
	}
	profile_drop_inherited_ranges(pp);
	ret = 0;
out_free:
	free(pp);
	return ret;
}

/*
 * `include = NAME` (before every section): read the builtin profile NAME,
 * or the file NAME (relative to the including file's directory), first;
 * the including file's keys and sources then override its values.
 */
static int profile_include(struct profile_parse *pp, const char *name)
{
	char path[512], err[sizeof(pp->err)];
	const char *slash = strrchr(pp->origin, '/'), *text = NULL;
	char *buf = NULL;
	int ret;

	if (pp->depth >= PROFILE_MAX_INCLUDE_DEPTH) {
		snprintf(pp->err, sizeof(pp->err),
			 "include %s: more than %d includes deep: expected no include cycle",
			 name, PROFILE_MAX_INCLUDE_DEPTH);
		return -1;
	}
	if (names_a_file(name)) {
		if (name[0] != '/' && slash)
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - pp->origin),
				 pp->origin, name);
		else
			snprintf(path, sizeof(path), "%s", name);
		buf = read_whole_file(path, err, sizeof(err));
		if (!buf) {
			snprintf(pp->err, sizeof(pp->err), "include: %.240s", err);
			return -1;
		}
		text = buf;
	} else {
		snprintf(path, sizeof(path), "%s", name);
		text = sim_profile_builtin_text(name);
		if (!text) {
			snprintf(pp->err, sizeof(pp->err),
				 "include %s: expected a builtin profile name or a file path (with / or .ini)",
				 name);
			return -1;
		}
	}
	ret = profile_parse_text(text, path, pp->p, pp->seen, pp->depth + 1, err, sizeof(err));
	if (ret) {		/* the innermost file:line names the error */
		snprintf(pp->err, sizeof(pp->err), "%s", err);
		pp->err_whole = true;
	}
	pp->nr_inherited_sources = pp->p->nr_sources;
	pp->nr_inherited_ranges = pp->p->nr_ranges;
	if (!pp->depth) {	/* the profile's own include, as scripts/gen_costs.py names it */
		const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
		size_t n = strlen(base);

		if (names_a_file(name) && n > 4 && !strcmp(base + n - 4, ".ini"))
			n -= 4;
		snprintf(pp->p->included, sizeof(pp->p->included), "%.*s", (int)n, base);
	}
	free(buf);
	return ret;
}

/**
 * sim_profile_parse() - read a profile from INI text
 * @text: the INI text
 * @origin: its name or file path, for errors ("skylake-sp-2s", "my.ini")
 * @p: the profile to fill
 * @err: one line naming @origin:line, or every missing key
 * @errlen: size of @err
 *
 * The text may start with `include = NAME` (a builtin profile or a file)
 * and then give only the keys it changes.
 *
 * Return: 0, or -1 with @err filled.
 */
int sim_profile_parse(const char *text, const char *origin,
		      struct sim_profile *p, char *err, size_t errlen)
{
	bool seen[NR_PROFILE_FIELDS] = { false };
	size_t i, n, missing = 0, listed = 0;

	memset(p, 0, sizeof(*p));
	if (profile_parse_text(text, origin, p, seen, 0, err, errlen))
		return -1;
	snprintf(p->origin, sizeof(p->origin), "%s", origin);
	for (i = 0; i < NR_PROFILE_FIELDS; i++)
		missing += !seen[i];
	if (missing) {
		/* every missing key, as many as fit, then how many more */
		n = (size_t)snprintf(err, errlen, "%s: %zu missing key%s:", origin, missing,
				     missing > 1 ? "s" : "");
		for (i = 0; i < NR_PROFILE_FIELDS && n < errlen; i++) {
			size_t need;

			if (seen[i])
				continue;
			need = strlen(profile_fields[i].section) + strlen(profile_fields[i].key) + 3;
			if (n + need + 24 >= errlen) {
				snprintf(err + n, errlen - n, " and %zu more", missing - listed);
				break;
			}
			n += (size_t)snprintf(err + n, errlen - n, "%s %s.%s", listed++ ? "," : "",
					      profile_fields[i].section, profile_fields[i].key);
		}
		return -1;
	}
	if (profile_check_ranges(p, origin, err, errlen))
		return -1;
	return sim_profile_check(p, err, errlen);
}

/**
 * sim_profile_set() - override one value of a loaded profile
 * @p: the profile
 * @assign: "section.key=value", as the key would appear in the INI file
 * @err: one line naming the assignment and what was expected
 * @errlen: size of @err
 *
 * Only numeric keys can be set (not the machine's name or description).
 * The value is checked as profile parsing checks it, and so is the
 * topology's CPU count.  The assignment is appended to p->overrides, so
 * that output can say which machine a run really modelled.
 *
 * Return: 0, or -1 with @err filled and @p unchanged.
 */
int sim_profile_set(struct sim_profile *p, const char *assign, char *err, size_t errlen)
{
	const char *eq = strchr(assign, '='), *dot;
	char section[64], key[64], msg[256];
	struct sim_profile saved;
	size_t n;
	int i;

	dot = eq ? memchr(assign, '.', (size_t)(eq - assign)) : NULL;
	if (!eq || !dot || dot == assign || dot + 1 == eq ||
	    (size_t)(dot - assign) >= sizeof(section) ||
	    (size_t)(eq - dot - 1) >= sizeof(key)) {
		snprintf(err, errlen, "%s: expected SECTION.KEY=VALUE (e.g. cache.remote_transfer_ns=100)",
			 assign);
		return -1;
	}
	memcpy(section, assign, (size_t)(dot - assign));
	section[dot - assign] = '\0';
	memcpy(key, dot + 1, (size_t)(eq - dot - 1));
	key[eq - dot - 1] = '\0';
	i = profile_field_find(section, key);
	if (i < 0) {
		snprintf(err, errlen, "%s: no profile key %s.%s: expected a key that `mmsim profiles NAME` lists",
			 assign, section, key);
		return -1;
	}
	if (profile_fields[i].type == PROFILE_TYPE_STR) {
		snprintf(err, errlen, "%s: %s.%s is a name, not a number: expected a numeric key",
			 assign, section, key);
		return -1;
	}
	saved = *p;
	if (profile_field_assign(p, i, eq + 1, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", assign, msg);
		return -1;
	}
	if (sim_profile_nr_cpus(p) > 1024) {
		int cpus = sim_profile_nr_cpus(p);

		*p = saved;
		snprintf(err, errlen, "%s: %d CPUs in the topology: expected at most 1024",
			 assign, cpus);
		return -1;
	}
	n = strlen(p->overrides);
	if (n + strlen(assign) + 2 > sizeof(p->overrides)) {
		*p = saved;
		snprintf(err, errlen, "%s: too many overrides: expected fewer --cost", assign);
		return -1;
	}
	snprintf(p->overrides + n, sizeof(p->overrides) - n, "%s%s", n ? " " : "", assign);
	return 0;
}

/**
 * sim_profile_builtin_names() - names of the builtin profiles
 *
 * Return: a NULL-terminated array, sorted by name.
 */
const char *const *sim_profile_builtin_names(void)
{
	static const char *names[64];
	int i;

	if (!names[0])
		for (i = 0; sim_builtin_profiles[2 * i] && i < 63; i++)
			names[i] = sim_builtin_profiles[2 * i];
	return names;
}

/**
 * sim_profile_builtin_text() - the INI text of a builtin profile
 * @name: its name (the file name in profiles/ without .ini)
 *
 * Return: the text, or NULL when there is no such builtin profile.
 */
const char *sim_profile_builtin_text(const char *name)
{
	int i;

	for (i = 0; sim_builtin_profiles[2 * i]; i++)
		if (!strcmp(sim_builtin_profiles[2 * i], name))
			return sim_builtin_profiles[2 * i + 1];
	return NULL;
}

static bool names_a_file(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n >= 4 && !strcmp(s + n - 4, ".ini"));
}

/* A profile is a few KiB; more is not a profile (and /dev/zero never ends). */
#define PROFILE_MAX_BYTES	(1024 * 1024)

/*
 * The text of the profile file @path, to free(); NULL with @err filled.
 * A FIFO with no writer or a terminal is refused after a bounded wait
 * (sim_input_read()).
 */
static char *read_whole_file(const char *path, char *err, size_t errlen)
{
	char *buf, why[512];
	size_t len;

	if (sim_input_read(path, PROFILE_MAX_BYTES, "a readable INI file",
			   &buf, &len, why, sizeof(why))) {
		snprintf(err, errlen, "profile %.200s", why);
		return NULL;
	}
	return buf;
}

/**
 * sim_profile_load() - load a builtin profile or a profile file
 * @name_or_path: a builtin name, or a file path (it contains '/' or ends
 *                in .ini)
 * @p: the profile to fill
 * @err: one line naming the profile or file:line and what was expected
 * @errlen: size of @err
 *
 * Return: 0, or -1 with @err filled.
 */
int sim_profile_load(const char *name_or_path, struct sim_profile *p,
		     char *err, size_t errlen)
{
	const char *const *names;
	const char *text;
	char *buf;
	size_t n;
	int i, ret;

	if (names_a_file(name_or_path)) {
		buf = read_whole_file(name_or_path, err, errlen);
		if (!buf)
			return -1;
		ret = sim_profile_parse(buf, name_or_path, p, err, errlen);
		free(buf);
		return ret;
	}
	text = sim_profile_builtin_text(name_or_path);
	if (!text) {
		names = sim_profile_builtin_names();
		n = (size_t)snprintf(err, errlen,
				     "unknown profile %s: expected a file path or one of",
				     name_or_path);
		for (i = 0; names[i] && n < errlen; i++)
			n += (size_t)snprintf(err + n, errlen - n, "%s %s",
					      i ? "," : "", names[i]);
		return -1;
	}
	return sim_profile_parse(text, name_or_path, p, err, errlen);
}
