// SPDX-License-Identifier: GPL-2.0-only
/*
 * workload_resolve(): a parsed workload (parse.c) at one run's parameters
 * -> struct wl_plan, the concrete numbers both executors read
 * (docs/workloads.md).
 *
 * Models nothing of the kernel; it decides once what each line of the file
 * means.  A value's ${NAME} becomes parameter NAME's text as --set would
 * give it (sim_param_format()); a count, size or time is one term or two
 * joined by one `*` or `/` (integer division, rounded down), a term being
 * a number with its unit, `nr_cpus` (the run's CPUs) or `P%` (P percent of
 * them, rounded down, at least 1).  A step ending in `if NAME=VALUE`
 * (`!=`) is checked, then left out of the plan when the condition is
 * false.  Every error is one line "FILE:LINE: what: expected ...".
 *
 * No locks: a pure function of its arguments.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/mm.h"
#include "mmsim/profile.h"
#include "mmsim/workload.h"
#include "workload/wl_internal.h"



/* The key @key of section [@kind @name], or NULL. */
const struct wl_key *wl_find(const struct workload *w, const char *kind, const char *name,
			     const char *key)
{
	for (int i = 0; i < w->nr_keys; i++)
		if (!strcmp(w->keys[i].section, kind) && !strcmp(w->keys[i].name, name) &&
		    !strcmp(w->keys[i].key, key))
			return &w->keys[i];
	return NULL;
}

/* The first key of section [@kind @name] (for errors about the section). */
const struct wl_key *wl_section_first(const struct workload *w, const char *kind,
				      const char *name)
{
	for (int i = 0; i < w->nr_keys; i++)
		if (!strcmp(w->keys[i].section, kind) && !strcmp(w->keys[i].name, name))
			return &w->keys[i];
	return NULL;
}

/*
 * The names of sections of @kind, in order of their first key: @names[i]
 * points into w->keys.  Returns how many.
 */
int wl_sections_of(const struct workload *w, const char *kind, const char **names, int max)
{
	int n = 0;

	for (int i = 0; i < w->nr_keys; i++) {
		int j;

		if (strcmp(w->keys[i].section, kind))
			continue;
		for (j = 0; j < n; j++)
			if (!strcmp(names[j], w->keys[i].name))
				break;
		if (j < n)
			continue;
		if (n == max)
			return max + 1;
		names[n++] = w->keys[i].name;
	}
	return n;
}

