// SPDX-License-Identifier: GPL-2.0-only
/*
 * Folio reference counting and the LRU batches (mm/folio.c, the file called
 * mm/swap.c before 2026) with the lruvec helpers of include/linux/mm_inline.h
 * and memcontrol.c's folio_lruvec_relock_irqsave().
 *
 * Mirrors: folio_add_lru() -> folio_batch_add_and_move() -> folio_batch_move_lru()
 * -> lru_add(); folios_put_refs() with page_cache_release_locked() (the
 * kernel's __page_cache_release()); folio_put() -> folio_put_raw() (__folio_put());
 * lru_add_drain(); folio_deactivate() and folio_mark_lazyfree() batches.
 *
 * P1 lives here.  Variant `before` unqueues each dying folio from the
 * deferred split queue inside the loop, where lru_lock is held for every
 * folio of the batch but the first; variant `after` (sim_mm->variant->
 * unqueue_after_lru_unlock) calls folio_batch_unqueue_deferred_split() after
 * the unlock and before mem_cgroup_uncharge_folios():
 *
 *   before                                   after
 *   for each folio with ref -> 0:            for each folio with ref -> 0:
 *     [lru_lock held after the 1st]            relock lru_lock, del from LRU
 *     sublist lock; del; unlock              unlock lru_lock
 *     relock lru_lock, del from LRU          for each: sublist lock; del; unlock
 *   unlock lru_lock                          uncharge; free
 *   uncharge; free
 *
 * MGLRU (sim_mm->lru_gen_enabled, include/linux/mm_inline.h of v6.14-v7.0):
 * lruvec_add_folio() and lruvec_del_folio() hand the folio to
 * lru_gen_add_folio() and lru_gen_del_folio(), which keep it on
 * lruvec->lrugen.folios[gen] (lru_gen_distance() places it) and its
 * generation in folio->flags; folio_add_lru_fault() is folio_add_lru()
 * under lru_gen_in_fault(): the new folio is marked active.
 *
 * Page cache folios (issue 30) go through the same batches: a disk file's
 * to the file lists (LRU_INACTIVE_FILE, LRU_ACTIVE_FILE: !PG_swapbacked),
 * tmpfs's to the anon lists, under the same lruvec->lru_lock; with MGLRU
 * on, a disk file's folios stay on the two file lists.
 * Left out: mlock and unevictable handling beyond the flag, zone-device and
 * hugetlb folios; MGLRU's file types, zones and tiers (LRU_REFS_MASK: the
 * accesses through file descriptors; anon has only PG_referenced and
 * PG_workingset).
 *
 * Lock order: per-CPU batch (local_lock) -> lruvec->lru_lock (IRQs off)
 * -> deferred_split_lru sublist lock (variant `before` only).
 */
#include "mm/mm.h"

/* ---- references ------------------------------------------------------ */

void folio_get(struct folio *folio)
{
	SIM_BUG_ON_FOLIO(folio->_refcount <= 0, folio);
	folio->_refcount++;
	sim_line_rmw(&folio->line);
}

/*
 * atomic_sub_and_test(): the line is this CPU's first (sim_line_rmw() may
 * wait, and other CPUs run meanwhile), then the subtraction and its test
 * are one step, so two CPUs that drop the last two references cannot both
 * see zero.
 */
bool folio_ref_sub_and_test(struct folio *folio, int nr)
{
	sim_line_rmw(&folio->line);
	folio->_refcount -= nr;
	SIM_BUG_ON_FOLIO(folio->_refcount < 0, folio);
	return folio->_refcount == 0;
}

bool folio_put_testzero(struct folio *folio)
{
	return folio_ref_sub_and_test(folio, 1);
}

/* folio_ref_freeze(): cmpxchg @count -> 0. */
bool folio_ref_freeze(struct folio *folio, int count)
{
	sim_line_rmw(&folio->line);
	if (folio->_refcount != count)
		return false;
	folio->_refcount = 0;
	return true;
}

/* ---- lruvec list operations (mm_inline.h) ------------------------------ */

enum lru_list folio_lru_list(const struct folio *folio)
{
	enum lru_list lru;

