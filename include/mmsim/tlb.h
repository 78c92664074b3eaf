/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A per-CPU data TLB, Intel style: an L1 dTLB for 4K pages, an L1 dTLB for
 * 2M pages and a second-level TLB (STLB) shared by both sizes, each
 * set-associative with true LRU replacement, tagged by address space
 * (PCID).  See src/hw/tlb.c for what is modelled and docs/tlb.md for the
 * formulas and their sources.
 *
 * This module depends only on the C library: the caller turns the cycles
 * that tlb_access() reports into virtual time.
 *
 * The hot path, tlb_lookup() (and tlb_access(), which counts), is inline,
 * STLB included: with random accesses over more than the STLB's reach, the
 * "slow" path is the common one, and a call cost 15% of an access.  The
 * L1s keep their keys in LRU order (struct tlb_l1), the STLB tag bytes and
 * LRU nibbles (struct tlb_array).  Set-up, walk costs and flushes are in
 * src/hw/tlb.c.
 */
#ifndef MMSIM_TLB_H
#define MMSIM_TLB_H

#include <stdbool.h>
#include <stdint.h>
#if defined(__SSE2__) && !defined(TLB_NO_SIMD)
#include <emmintrin.h>
#endif

#define TLB_PAGE_SHIFT		12	/* 4K */
#define TLB_HPAGE_SHIFT		21	/* 2M */
#define TLB_VADDR_BITS		57	/* LA57: addresses are taken modulo 2^57 */
#define TLB_MAX_WAYS		16	/* ways per set: 4-bit way numbers */

/* Levels of a native x86-64 walk for a 4K page (PML4, PDPT, PD, PT). */
#define TLB_WALK_LEVELS		4

/*
 * The machine's TLB description, as in a profile's [tlb] section.
 * Every array must have a power-of-two number of sets (entries / ways).
 */
struct tlb_geometry {
	uint32_t l1_4k_entries;		/* L1 dTLB entries for 4K pages */
	uint32_t l1_4k_ways;		/* ... and its associativity */
	uint32_t l1_2m_entries;		/* L1 dTLB entries for 2M pages */
	uint32_t l1_2m_ways;		/* ... and its associativity */
	uint32_t stlb_entries;		/* STLB entries, shared by 4K and 2M */
	uint32_t stlb_ways;		/* ... and its associativity */
	uint32_t stlb_hit_cycles;	/* L1 miss that hits the STLB */
	uint32_t walk_cycles;		/* native 4-level walk, entries in cache */
	uint32_t walk_dims;		/* 1 native, 2 nested (EPT/NPT) walk */
	uint32_t page_walkers;		/* page walks in flight at once */
};

/* What one access did. */
enum tlb_result {
	TLB_L1_HIT = 0,			/* L1 dTLB hit: no extra cycles */
	TLB_STLB_HIT = 1,		/* L1 miss, STLB hit: L1 filled */
	TLB_WALK = 2,			/* STLB miss: page walk, STLB and L1 filled */
	TLB_NR_RESULTS
};

/*
 * Counters of one TLB.  They are never reset by the model; the caller
 * may clear them with memset.
 *
 *   l1_hits + stlb_hits + walks == number of tlb_access() calls
 *   walks == dtlb_load_misses as perf counts it on Skylake
 *            (DTLB_LOAD_MISSES.WALK_COMPLETED: one per completed walk)
 *   flushes == flush_all + flush_asid + flush_one
 */
struct tlb_stats {
	uint64_t l1_hits;		/* accesses that hit an L1 dTLB */
	uint64_t stlb_hits;		/* L1 misses that hit the STLB */
	uint64_t walks;			/* STLB misses = page walks = dtlb_load_misses */
	uint64_t walk_cycles;		/* sum of the cost of those walks */
	uint64_t flushes;		/* flush operations of any kind */
	uint64_t flush_all;		/* tlb_flush_all(): every PCID */
	uint64_t flush_asid;		/* full flushes of one PCID */
	uint64_t flush_one;		/* single-page flushes (INVLPG) */
	uint64_t flushed_entries;	/* entries removed by all flushes */
	uint64_t dirty_assists;		/* stores through a clean entry (tlb_entry_set_dirty()) */
};

