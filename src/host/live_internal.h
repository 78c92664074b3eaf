/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Live mode's internal interface, shared by live mode's files in src/host/ and
 * tests/test_live.c.  Nothing here is public API.
 *
 * Live mode reads the host only through live_sys_path() and
 * live_proc_path(), so that a test can point it at a fake tree:
 *   MMSIM_LIVE_SYS_ROOT=/tmp/x  reads /tmp/x/sys/kernel/mm/... instead
 *   MMSIM_LIVE_PROC_ROOT=/tmp/y reads /tmp/y/proc/vmstat ... instead
 * /proc/PID/... of the workload processes is always the real one.
 */
#ifndef MMSIM_LIVE_INTERNAL_H
#define MMSIM_LIVE_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "mmsim/scenario.h"

#define LIVE_THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define LIVE_PAGE	4096UL
#define LIVE_PMD_SIZE	(2UL << 20)

/* ---- paths and files (procfs.c) ---- */
int live_sys_path(char *buf, size_t len, const char *abs);
int live_proc_path(char *buf, size_t len, const char *abs);
ssize_t live_read_file(const char *path, char *buf, size_t len);
int live_write_file(const char *path, const char *text);
bool live_on_path(const char *prog);

/*
 * A set of named counters, as read from one /proc or /sys file.
 * nr <= LIVE_MAX_KV; names are unique.
 */
#define LIVE_MAX_KV 640
struct live_kv {
	char name[64];			/* "pgfault", "TLB", "hugepages-16kB/split" */
	uint64_t value;
};

struct live_counters {
	struct live_kv kv[LIVE_MAX_KV];
	int nr;				/* entries used */
	bool available;			/* the source could be read */
};

void live_counters_set(struct live_counters *c, const char *name, uint64_t v);
bool live_counters_get(const struct live_counters *c, const char *name,
		       uint64_t *v);
void live_counters_delta(const struct live_counters *before,
			 const struct live_counters *after,
			 struct live_counters *delta);
int live_parse_vmstat(const char *text, struct live_counters *c);
int live_parse_interrupts(const char *text, struct live_counters *c);
int live_parse_kb_file(const char *text, struct live_counters *c);
int live_parse_choice(const char *text, char *out, size_t len);
int live_read_vmstat(struct live_counters *c);
int live_read_interrupts(struct live_counters *c);
int live_read_meminfo(struct live_counters *c);
int live_read_mthp_stats(struct live_counters *c);
int live_read_khugepaged(struct live_counters *c);
int live_read_smaps_anon_huge(pid_t pid, uint64_t *kb);

/* ---- THP, mTHP and khugepaged settings (settings.c) ---- */
#define LIVE_MAX_SETTINGS 48
struct live_setting {
	char rel[80];			/* path below LIVE_THP_DIR */
	char saved[64];			/* value in force before the run */
	char want[64];			/* value the scenario asks for, or "" */
	bool changed;			/* we wrote @want; restore writes @saved */
};

/* changed implies want[0] != 0 and the file held saved before we wrote. */
struct live_settings {
	struct live_setting s[LIVE_MAX_SETTINGS];
	int nr;
};

int live_settings_read(struct live_settings *st);
bool live_setting_name_ok(const char *rel);
struct live_setting *live_settings_find(struct live_settings *st,
					const char *rel);
int live_settings_want(struct live_settings *st, const char *rel,
		       const char *value);
void live_settings_print(const struct live_settings *st, bool apply,
			 FILE *out);
int live_settings_apply(struct live_settings *st, char *err, size_t errlen);
int live_settings_restore(struct live_settings *st, FILE *err);

/* ---- memory cgroups (memcg.c) ---- */
struct live_memcg {
	char path[512];			/* the cgroup directory we made */
	int version;			/* 1 or 2 */
	bool created;			/* path exists and is ours */
	char parent[512];		/* where "+memory" was written, if */
	bool enabled_memory;		/* we enabled it in parent's subtree_control */
	int subtree_err;		/* errno of writing "-memory" back, or 0 */
};

int live_memcg_find_parent(char *dir, size_t len, int *version, bool *enable,
			   char *err, size_t errlen);
int live_memcg_create(struct live_memcg *cg, uint64_t limit, char *err,
		      size_t errlen);
void live_memcg_made(const char *path);
int live_memcg_attach(const struct live_memcg *cg, pid_t pid);
int live_memcg_destroy(struct live_memcg *cg);