	if (folio_test(folio, PG_unevictable))
		return LRU_UNEVICTABLE;
	lru = folio_test(folio, PG_swapbacked) ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE;
	if (folio_test_active(folio))
		lru += 1;
	return lru;
}

/*
 * update_lru_size(): the vmstat counters are per CPU (local lines), but
 * mem_cgroup_update_lru_size() writes lru_zone_size, shared by all CPUs.
 */
static void update_lru_size(struct lruvec *lruvec, enum lru_list lru, long nr_pages, int nr)
{
	static const char *const lru_names[NR_LRU_LISTS] = {	/* /proc/vmstat's, after "nr_" */
		"inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable",
	};

	lruvec->nr_pages[lru] += nr_pages;
	sim_trace_counter("nr_", lru_names[lru], lruvec, lruvec->nr_pages[lru]);
	lruvec->nr_folios[lru] += nr;
	sim_line_write(&lruvec->size_line);
	sim_cost_cpu_ps(sim_mm->folio_op_ps);
}

/*
 * list_add (or list_add_tail) of @folio on the list at @head, whose line is
 * @head_line: it loads head->next (a dependent load of the head's line),
 * then stores to the neighbour, the folio and the head.  The classic lists
 * and MGLRU's generations both add this way.
 */
static void lru_list_add_charged(struct list_head *head, struct sim_line *head_line,
				 struct folio *folio, bool tail)
{
	struct list_head *neighbour = tail ? head->prev : head->next;

	sim_line_read(head_line);
	sim_line_write(head_line);
	if (neighbour != head)
		sim_line_write(&container_of(neighbour, struct folio, lru_node)->line);
	sim_line_write(&folio->line);
	sim_cost_cpu_ps(sim_mm->lru_add_ps);	/* mm.lru_add_ns: lru_add()'s work */
	if (tail)
		list_add_tail(&folio->lru_node, head);
	else
		list_add(&folio->lru_node, head);
}

static void lruvec_list_insert(struct lruvec *lruvec, struct folio *folio, bool tail)
{
	enum lru_list lru = folio_lru_list(folio);

	SIM_BUG_ON_FOLIO(!list_empty(&folio->lru_node), folio);
	lru_list_add_charged(&lruvec->lists[lru], &lruvec->head_line[lru], folio, tail);
	folio->lru = (uint8_t)lru;
	update_lru_size(lruvec, lru, folio_nr_pages(folio), 1);
}

/* ---- MGLRU's lists (mm_inline.h) ---------------------------------------------- */

/**
 * lru_gen_init_lruvec - empty generations: max_seq = MIN_NR_GENS + 1, min_seq 0
 * @lruvec: the lruvec
 *
 * Context: creation of the memcg.
 */
void lru_gen_init_lruvec(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned int gen;

	lrugen->max_seq = MIN_NR_GENS + 1;
	lrugen->min_seq = 0;
	lrugen->mm_seq = MIN_NR_GENS;	/* lru_gen_init_mm_state(): max_seq - 1 */
	lrugen->mm_head = -1;
	spin_lock_init_named(&lrugen->mm_list_lock, "&mm_list->lock");
	for (gen = 0; gen < MAX_NR_GENS; gen++) {
		INIT_LIST_HEAD(&lrugen->folios[gen]);
		lrugen->nr_pages[gen] = 0;
		lrugen->head_line[gen].last_writer = -1;
	}
}

/* lru_gen_is_active(): the two youngest generations count as active in /proc. */
static bool lru_gen_is_active(const struct lruvec *lruvec, int gen)
{
	unsigned long max_seq = lruvec->lrugen.max_seq;

	return gen == lru_gen_from_seq(max_seq) || gen == lru_gen_from_seq(max_seq - 1);
}

/**
 * lru_gen_update_size - move a folio's pages between generations' counts
 * @lruvec: its lruvec
 * @folio: the folio
 * @old_gen: its generation before, -1 when it is being added
 * @new_gen: its generation after, -1 when it is being deleted
 *
 * The /proc counts follow lru_gen_is_active(): a promotion from an inactive
 * to an active generation moves the pages from nr_inactive_anon to
 * nr_active_anon.  Context: lru_lock held.
 */