int wl_key_err(const struct wl_key *k, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n = (size_t)snprintf(err, len, "%s:%d: ", k->file, k->line);

	va_start(ap, fmt);
	if (n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* @k's value with each ${NAME} replaced by parameter NAME's text. */
int wl_subst(struct wl_res *r, const struct wl_key *k, char *out, size_t outlen)
{
	const struct scenario_ops *s = &r->w->ops;
	const char *p = k->value;
	size_t n = 0;

	while (*p) {
		const char *end;
		char name[WL_NAME_LEN + 1], text[64];
		int i;

		if (p[0] != '$' || p[1] != '{') {
			if (n + 1 >= outlen)
				goto too_long;
			out[n++] = *p++;
			continue;
		}
		end = strchr(p + 2, '}');
		if (!end || (size_t)(end - p - 2) >= sizeof(name) - 1)
			return wl_key_err(k, r->err, r->len, "%s = %s: an unterminated or too long "
					  "${: expected ${NAME}", k->key, k->value);
		memcpy(name, p + 2, (size_t)(end - p - 2));
		name[end - p - 2] = '\0';
		i = sim_scenario_param_index(s, name);
		if (i < 0) {
			size_t m;

			wl_key_err(k, r->err, r->len, "unknown parameter %s in ${%s}: expected one of",
				   name, name);
			m = strlen(r->err);
			for (int j = 0; s->params[j].key && m < r->len; j++)
				m += (size_t)snprintf(r->err + m, r->len - m, "%s %s", j ? "," : "",
						      s->params[j].key);
			if (!s->params[0].key && m < r->len)
				snprintf(r->err + m, r->len - m, " a [param] section (none is given)");
			return -1;
		}
		sim_param_format(&s->params[i], r->cfg->params[i], text, sizeof(text));
		if (n + strlen(text) + 1 >= outlen)
			goto too_long;
		memcpy(out + n, text, strlen(text));
		n += strlen(text);
		p = end + 1;
	}
	out[n] = '\0';
	return 0;
too_long:
	return wl_key_err(k, r->err, r->len, "%s: longer than %zu characters once substituted: "
			  "expected a shorter value", k->key, outlen - 1);
}

static const char *wl_type_expect(enum sim_param_type t)
{
	switch (t) {
	case SIM_PARAM_COUNT:
		return "a count (K, M, G, T: x1000 each), nr_cpus or P%";
	case SIM_PARAM_SIZE:
		return "a size with an optional K, M, G or T suffix";
	case SIM_PARAM_TIME:
		return "a time with a ns, us, ms or s suffix";
	default:
		return "a value";
	}
}

static char *wl_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static int wl_term(struct wl_res *r, char *t, enum sim_param_type type, uint64_t *out)
{
	struct sim_param p = { .key = "", .type = type, .max = UINT64_MAX };
	size_t n = strlen(t);
	char why[256];

	if (!strcmp(t, "nr_cpus")) {
		*out = (uint64_t)r->nr_cpus;
		return 0;
	}
	if (n > 1 && t[n - 1] == '%') {
		uint64_t pct;

		t[n - 1] = '\0';
		p.type = SIM_PARAM_COUNT;
		if (sim_param_parse(&p, t, &pct, why, sizeof(why)) || pct > 100000)
			return -1;
		*out = (uint64_t)r->nr_cpus * pct / 100;
		if (!*out)
			*out = 1;
		return 0;
	}
	return sim_param_parse(&p, t, out, why, sizeof(why)) ? -1 : 0;
}

/*
 * @text (already substituted) of key @k as a value of @type, in [@min, @max]:
 * one term, or two joined by one * or /.
 */
int wl_eval(struct wl_res *r, const struct wl_key *k, const char *text,
		   enum sim_param_type type, uint64_t min, uint64_t max, uint64_t *out)
{
	char buf[256], *op, *a, *b;
	uint64_t x, y = 1;
	char what = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	op = strpbrk(buf, "*/");
	if (op) {
		what = *op;
		*op = '\0';
		if (strpbrk(op + 1, "*/"))
			return wl_key_err(k, r->err, r->len, "%s = %s: more than one * or /: "
					  "expected at most one", k->key, text);
	}
	a = wl_trim(buf);
	b = op ? wl_trim(op + 1) : NULL;
	if (wl_term(r, a, type, &x) || (b && wl_term(r, b, type, &y)))
		return wl_key_err(k, r->err, r->len, "%s = %s: expected %s, or two joined by "
				  "one * or /", k->key, text, wl_type_expect(type));
	if (what == '*') {
		if (y && x > UINT64_MAX / y)
			return wl_key_err(k, r->err, r->len, "%s = %s: overflows: expected a "
					  "smaller product", k->key, text);
		x *= y;
	} else if (what == '/') {
		if (!y)
			return wl_key_err(k, r->err, r->len, "%s = %s: a division by zero: "
					  "expected a nonzero divisor", k->key, text);
		x /= y;
	}
	if (x < min || x > max) {
		struct sim_param p = { .type = type };
		char lo[32], hi[32], v[32];

		sim_param_format(&p, min, lo, sizeof(lo));
		sim_param_format(&p, max, hi, sizeof(hi));
		sim_param_format(&p, x, v, sizeof(v));
		return wl_key_err(k, r->err, r->len, "%s = %s is %s: expected %s to %s", k->key,
				  text, v, lo, hi);
	}
	*out = x;
	return 0;
}

/* The substituted value of key @key of [@kind @name] into @buf; NULL: absent. */
static const struct wl_key *wl_get(struct wl_res *r, const char *kind, const char *name,
				   const char *key, char *buf, int *ret)
{
	const struct wl_key *k = wl_find(r->w, kind, name, key);

	*ret = 0;
	if (k && wl_subst(r, k, buf, WL_VALUE_LEN))
		*ret = -1;
	return k;
}

/* @text as one of @words (NULL-terminated): its index, or -1 with the error. */
int wl_word(struct wl_res *r, const struct wl_key *k, const char *text,
		   const char *const *words)
{
	char list[200];
	size_t n = 0;

	for (int i = 0; words[i]; i++)
		if (!strcmp(words[i], text))
			return i;
	list[0] = '\0';
	for (int i = 0; words[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", words[i]);
	return wl_key_err(k, r->err, r->len, "%s = %s: expected one of %s", k->key, text, list);
}

static bool wl_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int wl_ilog2(uint64_t v)
{
	int l = -1;

	while (v) {
		v >>= 1;
		l++;
	}
	return l;
}

/* [memory NAME] -> plan->memory[i]. */
static int wl_memory(struct wl_res *r, const char *name, struct wl_memory *m)
{
	static const char *const kinds[] = { "anon", "shmem", "file", NULL };
	static const char *const mappings[] = { "private", "shared", NULL };
	static const char *const pers[] = { "task", "workload", NULL };
	static const char *const yesno[] = { "no", "yes", NULL };
	const struct wl_key *k;
	char v[WL_VALUE_LEN];
	int ret, i = 0;

	snprintf(m->name, sizeof(m->name), "%s", name);
	m->page = PAGE_SIZE;
	k = wl_get(r, "memory", name, "kind", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, kinds)) < 0))
		return -1;
	m->kind = k ? (enum wl_mem_kind)i : WL_MEM_ANON;
	k = wl_get(r, "memory", name, "mapping", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, mappings)) < 0))
		return -1;
	m->shared = k && i == 1;
	k = wl_get(r, "memory", name, "per", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, pers)) < 0))
		return -1;
	m->per_workload = k && i == 1;
	/* cached: default yes for a file on a disk, no for tmpfs (empty when made) */
	m->cached = m->kind == WL_MEM_FILE;
	k = wl_get(r, "memory", name, "cached", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, yesno)) < 0))
		return -1;
	if (k && m->kind == WL_MEM_ANON)
		return wl_key_err(k, r->err, r->len, "cached in [memory %s] of kind anon: expected "
				  "it on kind = file or shmem only", name);
	if (k)
		m->cached = i == 1;
	/* sparse: a file ftruncate() sized (a tmpfs file always is one) */
	m->sparse = m->kind == WL_MEM_SHMEM;
	k = wl_get(r, "memory", name, "sparse", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, yesno)) < 0))
		return -1;
	if (k && m->kind == WL_MEM_ANON)
		return wl_key_err(k, r->err, r->len, "sparse in [memory %s] of kind anon: expected "
				  "it on kind = file or shmem only", name);
	if (k && m->kind == WL_MEM_SHMEM && i == 0)
		return wl_key_err(k, r->err, r->len, "sparse = no in [memory %s] of kind shmem: "
				  "expected yes (a tmpfs file has no blocks; cached = yes fills "
				  "its pages before the run)", name);
	if (k)
		m->sparse = i == 1;
	k = wl_get(r, "memory", name, "page", v, &ret);
	if (ret)
		return -1;
	if (k && !strcmp(v, "thp")) {
		m->page = PMD_SIZE;
		m->thp = true;
	} else if (k && wl_eval(r, k, v, SIM_PARAM_SIZE, 0, UINT64_MAX, &m->page)) {
		return -1;
	}
	if (k && !m->thp && (!wl_pow2(m->page) || m->page < PAGE_SIZE || m->page > PMD_SIZE))
		return wl_key_err(k, r->err, r->len, "page = %s: expected 4K, a power of two up "
				  "to 2M (an mTHP size) or thp", v);
	if (k && m->kind != WL_MEM_ANON && m->page != PAGE_SIZE)
		return wl_key_err(k, r->err, r->len, "page = %s for kind %s: expected 4K (the "
				  "model's page cache holds 4K pages)", v, kinds[m->kind]);
	if (m->thp && r->plan->thp == WL_THP_NEVER)
		return wl_key_err(k, r->err, r->len, "page = thp with [workload] thp = never: "
				  "expected thp = madvise or always");
	k = wl_get(r, "memory", name, "size", v, &ret);
	if (ret)
		return -1;
	if (!k)
		return wl_key_err(wl_section_first(r->w, "memory", name), r->err, r->len,
				  "[memory %s] has no size: expected size = SIZE", name);
	if (wl_eval(r, k, v, SIM_PARAM_SIZE, 1, UINT64_MAX, &m->size))
		return -1;
	if (strchr(v, '/')) {
		/* a share (${total} / ${tasks}): whole pages of it, as a program's mmap() */
		if (m->size < m->page)
			return wl_key_err(k, r->err, r->len, "size = %s (%" PRIu64 " bytes) is "
					  "below one page (%" PRIu64 "): expected at least one page",
					  v, m->size, m->page);
		m->size -= m->size % m->page;
	}
	if (m->size % m->page)
		return wl_key_err(k, r->err, r->len, "size = %s (%" PRIu64 " bytes) is not a "
				  "multiple of the page (%" PRIu64 "): expected a multiple",
				  v, m->size, m->page);
	if (r->cfg->profile) {
		uint64_t all = r->plan->node_memory * r->cfg->profile->topology_nodes;

		if (m->size > all)
			return wl_key_err(k, r->err, r->len, "size = %s: more than the model's "
					  "memory (%" PRIu64 " nodes of node_memory %" PRIu64
					  " bytes): expected at most %" PRIu64 " bytes", v,
					  (uint64_t)r->cfg->profile->topology_nodes,
					  r->plan->node_memory, all);
	}
	k = wl_get(r, "memory", name, "numa", v, &ret);
	if (ret)
		return -1;
	if (k) {
		const char *colon = strchr(v, ':');
		uint64_t node = 0;

		if (!strcmp(v, "local")) {
			m->numa = WL_NUMA_LOCAL;
		} else if (!strcmp(v, "interleave")) {
			m->numa = WL_NUMA_INTERLEAVE;
		} else if (colon && (!strncmp(v, "bind:", 5) || !strncmp(v, "preferred:", 10))) {
			struct sim_param p = { .key = "numa", .type = SIM_PARAM_COUNT,
					       .max = 1023 };
			char why[200];

			m->numa = v[0] == 'b' ? WL_NUMA_BIND : WL_NUMA_PREFERRED;
			if (sim_param_parse(&p, colon + 1, &node, why, sizeof(why)))
				return wl_key_err(k, r->err, r->len, "numa = %s: expected local, "
						  "bind:N, interleave or preferred:N", v);
			if (r->cfg->profile && node >= r->cfg->profile->topology_nodes)
				return wl_key_err(k, r->err, r->len, "numa = %s: profile %s has %"
						  PRIu64 " NUMA nodes: expected a node below %" PRIu64,
						  v, r->cfg->profile->machine_name,
						  (uint64_t)r->cfg->profile->topology_nodes,
						  (uint64_t)r->cfg->profile->topology_nodes);
			m->node = (int)node;
		} else {
			return wl_key_err(k, r->err, r->len, "numa = %s: expected local, bind:N, "
					  "interleave or preferred:N", v);
		}
	}
	return 0;
}