/* ---- perf counters (perf.c) ---- */
enum live_perf_event {
	LIVE_PERF_DTLB_LOAD_MISSES,
	LIVE_PERF_CYCLES,
	LIVE_PERF_INSTRUCTIONS,
	LIVE_PERF_NR,
};

struct live_perf {
	int fd[LIVE_PERF_NR];		/* -1 when not open */
	int err[LIVE_PERF_NR];		/* errno of perf_event_open, or 0 */
};

extern const char *const live_perf_names[LIVE_PERF_NR];
void live_perf_open(struct live_perf *p, pid_t pid, bool inherit);
void live_perf_enable(struct live_perf *p);
void live_perf_disable(struct live_perf *p);
bool live_perf_read(const struct live_perf *p, enum live_perf_event e,
		    uint64_t *v);
void live_perf_close(struct live_perf *p);

/* ---- tracefs and tracepoint counts (trace.c) ---- */
struct live_tracefs {
	char dir[512];			/* where events/ is */
	bool available;			/* dir/events exists */
	bool mounted;			/* we mounted it; close unmounts */
	char why[200];			/* when !available */
};

int live_tracefs_open(struct live_tracefs *t);
void live_tracefs_close(struct live_tracefs *t);

struct live_tp_sym {
	long value;
	char name[48];
};

int live_tp_parse_symbols(const char *format, const char *field,
			  struct live_tp_sym *sym, int max);

/* One counted event, or one value of one field of it (filter). */
#define LIVE_TP_MAX 48
struct live_tp_count {
	char name[96];			/* "tlb:tlb_flush[remote shootdown]" */
	char event[64];			/* "tlb:tlb_flush" */
	char filter[64];		/* "reason == 1", or "" */
	long id;			/* tracefs id, or -1: not in this kernel */
	int *fd;			/* one per CPU, -1 for an offline CPU */
	bool ok;			/* counting; else why says why not */
	uint64_t value;			/* summed over CPUs, after disable */
	char why[200];
};

struct live_tracepoints {
	struct live_tp_count c[LIVE_TP_MAX];
	int nr;
	int nr_cpus;
};

void live_tracepoints_open(struct live_tracepoints *tp,
			   const struct live_tracefs *t);
void live_tracepoints_enable(struct live_tracepoints *tp);
void live_tracepoints_disable(struct live_tracepoints *tp);
void live_tracepoints_close(struct live_tracepoints *tp);
const struct live_tp_count *live_tracepoints_get(const struct live_tracepoints *tp,
						 const char *name, uint64_t *v);

/* ---- lock waits through perf lock (lockstat.c) ---- */
enum live_lock_class {
	LIVE_LOCK_OTHER,
	LIVE_LOCK_LRUVEC,		/* lruvec->lru_lock */
	LIVE_LOCK_DEFERRED_SPLIT,	/* the deferred split queue's lock */
	LIVE_LOCK_NR_CLASSES,
};

/* One row of `perf lock contention`: waits of one caller. */
struct live_lock_row {
	char caller[128];		/* as perf prints it */
	char type[32];			/* "spinlock", "rwsem:R" */
	uint64_t contended;
	double wait_total_s, wait_max_s;
	enum live_lock_class cls;
};

/* wait_s[k] == sum of wait_total_s of the rows of class k */
#define LIVE_MAX_LOCK_ROWS 64
struct live_locks {
	struct live_lock_row row[LIVE_MAX_LOCK_ROWS];
	int nr;
	double wait_s[LIVE_LOCK_NR_CLASSES];
	uint64_t contended[LIVE_LOCK_NR_CLASSES];
	bool ok;			/* else why */
	char why[200];
	char method[300];		/* how the waits were counted */
};

/* How lock waits are counted (lockstat.c, lockstream.c). */
enum live_lock_method {
	LIVE_LOCKS_STREAM,		/* mmsim's own count, lockstream.c */
	LIVE_LOCKS_PERF_BPF,		/* perf lock contention -b */
	LIVE_LOCKS_PERF_RECORD,		/* perf record, then perf lock contention -i */
};

struct live_lockstream;

struct live_lockrec {
	enum live_lock_method method_id;
	pid_t pid;			/* perf, or 0 */
	bool running;
	char dir[64];			/* its files */
	char why[200];			/* when it could not start */
	char method[160];		/* how, for the table's heading */
	struct live_lockstream *ls;	/* LIVE_LOCKS_STREAM */
};

