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
 * Left out: MGLRU (the classic two-list LRU is modelled), mlock and
 * unevictable handling beyond the flag, zone-device and hugetlb folios.
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

bool folio_ref_sub_and_test(struct folio *folio, int nr)
{
	folio->_refcount -= nr;
	SIM_BUG_ON_FOLIO(folio->_refcount < 0, folio);
	sim_line_rmw(&folio->line);
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

static void lruvec_list_insert(struct lruvec *lruvec, struct folio *folio, bool tail)
{
	enum lru_list lru = folio_lru_list(folio);
	struct list_head *head = &lruvec->lists[lru];
	struct list_head *neighbour = tail ? head->prev : head->next;

	SIM_BUG_ON_FOLIO(!list_empty(&folio->lru_node), folio);
	/*
	 * list_add loads head->next (a dependent load of the head's line),
	 * then stores to the neighbour, the folio and the head.
	 */
	sim_line_read(&lruvec->head_line[lru]);
	sim_line_write(&lruvec->head_line[lru]);
	if (neighbour != head)
		sim_line_write(&container_of(neighbour, struct folio, lru_node)->line);
	sim_line_write(&folio->line);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	if (tail)
		list_add_tail(&folio->lru_node, head);
	else
		list_add(&folio->lru_node, head);
	folio->lru = (uint8_t)lru;
	update_lru_size(lruvec, lru, folio_nr_pages(folio), 1);
}

void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	lruvec_list_insert(lruvec, folio, false);
}

void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio)
{
	lruvec_list_insert(lruvec, folio, true);
}

void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = (enum lru_list)folio->lru;
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
	sim_cost_cpu_ps(sim_mm->list_op_ps);
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

	SIM_BUG_ON_FOLIO(folio_test_lru(folio), folio);
	folio_set(folio, PG_swapbacked);	/* anon */
	folio_batch_add_and_move(&fb->lru_add, folio, lru_add);
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
