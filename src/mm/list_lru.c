// SPDX-License-Identifier: GPL-2.0-only
/*
 * list_lru (mm/list_lru.c) as the 2026 deferred-split conversion uses it:
 * one struct list_lru_one (list, nr_items, spinlock) per (memcg, node).
 * The model has one memcg, so a list_lru holds one sublist per node.
 * Mirrors lock_list_lru_of_memcg() (as list_lru_lock_irqsave()),
 * __list_lru_add() and __list_lru_del() (as *_locked()).
 * Layout: struct list_lru_one is one cache line with its lock word, so
 * the list head and nr_items travel with the lock (l->lock.line).
 * Left out: the memcg xarray lookup and reparenting retry (one memcg, never
 * offlined), the shrinker bit (no shrinker runs in these scenarios).
 */
#include "mm/mm.h"

void list_lru_init_named(struct list_lru *lru, const char *name, int nr_nodes)
{
	int nid;

	lru->name = name;
	for (nid = 0; nid < nr_nodes; nid++) {
		struct list_lru_one *l = calloc(1, sizeof(*l));

		if (!l)
			abort();
		INIT_LIST_HEAD(&l->list);
		spin_lock_init_named(&l->lock, name);
		lru->node[nid] = l;
	}
}

/**
 * list_lru_lock_irqsave - lock the sublist of (@nid, @memcg)
 * @lru: the list_lru
 * @nid: node
 * @memcg: memcg (one memcg in the model)
 * @flags: saved IRQ state
 *
 * Context: takes the sublist's lock with IRQs off.
 * Return: the locked sublist.
 */
struct list_lru_one *list_lru_lock_irqsave(struct list_lru *lru, int nid,
					   struct mem_cgroup *memcg, unsigned long *flags)
{
	struct list_lru_one *l = lru->node[nid];

	(void)memcg;
	sim_cost_cpu_ps(sim_mm->folio_op_ps);	/* rcu_read_lock() and the sublist lookup */
	spin_lock_irqsave(&l->lock, *flags);
	return l;
}

void list_lru_unlock_irqrestore(struct list_lru_one *l, unsigned long *flags)
{
	spin_unlock_irqrestore(&l->lock, *flags);
}

/* list_add_tail(): the head's line, the old tail's line, the item's line. */
bool list_lru_add_locked(struct list_lru *lru, struct list_lru_one *l, struct list_head *item,
			 struct sim_line *item_line)
{
	(void)lru;
	if (!list_empty(item))
		return false;
	sim_line_read(&l->lock.line);	/* load head->prev */
	if (!list_empty(&l->list)) {
		struct folio *tail = container_of(l->list.prev, struct folio, _deferred_list);

		sim_line_write(&tail->tail_line);
	}
	list_add_tail(item, &l->list);
	l->nr_items++;
	sim_line_write(&l->lock.line);
	sim_line_write(item_line);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	return true;
}

/* list_del_init(): both neighbours' lines (or the head's), the item's. */
bool list_lru_del_locked(struct list_lru *lru, struct list_lru_one *l, struct list_head *item,
			 struct sim_line *item_line)
{
	struct list_head *prev = item->prev, *next = item->next;

	(void)lru;
	if (list_empty(item))
		return false;
	sim_line_read(item_line);	/* load prev and next */
	if (prev == &l->list || next == &l->list)
		sim_line_write(&l->lock.line);
	if (prev != &l->list)
		sim_line_write(&container_of(prev, struct folio, _deferred_list)->tail_line);
	if (next != &l->list)
		sim_line_write(&container_of(next, struct folio, _deferred_list)->tail_line);
	list_del_init(item);
	l->nr_items--;
	sim_line_write(&l->lock.line);	/* nr_items */
	sim_line_write(item_line);
	sim_cost_cpu_ps(sim_mm->list_op_ps);
	return true;
}