enum live_lock_class live_lock_class(const char *caller);
int live_parse_perf_lock(const char *text, struct live_locks *l);
int live_lockrec_start(struct live_lockrec *lr, const pid_t *pids, int nr,
		       bool tracefs_ok);
void live_lockrec_stop(struct live_lockrec *lr, struct live_locks *l);
void live_lockrec_cleanup(struct live_lockrec *lr);
bool live_perf_lock_has_bpf(const char *help);

/* the streaming count (lockstream.c) */
struct live_lockagg;
struct live_ksym {
	uint64_t addr;
	char name[56];
};

/* The kernel's text symbols, sorted, and its lock and sched text. */
struct live_ksyms {
	struct live_ksym *s;
	size_t nr;
	uint64_t lock_lo, lock_hi, sched_lo, sched_hi;
};
const struct live_ksym *live_ksyms_find(const struct live_ksyms *k, uint64_t ip);
struct perf_event_mmap_page;
struct perf_event_attr;
/* A CPU's perf ring buffer (the lock recorder's, the profiler's). */
struct live_rb {
	struct perf_event_mmap_page *meta;	/* NULL: an offline CPU */
	size_t data_len;			/* a power of two */
	uint64_t head;				/* the lock recorder's snapshot of a round */
};
void live_rbs_close(int *fd, int nr_fd, struct live_rb *rb, int nr_cpus);
int live_perf_open_rb(struct perf_event_attr *a, pid_t pid, int cpu, int output, size_t pages);
void live_rb_poll(volatile int *stop, void (*round)(void *arg), void *arg);
uint64_t live_rb_read(struct perf_event_mmap_page *meta, size_t data_len, uint64_t head,
		      void (*sample)(void *ctx, const uint8_t *body, size_t len), void *ctx);
struct live_lockagg *live_lockagg_new(void);
void live_lockagg_begin(struct live_lockagg *a, int tid, uint64_t t_ns,
			uint64_t ip, uint32_t flags);
void live_lockagg_end(struct live_lockagg *a, int tid, uint64_t t_ns);
int live_ksyms_parse(struct live_ksyms *k, const char *text);
void live_ksyms_free(struct live_ksyms *k);
void live_ksyms_name(const struct live_ksyms *k, uint64_t ip, char *buf, size_t len);
uint64_t live_ksyms_caller(const struct live_ksyms *k, const uint64_t *ips, int nr);
void live_lockagg_table(const struct live_lockagg *a, const struct live_ksyms *k,
			struct live_locks *l);
int live_lockstream_start(struct live_lockrec *lr, const pid_t *pids, int nr);
void live_lockstream_stop(struct live_lockrec *lr, struct live_locks *l);

/* ---- stress-ng's metrics (src/experiments/reclaim-tlb/live.c) ---- */
int live_parse_stress_ng_yaml(const char *text, const char *stressor,
			      double *ops_per_s, uint64_t *ops);
int live_parse_stress_ng_brief(const char *text, const char *stressor,
			       double *ops_per_s, uint64_t *ops);

/* ---- the state file and zram (state.c) ---- */
struct live_zram {
	int dev;			/* /dev/zramN, or -1 */
	bool swapon;
};

enum { LIVE_STATE_TMPDIR_PERF, LIVE_STATE_TMPDIR_STRESS_NG,
       LIVE_STATE_TMPDIR_WORKLOAD,	/* a workload file's files (src/workload/live.c) */
       LIVE_STATE_NR_TMPDIRS };

/* What a state file lists. */
struct live_saved_state {
	int pid;
	unsigned long long start_time;	/* of pid, /proc/PID/stat; 0: unknown */
	char tracefs[512];
	int zram;			/* -1: none */
	unsigned long long zram_bytes;	/* the disksize the run gave it */
	char memcg[512];
	char subtree[512];		/* "cgroup_subtree DIR memory": DIR */
	char subtree_ctrl[32];		/* its controller word */
	char tmpdir[LIVE_STATE_NR_TMPDIRS][256];
	int nr_tmpdirs;
	char setting[LIVE_MAX_SETTINGS][2][900];	/* path, original value */
	int nr_settings;
};

