/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel model's types and functions: struct folio, struct lruvec,
 * struct list_lru, struct mem_cgroup, zones and per-CPU page lists, mm and
 * VMAs with page tables, mmu_gather.  Names follow include/linux/mm_types.h,
 * mmzone.h, memcontrol.h, list_lru.h and asm-generic/tlb.h; docs/fidelity.md
 * maps each function to the kernel function it mirrors.
 *
 * Lock order (as in mm/rmap.c's block comment, restricted to the model):
 *   mmap_lock
 *     vma lock (per-VMA read lock, not modelled as a lock: never contended here)
 *       folio lock (PG_locked)
 *         i_mmap_rwsem, anon_vma->rwsem (rmap walks, truncation's unmap)
 *           PTL (split page-table lock, per 2 MiB of VA)
 *             i_pages lock (IRQs off; the page cache, its dirty accounting)
 *             lruvec->lru_lock (IRQs off)
 *               deferred_split_lru sublist lock (IRQs off; nested only in `before`)
 *             zone->lock (IRQs off; taken after lru_lock is dropped)
 * The page cache, fork, mprotect and mbind (filemap.c, shmem.c,
 * truncate.c, fork.c, mprotect.c, mempolicy.c) keep this order.
 */
#ifndef MMSIM_MM_H
#define MMSIM_MM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mm/list.h"
#include "mmsim/hw.h"
#include "mmsim/memsys.h"
#include "mmsim/mmu.h"
#include "mmsim/profile.h"
#include "mmsim/sim.h"
#include "mmsim/trace.h"	/* the trace points of the mm files (docs/trace.md) */

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PMD_SHIFT		21
#define PMD_SIZE		(1UL << PMD_SHIFT)
#define HPAGE_PMD_ORDER		(PMD_SHIFT - PAGE_SHIFT)
#define HPAGE_PMD_NR		(1 << HPAGE_PMD_ORDER)
#define PTRS_PER_PTE		512
/*
 * The kernel constants a variant may change (struct mm_constants; their
 * defaults, versions and sources: docs/kernel.md).  The kernel's names
 * read the run's value, so the code reads as the kernel's does.
 */
#define PAGEVEC_SIZE_MAX	63	/* 63 pointers + header: a 512-byte folio_batch */
#define PAGEVEC_SIZE		(sim_mm->consts.pagevec_size)
#define MEMCG_CHARGE_BATCH	(sim_mm->consts.memcg_charge_batch)
#define SWAP_CLUSTER_MAX	(sim_mm->consts.swap_cluster_max)
#define MAX_NR_ORDERS		10
#define SIM_MAX_NODES		8
/* MGLRU (include/linux/mmzone.h) */
#define MIN_NR_GENS		2U
#define MAX_NR_GENS		4U
#define MIN_LRU_BATCH		(sim_mm->consts.min_lru_batch)	/* isolated per scan_folios() */
#define MAX_LRU_BATCH		(MIN_LRU_BATCH * 64)	/* scanned per scan_folios() */
#define NR_BLOOM_FILTERS	2	/* the aging's filters of PTE tables, by seq % 2 */

/* ---- struct folio ----------------------------------------------------- */

enum pageflags {
	PG_locked, PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_active,
	PG_workingset, PG_reclaim, PG_swapbacked, PG_unevictable, PG_writeback,
	PG_swapcache, PG_large_rmappable, PG_partially_mapped, PG_young,
	PG_stale_tlb,	/* model only: a writable PTE was cleared, its TLB flush is pending */
	PG_file,	/* model only: folio->mapping is an address_space (page cache);
			 * the kernel tells by PAGE_MAPPING_ANON clear in folio->mapping */
	PG_readahead,	/* the kernel shares PG_reclaim's bit (page-flags.h); the model
			 * gives it its own: the first folio of a readahead's async part */
	NR_PAGEFLAGS
};

/*
 * MGLRU's generation counter in folio->flags, above the page flags: gen + 1
 * while the folio is on one of lruvec->lrugen.folios[], else 0.
 */
#define LRU_GEN_PGOFF		24
#define LRU_GEN_MASK		(7U << LRU_GEN_PGOFF)

/* Where a folio is, for the invariant checks (mm/check.c). */
enum folio_place {
	FOLIO_FREE,		/* in the page allocator (zone free list or pcp) */
	FOLIO_PRIVATE,		/* held by one task between two structures */
	FOLIO_MAPPED,		/* mapped, not (yet) on an LRU list or batch */
	FOLIO_FBATCH,		/* in a per-CPU LRU batch (cpu_fbatches) */
	FOLIO_LRU,		/* on an lruvec list, PG_lru set */
	FOLIO_ISOLATED,		/* PG_lru cleared by reclaim, khugepaged or an LRU
				 * batch move; off the lists, or still on one as
				 * its CPU's cpu_fbatches.lru_isolating */
	FOLIO_GATHER,		/* in an mmu_gather or a freeing batch */
	NR_FOLIO_PLACES
};

/*
 * What a folio's memory holds, as far as swap-out's work depends on it.
 * swap_writeout() (v6.12 and later) writes an all-zero folio nowhere: it
 * sets the slot's zero-map bit (is_folio_zero_filled()); zram_write_page()
 * keeps a page of one other repeated word as that word, uncompressed
 * (page_same_filled(), ZRAM_SAME); anything else is compressed or
 * written.  Set where the model writes memory: folio_zero_user(), a
 * workload's stores (stress-vm's passes, each of which says what it
 * leaves), a swap-in (what the slot held).
 */
enum folio_data {
	FOLIO_DATA_MIXED,	/* anything else: compressed at the device's rates */
	FOLIO_DATA_ZERO,	/* all zero bytes */
	FOLIO_DATA_SAME,	/* one non-zero word repeated */
};

struct mem_cgroup;
struct lruvec;
struct mm_struct;
struct address_space;

/**
 * struct folio - a naturally aligned block of 2^order pages
 *
 * Invariants: _refcount >= 0; PG_lru set iff place == FOLIO_LRU;
 * a folio is on at most one of lruvec lists, pcp lists, batches;
 * _deferred_list (order >= 2 only, like the kernel's tail-page field) is
 * non-empty iff the folio is queued on deferred_split_lru.
 */
struct folio {
	/* hot: the first 64 bytes are what the lock paths touch */
	uint32_t flags;			/* enum pageflags bits */
	int32_t _refcount;
	int32_t _mapcount;		/* PTEs and PMDs that map it, summed */
	uint8_t order;
	uint8_t place;			/* enum folio_place */
	uint8_t nid;			/* node of its memory */
	uint8_t lru;			/* which lruvec list when on one */
	struct sim_line line;		/* the head page's cache line */
	struct sim_line tail_line;	/* the tail page holding _deferred_list */
	uint32_t id;			/* index in the folio table */
	struct list_head lru_node;	/* the kernel's folio->lru */
	struct mem_cgroup *memcg;	/* memcg_data; NULL when uncharged */
	struct list_head _deferred_list; /* valid for order >= 2 */
	/* cold */
	union {
		struct mm_struct *mm;	/* anon rmap: the mm whose VMA (and anon_vma) holds it */
		struct address_space *mapping; /* PG_file: the file it caches */
	};
	uint64_t index;			/* anon: first virtual page it maps; file: page offset */
	uint32_t swap;			/* swap slot + 1 when in the swap cache */
	uint32_t pfn;			/* first page frame, while allocated */
	uint32_t check_seen;		/* mm/check.c's visit stamp */
	uint8_t data;			/* enum folio_data */
};

#define folio_flag(f, bit)	(((f)->flags >> (bit)) & 1)
static inline bool folio_test(const struct folio *f, enum pageflags b) { return folio_flag(f, b); }
static inline void folio_set(struct folio *f, enum pageflags b) { f->flags |= 1U << b; }
static inline void folio_clear(struct folio *f, enum pageflags b) { f->flags &= ~(1U << b); }
static inline bool folio_test_clear(struct folio *f, enum pageflags b)
{
	bool was = folio_test(f, b);
	folio_clear(f, b);
	return was;
}
#define folio_test_lru(f)		folio_test((f), PG_lru)
#define folio_test_active(f)		folio_test((f), PG_active)
#define folio_test_large(f)		((f)->order > 0)
#define folio_test_large_rmappable(f)	folio_test((f), PG_large_rmappable)
#define folio_test_partially_mapped(f)	folio_test((f), PG_partially_mapped)
static inline unsigned int folio_order(const struct folio *f) { return f->order; }
static inline long folio_nr_pages(const struct folio *f) { return 1L << f->order; }
static inline bool folio_mapped(const struct folio *f) { return f->_mapcount > 0; }
static inline int folio_ref_count(const struct folio *f) { return f->_refcount; }
/* folio_test_anon(): a mapped folio of anonymous memory (not page cache). */
static inline bool folio_test_anon(const struct folio *f) { return !folio_test(f, PG_file) && f->mm; }
/* folio_mapping() of a page cache folio, NULL for anon and free folios. */
static inline struct address_space *folio_file_mapping(const struct folio *f)
{
	return folio_test(f, PG_file) ? f->mapping : NULL;
}

void folio_get(struct folio *folio);
bool folio_ref_sub_and_test(struct folio *folio, int nr);
bool folio_put_testzero(struct folio *folio);
bool folio_ref_freeze(struct folio *folio, int count);
/* Folio table: ids are dense and deterministic. */
struct folio *folio_by_id(uint32_t id);

/* Report a broken invariant with the folio and abort (always compiled in). */
__attribute__((noreturn)) void dump_folio(const struct folio *folio, const char *why);
#define SIM_BUG_ON_FOLIO(cond, folio)                                     \
	do {                                                              \
		if (cond)                                                 \
			dump_folio((folio), #cond);                       \
	} while (0)
#define SIM_BUG_ON(cond)                                                  \
	do {                                                              \
		if (cond) {                                               \
			fprintf(stderr, "mmsim: BUG: %s at %s:%d\n", #cond, \
				__FILE__, __LINE__);                      \
			abort();                                          \
		}                                                         \
	} while (0)

/* ---- struct folio_batch ---------------------------------------------------- */

/*
 * Holds PAGEVEC_SIZE folios (the run's value, at most PAGEVEC_SIZE_MAX):
 * nr <= PAGEVEC_SIZE.  folio_batch_space() and folio_batch_add() are
 * defined after struct mm_model, whose constants they read.
 */
struct folio_batch {
	unsigned char nr;
	unsigned char i;
	bool percpu_pvec_drained;
	struct folio *folios[PAGEVEC_SIZE_MAX];
};

static inline void folio_batch_init(struct folio_batch *fb) { fb->nr = 0; fb->i = 0; fb->percpu_pvec_drained = false; }
static inline void folio_batch_reinit(struct folio_batch *fb) { fb->nr = 0; fb->i = 0; }
static inline unsigned int folio_batch_count(const struct folio_batch *fb) { return fb->nr; }

/* ---- lruvec -------------------------------------------------------------------- */

enum lru_list {
	LRU_INACTIVE_ANON, LRU_ACTIVE_ANON, LRU_INACTIVE_FILE, LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE, NR_LRU_LISTS
};

/*
 * struct lru_gen_folio - MGLRU's generations of one lruvec (anon only: the
 * model has no file LRU, so min_seq is min_seq[LRU_GEN_ANON]).
 *
 * Invariants (under lru_lock): min_seq + MIN_NR_GENS <= max_seq + 1 and
 * max_seq - min_seq < MAX_NR_GENS; nr_pages[gen] == the pages of the folios
 * whose generation counter says gen (a folio whose counter moved stays on
 * its old list until sort_folio() moves it); folios[gen] empty for a gen
 * outside [min_seq, max_seq].
 */
struct lru_gen_folio {
	unsigned long max_seq;		/* the youngest generation */
	unsigned long min_seq;		/* the oldest (anon) generation */
	struct list_head folios[MAX_NR_GENS];	/* by gen = seq % MAX_NR_GENS */
	long nr_pages[MAX_NR_GENS];
	struct sim_line head_line[MAX_NR_GENS];	/* each list head */
	/* lru_gen_mm_state: the page-table walk over the memcg's mms (aging) */
	unsigned long mm_seq;		/* mm_state->seq: walks completed (max_seq - 3 + ...) */
	int mm_head;			/* id of the mm the walk is at; -1: not started */
	struct spinlock mm_list_lock;	/* mm_list->lock: mm_seq and mm_head */
	bool filter_valid[NR_BLOOM_FILTERS];	/* mm_state->filters[i] allocated */
};

/**
 * struct lruvec - the LRU lists of one (memcg, node)
 *
 * Invariant: nr_pages[lru] == sum of folio_nr_pages() over lists[lru];
 * nr_folios[lru] == length of lists[lru]; all under lru_lock.
 */
struct lruvec {
	struct list_head lists[NR_LRU_LISTS];
	struct spinlock lru_lock;
	long nr_pages[NR_LRU_LISTS];	/* lru_zone_size, summed */
	long nr_folios[NR_LRU_LISTS];
	struct sim_line head_line[NR_LRU_LISTS]; /* each list head */
	struct sim_line size_line;	/* mem_cgroup_per_node->lru_zone_size */
	int nid;
	struct mem_cgroup *memcg;
	unsigned long anon_cost;
	struct lru_gen_folio lrugen;	/* MGLRU, when sim_mm->lru_gen_enabled */
};

/* ---- list_lru (one sublist per memcg and node) -------------------------------- */

/*
 * Invariant: nr_items == length of list, under lock.
 * The three fields take 28 bytes: one cache line holds the list head,
 * nr_items and the lock word, so the model's line is the lock's
 * (lock.line): whoever holds the lock has the head too.
 */
struct list_lru_one {
	struct list_head list;
	long nr_items;
	struct spinlock lock;
};

struct list_lru {
	const char *name;
	struct list_lru_one *node[SIM_MAX_NODES];	/* for the one memcg */
};

/* ---- memcg ---------------------------------------------------------------------- */

struct page_counter {
	long usage;			/* pages charged */
	long max;			/* limit in pages */
	struct sim_line line;		/* the atomic usage word */
};

/* Per-CPU charge cache (memcg_stock_pcp). */
struct memcg_stock_pcp {
	struct mem_cgroup *cached;
	unsigned int nr_pages;
};

struct mem_cgroup {
	struct page_counter memory;
	struct lruvec lruvec[SIM_MAX_NODES];	/* mem_cgroup_per_node->lruvec */
	int id;
};

/* ---- the page allocator ------------------------------------------------------- */

/* pcp->flags (v6.7+) */
#define PCPF_PREV_FREE_HIGH_ORDER	(1U << 0)	/* the last free was order 1..3 */
#define PCPF_FREE_HIGH_BATCH		(1U << 1)	/* keep a batch before draining those */
#define CONFIG_PCP_BATCH_SCALE_MAX	(sim_mm->consts.pcp_batch_scale_max)	/* Kconfig, 0..6 */

struct per_cpu_pages {
	struct sim_line lock;		/* pcp->lock: only its CPU takes it here */
	int count;			/* pages on the lists */
	int high, batch;
	int high_min, high_max;		/* the auto-tuning bounds of high (v6.7+) */
	int free_count;			/* pages freed since the last allocation, decayed */
	uint8_t alloc_factor;		/* refill batch scale for order 0 */
	uint8_t flags;			/* PCPF_* */
	sim_time_t next_decay;		/* next decay_pcp_high() (vmstat_update, 1 s) */
	struct list_head lists[MAX_NR_ORDERS];
};

/*
 * The buddy allocator's view of one struct page (mm/page_alloc.c): the
 * buddy_list links, buddy_order() when it heads a free block, and the
 * struct page's cache line.  Kept only for the pfns the run has touched
 * (materialised a MAX_PAGE_ORDER block at a time).
 */
#define MAX_PAGE_ORDER		10
#define NR_PAGE_ORDERS		(MAX_PAGE_ORDER + 1)
#define BUDDY_NIL		UINT32_MAX

struct buddy_page {
	uint32_t next, prev;		/* on free_area[order], by pfn; BUDDY_NIL at the ends */
	int8_t order;			/* buddy_order(); -1 unless PageBuddy */
	struct sim_line line;		/* the struct page's line */
};

#define BUDDY_CHUNK_SHIFT	16
#define BUDDY_CHUNK		(1U << BUDDY_CHUNK_SHIFT)

/* Invariant: nr_free == length of the list from head (pfns with order == its order). */
struct free_area {
	uint32_t head, tail;		/* pfns, BUDDY_NIL when empty */
	long nr_free;
	struct sim_line line;		/* the list head in struct zone */
};

struct zone;
static inline struct buddy_page *buddy_pg(const struct zone *zone, uint32_t pfn);

/* zone->flags */
#define ZONE_BELOW_HIGH		0	/* free pages below the high watermark */

/*
 * Invariant: free_pages == the pages of the buddy's free blocks (materialised
 * or not); the pcp lists' pages are not in it.
 */
struct zone {
	struct spinlock lock;
	long free_pages;		/* pages in the buddy lists */
	long managed_pages;
	long wmark_min, wmark_low, wmark_high;	/* __setup_per_zone_wmarks() */
	unsigned long flags;		/* ZONE_* bits */
	struct list_head free_list[MAX_NR_ORDERS]; /* spare folio structs by order */
	long nr_free[MAX_NR_ORDERS];
	struct free_area free_area[NR_PAGE_ORDERS]; /* the buddy's free lists, by pfn */
	struct buddy_page **page_chunks;	/* BUDDY_CHUNK pfns each, allocated as touched */
	uint32_t nr_init, nr_page_chunks;	/* pfns materialised, chunk pointers */
	struct per_cpu_pages *pcp;	/* [nr_cpus] */
	int nid;
	struct sim_line line;		/* zone counters */
};

/* The buddy's view of @pfn's struct page (materialised: pfn < zone->nr_init). */
static inline struct buddy_page *buddy_pg(const struct zone *zone, uint32_t pfn)
{
	return &zone->page_chunks[pfn >> BUDDY_CHUNK_SHIFT][pfn & (BUDDY_CHUNK - 1)];
}

/* ---- mm, VMAs, page tables --------------------------------------------------- */

typedef uint64_t pte_t;
#define PTE_PRESENT	(1ULL << 0)
#define PTE_YOUNG	(1ULL << 1)
#define PTE_DIRTY	(1ULL << 2)
#define PTE_WRITE	(1ULL << 3)
#define PTE_SWAP	(1ULL << 4)
#define PTE_ID_SHIFT	8
/* A swap PTE: PTE_SWAP set, not present, the slot in the id bits. */
static inline bool pte_swap(pte_t pte) { return (pte & (PTE_SWAP | PTE_PRESENT)) == PTE_SWAP; }
static inline uint32_t pte_swp_slot(pte_t pte) { return (uint32_t)(pte >> PTE_ID_SHIFT); }
static inline pte_t swp_entry_to_pte(uint32_t slot) { return ((uint64_t)slot << PTE_ID_SHIFT) | PTE_SWAP; }
static inline bool pte_none(pte_t pte) { return pte == 0; }
static inline bool pte_present(pte_t pte) { return pte & PTE_PRESENT; }
static inline struct folio *pte_folio(pte_t pte) { return folio_by_id((uint32_t)(pte >> PTE_ID_SHIFT)); }
static inline pte_t mk_pte(const struct folio *f, uint64_t flags) { return ((uint64_t)f->id << PTE_ID_SHIFT) | flags | PTE_PRESENT; }

/*
 * The kernel's VMA as the locks see it.  The model keeps one
 * vm_area_struct per mmap() call, with its own page tables (below); when
 * adjacent mappings merge into one kernel VMA (vma_merge_new_range()),
 * they share one struct vma_merged: its range, its per-VMA lock and its
 * anon_vma.  munmap() of one mapping splits it (__split_vma()).
 *
 * Invariants: vm_start <= every member's vm_start, vm_end >= every
 * member's vm_end; nr_mappings == members on mm->vmas pointing here;
 * write-locked iff vm_lock_seq == mm->mm_lock_seq.
 */
struct vma_merged {
	uint64_t vm_start, vm_end;	/* the kernel VMA's range */
	struct rw_semaphore vm_lock;	/* vma->vm_lock: readers are faults */
	int64_t vm_lock_seq;		/* mm_lock_seq when write-locked, else older */
	bool anon_vma;			/* anon_vma prepared (__anon_vma_prepare()) */
	int nr_mappings;		/* mappings that share it */
};

struct vm_area_struct {
	uint64_t vm_start, vm_end;	/* byte addresses */
	struct mm_struct *vm_mm;
	struct vma_merged *merged;	/* the kernel VMA this mapping is part of */
	pte_t *ptes;			/* one per 4K page of the VMA */
	struct folio **pmd_huge;	/* per 2M: a PMD-mapped folio, or NULL */
	uint8_t *pmd_flags;		/* per 2M: PMD_* bits of that PMD entry */
	struct spinlock *ptl;		/* per 2M: the split PTE lock */
	uint64_t nr_pmd_huge;		/* non-NULL entries of pmd_huge[] */
	bool thp_eligible;		/* VM_HUGEPAGE or THP=always */
	struct list_head node;		/* on mm->vmas */
	/* file mappings, fork, mprotect, mbind (filemap.c, fork.c, mprotect.c, mempolicy.c) */
	unsigned long vm_flags;		/* VM_READ, VM_WRITE, VM_SHARED, VM_MAYWRITE */
	uint64_t vm_pgoff;		/* file page at vm_start; anon: vm_start >> PAGE_SHIFT */
	struct address_space *vm_file;	/* vma->vm_file->f_mapping; NULL: anonymous */
	struct list_head shared_node;	/* on vm_file->i_mmap (vma->shared.rb) */
	struct anon_vma *anon_vma;	/* shared with forked copies; NULL until a fork */
	struct list_head anon_vma_node;	/* on anon_vma->vmas (the anon_vma_chain) */
	struct mempolicy *vm_policy;	/* mbind(); NULL: the task's (bind to preferred_nid) */
	const struct vm_operations_struct *vm_ops; /* file mappings: the file system's */
};

/* vma->vm_flags (include/linux/mm.h) */
#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_SHARED	0x00000008UL
#define VM_MAYWRITE	0x00000020UL

/* is_cow_mapping(): private and may be written */
static inline bool is_cow_mapping(unsigned long flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}

/* linear_page_index(): the file (or anon) page offset of @addr in @vma. */
static inline uint64_t linear_page_index(const struct vm_area_struct *vma, uint64_t addr)
{
	return ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
}

/*
 * struct anon_vma - the anonymous memory a VMA shares with its forked copies
 * (mm/rmap.c).  The kernel gives each VMA its own anon_vma chained to its
 * parent's; the model keeps one per fork family, listing every VMA whose
 * folios may be shared, which is what rmap_walk_anon() visits.
 * Invariant: nr_vmas == length of vmas; freed when it drops to 0.
 */
struct anon_vma {
	struct rw_semaphore rwsem;	/* root->rwsem: anon_vma_lock_read() by rmap walks */
	struct list_head vmas;		/* vma->anon_vma_node */
	int nr_vmas;
};

/* The PMDs @vma spans: the entries of pmd_huge[], pmd_flags[] and ptl[]. */

/* The index of @addr's PMD in @vma's per-PMD arrays (ptl, pmd_huge, pmd_flags). */
static inline uint64_t vma_pmd_index(const struct vm_area_struct *vma, uint64_t addr)
{
	return (addr - (vma->vm_start & ~(PMD_SIZE - 1))) >> PMD_SHIFT;
}

static inline uint64_t vma_nr_pmds(const struct vm_area_struct *vma)
{
	uint64_t base = vma->vm_start & ~(PMD_SIZE - 1);

	return (vma->vm_end - base + PMD_SIZE - 1) >> PMD_SHIFT;
}

/*
 * Bits of vma->pmd_flags[], the parts of a PMD entry beyond what it maps:
 * the accessed and dirty bits of a huge PMD, and a PMD that collapse has
 * cleared (pmdp_collapse_flush()) and not yet refilled, which a walk sees
 * as pmd_none() and so faults.
 */
#define PMD_YOUNG	(1U << 0)
#define PMD_DIRTY	(1U << 1)
#define PMD_CLEARED	(1U << 2)
/*
 * A PMD that points to a PTE table: its accessed bit, which the MMU sets
 * when a walk goes through it (x86 sets it in non-leaf entries), and
 * MGLRU's two Bloom filters of PTE tables worth walking (exact in the
 * model), by seq % NR_BLOOM_FILTERS.
 */
#define PMD_NONLEAF_YOUNG	(1U << 3)
#define PMD_LRU_GEN_FILTER(i)	(1U << (4 + (i)))

#define MMF_VM_HUGEPAGE	0	/* bit of mm->flags: registered with khugepaged */

struct mm_struct {
	struct rw_semaphore mmap_lock;
	struct list_head vmas;
	struct cpumask cpumask;		/* mm_cpumask(): CPUs that ran it */
	uint16_t asid;			/* PCID tag for the TLB model */
	uint64_t tlb_gen;		/* context.tlb_gen */
	uint64_t mmap_base;		/* top of the top-down mmap area */
	int64_t mm_lock_seq;		/* ++ at mmap_write_unlock()/downgrade */
	long rss_anon;			/* MM_ANONPAGES */
	struct mem_cgroup *memcg;
	int id;
	unsigned long flags;		/* MMF_* */
	struct sim_line line;		/* the mm_struct counters */
	struct list_head mmlist;	/* on sim_mm->mmlist (swapoff's mm->mmlist) */
	sim_time_t next_trim_cpumask;	/* should_trim_cpumask(): at most once a second */
	long swapents;			/* MM_SWAPENTS */
	long rss_file;			/* MM_FILEPAGES */
	long rss_shmem;			/* MM_SHMEMPAGES */
};

/* ---- memory policy (mempolicy.c) ------------------------------------------------ */

/* enum mempolicy_mode (include/uapi/linux/mempolicy.h) */
#define MPOL_DEFAULT	0
#define MPOL_PREFERRED	1
#define MPOL_BIND	2
#define MPOL_INTERLEAVE	3

struct mempolicy {
	unsigned short mode;		/* MPOL_* */
	unsigned long nodes;		/* nodemask, one bit per node */
};

/* ---- the page cache (filemap.c, shmem.c, truncate.c) ------------------------------ */

enum sim_file_kind {
	SIM_FILE_DISK,			/* a regular file on a block device: a miss reads it */
	SIM_FILE_TMPFS,			/* tmpfs (shmem): a miss allocates a zeroed folio */
};

/*
 * struct file_ra_state - the readahead window (include/linux/fs.h): the
 * kernel keeps one per open file; the model one per file (one reader).
 */
struct file_ra_state {
	uint64_t start;			/* where the window starts */
	uint64_t size;			/* pages in it */
	uint64_t async_size;		/* its tail: the mark is on its first folio */
	unsigned int order;		/* the folio order of the last window */
};

/*
 * struct address_space - a file's page cache (include/linux/fs.h).
 * i_pages is the kernel's XArray of folios by index; the model keeps a
 * flat array over the file's size, a large folio in each slot it covers
 * (the XArray's multi-index entry).
 *
 * Invariants (under i_pages_lock): nrpages == number of non-NULL i_pages[];
 * every folio in i_pages[] has PG_file, ->mapping == this, ->index == the
 * first slot it fills, aligned to its size, and holds one reference per
 * page for the cache; i_mmap lists exactly the VMAs whose vm_file is this
 * (under i_mmap_rwsem).
 */
struct address_space {
	struct spinlock i_pages_lock;	/* i_pages.xa_lock (IRQs off) */
	struct folio **i_pages;		/* [nr_slots]: the folio at each index, or NULL */
	uint64_t nr_slots;		/* pages of i_size */
	unsigned long nrpages;		/* folios in the cache */
	struct rw_semaphore i_mmap_rwsem;
	struct list_head i_mmap;	/* VMAs mapping it (vma->shared_node) */
	uint64_t i_size;		/* bytes */
	enum sim_file_kind kind;
	unsigned long i_ino;		/* inode number: shmem biases interleave by it */
	struct mempolicy policy;	/* shmem: the inode's shared policy (mbind) */
	bool has_policy;		/* policy set */
	bool anon_shared;		/* shmem_zero_setup()'s: freed with its last mapping */
	bool sparse;			/* disk: no blocks (ftruncate() made it): every page a
					 * hole, read as zeroes without I/O */
	bool large_folios;		/* mapping_large_folio_support(): readahead may
					 * add folios up to MAX_PAGECACHE_ORDER */
	struct file_ra_state ra;	/* file->f_ra */
	const struct vm_operations_struct *vm_ops; /* what mmap() gives its VMAs */
	struct list_head node;		/* on sim_mm->files */
};

/* The pages below i_size: a fault at or beyond is SIGBUS. */
static inline uint64_t i_size_pages(const struct address_space *mapping)
{
	return (mapping->i_size + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/* Node statistics (enum node_stat_item, /proc/vmstat's "nr_" gauges). */
enum node_stat_item {
	NR_FILE_PAGES,			/* nr_file_pages: page cache, shmem included */
	NR_FILE_MAPPED,			/* nr_mapped: page cache pages mapped by a PTE */
	NR_FILE_DIRTY,			/* nr_dirty */
	NR_SHMEM,			/* nr_shmem */
	NR_SHMEM_PMDMAPPED,		/* nr_shmem_pmdmapped: shmem folios a PMD maps */
	NR_FILE_PMDMAPPED,		/* nr_file_pmdmapped: page cache folios a PMD maps */
	NR_VM_NODE_STAT_ITEMS
};

/*
 * The line of vm_stat[] that holds @item: the kernel's enum (v6.x
 * include/linux/mmzone.h) has NR_FILE_MAPPED..NR_SHMEM at 18-23 and the
 * PMD-mapped counts at 25 and 27, 8 atomic_long_t a line: two lines.
 */
#define NODE_STAT_LINES 2
static inline int node_stat_line_of(enum node_stat_item item)
{
	return item == NR_SHMEM_PMDMAPPED || item == NR_FILE_PMDMAPPED;
}

/*
 * struct vm_fault - one fault as the fault handlers see it (include/linux/mm.h).
 * Return values of the handlers are the kernel's VM_FAULT_* bits.
 */
struct vm_fault {
	struct vm_area_struct *vma;
	uint64_t address;		/* the faulting address, page aligned */
	uint64_t pgoff;			/* linear_page_index(vma, address) */
	unsigned int flags;		/* FAULT_FLAG_* */
	struct folio *folio;		/* the handler's result: locked, one reference */
	struct folio *cow_folio;	/* do_cow_fault(): the new anonymous folio */
};

#define VM_FAULT_OOM		0x000001
#define VM_FAULT_SIGBUS		0x000002
#define VM_FAULT_MAJOR		0x000004
#define VM_FAULT_NOPAGE		0x000100
#define VM_FAULT_LOCKED		0x000200
#define VM_FAULT_FALLBACK	0x000800
#define FAULT_FLAG_WRITE	0x2	/* (the model's FAULT_FLAG_VMA_LOCK is 0x1) */

/*
 * struct vm_operations_struct - what a file system does on a fault of its
 * mapping: generic_file_vm_ops for a file on a device, shmem_vm_ops for
 * tmpfs (which has no page_mkwrite).
 */
struct vm_operations_struct {
	const char *name;
	int (*fault)(struct vm_fault *vmf);
	int (*map_pages)(struct vm_fault *vmf, uint64_t start_pgoff, uint64_t end_pgoff);
	int (*page_mkwrite)(struct vm_fault *vmf);
};

/*
 * The write bit of @vma's vm_page_prot (vm_get_page_prot(),
 * vma_wants_writenotify()): a PTE is mapped writable at once only in a
 * shared, writable mapping that needs no write notification (anonymous
 * shared memory, or a file without page_mkwrite: tmpfs).  A private
 * mapping's PTEs stay read-only until a COW.
 */
static inline bool vma_page_prot_write(const struct vm_area_struct *vma)
{
	if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) != (VM_SHARED | VM_WRITE))
		return false;
	return !vma->vm_file || !vma->vm_ops->page_mkwrite;
}

/* ---- mmu_gather --------------------------------------------------------------- */

#define MMU_GATHER_BUNDLE	8		/* the on-stack entries */
#define MAX_GATHER_BATCH	((PAGE_SIZE - 16) / 8)	/* a batch page's entries: 510 */
#define MAX_GATHER_BATCH_COUNT	(sim_mm->consts.max_gather_batch_count)	/* batch pages */
#define MMU_GATHER_MAX		(MMU_GATHER_BUNDLE + MAX_GATHER_BATCH_COUNT * MAX_GATHER_BATCH)

struct mmu_gather {
	struct mm_struct *mm;
	uint64_t start, end;		/* range to flush */
	bool freed_tables;
	unsigned int nr;		/* encoded entries used */
	unsigned int nr_folios;
	unsigned int nr_freed;		/* folios[0..nr_freed) already put */
	struct folio **folios;		/* folios to free after the flush */
	unsigned int *refs;		/* their page counts (NR_PAGES_NEXT) */
	unsigned int cap;
	struct list_head node;		/* on the model's list of gathers */
};

/* ---- the variants ---------------------------------------------------------------- */

/*
 * What a scenario's variant changes in the kernel.  Code paths test these
 * at run time; both states of each change live in one binary.
 */
struct mm_variant {
	const char *name;		/* for tests; an experiment names it in struct sim_variant */
	bool queue_mthp_on_fault;	/* the mTHP shrinker series queues every folio */
	bool unqueue_after_lru_unlock;	/* P1: folio_batch_unqueue_deferred_split() */
	bool batch_dirty_flush;		/* P2: one flush per PAGEVEC_SIZE dirty folios */
	bool khugepaged_move_tail;	/* P3 */
	bool khugepaged_skip_lazyfree;	/* P3 as merged: SCAN_PAGE_LAZYFREE */
	bool khugepaged_count_scanned;	/* P3 as merged: progress = entries examined */
	/* kernel constants (docs/kernel.md); 0: the modelled kernel's value */
	unsigned int pagevec_size;		/* PAGEVEC_SIZE, 1..PAGEVEC_SIZE_MAX */
	unsigned int swap_cluster_max;		/* SWAP_CLUSTER_MAX */
	unsigned int memcg_charge_batch;	/* MEMCG_CHARGE_BATCH */
	unsigned int pcp_batch;			/* every pcp's batch (zone_batchsize()) */
	unsigned int pcp_batch_scale_max;	/* CONFIG_PCP_BATCH_SCALE_MAX + 1 (0 is a value) */
	unsigned int min_lru_batch;		/* MIN_LRU_BATCH (MGLRU) */
	unsigned int khugepaged_pmd_progress;	/* progress per PMD range scanned */
	unsigned int max_gather_batch_count;	/* MAX_GATHER_BATCH_COUNT */
	unsigned int max_nr_folios_per_free;	/* MAX_NR_FOLIOS_PER_FREE */
};

/*
 * struct mm_constants - the kernel constants of one run: a variant's
 * settings, each 0 replaced by the modelled kernel's value
 * (mm_constants_init()).  The kernel's macros read these.
 */
struct mm_constants {
	unsigned int pagevec_size;		/* PAGEVEC_SIZE: 31 */
	unsigned long swap_cluster_max;		/* SWAP_CLUSTER_MAX: 32 */
	unsigned int memcg_charge_batch;	/* MEMCG_CHARGE_BATCH: 64 */
	int pcp_batch;				/* zone_batchsize() of a zone >= 1 GiB: 63 */
	int pcp_batch_scale_max;		/* CONFIG_PCP_BATCH_SCALE_MAX: 5 */
	unsigned long min_lru_batch;		/* MIN_LRU_BATCH: BITS_PER_LONG, 64 */
	unsigned int khugepaged_pmd_progress;	/* HPAGE_PMD_NR: 512 */
	unsigned long max_gather_batch_count;	/* MAX_GATHER_BATCH_COUNT: 10000 / 510 = 19 */
	unsigned int max_nr_folios_per_free;	/* MAX_NR_FOLIOS_PER_FREE: 512 */
};

void mm_constants_init(struct mm_constants *c, const struct mm_variant *v);

/* variant.c: set a field of struct mm_variant by name (workload files' [variant]) */
int mm_variant_set(struct mm_variant *v, const char *key, const char *value, char *err,
		   size_t len);
const char *mm_variant_key_name(int i, const char **help);

/* ---- the whole model --------------------------------------------------------- */

/*
 * Invariant: lru_isolating == NULL, or it is a folio whose PG_lru this CPU
 * has cleared (folio_test_clear_lru()) and which is still on its LRU list
 * while the CPU takes lru_lock to move or delete it (place ISOLATED).
 */
struct cpu_fbatches {
	struct folio_batch lru_add;
	struct folio_batch lru_deactivate;
	struct folio_batch lru_lazyfree;
	struct folio_batch lru_activate;
	struct folio *lru_isolating;	/* see above; for mm/check.c */
};

struct mm_model {
	const struct sim_profile *prof;
	struct memsys *memsys;		/* the machine's memory system (src/hw/memsys.c) */
	const struct mm_variant *variant;
	struct mm_constants consts;		/* the variant's kernel constants */
	int nr_cpus, nr_nodes;
	struct zone zones[SIM_MAX_NODES];	/* one ZONE_NORMAL per node */
	struct mem_cgroup *root_memcg;		/* the workload's memcg */
	struct list_lru deferred_split_lru;
	struct cpu_fbatches *fbatches;		/* [nr_cpus] */
	struct memcg_stock_pcp *stock;		/* [nr_cpus] */
	struct folio **folio_chunks;		/* the folio table */
	uint32_t nr_folios_alloc;		/* folio structs created */
	uint32_t nr_chunks;
	struct list_head gathers;		/* live mmu_gathers */
	int nr_mms;
	bool split_underused_thp;		/* thp_underused queueing on */
	int mthp_order;				/* the enabled anon mTHP order */
	bool queue_after_ptl;			/* assumption: the mTHP series queues after the PTL */
	bool unqueue_batch_locked;		/* assumption: P1 takes the sublist lock per batch */
	int preferred_nid;			/* memory policy: bind to this node */
	bool thp_pmd_enabled;			/* PMD THP on: hugepage_pmd_enabled() */
	bool lru_gen_enabled;			/* MGLRU on: lru_gen_enabled() */
	/* derived costs, ps */
	sim_time_t list_op_ps, folio_op_ps, pte_op_ps, fault_entry_ps, syscall_ps;
	sim_time_t fault_spread_ps;	/* mm.fault_spread_ns, at most fault_entry_ps */
	sim_time_t lru_add_ps, lru_del_ps;	/* mm.lru_add_ns, lru_del_ns */
	sim_time_t i_pages_add_ps, i_pages_del_ps;	/* mm.i_pages_add_ns, i_pages_del_ns */
	sim_time_t shmem_acct_ps;		/* mm.shmem_acct_ns */
	sim_time_t shmem_get_ps;		/* mm.shmem_get_ns */
	sim_time_t bh_begin_ps, bh_commit_ps, bh_dirty_ps;	/* mm.bh_*_ns */
	sim_time_t zap_pte_ps, rmap_del_ps, uncharge_ps, page_free_ps;	/* an unmap's, measured */
	uint32_t access_loop[MMU_LOOP_NR];	/* mem.access_loop: mcycles by pattern */
	uint32_t check_epoch;
	/* reclaim and swap (seed 003) */
	struct swap_info_struct *swap;		/* the one swap device, or NULL */
	struct tlbflush_unmap_batch **tlb_ubc;	/* per task (by pid): current->tlb_ubc */
	int nr_tlb_ubc;
	struct list_head mmlist;		/* every mm, for the checks */
	struct list_head reclaim_ctxs;		/* live reclaim isolations, for the checks */
	/* the page cache (filemap.c) */
	long node_stat[SIM_MAX_NODES][NR_VM_NODE_STAT_ITEMS];	/* node_page_state() */
	/*
	 * vmstat's per-CPU deltas (per_cpu_nodestats->vm_node_stat_diff), each
	 * folded into the node's and the global counters past the node's
	 * stat_threshold (node_stat_mod_folio()); the counters' lines: the
	 * node's vm_stat[] and the global vm_node_stat[], 8 counters a line
	 * in the kernel's order (node_stat_line_of()).
	 */
	long (*node_stat_diff)[SIM_MAX_NODES][NR_VM_NODE_STAT_ITEMS];	/* [nr_cpus] */
	int stat_threshold[SIM_MAX_NODES];	/* calculate_normal_threshold() */
	struct sim_line node_stat_line[SIM_MAX_NODES][NODE_STAT_LINES];	/* pgdat->vm_stat[] */
	struct sim_line vm_node_stat_line[NODE_STAT_LINES];	/* the global vm_node_stat[] */
	sim_time_t bdev_busy_until;		/* the files' block device: its transfer queue */
	unsigned long last_ino;			/* get_next_ino() */
	struct list_head files;			/* every address_space, for the checks */
};

extern struct mm_model *sim_mm;	/* the model of the running engine */

static inline unsigned int folio_batch_space(const struct folio_batch *fb)
{
	return PAGEVEC_SIZE - fb->nr;
}

/* Add @folio; returns the space left (0: the caller must flush). */
static inline unsigned int folio_batch_add(struct folio_batch *fb, struct folio *folio)
{
	fb->folios[fb->nr++] = folio;
	return folio_batch_space(fb);
}

struct mm_model *mm_model_create(struct sim_engine *e, const struct mm_variant *v,
				 long node_pages, char *err, size_t len);
void mm_model_destroy(struct mm_model *m);

/* page_alloc.c */
struct folio *folio_alloc_node(int order, int nid);
void free_unref_folios(struct folio_batch *folios);
void free_frozen_folio(struct folio *folio);
/* The zone's free lists and pcps; zone_set_wmarks_and_high() then gives pcp->high its bounds. */
void zone_init(struct zone *zone, int nid, long pages, int nr_cpus, int pcp_batch);
void zone_set_wmarks_and_high(struct zone *zone, long lowmem_pages, int cpus_of_node,
			      uint64_t data_slice_bytes);
void zone_destroy(struct zone *zone);
int decay_pcp_high(struct zone *zone, struct per_cpu_pages *pcp);
bool zone_buddy_check(const struct zone *zone);
void mem_write_bandwidth(int nid, uint64_t bytes, uint64_t core_gbps);
void mem_zero_pages(int nid, uint64_t bytes);

/* memcontrol.c */
struct mem_cgroup *mem_cgroup_create(long max_pages, int nr_nodes);
int mem_cgroup_charge(struct folio *folio, struct mem_cgroup *memcg);
int mem_cgroup_swapin_charge_folio(struct folio *folio, struct mem_cgroup *memcg);
void mem_cgroup_uncharge_folios(struct folio_batch *folios);
void mem_cgroup_uncharge(struct folio *folio);
struct lruvec *folio_lruvec(const struct folio *folio);

/* list_lru.c */
void list_lru_init_named(struct list_lru *lru, const char *name, int nr_nodes);
struct list_lru_one *list_lru_lock_irqsave(struct list_lru *lru, int nid,
					   struct mem_cgroup *memcg, unsigned long *flags);
void list_lru_unlock_irqrestore(struct list_lru_one *l, unsigned long *flags);
bool list_lru_add_locked(struct list_lru *lru, struct list_lru_one *l, struct list_head *item,
			 struct sim_line *item_line);
bool list_lru_del_locked(struct list_lru *lru, struct list_lru_one *l, struct list_head *item,
			 struct sim_line *item_line);

/* huge_memory.c */
void deferred_split_folio(struct folio *folio, bool partially_mapped);
bool folio_unqueue_deferred_split(struct folio *folio);
bool folio_unqueue_deferred_split_raw(struct folio *folio);
void folio_batch_unqueue_deferred_split(struct folio_batch *fbatch);

/* folio.c (mm/swap.c before 2026) and mm_inline.h */
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio);
void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio);
void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio);
struct lruvec *folio_lruvec_relock_irqsave(struct folio *folio, struct lruvec *locked,
					   unsigned long *flags);
