// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the TLB model (src/hw/tlb.c) and of the data caches built
 * on its arrays (src/hw/cache.c), with answers worked out by hand.  They
 * call only the functions of include/mmsim/tlb.h and cache.h, so they
 * build standalone:
 *
 *   gcc -std=gnu11 -O2 -Iinclude src/hw/tlb.c src/hw/cache.c tests/test_tlb.c -lcmocka
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mmsim/cache.h"
#include "mmsim/tlb.h"

#define SZ_4K	0x1000ULL
#define SZ_2M	0x200000ULL
#define SZ_128M	(128ULL << 20)

/*
 * The tiny TLB: L1 4K is 2-way with 4 sets (8 entries), L1 2M 2-way with
 * 2 sets, the STLB 2-way with 8 sets.  A 4K page p sits in L1 set p % 4
 * and STLB set p % 8.
 */
static const struct tlb_geometry tiny = {
	.l1_4k_entries = 8, .l1_4k_ways = 2,
	.l1_2m_entries = 4, .l1_2m_ways = 2,
	.stlb_entries = 16, .stlb_ways = 2,
	.stlb_hit_cycles = 10, .walk_cycles = 20,
	.walk_dims = 1, .page_walkers = 2,
};

/* Skylake (kernel-paths.md 5.3): L1 64/4 and 32/4, STLB 1536/12. */
static const struct tlb_geometry skylake = {
	.l1_4k_entries = 64, .l1_4k_ways = 4,
	.l1_2m_entries = 32, .l1_2m_ways = 4,
	.stlb_entries = 1536, .stlb_ways = 12,
	.stlb_hit_cycles = 12, .walk_cycles = 20,
	.walk_dims = 1, .page_walkers = 2,
};

/* The invariants above struct tlb_set and struct tlb_array. */
static void check_array(const struct tlb_array *a)
{
	for (uint64_t s = 0; s <= a->set_mask; s++) {
		const struct tlb_set *set = &a->sets[s];
		const uint64_t *keys = a->keys + s * a->ways;

		assert_ptr_equal(set->keys, keys);
		uint32_t seen_ways = 0;

		for (uint32_t rank = 0; rank < TLB_MAX_WAYS; rank++) {
			unsigned int w = (set->order >> (4 * rank)) & 15;
			uint64_t tag = (set->tags[w / 8] >> (8 * (w % 8))) & 0xff;

			if (rank >= a->ways) {
				assert_int_equal(w, 0);	/* unused nibble */
				continue;
			}
			assert_true(w < a->ways);
			assert_false(seen_ways & (1u << w));
			seen_ways |= 1u << w;
			assert_int_equal(!keys[w], (set->free_ways >> w) & 1);
			if (!keys[w]) {
				assert_int_equal(tag, 0);
				continue;
			}
			assert_true(keys[w] & TLB_KEY_VALID);
			assert_int_equal(tag, tlb_tag(keys[w]));
			for (uint32_t v = 0; v < w; v++)
				assert_true(keys[v] != keys[w]);
		}
		for (uint32_t w = a->ways; w < TLB_MAX_WAYS; w++)
			assert_int_equal((set->tags[w / 8] >> (8 * (w % 8))) &
					 0xff, 0);
		assert_int_equal(set->free_ways & ~a->way_mask, 0);
		/* A set that holds an entry has its bit in used. */
		if (set->free_ways != a->way_mask)
			assert_true((a->used[(s / 64) % (TLB_USED_BITS / 64)] >> (s % 64)) & 1);
	}
}

/* The invariants above struct tlb_l1. */
static void check_l1(const struct tlb_l1 *l)
{
	/* A power of two of sets. */
	assert_int_equal(l->set_mask & (l->set_mask + 1), 0);
	for (uint64_t s = 0; s <= l->set_mask; s++) {
		const uint64_t *keys = l->keys + s * l->ways;
		bool invalid_seen = false;

		for (uint32_t w = 0; w < l->ways; w++) {
			if (!keys[w]) {
				invalid_seen = true;
				continue;
			}
			assert_false(invalid_seen);	/* valid keys first */
			assert_true(keys[w] & TLB_KEY_VALID);
			for (uint32_t v = 0; v < w; v++)
				assert_true(keys[v] != keys[w]);
		}
	}
}

static void check_tlb(const struct tlb *t)
{
	check_l1(&t->l1_4k);
	check_l1(&t->l1_2m);
	check_array(&t->stlb);
}

/* The key at LRU rank @rank (0: MRU) of the L1 set of 4K page @p. */
static uint64_t l1_way(const struct tlb *t, uint64_t p, uint32_t rank)
{
	return tlb_l1_key_at(&t->l1_4k, p & t->l1_4k.set_mask, rank);
}

static uint64_t stlb_way(const struct tlb *t, uint64_t p, uint32_t rank)
{
	return tlb_array_key_at(&t->stlb, p & t->stlb.set_mask, rank);
}