void lru_gen_update_size(struct lruvec *lruvec, struct folio *folio, int old_gen, int new_gen)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	long delta = folio_nr_pages(folio);

	if (old_gen >= 0)
		lrugen->nr_pages[old_gen] -= delta;
	if (new_gen >= 0)
		lrugen->nr_pages[new_gen] += delta;
	/* the /proc counts' pages only: nr_folios is kept by add and del */
	if (old_gen < 0) {
		update_lru_size(lruvec, LRU_INACTIVE_ANON + lru_gen_is_active(lruvec, new_gen),
				delta, 0);
		return;
	}
	if (new_gen < 0) {
		update_lru_size(lruvec, LRU_INACTIVE_ANON + lru_gen_is_active(lruvec, old_gen),
				-delta, 0);
		return;
	}
	if (!lru_gen_is_active(lruvec, old_gen) && lru_gen_is_active(lruvec, new_gen)) {
		update_lru_size(lruvec, LRU_INACTIVE_ANON, -delta, 0);
		update_lru_size(lruvec, LRU_ACTIVE_ANON, delta, 0);
	}
}

/*
 * lru_gen_distance(): how far from eviction a folio goes (larger: safer).
 * Active (marked by a fault, or by reclaim for a referenced folio) goes to
 * the youngest generations, max_seq - 1 or, if also workingset, max_seq; a
 * workingset folio, or an anon folio not in the swap cache, to min_seq + 1;
 * the rest (and every folio reclaim puts back rejected) to min_seq.
 */
static int lru_gen_distance(const struct folio *folio, bool reclaiming)
{
	if (reclaiming)
		return 0;
	if (folio_test_active(folio))
		return (int)MIN_NR_GENS + folio_test(folio, PG_workingset);
	if (folio_test(folio, PG_workingset))
		return MIN_NR_GENS - 1;
	if (!folio_test(folio, PG_swapcache))		/* anon: the model has no file LRU */
		return MIN_NR_GENS - 1;
	if (folio_test(folio, PG_reclaim) &&
	    (folio_test(folio, PG_dirty) || folio_test(folio, PG_writeback)))
		return MIN_NR_GENS - 1;
	return 0;
}

/**
 * lru_gen_folio_seq - the generation lru_gen_add_folio() would put @folio in
 * @lruvec: its lruvec
 * @folio: the folio
 * @reclaiming: put back by reclaim
 *
 * Context: lru_lock held, or a stale answer is fine (evict_folios()).
 * Return: the sequence number of that generation.
 */
unsigned long lru_gen_folio_seq(const struct lruvec *lruvec, const struct folio *folio,
				bool reclaiming)
{
	int dist = lru_gen_distance(folio, reclaiming);

	if (dist < (int)MIN_NR_GENS)
		return lruvec->lrugen.min_seq + (unsigned long)dist;
	return lruvec->lrugen.max_seq + (unsigned long)dist - MIN_NR_GENS - 1;
}

/**
 * lru_gen_add_folio - put a folio on the generation lru_gen_distance() picks
 * @lruvec: the folio's lruvec
 * @folio: a folio on no list
 * @reclaiming: put back by reclaim at the tail (the oldest end)
 *
 * Clears PG_active (it only marks a folio while it is off the lists).
 * Context: lru_lock held.
 * Return: false when MGLRU is off (the caller uses the two lists).
 */
bool lru_gen_add_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int gen;

	if (!sim_mm->lru_gen_enabled || folio_test(folio, PG_unevictable))
		return false;
	/* MGLRU's file type is left out: page cache folios of a disk file use the file lists */
	if (folio_test(folio, PG_file) && !folio_test(folio, PG_swapbacked))
		return false;
	SIM_BUG_ON_FOLIO(folio_lru_gen(folio) != -1, folio);
	SIM_BUG_ON_FOLIO(!list_empty(&folio->lru_node), folio);
	gen = lru_gen_from_seq(lru_gen_folio_seq(lruvec, folio, reclaiming));
	folio->flags = (folio->flags & ~(LRU_GEN_MASK | (1U << PG_active))) |
		       ((uint32_t)(gen + 1) << LRU_GEN_PGOFF);
	lru_gen_update_size(lruvec, folio, -1, gen);
	lru_list_add_charged(&lrugen->folios[gen], &lrugen->head_line[gen], folio, reclaiming);
	folio->lru = LRU_INACTIVE_ANON;
	lruvec->nr_folios[LRU_INACTIVE_ANON]++;	/* model: every lrugen folio counts here */
	return true;
}

