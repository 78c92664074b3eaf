// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU data TLB of an Intel core (Skylake is the reference).
 *
 * What it models
 *   - Three set-associative arrays with true LRU replacement: the L1 dTLB
 *     for 4K pages, the L1 dTLB for 2M pages (struct tlb_l1: keys in LRU
 *     order) and the second-level TLB (STLB; struct tlb_array: tag bytes
 *     and LRU nibbles), which holds 4K and 2M translations in the same
 *     sets.
 *   - Entries are tagged by (PCID, virtual page number, page size), so a
 *     switch between address spaces needs no flush, as with PCID on x86.
 *   - An access looks in the L1 of its page size, then in the STLB; an STLB
 *     miss is a page walk that fills the STLB and the L1 (tlb_access()).
 *     Each completed walk counts as one dtlb_load_misses, as perf counts
 *     DTLB_LOAD_MISSES.WALK_COMPLETED on Skylake.
 *   - The cost of a walk: walk_cycles for a native 4-level walk whose
 *     entries sit in the data caches, scaled by the number of memory
 *     references; a two-dimensional (EPT/NPT) walk makes (n+1)(m+1)-1
 *     references for n guest and m host levels (24 for 4/4; Bhargava et
 *     al., ASPLOS 2008).  See tlb_walk_refs() and docs/tlb.md.
 *   - Overlap of independent walks by the page walkers
 *     (tlb_walk_stall_cycles()).
 *   - Flushes with the semantics the kernel relies on: a full flush of
 *     one PCID (CR3 write / INVPCID single-context: flush_tlb_local()), a
 *     single-page INVLPG (flush_tlb_one_user()), and the choice between
 *     the two for a range, as flush_tlb_func() makes it with
 *     tlb_single_page_flush_ceiling.
 *   - The dirty bit of each entry (struct tlb_clean): whether its fill
 *     found the page writable and dirty.  The caller records it after a
 *     walk (tlb_entry_filled()) and, when a store hits an entry filled
 *     clean, sets the page's dirty bit as the processor does (Intel SDM
 *     vol. 3A 4.8) and marks the entry dirty (tlb_entry_set_dirty()).
 *
 * What it leaves out
 *   - Global pages (all of ours are user pages, non-global), 1G pages, the
 *     ITLB, instruction fetches; a store looks the TLB up as a load does
 *     (no separate store counters).
 *   - The paging-structure caches and the page-table contents: a walk
 *     always succeeds and has a fixed cost per page size and walk_dims.
 *   - The real set-index hash of the STLB (undocumented); sets are
 *     indexed by the low bits of the virtual page number of the page's own
 *     size, so 4K and 2M entries compete in the same sets.
 *   - Sharing with an SMT sibling (each vCPU has a TLB of its own), and
 *     the limit of 6 PCIDs per CPU in Linux (the caller recycles ASIDs).
 *   - Speculative walks and walks aborted by a flush.
 *
 * Kernel functions mirrored: none directly; it is the hardware under
 * flush_tlb_func(), flush_tlb_local() and flush_tlb_one_user() in
 * arch/x86/mm/tlb.c.
 *
 * Locking: none.  A TLB belongs to one vCPU and is touched only by code
 * running on that vCPU (remote flushes arrive as IPIs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/tlb.h"

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/**
 * tlb_array_geometry_ok - can a TLB array have @entries entries in @ways ways?
 * @entries: its entries
 * @ways: its associativity
 *
 * tlb_init() needs 1 to TLB_MAX_WAYS ways and a power-of-two number of sets.
 * Context: any.
 * Return: true if it can.
 */
bool tlb_array_geometry_ok(uint64_t entries, uint64_t ways)
{
	if (!entries || !ways || ways > TLB_MAX_WAYS || entries % ways)
		return false;
	return is_pow2(entries / ways);
}

static uint64_t tlb_array_nr_sets(uint32_t entries, uint32_t ways)
{
	return entries / ways;
}

/* Point @a at its sets and keys; every way starts invalid, in way order. */
static void tlb_array_setup(struct tlb_array *a, struct tlb_set *sets,
			    uint64_t *keys, uint32_t entries, uint32_t ways)
{
	uint64_t nr_sets = tlb_array_nr_sets(entries, ways), order = 0, s;
	uint32_t w;

	a->sets = sets;
	a->keys = keys;
	a->ways = ways;
	a->set_mask = nr_sets - 1;
	a->nr_sets = nr_sets;
	a->order_mask = ways == TLB_MAX_WAYS ? ~0ULL : (1ULL << (4 * ways)) - 1;
	a->lru_shift = 4 * (ways - 1);
	a->way_mask = (uint32_t)((1ULL << ways) - 1);
	memset(a->used, 0, sizeof(a->used));
	for (w = 0; w < ways; w++)
		order |= (uint64_t)w << (4 * w);
	for (s = 0; s < nr_sets; s++) {
		sets[s].order = order;
		sets[s].keys = keys + s * ways;
		sets[s].free_ways = a->way_mask;
	}
}

/**
 * tlb_array_alloc - a stand-alone set-associative LRU array
 * @a: the array to set up
 * @nr_sets: its number of sets, any number >= 1
 * @ways: its associativity, 1 .. TLB_MAX_WAYS
 *
 * For other models that need the same structure (the data caches of
 * src/hw/cache.c).  The caller picks the set of each key itself and passes
 * it as tlb_array_touch_mru()'s @vpn: set_mask is all ones, so any set
 * number below @nr_sets works, power of two or not.
 *
 * Context: any; allocates memory.
 * Return: 0, -EINVAL for a bad geometry, -ENOMEM.
 */
int tlb_array_alloc(struct tlb_array *a, uint64_t nr_sets, uint32_t ways)
{
	struct tlb_set *sets;

	memset(a, 0, sizeof(*a));
	if (!nr_sets || !ways || ways > TLB_MAX_WAYS)
		return -EINVAL;
	sets = calloc(1, nr_sets * sizeof(*sets) + nr_sets * ways * sizeof(uint64_t));
	if (!sets)
		return -ENOMEM;
	tlb_array_setup(a, sets, (uint64_t *)(sets + nr_sets), (uint32_t)(nr_sets * ways), ways);
	a->set_mask = ~0ULL;
	return 0;
}

/* Free an array from tlb_array_alloc(). */
void tlb_array_free(struct tlb_array *a)
{
	free(a->sets);
	memset(a, 0, sizeof(*a));
}

/* Invalidate way @w of a set; its place in the LRU order does not matter. */
static void tlb_set_invalidate(struct tlb_set *set, unsigned int w)
{
	set->keys[w] = 0;
	set->tag[w] = 0;
	set->free_ways |= 1u << w;
}

/* Remove @key from its set if it is there. */
static unsigned int tlb_array_remove(struct tlb_array *a, uint64_t key,
				     uint64_t vpn)
{
	uint64_t s = vpn & a->set_mask;
	uint64_t *keys = a->keys + s * a->ways;
	int w = tlb_set_find(&a->sets[s], keys, key, tlb_tag(key));

	if (w < 0)
		return 0;
	tlb_set_invalidate(&a->sets[s], (unsigned int)w);
	return 1;
}

/* A bit per way among the first @ways whose key's ASID lane is @asid. */
static uint32_t tlb_keys_match_asid(const uint64_t *keys, uint32_t ways,
				    uint16_t asid)
{
	uint32_t m = 0, w = 0;

#if defined(__SSE2__) && !defined(TLB_NO_SIMD)
	__m128i want = _mm_set1_epi16((short)asid);

	for (; w + 2 <= ways; w += 2) {
		__m128i k = _mm_loadu_si128((const __m128i *)(keys + w));
		/* Move each key's ASID-lane result to its sign bit. */
		__m128i eq = _mm_slli_epi64(_mm_cmpeq_epi16(k, want), 48);

		m |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(eq)) << w;
	}
#endif
	for (; w < ways; w++)
		m |= (uint32_t)(tlb_key_asid(keys[w]) == asid) << w;
	return m;
}

