// SPDX-License-Identifier: GPL-2.0-only
/*
 * Machine profiles: INI text -> struct sim_profile.
 *
 * A profile is the one place where the model's costs live (docs/costs.md).
 * This file reads one, builtin or from a file, with inih.  It is strict on
 * purpose, so that a profile cannot silently leave a cost at zero:
 *   - every PROFILE_FIELDS key must be present, exactly once;
 *   - an unknown section or key is an error that names file:line;
 *   - U64 values are plain decimal integers; topology values and the
 *     divisors of profile_field_nonzero() are nonzero;
 *   - a [sources] section holds "section.key = source" lines, kept in
 *     p->sources for `mmsim profiles NAME`; each must name a known field.
 * Builtin profiles are the files in profiles/, embedded at build time by
 * cmake/embed_profiles.cmake as sim_builtin_profiles[] = { name, text, ...,
 * NULL, NULL }.
 *
 * No locks; nothing here runs inside the engine.
 */
#include <inttypes.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	bool seen[NR_PROFILE_FIELDS];	/* each field given once */
	const char *next;		/* reader: the rest of the text */
	int line;			/* reader: lines handed to inih */
	int err_line;			/* line of the handler's first error */
	char err[256];			/* the handler's message, no file:line */
};

/*
 * inih reader over a string that counts lines, so that the handler knows
 * the line it is called for (this inih is built without
 * INI_HANDLER_LINENO).  Like fgets().
 */
static char *profile_reader(char *str, int num, void *stream)
{
	struct profile_parse *pp = stream;
	int n = 0;

	if (!*pp->next || num < 2)
		return NULL;
	while (n < num - 1 && pp->next[0]) {
		char c = *pp->next++;

		str[n++] = c;
		if (c == '\n')
			break;
	}
	str[n] = '\0';
	pp->line++;
	return str;
}

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