void live_state_note_tracefs(const char *dir);
void live_state_note_zram(int dev, uint64_t bytes);
void live_state_note_memcg(const char *path);
void live_state_note_subtree(const char *dir);
void live_state_note_tmpdir(int slot, const char *dir);
void live_state_note_settings(const struct live_settings *st);
int live_parse_state(const char *text, struct live_saved_state *s);
int live_state_recover(FILE *out, char *msg, size_t len);
int live_state_lock(char *msg, size_t len);
void live_state_unlock(void);
unsigned long long live_pid_start_time(pid_t pid);
bool live_pid_is_ours(pid_t pid, unsigned long long start_time);
int live_zram_setup(struct live_zram *z, uint64_t bytes, char *err, size_t errlen);
void live_zram_teardown(struct live_zram *z, FILE *err);
int live_zram_remove(int dev, FILE *err);

/* ---- results (live.c) ---- */
struct live_metric_result {
	bool available;
	double value;
	char why[200];			/* when !available: what is missing */
};

/* One run: metric values in the experiment's metric order, and counters. */
/* The workload's CPU time by kernel function (--report functions: liveprof.c). */
#define LIVE_FUNCS 80
struct live_func_row {
	char name[56];			/* a kernel function, or "[user]" */
	uint64_t children, self;	/* samples with it in the chain / at the top */
};
struct live_funcs {
	bool ok;			/* sampled; else why */
	char why[200];
	char method[200];
	uint64_t samples;		/* all of the workload's samples */
	int nr;
	struct live_func_row row[LIVE_FUNCS];	/* by children, largest first */
};
struct live_prof;
int live_prof_start(struct live_prof **pp, const pid_t *pids, int nr, char *why, size_t len);
void live_prof_stop(struct live_prof *p, struct live_funcs *f);
void live_prof_free(struct live_prof *p);
struct live_prof *live_prof_offline(const char *kallsyms);
void live_prof_feed(struct live_prof *p, const void *sample, size_t len);
void live_print_functions(const struct live_funcs *f, FILE *out);

struct live_result {
	struct live_metric_result m[SIM_MAX_METRICS];
	struct live_counters counters;	/* deltas and samples, kernel names */
	double wall_s;			/* wall time of the workload */
	struct live_tracepoints tp;	/* tracepoint counts over the run */
	struct live_locks locks;	/* perf lock contention, if wanted */
	bool locks_wanted;		/* the run recorded lock waits */
	struct live_funcs funcs;	/* --report functions */
	bool funcs_wanted;
	char notes[12][200];		/* printed under the table */
	int nr_notes;
	/*
	 * Model parameters this machine implies (the stress-ng it has, the
	 * swap it used): --json's "model_params", which validate passes to
	 * the simulated side.
	 */
	char model_param[4][2][48];
	int nr_model_params;
};

/* Why a run stopped early; live_cmd_main() maps these to exit codes. */
enum live_stop {
	LIVE_STOP_NONE,
	LIVE_STOP_SIGNAL,		/* SIGINT or SIGTERM arrived */
	LIVE_STOP_CHILD_DIED,		/* a workload process died */
	LIVE_STOP_ERROR,		/* a system call failed */
};

/* Set by the SIGINT/SIGTERM handler; the workloads poll it. */
extern volatile sig_atomic_t live_signal;

/*
 * Every workload process started by a run, so that cleanup can kill them.
 * nr <= LIVE_MAX_CHILDREN; pid[i] == 0 once reaped.
 */
#define LIVE_MAX_CHILDREN 64
struct live_children {
	pid_t pid[LIVE_MAX_CHILDREN];
	char name[LIVE_MAX_CHILDREN][16];
	int status[LIVE_MAX_CHILDREN];	/* wait status once reaped */
	int nr;
};

struct live_run {
	const struct sim_run_config *cfg; /* the experiment and its parameters */
	bool apply;			/* --apply: may set up zram swap */
	bool tracefs_ok;		/* perf can find the tracepoints */
	bool record_locks;		/* live_start() starts perf lock record */
	struct live_lockrec lockrec;
	bool profile;			/* live_start() samples the workload (--report functions) */
	struct live_prof *prof;
	char prof_why[200];		/* why it could not */
	struct live_zram zram;
	struct live_children kids;
	int start_pipe[2];		/* workloads block on [0] until [1] closes */
	struct live_memcg memcg;
	struct live_result *res;
	char err[256];			/* for LIVE_STOP_ERROR and CHILD_DIED */
};

/*
 * An experiment's live workload (src/experiments/NAME/live.c), its
 * scenario_ops.live: the simulated workload's tasks, sizes and accesses
 * on the running kernel.  Its parameters and metrics are the experiment's
 * own (struct sim_param with .live, struct sim_metric): live mode has no
 * table of its own.
 */
