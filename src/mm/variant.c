// SPDX-License-Identifier: GPL-2.0-only
/*
 * The settings of a variant by name: what a workload file's [variant NAME]
 * section (docs/workloads.md) and any other text-driven caller may set in
 * struct mm_variant (mm.h).  One table: a field added to struct
 * mm_variant is settable once it has a row here.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mm/mm.h"

enum mm_variant_type { MM_VARIANT_BOOL };

struct mm_variant_key {
	const char *key;
	enum mm_variant_type type;
	size_t offset;
	const char *help;
};

#define MM_VARIANT_BOOL_KEY(field, text) \
	{ #field, MM_VARIANT_BOOL, offsetof(struct mm_variant, field), text }

static const struct mm_variant_key mm_variant_keys[] = {
	MM_VARIANT_BOOL_KEY(queue_mthp_on_fault,
			    "the mTHP shrinker series: every anon mTHP queued for deferred split at fault"),
	MM_VARIANT_BOOL_KEY(unqueue_after_lru_unlock,
			    "folio_batch_unqueue_deferred_split() after lru_lock is released"),
	MM_VARIANT_BOOL_KEY(batch_dirty_flush,
			    "reclaim: one TLB flush per batch of dirty folios"),
	MM_VARIANT_BOOL_KEY(khugepaged_move_tail,
			    "khugepaged: an mm whose scan was cut short goes to the list's tail"),
	MM_VARIANT_BOOL_KEY(khugepaged_skip_lazyfree,
			    "khugepaged: SCAN_PAGE_LAZYFREE, lazyfree folios not collapsed"),
	MM_VARIANT_BOOL_KEY(khugepaged_count_scanned,
			    "khugepaged: progress counts the entries examined"),
	{ NULL },
};

static int parse_bool(const char *s, bool *out)
{
	if (!strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "1") ||
	    !strcasecmp(s, "true")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "0") ||
	    !strcasecmp(s, "false")) {
		*out = false;
		return 0;
	}
	return -1;
}

/*
 * Set @key of @v from @value.  0, or -1 with one line in @err naming the
 * key or value and what was expected.
 */
int mm_variant_set(struct mm_variant *v, const char *key, const char *value, char *err,
		   size_t len)
{
	const struct mm_variant_key *k;
	size_t used = 0;

	for (k = mm_variant_keys; k->key; k++) {
		if (strcmp(k->key, key))
			continue;
		switch (k->type) {
		case MM_VARIANT_BOOL:
			if (parse_bool(value, (bool *)((char *)v + k->offset))) {
				snprintf(err, len, "%s = %s: expected yes or no", key, value);
				return -1;
			}
			return 0;
		}
	}
	used = (size_t)snprintf(err, len, "unknown variant setting %s: expected one of", key);
	for (k = mm_variant_keys; k->key && used < len; k++)
		used += (size_t)snprintf(err + used, len - used, " %s", k->key);
	return -1;
}

/* The settable keys, in order, NULL after the last; @help: its line. */
const char *mm_variant_key_name(int i, const char **help)
{
	if (i < 0 || (size_t)i >= sizeof(mm_variant_keys) / sizeof(mm_variant_keys[0]) - 1)
		return NULL;
	if (help)
		*help = mm_variant_keys[i].help;
	return mm_variant_keys[i].key;
}