/*
 * The number of bits set in @m, inline: without a popcnt instruction in
 * the build's target, __builtin_popcount() is a call into libgcc.
 */
static inline unsigned int tlb_popcount32(uint32_t m)
{
	m = m - ((m >> 1) & 0x55555555u);
	m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
	m = (m + (m >> 4)) & 0x0f0f0f0fu;
	return (m * 0x01010101u) >> 24;
}

/*
 * Remove every entry of @asid (or every entry if @all) from one set.  An
 * empty set (after a flush, every set is) has nothing to compare.
 */
static inline unsigned int tlb_set_flush(const struct tlb_array *a,
					 struct tlb_set *set, uint16_t asid, bool all)
{
	uint32_t valid = ~set->free_ways & a->way_mask, gone, m;

	if (!valid)
		return 0;
	gone = all ? valid : tlb_keys_match_asid(set->keys, a->ways, asid) & valid;
	if (gone == valid) {
		/* Invalid ways hold key 0 already: clear only the valid ones. */
		for (m = gone; m; m &= m - 1)
			set->keys[__builtin_ctz(m)] = 0;
		set->tags[0] = 0;
		set->tags[1] = 0;
		set->free_ways = a->way_mask;
	} else {
		for (m = gone; m; m &= m - 1)
			tlb_set_invalidate(set, (unsigned int)__builtin_ctz(m));
	}
	return tlb_popcount32(gone);
}