static uint64_t k4(uint16_t asid, uint64_t p)
{
	return tlb_key(asid, p, false);
}

static enum tlb_result acc(struct tlb *t, uint16_t asid, uint64_t p)
{
	enum tlb_result r = tlb_access(t, asid, p * SZ_4K + 0x123, false);

	check_tlb(t);
	return r;
}

static void test_geometry_rejected(void **state)
{
	struct tlb t;
	struct tlb_geometry g = tiny;

	g.l1_4k_entries = 12;		/* 6 sets: not a power of two */
	assert_int_equal(tlb_init(&t, &g), -EINVAL);
	g = tiny;
	g.stlb_ways = 3;		/* 16 % 3 != 0 */
	assert_int_equal(tlb_init(&t, &g), -EINVAL);
	g = tiny;
	g.walk_dims = 3;
	assert_int_equal(tlb_init(&t, &g), -EINVAL);
	g = tiny;
	g.page_walkers = 0;
	assert_int_equal(tlb_init(&t, &g), -EINVAL);
	assert_int_equal(tlb_init(&t, &skylake), 0);
	tlb_destroy(&t);
}

/*
 * An exact trace through the tiny TLB, ASID 1, 4K pages.  Sets are drawn
 * MRU first.  Pages 0, 4, 8, 16 share L1 set 0; 0, 8, 16 share STLB set 0.
 *
 *  #  page  L1 set 0 before  STLB set       result     L1 set 0 after / STLB after
 *  1  0     [ - - ]          s0 [ - - ]     walk       [0 -]   s0 [0 -]
 *  2  4     [0 -]            s4 [ - - ]     walk       [4 0]   s4 [4 -]
 *  3  0     [4 0]            (not looked)   L1 hit     [0 4]   (LRU update)
 *  4  8     [0 4]            s0 [0 -]       walk       [8 0]   s0 [8 0]  L1 evicts 4
 *  5  4     [8 0]            s4 [4 -]       STLB hit   [4 8]   s4 [4 -]  L1 evicts 0
 *  6  16    [4 8]            s0 [8 0]       walk       [16 4]  s0 [16 8] STLB evicts 0
 *  7  0     [16 4]           s0 [16 8]      walk       [0 16]  s0 [0 16] STLB evicts 8
 *  8  8     [0 16]           s0 [0 16]      walk       [8 0]   s0 [8 0]
 *  9  1     set 1 [ - - ]    s1 [ - - ]     walk       set 1 [1 -], s1 [1 -]
 * 10  8     [8 0]            (not looked)   L1 hit     [8 0]
 *
 * Totals: 2 L1 hits (3, 10), 1 STLB hit (5), 7 walks.
 * Cycles: 7 * (10 + 20) + 1 * 10 = 220.
 */
static void test_trace_lru(void **state)
{
	static const struct {
		uint64_t page;
		enum tlb_result r;
	} trace[] = {
		{ 0, TLB_WALK }, { 4, TLB_WALK }, { 0, TLB_L1_HIT },
		{ 8, TLB_WALK }, { 4, TLB_STLB_HIT }, { 16, TLB_WALK },
		{ 0, TLB_WALK }, { 8, TLB_WALK }, { 1, TLB_WALK },
		{ 8, TLB_L1_HIT },
	};
	uint64_t cycles = 0;
	struct tlb t;

	assert_int_equal(tlb_init(&t, &tiny), 0);
	for (size_t i = 0; i < sizeof(trace) / sizeof(trace[0]); i++) {
		enum tlb_result r = acc(&t, 1, trace[i].page);

		if (r != trace[i].r)
			fail_msg("step %zu (page %llu): got %d, expected %d",
				 i + 1, (unsigned long long)trace[i].page,
				 r, trace[i].r);
		cycles += tlb_cost_cycles(&t, r, false);

		if (i + 1 == 4) {	/* L1 s0 [8 0], STLB s0 [8 0] */
			assert_int_equal(l1_way(&t, 0, 0), k4(1, 8));
			assert_int_equal(l1_way(&t, 0, 1), k4(1, 0));
			assert_int_equal(stlb_way(&t, 0, 0), k4(1, 8));
			assert_int_equal(stlb_way(&t, 0, 1), k4(1, 0));
		}
		if (i + 1 == 6) {	/* L1 s0 [16 4], STLB s0 [16 8] */
			assert_int_equal(l1_way(&t, 0, 0), k4(1, 16));
			assert_int_equal(l1_way(&t, 0, 1), k4(1, 4));
			assert_int_equal(stlb_way(&t, 0, 0), k4(1, 16));
			assert_int_equal(stlb_way(&t, 0, 1), k4(1, 8));
		}
	}
	assert_int_equal(t.stats.l1_hits, 2);
	assert_int_equal(t.stats.stlb_hits, 1);
	assert_int_equal(t.stats.walks, 7);
	assert_int_equal(tlb_dtlb_load_misses(&t), 7);
	assert_int_equal(t.stats.walk_cycles, 7 * 20);
	assert_int_equal(cycles, 220);
	/* L1 set 0 [8 0], set 1 [1 -]; STLB s0 [8 0], s1 [1], s4 [4]. */
	assert_int_equal(tlb_nr_valid(&t), 3 + 4);
	tlb_destroy(&t);
}