void lruvec_unlock_irqrestore(struct lruvec *lruvec, unsigned long flags);
void folio_add_lru(struct folio *folio);
void folio_add_lru_fault(struct folio *folio);
void lru_gen_init_lruvec(struct lruvec *lruvec);
bool lru_gen_add_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming);
unsigned long lru_gen_folio_seq(const struct lruvec *lruvec, const struct folio *folio,
				bool reclaiming);
bool lru_gen_del_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming);
void lru_gen_update_size(struct lruvec *lruvec, struct folio *folio, int old_gen, int new_gen);
static inline int lru_gen_from_seq(unsigned long seq) { return (int)(seq % MAX_NR_GENS); }
/* folio_lru_gen(): the folio's generation, -1 when it is on no lrugen list. */
static inline int folio_lru_gen(const struct folio *folio)
{
	return (int)((folio->flags & LRU_GEN_MASK) >> LRU_GEN_PGOFF) - 1;
}
void folios_put_refs(struct folio_batch *folios, unsigned int *refs);
void folios_put(struct folio_batch *folios);
void folio_put(struct folio *folio);
void lru_add_drain(void);
void lru_add_drain_cpu(int cpu);
void lru_add_drain_all(void);
void folio_deactivate(struct folio *folio);
void folio_mark_lazyfree(struct folio *folio);
enum lru_list folio_lru_list(const struct folio *folio);
bool folio_may_be_lru_cached(const struct folio *folio);

