/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live executor of workload files (src/workload/live.c): a resolved
 * struct wl_plan run on the running kernel.  Private to src/workload/ and
 * tests/test_workload_live.c; `mmsim live FILE` reaches it through the
 * workload's scenario_ops.live (workload_live).
 */
#ifndef MMSIM_WORKLOAD_LIVE_H
#define MMSIM_WORKLOAD_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/live_internal.h"
#include "mmsim/workload.h"

/* At most this many tasks (threads and processes) in one live run. */
#define WL_LIVE_MAX_TASKS	1024

/*
 * What one task did, for the tests: sums over its runs (a forked group's
 * task runs once per fork step that starts it); pid to vmas_delta: its
 * last run's.
 */
struct wl_live_task_stats {
	pid_t pid, tid;			/* its process and thread */
	uint64_t runs;
	uint64_t ops;			/* counted operations of its loops */
	double loop_s;			/* its loops' time */
	uint64_t minflt, majflt;	/* page faults of its thread over the loop */
	uint64_t forks;			/* fork steps it ran */
	uint64_t rss_anon_kb, rss_file_kb, rss_shmem_kb; /* its mm at the loop's end */
	int vmas_delta;			/* its mm's mappings, loop's end - start */
};

struct wl_live_stats {
	int nr_tasks;
	struct wl_live_task_stats task[WL_LIVE_MAX_TASKS];
	char tmpdir[64];		/* the run's files' directory, "" if none */
};

int wl_live_check_plan(const struct wl_plan *plan, char *err, size_t len);
uint64_t wl_live_memory_plan(const struct wl_plan *plan);
void wl_live_want_plan(const struct wl_plan *plan, struct live_settings *st);
enum live_stop wl_live_run_plan(struct live_run *r, const struct wl_plan *plan,
				struct wl_live_stats *stats);

extern const struct live_ops workload_live;

#endif /* MMSIM_WORKLOAD_LIVE_H */