/* The same address in another address space is another entry. */
static void test_asid_tagging(void **state)
{
	struct tlb t;

	assert_int_equal(tlb_init(&t, &tiny), 0);
	assert_int_equal(acc(&t, 1, 5), TLB_WALK);
	assert_int_equal(acc(&t, 2, 5), TLB_WALK);	/* other asid misses */
	assert_int_equal(acc(&t, 1, 5), TLB_L1_HIT);	/* both fit in 2 ways */
	assert_int_equal(acc(&t, 2, 5), TLB_L1_HIT);
	assert_int_equal(acc(&t, 3, 5), TLB_WALK);	/* evicts asid 1 from L1 */
	assert_int_equal(acc(&t, 1, 5), TLB_WALK);	/* and from the STLB */
	assert_int_equal(t.stats.walks, 4);
	tlb_destroy(&t);
}

/* One 2M entry translates all 512 4K pages of its range, and no more. */
static void test_huge_covers_range(void **state)
{
	const uint64_t base = 7 * SZ_2M;
	struct tlb t;

	assert_int_equal(tlb_init(&t, &tiny), 0);
	assert_int_equal(tlb_access(&t, 1, base + 0x10, true), TLB_WALK);
	for (uint64_t i = 0; i < 512; i++)
		assert_int_equal(tlb_access(&t, 1, base + i * SZ_4K + 0xff8, true),
				 TLB_L1_HIT);
	assert_int_equal(t.stats.l1_hits, 512);
	assert_true(tlb_present(&t, TLB_LEVEL_L1, 1, base + SZ_2M - 1, true));
	assert_false(tlb_present(&t, TLB_LEVEL_L1, 1, base + SZ_2M, true));
	assert_false(tlb_present(&t, TLB_LEVEL_L1, 1, base - 1, true));
	/* The 2M entry does not answer a 4K lookup of the same address. */
	assert_false(tlb_present(&t, TLB_LEVEL_STLB, 1, base, false));
	assert_int_equal(tlb_access(&t, 1, base + SZ_2M, true), TLB_WALK);
	assert_int_equal(tlb_nr_valid(&t), 4);		/* 2 x (L1 2M + STLB) */
	tlb_destroy(&t);
}

/*
 * INVLPG of X = 2M + 12K for asid 1 removes the four entries covering X
 * for asid 1 (4K in L1 and STLB, 2M in L1 and STLB), and keeps:
 *   asid 1, 4K page X + 4K  (another page, though inside the same 2M)
 *   asid 2, 4K page X and asid 2, the 2M page of X  (another asid)
 */
static void test_flush_one(void **state)
{
	const uint64_t x = SZ_2M + 3 * SZ_4K;
	struct tlb t;

	assert_int_equal(tlb_init(&t, &tiny), 0);
	tlb_access(&t, 1, x, false);
	tlb_access(&t, 1, x, true);
	tlb_access(&t, 1, x + SZ_4K, false);
	tlb_access(&t, 2, x, false);
	tlb_access(&t, 2, x, true);
	assert_int_equal(t.stats.walks, 5);
	assert_int_equal(tlb_nr_valid(&t), 10);

	assert_int_equal(tlb_flush_one(&t, 1, x + 0x7), 4);
	check_tlb(&t);
	assert_int_equal(tlb_nr_valid(&t), 6);
	for (int lvl = TLB_LEVEL_L1; lvl <= TLB_LEVEL_STLB; lvl++) {
		assert_false(tlb_present(&t, lvl, 1, x, false));
		assert_false(tlb_present(&t, lvl, 1, x, true));
		assert_true(tlb_present(&t, lvl, 1, x + SZ_4K, false));
		assert_true(tlb_present(&t, lvl, 2, x, false));
		assert_true(tlb_present(&t, lvl, 2, x, true));
	}
	assert_int_equal(tlb_access(&t, 1, x + SZ_4K, false), TLB_L1_HIT);
	assert_int_equal(tlb_access(&t, 2, x, true), TLB_L1_HIT);
	assert_int_equal(tlb_access(&t, 1, x, false), TLB_WALK);

	/* Nothing left to remove: a second INVLPG of a 4K-only page. */
	assert_int_equal(tlb_flush_one(&t, 1, x + 5 * SZ_2M), 0);
	assert_int_equal(t.stats.flush_one, 2);
	assert_int_equal(t.stats.flushes, 2);
	assert_int_equal(t.stats.flushed_entries, 4);
	tlb_destroy(&t);
}