/* vmscan.c */
unsigned int move_folios_to_lru(struct list_head *list);
struct vm_area_struct;
void lru_gen_look_around(struct vm_area_struct *vma, uint64_t addr, pte_t *pte);

/* rmap.c */
void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, uint64_t addr);
void folio_remove_rmap_ptes(struct folio *folio, int nr, struct vm_area_struct *vma);
void folio_remove_rmap_pmd(struct folio *folio, struct vm_area_struct *vma);
void folio_add_file_rmap_pmd(struct folio *folio, struct vm_area_struct *vma);

/* memory.c */
int handle_mm_fault(struct vm_area_struct *vma, uint64_t addr, bool write);
int do_user_addr_fault(struct mm_struct *mm, uint64_t addr, bool write);
#define VM_FAULT_RETRY		0x400	/* the fault must be retried under mmap_lock */
#define FAULT_FLAG_VMA_LOCK	0x1	/* the fault holds the per-VMA lock only */
struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm, uint64_t addr);
void vma_end_read(struct vm_area_struct *vma);
void vma_start_write(struct vma_merged *vm, struct mm_struct *mm);
static inline bool vma_is_write_locked(const struct vma_merged *vm, const struct mm_struct *mm)
{
	return vm->vm_lock_seq == mm->mm_lock_seq;
}
void mmap_write_lock(struct mm_struct *mm);
void mmap_write_unlock(struct mm_struct *mm);
void mmap_write_downgrade(struct mm_struct *mm);
void unmap_vmas(struct mmu_gather *tlb, struct vm_area_struct *vma);
struct vm_area_struct *find_vma(struct mm_struct *mm, uint64_t addr);
void folio_zero_user(struct folio *folio, struct vm_area_struct *vma, uint64_t addr_hint);