/* The one anonymous mTHP size of the model: plan->mthp_order. */
static int wl_mthp(struct wl_res *r)
{
	struct wl_plan *plan = r->plan;
	int first = -1;

	for (int i = 0; i < plan->nr_memory; i++) {
		const struct wl_memory *m = &plan->memory[i];

		if (m->kind != WL_MEM_ANON || m->thp)
			continue;
		if (first < 0) {
			first = i;
			plan->mthp_order = wl_ilog2(m->page) - PAGE_SHIFT;
			continue;
		}
		if (m->page != plan->memory[first].page)
			return wl_key_err(wl_find(r->w, "memory", m->name, "page") ?
					  wl_find(r->w, "memory", m->name, "page") :
					  wl_section_first(r->w, "memory", m->name), r->err, r->len,
					  "[memory %s] page %" PRIu64 "K and [memory %s] page %"
					  PRIu64 "K: expected one anonymous page size (the model "
					  "enables one mTHP size for all anonymous memory)", m->name,
					  m->page >> 10, plan->memory[first].name,
					  plan->memory[first].page >> 10);
	}
	return 0;
}

int wl_mem_index(struct wl_res *r, const struct wl_key *k, const char *name)
{
	char list[300];
	size_t n = 0;

	for (int i = 0; i < r->plan->nr_memory; i++)
		if (!strcmp(r->plan->memory[i].name, name))
			return i;
	list[0] = '\0';
	for (int i = 0; i < r->plan->nr_memory && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      r->plan->memory[i].name);
	return wl_key_err(k, r->err, r->len, "%s: unknown memory %s: expected one of %s%s",
			  k->key, name, list, n ? "" : "no [memory] section (none is given)");
}

