/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model's counters, as one X-macro list.  The first column is the enum
 * suffix, the second the name printed in tables and JSON: the kernel's own
 * name (vmstat, /proc/interrupts, mTHP and khugepaged sysfs) where the
 * kernel has the counter, "sim_..." where only the model has it.
 * The list order is the output order.
 */
#ifndef MMSIM_COUNTERS_H
#define MMSIM_COUNTERS_H

#define SIM_COUNTERS(X)                                                   \
	/* /proc/interrupts */                                            \
	X(IRQ_TLB_COUNT, "tlb_shootdowns")   /* TLB: TLB shootdowns */    \
	X(IRQ_CALL_COUNT, "function_call_interrupts") /* CAL */           \
	/* vmstat */                                                      \
	X(PGFAULT, "pgfault")                                             \
	X(PGMAJFAULT, "pgmajfault")                                       \
	X(PGALLOC_NORMAL, "pgalloc_normal")                               \
	X(PGFREE, "pgfree")                                               \
	X(PGACTIVATE, "pgactivate")                                       \
	X(PGDEACTIVATE, "pgdeactivate")                                   \
	X(PGLAZYFREE, "pglazyfree")                                       \
	X(PGLAZYFREED, "pglazyfreed")                                     \
	X(PGREFILL, "pgrefill")                                           \
	X(PGSCAN_DIRECT, "pgscan_direct")                                 \
	X(PGSCAN_KSWAPD, "pgscan_kswapd")                                 \
	X(PGSCAN_ANON, "pgscan_anon")                                     \
	X(PGSTEAL_DIRECT, "pgsteal_direct")                               \
	X(PGSTEAL_KSWAPD, "pgsteal_kswapd")                               \
	X(PGSTEAL_ANON, "pgsteal_anon")                                   \
	X(PSWPIN, "pswpin")                                               \
	X(PSWPOUT, "pswpout")                                             \
	X(SWPIN_ZERO, "swpin_zero")                                       \
	X(SWPOUT_ZERO, "swpout_zero")                                     \
	X(NR_VMSCAN_WRITE, "nr_vmscan_write")                             \
	X(ALLOCSTALL, "allocstall_normal")                                \
	X(PGPGIN, "pgpgin")                                               \
	X(PGPGOUT, "pgpgout")                                             \
	X(NR_TLB_REMOTE_FLUSH, "nr_tlb_remote_flush")                     \
	X(NR_TLB_REMOTE_FLUSH_RECEIVED, "nr_tlb_remote_flush_received")   \
	X(NR_TLB_LOCAL_FLUSH_ALL, "nr_tlb_local_flush_all")               \
	X(NR_TLB_LOCAL_FLUSH_ONE, "nr_tlb_local_flush_one")               \
	X(THP_FAULT_ALLOC, "thp_fault_alloc")                             \
	X(THP_FILE_MAPPED, "thp_file_mapped")                             \
	X(THP_COLLAPSE_ALLOC, "thp_collapse_alloc")                       \
	X(THP_COLLAPSE_ALLOC_FAILED, "thp_collapse_alloc_failed")         \
	X(THP_DEFERRED_SPLIT_PAGE, "thp_deferred_split_page")             \
	X(THP_SCAN_EXCEED_NONE_PTE, "thp_scan_exceed_none_pte")           \
	X(THP_SCAN_EXCEED_SWAP_PTE, "thp_scan_exceed_swap_pte")           \
	X(THP_SCAN_EXCEED_SHARE_PTE, "thp_scan_exceed_share_pte")         \
	/* mTHP stats (summed over sizes; one size is enabled per run) */ \
	X(MTHP_ANON_FAULT_ALLOC, "anon_fault_alloc")                      \
	X(MTHP_ANON_FAULT_FALLBACK, "anon_fault_fallback")                \
	X(MTHP_SPLIT_DEFERRED, "split_deferred")                          \
	/* khugepaged sysfs */                                            \
	X(KHUGEPAGED_PAGES_COLLAPSED, "pages_collapsed")                  \
	X(KHUGEPAGED_FULL_SCANS, "full_scans")                            \
	X(KHUGEPAGED_PAGES_SCANNED, "sim_khugepaged_progress")            \
	/* khugepaged scan results (tracepoint mm_khugepaged_scan_pmd) */ \
	X(SCAN_PMD_SUCCEED, "sim_scan_pmd_succeeded")                     \
	X(SCAN_PMD_PMD_NONE, "sim_scan_pmd_pmd_none")                     \
	X(SCAN_PMD_PMD_MAPPED, "sim_scan_pmd_page_pmd_mapped")            \
	X(SCAN_PMD_EXCEED_NONE_PTE, "sim_scan_pmd_exceed_none_pte")       \
	X(SCAN_PMD_EXCEED_SWAP_PTE, "sim_scan_pmd_exceed_swap_pte")       \
	X(SCAN_PMD_EXCEED_SHARED_PTE, "sim_scan_pmd_exceed_shared_pte")   \
	X(SCAN_PMD_PAGE_RO, "sim_scan_pmd_no_writable_page")              \
	X(SCAN_PMD_LACK_REFERENCED, "sim_scan_pmd_lack_referenced_page")  \
	X(SCAN_PMD_PAGE_LRU, "sim_scan_pmd_page_not_in_lru")              \
	X(SCAN_PMD_PAGE_COUNT, "sim_scan_pmd_not_suitable_page_count")    \
	X(SCAN_PMD_PAGE_LAZYFREE, "sim_scan_pmd_page_lazyfree")           \
	X(SCAN_PMD_OTHER, "sim_scan_pmd_other")                           \
	/* perf */                                                        \
	X(DTLB_LOAD_MISSES, "dtlb_load_misses")                           \
	/* the model's own */                                             \
	X(SIM_CONTEXT_SWITCHES, "sim_context_switches")                   \
	/* schedstats, summed over tasks and CPUs */                      \
	X(NR_MIGRATIONS, "nr_migrations")                                 \
	X(NR_WAKEUPS_MIGRATE, "nr_wakeups_migrate")                       \
	X(LB_GAINED_NEWIDLE, "lb_gained_newidle")                         \
	X(LB_GAINED_IDLE, "lb_gained_idle")                               \
	X(LB_GAINED_BUSY, "lb_gained_busy")                               \
	X(NR_FORKS, "nr_forks")                                           \
	X(TLB_ACCESSES, "sim_tlb_accesses")                               \
	X(SIM_TLB_DIRTY_ASSISTS, "sim_tlb_dirty_assists")                 \
	X(SIM_IPIS_SENT, "sim_ipis_sent")                                 \
	X(SIM_DEFERRED_SPLIT_QUEUED, "sim_deferred_split_queued")         \
	X(SIM_DEFERRED_SPLIT_UNQUEUED, "sim_deferred_split_unqueued")     \
	X(SIM_FOLIOS_PUT_REFS_CALLS, "sim_folios_put_refs_calls")         \
	X(SIM_TLB_FLUSH_DIRTY, "sim_try_to_unmap_flush_dirty")            \
	X(SIM_MMAP, "sim_mmap")                                           \
	X(SIM_TLBBATCH_FLUSH, "sim_arch_tlbbatch_flush")                  \
	X(SIM_PAGEOUT_BATCH, "sim_pageout_batch")                         \
	X(SIM_PAGEOUT_BATCH_RECHECK_FAIL, "sim_pageout_batch_recheck_fail") \
	X(SIM_SWAPCACHE_HIT, "sim_swapcache_hit")                         \
	X(ZRAM_SAME_WRITES, "sim_zram_same_pages")                        \
	X(SIM_MEMCG_RECLAIM, "sim_memcg_reclaim_calls")                   \
	X(SIM_MEMCG_OOM, "sim_memcg_charge_fail")                         \
	X(SIM_LRU_GEN_AGING, "sim_lru_gen_aging")                         \
	X(SIM_MUNMAP, "sim_munmap")                                       \
	X(VMA_LOCK_ABORT, "vma_lock_abort")                               \
	X(VMA_LOCK_RETRY, "vma_lock_retry")                               \
	/* vmstat events of the page cache and NUMA policy paths (filemap.c,  \
	 * mempolicy.c), after the rest so that earlier tables keep their rows) */ \
	X(NR_DIRTIED, "nr_dirtied")                                       \
	X(PGSCAN_FILE, "pgscan_file")                                     \
	X(PGSTEAL_FILE, "pgsteal_file")                                   \
	X(NUMA_INTERLEAVE_HIT, "numa_interleave")

enum sim_counter {
#define SIM_COUNTER_ENUM(id, name) SIM_##id,
	SIM_COUNTERS(SIM_COUNTER_ENUM)
#undef SIM_COUNTER_ENUM
	NR_SIM_COUNTERS
};

extern const char *const sim_counter_names[NR_SIM_COUNTERS];

#endif /* MMSIM_COUNTERS_H */