/* A full flush of one PCID leaves the other PCIDs' entries. */
static void test_flush_asid(void **state)
{
	struct tlb t;

	assert_int_equal(tlb_init(&t, &tiny), 0);
	/* asid 1: pages 0, 1, 2 (L1 sets 0-2, STLB sets 0-2): 6 entries. */
	for (uint64_t p = 0; p < 3; p++)
		acc(&t, 1, p);
	/* asid 2: pages 0, 3: 4 entries; the 2M page 5: 2 entries. */
	acc(&t, 2, 0);
	acc(&t, 2, 3);
	tlb_access(&t, 2, 5 * SZ_2M, true);
	assert_int_equal(tlb_nr_valid(&t), 12);

	assert_int_equal(tlb_flush_asid(&t, 1), 6);
	check_tlb(&t);
	assert_int_equal(tlb_nr_valid(&t), 6);
	assert_int_equal(acc(&t, 2, 0), TLB_L1_HIT);
	assert_int_equal(acc(&t, 2, 3), TLB_L1_HIT);
	assert_int_equal(tlb_access(&t, 2, 5 * SZ_2M + 0x1234, true),
			 TLB_L1_HIT);
	assert_int_equal(acc(&t, 1, 1), TLB_WALK);
	assert_int_equal(t.stats.flush_asid, 1);

	assert_int_equal(tlb_flush_all(&t), 8);
	assert_int_equal(tlb_nr_valid(&t), 0);
	assert_int_equal(t.stats.flushes, 2);
	assert_int_equal(t.stats.flushed_entries, 14);
	tlb_destroy(&t);
}

/*
 * tlb_flush_range() with the kernel's ceiling of 33: a range of 33 pages
 * is 33 INVLPGs and keeps the asid's other pages; 34 pages are one full
 * flush of the asid, which also drops pages outside the range, but not
 * other asids.
 */
static void test_flush_range_ceiling(void **state)
{
	struct tlb t;

	assert_int_equal(tlb_init(&t, &skylake), 0);
	for (uint64_t p = 0; p < 40; p++)
		acc(&t, 1, p);
	acc(&t, 2, 0);
	assert_int_equal(tlb_nr_valid(&t), 41 * 2);

	/* [0, 33 pages): 33 INVLPGs, each removing L1 + STLB entry. */
	assert_int_equal(tlb_flush_range(&t, 1, 0, 33 * SZ_4K, 33), 66);
	assert_int_equal(t.stats.flush_one, 33);
	assert_int_equal(t.stats.flush_asid, 0);
	assert_true(tlb_present(&t, TLB_LEVEL_STLB, 1, 33 * SZ_4K, false));
	assert_int_equal(tlb_nr_valid(&t), (7 + 1) * 2);

	/* An unaligned range that touches 34 pages: full flush of asid 1. */
	assert_int_equal(tlb_flush_range(&t, 1, 0x800, 33 * SZ_4K + 1, 33), 14);
	assert_int_equal(t.stats.flush_one, 33);
	assert_int_equal(t.stats.flush_asid, 1);
	assert_false(tlb_present(&t, TLB_LEVEL_STLB, 1, 39 * SZ_4K, false));
	assert_true(tlb_present(&t, TLB_LEVEL_STLB, 2, 0, false));
	assert_int_equal(tlb_nr_valid(&t), 2);

	/* An empty range does nothing and counts nothing. */
	assert_int_equal(tlb_flush_range(&t, 2, SZ_4K, SZ_4K, 33), 0);
	assert_int_equal(t.stats.flushes, 34);
	tlb_destroy(&t);
}

/*
 * Walk costs with walk_cycles = 20, i.e. 5 cycles per reference:
 *   native 4K: 4 refs = 20;  native 2M: 3 refs = 15
 *   2D 4K: (4+1)(4+1)-1 = 24 refs = 120;  2D 2M: (3+1)(4+1)-1 = 19 refs = 95
 * and the stall of 10 walks of 120 cycles with 2 walkers is 600.
 */
static void test_walk_cost_2d(void **state)
{
	struct tlb_geometry g = tiny;
	struct tlb native, nested;

	assert_int_equal(tlb_init(&native, &g), 0);
	g.walk_dims = 2;
	assert_int_equal(tlb_init(&nested, &g), 0);

	assert_int_equal(tlb_walk_refs(&native, false), 4);
	assert_int_equal(tlb_walk_refs(&native, true), 3);
	assert_int_equal(tlb_walk_refs(&nested, false), 24);
	assert_int_equal(tlb_walk_refs(&nested, true), 19);
	assert_int_equal(tlb_walk_cost(&native, false), 20);
	assert_int_equal(tlb_walk_cost(&native, true), 15);
	assert_int_equal(tlb_walk_cost(&nested, false), 120);
	assert_int_equal(tlb_walk_cost(&nested, true), 95);

	assert_int_equal(tlb_access_cycles(&native, 1, 0, false), 10 + 20);
	assert_int_equal(tlb_access_cycles(&nested, 1, 0, false), 10 + 120);
	assert_int_equal(tlb_access_cycles(&nested, 1, 0, false), 0);
	assert_int_equal(tlb_access_cycles(&nested, 1, SZ_2M, true), 10 + 95);
	assert_int_equal(nested.stats.walk_cycles, 120 + 95);

	assert_int_equal(tlb_walk_stall_cycles(&nested, 10, 120), 600);
	assert_int_equal(tlb_walk_stall_cycles(&nested, 3, 5), 8); /* ceil 7.5 */
	tlb_destroy(&native);
	tlb_destroy(&nested);
}