static int profile_add_source(struct profile_parse *pp, const char *name,
			      const char *text)
{
	struct sim_profile *p = pp->p;
	char sec[32];
	const char *dot = strchr(name, '.');
	size_t n;
	int i;

	if (!dot || (size_t)(dot - name) >= sizeof(sec)) {
		snprintf(pp->err, sizeof(pp->err),
			 "source for %s: expected section.key", name);
		return -1;
	}
	memcpy(sec, name, (size_t)(dot - name));
	sec[dot - name] = '\0';
	if (profile_field_find(sec, dot + 1) < 0) {
		snprintf(pp->err, sizeof(pp->err),
			 "source for unknown field %s", name);
		return -1;
	}
	for (i = 0; i < p->nr_sources; i++) {
		n = strlen(name);
		if (!strncmp(p->sources[i], name, n) &&
		    !strncmp(p->sources[i] + n, " = ", 3)) {
			snprintf(pp->err, sizeof(pp->err),
				 "source for %s given twice", name);
			return -1;
		}
	}
	if (p->nr_sources >= (int)(sizeof(p->sources) / sizeof(p->sources[0]))) {
		snprintf(pp->err, sizeof(pp->err), "too many sources");
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

/*
 * Must the field be nonzero?  The topology's counts, and the values the
 * model divides by or steps with: 0 would divide by zero or stop the
 * engine's clock.
 */
static bool profile_field_nonzero(const struct profile_field *f)
{
	static const char *const keys[] = {
		"clock.mhz", "sched.quantum_ns", "mem.zero_gbps", "mem.copy_gbps",
		"mem.node_write_gbps", "mem.loads_per_cycle", "swap.bandwidth_mbps",
	};
	char name[96];
	size_t i;

	if (!strcmp(f->section, "topology"))
		return true;
	snprintf(name, sizeof(name), "%s.%s", f->section, f->key);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(name, keys[i]))
			return true;
	return false;
}

/* Set field @i of @p from its text @value; 0, or -1 with @err set. */
static int profile_field_assign(struct sim_profile *p, int i, const char *value,
				char *err, size_t errlen)
{
	const struct profile_field *f = &profile_fields[i];
	uint64_t v;

	if (f->type == PROFILE_TYPE_STR) {
		if (strlen(value) >= f->size) {
			snprintf(err, errlen, "%s.%s: longer than %zu characters",
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
	if (!v && profile_field_nonzero(f)) {
		snprintf(err, errlen, "%s.%s = %s: expected a nonzero integer",
			 f->section, f->key, value);
		return -1;
	}
	memcpy((char *)p + f->offset, &v, sizeof(v));
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
			snprintf(pp->err, sizeof(pp->err), "[ranges] %s given twice", name);
			return -1;
		}
	if (p->nr_ranges >= (int)(sizeof(p->ranges) / sizeof(p->ranges[0]))) {
		snprintf(pp->err, sizeof(pp->err), "too many ranges");
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

/* inih handler: 1 to go on, 0 to stop with pp->err set. */
static int profile_handler(void *user, const char *section, const char *name,
			   const char *value)
{
	struct profile_parse *pp = user;
	int i;

	if (pp->err_line)	/* keep the first error */
		return 0;
	pp->err_line = pp->line;
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
		snprintf(pp->err, sizeof(pp->err), "unknown key %s.%s",
			 section, name);
		return 0;
	}
	if (pp->seen[i]) {
		snprintf(pp->err, sizeof(pp->err), "%s.%s given twice",
			 section, name);
		return 0;
	}
	if (profile_field_assign(pp->p, i, value, pp->err, sizeof(pp->err)))
		return 0;
	pp->seen[i] = true;
	pp->err_line = 0;
	return 1;
}

/**
 * sim_profile_parse() - read a profile from INI text
 * @text: the INI text
 * @origin: its name or file path, for errors ("skylake-sp-2s", "my.ini")
 * @p: the profile to fill
 * @err: one line naming @origin:line or the missing key
 * @errlen: size of @err
 *
 * Return: 0, or -1 with @err filled.
 */
int sim_profile_parse(const char *text, const char *origin,
		      struct sim_profile *p, char *err, size_t errlen)
{
	struct profile_parse *pp;
	size_t i;
	int line, ret = -1;

	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		snprintf(err, errlen, "%s: out of memory", origin);
		return -1;
	}
	memset(p, 0, sizeof(*p));
	snprintf(p->origin, sizeof(p->origin), "%s", origin);
	pp->p = p;
	pp->next = text;
	line = ini_parse_stream(profile_reader, pp, profile_handler, pp);
	if (line != 0) {
		if (line == pp->err_line)
			snprintf(err, errlen, "%s:%d: %s", origin, line, pp->err);
		else
			snprintf(err, errlen,
				 "%s:%d: expected [section] or key = value",
				 origin, line);
		goto out_free;
	}
	for (i = 0; i < NR_PROFILE_FIELDS; i++) {
		if (!pp->seen[i]) {
			snprintf(err, errlen, "%s: missing key %s.%s", origin,
				 profile_fields[i].section,
				 profile_fields[i].key);
			goto out_free;
		}
	}
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
			goto out_free;
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
			goto out_free;
		}
	}
	if (sim_profile_nr_cpus(p) > 1024) {
		snprintf(err, errlen,
			 "%s: %d CPUs in the topology: expected at most 1024",
			 origin, sim_profile_nr_cpus(p));
		goto out_free;
	}
	ret = 0;
out_free:
	free(pp);
	return ret;
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
		snprintf(err, errlen, "%s: no profile key %s.%s (`mmsim profiles NAME` lists them)",
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
		snprintf(err, errlen, "%s: too many overrides", assign);
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

static char *read_whole_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		snprintf(err, errlen,
			 "profile %s: cannot read it (%s): expected a readable INI file",
			 path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *nb;

			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				snprintf(err, errlen, "profile %s: out of memory",
					 path);
				goto out_free;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "profile %s: read error", path);
		goto out_free;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "profile %s: expected a text file", path);
		goto out_free;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
out_free:
	free(buf);
	fclose(f);
	return NULL;
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