/*
 * Which entries were filled clean: the keys whose last fill found the page
 * not writable or its dirty bit clear (SDM vol. 3A 4.8: a store through
 * such an entry must set the dirty bit in memory first).  This is each
 * entry's own dirty bit, kept beside the arrays rather than in them, so
 * that the lookup of struct tlb_l1 and struct tlb_array is unchanged: a
 * fill happens only when neither the L1 nor the STLB holds the key, so an
 * entry that is present always comes from the last fill of its key (or
 * the last store that set its dirty bit), which wrote the key's record
 * here.  A record outlives its entry (an eviction or a flush leaves it),
 * which does no harm: it is read only on a hit, and the next fill of the
 * key rewrites it.
 *
 * An open-addressing set of keys with linear probing:
 *   keys[] has mask + 1 slots, a power of two, key 0 for an empty slot
 *   a key sits at its home slot (tlb_clean_home()) or after it, with no
 *     empty slot between the two
 *   nr == the keys held; 2 * nr <= mask + 1
 *   mask == 0 and keys == NULL before the first record
 */
struct tlb_clean {
	uint64_t *keys;			/* the set, by slot */
	uint64_t mask;			/* slots - 1 */
	uint32_t shift;			/* 64 - log2(slots) */
	uint64_t nr;			/* keys held */
};

/*
 * The bookkeeping of one set: which way holds what, in LRU order.
 *
 * @tag holds one byte per way (also readable as two words, @tags): a
 * hash of the way's key, never 0, or 0 if the way is invalid.  A lookup
 * compares all of them at once (SSE2, or SWAR without it) and checks the
 * full key only where a byte matches.  Both give the same answers.  @order holds the way numbers, one per 4-bit nibble, most
 * recently used in nibble 0 and least recently used in nibble ways - 1.
 *
 *   nibbles 0 .. ways-1 of order are a permutation of 0 .. ways-1;
 *     the other nibbles are 0
 *   tag byte i == tlb_tag(keys[i]) if keys[i] is valid, else 0;
 *     the tag bytes past the last way are 0
 *   no valid key appears twice in one set
 *   free_ways == a bit for each way i < ways whose key is 0
 *   keys == the array's keys + set number * ways (saves a multiply)
 *
 * A flush only clears keys and tag bytes: invalid ways may sit anywhere
 * in @order.  A fill takes an invalid way if there is one (which one does
 * not matter: they are all alike) and the LRU way otherwise, so the valid
 * entries see exactly the LRU of a TLB that moves flushed ways to the end.
 */
struct tlb_set {
	union {
		uint8_t tag[16];	/* tag byte per way, 0: invalid */
		uint64_t tags[2];	/* the same, as two words */
	};
	uint64_t order;			/* way numbers, MRU first, 4 bits each */
	uint64_t *keys;			/* this set's keys, by way */
	uint32_t free_ways;		/* a bit per invalid way */
};

/*
 * The sets of an array whose emptiness struct tlb_array tracks, one bit
 * each (a bit stands for every set of its number modulo this), so that a
 * flush visits only the sets that may hold an entry.
 */
#define TLB_USED_BITS	256

/*
 * One set-associative array with true LRU replacement.
 *
 *   nr_sets == set_mask + 1, a power of two (tlb_init()), or any number
 *     with set_mask all ones (tlb_array_alloc(): the caller picks the set)
 *   keys of set s are keys[s * ways .. s * ways + ways - 1], by way
 *   lru_shift == 4 * (ways - 1)
 *   way_mask == (1 << ways) - 1
 *   bit b of used clear => every set s with s % TLB_USED_BITS == b is
 *     empty (a fill into an invalid way sets it, a flush that empties
 *     them clears it)
 */
struct tlb_array {
	struct tlb_set *sets;		/* nr_sets sets */
	uint64_t *keys;			/* nr_sets * ways keys, by way */
	uint64_t set_mask;		/* nr_sets - 1, or all ones */
	uint64_t nr_sets;		/* number of sets */
	uint64_t order_mask;		/* the nibbles 0 .. ways-1 of an order */
	uint32_t ways;			/* associativity, 1 .. TLB_MAX_WAYS */
	uint32_t lru_shift;		/* bit offset of the LRU nibble */
	uint32_t way_mask;		/* a bit per way */
	uint64_t used[TLB_USED_BITS / 64]; /* bit s % TLB_USED_BITS clear: set s is empty */
};