/* splitmix64: a fixed, portable stream. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void run_random(struct tlb *t, bool huge, uint64_t *seed, uint64_t n)
{
	const uint64_t base = 0x7f0000000000ULL;	/* 2M aligned */

	for (uint64_t i = 0; i < n; i++)
		tlb_access(t, 1, base + (rng_next(seed) & (SZ_128M - 1)), huge);
}

/*
 * Reach on Skylake: 128 MiB is 32768 4K pages against 1536 + 64 entries,
 * so at most ~4.9% of random accesses can hit: >95% walk.  With 2M pages
 * it is 64 entries, which all fit in the STLB: no walks after warm-up.
 */
static void test_reach_skylake(void **state)
{
	const uint64_t warm = 100000, n = 1000000;
	uint64_t seed = 1;
	struct tlb t;
	double walk_ratio;

	assert_int_equal(tlb_init(&t, &skylake), 0);
	run_random(&t, false, &seed, warm);
	memset(&t.stats, 0, sizeof(t.stats));
	run_random(&t, false, &seed, n);
	walk_ratio = (double)t.stats.walks / n;
	print_message("4K: walks/access %.4f, STLB misses/lookups %.4f\n",
		      walk_ratio, (double)t.stats.walks /
		      (t.stats.walks + t.stats.stlb_hits));
	assert_true(walk_ratio > 0.95);
	assert_int_equal(t.stats.l1_hits + t.stats.stlb_hits + t.stats.walks, n);

	tlb_flush_all(&t);
	run_random(&t, true, &seed, warm);
	memset(&t.stats, 0, sizeof(t.stats));
	run_random(&t, true, &seed, n);
	walk_ratio = (double)t.stats.walks / n;
	print_message("2M: walks/access %.6f, L1 hits %.4f\n", walk_ratio,
		      (double)t.stats.l1_hits / n);
	assert_true(walk_ratio < 0.01);
	tlb_destroy(&t);
}

/*
 * A reference TLB written the plain way: each set an array of keys, most
 * recently used first; a flush removes keys and closes the gap.  The model
 * must give the same result for every access of a random mix of
 * accesses and flushes.
 */
struct ref_array {
	uint64_t keys[128][16];		/* [set][rank], 0: empty */
	uint32_t nr_sets, ways;
};

struct ref_tlb {
	struct ref_array l1_4k, l1_2m, stlb;
};

static void ref_init(struct ref_array *a, uint32_t entries, uint32_t ways)
{
	memset(a, 0, sizeof(*a));
	a->nr_sets = entries / ways;
	a->ways = ways;
}

/* Move to front on a hit, insert at the front on a miss. */
static bool ref_touch(struct ref_array *a, uint64_t key, uint64_t vpn)
{
	uint64_t *set = a->keys[vpn % a->nr_sets];
	uint32_t i;

	for (i = 0; i < a->ways - 1 && set[i] != key; i++)
		;
	bool hit = set[i] == key;

	memmove(set + 1, set, i * sizeof(*set));
	set[0] = key;
	return hit;
}

static unsigned int ref_remove_if(struct ref_array *a, int asid, uint64_t key)
{
	unsigned int nr = 0;

	for (uint32_t s = 0; s < a->nr_sets; s++) {
		uint64_t *set = a->keys[s];
		uint32_t kept = 0;

		for (uint32_t i = 0; i < a->ways; i++) {
			bool go = set[i] && (key ? set[i] == key :
					     asid < 0 || tlb_key_asid(set[i]) == asid);
			if (go)
				nr++;
			else
				set[kept++] = set[i];
		}
		while (kept < a->ways)
			set[kept++] = 0;
	}
	return nr;
}

static enum tlb_result ref_access(struct ref_tlb *r, uint16_t asid,
				  uint64_t vaddr, bool huge)
{
	uint64_t vpn = tlb_vpn(vaddr, huge), key = tlb_key(asid, vpn, huge);

	if (ref_touch(huge ? &r->l1_2m : &r->l1_4k, key, vpn))
		return TLB_L1_HIT;
	return ref_touch(&r->stlb, key, vpn) ? TLB_STLB_HIT : TLB_WALK;
}

static unsigned int ref_flush_one(struct ref_tlb *r, uint16_t asid,
				  uint64_t vaddr)
{
	uint64_t k4 = tlb_key(asid, tlb_vpn(vaddr, false), false);
	uint64_t k2 = tlb_key(asid, tlb_vpn(vaddr, true), true);

	return ref_remove_if(&r->l1_4k, 0, k4) + ref_remove_if(&r->l1_2m, 0, k2) +
	       ref_remove_if(&r->stlb, 0, k4) + ref_remove_if(&r->stlb, 0, k2);
}

