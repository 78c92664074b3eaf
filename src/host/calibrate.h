/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `mmsim calibrate`: microbenchmarks of this machine's primitives, each
 * mapped onto a profile key (docs/calibrate.md).  Private to src/host/ and
 * the command line; the model never includes it.
 *
 * One run fills struct cal_run: the keys it measured (with their
 * sources), the notes it printed (what it skipped, what it inferred), and
 * the single-thread kernel paths it timed (struct cal_paths), which the
 * fit (calibrate_fit.c) solves the model's kernel-internal costs from.
 */
#ifndef MMSIM_HOST_CALIBRATE_H
#define MMSIM_HOST_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAL_MAX_KEYS	96
#define CAL_MAX_NOTES	64
#define CAL_MAX_CPUS	1024
#define CAL_NOTE_LINE	180	/* a note's bytes per profile line: inih reads 199 at most */
#define CAL_SOURCE_LEN	124	/* "section.key = " + this fits sim_profile.sources[160] */

/* The median of a set of runs and their spread. */
struct cal_stat {
	double med, lo, hi;		/* lo, hi: smallest and largest, or p10 and p90 */
	int n;
	bool pct;			/* n >= 20: lo and hi are p10 and p90 */
};

/* One measured (or derived) key: its value and its source line. */
struct cal_key {
	char key[48];			/* "section.key" */
	uint64_t value;
	char source[CAL_SOURCE_LEN];	/* without "section.key = " */
	char str[96];			/* a string key's value (cal_key_str()); "" else */
};

/* A single-thread kernel path timed on this machine (0: not measured). */
struct cal_path {
	double ns;			/* per folio (fault, unmap) or per page (swap) */
	int n;				/* runs */
};

/* Orders of the faults measured: 4K, 16K, 64K. */
#define CAL_NR_ORDERS	3
extern const unsigned cal_fault_kib[CAL_NR_ORDERS];

struct cal_paths {
	struct cal_path fault[CAL_NR_ORDERS];	/* write fault of a new folio */
	struct cal_path munmap[CAL_NR_ORDERS];	/* munmap(), per folio */
	struct cal_path dontneed[CAL_NR_ORDERS];/* MADV_DONTNEED, per folio */
	struct cal_path mmap_ns;		/* mmap() + munmap() of an empty region */
	struct cal_path swapout, swapin;	/* MADV_PAGEOUT / touch, per 4K page, zram */
	struct cal_path shmem_read;		/* read fault of a new tmpfs page, shared */
	struct cal_path shmem_write;		/* write fault of a new tmpfs page, shared */
	struct cal_path cow;			/* write fault copying a page a child shares */
	struct cal_path lru_add, lru_del;	/* lru_lock held, per folio added at a 4K
						 * fault's batch drain / freed by munmap() */
	uint64_t region;			/* bytes per round of the fault runs */
};

struct cal_run {
	bool quick;
	FILE *log;			/* progress and notes (stderr) */
	char date[16];			/* YYYY-MM-DD, UTC */
	bool root;
	bool may_change;		/* root, and no live run in progress: settings may be changed */
	/* topology (sysfs) */
	int cpus[CAL_MAX_CPUS];		/* allowed online CPUs, ascending */
	int nr_cpus;
	int sockets, cores_per_socket, threads_per_core, nodes;
	int pair_smt[2], pair_llc[2], pair_socket[2], pair_remote[2]; /* -1: none */
	bool hypervisor;
	char cpu_model[80];
	uint64_t l1d_bytes, l2_bytes, llc_bytes;
	uint64_t stlb_entries;		/* cpuid, for the page-walk sizes */
	/* cal_stlb_reach(): each rung's chase, cycles a load over the packed one's */
	uint64_t reach_pages[8];
	double reach_excess[8];
	int nr_reach;
	/* measured so far */
	double mhz;			/* 0 until measured */
	double transfer_ns;		/* socket pair one-way, 0: none */
	double syscall_ns;
	struct cal_paths paths;
	/* output */
	struct cal_key keys[CAL_MAX_KEYS];
	int nr_keys;
	char notes[CAL_MAX_NOTES][200];
	int nr_notes;
};

