// SPDX-License-Identifier: GPL-2.0-only
/*
 * The steps of a workload file (docs/workloads.md's Steps table): one
 * `setup`, `loop` or `teardown` line -> struct wl_step, for
 * workload_resolve() (resolve.c).
 *
 * Models nothing of the kernel.  A line is its step's words, options as
 * KEY=VALUE, the bare word `count` (its operations are the workload's),
 * and last an optional `if NAME=VALUE` or `if NAME!=VALUE`, checked here
 * and reported to the caller, which leaves a false step out of the plan.
 * Memory names, sizes, advice and protections are checked against the
 * plan's memory; an error is one line "FILE:LINE: what: expected ...".
 *
 * No locks: a pure function of its arguments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm/mm.h"
#include "mmsim/workload.h"
#include "workload/wl_internal.h"

#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE		14	/* include/uapi/asm-generic/mman-common.h */
#endif
#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE		15
#endif

#define WL_MAX_TOKENS		12

const char *const wl_ops[] = {
	[WL_OP_MMAP] = "mmap", [WL_OP_MUNMAP] = "munmap", [WL_OP_FAULT] = "fault",
	[WL_OP_ACCESS] = "access", [WL_OP_MADVISE] = "madvise", [WL_OP_MPROTECT] = "mprotect",
	[WL_OP_FORK] = "fork", [WL_OP_SLEEP] = "sleep", [WL_OP_BARRIER] = "barrier",
	[WL_OP_TRUNCATE] = "truncate", NULL,
};

/* `if NAME=VALUE` / `if NAME!=VALUE`: whether it holds. */
static int wl_cond(struct wl_res *r, const struct wl_key *k, const char *c, bool *holds)
{
	const struct scenario_ops *s = &r->w->ops;
	const char *eq = strchr(c, '=');
	bool neg = eq && eq > c && eq[-1] == '!';
	char name[WL_NAME_LEN], why[400];
	size_t n;
	uint64_t v;
	int i;

	if (!eq || eq == c || (neg && eq - 1 == c))
		return wl_key_err(k, r->err, r->len, "%s = %s: if %s: expected if NAME=VALUE or "
				  "if NAME!=VALUE", k->key, k->value, c);
	n = (size_t)(eq - c) - (neg ? 1 : 0);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, c, n);
	name[n] = '\0';
	i = sim_scenario_param_lookup(s, name, why, sizeof(why));
	if (i < 0)
		return wl_key_err(k, r->err, r->len, "if %s: %s", c, why);
	if (sim_param_parse(&s->params[i], eq + 1, &v, why, sizeof(why)))
		return wl_key_err(k, r->err, r->len, "if %s: %s", c, why);
	*holds = (r->cfg->params[i] == v) != neg;
	return 0;
}