/* [task NAME]'s keys but its steps -> plan->task[g]. */
static int wl_task(struct wl_res *r, int g)
{
	static const char *const as[] = { "processes", "threads", NULL };
	static const char *const phases[] = { "together", "random", NULL };
	static const char *const yesno[] = { "no", "yes", NULL };
	const char *name = r->task_names[g];
	struct wl_task *t = &r->plan->task[g];
	const struct wl_key *k, *kr, *kd, *ku;
	char v[WL_VALUE_LEN];
	uint64_t x;
	int ret, i = 0;

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->cpu = -1;
	k = wl_get(r, "task", name, "count", v, &ret);
	if (ret)
		return -1;
	if (!k)
		return wl_key_err(wl_section_first(r->w, "task", name), r->err, r->len,
				  "[task %s] has no count: expected count = N", name);
	if (wl_eval(r, k, v, SIM_PARAM_COUNT, 1, WL_MAX_ALL_TASKS, &x))
		return -1;
	t->count = (int)x;
	k = wl_get(r, "task", name, "as", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, as)) < 0))
		return -1;
	t->threads = k && i == 1;
	k = wl_get(r, "task", name, "cpu", v, &ret);
	if (ret)
		return -1;
	if (k && strcmp(v, "spread")) {
		if (wl_eval(r, k, v, SIM_PARAM_COUNT, 0, (uint64_t)r->nr_cpus - 1, &x))
			return -1;
		t->cpu = (int)x;
	}
	kr = wl_get(r, "task", name, "repeat", v, &ret);
	if (ret || (kr && wl_eval(r, kr, v, SIM_PARAM_COUNT, 1, UINT64_MAX, &t->repeat)))
		return -1;
	kd = wl_get(r, "task", name, "duration", v, &ret);
	if (ret || (kd && wl_eval(r, kd, v, SIM_PARAM_TIME, 1, UINT64_MAX, &t->duration_ns)))
		return -1;
	ku = wl_get(r, "task", name, "until", v, &ret);
	if (ret)
		return -1;
	if (ku) {
		for (i = 0; r->task_names[i] && strcmp(r->task_names[i], v); i++)
			;
		if (!r->task_names[i] || i == g)
			return wl_key_err(ku, r->err, r->len, "until = %s: %s: expected the name of "
					  "another [task] group", v, r->task_names[i] ? "this group" :
					  "no such group");
		t->until = true;
		t->until_group = i;
	}
	if (!!kr + !!kd + !!ku != 1)
		return wl_key_err(kr ? kr : kd ? kd : ku ? ku : wl_section_first(r->w, "task", name),
				  r->err, r->len, "[task %s] has %s: expected exactly one of repeat, "
				  "duration and until", name,
				  !kr && !kd && !ku ? "neither repeat nor duration nor until" :
				  kr && kd ? "both repeat and duration" :
				  kr ? "both repeat and until" : "both duration and until");
	k = wl_get(r, "task", name, "loop_at", v, &ret);
	if (ret || (k && wl_eval(r, k, v, SIM_PARAM_TIME, 0, 3600000000000ULL, &t->loop_at_ns)))
		return -1;
	t->has_loop_at = k != NULL;
	k = wl_get(r, "task", name, "start_delay", v, &ret);
	if (ret || (k && wl_eval(r, k, v, SIM_PARAM_TIME, 0, UINT64_MAX, &t->start_delay_ns)))
		return -1;
	k = wl_get(r, "task", name, "start_phase", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, phases)) < 0))
		return -1;
	t->start_random_phase = k && i == 1;
	k = wl_get(r, "task", name, "forked", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, yesno)) < 0))
		return -1;
	t->forked = k && i == 1;
	return 0;
}

