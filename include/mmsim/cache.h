/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Data caches for user loads and page walks: where a line is when a load
 * needs it (L1D, L2, L3 or DRAM), so that an access and each reference of
 * a page walk cost the latency of the level that holds their line.
 *
 * Each level is a set-associative array with true LRU replacement (the
 * TLB's struct tlb_array, include/mmsim/tlb.h).  A core's vCPUs share its
 * L1D and L2; a socket's cores share its L3.  A load looks in L1D, L2 and
 * L3 in turn and fills every level it missed, so the levels hold what
 * was loaded last.  docs/tlb.md ("Where page-table entries are cached")
 * gives the sources and what is left out.
 *
 * This module depends only on the C library and the TLB's arrays; the
 * caller (src/mm/access.c) names the lines and turns cycles into time.
 */
#ifndef MMSIM_CACHE_H
#define MMSIM_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "mmsim/tlb.h"

/* Where a load found its line. */
enum cache_level {
	CACHE_L1 = 0,
	CACHE_L2 = 1,
	CACHE_L3 = 2,
	CACHE_DRAM = 3,
	CACHE_NR_LEVELS
};

/*
 * One level: cache_set() picks a line's set, & mask when the number of sets
 * (a.nr_sets) is a power of two, else % a.nr_sets (Skylake-SP's 11-way L3).
 */
struct cache_array {
	struct tlb_array a;
	uint64_t mask;			/* a.nr_sets - 1, or 0 if not a power of two */
	uint64_t page_mask;		/* mask if below 64 (sets indexed in the page), else 0 */
};

/*
 * What one vCPU sees: its core's L1D and L2, its socket's L3, and the
 * load-to-use latency of each level in cycles.
 *
 *   loads[CACHE_L1] + ... + loads[CACHE_DRAM] == cache_load() calls
 */
struct cache_path {
	struct cache_array *l1, *l2, *l3;
	uint32_t cycles[CACHE_NR_LEVELS];
	uint64_t loads[CACHE_NR_LEVELS];	/* loads served by each level */
	uint64_t entry_sets;		/* bit s % 64: cache_load_entry_cycles() looked in L1D set s */
};

bool cache_geometry_ok(uint64_t kib, uint64_t ways);
int cache_array_init(struct cache_array *c, uint64_t kib, uint32_t ways);
void cache_array_destroy(struct cache_array *c);

/*
 * A line's key in the arrays: never 0 (0 marks an invalid way).  Lines are
 * the caller's 63-bit names.
 */
static inline uint64_t cache_key(uint64_t line)
{
	return line << 1 | 1;
}

/*
 * The index bits of @line before a level masks them.  A cache indexes
 * physical addresses: the low six bits of a line number are its place in
 * its 4K frame, the rest name the frame, and the kernel places frames
 * anywhere.  So the index keeps the line's place in its page and takes
 * the bits above from a hash of the rest.  One value serves every level
 * (cache_index_set()): a load that misses L1D hashes once for L2 and L3.
 */
static inline uint64_t cache_index(uint64_t line)
{
	uint64_t frame = (line >> 6) * 0x9e3779b97f4a7c15ULL;

	return (line & 63) | (frame >> 24) << 6;
}

/*
 * The set of index @x in @c: & mask when the number of sets (a.nr_sets)
 * is a power of two, else % a.nr_sets (Skylake-SP's 11-way L3).  With 64
 * sets or fewer that is the line's place in its page (an L1D is indexed
 * inside the page).
 */
static inline uint64_t cache_index_set(const struct cache_array *c, uint64_t x)
{
	return c->mask ? x & c->mask : x % c->a.nr_sets;
}

/* The set of @line in @c. */
static inline uint64_t cache_set(const struct cache_array *c, uint64_t line)
{
	/* 64 sets or fewer: the hash would be masked away (the L1D). */
	if (c->page_mask)
		return line & c->page_mask;
	return cache_index_set(c, cache_index(line));
}

/*
 * Look up the line of key @key and index @x (cache_index()) in @c and make
 * it the most recent; fill it on a miss.
 */
static inline __attribute__((always_inline))
bool cache_array_touch_index(struct cache_array *c, uint64_t key, uint64_t x)
{
	uint64_t set = cache_index_set(c, x);

	/* No MRU shortcut: it reads the keys, a host cache miss in a large array. */
	return tlb_array_touch_mru(&c->a, key, set, false);
}

/* Look @line up in @c and make it the most recent; fill it on a miss. */
static inline bool cache_array_touch(struct cache_array *c, uint64_t line)
{
	return cache_array_touch_index(c, cache_key(line), cache_index(line));
}

/*
 * Look up @line (key @key, L1D set @s) in L1D, then L2, then L3, filling
 * every level that missed, and return the level that held it: the walk
 * cache_load() and cache_fill() share.  With @recent the L1D also tries
 * its second most recent key before a full lookup
 * (tlb_array_touch_recent()); the same outcome and the same LRU either way.
 */
static inline __attribute__((always_inline))
enum cache_level cache_path_touch(struct cache_path *p, uint64_t line, uint64_t key, uint64_t s,
				  bool recent)
{
	struct cache_array *l1 = p->l1;
	uint64_t x;

	/* The L1D is small: its MRU key is in the host's cache, so try it first. */
	if (recent ? tlb_array_touch_recent(&l1->a, key, s) : tlb_array_touch_mru(&l1->a, key, s, true))
		return CACHE_L1;
	x = cache_index(line);
	if (cache_array_touch_index(p->l2, key, x))
		return CACHE_L2;
	return cache_array_touch_index(p->l3, key, x) ? CACHE_L3 : CACHE_DRAM;
}

/* cache_load() with cache_path_touch()'s @recent, and @record the L1D set in entry_sets. */
static inline __attribute__((always_inline))
enum cache_level cache_load_recent(struct cache_path *p, uint64_t line, bool recent, bool record)
{
	uint64_t key = cache_key(line), s = cache_set(p->l1, line);
	enum cache_level l;

	if (record)
		p->entry_sets |= 1ULL << (s & 63);
	l = cache_path_touch(p, line, key, s, recent);
	p->loads[l]++;
	return l;
}

/**
 * cache_load - one load of @line through @p
 * @p: the vCPU's caches
 * @line: the line's name (the caller's: address space and line number)
 *
 * Looks in L1D, then L2, then L3, and fills every level that missed: the
 * line ends most recently used in all three.
 *
 * Context: any; the caches belong to the running vCPU's core and socket.
 * Return: the level that held the line (CACHE_DRAM if none did).
 */
static inline __attribute__((always_inline))
enum cache_level cache_load(struct cache_path *p, uint64_t line)
{
	return cache_load_recent(p, line, false, false);
}

/**
 * cache_fill - a store of @line through @p that no load counts
 * @p: the vCPU's caches
 * @line: the line's name
 *
 * The kernel's own stores to a user page (clear_page()): the line ends
 * most recently used as after cache_load(), in L1D and every level below
 * it that missed, and p->loads is not changed (those are user loads).
 * Context: as cache_load().
 */
static inline void cache_fill(struct cache_path *p, uint64_t line)
{
	(void)cache_path_touch(p, line, cache_key(line), cache_set(p->l1, line), false);
}

/* Fetch the host's lines that a lookup of @line in @c will read. */
static inline void cache_array_prefetch(const struct cache_array *c, uint64_t line)
{
	uint64_t set = cache_set(c, line);

	__builtin_prefetch(&c->a.sets[set]);
	__builtin_prefetch(&c->a.keys[set * c->a.ways]);
}

/*
 * Fetch what cache_load() of @line will read in all three levels, so that
 * a loop can look a few loads ahead (the simulator's speed only: the
 * model's caches do not change).
 */
static inline void cache_path_prefetch(const struct cache_path *p, uint64_t line)
{
	cache_array_prefetch(p->l1, line);
	cache_array_prefetch(p->l2, line);
	cache_array_prefetch(p->l3, line);
}

/* The number of cache_load() calls through @p so far. */
static inline uint64_t cache_path_nr_loads(const struct cache_path *p)
{
	return p->loads[CACHE_L1] + p->loads[CACHE_L2] + p->loads[CACHE_L3] + p->loads[CACHE_DRAM];
}

/* cache_load() that returns the load's latency in cycles. */
static inline __attribute__((always_inline))
uint32_t cache_load_cycles(struct cache_path *p, uint64_t line)
{
	return p->cycles[cache_load(p, line)];
}

/*
 * cache_load_cycles() for a page walk's entries, which notes the L1D set
 * it looked in (entry_sets).  With @recent it also tries the set's second
 * most recent line, which a nested walk's entries often are (its guest
 * PDE and the EPT entry of the data's frame share a set).
 */
static inline __attribute__((always_inline))
uint32_t cache_load_entry_cycles(struct cache_path *p, uint64_t line, bool recent)
{
	return p->cycles[cache_load_recent(p, line, recent, true)];
}

#endif /* MMSIM_CACHE_H */
