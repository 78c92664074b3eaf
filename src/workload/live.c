// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload files on the running kernel (`mmsim live FILE`, `mmsim compare
 * FILE`; docs/workloads.md, docs/live.md): the resolved struct wl_plan,
 * the one the simulated executor reads, executed with real system calls
 * under live mode's harness (src/host/: settings, state file, perf lock,
 * the start pipe).
 *
 * Mirrors no kernel function: every step is the system call whose kernel
 * path the model runs (mmap(2), munmap(2), a load or store that faults,
 * madvise(2), mprotect(2), fork(2), mbind(2), ftruncate(2)).
 *
 * Who does what:
 *
 *   mmsim (workload_live.run)             a task (process, or thread of a
 *                                         group's process)
 *   resolve the plan at this machine's    -
 *   online CPUs; make the run's files
 *   (/tmp/mmsim-live-wl-X, state file)
 *   and per = workload objects; map the
 *   shared page (struct wl_live_shared)
 *   live_spawn() each process ----------> wait on the start pipe
 *   live_start(): close the pipe -------> pin to its CPU, start_delay,
 *                                         setup steps; loop (timed,
 *                                         CLOCK_MONOTONIC), teardown;
 *                                         results into the shared page
 *   wait (SIGINT, SIGTERM, a death: kill
 *   every process); metrics; remove the
 *   files, unmap, forget the tmpdir
 *
 * A fork step starts the forked group's tasks (a process each, or one
 * process of their threads) in copies of the forking task's mm; each runs
 * the group's steps into its own slot (a second fork step's run adds to
 * it) and exits.  They die with their parent (PR_SET_PDEATHSIG), and the
 * forking task waits for them before it ends.
 *
 * The barrier: one for the workload, in the shared page (a process-shared
 * mutex and condition variable).  Its members are the tasks that have a
 * barrier step, from their start to the end of their loop; a barrier
 * opens when every member has reached it, so a task whose loop has ended
 * (a duration loop, a shorter repeat) no longer holds the others.  A
 * barrier step after the loop waits until no member is left.
 *
 * Left out: a per = workload anonymous memory is mapped once before the
 * tasks start (processes inherit it, threads share it); mmap and munmap
 * steps on it are refused.  Files live in /tmp, which must be a disk file
 * system for kind = file (else the page cache path is not the one run).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload/live_task.h"
#include "workload/wl_rand.h"

/* ---- the plan, checked and sized ---- */

/* Processes that live_spawn() starts, and tasks with a slot. */
static void wl_plan_counts(const struct wl_plan *plan, int *nr_procs, int *nr_slots)
{
	*nr_procs = *nr_slots = 0;
	for (int i = 0; i < plan->nr_task; i++) {
		const struct wl_task *g = &plan->task[i];

		*nr_slots += g->count;
		if (!g->forked)
			*nr_procs += g->threads ? 1 : g->count;
	}
}

/**
 * wl_live_memory_plan - the most memory a live run of @plan maps
 * @plan: the resolved plan
 *
 * Each memory's size once (per = workload) or once per task of each group
 * that names it (forked groups counted once per task of their group too),
 * with its alignment.
 *
 * Context: any.
 * Return: bytes.
 */
uint64_t wl_live_memory_plan(const struct wl_plan *plan)
{
	uint64_t total = 0;

	for (int m = 0; m < plan->nr_memory; m++) {
		const struct wl_memory *mem = &plan->memory[m];
		uint64_t one = mem->size + (mem->page > LIVE_PAGE ? mem->page : 0);

		if (mem->per_workload) {
			total += one;
			continue;
		}
		for (int i = 0; i < plan->nr_task; i++)
			if (wl_group_uses(&plan->task[i], m))
				total += one * (uint64_t)plan->task[i].count;
	}
	return total;
}

static bool wl_path_exists(const char *abs)
{
	char path[512];

	return !live_sys_path(path, sizeof(path), abs) && !access(path, F_OK);
}

/**
 * wl_live_check_plan - what this machine must have to run @plan live
 * @plan: the resolved plan
 * @err: one line naming what is missing, and what was expected
 * @len: its size
 *
 * Context: any; changes nothing.
 * Return: 0, or -errno.
 */
int wl_live_check_plan(const struct wl_plan *plan, char *err, size_t len)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	bool files = false;
	int nr_procs, nr_slots;
	struct statfs fs;

	wl_plan_counts(plan, &nr_procs, &nr_slots);
	if (nr_procs > LIVE_MAX_CHILDREN || plan->nr_tasks > WL_LIVE_MAX_TASKS ||
	    nr_slots > WL_LIVE_MAX_TASKS) {
		snprintf(err, len, "live runs start at most %d processes and %d tasks: "
			 "this plan has %d processes and %d tasks; lower its task count "
			 "with --set (or use as = threads)", LIVE_MAX_CHILDREN,
			 WL_LIVE_MAX_TASKS, nr_procs, plan->nr_tasks);
		return -E2BIG;
	}
	for (int i = 0; i < plan->nr_task; i++) {
		const struct wl_task *g = &plan->task[i];

		if (g->cpu >= online) {
			snprintf(err, len, "task %s: cpu = %d, and this machine has %ld "
				 "online CPUs: expected 0 to %ld, or spread", g->name, g->cpu,
				 online, online - 1);
			return -EINVAL;
		}
	}
	for (int m = 0; m < plan->nr_memory; m++) {
		const struct wl_memory *mem = &plan->memory[m];
		char abs[128];

		if (mem->numa == WL_NUMA_BIND || mem->numa == WL_NUMA_PREFERRED) {
			snprintf(abs, sizeof(abs), "/sys/devices/system/node/node%d", mem->node);
			if (mem->node < 0 || mem->node >= WL_MAX_NODES || !wl_path_exists(abs)) {
				snprintf(err, len, "memory %s: numa = %s:%d, and this machine "
					 "has no NUMA node %d (no %s): expected a node it has",
					 mem->name, mem->numa == WL_NUMA_BIND ? "bind" : "preferred",
					 mem->node, mem->node, abs);
				return -ENOENT;
			}
		}
		if (mem->kind == WL_MEM_ANON && mem->page > LIVE_PAGE && !mem->thp) {
			snprintf(abs, sizeof(abs), "%s/hugepages-%llukB/enabled", LIVE_THP_DIR,
				 (unsigned long long)(mem->page >> 10));
			if (!wl_path_exists(abs)) {
				snprintf(err, len, "memory %s: page = %lluK, and this kernel has "
					 "no such mTHP size (no %s): it needs Linux 6.8 or later "
					 "with CONFIG_TRANSPARENT_HUGEPAGE", mem->name,
					 (unsigned long long)(mem->page >> 10), abs);
				return -ENOENT;
			}
		}
		if (mem->thp && !wl_path_exists(LIVE_THP_DIR)) {
			snprintf(err, len, "memory %s: page = thp, and this kernel has no %s "
				 "(CONFIG_TRANSPARENT_HUGEPAGE=n)", mem->name, LIVE_THP_DIR);
			return -ENOENT;
		}
		if (mem->kind == WL_MEM_FILE)
			files = true;
		if (mem->per_workload && mem->kind == WL_MEM_ANON)
			for (int i = 0; i < plan->nr_task; i++) {
				const struct wl_task *g = &plan->task[i];
				const struct wl_step *l[3] = { g->setup, g->loop, g->teardown };
				int n[3] = { g->nr_setup, g->nr_loop, g->nr_teardown };

				for (int k = 0; k < 3; k++)
					for (int s = 0; s < n[k]; s++)
						if (l[k][s].mem == m && (l[k][s].op == WL_OP_MMAP ||
									 l[k][s].op == WL_OP_MUNMAP)) {
							snprintf(err, len, "line %d: %s %s: memory %s is "
								 "anonymous and per = workload, which "
								 "a live run maps once before the "
								 "tasks start: expected no mmap or "
								 "munmap step on it (or per = task)",
								 l[k][s].line, wl_op_names[l[k][s].op],
								 mem->name, mem->name);
							return -EINVAL;
						}
			}
	}
	if (files) {
		struct stat st;

		if (stat("/tmp", &st) || !S_ISDIR(st.st_mode)) {
			snprintf(err, len, "kind = file memory is made in /tmp, which this "
				 "machine does not have: expected a directory /tmp on a disk");
			return -ENOENT;
		}
		if (!statfs("/tmp", &fs) && (unsigned long)fs.f_type == WL_TMPFS_MAGIC) {
			snprintf(err, len, "kind = file memory is made in /tmp, which is a "
				 "tmpfs here (its pages would be shmem, not a disk file's page "
				 "cache): expected /tmp on a disk file system");
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * wl_live_want_plan - the THP settings @plan runs with (written by --apply)
 * @plan: the resolved plan
 * @st: the settings read; wants are marked
 *
 * The top-level "enabled" is the plan's thp; every mTHP size "never" but
 * the plan's one ("always") and the PMD size ("inherit": it follows
 * "enabled", for page = thp), as deferred-split's live run does.
 *
 * Context: any.
 */
void wl_live_want_plan(const struct wl_plan *plan, struct live_settings *st)
{
	static const char *const thp[] = {
		[WL_THP_MADVISE] = "madvise", [WL_THP_ALWAYS] = "always",
		[WL_THP_NEVER] = "never",
	};
	char rel[80];

	live_settings_want(st, "enabled", thp[plan->thp]);
	for (int i = 0; i < st->nr; i++)
		if (!strncmp(st->s[i].rel, "hugepages-", 10))
			snprintf(st->s[i].want, sizeof(st->s[i].want), "%s",
				 strtoull(st->s[i].rel + 10, NULL, 10) << 10 == LIVE_PMD_SIZE ?
				 "inherit" : "never");
	if (plan->mthp_order > 0) {
		snprintf(rel, sizeof(rel), "hugepages-%lukB/enabled",
			 (LIVE_PAGE << plan->mthp_order) >> 10);
		live_settings_want(st, rel, "always");
	}
}

/* ---- the run ---- */

/* Nodes with memory, from /sys/devices/system/node/has_memory ("0-1,3"). */
static void wl_read_nodes(struct wl_live_objs *o)
{
	char buf[512], path[512];
	char *p = buf;

	o->nodes[0] = 1;
	if (live_sys_path(path, sizeof(path), "/sys/devices/system/node/has_memory") ||
	    live_read_file(path, buf, sizeof(buf)) <= 0)
		return;
	o->nodes[0] = 0;
	while (*p >= '0' && *p <= '9') {
		unsigned long a = strtoul(p, &p, 10), b = a;

		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		for (unsigned long n = a; n <= b && n < WL_MAX_NODES; n++)
			o->nodes[n / 64] |= 1UL << (n % 64);
		if (*p == ',')
			p++;
	}
	if (!o->nodes[0] && !o->nodes[1])
		o->nodes[0] = 1;
}

/*
 * A sparse file (sparse = yes): ftruncate() only, no block; cached, read
 * through once, so that the page cache holds its holes' zeroed folios.
 */
static int wl_sparse_file(int fd, uint64_t size, bool cached)
{
	static char buf[WL_FILE_IO_BYTES];

	if (ftruncate(fd, (off_t)size))
		return -errno;
	for (uint64_t done = 0; cached && done < size; ) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (uint64_t)n;
	}
	return 0;
}

/* Write @size bytes to @fd: the file's pages in the page cache, on disk. */
static int wl_fill_file(int fd, uint64_t size, bool cached)
{
	static char zero[WL_FILE_IO_BYTES];

	for (uint64_t done = 0; done < size; ) {
		size_t n = size - done < sizeof(zero) ? (size_t)(size - done) : sizeof(zero);
		ssize_t w = write(fd, zero, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (uint64_t)w;
	}
	if (fdatasync(fd))
		return -errno;
	if (!cached)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

static int wl_make_file(struct live_run *r, const struct wl_live_objs *o,
			const struct wl_memory *mem, int m, int task, int *fdp)
{
	char path[128];
	int fd, ret;

	wl_file_path(o, m, task, path, sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(r->err, sizeof(r->err), "memory %s: %s: %s", mem->name, path,
			 strerror(errno));
		return -1;
	}
	ret = mem->sparse ? wl_sparse_file(fd, mem->size, mem->cached) :
			    wl_fill_file(fd, mem->size, mem->cached);
	if (ret) {
		snprintf(r->err, sizeof(r->err), "memory %s: writing %s: %s", mem->name,
			 path, strerror(-ret));
		close(fd);
		return -1;
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return 0;
}

/* Undo wl_make_objs(): close, unmap, remove the files and the directory. */
static void wl_free_objs(const struct wl_plan *plan, struct wl_live_objs *o, int nr_slots)
{
	for (int m = 0; m < WL_MAX_MEMORY; m++) {
		if (o->fd[m] >= 0)
			close(o->fd[m]);
		o->fd[m] = -1;
		if (o->addr[m])
			munmap(o->base[m], o->len[m]);
		o->addr[m] = NULL;
	}
	if (!o->tmpdir[0])
		return;
	for (int m = 0; m < plan->nr_memory; m++) {
		char path[128];

		if (plan->memory[m].kind != WL_MEM_FILE)
			continue;
		wl_file_path(o, m, -1, path, sizeof(path));
		unlink(path);
		for (int t = 0; t < nr_slots; t++) {
			wl_file_path(o, m, t, path, sizeof(path));
			unlink(path);
		}
	}
	rmdir(o->tmpdir);
	live_state_note_tmpdir(LIVE_STATE_TMPDIR_WORKLOAD, NULL);
	o->tmpdir[0] = '\0';
}

/*
 * Before the tasks start: the directory of the run's files (noted in the
 * state file first, so that a killed run's are removed by the next), the
 * files, per = workload objects, the CPUs and nodes.  0, or -1 with r->err.
 */
static int wl_make_objs(struct live_run *r, const struct wl_plan *plan,
			struct wl_live_objs *o, int nr_slots)
{
	cpu_set_t set;
	bool files = false;

	for (int m = 0; m < WL_MAX_MEMORY; m++)
		o->fd[m] = -1;
	if (!sched_getaffinity(0, sizeof(set), &set))
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				o->cpus[o->nr_cpus++] = c;
	wl_read_nodes(o);
	for (int m = 0; m < plan->nr_memory; m++)
		files |= plan->memory[m].kind == WL_MEM_FILE;
	if (files) {
		snprintf(o->tmpdir, sizeof(o->tmpdir), "/tmp/mmsim-live-wl-XXXXXX");
		if (!mkdtemp(o->tmpdir)) {
			snprintf(r->err, sizeof(r->err), "mkdtemp %s: %s", o->tmpdir,
				 strerror(errno));
			o->tmpdir[0] = '\0';
			return -1;
		}
		live_state_note_tmpdir(LIVE_STATE_TMPDIR_WORKLOAD, o->tmpdir);
	}
	for (int m = 0; m < plan->nr_memory; m++) {
		const struct wl_memory *mem = &plan->memory[m];
		struct wl_live_map map = { .fd = -1 };
		int ret;

		if (mem->kind == WL_MEM_FILE && !mem->per_workload) {
			int t = 0;

			for (int g = 0; g < plan->nr_task; g++)
				for (int i = 0; i < plan->task[g].count; i++, t++)
					if (wl_group_uses(&plan->task[g], m) &&
					    wl_make_file(r, o, mem, m, t, NULL))
						return -1;
			continue;
		}
		if (!mem->per_workload)
			continue;
		if (mem->kind == WL_MEM_FILE && wl_make_file(r, o, mem, m, -1, &o->fd[m]))
			return -1;
		if (mem->kind == WL_MEM_SHMEM) {
			o->fd[m] = memfd_create(mem->name, MFD_CLOEXEC);
			if (o->fd[m] < 0 || ftruncate(o->fd[m], (off_t)mem->size) ||
			    (mem->cached && fallocate(o->fd[m], 0, 0, (off_t)mem->size))) {
				snprintf(r->err, sizeof(r->err), "memory %s: memfd_create: %s",
					 mem->name, strerror(errno));
				return -1;
			}
		}
		if (mem->kind != WL_MEM_ANON)
			continue;
		ret = wl_mem_map(o, mem, -1, &map);
		if (ret) {
			snprintf(r->err, sizeof(r->err), "memory %s: mmap of %llu bytes: %s",
				 mem->name, (unsigned long long)mem->size, strerror(-ret));
			if (map.addr)
				munmap(map.base, map.len);
			return -1;
		}
		o->addr[m] = map.addr;
		o->base[m] = map.base;
		o->len[m] = map.len;
	}
	return 0;
}

static struct wl_live_shared *wl_shared_map(struct live_run *r, int nr_slots, size_t *len)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	struct wl_live_shared *sh;

	*len = sizeof(*sh) + (size_t)nr_slots * sizeof(sh->slot[0]);
	sh = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(r->err, sizeof(r->err), "mmap: %s", strerror(errno));
		return NULL;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&sh->cond, &ca);
	pthread_condattr_destroy(&ca);
	return sh;
}

/* A metric, where the scenario has it (a hand-built test scenario may not). */
static void wl_metric(struct live_run *r, const char *key, double v)
{
	if (sim_scenario_metric_index(r->cfg->scenario, key) >= 0)
		live_set_metric(r, key, v);
}

/*
 * The run's metrics from the slots, as the simulated executor computes
 * them (docs/workloads.md): a task's rate is its operations over its
 * loop's time, a duration loop's over the duration (an iteration that
 * runs past it is not cut short: with iterations as long as the duration
 * the rate is overstated, on both sides alike); ops_per_task_s the mean of
 * the rates of the tasks whose loop counts (not a parent that only forks),
 * ops_per_s their sum (x op_bytes: throughput_bytes_s), runtime_s the
 * longest loop of those tasks.
 */
static void wl_metrics(struct live_run *r, const struct wl_plan *plan,
		       const struct wl_live_shared *sh, int nr_slots, struct wl_live_stats *stats)
{
	double rate_sum = 0, runtime = 0;
	uint64_t ops = 0, faults = 0;
	int nr_ran = 0, g = 0, g_end = plan->nr_task ? plan->task[0].count : 0;

	for (int s = 0; s < nr_slots; s++) {
		const struct wl_live_slot *sl = &sh->slot[s];
		bool counts = false;
		double loop = (double)sl->loop_ns * 1e-9;
		double secs;
		double longest = (double)sl->max_loop_ns * 1e-9;

		if (stats && s < WL_LIVE_MAX_TASKS)
			stats->task[s] = (struct wl_live_task_stats){
				.pid = sl->pid, .tid = sl->tid, .runs = sl->runs,
				.ops = sl->ops, .loop_s = loop, .minflt = sl->minflt,
				.majflt = sl->majflt, .forks = sl->forks,
				.rss_anon_kb = sl->rss_anon_kb,
				.rss_file_kb = sl->rss_file_kb,
				.rss_shmem_kb = sl->rss_shmem_kb,
				.vmas_delta = sl->vmas_delta,
			};
		while (s >= g_end && g + 1 < plan->nr_task)
			g_end += plan->task[++g].count;
		for (int i = 0; i < plan->task[g].nr_loop; i++)
			counts |= plan->task[g].loop[i].counted;
		ops += sl->ops;
		faults += sl->task_flt;
		/* the mean is over tasks whose loop counts, of those that ran */
		if (!sl->runs || !counts)
			continue;
		runtime = longest > runtime ? longest : runtime;
		nr_ran++;
		/* a forked task's runs: the duration each time */
		secs = plan->task[g].duration_ns ?
		       (double)plan->task[g].duration_ns * 1e-9 * (double)sl->runs : loop;
		rate_sum += secs > 0 ? (double)sl->ops / secs : 0;
	}
	if (stats)
		stats->nr_tasks = nr_slots;
	wl_metric(r, "ops", (double)ops);
	wl_metric(r, "faults", (double)faults);
	wl_metric(r, "runtime_s", runtime);
	if (nr_ran)
		wl_metric(r, "ops_per_task_s", rate_sum / nr_ran);
	wl_metric(r, "ops_per_s", rate_sum);
	if (plan->op_bytes)
		wl_metric(r, "throughput_bytes_s", rate_sum * (double)plan->op_bytes);
}

/**
 * wl_live_run_plan - run a resolved plan on this kernel
 * @r: the run (live mode's harness: start pipe, children, result)
 * @plan: the plan, resolved at this machine's online CPUs
 * @stats: what each task did (for the tests), or NULL
 *
 * Every process, file, memfd and mapping it makes is gone when it returns,
 * on every way out (a signal, a dead task, an error).
 *
 * Context: live mode's parent; forks; sleeps until the tasks end.
 * Return: how the run ended (struct live_stop), with @r->err on failure.
 */
enum live_stop wl_live_run_plan(struct live_run *r, const struct wl_plan *plan,
				struct wl_live_stats *stats)
{
	static struct wl_live_objs objs;
	struct wl_live_proc proc[WL_MAX_TASKS];
	struct wl_live_shared *sh;
	int nr_procs, nr_slots, slot = 0, first = 0;
	enum live_stop stop = LIVE_STOP_ERROR;
	size_t sh_len;

	memset(&objs, 0, sizeof(objs));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	wl_plan_counts(plan, &nr_procs, &nr_slots);
	if (wl_live_check_plan(plan, r->err, sizeof(r->err)))
		return LIVE_STOP_ERROR;
	sh = wl_shared_map(r, nr_slots, &sh_len);
	if (!sh)
		return LIVE_STOP_ERROR;
	for (int g = 0; g < plan->nr_task; g++)
		if (!plan->task[g].forked && wl_group_barrier(&plan->task[g]))
			sh->bar_members += plan->task[g].count;
	objs.probe = stats != NULL;
	if (wl_make_objs(r, plan, &objs, nr_slots))
		goto out_objs;
	if (stats)
		snprintf(stats->tmpdir, sizeof(stats->tmpdir), "%s", objs.tmpdir);
	if (live_open_start_pipe(r))
		goto out_objs;
	for (int g = 0; g < plan->nr_task; g++) {
		const struct wl_task *grp = &plan->task[g];

		proc[g] = (struct wl_live_proc){ .plan = plan, .sh = sh, .objs = &objs,
			.seed = r->cfg->seed, .group = g, .first = first, .slot = slot };
		first += grp->count;
		slot += grp->count;
		if (grp->forked)
			continue;
		for (int i = 0; i < (grp->threads ? 1 : grp->count); i++) {
			char name[16];

			snprintf(name, sizeof(name), "%.10s%d", grp->name, i % 100);
			if (live_spawn(r, name, wl_process, &proc[g], i) < 0)
				goto out_kill;
		}
	}
	live_start(r);
	stop = live_wait_all(r, NULL, NULL);
	if (stop == LIVE_STOP_CHILD_DIED && sh->fail)
		snprintf(r->err, sizeof(r->err), "%s", sh->fail_what);
	if (stop == LIVE_STOP_NONE)
		wl_metrics(r, plan, sh, nr_slots, stats);
out_kill:
	live_kill_all(&r->kids);
	live_close_start_pipe(r);
out_objs:
	wl_free_objs(plan, &objs, nr_slots);
	munmap(sh, sh_len);
	return stop;
}

/* ---- live_ops ---- */

static int wl_live_plan(const struct sim_run_config *cfg, struct wl_plan *plan, char *err,
			size_t len)
{
	const struct workload *w = workload_of(cfg->scenario);
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (!w) {
		snprintf(err, len, "scenario %s is not a workload file", cfg->scenario->name);
		return -EINVAL;
	}
	return workload_resolve(w, cfg, online > 0 ? (int)online : 1, plan, err, len) ?
	       -EINVAL : 0;
}

static uint64_t wl_live_memory(const struct sim_run_config *cfg)
{
	static struct wl_plan plan;
	char err[256];

	return wl_live_plan(cfg, &plan, err, sizeof(err)) ? 0 : wl_live_memory_plan(&plan);
}

static int wl_live_check(const struct sim_run_config *cfg, bool apply, char *err,
			 size_t errlen)
{
	static struct wl_plan plan;
	int ret = wl_live_plan(cfg, &plan, err, errlen);

	(void)apply;
	return ret ? ret : wl_live_check_plan(&plan, err, errlen);
}

static int wl_live_want(const struct sim_run_config *cfg, struct live_settings *st)
{
	static struct wl_plan plan;
	char err[256];

	if (wl_live_plan(cfg, &plan, err, sizeof(err)))
		return -EINVAL;
	wl_live_want_plan(&plan, st);
	return 0;
}

static enum live_stop wl_live_run(struct live_run *r)
{
	static struct wl_plan plan;

	if (wl_live_plan(r->cfg, &plan, r->err, sizeof(r->err)))
		return LIVE_STOP_ERROR;
	return wl_live_run_plan(r, &plan, NULL);
}

const struct live_ops workload_live = {
	.summary = "a workload file's tasks, memory and steps, with real system calls",
	.record_locks = true,
	.memory_bytes = wl_live_memory,
	.check = wl_live_check,
	.want_settings = wl_live_want,
	.run = wl_live_run,
};