/* The steps of every group, in the file's order of each list. */
static int wl_steps(struct wl_res *r)
{
	static const char *const lists[] = { "setup", "loop", "teardown" };

	for (int j = 0; j < r->w->nr_keys; j++) {
		const struct wl_key *k = &r->w->keys[j];
		struct wl_task *t;
		struct wl_step st, *arr;
		int *nr, g, l;
		bool present;

		if (strcmp(k->section, "task"))
			continue;
		for (l = 0; l < 3 && strcmp(k->key, lists[l]); l++)
			;
		if (l == 3)
			continue;
		for (g = 0; strcmp(r->task_names[g], k->name); g++)
			;
		t = &r->plan->task[g];
		arr = l == 0 ? t->setup : l == 1 ? t->loop : t->teardown;
		nr = l == 0 ? &t->nr_setup : l == 1 ? &t->nr_loop : &t->nr_teardown;
		if (wl_step(r, k, &st, &present))
			return -1;
		if (!present)
			continue;
		if (*nr == WL_MAX_STEPS)
			return wl_key_err(k, r->err, r->len, "more than %d %s steps in [task %s]: "
					  "expected at most %d", WL_MAX_STEPS, lists[l], k->name,
					  WL_MAX_STEPS);
		arr[(*nr)++] = st;
	}
	return 0;
}