static unsigned int ref_flush_asid(struct ref_tlb *r, int asid)
{
	return ref_remove_if(&r->l1_4k, asid, 0) +
	       ref_remove_if(&r->l1_2m, asid, 0) +
	       ref_remove_if(&r->stlb, asid, 0);
}

static void differential(const struct tlb_geometry *g, uint64_t nr_pages,
			 uint64_t steps, uint64_t seed)
{
	static struct ref_tlb ref;
	struct tlb t;

	assert_int_equal(tlb_init(&t, g), 0);
	ref_init(&ref.l1_4k, g->l1_4k_entries, g->l1_4k_ways);
	ref_init(&ref.l1_2m, g->l1_2m_entries, g->l1_2m_ways);
	ref_init(&ref.stlb, g->stlb_entries, g->stlb_ways);

	for (uint64_t i = 0; i < steps; i++) {
		uint64_t x = rng_next(&seed);
		uint16_t asid = 1 + (x >> 8) % 3;
		bool huge = (x >> 12) % 4 == 0;
		uint64_t vaddr = ((x >> 16) % nr_pages) * SZ_4K + (x >> 40) % SZ_4K;
		unsigned int op = x % 64, got, want;

		if (op == 0) {
			got = tlb_flush_asid(&t, asid);
			want = ref_flush_asid(&ref, asid);
		} else if (op == 1) {
			got = tlb_flush_all(&t);
			want = ref_flush_asid(&ref, -1);
		} else if (op < 8) {
			got = tlb_flush_one(&t, asid, vaddr);
			want = ref_flush_one(&ref, asid, vaddr);
		} else {
			got = tlb_access(&t, asid, vaddr, huge);
			want = ref_access(&ref, asid, vaddr, huge);
		}
		if (got != want)
			fail_msg("step %llu op %u: model %u, reference %u",
				 (unsigned long long)i, op, got, want);
		if (i % 256 == 0)
			check_tlb(&t);
	}
	check_tlb(&t);
	tlb_destroy(&t);
}

static void test_differential(void **state)
{
	struct tlb_geometry g = tiny;

	/* Pages over 8 x 2M, so 4K and 2M entries share sets. */
	differential(&tiny, 8 * 512, 200000, 1);
	differential(&skylake, 8 * 512, 200000, 2);
	g.l1_4k_entries = 16;		/* fully associative, 16 ways */
	g.l1_4k_ways = 16;
	g.stlb_entries = 16;
	g.stlb_ways = 1;		/* direct mapped */
	differential(&g, 64, 200000, 3);
}

/* Three cache levels and a vCPU's path through them (L2 and L3 16-way). */
struct cache_rig {
	struct cache_array l1, l2, l3;
	struct cache_path p;
};

static void cache_rig_init(struct cache_rig *r, uint64_t l1_kib, uint32_t l1_ways,
			   uint64_t l2_kib, uint64_t l3_kib)
{
	assert_int_equal(cache_array_init(&r->l1, l1_kib, l1_ways), 0);
	assert_int_equal(cache_array_init(&r->l2, l2_kib, 16), 0);
	assert_int_equal(cache_array_init(&r->l3, l3_kib, 16), 0);
	r->p = (struct cache_path){ .l1 = &r->l1, .l2 = &r->l2, .l3 = &r->l3,
				    .cycles = { 4, 12, 44, 224 } };
}

static void cache_rig_destroy(struct cache_rig *r)
{
	cache_array_destroy(&r->l1);
	cache_array_destroy(&r->l2);
	cache_array_destroy(&r->l3);
}

/*
 * Three levels, all 16-way: L1 1 KiB (16 lines, one set), L2 2 KiB (two
 * sets), L3 4 KiB (four sets).  Lines 0..16 share one 4K frame, so a
 * line's set is its number modulo the number of sets (cache_set()).
 */
static void test_cache_levels(void **state)
{
	struct cache_rig r;
	struct cache_path *const p = &r.p;
	uint64_t line;

	(void)state;
	cache_rig_init(&r, 1, 16, 2, 4);
	assert_int_equal(r.l2.a.nr_sets, 2);
	/* 17 new lines: all from DRAM; L1 keeps the last 16, L2 all 17 (9 + 8). */
	for (line = 0; line <= 16; line++)
		assert_int_equal(cache_load(p, line), CACHE_DRAM);
	assert_int_equal(cache_load(p, 0), CACHE_L2);	/* L1 dropped it; refills it, drops 1 */
	assert_int_equal(cache_load(p, 16), CACHE_L1);
	assert_int_equal(cache_load_cycles(p, 1), 12);	/* from L2 again */
	assert_int_equal(p->loads[CACHE_L1], 1);
	assert_int_equal(p->loads[CACHE_L2], 2);
	assert_int_equal(p->loads[CACHE_L3], 0);
	assert_int_equal(p->loads[CACHE_DRAM], 17);
	/*
	 * Nine more even lines overfill L2's set 0 (9 + 9 > 16): its two least
	 * recent, lines 2 and 4, go (line 0 was loaded again above).  Line 2
	 * left L1 long ago and L3's set 2 still has room: it comes from L3.
	 */
	for (line = 18; line <= 34; line += 2)
		cache_load(p, line);
	assert_int_equal(cache_load(p, 2), CACHE_L3);
	assert_int_equal(cache_load(p, 4), CACHE_L3);
	cache_rig_destroy(&r);
}