/*
 * An L1 dTLB: a small set-associative array with true LRU replacement
 * whose sets keep their keys in LRU order.
 *
 *   keys of set s are keys[s * ways .. s * ways + ways - 1], most recently
 *     used first
 *   a set's valid keys come first, then its invalid ways (key 0)
 *   no valid key appears twice in one set
 *   set_mask + 1 sets, a power of two (tlb_l1_entries() keys in all)
 *
 * A lookup compares every key of the set and moves the one it finds (or
 * the new key, on a miss) to the front; the others move down one place,
 * and on a miss the last key drops out, which is an invalid way if the set
 * has one.  A flush removes keys and closes the gaps, so invalid ways are
 * always last: the LRU of a TLB that moves flushed ways to the end, as
 * struct tlb_set has it.  The STLB keeps struct tlb_array: with 12 ways,
 * moving keys costs more than its tag bytes and LRU nibbles do.  Why the
 * L1s are laid out this way: tlb_l1_touch().
 */
struct tlb_l1 {
	uint64_t *keys;			/* nr_sets * ways keys, LRU order per set */
	uint64_t set_mask;		/* number of sets - 1 */
	uint32_t ways;			/* associativity, 1 .. TLB_MAX_WAYS */
};

/* The number of keys (entries) of an L1. */
static inline uint64_t tlb_l1_entries(const struct tlb_l1 *l)
{
	return (l->set_mask + 1) * l->ways;
}

/*
 * A per-CPU TLB.
 *
 *   an entry of l1_4k is 4K, of l1_2m is 2M; stlb holds both
 *   cost[r][huge] == extra cycles of result r for a page of that size
 *   walk_cost[huge] == cost[TLB_WALK][huge] - cost[TLB_STLB_HIT][huge]
 */
struct tlb {
	struct tlb_l1 l1_4k;		/* L1 dTLB, 4K pages */
	struct tlb_l1 l1_2m;		/* L1 dTLB, 2M pages */
	struct tlb_array stlb;		/* second-level TLB, 4K and 2M */
	struct tlb_geometry geo;	/* as given to tlb_init() */
	uint32_t cost[TLB_NR_RESULTS][2]; /* cycles per result, [4K, 2M] */
	uint32_t walk_cost[2];		/* tlb_walk_cost(), [4K, 2M] */
	struct tlb_stats stats;		/* counters */
	struct tlb_clean clean;		/* the entries filled clean */
};

/*
 * A key packs the tag of an entry into one word:
 *   bits 63..18  virtual page number (of the page's own size)
 *   bit  17      1 for a 2M page
 *   bit  16      valid
 *   bits 15..0   the address space (PCID / ASID), the low 16-bit lane of
 *                the key, so that a flush compares them with SIMD
 */
#define TLB_KEY_VALID		(1ULL << 16)
#define TLB_KEY_HUGE		(1ULL << 17)
#define TLB_KEY_ASID_SHIFT	0
#define TLB_KEY_VPN_SHIFT	18

static inline uint64_t tlb_vpn(uint64_t vaddr, bool huge)
{
	uint64_t va = vaddr & ((1ULL << TLB_VADDR_BITS) - 1);

	return va >> (huge ? TLB_HPAGE_SHIFT : TLB_PAGE_SHIFT);
}

static inline uint64_t tlb_key(uint16_t asid, uint64_t vpn, bool huge)
{
	return (vpn << TLB_KEY_VPN_SHIFT) | (huge ? TLB_KEY_HUGE : 0) |
	       ((uint64_t)asid << TLB_KEY_ASID_SHIFT) | TLB_KEY_VALID;
}

static inline uint16_t tlb_key_asid(uint64_t key)
{
	return (uint16_t)(key >> TLB_KEY_ASID_SHIFT);
}

#define TLB_ONES8	0x0101010101010101ULL
#define TLB_ONES4	0x1111111111111111ULL