/* mmu_gather.c */
void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_remove_folio_pages(struct mmu_gather *tlb, struct folio *folio, int nr_pages);
void tlb_flush_mmu(struct mmu_gather *tlb);
void tlb_finish_mmu(struct mmu_gather *tlb);

/* tlb.c (arch/x86/mm/tlb.c) */
#define TLB_FLUSH_ALL	UINT64_MAX
void flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end, bool freed_tables);
void switch_mm_irqs_off(struct mm_struct *next);
void mm_switch_hook_install(bool on);
/* Set by a per-CPU TLB model (src/mm/access.c): flush [start, end) of @mm on @cpu. */
extern void (*arch_tlb_flush_hook)(int cpu, struct mm_struct *mm, uint64_t start, uint64_t end);

/* khugepaged.c */
void khugepaged_enter_vma(struct vm_area_struct *vma);
void khugepaged_enter_raw(struct mm_struct *mm);
void khugepaged_exit_raw(struct mm_struct *mm);
void khugepaged_move_tail(struct mm_struct *mm);

/* madvise.c */
int madvise_cold(struct mm_struct *mm, uint64_t start, uint64_t len);
int madvise_free(struct mm_struct *mm, uint64_t start, uint64_t len);
int madvise_dontneed(struct mm_struct *mm, uint64_t start, uint64_t len);

