// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmsim calibrate [--out FILE] [--quick]`: measure this machine and write
 * its profile, an `include` of the nearest builtin profile followed by the
 * keys measured here, each with the source
 *
 *   measured: METHOD, median of N runs, spread LO-HI UNIT, YYYY-MM-DD
 *
 * or, for a value derived from measured ones, "derived: ...".  Keys that
 * cannot be measured on this machine keep the builtin's value and cited
 * source; the run prints which, and why (docs/calibrate.md).
 *
 * The rule (issue 29): a cost is measured by a microbenchmark of one
 * primitive (one thread, or a pinned pair of CPUs for a transfer), cited,
 * or a stated assumption.  Nothing here is fitted to a contended or
 * multi-thread workload; calibrate_fit.c fits only to the single-thread
 * kernel paths timed here.
 *
 * This file: the command, the run's helpers (timing, pinning, medians,
 * buffers, pointer chases), the choice of the builtin to include, and the
 * INI text.  The benchmarks are in calibrate_cpu.c, calibrate_mem.c and
 * calibrate_kernel.c.  The profile is written whole or not at all
 * (sim_outfile_*), and an unwritable --out fails before anything is
 * measured.
 *
 * Mirrors no kernel function.  Threads: the benchmarks start their own
 * (pinned) helpers and join them before they return; nothing here is
 * shared between runs.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "host/calibrate.h"
#include "host/live_internal.h"
#include "mmsim/output.h"
#include "mmsim/profile.h"

const unsigned cal_fault_kib[CAL_NR_ORDERS] = { 4, 16, 64 };

/** cal_now_ns - CLOCK_MONOTONIC in nanoseconds. */
double cal_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/**
 * cal_pin - run the calling thread on @cpu only
 * @cpu: a CPU number
 *
 * Return: 0, or a negative errno.
 */
int cal_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static int cal_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/**
 * cal_stat_of - median and spread of @n runs
 * @x: the runs' values (sorted in place)
 * @n: how many, >= 1
 * @s: the result; the spread is the smallest and largest value, or from
 *     20 runs on (short batches, where a preempted batch is an outlier)
 *     the 10th and 90th percentiles
 */