/*
 * A list neighbour's line is written by list_del.  The folio's list is the
 * generation it was sorted to last, which may not be the one its counter
 * says (folio_update_gen() moves the counter, sort_folio() the folio).
 */
static void lru_gen_list_neighbour_write(struct lruvec *lruvec, struct list_head *node)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned int gen;

	for (gen = 0; gen < MAX_NR_GENS; gen++) {
		if (node == &lrugen->folios[gen]) {
			sim_line_write(&lrugen->head_line[gen]);
			return;
		}
	}
	sim_line_write(&container_of(node, struct folio, lru_node)->line);
}

/**
 * lru_gen_del_folio - take a folio off its generation's list
 * @lruvec: the folio's lruvec
 * @folio: a folio on an lrugen list, or not (then false)
 * @reclaiming: isolated by reclaim (PG_active stays clear)
 *
 * A folio isolated for any other purpose from an active generation gets
 * PG_active, as the kernel does for folio_migrate_flags().
 * Context: lru_lock held.
 * Return: true if the folio was on an lrugen list.
 */
bool lru_gen_del_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming)
{
	struct list_head *prev = folio->lru_node.prev, *next = folio->lru_node.next;
	int gen = folio_lru_gen(folio);

	if (gen < 0)
		return false;
	folio->flags &= ~LRU_GEN_MASK;
	if (!reclaiming && lru_gen_is_active(lruvec, gen))
		folio_set(folio, PG_active);
	lru_gen_update_size(lruvec, folio, gen, -1);
	/* list_del loads prev and next from the folio, then stores to both. */
	sim_line_read(&folio->line);
	lru_gen_list_neighbour_write(lruvec, prev);
	lru_gen_list_neighbour_write(lruvec, next);
	sim_line_write(&folio->line);
	sim_cost_cpu_ps(sim_mm->lru_del_ps);	/* mm.lru_del_ns */
	list_del_init(&folio->lru_node);
	lruvec->nr_folios[LRU_INACTIVE_ANON]--;
	return true;
}

void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	if (lru_gen_add_folio(lruvec, folio, false))
		return;
	lruvec_list_insert(lruvec, folio, false);
}

void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio)
{
	if (lru_gen_add_folio(lruvec, folio, true))
		return;
	lruvec_list_insert(lruvec, folio, true);
}

void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = (enum lru_list)folio->lru;

	if (lru_gen_del_folio(lruvec, folio, false))
		return;

	struct list_head *head = &lruvec->lists[lru];
	struct list_head *prev = folio->lru_node.prev, *next = folio->lru_node.next;

	/* list_del loads prev and next from the folio, then stores to both. */
	sim_line_read(&folio->line);
	if (prev == head || next == head)
		sim_line_write(&lruvec->head_line[lru]);
	if (prev != head)
		sim_line_write(&container_of(prev, struct folio, lru_node)->line);
	if (next != head)
		sim_line_write(&container_of(next, struct folio, lru_node)->line);
	sim_line_write(&folio->line);
	sim_cost_cpu_ps(sim_mm->lru_del_ps);	/* mm.lru_del_ns: lruvec_del_folio()'s work */
	list_del_init(&folio->lru_node);
	update_lru_size(lruvec, lru, -folio_nr_pages(folio), -1);
}

/**
 * folio_lruvec_relock_irqsave - lock the folio's lruvec, keeping @locked if it matches
 * @folio: the folio
 * @locked: the lruvec whose lock the caller holds, or NULL
 * @flags: saved IRQ state
 *
 * Context: may drop @locked's lru_lock; returns with the folio's held, IRQs off.
 * Return: the folio's lruvec.
 */