/*
 * Remove every entry of @asid (or every entry if @all) from @a, visiting
 * only the sets that a->used says may hold one (after a flush, a worker
 * that ran a few microseconds has filled a few).
 */
static unsigned int tlb_array_flush(struct tlb_array *a, uint16_t asid,
				    bool all)
{
	unsigned int removed = 0, i;

	for (i = 0; i < TLB_USED_BITS / 64; i++) {
		uint64_t m;

		for (m = a->used[i]; m; m &= m - 1) {
			uint64_t b = i * 64 + (uint64_t)__builtin_ctzll(m), s;
			bool empty = true;

			for (s = b; s < a->nr_sets; s += TLB_USED_BITS) {
				removed += tlb_set_flush(a, &a->sets[s], asid, all);
				empty &= a->sets[s].free_ways == a->way_mask;
			}
			if (empty)
				a->used[i] &= ~(1ULL << (b % 64));
		}
	}
	return removed;
}

/*
 * Remove every entry of @asid from an array of tlb_array_alloc() whose keys
 * carry the address space as tlb_key() does.  Returns the entries removed.
 */
unsigned int tlb_array_flush_asid(struct tlb_array *a, uint16_t asid)
{
	return tlb_array_flush(a, asid, false);
}

/* Point @l at its keys; every way starts invalid. */
static void tlb_l1_setup(struct tlb_l1 *l, uint64_t *keys, uint32_t entries, uint32_t ways)
{
	l->keys = keys;
	l->ways = ways;
	l->set_mask = tlb_array_nr_sets(entries, ways) - 1;
}

/* Remove @key from its L1 set if it is there; the keys after it move up. */
static unsigned int tlb_l1_remove(struct tlb_l1 *l, uint64_t key, uint64_t vpn)
{
	uint64_t *k = l->keys + (vpn & l->set_mask) * l->ways;
	unsigned int p = tlb_l1_find(k, key, l->ways), i;

	if (p == l->ways)
		return 0;
	for (i = p; i + 1 < l->ways; i++)
		k[i] = k[i + 1];
	k[l->ways - 1] = 0;
	return 1;
}

/*
 * Remove every entry of @asid (or every entry if @all) from an L1: the
 * keys that stay keep their order and move up over the gaps.
 */
static unsigned int tlb_l1_flush(struct tlb_l1 *l, uint16_t asid, bool all)
{
	unsigned int removed = 0, w, kept;
	uint64_t *k;

	for (k = l->keys; k < l->keys + tlb_l1_entries(l); k += l->ways) {
		for (w = 0, kept = 0; w < l->ways && k[w]; w++) {
			if (all || tlb_key_asid(k[w]) == asid)
				removed++;
			else
				k[kept++] = k[w];
		}
		for (; kept < w; kept++)
			k[kept] = 0;
	}
	return removed;
}

/* How many of the @n keys at @keys are valid (nonzero). */
static unsigned int tlb_keys_nr_valid(const uint64_t *keys, uint64_t n)
{
	unsigned int nr = 0;
	uint64_t i;

	for (i = 0; i < n; i++)
		nr += keys[i] != 0;
	return nr;
}

static bool tlb_array_present(const struct tlb_array *a, uint64_t key,
			      uint64_t vpn)
{
	uint64_t s = vpn & a->set_mask;

	return tlb_set_find(&a->sets[s], a->keys + s * a->ways, key,
			    tlb_tag(key)) >= 0;
}

/* Grow the set of clean keys to @slots slots (a power of two) and rehash. */
static void tlb_clean_grow(struct tlb_clean *c, uint64_t slots)
{
	uint64_t *old = c->keys, old_slots = c->keys ? c->mask + 1 : 0, i, j;

	c->keys = calloc(slots, sizeof(*c->keys));
	if (!c->keys)
		abort();	/* out of host memory: no way to go on */
	c->mask = slots - 1;
	c->shift = 64 - (uint32_t)__builtin_ctzll(slots);
	for (i = 0; i < old_slots; i++) {
		if (!old[i])
			continue;
		for (j = tlb_clean_home(c, old[i]); c->keys[j]; j = (j + 1) & c->mask)
			;
		c->keys[j] = old[i];
	}
	free(old);
}

