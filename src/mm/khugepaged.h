/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * khugepaged (src/mm/khugepaged.c): its tunables, scan results and the
 * entry points a scenario or a test needs.
 */
#ifndef MMSIM_MM_KHUGEPAGED_H
#define MMSIM_MM_KHUGEPAGED_H

#include "mm/mm.h"

/* The kernel's enum scan_result, in the kernel's order (mm/khugepaged.c). */
enum scan_result {
	SCAN_FAIL,
	SCAN_SUCCEED,
	SCAN_PMD_NULL,
	SCAN_PMD_NONE,
	SCAN_PMD_MAPPED,
	SCAN_EXCEED_NONE_PTE,
	SCAN_EXCEED_SWAP_PTE,
	SCAN_EXCEED_SHARED_PTE,
	SCAN_PTE_NON_PRESENT,
	SCAN_PTE_UFFD_WP,
	SCAN_PTE_MAPPED_HUGEPAGE,
	SCAN_PAGE_RO,
	SCAN_LACK_REFERENCED_PAGE,
	SCAN_PAGE_NULL,
	SCAN_SCAN_ABORT,
	SCAN_PAGE_COUNT,
	SCAN_PAGE_LRU,
	SCAN_PAGE_LOCK,
	SCAN_PAGE_ANON,
	SCAN_PAGE_LAZYFREE,		/* the merged series (2026), after SCAN_PAGE_ANON */
	SCAN_PAGE_COMPOUND,
	SCAN_ANY_PROCESS,
	SCAN_VMA_NULL,
	SCAN_VMA_CHECK,
	SCAN_ADDRESS_RANGE,
	SCAN_DEL_PAGE_LRU,
	SCAN_ALLOC_HUGE_PAGE_FAIL,
	SCAN_CGROUP_CHARGE_FAIL,
	SCAN_TRUNCATED,
	SCAN_PAGE_HAS_PRIVATE,
	SCAN_STORE_FAILED,
	SCAN_COPY_MC,
	SCAN_PAGE_FILLED,
	NR_SCAN_RESULTS
};

/* /sys/kernel/mm/transparent_hugepage/khugepaged/, as set by a scenario. */
struct khugepaged_tunables {
	unsigned int pages_to_scan;		/* progress units per wake-up */
	unsigned int scan_sleep_millisecs;	/* sleep between passes */
	unsigned int alloc_sleep_millisecs;	/* sleep after an allocation failure */
	unsigned int max_ptes_none;
	unsigned int max_ptes_swap;
	unsigned int max_ptes_shared;
	unsigned int first_wake_millisecs;	/* model: first wake-up after start */
};

/* The kernel's defaults (khugepaged_init() and the statics). */
void khugepaged_default_tunables(struct khugepaged_tunables *t);
void khugepaged_init(const struct khugepaged_tunables *t);
void khugepaged_destroy(void);
void khugepaged(void *arg);
void khugepaged_do_scan(void);
void kthread_stop_khugepaged(void);
bool khugepaged_exited(void);
unsigned int khugepaged_pages_collapsed_read(void);
unsigned int khugepaged_full_scans_read(void);
/* The registered mms in list order (at most @max); the cursor's index or -1. */
int khugepaged_list(struct mm_struct **mms, int max, int *cursor);

#endif /* MMSIM_MM_KHUGEPAGED_H */