/* mmap.c */
struct mm_struct *mm_alloc(struct mem_cgroup *memcg);
void mm_free(struct mm_struct *mm);
uint64_t vm_mmap_anon(struct mm_struct *mm, uint64_t len, bool thp_eligible);
int vm_munmap(struct mm_struct *mm, uint64_t addr, uint64_t len);

/* filemap.c */
struct address_space *sim_file_create(uint64_t size, enum sim_file_kind kind);
struct address_space *sim_file_create_sparse(uint64_t size);
void sim_file_destroy(struct address_space *mapping);
struct folio *filemap_get_entry(struct address_space *mapping, uint64_t index);
int filemap_add_folio(struct address_space *mapping, struct folio *folio, uint64_t index,
		      struct mem_cgroup *memcg);
void filemap_remove_folio_locked(struct folio *folio);
int filemap_fault(struct vm_fault *vmf);
void filemap_read_folio(struct folio *folio);
void folio_buffers_walk(struct folio *folio, sim_time_t per_bh);
uint64_t filemap_read(struct address_space *mapping, uint64_t pos, uint64_t count,
		      struct mem_cgroup *memcg);
int filemap_map_pages(struct vm_fault *vmf, uint64_t start_pgoff, uint64_t end_pgoff);
int filemap_page_mkwrite(struct vm_fault *vmf);
bool folio_mark_dirty(struct folio *folio);
void folio_cancel_dirty(struct folio *folio);
void node_stat_mod_folio(struct folio *folio, enum node_stat_item item, long nr);
int vmstat_normal_threshold(long pages, int nr_cpus);
long global_node_page_state(enum node_stat_item item);
extern const struct vm_operations_struct generic_file_vm_ops;
uint64_t vm_mmap_file(struct mm_struct *mm, struct address_space *mapping, uint64_t pgoff,
		      uint64_t len, bool shared, bool writable);
