/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulated executor's state (src/workload/sim.c: the run and the
 * tasks; sim_steps.c: the steps and the barrier).  Private to those two.
 */
#ifndef MMSIM_WORKLOAD_SIM_INTERNAL_H
#define MMSIM_WORKLOAD_SIM_INTERNAL_H

#include "mm/mm.h"
#include "mmsim/scenario.h"
#include "mmsim/workload.h"

/* Where one memory is mapped in one task or mm. */
struct wl_map {
	uint64_t addr;
	bool mapped;
};

/*
 * One mm and the tasks using it.
 * Invariant: users == tasks alive whose wm is this.
 */
struct wl_mm {
	struct mm_struct *mm;
	int users;
	struct wl_map map[WL_MAX_MEMORY];	/* per = workload memory */
	struct wl_mm *next;			/* on wl_run.mms */
};

struct wl_run;

/* One task's state. */
struct wl_task_run {
	struct wl_run *run;
	const struct wl_task *t;		/* its group */
	int group, index;
	struct wl_mm *wm;
	struct wl_map map[WL_MAX_MEMORY];	/* per = task memory */
	struct address_space *file[WL_MAX_MEMORY]; /* per = task shmem, file */
	bool forked;
	bool counted;				/* its loop has a counted step */
	bool in_barrier;			/* takes part in the barrier */
	uint64_t ops;
	sim_time_t loop_begin, loop_end;
	sim_time_t deadline;			/* duration loops: the loop's end, else 0 */
	int phase_step;				/* loop step of the random phase, -1: none */
	uint64_t phase_k;			/* its first address (position) */
	struct sim_task *task;			/* the engine's, once it runs */
	struct user_access *ua[WL_MAX_MEMORY];	/* access steps' state per memory, kept
						 * from step to step (owned) */
	uint64_t arng;				/* access steps' generator (wyrand) */
	bool arng_seeded;			/* arng drawn from the task's stream */
	int order;				/* first_fault: creation order, -1: none */
	bool first_done;			/* first_fault: took its first one */
	bool first_waiting;			/* first_fault: waits for the previous */
	uint64_t walks_begin, loop_walks;	/* its CPU's TLB walks: at loop start, in it */
	struct wl_task_run *parent;		/* forked: the task whose fork step made it */
	int nr_kids;				/* its forked tasks not yet ended */
	bool reaping;				/* waits for them (wl_reap()) */
	struct wl_task_run *barrier_next;	/* on wl_run.barrier_waiters */
	struct wl_task_run *cache_next;		/* on wl_run.cache_waiters */
	struct wl_task_run *next;		/* on wl_run.tasks */
};

/* One run of a plan. */
struct wl_run {
	const struct wl_plan *plan;
	struct mm_model *m;
	struct address_space *file[WL_MAX_MEMORY];	/* per = workload shmem, file */
	struct address_space **files;		/* every file created, for the end */
	int nr_files, cap_files;
	struct wl_mm *mms;
	struct wl_task_run *tasks;
	int live;				/* tasks not yet ended */
	/* the barrier */
	int barrier_expected, barrier_arrived;
	struct wl_task_run *barrier_waiters;
	/* the page cache loader (cached = yes files) */
	bool cache_ready;
	struct wl_task_run *cache_waiters;
	int *file_mem;				/* [nr_files]: the memory each file is */
	struct mm_struct *loader_mm;
	uint64_t loader_faults, loader_majfaults;
	sim_task_fn task_fn;			/* a task's body (wl_task_main()), for forks */
	bool tlb;				/* the vCPUs have TLBs (access steps, file faults) */
	/* first_fault = in_order: tasks by creation, how many took their first */
	struct wl_task_run **order;
	int nr_order, nr_first;
	int group_left[WL_MAX_TASKS];		/* tasks of the group whose loop has not ended */
	int counted_left;			/* counted tasks whose loop has not ended */
	bool failed;
	char err[256];
};

static inline struct wl_map *wl_map_of(struct wl_task_run *tr, int mem)
{
	return tr->run->plan->memory[mem].per_workload ? &tr->wm->map[mem] : &tr->map[mem];
}

static inline struct address_space *wl_file_of(struct wl_task_run *tr, int mem)
{
	return tr->run->plan->memory[mem].per_workload ? tr->run->file[mem] : tr->file[mem];
}

/* Count @n operations of a counted loop step that ended by the deadline. */
static inline void wl_count(struct wl_task_run *tr, const struct wl_step *s, bool in_loop,
			    uint64_t n)
{
	if (in_loop && s->counted && (!tr->deadline || sim_now() <= tr->deadline))
		tr->ops += n;
}

static inline uint64_t wl_stride(const struct wl_step *s)
{
	return s->stride ? s->stride : PAGE_SIZE;
}

/* The addresses of a fault step: nr, or one per stride of the memory. */
static inline uint64_t wl_fault_nr(const struct wl_plan *plan, const struct wl_step *s)
{
	uint64_t slots = plan->memory[s->mem].size / wl_stride(s);

	return s->nr ? s->nr : slots;
}

/* until = GROUP: whether @tr's loop is over (every task of GROUP ended its loop). */
static inline bool wl_until_done(const struct wl_task_run *tr)
{
	return tr->t->until && tr->run->group_left[tr->t->until_group] == 0;
}

extern const char *const wlsim_op_name[];
__attribute__((format(printf, 3, 4)))
void wlsim_fail(struct wl_run *run, const struct wl_step *s, const char *fmt, ...);
bool wlsim_group_has(const struct wl_task *t, enum wl_op op);
/* Whether any step of group @t (setup, loop, teardown) satisfies @match. */
bool wlsim_group_any(const struct wl_task *t,
		     bool (*match)(const struct wl_step *s, const void *arg), const void *arg);
bool wlsim_counted(const struct wl_task *t);
void wlsim_wake(struct wl_task_run *tr);
void wlsim_barrier_wait(struct wl_task_run *tr);
void wlsim_barrier_leave(struct wl_task_run *tr);
bool wlsim_mapped_for(struct mm_struct *mm, uint64_t addr, bool write);
void wlsim_first_fault_wait(struct wl_task_run *tr);
void wlsim_first_fault_done(struct wl_task_run *tr);
void wlsim_step_run(struct wl_task_run *tr, const struct wl_step *s, bool in_loop, uint64_t lo,
		    uint64_t hi);

#endif /* MMSIM_WORKLOAD_SIM_INTERNAL_H */