/* The tag byte of a valid key: a hash in 1 .. 255. */
static inline uint64_t tlb_tag(uint64_t key)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ULL) >> 56;

	return h + !h;
}

/* The high bit of each byte of @x that is zero (exact, no false hits). */
static inline uint64_t tlb_zero_bytes(uint64_t x)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;

	return ~(((x & low7) + low7) | x | low7);
}

/* The high bit of each nibble of @x that is zero (exact). */
static inline uint64_t tlb_zero_nibbles(uint64_t x)
{
	const uint64_t low3 = 0x7777777777777777ULL;

	return ~(((x & low3) + low3) | x | low3);
}

/* The rank (0: MRU) of way @w in @order. */
static inline unsigned int tlb_order_rank(uint64_t order, unsigned int w)
{
	/* Unused high nibbles are 0 and may match w == 0: take the lowest. */
	return (unsigned int)__builtin_ctzll(tlb_zero_nibbles(order ^
							      (w * TLB_ONES4))) >> 2;
}

/* @order with way @w, now at rank @rank, moved to rank 0. */
static inline uint64_t tlb_order_to_front(uint64_t order, unsigned int rank,
					  unsigned int w)
{
	uint64_t below = (1ULL << (4 * rank)) - 1;	/* ranks < rank */
	uint64_t above = ~0ULL << (4 * rank) << 4;	/* ranks > rank */

	return (order & above) | ((order & below) << 4) | w;
}

/* A bit per way whose tag byte equals @tag. */
static inline uint32_t tlb_set_match(const struct tlb_set *set, uint64_t tag)
{
#if defined(__SSE2__) && !defined(TLB_NO_SIMD)
	__m128i v = _mm_loadu_si128((const __m128i *)set->tag);

	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v,
					_mm_set1_epi8((char)tag)));
#else
	uint64_t lo = tlb_zero_bytes(set->tags[0] ^ (tag * TLB_ONES8));
	uint64_t hi = tlb_zero_bytes(set->tags[1] ^ (tag * TLB_ONES8));

	/* Gather the high bit of each byte into one bit per byte. */
	lo = ((lo >> 7) * 0x0102040810204080ULL) >> 56;
	hi = ((hi >> 7) * 0x0102040810204080ULL) >> 56;
	return (uint32_t)(lo | hi << 8);
#endif
}

/* The way whose tag byte equals @tag and whose key is @key, or -1. */
static inline int tlb_set_find(const struct tlb_set *set, const uint64_t *keys,
			       uint64_t key, uint64_t tag)
{
	uint32_t m = tlb_set_match(set, tag);

	while (m) {
		int w = __builtin_ctz(m);

		if (keys[w] == key)
			return w;
		m &= m - 1;
	}
	return -1;
}

/*
 * Look @key up in its set and make it the most recently used entry; on a
 * miss, put it in an invalid way if there is one, else in the least
 * recently used way, which becomes the most recently used.
 * Returns true on a hit.
 *
 * With @try_mru, the set's most recently used key is compared first: a
 * hit there changes nothing.  That pays in the STLB, where a working set
 * that fits it (P3's 64 huge pages) hits the MRU entry of its set almost
 * every time, but not in a 4-way L1, where a random access finds its key
 * at the MRU position one time in four and the branch mispredicts
 * (bench/bench_tlb.c: 9.2 -> 6.9 ns per L1-resident access without it).
 */
static inline __attribute__((always_inline))
bool tlb_array_touch_mru(struct tlb_array *a, uint64_t key, uint64_t vpn,
			 bool try_mru)
{
	uint64_t s = vpn & a->set_mask;
	struct tlb_set *set = &a->sets[s];
	uint64_t *keys = set->keys;
	uint64_t order = set->order, tag;
	unsigned int w;
	int hit;

	if (try_mru && keys[order & 15] == key)
		return true;			/* already the MRU */
	tag = tlb_tag(key);
	hit = tlb_set_find(set, keys, key, tag);
	if (hit >= 0) {
		w = (unsigned int)hit;
		set->order = tlb_order_to_front(order, tlb_order_rank(order, w), w);
		return true;
	}
	if (__builtin_expect(set->free_ways != 0, 0)) {
		/* An invalid way: after a flush, or while the set fills. */
		w = (unsigned int)__builtin_ctz(set->free_ways);
		set->free_ways &= set->free_ways - 1;
		a->used[(s / 64) % (TLB_USED_BITS / 64)] |= 1ULL << (s % 64);
		set->order = tlb_order_to_front(order, tlb_order_rank(order, w), w);
	} else {
		w = (unsigned int)(order >> a->lru_shift) & 15;
		set->order = ((order << 4) & a->order_mask) | w;
	}
	keys[w] = key;
	set->tag[w] = (uint8_t)tag;
	return false;
}

