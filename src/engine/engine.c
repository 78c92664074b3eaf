// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine as an object: creating it from a profile (its vCPUs placed
 * as Linux numbers them, its machine, the seed's streams and vCPU order),
 * running it until every task has ended or a deadlock, reporting the
 * deadlock, destroying it, and what it keeps for the run's results (its
 * counters, the lock_stat classes, events, the makespan).  Progress for
 * the command line's progress line, which never changes the run.
 *
 * The scheduler itself is src/engine/sched.c; where tasks run,
 * src/mm/fair.c; the machine's costs, src/hw/machine.c.
 * No locks: nothing here runs while a task runs, except sim_work_done()
 * and sim_lock_class(), which touch only the engine's own fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine/ctx/ctx.h"
#include "engine/engine.h"
#include "mmsim/funcprof.h"
#include "mmsim/hw.h"
#include "mmsim/profile.h"

struct sim_engine *sim_engine_current;
uint64_t *sim_counters_current;

#define SIM_DEFAULT_STACK	(64 * 1024)

/* ---- progress (the command line's, never the model's) ------------------- */

static void (*progress_fn)(void *arg, double done);
static void *progress_arg;

/**
 * sim_set_progress_hook() - report progress of engines created from now on
 * @fn: called every SIM_PROGRESS_EVERY events with the share done, or NULL
 * @arg: its first argument
 *
 * Context: outside any engine run (the command line).
 */
void sim_set_progress_hook(void (*fn)(void *arg, double done), void *arg)
{
	progress_fn = fn;
	progress_arg = arg;
}

/**
 * sim_engine_set_work() - the total work of a run, in the scenario's units
 * @e: the engine
 * @total: units; sim_work_done() counts them
 */
void sim_engine_set_work(struct sim_engine *e, uint64_t total)
{
	e->work_total = total;
}

/**
 * sim_work_done() - @n units of the current engine's work are done
 * @n: units
 *
 * Context: a task; costs nothing in virtual time.
 */
void sim_work_done(uint64_t n)
{
	sim_engine_current->work_done += n;
}

/* Report progress: e->events has reached e->progress_at. */
void sim_engine_progress(struct sim_engine *e)
{
	double done = -1;

	e->progress_at += SIM_PROGRESS_EVERY;
	if (!progress_fn)
		return;
	if (e->work_total)
		done = e->work_done >= e->work_total ? 1.0 :
		       (double)e->work_done / (double)e->work_total;
	progress_fn(progress_arg, done);
}

/* ---- the engine ---------------------------------------------------------------- */

struct sim_engine *sim_engine_create(const struct sim_engine_opts *o)
{
	const struct sim_profile *p = o->profile;
	struct sim_engine *e;
	int i, n = o->nr_cpus;
	int siblings_apart;

	if (n <= 0 || n > SIM_MAX_CPUS || n > sim_profile_nr_cpus(p))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->profile = p;
	e->nr_cpus = n;
	e->seed = o->seed;
	e->check = o->check;
	e->stack_size = o->stack_size ? o->stack_size : SIM_DEFAULT_STACK;
#if SIM_ASAN
	e->stack_size *= 4;	/* ASan frames are larger */
#endif
	e->quantum_ps = p->sched_quantum_ns * SIM_NS;
	e->ctxsw_ps = p->sched_context_switch_ns * SIM_NS;
	e->wakeup_ps = p->sched_wakeup_ns * SIM_NS;
	e->slice_ps = p->sched_slice_us * SIM_US;
	e->start_jitter_ps = p->sched_start_jitter_us * SIM_US;
	e->fork_ps = p->sched_fork_us * SIM_US;
	e->vcpus = calloc((size_t)n, sizeof(*e->vcpus));
	e->heap = calloc((size_t)n, sizeof(*e->heap));
	e->main_ctx = sim_ctx_create_main();
	if (!e->vcpus || !e->heap || !e->main_ctx ||
	    sim_machine_init(&e->machine, p, n)) {
		sim_engine_destroy(e);
		return NULL;
	}
	/* Each vCPU where Linux numbers it (sim_machine_cpu_place()). */
	siblings_apart = (int)(p->topology_sockets * p->topology_cores_per_socket);
	for (i = 0; i < n; i++) {
		struct sim_vcpu *v = &e->vcpus[i];

		v->id = i;
		v->heap_pos = -1;
		sim_machine_cpu_place(p, i, &v->socket, &v->core, &v->smt, &v->node);
		sim_rng_seed(&v->rng, o->seed, (uint64_t)i);
	}
	/* The order of vCPUs due at the same time: a permutation from the seed. */
	{
		struct sim_rng r;

		sim_rng_seed(&r, o->seed, 4ULL << 32);
		for (i = 0; i < n; i++)
			e->vcpus[i].rank = i;
		for (i = n - 1; i > 0; i--) {
			int j = (int)sim_rng_below(&r, (uint64_t)i + 1), tmp;

			tmp = e->vcpus[i].rank;
			e->vcpus[i].rank = e->vcpus[j].rank;
			e->vcpus[j].rank = tmp;
		}
	}
	/* SMT siblings: the vCPUs that share a core (one sibling per core here). */
	for (i = 0; i < n; i++) {
		int sib = i < siblings_apart ? i + siblings_apart : i - siblings_apart;

		if (p->topology_threads_per_core > 1 && sib < n)
			e->vcpus[i].smt_sibling = &e->vcpus[sib];
	}
	/* sched domains: spans, and the balancer's first intervals (src/mm/fair.c) */
	if (sched_init_domains(e)) {
		sim_engine_destroy(e);
		return NULL;
	}
	e->smt_scale_q10 = p->sched_smt_throughput_pct ?
			   1024 * 100 / p->sched_smt_throughput_pct : 1024;
	e->class_tail = &e->classes;
	e->progress_at = progress_fn ? SIM_PROGRESS_EVERY : UINT64_MAX;
	sim_engine_current = e;
	sim_counters_current = e->counters;
	sim_vcpu_current = &e->vcpus[0];
	sim_machine_set_current(&e->machine);
	sim_smt_scale_q10 = e->smt_scale_q10;
	return e;
}