/*
 * Every step on a memory comes after an mmap of it: earlier in the group's
 * setup or loop (teardown: anywhere in them), or before the fork step that
 * started a forked group.  @inherit[g]: memories a forked group g gets from
 * its parents (a bitmask).  With @report, the first offence is the error.
 */
static int wl_mapped_pass(struct wl_res *r, unsigned int *inherit, bool report)
{
	struct wl_plan *plan = r->plan;

	for (int g = 0; g < plan->nr_task; g++) {
		const struct wl_task *t = &plan->task[g];
		unsigned int mapped = t->forked ? inherit[g] : 0;

		for (int l = 0; l < 3; l++) {
			const struct wl_step *arr = l == 0 ? t->setup : l == 1 ? t->loop : t->teardown;
			int nr = l == 0 ? t->nr_setup : l == 1 ? t->nr_loop : t->nr_teardown;

			for (int s = 0; s < nr; s++) {
				const struct wl_step *st = &arr[s];

				if (st->op == WL_OP_MMAP)
					mapped |= 1u << st->mem;
				else if (st->op == WL_OP_FORK)
					inherit[st->task] |= mapped;
				else if (st->mem >= 0 && !(mapped & (1u << st->mem)) && report) {
					const struct wl_key *k = wl_section_first(r->w, "task", t->name);

					/* the step's own line: its file may be an include */
					for (int j = 0; j < r->w->nr_keys; j++)
						if (!strcmp(r->w->keys[j].section, "task") &&
						    !strcmp(r->w->keys[j].name, t->name) &&
						    r->w->keys[j].line == st->line)
							k = &r->w->keys[j];
					snprintf(r->err, r->len, "%s:%d: %s %s in [task %s]: memory %s "
						 "is never mapped before it: expected an mmap %s step "
						 "earlier in the group's setup or loop%s", k->file, st->line,
						 wl_ops[st->op], plan->memory[st->mem].name, t->name,
						 plan->memory[st->mem].name, plan->memory[st->mem].name,
						 t->forked ? " (or in its parent's, before the fork)" : "");
					return -1;
				}
			}
		}
	}
	return 0;
}

/*
 * [workload]'s first_fault and khugepaged keys.  The tunables default to
 * the kernel's (khugepaged_default_tunables()); first_wake to scan_sleep.
 */