void cal_stat_of(double *x, int n, struct cal_stat *s)
{
	qsort(x, (size_t)n, sizeof(*x), cal_cmp_double);
	s->n = n;
	s->pct = n >= 20;
	s->lo = s->pct ? x[n / 10] : x[0];
	s->hi = s->pct ? x[n - 1 - n / 10] : x[n - 1];
	s->med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static struct cal_key *cal_key_slot(struct cal_run *r, const char *key)
{
	for (int i = 0; i < r->nr_keys; i++)
		if (!strcmp(r->keys[i].key, key))
			return &r->keys[i];
	if (r->nr_keys >= CAL_MAX_KEYS)
		return NULL;
	snprintf(r->keys[r->nr_keys].key, sizeof(r->keys[0].key), "%s", key);
	return &r->keys[r->nr_keys++];
}

/**
 * cal_key_set - set a key with a source written out in full
 * @r: the run
 * @key: "section.key"
 * @value: its value
 * @fmt: its source ("derived: ...", "measured: ...")
 */
void cal_key_set(struct cal_run *r, const char *key, uint64_t value, const char *fmt, ...)
{
	struct cal_key *k = cal_key_slot(r, key);
	const char *dot = strchr(key, '.');
	uint64_t min, max;
	char sec[32];
	va_list ap;

	if (!k)
		return;
	/* a value outside the key's PROFILE_LIMITS range would not load: clamp it, and say so */
	if (dot && (size_t)(dot - key) < sizeof(sec)) {
		snprintf(sec, sizeof(sec), "%.*s", (int)(dot - key), key);
		if (!sim_profile_limit(sec, dot + 1, &min, &max) && (value < min || value > max)) {
			cal_note(r, "%s: %llu is outside its range %llu..%llu; %llu written", key,
				 (unsigned long long)value, (unsigned long long)min,
				 (unsigned long long)max, (unsigned long long)(value < min ? min : max));
			value = value < min ? min : max;
		}
	}
	k->value = value;
	va_start(ap, fmt);
	vsnprintf(k->source, sizeof(k->source), fmt, ap);
	va_end(ap);
}

/**
 * cal_key_str - set a string key (mem.access_loop) with its source
 * @r: the run
 * @key: "section.key"
 * @value: its value, at most 95 bytes
 * @fmt: its source
 */
void cal_key_str(struct cal_run *r, const char *key, const char *value, const char *fmt, ...)
{
	struct cal_key *k = cal_key_slot(r, key);
	va_list ap;

	if (!k)
		return;
	snprintf(k->str, sizeof(k->str), "%s", value);
	va_start(ap, fmt);
	vsnprintf(k->source, sizeof(k->source), fmt, ap);
	va_end(ap);
}

static void cal_fmt(char *buf, size_t len, double v)
{
	if (v >= 100 || v <= -100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/**
 * cal_key_measured - set a measured key and its source
 * @r: the run
 * @key: "section.key"
 * @value: the value written (the median, in the key's unit)
 * @method: what was measured, short ("pinned ping-pong, CPUs 0-1")
 * @s: the runs' median and spread, in @unit
 * @unit: the unit of @s ("ns", "cycles")
 *
 * The source is "measured: METHOD, median of N runs, spread LO-HI UNIT,
 * DATE"; a long METHOD is cut so that the whole fits a profile source.
 */
void cal_key_measured(struct cal_run *r, const char *key, uint64_t value,
		      const char *method, const struct cal_stat *s, const char *unit)
{
	char tail[128], lo[24], hi[24];
	int room;

	cal_fmt(lo, sizeof(lo), s->lo);
	cal_fmt(hi, sizeof(hi), s->hi);
	snprintf(tail, sizeof(tail), ", median of %d runs, spread %s-%s %s%s, %s", s->n, lo, hi,
		 unit, s->pct ? " (p10-p90)" : "", r->date);
	room = CAL_SOURCE_LEN - 1 - (int)strlen("measured: ") - (int)strlen(tail);
	if (room < 8)
		room = 8;
	cal_key_set(r, key, value, "measured: %.*s%s", room, method, tail);
	cal_fmt(lo, sizeof(lo), s->med);
	fprintf(r->log, "  %-30s %10llu   (%s: median %s %s)\n", key, (unsigned long long)value,
		method, lo, unit);
}

/**
 * cal_key_difference - set a key measured as a difference of two timings
 * @r: the run
 * @key: "section.key"
 * @method: as cal_key_measured()
 * @s: the differences' median and spread
 * @unit: their unit
 *
 * A difference whose median is not above zero is below the run's
 * resolution (or noise on a busy machine): the key keeps the builtin's
 * value, and the run says so.
 *
 * Return: true if the key was set.
 */
bool cal_key_difference(struct cal_run *r, const char *key, const char *method,
			const struct cal_stat *s, const char *unit)
{
	if (s->med <= 0) {
		cal_note(r, "%s: the difference was not above zero (median %.3g %s), below this "
			 "run's resolution; the builtin's value kept", key, s->med, unit);
		return false;
	}
	cal_key_measured(r, key, (uint64_t)(s->med + 0.5), method, s, unit);
	return true;
}

/** cal_key_find - a key set by this run, or NULL. */
const struct cal_key *cal_key_find(const struct cal_run *r, const char *key)
{
	for (int i = 0; i < r->nr_keys; i++)
		if (!strcmp(r->keys[i].key, key))
			return &r->keys[i];
	return NULL;
}

/**
 * cal_note - record and print what was skipped, cited or inferred
 * @r: the run
 * @fmt: one line, no newline
 */
void cal_note(struct cal_run *r, const char *fmt, ...)
{
	va_list ap;
	char *n;

	if (r->nr_notes >= CAL_MAX_NOTES)
		return;
	n = r->notes[r->nr_notes++];
	va_start(ap, fmt);
	vsnprintf(n, sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
	fprintf(r->log, "  note: %s\n", n);
}

/** cal_progress - one line saying what is measured next. */
void cal_progress(struct cal_run *r, const char *what)
{
	fprintf(r->log, "calibrate: %s\n", what);
	fflush(r->log);
}

/**
 * cal_map - an anonymous buffer, every page written once
 * @bytes: its size (rounded up to 2 MiB when @huge)
 * @huge: 2M-aligned with MADV_HUGEPAGE (THP where the kernel gives it);
 *        otherwise MADV_NOHUGEPAGE, 4K pages
 *
 * Return: the buffer, or NULL.
 */
void *cal_map(uint64_t bytes, bool huge)
{
	const uint64_t align = 2ULL << 20;
	uint64_t len = huge ? (bytes + align - 1) / align * align : bytes;
	char *p = mmap(NULL, len + (huge ? align : 0), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	if (p == MAP_FAILED)
		return NULL;
	q = p;
	if (huge) {
		q = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
		if (q > p)
			munmap(p, (size_t)(q - p));
		munmap(q + len, (size_t)(p + align - q));
		madvise(q, len, MADV_HUGEPAGE);
	} else {
		madvise(q, len, MADV_NOHUGEPAGE);
	}
	for (uint64_t off = 0; off < len; off += 4096)
		q[off] = 1;
	return q;
}

/** cal_unmap - free a cal_map() buffer of @bytes, mapped with @huge. */
void cal_unmap(void *p, uint64_t bytes, bool huge)
{
	const uint64_t align = 2ULL << 20;

	if (p)
		munmap(p, huge ? (bytes + align - 1) / align * align : bytes);
}

/** cal_rng - xorshift64*: the benchmarks' permutations, not the model's. */
uint64_t cal_rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/**
 * cal_chase_build - link @nr slots into one random cycle (Sattolo)
 * @base: the buffer
 * @nr: slots
 * @stride: bytes between slot i and slot i + 1
 * @offset: extra bytes of slot i (spreads slots over cache sets), or NULL
 * @seed: the permutation's seed
 *
 * Each slot holds a pointer to the next one of the cycle, so that a chase
 * is a chain of dependent loads that the prefetchers cannot follow.
 *
 * Return: the first slot, or NULL without memory.
 */
void **cal_chase_build(char *base, uint64_t nr, uint64_t stride, uint64_t (*offset)(uint64_t),
		       uint64_t seed)
{
	uint32_t *perm = malloc(nr * sizeof(*perm));
	uint64_t s = seed | 1;

	if (!perm)
		return NULL;
	for (uint64_t i = 0; i < nr; i++)
		perm[i] = (uint32_t)i;
	for (uint64_t i = nr - 1; i > 0; i--) {		/* Sattolo: one cycle */
		uint64_t j = cal_rng(&s) % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
#define CAL_SLOT(i) ((void **)(base + (i) * stride + (offset ? offset(i) : 0)))
	for (uint64_t i = 0; i < nr; i++)
		*CAL_SLOT(i) = CAL_SLOT(perm[i]);
#undef CAL_SLOT
	free(perm);
	return (void **)(base + (offset ? offset(0) : 0));
}

/**
 * cal_chase_ns - nanoseconds per step of a pointer chase
 * @start: a slot of a cal_chase_build() cycle
 * @steps: how many loads
 *
 * Return: the time of one dependent load.
 */
double cal_chase_ns(void **start, uint64_t steps)
{
	void **p = start;
	double t0 = cal_now_ns(), t1;

	for (uint64_t i = 0; i < steps; i += 8) {
		p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
		p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
	}
	t1 = cal_now_ns();
	__asm__ volatile("" : : "r"(p) : "memory");
	return (t1 - t0) / (double)((steps + 7) / 8 * 8);
}

/*
 * The builtin profile nearest this machine: the one whose machine class
 * (sockets, CPUs, guest or not) it shares.  Only its unmeasured keys
 * matter; every key measured here replaces its value.
 */
static const char *cal_nearest(const struct cal_run *r)
{
	if (r->sockets >= 8)
		return "skylake-sp-8s";
	if (r->sockets >= 2)
		return "skylake-sp-2s";
	if (r->nr_cpus >= 16)
		return "server-16";
	return r->hypervisor ? "desktop-kvm" : "desktop";
}

/*
 * The engine's run-ahead quantum must cover one line transfer plus a
 * locked RMW (sim_profile_check()); a slow measured transfer raises it.
 */
static int cal_fix_quantum(struct cal_run *r, const char *include, char *err, size_t len)
{
	static const char *const lines[] = { "cache.l1_hit_ns", "cache.smt_transfer_ns",
					     "cache.socket_transfer_ns", "cache.remote_transfer_ns" };
	struct sim_profile *p = calloc(1, sizeof(*p));
	uint64_t worst = 0, atomic_cycles, mhz, need, quantum;
	const struct cal_key *k;

	if (!p || sim_profile_load(include, p, err, len)) {
		free(p);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		uint64_t v = 0;

		k = cal_key_find(r, lines[i]);
		if (k)
			v = k->value;
		else
			sim_profile_get(p, lines[i], &v);
		if (v > worst)
			worst = v;
	}
	k = cal_key_find(r, "lock.atomic_cycles");
	atomic_cycles = k ? k->value : p->lock_atomic_cycles;
	k = cal_key_find(r, "clock.mhz");
	mhz = k ? k->value : p->clock_mhz;
	need = worst + (atomic_cycles * 1000 + mhz - 1) / mhz;
	quantum = p->sched_quantum_ns;
	free(p);
	if (quantum >= need)
		return 0;
	quantum = (need + 99) / 100 * 100;
	cal_key_set(r, "sched.quantum_ns", quantum,
		    "model setting: raised to cover the slowest measured line transfer plus "
		    "a locked RMW (%llu ns)", (unsigned long long)need);
	cal_note(r, "sched.quantum_ns raised to %llu ns to cover the measured transfers",
		 (unsigned long long)quantum);
	return 0;
}

/* Keys in PROFILE_FIELDS order, so that the file reads like the builtins. */
static const char *const cal_field_keys[] = {
#define CAL_FIELD_KEY(sec, key, type, unit, meaning) #sec "." #key,
	PROFILE_FIELDS(CAL_FIELD_KEY)
#undef CAL_FIELD_KEY
};

static int cal_write_text(const struct cal_run *r, const char *include, char *buf, size_t len)
{
	size_t used = 0;
	char section[32] = "";

#define CAL_APPEND(...) do {							\
		int n_ = snprintf(buf + used, len - used, __VA_ARGS__);		\
		if (n_ < 0 || (size_t)n_ >= len - used)				\
			return -ENOSPC;						\
		used += (size_t)n_;						\
	} while (0)
	CAL_APPEND("; SPDX-License-Identifier: GPL-2.0-only\n"
		   "; profile of this machine, written by `mmsim calibrate%s` on %s\n"
		   "; (docs/calibrate.md): the builtin profile nearest this machine, then\n"
		   "; every key measured here; the other keys keep the builtin's values\n"
		   "; and cited sources (`mmsim profiles FILE` prints them all).\n",
		   r->quick ? " --quick" : "", r->date);
	/*
	 * A note is a comment of lines inih reads whole (its INI_MAX_LINE is
	 * 200 bytes with the newline): a longer one is wrapped at a space.
	 */
	for (int i = 0; i < r->nr_notes; i++) {
		const char *n = r->notes[i], *prefix = "; note: ";

		while (*n) {
			size_t len = strlen(n), cut = len;

			if (len > CAL_NOTE_LINE) {
				cut = CAL_NOTE_LINE;
				while (cut > CAL_NOTE_LINE / 2 && n[cut] != ' ')
					cut--;
				if (n[cut] != ' ')
					cut = CAL_NOTE_LINE;
			}
			CAL_APPEND("%s%.*s\n", prefix, (int)cut, n);
			n += cut;
			while (*n == ' ')
				n++;
			prefix = ";   ";
		}
	}
	CAL_APPEND("include = %s\n", include);
	for (size_t f = 0; f < sizeof(cal_field_keys) / sizeof(cal_field_keys[0]); f++) {
		const struct cal_key *k = cal_key_find(r, cal_field_keys[f]);
		const char *dot = strchr(cal_field_keys[f], '.');

		if (!k)
			continue;
		if (strncmp(section, cal_field_keys[f], (size_t)(dot - cal_field_keys[f])) ||
		    section[dot - cal_field_keys[f]]) {
			snprintf(section, sizeof(section), "%.*s", (int)(dot - cal_field_keys[f]),
				 cal_field_keys[f]);
			CAL_APPEND("\n[%s]\n", section);
		}
		if (!strcmp(cal_field_keys[f], "machine.name") ||
		    !strcmp(cal_field_keys[f], "machine.description"))
			CAL_APPEND("%s = %s\n", dot + 1, k->source + strlen(k->source) + 1);
		else if (k->str[0])
			CAL_APPEND("%s = %s\n", dot + 1, k->str);
		else
			CAL_APPEND("%s = %llu\n", dot + 1, (unsigned long long)k->value);
	}
	CAL_APPEND("\n[sources]\n");
	for (size_t f = 0; f < sizeof(cal_field_keys) / sizeof(cal_field_keys[0]); f++) {
		const struct cal_key *k = cal_key_find(r, cal_field_keys[f]);

		if (k)
			CAL_APPEND("%s = %s\n", k->key, k->source);
	}
#undef CAL_APPEND
	return (int)used;
}

/**
 * cal_run_profile - the profile that the run so far would write, loaded
 * @r: the run
 * @include: the builtin it includes
 * @p: the profile
 * @err: why it does not load
 * @len: size of @err
 *
 * Return: 0, or -1 with @err filled.
 */
int cal_run_profile(const struct cal_run *r, const char *include, struct sim_profile *p,
		    char *err, size_t len)
{
	char *text = malloc(65536);
	int n;

	if (!text) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	n = cal_write_text(r, include, text, 65536);
	if (n < 0) {
		snprintf(err, len, "the profile is too long");
		free(text);
		return -1;
	}
	n = sim_profile_parse(text, "calibrated", p, err, len);
	free(text);
	return n ? -1 : 0;
}

/* machine.name and .description are strings: the value rides after the source's NUL. */
static void cal_key_string(struct cal_run *r, const char *key, const char *value,
			   const char *source)
{
	struct cal_key *k = cal_key_slot(r, key);
	size_t n;

	if (!k)
		return;
	n = (size_t)snprintf(k->source, sizeof(k->source), "%s", source);
	if (n + 1 < sizeof(k->source))
		snprintf(k->source + n + 1, sizeof(k->source) - n - 1, "%s", value);
}

int calibrate_profile_text(bool quick, FILE *log, char *buf, size_t len, char *err,
			   size_t errlen)
{
	struct cal_run *r = calloc(1, sizeof(*r));
	double t0 = cal_now_ns();
	cpu_set_t saved;
	char desc[96];
	const char *include;
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (!r) {
		snprintf(err, errlen, "calibrate: out of memory");
		return -ENOMEM;
	}
	r->quick = quick;
	r->log = log ? log : stderr;
	r->root = geteuid() == 0;
	gmtime_r(&now, &tm);
	strftime(r->date, sizeof(r->date), "%Y-%m-%d", &tm);
	sched_getaffinity(0, sizeof(saved), &saved);
	n = cal_topology(r, err, errlen);
	if (n) {
		free(r);
		return n;
	}
	include = cal_nearest(r);
	r->may_change = r->root;
	if (r->root) {
		char busy[512];

		/* one run at a time changes the machine (live_state_lock()) */
		if (live_state_lock(busy, sizeof(busy))) {
			snprintf(err, errlen, "calibrate: %s", busy);
			free(r);
			return -EBUSY;
		}
		/* what a killed earlier run (live or calibrate) left is undone first */
		if (live_state_recover(r->log, busy, sizeof(busy)) == -EBUSY) {
			r->may_change = false;
			cal_note(r, "%s: no setting is changed by this run", busy);
		}
	}
	fprintf(r->log, "calibrate: %d CPUs (%d socket%s x %d cores x %d threads, %d node%s)%s; "
		"%s; nearest builtin profile: %s\n", r->nr_cpus, r->sockets,
		r->sockets == 1 ? "" : "s", r->cores_per_socket, r->threads_per_core, r->nodes,
		r->nodes == 1 ? "" : "s", r->hypervisor ? ", a virtual machine" : "",
		r->root ? "root" : "not root: no setting is changed", include);
	cal_key_string(r, "machine.name", "host",
		       "`mmsim calibrate`: this machine");
	snprintf(desc, sizeof(desc), "this machine (%.40s%s), calibrated %.12s", r->cpu_model,
		 r->hypervisor ? ", a guest" : "", r->date);
	cal_key_string(r, "machine.description", desc,
		       "`mmsim calibrate`: /proc/cpuinfo model name and the date of the run");

	cal_clock(r);
	cal_tlb_geometry(r);
	cal_stlb_reach(r);
	cal_atomic_pause(r);
	cal_cache_latency(r);
	cal_transfers(r);
	cal_dram(r);
	cal_bandwidth(r);
	cal_page_walk(r);
	cal_syscall_sched(r);
	cal_ipi(r);
	cal_kernel_paths(r);
	cal_zram(r);
	sched_setaffinity(0, sizeof(saved), &saved);
	if (r->root)
		live_state_unlock();

	n = cal_fix_quantum(r, include, err, errlen);
	if (!n) {
		cal_fit(r, include);
		cal_model_walk_check(r, include);
		n = cal_write_text(r, include, buf, len);
	}
	if (n == -ENOSPC)
		snprintf(err, errlen, "calibrate: the profile is longer than %zu bytes", len);
	else if (n >= 0)
		fprintf(r->log, "calibrate: %d keys measured or derived in %.1f s\n", r->nr_keys - 2,
			(cal_now_ns() - t0) / 1e9);
	free(r);
	return n;
}

static int calibrate_usage(FILE *f)
{
	fprintf(f, "usage: mmsim calibrate [--out FILE] [--quick]\n\n"
		"Measure this machine (at most 2 minutes; --quick: 20 s) and write its\n"
		"profile: an include of the nearest builtin profile, then every key\n"
		"measured here with its method, median, spread and date (docs/calibrate.md).\n\n"
		"  --out FILE   write the profile to FILE, whole or not at all\n"
		"               (default: standard output)\n"
		"  --quick      fewer and shorter runs, noisier values\n"
		"  --help       this text\n\n"
		"Use it with: mmsim run SCENARIO --profile FILE\n");
	return 0;
}

/**
 * calibrate_parse_args - the options of `mmsim calibrate`
 * @argc: argument count
 * @argv: arguments; argv[0] is "calibrate"
 * @out: where --help goes
 * @err: where the error line goes
 * @quick: --quick given
 * @path: --out FILE, or "-"
 *
 * Return: 0, 1 (--help printed) or 2 (an error line printed).
 */
int calibrate_parse_args(int argc, char **argv, FILE *out, FILE *err, bool *quick,
			 const char **path)
{
	*quick = false;
	*path = "-";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			*quick = true;
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			*path = argv[++i];
		} else if (!strncmp(argv[i], "--out=", 6)) {
			*path = argv[i] + 6;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			calibrate_usage(out);
			return 1;
		} else {
			fprintf(err, "mmsim: error: calibrate: %s%s: expected --out FILE or "
				"--quick\n", argv[i], !strcmp(argv[i], "--out") ?
				" without a FILE" : "");
			return 2;
		}
	}
	return 0;
}

int calibrate_main(int argc, char **argv, FILE *out, FILE *err)
{
	static char text[65536];
	const char *path;
	struct sim_outfile f;
	struct sim_profile *p;
	char msg[512];
	bool quick;
	int n, ret = calibrate_parse_args(argc, argv, out, err, &quick, &path);

	if (ret)
		return ret == 1 ? 0 : ret;
	/* an unwritable --out fails here, before anything is measured */
	if (sim_outfile_open(&f, "calibrate --out", path, out, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		return 2;
	}
	fflush(out);
	n = calibrate_profile_text(quick, err, text, sizeof(text), msg, sizeof(msg));
	if (n < 0) {
		fprintf(err, "mmsim: error: %s\n", msg);
		sim_outfile_abort(&f);
		return 2;
	}
	p = calloc(1, sizeof(*p));
	if (!p || sim_profile_parse(text, "calibrated", p, msg, sizeof(msg))) {
		/* what we wrote does not load: a bug in mmsim, not the user's */
		fprintf(err, "mmsim: error: calibrate: the profile does not load: %s\n",
			p ? msg : "out of memory");
		free(p);
		sim_outfile_abort(&f);
		return 1;
	}
	free(p);
	if (sim_outfile_commit(&f, text, (size_t)n, msg, sizeof(msg))) {
		fprintf(err, "mmsim: error: %s\n", msg);
		ret = 1;
	}
	sim_outfile_abort(&f);
	return ret;
}