struct lruvec *folio_lruvec_relock_irqsave(struct folio *folio, struct lruvec *locked,
					   unsigned long *flags)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	if (locked == lruvec)
		return locked;
	if (locked)
		lruvec_unlock_irqrestore(locked, *flags);
	spin_lock_irqsave(&lruvec->lru_lock, *flags);
	return lruvec;
}

void lruvec_unlock_irqrestore(struct lruvec *lruvec, unsigned long flags)
{
	spin_unlock_irqrestore(&lruvec->lru_lock, flags);
}

/* ---- adding to the LRU ------------------------------------------------------ */

bool folio_may_be_lru_cached(const struct folio *folio)
{
	/* Large folios are never held in per-CPU LRU caches (2025). */
	return !folio_test_large(folio);
}

typedef void (*move_fn_t)(struct lruvec *lruvec, struct folio *folio);

static void lru_add(struct lruvec *lruvec, struct folio *folio)
{
	SIM_TRACE_SCOPE("mm", "lru_add");

	/* MGLRU: PG_active (a fault's mark) is lru_gen_add_folio()'s to read */
	if (!sim_mm->lru_gen_enabled)
		folio_clear(folio, PG_active);	/* __folio_clear_active() unless workingset */
	lruvec_add_folio(lruvec, folio);
}