/*
 * cache_fill(): the kernel's store leaves the line where a load would
 * (most recent in L1D, and in L2 when it missed there) and counts no
 * load; a line in L2 is not filled again into L3.
 */
static void test_cache_fill(void **state)
{
	struct cache_rig r;
	uint64_t line;

	(void)state;
	cache_rig_init(&r, 1, 16, 2, 4);
	for (line = 0; line <= 16; line++)
		cache_fill(&r.p, line);
	assert_int_equal(cache_path_nr_loads(&r.p), 0);
	assert_int_equal(cache_load(&r.p, 16), CACHE_L1);
	assert_int_equal(cache_load(&r.p, 0), CACHE_L2);	/* the 17th fill pushed it out of L1 */
	assert_int_equal(r.p.loads[CACHE_DRAM], 0);
	cache_rig_destroy(&r);
}

/* Geometry checks, and a number of sets that is not a power of two. */
static void test_cache_geometry(void **state)
{
	struct cache_array c;

	(void)state;
	assert_int_equal(cache_array_init(&c, 1, 3), -EINVAL);	/* 16 lines in 3 ways */
	assert_int_equal(cache_array_init(&c, 1, 17), -EINVAL);	/* more than 16 ways */
	assert_int_equal(cache_array_init(&c, 0, 8), -EINVAL);
	assert_int_equal(cache_array_init(&c, 11, 11), 0);		/* 176 lines: 16 sets */
	assert_int_equal(c.a.nr_sets, 16);
	assert_int_equal(c.mask, 15);
	cache_array_destroy(&c);
	assert_int_equal(cache_array_init(&c, 5, 16), 0);		/* 80 lines: 5 sets */
	assert_int_equal(c.a.nr_sets, 5);
	assert_int_equal(c.mask, 0);
	/* Lines 0..4 of one frame fall in sets 0..4: each fills one set's first way. */
	for (uint64_t line = 0; line < 5; line++)
		assert_false(cache_array_touch(&c, line));
	for (uint64_t s = 0; s < 5; s++)
		assert_int_equal(__builtin_popcount(c.a.sets[s].free_ways), 15);
	cache_array_destroy(&c);
}

/*
 * A flush visits only the sets a->used marks, one bit for every set of its
 * number modulo TLB_USED_BITS (256): sets 3, 259 and 515 share bit 3.
 * The bit stays while any of them holds an entry, and the flush that
 * empties them all clears it.
 */
static void test_flush_used_sets(void **state)
{
	struct tlb_array a;
	const uint64_t sets[] = { 3, 259, 515, 7 };
	const uint16_t asids[] = { 1, 1, 2, 2 };
	unsigned int i;

	(void)state;
	assert_int_equal(tlb_array_alloc(&a, 1024, 2), 0);
	assert_int_equal(a.used[0], 0);
	for (i = 0; i < 4; i++)
		assert_false(tlb_array_touch_mru(&a, tlb_key(asids[i], sets[i], false), sets[i],
						 true));
	assert_int_equal(a.used[0], (1ULL << 3) | (1ULL << 7));
	assert_int_equal(a.used[1] | a.used[2] | a.used[3], 0);
	/* ASID 1 is in sets 3 and 259; set 515 (bit 3 too) keeps ASID 2's. */
	assert_int_equal(tlb_array_flush_asid(&a, 1), 2);
	assert_int_equal(a.used[0], (1ULL << 3) | (1ULL << 7));
	assert_int_equal(a.sets[3].free_ways, 3);
	assert_int_equal(a.sets[259].free_ways, 3);
	assert_int_equal(a.sets[515].free_ways, 2);
	assert_int_equal(tlb_array_flush_asid(&a, 1), 0);
	assert_int_equal(tlb_array_flush_asid(&a, 2), 2);
	assert_int_equal(a.used[0], 0);
	assert_int_equal(a.sets[515].free_ways, 3);
	assert_int_equal(a.sets[7].free_ways, 3);
	assert_int_equal(tlb_array_flush_asid(&a, 2), 0);
	/* Emptied sets take keys again and are found by the next flush. */
	assert_false(tlb_array_touch_mru(&a, tlb_key(2, 515, false), 515, true));
	assert_true(tlb_array_touch_mru(&a, tlb_key(2, 515, false), 515, true));
	assert_int_equal(tlb_array_flush_asid(&a, 2), 1);
	tlb_array_free(&a);
}

