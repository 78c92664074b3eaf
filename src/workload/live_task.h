/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live executor's two halves (src/workload/live.c: the run, mmsim's
 * side; live_task.c: a task, from its start to its end) and what they
 * share: the page every task writes its results into, the run's objects
 * and one task's state.  Private to src/workload/live*.c.
 */
#ifndef MMSIM_WORKLOAD_LIVE_TASK_H
#define MMSIM_WORKLOAD_LIVE_TASK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/live_internal.h"
#include "workload/live.h"

#define WL_TMPFS_MAGIC		0x01021994UL	/* include/uapi/linux/magic.h */
#define WL_MAX_NODES		1024
#define WL_MPOL_PREFERRED	1		/* include/uapi/linux/mempolicy.h */
#define WL_MPOL_BIND		2
#define WL_MPOL_INTERLEAVE	3

/* ---- shared between mmsim and every task ---- */

struct wl_live_slot {
	/*
	 * Sums over the task's runs: one for a task started with the run, one
	 * per fork step that started it for a forked group's task.
	 */
	uint64_t runs;
	uint64_t ops;			/* counted operations of its loops */
	uint64_t loop_ns;		/* its loops' time, CLOCK_MONOTONIC */
	uint64_t max_loop_ns;		/* its longest loop */
	uint64_t minflt, majflt;		/* of its loops */
	uint64_t task_flt;		/* faults of its setup, loops and teardown: the
					 * run's faults, as the model counts them */
	uint64_t forks;			/* fork steps it ran */
	uint64_t rss_anon_kb, rss_file_kb, rss_shmem_kb;
	pid_t pid, tid;
	int vmas_delta;			/* with probe: /proc/self/maps lines, end - start */
};

/*
 * bar_arrived <= bar_members; bar_gen changes each time the barrier opens.
 * fail != 0 implies stop; the first failure's line and text are kept.
 */
struct wl_live_shared {
	pthread_mutex_t lock;		/* process-shared: the barrier, fail */
	pthread_cond_t cond;
	int bar_members;		/* tasks with a barrier step, before their loop ends */
	int bar_arrived;
	unsigned int bar_gen;
	volatile int stop;		/* a task failed: the others end */
	int fail;			/* errno of the first failure */
	char fail_what[200];
	struct wl_live_slot slot[];	/* one per task of every group, in order */
};

/* What mmsim makes before the tasks start; inherited by every task. */
struct wl_live_objs {
	char tmpdir[64];		/* "" when no memory is a file */
	int fd[WL_MAX_MEMORY];		/* per = workload shmem or file, else -1 */
	char *addr[WL_MAX_MEMORY];	/* per = workload anon, else NULL */
	void *base[WL_MAX_MEMORY];
	size_t len[WL_MAX_MEMORY];
	int cpus[CPU_SETSIZE];		/* the CPUs mmsim may run on, in order */
	int nr_cpus;
	unsigned long nodes[WL_MAX_NODES / 64];	/* nodes with memory (interleave) */
	bool probe;			/* tests: count the mappings around the loop */
};

/* One task's view of one memory. */
struct wl_live_map {
	char *addr;			/* the memory's start, NULL: not mapped here */
	void *base;			/* what munmap() takes */
	size_t len;
	int fd;				/* per = task shmem or file: its own, else -1 */
};

/* One task, in the process (or thread) that runs it. */
struct wl_live_task {
	const struct wl_plan *plan;
	const struct wl_task *g;	/* its group */
	struct wl_live_shared *sh;
	const struct wl_live_objs *objs;
	int slot;			/* its slot, or the forking task's */
	int idx;			/* its index among all tasks (CPU, generator) */
	bool forked;			/* started by a fork step */
	bool member;			/* of the barrier, until its loop ends */
	uint64_t rng;
	struct wl_live_map m[WL_MAX_MEMORY];
	uint32_t *perm[3][WL_MAX_STEPS]; /* fault steps with order=random, per list */
	pid_t *kids;			/* fork children not yet reaped */
	int nr_kids, cap_kids;
	uint64_t forks;
	double deadline;		/* a duration loop's end (live_now()), 0: none */
};

/* live_task.c */
bool wl_group_uses(const struct wl_task *g, int mem);
void wl_file_path(const struct wl_live_objs *o, int mem, int task, char *buf,
			 size_t len);
int wl_mem_map(const struct wl_live_objs *o, const struct wl_memory *mem, int fd,
		      struct wl_live_map *m);
bool wl_group_barrier(const struct wl_task *g);
void wl_process(struct live_run *r, void *arg, int idx);
extern const char *const wl_op_names[];

struct wl_live_proc {
	const struct wl_plan *plan;
	struct wl_live_shared *sh;
	const struct wl_live_objs *objs;
	uint64_t seed;
	int group;
	int first;			/* index of its first task among all */
	int slot;			/* its first task's slot */
};

#endif /* MMSIM_WORKLOAD_LIVE_TASK_H */