static void lru_deactivate(struct lruvec *lruvec, struct folio *folio)
{
	if (!folio_test_active(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear(folio, PG_active);
	folio_clear(folio, PG_referenced);
	lruvec_add_folio(lruvec, folio);
	count_events(SIM_PGDEACTIVATE, (uint64_t)folio_nr_pages(folio));
}

static void lru_lazyfree(struct lruvec *lruvec, struct folio *folio)
{
	if (!folio_test(folio, PG_swapbacked) || folio_test(folio, PG_swapcache))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear(folio, PG_active);
	folio_clear(folio, PG_referenced);
	folio_clear(folio, PG_swapbacked);	/* lazyfree: to the file LRU */
	lruvec_add_folio(lruvec, folio);
	count_events(SIM_PGLAZYFREE, (uint64_t)folio_nr_pages(folio));
}

/*
 * folio_batch_move_lru(): move a per-CPU batch to the LRU under lru_lock,
 * kept across the batch.  For lru_add, a folio whose only reference is the
 * batch's died while cached: it is unqueued and freed.
 */
static void folio_batch_move_lru(struct folio_batch *percpu, move_fn_t move_fn)
{
	struct cpu_fbatches *mover = &sim_mm->fbatches[smp_processor_id()];
	bool is_lru_add = move_fn == lru_add;
	struct folio_batch free_fbatch, batch = *percpu;
	struct folio_batch *fbatch = &batch;
	struct lruvec *lruvec = NULL;
	unsigned long flags = 0;
	unsigned int i;
	SIM_TRACE_SCOPE("mm", "folio_batch_move_lru");

	/*
	 * The kernel drains the per-CPU batch in place under its local_lock;
	 * the model takes the folios out first, so that the batch never holds
	 * a folio that is already on a list when the checks run.
	 */
	folio_batch_reinit(percpu);
	for (i = 0; i < folio_batch_count(fbatch); i++)
		if (fbatch->folios[i]->place == FOLIO_FBATCH)
			fbatch->folios[i]->place = FOLIO_PRIVATE;
	folio_batch_init(&free_fbatch);
	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		/*
		 * Clearing PG_lru isolates the folio, which stays on its list
		 * until move_fn() runs under lru_lock; taking that lock may
		 * wait, and the checks see the folio there meanwhile.
		 */
		if (!is_lru_add) {
			if (!folio_test_clear(folio, PG_lru))
				continue;
			folio->place = FOLIO_ISOLATED;
			mover->lru_isolating = folio;
		}
		if (is_lru_add && folio_ref_freeze(folio, 1)) {
			folio_clear(folio, PG_active);
			folio_clear(folio, PG_unevictable);
			if (!sim_mm->variant->unqueue_after_lru_unlock)
				folio_unqueue_deferred_split(folio);
			folio->place = FOLIO_GATHER;
			fbatch->folios[i] = NULL;
			folio_batch_add(&free_fbatch, folio);
			continue;
		}
		lruvec = folio_lruvec_relock_irqsave(folio, lruvec, &flags);
		move_fn(lruvec, folio);
		folio_set(folio, PG_lru);
		folio->place = FOLIO_LRU;
		mover->lru_isolating = NULL;
	}
	if (lruvec)
		lruvec_unlock_irqrestore(lruvec, flags);
	if (free_fbatch.nr) {
		if (sim_mm->variant->unqueue_after_lru_unlock)
			folio_batch_unqueue_deferred_split(&free_fbatch);
		mem_cgroup_uncharge_folios(&free_fbatch);
		free_unref_folios(&free_fbatch);
	}
	/* folios_put(fbatch): drop the batch's references (NULLs skipped). */
	{
		struct folio_batch put;

		folio_batch_init(&put);
		for (i = 0; i < folio_batch_count(fbatch); i++)
			if (fbatch->folios[i])
				folio_batch_add(&put, fbatch->folios[i]);
		folios_put(&put);
	}
}

static void folio_batch_add_and_move(struct folio_batch *fbatch, struct folio *folio,
				     move_fn_t move_fn)
{
	folio_get(folio);	/* the batch holds a reference */
	if (move_fn == lru_add)
		folio->place = FOLIO_FBATCH;
	if (folio_batch_add(fbatch, folio) && folio_may_be_lru_cached(folio))
		return;
	folio_batch_move_lru(fbatch, move_fn);
}

/**
 * folio_add_lru - add a new folio to the LRU through the CPU's batch
 * @folio: a new, mapped folio
 *
 * A large folio drains the batch at once: one lru_lock acquisition each.
 * Context: may hold the PTL.
 */
void folio_add_lru(struct folio *folio)
{
	struct cpu_fbatches *fb = &sim_mm->fbatches[smp_processor_id()];
	SIM_TRACE_SCOPE("mm", "folio_add_lru");

	SIM_BUG_ON_FOLIO(folio_test_lru(folio), folio);
	if (!folio_test(folio, PG_file))
		folio_set(folio, PG_swapbacked);	/* anon (a page cache folio has it set or not) */
	folio_batch_add_and_move(&fb->lru_add, folio, lru_add);
}

/**
 * folio_add_lru_fault - folio_add_lru() from a page fault
 * @folio: a new folio the fault maps
 *
 * The kernel's folio_add_lru() tests lru_gen_in_fault() (set by
 * handle_mm_fault() for a VMA with recency): with MGLRU the folio is
 * marked active, so lru_gen_add_folio() puts it in a young generation.
 * With the classic LRU this is folio_add_lru().
 * Context: may hold the PTL.
 */
void folio_add_lru_fault(struct folio *folio)
{
	if (sim_mm->lru_gen_enabled && !folio_test(folio, PG_unevictable))
		folio_set(folio, PG_active);
	folio_add_lru(folio);
}

void folio_deactivate(struct folio *folio)
{
	struct cpu_fbatches *fb = &sim_mm->fbatches[smp_processor_id()];

	if (!folio_test_lru(folio) || !folio_test_active(folio))
		return;
	folio_batch_add_and_move(&fb->lru_deactivate, folio, lru_deactivate);
}

void folio_mark_lazyfree(struct folio *folio)
{
	struct cpu_fbatches *fb = &sim_mm->fbatches[smp_processor_id()];

	if (!folio_test_lru(folio) || !folio_test(folio, PG_swapbacked))
		return;
	folio_batch_add_and_move(&fb->lru_lazyfree, folio, lru_lazyfree);
}

/* lru_add_drain(): drain this CPU's batches. */
void lru_add_drain(void)
{
	lru_add_drain_cpu(smp_processor_id());
}

/**
 * lru_add_drain_all - drain every CPU's LRU batches
 *
 * The kernel queues lru_add_drain_per_cpu() work on each CPU whose batches
 * hold folios and waits for it; the model drains them from the calling CPU
 * (the caller pays the work, the other CPUs lose nothing).
 *
 * Context: process context, no spinlock held.
 */
void lru_add_drain_all(void)
{
	int cpu;

	for (cpu = 0; cpu < sim_mm->nr_cpus; cpu++)
		lru_add_drain_cpu(cpu);
}

/**
 * lru_add_drain_cpu - drain the LRU batches of @cpu
 * @cpu: the CPU whose cpu_fbatches are drained
 *
 * Context: process context; takes lru_lock.
 */
void lru_add_drain_cpu(int cpu)
{
	struct cpu_fbatches *fb = &sim_mm->fbatches[cpu];

	if (fb->lru_add.nr)
		folio_batch_move_lru(&fb->lru_add, lru_add);
	if (fb->lru_deactivate.nr)
		folio_batch_move_lru(&fb->lru_deactivate, lru_deactivate);
	if (fb->lru_lazyfree.nr)
		folio_batch_move_lru(&fb->lru_lazyfree, lru_lazyfree);
}

/* ---- freeing ---------------------------------------------------------------------- */

/*
 * page_cache_release_locked() is the kernel's __page_cache_release(): take
 * the folio off its LRU list, relocking lru_lock only if the lruvec changes.
 */
static void page_cache_release_locked(struct folio *folio, struct lruvec **lruvecp,
				      unsigned long *flags)
{
	if (folio_test_lru(folio)) {
		*lruvecp = folio_lruvec_relock_irqsave(folio, *lruvecp, flags);
		lruvec_del_folio(*lruvecp, folio);
		folio_clear(folio, PG_lru);
		folio_clear(folio, PG_active);
		folio_clear(folio, PG_unevictable);
	}
	folio->place = FOLIO_GATHER;
}

/**
 * folios_put_refs - drop references on a batch of folios, freeing the dead
 * @folios: the batch; returned empty
 * @refs: references to drop per folio, or NULL for one each
 *
 * Context: any; takes lru_lock (IRQs off) for the first LRU folio that
 * dies and keeps it for the rest of the batch.
 */
void folios_put_refs(struct folio_batch *folios, unsigned int *refs)
{
	struct lruvec *lruvec = NULL;
	unsigned long flags = 0;
	unsigned int i, j;
	SIM_TRACE_SCOPE("mm", "folios_put_refs");

	count_event(SIM_SIM_FOLIOS_PUT_REFS_CALLS);
	for (i = 0, j = 0; i < folios->nr; i++) {
		struct folio *folio = folios->folios[i];
		unsigned int nr_refs = refs ? refs[i] : 1;

		if (!folio_ref_sub_and_test(folio, (int)nr_refs))
			continue;
		/* Dead: the batch owns it (an LRU folio stays listed until released). */
		if (!folio_test_lru(folio))
			folio->place = FOLIO_GATHER;
		/* before: nested in lru_lock if an earlier folio took it */
		if (!sim_mm->variant->unqueue_after_lru_unlock)
			folio_unqueue_deferred_split(folio);
		page_cache_release_locked(folio, &lruvec, &flags);
		folios->folios[j++] = folio;
	}
	if (lruvec)
		lruvec_unlock_irqrestore(lruvec, flags);
	if (!j) {
		folio_batch_reinit(folios);
		return;
	}
	folios->nr = (unsigned char)j;
	if (sim_mm->variant->unqueue_after_lru_unlock)
		folio_batch_unqueue_deferred_split(folios);
	mem_cgroup_uncharge_folios(folios);
	free_unref_folios(folios);
}

void folios_put(struct folio_batch *folios)
{
	folios_put_refs(folios, NULL);
}

/* folio_put_raw() is the kernel's __folio_put(): one folio at refcount 0. */
static void folio_put_raw(struct folio *folio)
{
	struct lruvec *lruvec = NULL;
	unsigned long flags = 0;

	page_cache_release_locked(folio, &lruvec, &flags);
	if (lruvec)
		lruvec_unlock_irqrestore(lruvec, flags);
	folio_unqueue_deferred_split(folio);
	mem_cgroup_uncharge(folio);
	free_frozen_folio(folio);
}

void folio_put(struct folio *folio)
{
	if (folio_put_testzero(folio))
		folio_put_raw(folio);
}