/*
 * tlb_array_touch_mru() with the MRU shortcut and a second one: the key at
 * rank 1 moves to the front by swapping the first two nibbles of the
 * order (tlb_order_to_front() for rank 1).  It pays where two keys take
 * turns in one set, as a nested walk's entries do in the L1D and the
 * EPT's PDPTE cache; a miss pays two more compares.  With one way, nibble
 * 1 is 0 and names way 0, whose key the first compare has seen.
 */
static inline __attribute__((always_inline))
bool tlb_array_touch_recent(struct tlb_array *a, uint64_t key, uint64_t vpn)
{
	struct tlb_set *set = &a->sets[vpn & a->set_mask];
	uint64_t order = set->order;
	unsigned int w1 = (unsigned int)(order >> 4) & 15;

	if (set->keys[order & 15] == key)
		return true;
	if (set->keys[w1] == key) {
		set->order = (order & ~0xffULL) | (order & 15) << 4 | w1;
		return true;
	}
	return tlb_array_touch_mru(a, key, vpn, false);
}

/* tlb_array_touch_mru() with the MRU shortcut, as the STLB uses it. */
static inline __attribute__((always_inline))
bool tlb_array_touch(struct tlb_array *a, uint64_t key, uint64_t vpn)
{
	return tlb_array_touch_mru(a, key, vpn, true);
}

/* The key at LRU rank @rank (0: MRU) of set @s, 0 if invalid. */
static inline uint64_t tlb_array_key_at(const struct tlb_array *a, uint64_t s,
					unsigned int rank)
{
	unsigned int w = (unsigned int)(a->sets[s].order >> (4 * rank)) & 15;

	return a->keys[s * a->ways + w];
}

/* Is @key the most recently used key of its STLB set?  Reads only. */
static inline bool tlb_array_is_mru(const struct tlb_array *a, uint64_t key, uint64_t vpn)
{
	const struct tlb_set *set = &a->sets[vpn & a->set_mask];

	return set->keys[set->order & 15] == key;
}

/* The L1 associativity whose lookup is unrolled (Skylake's L1 dTLBs). */
#define TLB_L1_UNROLLED_WAYS	4

/* The place of @key among the @ways keys of set @k (0: MRU), or @ways. */
static inline __attribute__((always_inline))
unsigned int tlb_l1_find(const uint64_t *k, uint64_t key, unsigned int ways)
{
	unsigned int m = 1u << ways, i;

#if defined(__SSE2__) && !defined(TLB_NO_SIMD)
	if (ways == TLB_L1_UNROLLED_WAYS) {
		/* Two keys per compare; a key matches where both halves do. */
		__m128i want = _mm_set1_epi64x((long long)key);
		__m128i lo = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)k), want);
		__m128i hi = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(k + 2)), want);

		lo = _mm_and_si128(lo, _mm_shuffle_epi32(lo, _MM_SHUFFLE(2, 3, 0, 1)));
		hi = _mm_and_si128(hi, _mm_shuffle_epi32(hi, _MM_SHUFFLE(2, 3, 0, 1)));
		m |= (unsigned int)_mm_movemask_pd(_mm_castsi128_pd(lo)) |
		     (unsigned int)_mm_movemask_pd(_mm_castsi128_pd(hi)) << 2;
		return (unsigned int)__builtin_ctz(m);
	}
#endif
	for (i = 0; i < ways; i++)
		m |= (unsigned int)(k[i] == key) << i;
	return (unsigned int)__builtin_ctz(m);
}

