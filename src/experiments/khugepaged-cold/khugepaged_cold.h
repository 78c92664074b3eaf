/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * khugepaged-cold's values shared by its simulated side (khugepaged_cold.c,
 * which runs workloads/experiments/khugepaged-cold-tasks.ini) and its
 * live side (live.c).
 */
#ifndef MMSIM_EXPERIMENTS_KHUGEPAGED_COLD_H
#define MMSIM_EXPERIMENTS_KHUGEPAGED_COLD_H

/*
 * How hot1 and hot2 access their regions (docs/results.md, "The access
 * pattern"), the order of the `pattern` parameter's choices: uniformly
 * random 8-byte loads; one load per cache line in order; one load per 4K
 * page per pass, at the page's first byte, in page order (pages) or in a
 * new random order each pass (pages-shuffled).  The file's access steps:
 * pattern=random stride=8, pattern=seq stride=64, pattern=seq (4K),
 * pattern=shuffled (4K).
 */
enum hot_cold_pattern {
	HOT_COLD_RANDOM,
	HOT_COLD_SEQUENTIAL,
	HOT_COLD_PAGES,
	HOT_COLD_PAGES_SHUFFLED,
};

#endif