/*
 * tlb_array_touch_recent() must be tlb_array_touch_mru() exactly: the same
 * answer and afterwards the same keys, tag bytes, LRU order and invalid
 * ways, on a random mix of lookups (keys from a pool small enough that
 * the rank-1 shortcut is taken often) and flushes.  One way (where nibble
 * 1 of the order is unused), 4 ways in 2 sets, 16 ways in one set.
 */
static void test_touch_recent(void **state)
{
	const uint32_t geo[][2] = { { 1, 1 }, { 2, 4 }, { 1, 16 } };	/* sets, ways */
	uint64_t rng = 7, nr_rank1 = 0;

	(void)state;
	for (unsigned int g = 0; g < 3; g++) {
		struct tlb_array a, b;
		uint32_t nr_sets = geo[g][0], ways = geo[g][1];

		assert_int_equal(tlb_array_alloc(&a, nr_sets, ways), 0);
		assert_int_equal(tlb_array_alloc(&b, nr_sets, ways), 0);
		for (unsigned int i = 0; i < 20000; i++) {
			uint64_t vpn, key, s;

			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			vpn = (rng >> 33) % (ways * nr_sets + 3);
			key = tlb_key((uint16_t)(1 + (rng >> 60) % 2), vpn, false);
			s = vpn % nr_sets;
			if ((rng >> 40) % 500 == 0) {
				assert_int_equal(tlb_array_flush_asid(&a, 1),
						 tlb_array_flush_asid(&b, 1));
				continue;
			}
			nr_rank1 += ways > 1 && a.keys[s * ways + ((a.sets[s].order >> 4) & 15)] == key;
			assert_int_equal(tlb_array_touch_recent(&a, key, s),
					 tlb_array_touch_mru(&b, key, s, true));
			assert_int_equal(a.sets[s].order, b.sets[s].order);
			assert_int_equal(a.sets[s].free_ways, b.sets[s].free_ways);
			assert_memory_equal(a.sets[s].tag, b.sets[s].tag, sizeof(a.sets[s].tag));
			assert_memory_equal(a.sets[s].keys, b.sets[s].keys, ways * sizeof(uint64_t));
		}
		assert_memory_equal(a.used, b.used, sizeof(a.used));
		tlb_array_free(&a);
		tlb_array_free(&b);
	}
	assert_true(nr_rank1 > 1000);
}

/*
 * The L1D's lookup, on an L1D of 4 sets of 4 ways indexed in the page
 * (lines 0, 4, 8, 12, 16: set 0): a hit at the MRU place, a hit below it
 * that makes it the MRU, and a miss that drops the LRU line (4), which L2
 * (one set of 16 ways for these lines) still holds.
 */
static void test_cache_l1_lru(void **state)
{
	struct cache_array l1, l2, l3;
	struct cache_path p = { .l1 = &l1, .l2 = &l2, .l3 = &l3, .cycles = { 4, 12, 44, 224 } };

	(void)state;
	assert_int_equal(cache_array_init(&l1, 1, 4), 0);	/* 16 lines: 4 sets */
	assert_int_equal(l1.page_mask, 3);
	assert_int_equal(cache_array_init(&l2, 4, 16), 0);
	assert_int_equal(cache_array_init(&l3, 16, 16), 0);
	assert_int_equal(cache_load(&p, 0), CACHE_DRAM);
	assert_int_equal(cache_load(&p, 0), CACHE_L1);		/* the MRU */
	assert_int_equal(cache_load(&p, 4), CACHE_DRAM);
	assert_int_equal(cache_load(&p, 0), CACHE_L1);		/* not the MRU */
	assert_int_equal(cache_load(&p, 8), CACHE_DRAM);
	assert_int_equal(cache_load(&p, 12), CACHE_DRAM);
	assert_int_equal(cache_load(&p, 16), CACHE_DRAM);	/* drops line 4, the LRU */
	assert_int_equal(cache_load(&p, 0), CACHE_L1);
	assert_int_equal(cache_load(&p, 4), CACHE_L2);
	cache_array_destroy(&l1);
	cache_array_destroy(&l2);
	cache_array_destroy(&l3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry_rejected),
		cmocka_unit_test(test_trace_lru),
		cmocka_unit_test(test_asid_tagging),
		cmocka_unit_test(test_huge_covers_range),
		cmocka_unit_test(test_flush_one),
		cmocka_unit_test(test_flush_asid),
		cmocka_unit_test(test_flush_range_ceiling),
		cmocka_unit_test(test_walk_cost_2d),
		cmocka_unit_test(test_reach_skylake),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_cache_levels),
		cmocka_unit_test(test_cache_fill),
		cmocka_unit_test(test_cache_geometry),
		cmocka_unit_test(test_flush_used_sets),
		cmocka_unit_test(test_cache_l1_lru),
		cmocka_unit_test(test_touch_recent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