/*
 * tlb_l1_touch() for @ways ways, a constant where the caller can make it
 * one (the loops unroll).  With @mixed, hits and misses are expected to
 * alternate, so nothing branches on the outcome: each key below the
 * found place (all of them on a miss) moves down through a mask.
 * Without it, a miss takes a branch that moves all keys down, and only a
 * hit goes through the masks.
 */
static inline __attribute__((always_inline))
bool tlb_l1_touch_ways(struct tlb_l1 *l, uint64_t key, uint64_t vpn, unsigned int ways,
		       bool mixed)
{
	uint64_t *k = l->keys + (vpn & l->set_mask) * ways;
	uint64_t above, seen = 0;
	unsigned int i;

	if (!mixed && tlb_l1_find(k, key, ways) == ways) {
		for (i = ways - 1; i > 0; i--)
			k[i] = k[i - 1];
		k[0] = key;
		return false;
	}
	/*
	 * Way i takes the key above it unless @key was found above it: @seen
	 * is all ones once one of the keys 0 .. i-1 (as they were) was @key.
	 */
	above = k[0];
	for (i = 1; i < ways; i++) {
		uint64_t here = k[i];

		seen |= -(uint64_t)(above == key);
		/* Keep the compiler from turning the mask into a branch. */
		__asm__("" : "+r"(seen));
		k[i] = here ^ ((above ^ here) & ~seen);
		above = here;
	}
	k[0] = key;
	return (seen | (above == key)) != 0;
}

/*
 * Look @key up in its L1 set and make it the most recently used key; on a
 * miss it takes the first place and the LRU key (or an invalid way) drops
 * out.  Returns true on a hit.
 *
 * Why keys in LRU order, and @mixed: a random access over 128 MiB of 2M
 * pages finds its entry in the 32-entry L1 one time in two, a coin flip
 * that no branch predictor learns.  The lookup of struct tlb_array
 * branches on the outcome; this one need not, and with the STLB's MRU
 * check done before any branch (tlb_lookup()), bench/bench_tlb.c's 2M case
 * took 7.3 instead of 13.7 ns per access at best (docs/tlb.md, "Host speed").
 * With 4K pages a random access misses almost always, so without @mixed
 * a miss takes a branch that moves every key down, which that branch
 * predicts.  Both shapes leave the same LRU.
 */
static inline __attribute__((always_inline))
bool tlb_l1_touch(struct tlb_l1 *l, uint64_t key, uint64_t vpn, bool mixed)
{
	if (l->ways == TLB_L1_UNROLLED_WAYS)
		return tlb_l1_touch_ways(l, key, vpn, TLB_L1_UNROLLED_WAYS, mixed);
	return tlb_l1_touch_ways(l, key, vpn, l->ways, mixed);
}

/* The key at LRU rank @rank (0: MRU) of L1 set @s, 0 if invalid. */
static inline uint64_t tlb_l1_key_at(const struct tlb_l1 *l, uint64_t s, unsigned int rank)
{
	return l->keys[s * l->ways + rank];
}

/**
 * tlb_lookup - translate one data access through the TLB, uncounted
 * @t: this CPU's TLB
 * @asid: the address space (PCID) the access runs in
 * @vaddr: the virtual address accessed
 * @huge: true if @vaddr is mapped by a 2M page, false for a 4K page
 *
 * Looks the page up in the L1 dTLB of its size, then in the STLB, and
 * walks the page table on an STLB miss, filling the STLB and the L1 with
 * LRU replacement.  Leaves @t->stats alone: the caller counts the outcome
 * with tlb_count() (a loop may count in registers and add once).
 *
 * A 2M access takes the L1 lookup that does not branch on its outcome,
 * and reads the STLB's MRU key before any branch: if the L1 hit, or the
 * STLB would find @key at its MRU place (where a lookup changes
 * nothing), the outcome is known without a branch that depends on it.
 * That is the common case of a working set between the 2M L1's reach and
 * the STLB's (tlb_l1_touch()).
 *
 * Context: any; the TLB belongs to one vCPU.
 * Return: what happened; tlb_cost_cycles() gives its extra cost.
 */
static inline __attribute__((always_inline))
enum tlb_result tlb_lookup(struct tlb *t, uint16_t asid, uint64_t vaddr, bool huge)
{
	uint64_t vpn = tlb_vpn(vaddr, huge);
	uint64_t key = tlb_key(asid, vpn, huge);