uint64_t vm_mmap_shared_anon(struct mm_struct *mm, uint64_t len);

/* shmem.c */
int shmem_get_folio_gfp(struct address_space *mapping, uint64_t index, struct folio **foliop,
			struct mem_cgroup *memcg, struct vm_fault *vmf);
int shmem_fault(struct vm_fault *vmf);
extern const struct vm_operations_struct shmem_vm_ops;

/* truncate.c */
void truncate_inode_pages_range(struct address_space *mapping, uint64_t lstart, uint64_t lend);
void unmap_mapping_range(struct address_space *mapping, uint64_t holebegin, uint64_t holelen);
int sim_file_truncate(struct address_space *mapping, uint64_t size);
void zap_page_range_single(struct vm_area_struct *vma, uint64_t address, uint64_t size,
			   bool even_cows);

/* memory.c: file faults, copy-on-write, fork */
int do_fault(struct vm_fault *vmf);
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
void folio_add_file_rmap_ptes(struct folio *folio, int nr, struct vm_area_struct *vma);

/* fork.c, mmap.c's dup_mmap() */
struct mm_struct *dup_mm(struct mm_struct *oldmm);
struct sim_task *sim_fork(const char *comm, sim_task_fn fn, void *arg,
			  struct mm_struct **child_mm);
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm);
void anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
void unlink_anon_vmas(struct vm_area_struct *vma, bool locked);
void sim_anon_rmap_rehome(struct folio *folio, struct vm_area_struct *gone);

