// SPDX-License-Identifier: GPL-2.0-only
/*
 * The settings of a variant by name: what a workload file's [variant NAME]
 * section (docs/workloads.md) and any other text-driven caller may set in
 * struct mm_variant (mm.h).  One table: a field added to struct
 * mm_variant is settable once it has a row here.
 *
 * The kernel constants (docs/kernel.md) are integers with a range; a
 * field left 0 means the modelled kernel's value, which
 * mm_constants_init() fills in.  A constant whose range includes 0
 * (CONFIG_PCP_BATCH_SCALE_MAX) is stored plus one (its row's bias).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mm/mm.h"

enum mm_variant_type { MM_VARIANT_BOOL, MM_VARIANT_UINT };

struct mm_variant_key {
	const char *key;
	enum mm_variant_type type;
	size_t offset;
	const char *help;
	unsigned int min, max;		/* MM_VARIANT_UINT: the range */
	unsigned int bias;		/* MM_VARIANT_UINT: stored as value + bias */
};

#define MM_VARIANT_BOOL_KEY(field, text) \
	{ #field, MM_VARIANT_BOOL, offsetof(struct mm_variant, field), text }
#define MM_VARIANT_UINT_KEY(field, lo, hi, b, text) \
	{ #field, MM_VARIANT_UINT, offsetof(struct mm_variant, field), text, lo, hi, b }

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
	MM_VARIANT_UINT_KEY(pagevec_size, 1, PAGEVEC_SIZE_MAX, 0,
			    "PAGEVEC_SIZE: folios per folio_batch (31; 15 before v6.9)"),
	MM_VARIANT_UINT_KEY(swap_cluster_max, 1, 4096, 0,
			    "SWAP_CLUSTER_MAX: reclaim's scan and reclaim unit (32)"),
	MM_VARIANT_UINT_KEY(memcg_charge_batch, 1, 4096, 0,
			    "MEMCG_CHARGE_BATCH: pages a memcg charge takes ahead (64)"),
	MM_VARIANT_UINT_KEY(pcp_batch, 1, 1024, 0,
			    "the pcp batch, zone_batchsize() of a zone of 1 GiB or more (63)"),
	MM_VARIANT_UINT_KEY(pcp_batch_scale_max, 0, 6, 1,
			    "CONFIG_PCP_BATCH_SCALE_MAX: the pcp batch's largest scale shift (5)"),
	MM_VARIANT_UINT_KEY(min_lru_batch, 1, 1024, 0,
			    "MIN_LRU_BATCH: MGLRU's isolation unit; MAX_LRU_BATCH is 64 times it (64)"),
	MM_VARIANT_UINT_KEY(khugepaged_pmd_progress, 1, HPAGE_PMD_NR, 0,
			    "khugepaged: progress a scanned PMD range adds (HPAGE_PMD_NR, 512)"),
	MM_VARIANT_UINT_KEY(max_gather_batch_count, 1, 1024, 0,
			    "MAX_GATHER_BATCH_COUNT: an mmu_gather's batch pages of 510 (19)"),
	MM_VARIANT_UINT_KEY(max_nr_folios_per_free, 1, 65536, 0,
			    "MAX_NR_FOLIOS_PER_FREE: mmu_gather entries freed per chunk (512)"),
	{ NULL },
};

/**
 * mm_constants_init - the kernel constants of a run
 * @c: filled in
 * @v: the variant; each of its constants left 0 takes the modelled
 *     kernel's value (docs/kernel.md gives each one's version and source)
 */
void mm_constants_init(struct mm_constants *c, const struct mm_variant *v)
{
	c->pagevec_size = v->pagevec_size ? v->pagevec_size : 31;
	c->swap_cluster_max = v->swap_cluster_max ? v->swap_cluster_max : 32;
	c->memcg_charge_batch = v->memcg_charge_batch ? v->memcg_charge_batch : 64;
	c->pcp_batch = v->pcp_batch ? (int)v->pcp_batch : 63;
	c->pcp_batch_scale_max = v->pcp_batch_scale_max ? (int)v->pcp_batch_scale_max - 1 : 5;
	c->min_lru_batch = v->min_lru_batch ? v->min_lru_batch : 64;
	c->khugepaged_pmd_progress = v->khugepaged_pmd_progress ? v->khugepaged_pmd_progress
								  : HPAGE_PMD_NR;
	c->max_gather_batch_count = v->max_gather_batch_count ? v->max_gather_batch_count
							      : 10000UL / MAX_GATHER_BATCH;
	c->max_nr_folios_per_free = v->max_nr_folios_per_free ? v->max_nr_folios_per_free : 512;
}

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

/* A decimal integer, digits only, within @k's range: 0, or -1. */
static int parse_uint(const struct mm_variant_key *k, const char *s, unsigned int *out)
{
	unsigned long n;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n < k->min || n > k->max)
		return -1;
	*out = (unsigned int)n + k->bias;
	return 0;
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
		case MM_VARIANT_UINT:
			if (parse_uint(k, value, (unsigned int *)((char *)v + k->offset))) {
				snprintf(err, len, "%s = %s: expected an integer from %u to %u", key,
					 value, k->min, k->max);
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