	if (huge) {
		bool hit = tlb_l1_touch(&t->l1_2m, key, vpn, true);

		if (__builtin_expect(hit | tlb_array_is_mru(&t->stlb, key, vpn), 1))
			return (enum tlb_result)!hit;	/* TLB_L1_HIT or TLB_STLB_HIT */
	} else if (tlb_l1_touch(&t->l1_4k, key, vpn, false)) {
		return TLB_L1_HIT;
	}
	/* The L1 holds @key now: tlb_l1_touch() filled it on the miss. */
	if (tlb_array_touch(&t->stlb, key, vpn))
		return TLB_STLB_HIT;
	return TLB_WALK;
}

/*
 * Count @nr accesses of outcome @r and page size @huge in @t->stats, as
 * tlb_access() counts each one.  An STLB miss is one dtlb_load_misses.
 */
static inline void tlb_count(struct tlb *t, enum tlb_result r, bool huge, uint64_t nr)
{
	if (r == TLB_L1_HIT) {
		t->stats.l1_hits += nr;
	} else if (r == TLB_STLB_HIT) {
		t->stats.stlb_hits += nr;
	} else {
		t->stats.walks += nr;
		t->stats.walk_cycles += nr * t->walk_cost[huge];
	}
}

/**
 * tlb_access - translate one data access through the TLB, and count it
 * @t: this CPU's TLB
 * @asid: the address space (PCID) the access runs in
 * @vaddr: the virtual address accessed
 * @huge: true if @vaddr is mapped by a 2M page, false for a 4K page
 *
 * tlb_lookup(), with the outcome counted in @t->stats.
 *
 * Context: any; the TLB belongs to one vCPU.
 * Return: what happened; tlb_cost_cycles() gives its extra cost.
 */
static inline enum tlb_result tlb_access(struct tlb *t, uint16_t asid,
					 uint64_t vaddr, bool huge)
{
	enum tlb_result r = tlb_lookup(t, asid, vaddr, huge);

	tlb_count(t, r, huge, 1);
	return r;
}

/**
 * tlb_cost_cycles - extra cycles of one access's outcome
 * @t: the TLB
 * @r: what tlb_access() returned
 * @huge: the page size of that access
 *
 * Context: any.
 * Return: 0 for an L1 hit, stlb_hit_cycles for an STLB hit,
 * stlb_hit_cycles + tlb_walk_cost() for a page walk.
 */
static inline uint32_t tlb_cost_cycles(const struct tlb *t, enum tlb_result r,
				       bool huge)
{
	return t->cost[r][huge];
}

/**
 * tlb_access_cycles - tlb_access() that returns its cost
 * @t: this CPU's TLB
 * @asid: the address space (PCID)
 * @vaddr: the virtual address accessed
 * @huge: true for a 2M page
 *
 * Context: any.
 * Return: the extra cycles of the access, as tlb_cost_cycles().
 */
static inline uint32_t tlb_access_cycles(struct tlb *t, uint16_t asid,
					 uint64_t vaddr, bool huge)
{
	return tlb_cost_cycles(t, tlb_access(t, asid, vaddr, huge), huge);
}

/* Number of tlb_access() calls so far. */
static inline uint64_t tlb_nr_lookups(const struct tlb *t)
{
	return t->stats.l1_hits + t->stats.stlb_hits + t->stats.walks;
}

/* dtlb_load_misses as perf reports it on Intel: completed page walks. */
static inline uint64_t tlb_dtlb_load_misses(const struct tlb *t)
{
	return t->stats.walks;
}

void tlb_clean_insert(struct tlb_clean *c, uint64_t key);
bool tlb_clean_remove(struct tlb_clean *c, uint64_t key);

/* The slot where @key's probe starts. */
static inline uint64_t tlb_clean_home(const struct tlb_clean *c, uint64_t key)
{
	return (key * 0x9e3779b97f4a7c15ULL) >> c->shift;
}