/* calibrate.c: the run's helpers */
double cal_now_ns(void);
int cal_pin(int cpu);
int cal_line_transfer_now(double *ns);
int cal_trace_sample_now(int cpu, double cost[2], double *base, char *why, size_t len);
void cal_stat_of(double *x, int n, struct cal_stat *s);
void cal_key_str(struct cal_run *r, const char *key, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void cal_key_set(struct cal_run *r, const char *key, uint64_t value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void cal_key_measured(struct cal_run *r, const char *key, uint64_t value,
		      const char *method, const struct cal_stat *s, const char *unit);
bool cal_key_difference(struct cal_run *r, const char *key, const char *method,
			const struct cal_stat *s, const char *unit);
const struct cal_key *cal_key_find(const struct cal_run *r, const char *key);
void cal_note(struct cal_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cal_progress(struct cal_run *r, const char *what);
void *cal_map(uint64_t bytes, bool huge);
void cal_unmap(void *p, uint64_t bytes, bool huge);
uint64_t cal_rng(uint64_t *s);
/* A random cyclic chase over @nr slots of @stride bytes at @base (+@offset(i)). */
void **cal_chase_build(char *base, uint64_t nr, uint64_t stride, uint64_t (*offset)(uint64_t),
		       uint64_t seed);
double cal_chase_ns(void **start, uint64_t steps);

/* calibrate_cpu.c: topology, clock, caches, TLBs, atomics, system calls, scheduler */
double host_clock_mhz(double ms);
int cal_topology(struct cal_run *r, char *err, size_t len);
void cal_clock(struct cal_run *r);
void cal_cache_latency(struct cal_run *r);
void cal_atomic_pause(struct cal_run *r);
void cal_tlb_geometry(struct cal_run *r);
void cal_page_walk(struct cal_run *r);
void cal_stlb_reach(struct cal_run *r);
/*
 * The page-walk tests' pages: 8 times the STLB's reach (cal_stlb_reach()),
 * so that nearly every load walks; 16384 at least, and at most 65536
 * (256 MiB of 4K pages touched: a reach measured on a loaded machine can
 * come out far too large).
 */
static inline uint64_t cal_walk_pages(const struct cal_run *r)
{
	uint64_t p = r->stlb_entries * 8;

	return p < 16384 ? 16384 : p > 65536 ? 65536 : p;
}
void cal_model_walk_check(struct cal_run *r, const char *include);
uint64_t cal_stlb_estimate(const uint64_t *pages, const double *m, int n);
void cal_syscall_sched(struct cal_run *r);

/* calibrate_mem.c: line transfers, DRAM latency, bandwidth */
void cal_transfers(struct cal_run *r);
void cal_dram(struct cal_run *r);
void cal_bandwidth(struct cal_run *r);

/* calibrate_kernel.c: IPIs, shootdowns, faults, unmaps, zram */
void cal_ipi(struct cal_run *r);
void cal_kernel_paths(struct cal_run *r);
void cal_zram(struct cal_run *r);

/* calibrate.c: the profile of the run so far (the include and the keys set) */
struct sim_profile;
int cal_run_profile(const struct cal_run *r, const char *include, struct sim_profile *p,
		    char *err, size_t len);

/* calibrate_fit.c: the model's kernel-internal costs from the paths */
#define CAL_FIT_NR	4
extern const char *const cal_fit_keys[CAL_FIT_NR];	/* mm.fault_entry_ns, pte_op, folio_op, list_op */

/* A single-thread path as the fit runs it through the model. */
enum cal_form_kind {
	CAL_FORM_MUNMAP,		/* a round: fault every folio, munmap() */
	CAL_FORM_DONTNEED,		/* a round: fault every folio, MADV_DONTNEED */
	CAL_FORM_SHMEM_READ,		/* per page: read fault of a new tmpfs page */
	CAL_FORM_SHMEM_WRITE,		/* per page: write fault of a new tmpfs page */
	CAL_FORM_COW,			/* per page: copy-on-write fault */
	CAL_FORM_FAULT,			/* per page: write fault of a new 4K anonymous folio */
};

struct cal_form {
	enum cal_form_kind kind;
	unsigned kib;			/* munmap, dontneed: the folio size */
	bool fit;			/* fitted; else held out (only predicted) */
	double target;			/* ns on this machine */
	double model;			/* ns in the model at the fitted costs (out) */
};
#define CAL_MAX_FORMS	(2 * CAL_NR_ORDERS + 4)

void cal_fit(struct cal_run *r, const char *include);
int cal_model_round_ns(const struct sim_profile *p, uint64_t region, unsigned kib,
		       bool dontneed, double *ns, char *err, size_t len);
int cal_model_form_ns(const struct sim_profile *p, uint64_t region, const struct cal_form *f,
		      double *ns, char *err, size_t len);
void cal_fit_targets(const struct cal_paths *m, int o, double target[2]);
int cal_fit_forms(const struct cal_paths *m, struct cal_form *forms);
const char *cal_form_name(const struct cal_form *f, char *buf, size_t len);
int cal_fit_solve(const struct sim_profile *base, uint64_t region, struct cal_form *forms,
		  int nr_forms, double x[CAL_FIT_NR], char *err, size_t len);

int calibrate_parse_args(int argc, char **argv, FILE *out, FILE *err, bool *quick,
			 const char **path);

/**
 * calibrate_main - `mmsim calibrate [--out FILE] [--quick]`
 * @argc: argument count
 * @argv: arguments; argv[0] is "calibrate"
 * @out: standard output (the profile when there is no --out)
 * @err: errors and progress
 *
 * Return: 0, 1 (a bug: the profile written does not load), 2 (bad input,
 * an unwritable --out, or a machine that cannot be measured).
 */
int calibrate_main(int argc, char **argv, FILE *out, FILE *err);

/**
 * calibrate_profile_text - measure this machine and return its profile's INI text
 * @quick: the --quick set of runs
 * @log: progress and notes, or NULL
 * @buf: where the text goes
 * @len: size of @buf
 * @err: one line when the machine cannot be measured
 * @errlen: size of @err
 *
 * Return: the length of the text, or a negative errno with @err filled.
 */
int calibrate_profile_text(bool quick, FILE *log, char *buf, size_t len, char *err,
			   size_t errlen);

#endif /* MMSIM_HOST_CALIBRATE_H */