/* mprotect.c */
#define PROT_NONE	0x0
#define PROT_READ	0x1
#define PROT_WRITE	0x2
int do_mprotect(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned long prot);

/* madvise.c: MADV_PAGEOUT, MADV_POPULATE_(READ|WRITE); vmscan.c: reclaim_pages() */
#define MADV_DONTNEED		4	/* include/uapi/asm-generic/mman-common.h */
#define MADV_FREE		8
#define MADV_HUGEPAGE		14
#define MADV_NOHUGEPAGE		15
#define MADV_COLD		20
#define MADV_PAGEOUT		21
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
int madvise_pageout(struct mm_struct *mm, uint64_t start, uint64_t len);
int madvise_populate(struct mm_struct *mm, uint64_t start, uint64_t len, bool write);
unsigned long reclaim_pages(struct list_head *folio_list);
int do_madvise(struct mm_struct *mm, uint64_t start, uint64_t len, int behavior);


/* mempolicy.c */
int do_mbind(struct mm_struct *mm, uint64_t start, uint64_t len, unsigned short mode,
	     unsigned long nodemask);
struct folio *vma_alloc_folio(int order, struct vm_area_struct *vma, uint64_t addr);
struct folio *folio_alloc_mpol(int order, const struct mempolicy *pol, uint64_t ilx);
void mpol_free_vma(struct vm_area_struct *vma);