/* Is @key in the set?  Reads only. */
static inline bool tlb_clean_has(const struct tlb_clean *c, uint64_t key)
{
	uint64_t i;

	if (!c->nr)
		return false;
	for (i = tlb_clean_home(c, key); c->keys[i]; i = (i + 1) & c->mask)
		if (c->keys[i] == key)
			return true;
	return false;
}

/**
 * tlb_entry_filled - record whether the entry a walk just filled is dirty
 * @t: this CPU's TLB
 * @asid: the address space (PCID)
 * @vaddr: the address of the access that walked
 * @huge: a 2M entry
 * @dirty: the page is writable and its dirty bit is set (after the walk)
 *
 * Call after every completed walk (tlb_lookup() returned TLB_WALK and the
 * walk found a mapping).  A store through an entry filled clean sets the
 * dirty bit first (tlb_entry_clean(), tlb_entry_set_dirty()).
 * Context: any; the TLB belongs to one vCPU.
 */
static inline void tlb_entry_filled(struct tlb *t, uint16_t asid, uint64_t vaddr, bool huge,
				    bool dirty)
{
	uint64_t key = tlb_key(asid, tlb_vpn(vaddr, huge), huge);

	if (!dirty)
		tlb_clean_insert(&t->clean, key);
	else if (t->clean.nr)
		tlb_clean_remove(&t->clean, key);
}

/**
 * tlb_entry_clean - was the entry that an access just hit filled clean?
 * @t: this CPU's TLB
 * @asid: the address space (PCID)
 * @vaddr: the address
 * @huge: a 2M entry
 *
 * Meaningful right after tlb_lookup() hit (TLB_L1_HIT or TLB_STLB_HIT).
 * Context: any.
 * Return: true if a store through it must set the dirty bit first.
 */
static inline bool tlb_entry_clean(const struct tlb *t, uint16_t asid, uint64_t vaddr, bool huge)
{
	if (__builtin_expect(!t->clean.nr, 1))
		return false;
	return tlb_clean_has(&t->clean, tlb_key(asid, tlb_vpn(vaddr, huge), huge));
}

/**
 * tlb_entry_set_dirty - a store set the dirty bit through a clean entry
 * @t: this CPU's TLB
 * @asid: the address space (PCID)
 * @vaddr: the address
 * @huge: a 2M entry
 *
 * The processor has re-read the paging-structure entry and set its dirty
 * bit; the entry it caches now is dirty.  Counts stats.dirty_assists.
 * Context: any.
 */
static inline void tlb_entry_set_dirty(struct tlb *t, uint16_t asid, uint64_t vaddr, bool huge)
{
	tlb_clean_remove(&t->clean, tlb_key(asid, tlb_vpn(vaddr, huge), huge));
	t->stats.dirty_assists++;
}

bool tlb_array_geometry_ok(uint64_t entries, uint64_t ways);
int tlb_init(struct tlb *t, const struct tlb_geometry *geo);
int tlb_array_alloc(struct tlb_array *a, uint64_t nr_sets, uint32_t ways);
void tlb_array_free(struct tlb_array *a);
unsigned int tlb_array_flush_asid(struct tlb_array *a, uint16_t asid);
void tlb_destroy(struct tlb *t);

uint32_t tlb_walk_refs(const struct tlb *t, bool huge);
uint32_t tlb_walk_cost(const struct tlb *t, bool huge);
uint64_t tlb_walk_stall_cycles(const struct tlb *t, uint64_t nr_walks,
			       uint64_t cycles_per_walk);

/* Where tlb_present() looks. */
enum tlb_level {
	TLB_LEVEL_L1,			/* the L1 dTLB of the page's size */
	TLB_LEVEL_STLB,			/* the STLB */
};

bool tlb_present(const struct tlb *t, enum tlb_level level, uint16_t asid,
		 uint64_t vaddr, bool huge);
unsigned int tlb_nr_valid(const struct tlb *t);

unsigned int tlb_flush_all(struct tlb *t);
unsigned int tlb_flush_asid(struct tlb *t, uint16_t asid);
unsigned int tlb_flush_one(struct tlb *t, uint16_t asid, uint64_t vaddr);
unsigned int tlb_flush_range(struct tlb *t, uint16_t asid, uint64_t start,
			     uint64_t end, uint64_t ceiling);

#endif /* MMSIM_TLB_H */