/* One step line of group @g into @st; *@present: false when its `if` does not hold. */
int wl_step(struct wl_res *r, const struct wl_key *k, struct wl_step *st,
		   bool *present)
{
	static const char *const rw[] = { "read", "write", NULL };
	static const char *const orders[] = { "seq", "reverse", "random", NULL };
	static const char *const advices[] = { "dontneed", "free", "cold", "pageout",
					       "populate_read", "populate_write", "hugepage",
					       "nohugepage", NULL };
	static const int advice_values[] = { MADV_DONTNEED, MADV_FREE, MADV_COLD, MADV_PAGEOUT,
					     MADV_POPULATE_READ, MADV_POPULATE_WRITE,
					     MADV_HUGEPAGE, MADV_NOHUGEPAGE };
	static const char *const prots[] = { "none", "read", "read,write", NULL };
	static const unsigned int prot_values[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE };
	char v[WL_VALUE_LEN], *tok[WL_MAX_TOKENS + 1], *save = NULL, *t, list[160];
	const struct wl_memory *m = NULL;
	struct wl_key kk = *k;
	int nt = 0, need, i;
	size_t n = 0;

	memset(st, 0, sizeof(*st));
	st->mem = -1;
	st->task = -1;
	st->line = k->line;
	*present = true;
	if (wl_subst(r, k, v, sizeof(v)))
		return -1;
	for (t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (nt == WL_MAX_TOKENS)
			return wl_key_err(k, r->err, r->len, "%s = %s: more than %d words: expected "
					  "a step as docs/workloads.md lists", k->key, k->value,
					  WL_MAX_TOKENS);
		tok[nt++] = t;
	}
	if (nt >= 2 && !strcmp(tok[nt - 2], "if")) {
		if (wl_cond(r, k, tok[nt - 1], present))
			return -1;
		nt -= 2;
	} else if (nt >= 1 && !strcmp(tok[nt - 1], "if")) {
		return wl_key_err(k, r->err, r->len, "%s = %s: if with no condition: expected "
				  "if NAME=VALUE or if NAME!=VALUE", k->key, k->value);
	}
	for (i = 1; i < nt; i++)
		if (!strcmp(tok[i], "count")) {
			st->counted = true;
			memmove(&tok[i], &tok[i + 1], (size_t)(nt - i - 1) * sizeof(tok[0]));
			nt--;
			i--;
		}
	if (!nt)
		return wl_key_err(k, r->err, r->len, "%s has no step: expected one", k->key);
	for (i = 0; wl_ops[i] && strcmp(wl_ops[i], tok[0]); i++)
		;
	if (!wl_ops[i]) {
		list[0] = '\0';
		for (int j = 0; wl_ops[j] && n < sizeof(list); j++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", j ? ", " : "",
					      wl_ops[j]);
		return wl_key_err(k, r->err, r->len, "unknown step %s: expected one of %s", tok[0],
				  list);
	}
	st->op = (enum wl_op)i;
	switch (st->op) {
	case WL_OP_BARRIER:
		need = 1;
		break;
	case WL_OP_FAULT: case WL_OP_ACCESS: case WL_OP_MADVISE: case WL_OP_MPROTECT:
	case WL_OP_TRUNCATE:
		need = 3;
		break;
	default:
		need = 2;
	}
	if (nt < need || (nt > need && st->op != WL_OP_FAULT && st->op != WL_OP_ACCESS &&
			  st->op != WL_OP_MADVISE))
		return wl_key_err(k, r->err, r->len, "%s = %s: %d words: expected %s", k->key,
				  k->value, nt,
				  st->op == WL_OP_BARRIER ? "barrier alone" :
				  st->op == WL_OP_FAULT ? "fault MEM read|write [order=] [stride=] [pages=]" :
				  st->op == WL_OP_ACCESS ? "access MEM read|write [pattern=] [stride=] [accesses=] [uops=]" :
				  st->op == WL_OP_MADVISE ? "madvise MEM ADVICE [offset=] [len=]" :
				  st->op == WL_OP_MPROTECT ? "mprotect MEM none|read|read,write" :
				  st->op == WL_OP_TRUNCATE ? "truncate MEM SIZE" :
				  st->op == WL_OP_FORK ? "fork TASK" :
				  st->op == WL_OP_SLEEP ? "sleep TIME" : "mmap MEM or munmap MEM");
	if (st->op == WL_OP_SLEEP) {
		kk.value = tok[1];
		snprintf(kk.key, sizeof(kk.key), "sleep");
		return wl_eval(r, &kk, tok[1], SIM_PARAM_TIME, 0, UINT64_MAX, &st->time_ns);
	}
	if (st->op == WL_OP_FORK) {
		for (i = 0; r->task_names[i] && strcmp(r->task_names[i], tok[1]); i++)
			;
		if (!r->task_names[i])
			return wl_key_err(k, r->err, r->len, "fork %s: no [task %s]: expected the "
					  "name of a task group", tok[1], tok[1]);
		if (!r->plan->task[i].forked)
			return wl_key_err(k, r->err, r->len, "fork %s: [task %s] is not forked = yes: "
					  "expected a group that fork steps start", tok[1], tok[1]);
		st->task = i;
		return 0;
	}
	if (st->op == WL_OP_BARRIER)
		return 0;
	st->mem = wl_mem_index(r, k, tok[1]);
	if (st->mem < 0)
		return -1;
	m = &r->plan->memory[st->mem];
	snprintf(kk.key, sizeof(kk.key), "%s", tok[0]);
	switch (st->op) {
	case WL_OP_FAULT:
	case WL_OP_ACCESS:
		kk.value = tok[2];
		if ((i = wl_word(r, &kk, tok[2], rw)) < 0)
			return -1;
		st->write = i == 1;
		st->stride = m->page;
		st->order = WL_ORDER_SEQ;
		st->pattern = WL_PAT_SEQ;
		for (i = 3; i < nt; i++) {
			char *eq = strchr(tok[i], '=');
			const char *opt = tok[i], *val = eq ? eq + 1 : "";

			if (eq)
				*eq = '\0';
			kk.value = (char *)val;
			snprintf(kk.key, sizeof(kk.key), "%s", opt);
			if (!strcmp(opt, "stride")) {
				if (wl_eval(r, &kk, val, SIM_PARAM_SIZE, 1, m->size, &st->stride))
					return -1;
				if (st->op == WL_OP_FAULT && st->stride % PAGE_SIZE)
					return wl_key_err(k, r->err, r->len, "fault stride=%s: "
							  "expected a multiple of 4K", val);
			} else if (st->op == WL_OP_FAULT && !strcmp(opt, "order")) {
				int o = wl_word(r, &kk, val, orders);

				if (o < 0)
					return -1;
				st->order = (enum wl_order)o;
			} else if (st->op == WL_OP_FAULT && !strcmp(opt, "pages")) {
				if (wl_eval(r, &kk, val, SIM_PARAM_COUNT, 1, UINT64_MAX, &st->nr))
					return -1;
			} else if (st->op == WL_OP_ACCESS && !strcmp(opt, "accesses")) {
				if (wl_eval(r, &kk, val, SIM_PARAM_COUNT, 1, UINT64_MAX, &st->nr))
					return -1;
			} else if (st->op == WL_OP_ACCESS && !strcmp(opt, "uops")) {
				uint64_t u;

				if (wl_eval(r, &kk, val, SIM_PARAM_COUNT, 1, 1024, &u))
					return -1;
				st->uops = (uint32_t)u;
			} else if (st->op == WL_OP_ACCESS && !strcmp(opt, "pattern")) {
				char *end = NULL;

				if (!strcmp(val, "seq")) {
					st->pattern = WL_PAT_SEQ;
				} else if (!strcmp(val, "random")) {
					st->pattern = WL_PAT_RANDOM;
				} else if (!strcmp(val, "shuffled")) {
					st->pattern = WL_PAT_SHUFFLED;
				} else if (!strncmp(val, "zipf:", 5)) {
					st->pattern = WL_PAT_ZIPF;
					st->zipf_s = strtod(val + 5, &end);
					if (end == val + 5 || *end || !(st->zipf_s > 0 && st->zipf_s <= 10))
						return wl_key_err(k, r->err, r->len, "pattern=%s: "
								  "expected zipf:S with S in (0, 10]", val);
				} else if (!strncmp(val, "hot:", 4)) {
					st->pattern = WL_PAT_HOT;
					st->hot_prob = strtod(val + 4, &end);
					if (end != val + 4 && *end == ':') {
						const char *f = end + 1;

						st->hot_frac = strtod(f, &end);
						if (end == f)
							end = NULL;
					} else {
						end = NULL;
					}
					if (!end || *end || !(st->hot_prob > 0 && st->hot_prob < 1) ||
					    !(st->hot_frac > 0 && st->hot_frac < 1))
						return wl_key_err(k, r->err, r->len, "pattern=%s: expected "
								  "hot:P:F, fractions P and F in (0, 1)",
								  val);
				} else {
					return wl_key_err(k, r->err, r->len, "pattern=%s: expected seq, "
							  "random, shuffled, zipf:S or hot:P:F", val);
				}
			} else {
				return wl_key_err(k, r->err, r->len, "%s: unknown option %s: expected %s",
						  tok[0], opt, st->op == WL_OP_FAULT ?
						  "order=, stride= or pages=" :
						  "pattern=, stride=, accesses= or uops=");
			}
		}
		if (st->op == WL_OP_FAULT && st->nr > m->size / st->stride)
			return wl_key_err(k, r->err, r->len, "fault pages=%" PRIu64 ": more than "
					  "the %" PRIu64 " addresses of memory %s at that stride: "
					  "expected at most that", st->nr, m->size / st->stride, m->name);
		if (st->pattern == WL_PAT_SHUFFLED && m->size / st->stride > UINT32_MAX)
			return wl_key_err(k, r->err, r->len, "pattern=shuffled: %" PRIu64 " slots of "
					  "memory %s at that stride: expected at most 2^32 - 1",
					  m->size / st->stride, m->name);
		if (!st->nr)
			st->nr = m->size / st->stride;
		return 0;
	case WL_OP_MADVISE:
		kk.value = tok[2];
		snprintf(kk.key, sizeof(kk.key), "madvise");
		if ((i = wl_word(r, &kk, tok[2], advices)) < 0)
			return -1;
		st->advice = advice_values[i];
		st->len = 0;
		for (i = 3; i < nt; i++) {
			char *eq = strchr(tok[i], '=');
			const char *val = eq ? eq + 1 : "";
			uint64_t *dst;

			if (eq)
				*eq = '\0';
			if (!strcmp(tok[i], "offset"))
				dst = &st->offset;
			else if (!strcmp(tok[i], "len"))
				dst = &st->len;
			else
				return wl_key_err(k, r->err, r->len, "madvise: unknown option %s: "
						  "expected offset= or len=", tok[i]);
			kk.value = (char *)val;
			snprintf(kk.key, sizeof(kk.key), "%s", tok[i]);
			if (wl_eval(r, &kk, val, SIM_PARAM_SIZE, 0, m->size, dst))
				return -1;
			if (*dst % PAGE_SIZE)
				return wl_key_err(k, r->err, r->len, "madvise %s=%s: expected a "
						  "multiple of 4K", tok[i], val);
		}
		if (!st->len)
			st->len = m->size - st->offset;
		if (!st->len || st->offset + st->len > m->size)
			return wl_key_err(k, r->err, r->len, "madvise offset + len past the end of "
					  "memory %s (%" PRIu64 " bytes): expected a range inside it",
					  m->name, m->size);
		return 0;
	case WL_OP_MPROTECT:
		kk.value = tok[2];
		snprintf(kk.key, sizeof(kk.key), "mprotect");
		if ((i = wl_word(r, &kk, tok[2], prots)) < 0)
			return -1;
		st->prot = prot_values[i];
		return 0;
	case WL_OP_TRUNCATE:
		if (m->kind == WL_MEM_ANON)
			return wl_key_err(k, r->err, r->len, "truncate %s: memory %s is anon: "
					  "expected a shmem or file memory", m->name, m->name);
		kk.value = tok[2];
		snprintf(kk.key, sizeof(kk.key), "truncate");
		if (wl_eval(r, &kk, tok[2], SIM_PARAM_SIZE, 0, m->size, &st->size))
			return -1;
		if (st->size % PAGE_SIZE)
			return wl_key_err(k, r->err, r->len, "truncate to %s: expected a multiple "
					  "of 4K", tok[2]);
		return 0;
	default:
		return 0;
	}
}