/**
 * tlb_clean_insert - add @key to the set of entries filled clean
 * @c: the set
 * @key: a valid TLB key (nonzero)
 *
 * Context: any; may allocate (aborts if the host is out of memory).
 */
void tlb_clean_insert(struct tlb_clean *c, uint64_t key)
{
	uint64_t i;

	if (!c->keys || 2 * (c->nr + 1) > c->mask + 1)
		tlb_clean_grow(c, c->keys ? 2 * (c->mask + 1) : 64);
	for (i = tlb_clean_home(c, key); c->keys[i]; i = (i + 1) & c->mask)
		if (c->keys[i] == key)
			return;
	c->keys[i] = key;
	c->nr++;
}

/**
 * tlb_clean_remove - remove @key from the set of entries filled clean
 * @c: the set
 * @key: the key
 *
 * Backward-shift deletion: each key after the hole in its probe run moves
 * into the hole unless its home slot lies after the hole (cyclically), so
 * no probe meets an empty slot before its key.
 * Context: any.
 * Return: true if @key was there.
 */
bool tlb_clean_remove(struct tlb_clean *c, uint64_t key)
{
	uint64_t i, j, h;

	if (!c->nr)
		return false;
	for (i = tlb_clean_home(c, key); c->keys[i] != key; i = (i + 1) & c->mask)
		if (!c->keys[i])
			return false;
	for (j = (i + 1) & c->mask; c->keys[j]; j = (j + 1) & c->mask) {
		h = tlb_clean_home(c, c->keys[j]);
		/* The key at j stays if its home is in (i, j], cyclically. */
		if (((j - h) & c->mask) < ((j - i) & c->mask))
			continue;
		c->keys[i] = c->keys[j];
		i = j;
	}
	c->keys[i] = 0;
	c->nr--;
	return true;
}

/**
 * tlb_walk_refs - memory references of one page walk
 * @t: the TLB
 * @huge: true for a walk that ends at a 2M page
 *
 * A native walk reads one entry per level: n = 4 for a 4K page, 3 for a
 * 2M page (the walk stops at the PMD).  A two-dimensional walk
 * (walk_dims == 2) translates each of the n guest-physical table pointers
 * and the final guest-physical address through an m-level host (EPT)
 * walk: (n + 1) * (m + 1) - 1 references, 24 for n = m = 4, 19 for a 2M
 * guest page (Bhargava et al., ASPLOS 2008).  The host is assumed to map
 * the guest with 4K pages (m = 4), the worst case.
 *
 * Context: any.
 * Return: the number of page-table entries the walk reads.
 */
uint32_t tlb_walk_refs(const struct tlb *t, bool huge)
{
	uint32_t n = huge ? TLB_WALK_LEVELS - 1 : TLB_WALK_LEVELS;
	uint32_t m = t->geo.walk_dims == 2 ? TLB_WALK_LEVELS : 0;

	return (n + 1) * (m + 1) - 1;
}

/**
 * tlb_walk_cost - cycles of one page walk, on top of the STLB lookup
 * @t: the TLB
 * @huge: true for a walk that ends at a 2M page
 *
 * walk_cycles is the measured cost of a native 4-level walk whose entries
 * are in the data caches (about 20 cycles on Haswell).  It already
 * includes what the paging-structure caches save on such a walk, so
 * walk_cycles / 4 is the effective cost of one reference.  A walk costs
 * tlb_walk_refs() such references.  Assumption: the paging-structure
 * caches (and, nested, the EPT's own caches) absorb the same share of the
 * references of a two-dimensional walk as of a native one.
 *
 * Context: any.
 * Return: refs * walk_cycles / 4, rounded down.
 */
uint32_t tlb_walk_cost(const struct tlb *t, bool huge)
{
	uint64_t c = (uint64_t)tlb_walk_refs(t, huge) * t->geo.walk_cycles;

	return (uint32_t)(c / TLB_WALK_LEVELS);
}

/**
 * tlb_walk_stall_cycles - stall of a batch of independent page walks
 * @t: the TLB
 * @nr_walks: walks that the core can run concurrently
 * @cycles_per_walk: the cost of each, from tlb_walk_cost()
 *
 * Independent random loads let the out-of-order core keep up to
 * page_walkers walks in flight (2 on Skylake, 1 before), so the core
 * stalls for cost / page_walkers per walk.  Dependent accesses (a pointer
 * chase) do not overlap and should be charged in full instead.
 *
 * Context: any.
 * Return: ceil(nr_walks * cycles_per_walk / page_walkers).
 */
