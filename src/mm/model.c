// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel model's global state: the nodes' zones, the workload's memcg
 * with its lruvecs, deferred_split_lru, the per-CPU LRU batches and memcg
 * stocks, and the folio table.  One model per engine run.
 *
 * Derived kernel values (not costs): the pcp batch is zone_batchsize() for
 * a large zone (63 pages, or the variant's pcp_batch); the watermarks and pcp->high's bounds follow
 * from the zones' sizes and the node's CPUs (zone_set_wmarks_and_high(),
 * page_alloc.c); see docs/fidelity.md.
 */
#include <string.h>

#include "mm/mm.h"

struct mm_model *sim_mm;

/**
 * mm_model_create - build the model for the current engine
 * @e: the engine (already created)
 * @v: the variant's kernel changes
 * @node_pages: memory per node, in pages
 * @err: one line on failure
 * @len: its size
 *
 * Return: the model (also in sim_mm), or NULL.
 */
struct mm_model *mm_model_create(struct sim_engine *e, const struct mm_variant *v,
				 long node_pages, char *err, size_t len)
{
	const struct sim_profile *p = sim_engine_profile(e);
	struct mm_model *m = calloc(1, sizeof(*m));
	int nid;

	if (!m) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	sim_mm = m;
	m->prof = p;
	m->variant = v;
	mm_constants_init(&m->consts, v);
	m->nr_cpus = sim_engine_nr_cpus(e);
	m->nr_nodes = (int)p->topology_nodes;
	if (m->nr_nodes > SIM_MAX_NODES) {
		snprintf(err, len, "profile %s has %d nodes: expected at most %d",
			 p->machine_name, m->nr_nodes, SIM_MAX_NODES);
		free(m);
		sim_mm = NULL;
		return NULL;
	}
	m->list_op_ps = p->mm_list_op_ns * SIM_NS;
	m->folio_op_ps = p->mm_folio_op_ns * SIM_NS;
	m->pte_op_ps = p->mm_pte_op_ns * SIM_NS;
	m->fault_entry_ps = p->mm_fault_entry_ns * SIM_NS;
	/* a draw within +- the spread never makes a fault's fixed cost negative */
	m->fault_spread_ps = (p->mm_fault_spread_ns < p->mm_fault_entry_ns ? p->mm_fault_spread_ns :
			      p->mm_fault_entry_ns) * SIM_NS;
	m->syscall_ps = p->mm_syscall_ns * SIM_NS;
	m->lru_add_ps = p->mm_lru_add_ns * SIM_NS;
	m->lru_del_ps = p->mm_lru_del_ns * SIM_NS;
	m->i_pages_add_ps = p->mm_i_pages_add_ns * SIM_NS;
	m->i_pages_del_ps = p->mm_i_pages_del_ns * SIM_NS;
	m->shmem_acct_ps = p->mm_shmem_acct_ns * SIM_NS;
	m->shmem_get_ps = p->mm_shmem_get_ns * SIM_NS;
	m->bh_begin_ps = p->mm_bh_begin_ns * SIM_NS;
	m->bh_commit_ps = p->mm_bh_commit_ns * SIM_NS;
	m->bh_dirty_ps = p->mm_bh_dirty_ns * SIM_NS;
	m->zap_pte_ps = p->mm_zap_pte_ns * SIM_NS;
	m->rmap_del_ps = p->mm_rmap_del_ns * SIM_NS;
	m->uncharge_ps = p->mm_uncharge_ns * SIM_NS;
	m->page_free_ps = p->mm_page_free_ns * SIM_NS;
	if (mmu_parse_access_loop(p->mem_access_loop, m->access_loop))
		memset(m->access_loop, 0, sizeof(m->access_loop));	/* mmu_check_profile() refused it */
	INIT_LIST_HEAD(&m->gathers);
	INIT_LIST_HEAD(&m->mmlist);
	INIT_LIST_HEAD(&m->reclaim_ctxs);
	INIT_LIST_HEAD(&m->files);
	for (nid = 0; nid < m->nr_nodes; nid++)
		zone_init(&m->zones[nid], nid, node_pages, m->nr_cpus, m->consts.pcp_batch);
	for (nid = 0; nid < m->nr_nodes; nid++) {
		uint64_t llc_cpus = p->topology_cores_per_socket * p->topology_threads_per_core;

		zone_set_wmarks_and_high(&m->zones[nid], node_pages * m->nr_nodes,
					 sim_profile_nr_cpus(p) / m->nr_nodes,
					 (p->cache_l3_kib << 10) / (llc_cpus ? llc_cpus : 1));
	}
	m->root_memcg = mem_cgroup_create(node_pages * m->nr_nodes, m->nr_nodes);
	list_lru_init_named(&m->deferred_split_lru, "deferred_split_lru", m->nr_nodes);
	m->fbatches = calloc((size_t)m->nr_cpus, sizeof(*m->fbatches));
	m->stock = calloc((size_t)m->nr_cpus, sizeof(*m->stock));
	m->node_stat_diff = calloc((size_t)m->nr_cpus, sizeof(*m->node_stat_diff));
	for (nid = 0; nid < m->nr_nodes; nid++) {
		m->stat_threshold[nid] = vmstat_normal_threshold(node_pages, m->nr_cpus);
		for (int l = 0; l < NODE_STAT_LINES; l++)
			m->node_stat_line[nid][l].last_writer = -1;
	}
	for (int l = 0; l < NODE_STAT_LINES; l++)
		m->vm_node_stat_line[l].last_writer = -1;
	if (!m->fbatches || !m->stock || !m->node_stat_diff) {
		snprintf(err, len, "out of memory");
		mm_model_destroy(m);
		return NULL;
	}
	m->memsys = memsys_create(p, (int)(p->topology_sockets * p->topology_cores_per_socket));
	if (!m->memsys) {
		snprintf(err, len, "cannot create the memory system of profile %s", p->machine_name);
		mm_model_destroy(m);
		return NULL;
	}
	m->split_underused_thp = v->queue_mthp_on_fault;
	sim_engine_set_priv(e, m);
	mm_switch_hook_install(true);
	if (sim_engine_checking(e))
		sim_engine_set_check_hook(e, mm_check_invariants, m);
	return m;
}

void mm_model_destroy(struct mm_model *m)
{
	uint32_t c;
	int nid;

	if (!m)
		return;
	mm_switch_hook_install(false);
	for (c = 0; c < m->nr_chunks; c++)
		free(m->folio_chunks[c]);
	free(m->folio_chunks);
	for (nid = 0; nid < m->nr_nodes; nid++) {
		zone_destroy(&m->zones[nid]);
		free(m->deferred_split_lru.node[nid]);
	}
	if (m->swap) {
		struct mm_model *saved = sim_mm;

		sim_mm = m;
		swap_device_destroy();
		sim_mm = saved;
	}
	for (nid = 0; nid < m->nr_tlb_ubc; nid++) {
		if (m->tlb_ubc[nid])
			free(m->tlb_ubc[nid]->stale);
		free(m->tlb_ubc[nid]);
	}
	free(m->tlb_ubc);
	free(m->root_memcg);
	memsys_destroy(m->memsys);
	free(m->fbatches);
	free(m->stock);
	free(m->node_stat_diff);
	if (sim_mm == m)
		sim_mm = NULL;
	free(m);
}

void dump_folio(const struct folio *f, const char *why)
{
	fprintf(stderr,
		"mmsim: BUG: invariant broken: %s\n"
		"folio %u: order %u refcount %d mapcount %d flags %#x place %u "
		"lru %u memcg %s deferred %s\n",
		why, f->id, f->order, f->_refcount, f->_mapcount, f->flags, f->place,
		f->lru, f->memcg ? "set" : "none",
		list_empty(&f->_deferred_list) ? "no" : "queued");
	abort();
}