static int wl_khugepaged(struct wl_res *r)
{
	static const char *const yesno[] = { "no", "yes", NULL };
	static const char *const orders[] = { "any", "in_order", NULL };
	static const struct {
		const char *key;
		enum sim_param_type type;
		uint64_t min, max;
	} tun[] = {
		{ "khugepaged_pages_to_scan", SIM_PARAM_COUNT, 1, 4294967295ULL },
		{ "khugepaged_scan_sleep", SIM_PARAM_TIME, 0, 3600000000000ULL },
		{ "khugepaged_first_wake", SIM_PARAM_TIME, 0, 3600000000000ULL },
		{ "khugepaged_max_ptes_none", SIM_PARAM_COUNT, 0, 511 },
	};
	struct wl_plan *plan = r->plan;
	uint64_t *dst[] = { &plan->khugepaged_pages_to_scan, &plan->khugepaged_scan_sleep_ns,
			    &plan->khugepaged_first_wake_ns, &plan->khugepaged_max_ptes_none };
	const struct wl_key *k;
	char v[WL_VALUE_LEN];
	bool first_wake = false;
	uint64_t x;
	int ret, i = 0;

	k = wl_get(r, "workload", "", "first_fault", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, orders)) < 0))
		return -1;
	plan->first_fault_in_order = k && i == 1;
	k = wl_get(r, "workload", "", "khugepaged", v, &ret);
	if (ret || (k && (i = wl_word(r, k, v, yesno)) < 0))
		return -1;
	plan->khugepaged = k && i == 1;
	plan->khugepaged_pages_to_scan = 4096;			/* HPAGE_PMD_NR * 8 */
	plan->khugepaged_scan_sleep_ns = 10000000000ULL;	/* 10 s */
	plan->khugepaged_max_ptes_none = 511;			/* HPAGE_PMD_NR - 1 */
	plan->khugepaged_cpu = -1;
	for (size_t j = 0; j < sizeof(tun) / sizeof(tun[0]); j++) {
		k = wl_get(r, "workload", "", tun[j].key, v, &ret);
		if (ret)
			return -1;
		if (!k)
			continue;
		if (!plan->khugepaged)
			return wl_key_err(k, r->err, r->len, "%s without khugepaged = yes: expected "
					  "khugepaged = yes in [workload]", tun[j].key);
		if (wl_eval(r, k, v, tun[j].type, tun[j].min, tun[j].max, dst[j]))
			return -1;
		first_wake |= j == 2;
	}
	if (!first_wake)
		plan->khugepaged_first_wake_ns = plan->khugepaged_scan_sleep_ns;
	k = wl_get(r, "workload", "", "khugepaged_cpu", v, &ret);
	if (ret)
		return -1;
	if (k) {
		if (!plan->khugepaged)
			return wl_key_err(k, r->err, r->len, "khugepaged_cpu without khugepaged = "
					  "yes: expected khugepaged = yes in [workload]");
		if (wl_eval(r, k, v, SIM_PARAM_COUNT, 0, (uint64_t)r->nr_cpus - 1, &x))
			return -1;
		plan->khugepaged_cpu = (int)x;
	}
	return 0;
}

/**
 * workload_resolve() - a workload at one run's parameters
 * @w: the workload (workload_load())
 * @cfg: the run's parameters (cfg->profile may be NULL: no NUMA or memory check)
 * @nr_cpus: the run's CPUs (nr_cpus, P%, cpu = N)
 * @plan: filled
 * @err: one line "FILE:LINE: what was wrong: expected ..."
 * @len: size of @err
 *
 * Return: 0, or -1 with @err filled.
 */
int workload_resolve(const struct workload *w, const struct sim_run_config *cfg, int nr_cpus,
		     struct wl_plan *plan, char *err, size_t len)
{
	static const char *const thps[] = { "madvise", "always", "never", NULL };
	struct wl_res r = { .w = w, .cfg = cfg, .nr_cpus = nr_cpus, .plan = plan, .err = err,
			    .len = len };
	const char *names[WL_MAX_MEMORY + 1];
	unsigned int inherit[WL_MAX_TASKS] = { 0 };
	const struct wl_key *k;
	char v[WL_VALUE_LEN];
	bool counted = false;
	int n, ret, i = 0;