uint64_t tlb_walk_stall_cycles(const struct tlb *t, uint64_t nr_walks,
			       uint64_t cycles_per_walk)
{
	uint64_t w = t->geo.page_walkers;

	return (nr_walks * cycles_per_walk + w - 1) / w;
}

/**
 * tlb_init - set up an empty TLB
 * @t: the TLB to set up
 * @geo: its geometry and costs
 *
 * Every array needs a power-of-two number of sets and at most
 * TLB_MAX_WAYS ways; walk_dims is 1 or 2; page_walkers is at least 1.
 *
 * Context: any; allocates memory.
 * Return: 0, -EINVAL for a bad geometry, -ENOMEM.
 */
int tlb_init(struct tlb *t, const struct tlb_geometry *geo)
{
	uint64_t sets_stlb;
	struct tlb_set *sets;
	uint64_t *keys;
	size_t nr_keys;

	memset(t, 0, sizeof(*t));
	if (!tlb_array_geometry_ok(geo->l1_4k_entries, geo->l1_4k_ways) ||
	    !tlb_array_geometry_ok(geo->l1_2m_entries, geo->l1_2m_ways) ||
	    !tlb_array_geometry_ok(geo->stlb_entries, geo->stlb_ways) ||
	    (geo->walk_dims != 1 && geo->walk_dims != 2) ||
	    !geo->page_walkers)
		return -EINVAL;

	sets_stlb = tlb_array_nr_sets(geo->stlb_entries, geo->stlb_ways);
	nr_keys = (size_t)geo->l1_4k_entries + geo->l1_2m_entries +
		  geo->stlb_entries;
	/* One allocation: the STLB's sets, then the keys of all three. */
	sets = calloc(1, sets_stlb * sizeof(*sets) + nr_keys * sizeof(*keys));
	if (!sets)
		return -ENOMEM;
	keys = (uint64_t *)(sets + sets_stlb);

	t->geo = *geo;
	tlb_array_setup(&t->stlb, sets, keys, geo->stlb_entries,
			geo->stlb_ways);
	keys += geo->stlb_entries;
	tlb_l1_setup(&t->l1_4k, keys, geo->l1_4k_entries, geo->l1_4k_ways);
	keys += geo->l1_4k_entries;
	tlb_l1_setup(&t->l1_2m, keys, geo->l1_2m_entries, geo->l1_2m_ways);

	for (int huge = 0; huge < 2; huge++) {
		t->cost[TLB_L1_HIT][huge] = 0;
		t->cost[TLB_STLB_HIT][huge] = geo->stlb_hit_cycles;
		t->walk_cost[huge] = tlb_walk_cost(t, huge);
		t->cost[TLB_WALK][huge] = geo->stlb_hit_cycles +
					  t->walk_cost[huge];
	}
	return 0;
}

/**
 * tlb_destroy - free a TLB's arrays
 * @t: a TLB set up by tlb_init()
 *
 * Context: any.
 */
void tlb_destroy(struct tlb *t)
{
	free(t->stlb.sets);	/* the one allocation holds the arrays */
	free(t->clean.keys);
	memset(t, 0, sizeof(*t));
}

/**
 * tlb_present - is a translation cached? (no LRU update, no counting)
 * @t: the TLB
 * @level: TLB_LEVEL_L1 (the L1 of the page's size) or TLB_LEVEL_STLB
 * @asid: the address space
 * @vaddr: any address in the page
 * @huge: true to look for the 2M entry covering @vaddr
 *
 * Context: any; for tests and invariant checks.
 * Return: true if the entry is there.
 */
bool tlb_present(const struct tlb *t, enum tlb_level level, uint16_t asid,
		 uint64_t vaddr, bool huge)
{
	const struct tlb_l1 *l = huge ? &t->l1_2m : &t->l1_4k;
	uint64_t vpn = tlb_vpn(vaddr, huge);
	uint64_t key = tlb_key(asid, vpn, huge);

	if (level == TLB_LEVEL_STLB)
		return tlb_array_present(&t->stlb, key, vpn);
	return tlb_l1_find(l->keys + (vpn & l->set_mask) * l->ways, key, l->ways) < l->ways;
}

