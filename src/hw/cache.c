// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data caches' arrays (include/mmsim/cache.h): set-up and tear-down.
 * The lookup is inline in the header.
 *
 * What it models: capacity and associativity of L1D, L2 and L3 with true
 * LRU replacement, and the load-to-use latency of each level.
 * What it leaves out: stores and write-backs, coherence between cores
 * (a line may sit in two cores' caches at once), prefetchers, and the
 * non-inclusive L3 of Skylake-SP (every level is filled on a miss).
 */
#include <errno.h>
#include <string.h>

#include "mmsim/cache.h"

/**
 * cache_geometry_ok - can a cache level have @kib KiB in @ways ways?
 * @kib: its capacity in KiB (64-byte lines)
 * @ways: its associativity
 *
 * 1 to TLB_MAX_WAYS ways that divide its lines; any number of sets.
 * Context: any.
 * Return: true if it can.
 */
bool cache_geometry_ok(uint64_t kib, uint64_t ways)
{
	uint64_t lines = kib * 1024 / 64;

	return lines && ways && ways <= TLB_MAX_WAYS && !(lines % ways);
}

/**
 * cache_array_init - an empty cache level of @kib KiB and @ways ways
 * @c: the level to set up
 * @kib: its capacity in KiB (64-byte lines)
 * @ways: its associativity, 1 .. TLB_MAX_WAYS
 *
 * Context: any; allocates memory.
 * Return: 0, -EINVAL if !cache_geometry_ok(), -ENOMEM.
 */
int cache_array_init(struct cache_array *c, uint64_t kib, uint32_t ways)
{
	uint64_t nr_sets;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!cache_geometry_ok(kib, ways))
		return -EINVAL;
	nr_sets = kib * 1024 / 64 / ways;
	ret = tlb_array_alloc(&c->a, nr_sets, ways);
	if (ret)
		return ret;
	c->mask = (nr_sets & (nr_sets - 1)) ? 0 : nr_sets - 1;
	c->page_mask = c->mask < 64 ? c->mask : 0;
	return 0;
}

/* Free a level set up by cache_array_init(). */
void cache_array_destroy(struct cache_array *c)
{
	tlb_array_free(&c->a);
	memset(c, 0, sizeof(*c));
}