	memset(plan, 0, sizeof(*plan));
	plan->w = w;
	plan->nr_cpus = nr_cpus;
	plan->node_memory = 96ULL << 30;
	k = wl_get(&r, "workload", "", "node_memory", v, &ret);
	if (ret || (k && wl_eval(&r, k, v, SIM_PARAM_SIZE, 1ULL << 20, 1ULL << 42,
				 &plan->node_memory)))
		return -1;
	k = wl_get(&r, "workload", "", "op_bytes", v, &ret);
	if (ret || (k && wl_eval(&r, k, v, SIM_PARAM_SIZE, 1, 1ULL << 40, &plan->op_bytes)))
		return -1;
	k = wl_get(&r, "workload", "", "thp", v, &ret);
	if (ret || (k && (i = wl_word(&r, k, v, thps)) < 0))
		return -1;
	plan->thp = k ? (enum wl_thp)i : WL_THP_MADVISE;
	if (wl_khugepaged(&r))
		return -1;

	n = wl_sections_of(w, "memory", names, WL_MAX_MEMORY);
	if (n > WL_MAX_MEMORY)
		return wl_key_err(wl_section_first(w, "memory", names[WL_MAX_MEMORY - 1]), err, len,
				  "more than %d [memory] sections: expected at most %d",
				  WL_MAX_MEMORY, WL_MAX_MEMORY);
	for (i = 0; i < n; i++)
		if (wl_memory(&r, names[i], &plan->memory[i]))
			return -1;
	plan->nr_memory = n;
	if (wl_mthp(&r))
		return -1;

	n = wl_sections_of(w, "task", r.task_names, WL_MAX_TASKS);
	if (n > WL_MAX_TASKS)
		return wl_key_err(wl_section_first(w, "task", r.task_names[WL_MAX_TASKS - 1]), err,
				  len, "more than %d [task] groups: expected at most %d",
				  WL_MAX_TASKS, WL_MAX_TASKS);
	if (!n) {
		snprintf(err, len, "%s:1: no [task] section: expected at least one", w->path);
		return -1;
	}
	r.task_names[n] = NULL;
	plan->nr_task = n;
	for (i = 0; i < n; i++) {
		if (wl_task(&r, i))
			return -1;
		plan->nr_tasks += plan->task[i].count;
		if (plan->nr_tasks > WL_MAX_ALL_TASKS)
			return wl_key_err(wl_find(w, "task", r.task_names[i], "count"), err, len,
					  "%d tasks in all: expected at most %d", plan->nr_tasks,
					  WL_MAX_ALL_TASKS);
	}
	for (i = 0; i < n; i++) {
		const struct wl_task *t = &plan->task[i], *u = &plan->task[t->until_group];

		if (t->until && (u->until || u->forked || t->forked))
			return wl_key_err(wl_find(w, "task", t->name, "until"), err, len,
					  "until = %s: [task %s] %s: expected a group started at "
					  "the beginning whose loop has repeat or duration",
					  u->name, t->forked ? t->name : u->name,
					  t->forked ? "is forked" : u->forked ? "is forked" :
					  "itself runs until another group");
	}
	if (wl_steps(&r))
		return -1;
	for (int g = 0; g < n; g++) {
		const struct wl_task *t = &plan->task[g];

		if (!t->nr_loop)
			return wl_key_err(wl_section_first(w, "task", t->name), err, len,
					  "[task %s] has no loop step: expected at least one loop = "
					  "STEP", t->name);
		for (int l = 0; l < 3; l++) {
			const struct wl_step *arr = l == 0 ? t->setup : l == 1 ? t->loop : t->teardown;
			int nr = l == 0 ? t->nr_setup : l == 1 ? t->nr_loop : t->nr_teardown;

			for (int s = 0; s < nr; s++)
				counted |= arr[s].counted;
		}
	}
	if (!counted) {
		k = wl_section_first(w, "task", r.task_names[0]);
		return wl_key_err(k, err, len, "no step counts: expected `count` on the step whose "
				  "operations the workload reports (fault buf write count)");
	}
	/* forks pass mappings down: the inherited sets grow to a fixed point */
	for (i = 0; i < n; i++)
		wl_mapped_pass(&r, inherit, false);
	return wl_mapped_pass(&r, inherit, true);
}