/**
 * tlb_nr_valid - number of valid entries in all three arrays
 * @t: the TLB
 *
 * Context: any.
 * Return: the count.
 */
unsigned int tlb_nr_valid(const struct tlb *t)
{
	return tlb_keys_nr_valid(t->l1_4k.keys, tlb_l1_entries(&t->l1_4k)) +
	       tlb_keys_nr_valid(t->l1_2m.keys, tlb_l1_entries(&t->l1_2m)) +
	       tlb_keys_nr_valid(t->stlb.keys, t->stlb.nr_sets * t->stlb.ways);
}

/**
 * tlb_flush_all - invalidate every entry of every address space
 * @t: this CPU's TLB
 *
 * Context: any.
 * Return: the number of entries removed.
 */
unsigned int tlb_flush_all(struct tlb *t)
{
	unsigned int nr;

	nr = tlb_l1_flush(&t->l1_4k, 0, true) +
	     tlb_l1_flush(&t->l1_2m, 0, true) +
	     tlb_array_flush(&t->stlb, 0, true);
	t->stats.flushes++;
	t->stats.flush_all++;
	t->stats.flushed_entries += nr;
	return nr;
}

/**
 * tlb_flush_asid - invalidate every entry of one address space
 * @t: this CPU's TLB
 * @asid: the PCID to flush
 *
 * What flush_tlb_local() does with PCID: a CR3 write (or INVPCID
 * single-context) drops the non-global entries of the current PCID and
 * keeps those of the others.  All of the model's entries are non-global.
 *
 * Context: any.
 * Return: the number of entries removed.
 */
unsigned int tlb_flush_asid(struct tlb *t, uint16_t asid)
{
	unsigned int nr;

	nr = tlb_l1_flush(&t->l1_4k, asid, false) +
	     tlb_l1_flush(&t->l1_2m, asid, false) +
	     tlb_array_flush(&t->stlb, asid, false);
	t->stats.flushes++;
	t->stats.flush_asid++;
	t->stats.flushed_entries += nr;
	return nr;
}

/**
 * tlb_flush_one - INVLPG: invalidate the translations of one address
 * @t: this CPU's TLB
 * @asid: the address space
 * @vaddr: the address
 *
 * Removes, for @asid, the 4K entry and the 2M entry that cover @vaddr,
 * from the L1 arrays and from the STLB; nothing else.  The hardware
 * does not know the page size of the mapping, so it drops both.
 *
 * Context: any.
 * Return: the number of entries removed (0 to 4).
 */
unsigned int tlb_flush_one(struct tlb *t, uint16_t asid, uint64_t vaddr)
{
	uint64_t vpn4k = tlb_vpn(vaddr, false), vpn2m = tlb_vpn(vaddr, true);
	uint64_t key4k = tlb_key(asid, vpn4k, false);
	uint64_t key2m = tlb_key(asid, vpn2m, true);
	unsigned int nr;

	nr = tlb_l1_remove(&t->l1_4k, key4k, vpn4k) +
	     tlb_l1_remove(&t->l1_2m, key2m, vpn2m) +
	     tlb_array_remove(&t->stlb, key4k, vpn4k) +
	     tlb_array_remove(&t->stlb, key2m, vpn2m);
	t->stats.flushes++;
	t->stats.flush_one++;
	t->stats.flushed_entries += nr;
	return nr;
}

/**
 * tlb_flush_range - invalidate [start, end) of one address space
 * @t: this CPU's TLB
 * @asid: the address space
 * @start: first address (rounded down to 4K)
 * @end: end address, exclusive (rounded up to 4K)
 * @ceiling: tlb_single_page_flush_ceiling (33 in Linux)
 *
 * As flush_tlb_func() does for a 4K stride: if the range has more than
 * @ceiling pages, one full flush of @asid; else one INVLPG per page.
 *
 * Context: any.
 * Return: the number of entries removed.
 */
unsigned int tlb_flush_range(struct tlb *t, uint16_t asid, uint64_t start,
			     uint64_t end, uint64_t ceiling)
{
	const uint64_t page = 1ULL << TLB_PAGE_SHIFT;
	unsigned int nr = 0;
	uint64_t addr;

	start &= ~(page - 1);
	end = (end + page - 1) & ~(page - 1);
	if (end <= start)
		return 0;
	if ((end - start) >> TLB_PAGE_SHIFT > ceiling)
		return tlb_flush_asid(t, asid);
	for (addr = start; addr < end; addr += page)
		nr += tlb_flush_one(t, asid, addr);
	return nr;
}