/* ---- swap (swapfile.c, swap_state.c) ------------------------------------------ */

#define SWAPFILE_CLUSTER	512
#define SWAP_MAP_COUNT		(1U << 31)	/* a swap PTE holds the slot */
#define SWAP_MAP_CACHE_MASK	(SWAP_MAP_COUNT - 1)	/* swap cache folio id + 1, 0: none */

/*
 * struct swap_cluster_info - SWAPFILE_CLUSTER slots under one lock; in 2026
 * trees the swap table (the swap cache) lives in the cluster as well.
 * Invariant: count == slots of the cluster whose swap_map entry is not 0.
 */
struct swap_cluster_info {
	struct spinlock lock;
	uint32_t count;			/* slots in use */
};

/*
 * struct swap_info_struct - one swap device (a SWP_SYNCHRONOUS_IO device)
 *
 * Invariant: inuse_pages == number of slots with swap_map[slot] != 0; a
 * slot is free (0), or held by exactly one swap PTE (SWAP_MAP_COUNT), by the
 * swap cache (the folio id), or by both.
 */
struct swap_info_struct {
	struct spinlock lock;		/* si->lock: picks a free cluster */
	uint32_t *swap_map;		/* per slot: SWAP_MAP_COUNT | cache folio id + 1 */
	struct swap_cluster_info *cluster_info;
	uint32_t *percpu_cluster;	/* per CPU: the cluster it allocates from */
	uint32_t *percpu_next;		/* per CPU: the slot to try next (percpu_cluster->next) */
	uint32_t max;			/* slots */
	uint32_t nr_clusters;
	uint32_t inuse_pages;
	uint32_t next_cluster;		/* where the search for a free cluster goes on */
	sim_time_t busy_until;		/* the device's transfer queue (bandwidth) */
	sim_time_t write_ps, read_ps;	/* per request latency */
	bool zram;			/* compressed RAM: the CPU does the I/O */
	uint8_t *slot_data;		/* per slot: enum folio_data written (zeromap bit, ZRAM_SAME) */
	uint64_t zram_comp_bpus, zram_decomp_bpus; /* bytes per us per core */
	uint64_t bytes_per_us;		/* bandwidth */
};

int swap_device_create(uint64_t bytes, bool zram);
void swap_device_destroy(void);
bool folio_alloc_swap(struct folio *folio);
bool add_to_swap(struct folio *folio);
void delete_from_swap_cache(struct folio *folio);
void delete_from_swap_cache_locked(struct folio *folio);
struct swap_cluster_info *swap_cluster_lock(uint32_t slot);
void swap_cluster_unlock(struct swap_cluster_info *ci);
bool folio_free_swap(struct folio *folio);
void swap_free(uint32_t slot);
int free_swap_and_cache(uint32_t slot);
struct folio *swap_cache_get_folio(uint32_t slot);
void swap_writepage(struct folio *folio);
void swap_read_folio(struct folio *folio, uint32_t slot);
void swap_dup_to_pte(uint32_t slot);

/* ---- reclaim (vmscan.c, rmap.c) --------------------------------------------------- */

/* include/linux/mm_types_task.h; x86's arch part inline. */
struct tlbflush_unmap_batch {
	struct cpumask cpumask;		/* arch.cpumask: CPUs that may cache the PTEs */
	bool unmapped_pages;		/* arch.unmapped_pages */
	bool flush_required;		/* a flush is pending */
	bool writable;			/* a cleared PTE was dirty: flush before I/O */
	struct folio **stale;		/* model: folios with PG_stale_tlb set */
	unsigned int nr_stale, cap;
};

enum ttu_flags { TTU_BATCH_FLUSH = 1 << 0 };

/* Isolated folios of one reclaim pass, registered for the checks. */
struct reclaim_isolation {
	struct list_head node;		/* on sim_mm->reclaim_ctxs */
	struct list_head *lists[3];	/* lists holding isolated folios */
	struct folio_batch *batch;	/* flush_folios, or NULL */
	struct folio *cur;		/* the folio being worked on, or NULL */
};

struct tlbflush_unmap_batch *current_tlb_ubc(void);
int folio_referenced(struct folio *folio, bool is_locked);
bool try_to_unmap(struct folio *folio, enum ttu_flags flags);
void try_to_unmap_flush(void);
void try_to_unmap_flush_dirty(void);
void arch_tlbbatch_flush(struct tlbflush_unmap_batch *batch);
bool folio_trylock(struct folio *folio);
void folio_lock(struct folio *folio);
void folio_unlock(struct folio *folio);
unsigned long try_to_free_mem_cgroup_pages(struct mem_cgroup *memcg, unsigned long nr_pages);
pte_t *vma_pte_lookup(struct vm_area_struct *vma, uint64_t addr);
struct spinlock *pte_lockptr_lookup(struct vm_area_struct *vma, uint64_t addr);

/* check.c */
void mm_check_invariants(void *arg);
void mm_check_final(void);

#endif /* MMSIM_MM_H */