struct live_ops {
	const char *summary;		/* one line for `mmsim live --help` */
	bool record_locks;		/* record the workload's lock waits (perf lock) */
	/* The most memory the run maps, for the MemAvailable check. */
	uint64_t (*memory_bytes)(const struct sim_run_config *cfg);
	/* Optional: what this machine must have; 0 or -errno with one line. */
	int (*check)(const struct sim_run_config *cfg, bool apply, char *err,
		     size_t errlen);
	/* Optional: the THP settings the experiment wants (written by --apply). */
	int (*want_settings)(const struct sim_run_config *cfg, struct live_settings *st);
	enum live_stop (*run)(struct live_run *r);
};

/* The value of the experiment's parameter @key in this run. */
static inline uint64_t live_param(const struct live_run *r, const char *key)
{
	return sim_param(r->cfg, key);
}

void live_set_metric(struct live_run *r, const char *key, double v);
void live_unavailable(struct live_run *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * lockstream.c: open the lock recorder's sampling event on tracepoint @id
 * for @pid on @cpu (its output redirected to @output's buffer when >= 0; a
 * buffer of @pages), with the kernel callchain and raw data if @chain.
 * The fd, or -errno.
 */
int live_ls_open(long id, pid_t pid, int cpu, int output, size_t pages, bool chain);
/* Touch and free the run's memory first where the guest reports free pages. */
void live_guest_prefault(struct live_run *r);
void live_note(struct live_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record model parameter @key = @value (sim_param syntax) as this machine's. */
void live_model_param(struct live_result *res, const char *key, const char *value);
/* The clock in MHz from /proc/cpuinfo ("cpu MHz"), or 0. */
double live_cpu_mhz(void);
bool live_host_is_guest(void);

/* ---- process helpers (workloads.c) ---- */

/*
 * Shared between mmsim and its workload processes: one mapping, made
 * before fork (live_shm_map()).
 */
struct live_shm {
	volatile int stop;		/* parent -> workloads: finish now */
	volatile int ready[4];		/* workload i has set up its memory */
	volatile int done;		/* the measured task has finished */
	double t_start[LIVE_MAX_CHILDREN]; /* each task's measured loop, */
	double t_end[LIVE_MAX_CHILDREN];   /* CLOCK_MONOTONIC */
	uint64_t ops[LIVE_MAX_CHILDREN]; /* a count per task (bogo ops, faults) */
	double time_s;			/* the measured task's time */
	bool perf_ok[LIVE_PERF_NR];	/* the measured task's counters */
	int perf_err[LIVE_PERF_NR];
	uint64_t perf[LIVE_PERF_NR];
	int fail;			/* errno of a failed mmap or madvise */
};

struct live_shm *live_shm_map(struct live_run *r);
void live_shm_unmap(struct live_shm *shm);
int live_open_start_pipe(struct live_run *r);
void live_close_start_pipe(struct live_run *r);
char *live_map_aligned(size_t size, size_t align, void **base, size_t *len);
void live_sleep_ms(long ms);
pid_t live_spawn(struct live_run *r, const char *name,
		 void (*fn)(struct live_run *r, void *arg, int idx), void *arg,
		 int idx);
void live_start(struct live_run *r);
double live_now(void);
enum live_stop live_wait_all(struct live_run *r, bool (*done)(void *),
			     void *arg);
void live_kill_all(struct live_children *kids);

/* ---- host profile (live.c) ---- */
int live_host_profile(char *buf, size_t len);

/* ---- the command line of live and compare (live.c, compare.c) ---- */
struct live_opts {
	const struct scenario_ops *s;	/* the experiment; s->live is its live form */
	struct sim_run_config cfg;	/* its parameters: live defaults, then --set */
	bool given[SIM_MAX_PARAMS];	/* named by a --set */
	bool apply;
	const char *json;
	const char *profile_out;
	const char *profile;		/* compare: the simulated side's profile */
	bool report_functions;		/* --report functions */
	bool compare;			/* compare prints the functions beside the model's */
};

int live_parse_args(int argc, char **argv, struct live_opts *o, FILE *out, FILE *err);
int live_run_scenario(struct live_opts *o, FILE *out, FILE *err,
		      const struct live_result **result);

#endif /* MMSIM_LIVE_INTERNAL_H */