void sim_engine_destroy(struct sim_engine *e)
{
	struct sim_task *t, *tn;
	struct lock_class_stat *c, *cn;

	if (!e)
		return;
	for (t = e->tasks; t; t = tn) {
		tn = t->all_next;
		sim_ctx_destroy(t->ctx);
		munmap(t->stack, t->stack_size);
		free(t);
	}
	for (c = e->classes; c; c = cn) {
		cn = c->next;
		free(c);
	}
	sim_ctx_destroy(e->main_ctx);
	sim_machine_destroy(&e->machine);
	free(e->vcpus);
	free(e->heap);
	free(e->sg);
	if (sim_engine_current == e) {
		sim_engine_current = NULL;
		sim_vcpu_current = NULL;
		sim_counters_current = NULL;
	}
	free(e);
}

static void deadlock_report(struct sim_engine *e, char *buf, size_t len)
{
	size_t off = 0;
	struct sim_task *t;

	off += (size_t)snprintf(buf + off, len - off,
				"deadlock: %d task(s) can never run again", e->nr_live);
	for (t = e->tasks; t && off < len; t = t->all_next) {
		if (t->state == SIM_TASK_DEAD)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "; %s (pid %d, cpu %d) waits for %s %s",
					t->comm, t->pid, t->vcpu->id,
					t->wait.what ? t->wait.what : "?",
					t->wait.name ? t->wait.name : "?");
		if (off < len && t->wait.what && !strcmp(t->wait.what, "spinlock")) {
			const struct spinlock *l = t->wait.obj;
			const struct sim_task *w;

			off += (size_t)snprintf(buf + off, len - off, " held by %s (cpu %d), waiters:",
						l->owner_task ? l->owner_task->comm : "?",
						l->owner ? l->owner->id : -1);
			for (w = l->waiters_head; w && off < len; w = w->rq_next)
				off += (size_t)snprintf(buf + off, len - off, " %s", w->comm);
		}
	}
}

int sim_engine_run(struct sim_engine *e, char *report, size_t len)
{
	sim_engine_current = e;
	sim_counters_current = e->counters;
	sim_machine_set_current(&e->machine);
	sim_smt_scale_q10 = e->smt_scale_q10;
	e->running = NULL;
	if (sim_funcprof_active)
		sim_funcprof_run_begin(e);
	sim_sched_start(e);
	if (sim_funcprof_active)
		sim_funcprof_run_end(e);
	if (e->nr_live > 0) {
		if (report && len)
			deadlock_report(e, report, len);
		return -EDEADLK;
	}
	return 0;
}

sim_time_t sim_engine_end_time(const struct sim_engine *e)
{
	sim_time_t end = 0;
	int i;

	for (i = 0; i < e->nr_cpus; i++)
		if (e->vcpus[i].now > end)
			end = e->vcpus[i].now;
	return end;
}

int sim_engine_nr_cpus(const struct sim_engine *e) { return e->nr_cpus; }
struct sim_vcpu *sim_engine_vcpu(struct sim_engine *e, int cpu) { return &e->vcpus[cpu]; }
const struct sim_profile *sim_engine_profile(const struct sim_engine *e) { return e->profile; }
uint64_t sim_engine_events(const struct sim_engine *e) { return e->events; }
uint64_t *sim_engine_counters(struct sim_engine *e) { return e->counters; }
bool sim_engine_checking(const struct sim_engine *e) { return e->check; }
void sim_engine_set_priv(struct sim_engine *e, void *priv) { e->priv = priv; }
void *sim_engine_priv(const struct sim_engine *e) { return e->priv; }

/* ---- lock_stat: the run's lock classes, as it keeps its counters ---------- */

/**
 * sim_lock_class() - the lock class named @name of @e, created at first use
 * @e: the engine
 * @name: the class, as lock_stat names it
 *
 * Context: creating a lock (spin_lock_init(), init_rwsem()).
 * Return: the class; it lives as long as @e.
 */
struct lock_class_stat *sim_lock_class(struct sim_engine *e, const char *name)
{
	struct lock_class_stat *c;

	for (c = e->classes; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	snprintf(c->name, sizeof(c->name), "%s", name);
	*e->class_tail = c;
	e->class_tail = &c->next;
	return c;
}

struct lock_class_stat *sim_lock_classes(struct sim_engine *e)
{
	return e->classes;
}

void sim_engine_set_check_hook(struct sim_engine *e, void (*fn)(void *), void *arg)
{
	e->check_fn = fn;
	e->check_arg = arg;
}
