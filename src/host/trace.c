// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: the kernel's tracepoints, counted over a run.
 *
 * Mirrors no kernel function.  It counts, system-wide, the events of the
 * tracepoints the posts' paths fire (trace_tlb_flush() in
 * arch/x86/mm/tlb.c, trace_ipi_send_cpu{,mask}() in kernel/smp.c and
 * kernel/irq_work.c, trace_mm_khugepaged_scan_pmd() in mm/khugepaged.c,
 * the trace_mm_vmscan_*() events of mm/vmscan.c, trace_contention_begin()
 * in kernel/locking/), with one perf_event_open(PERF_TYPE_TRACEPOINT)
 * counter per CPU; a count "by reason" is a counter with a filter
 * ("reason == 4"), the value of each name read from the event's own
 * format file (__print_symbolic), so that no kernel version's numbering
 * is built in.
 *
 * tracefs: found at /sys/kernel/tracing (or /sys/kernel/debug/tracing);
 * when neither has events/, it is mounted at /sys/kernel/tracing, and
 * unmounted by live_tracefs_close() (the state file remembers it, so that
 * a run killed by SIGKILL is undone by the next one).  Under
 * MMSIM_LIVE_SYS_ROOT (tests) nothing is mounted.
 *
 * What it leaves out: per-process attribution.  A remote flush is counted
 * on the CPU that receives the IPI, whatever runs there, so the counts are
 * system-wide, like /proc/vmstat.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/live_internal.h"

static bool live_dir_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/**
 * live_tracefs_open - find tracefs, mounting it when it is not mounted
 * @t: filled in: dir, mounted, available, why
 *
 * Context: may block; mounting needs CAP_SYS_ADMIN.
 * Return: 0 when @t->dir has events/, else -ENOENT with @t->why.
 */
int live_tracefs_open(struct live_tracefs *t)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	char path[600];

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 2; i++) {
		if (live_sys_path(t->dir, sizeof(t->dir), dirs[i]))
			continue;
		snprintf(path, sizeof(path), "%s/events", t->dir);
		if (live_dir_exists(path)) {
			t->available = true;
			return 0;
		}
	}
	live_sys_path(t->dir, sizeof(t->dir), dirs[0]);
	if (getenv("MMSIM_LIVE_SYS_ROOT")) {
		snprintf(t->why, sizeof(t->why), "no tracefs below %.120s (a fake "
			 "sysfs tree: nothing is mounted there)", t->dir);
		return -ENOENT;
	}
	if (!live_dir_exists(t->dir)) {
		snprintf(t->why, sizeof(t->why), "this kernel has no %.120s "
			 "(CONFIG_TRACING is off)", t->dir);
		return -ENOENT;
	}
	if (mount("nodev", t->dir, "tracefs", 0, NULL)) {
		snprintf(t->why, sizeof(t->why), "tracefs is not mounted and "
			 "mounting it at %.80s failed: %s%s", t->dir, strerror(errno),
			 errno == EPERM ? " (needs root)" : "");
		return -errno;
	}
	t->mounted = true;
	live_state_note_tracefs(t->dir);
	snprintf(path, sizeof(path), "%s/events", t->dir);
	if (!live_dir_exists(path)) {
		live_tracefs_close(t);
		snprintf(t->why, sizeof(t->why), "tracefs at %s has no events/",
			 dirs[0]);
		return -ENOENT;
	}
	t->available = true;
	return 0;
}

/**
 * live_tracefs_close - unmount tracefs if live_tracefs_open() mounted it
 * @t: as filled in by live_tracefs_open()
 *
 * Context: may block.  Safe to call twice.
 */
void live_tracefs_close(struct live_tracefs *t)
{
	if (!t->mounted)
		return;
	if (umount(t->dir) && errno != EINVAL && errno != ENOENT)
		fprintf(stderr, "mmsim: warning: could not unmount %s: %s; "
			"unmount it with umount %s\n", t->dir, strerror(errno),
			t->dir);
	t->mounted = false;
	live_state_note_tracefs(NULL);
}

/**
 * live_tp_parse_symbols - the names a tracepoint prints for a field's values
 * @format: the text of events/SYSTEM/EVENT/format
 * @field: the field, e.g. "reason"
 * @sym: filled with (value, name) pairs in the order printed
 * @max: size of @sym
 *
 * Reads the __print_symbolic(REC->@field, { 0, "name" }, ...) of the
 * format's "print fmt" line.
 *
 * Context: any.
 * Return: the number of pairs, or -ENOENT when the field is not printed
 * symbolically.
 */
int live_tp_parse_symbols(const char *format, const char *field,
			  struct live_tp_sym *sym, int max)
{
	char key[96];
	const char *p;
	int nr = 0;

	snprintf(key, sizeof(key), "__print_symbolic(REC->%s,", field);
	p = strstr(format, key);
	if (!p)
		return -ENOENT;
	p += strlen(key);
	for (;;) {
		long v;
		char *end;
		const char *q, *name;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '{')
			break;
		p++;
		v = strtol(p, &end, 0);
		if (end == p)
			break;
		name = strchr(end, '"');
		if (!name)
			break;
		name++;
		q = strchr(name, '"');
		if (!q)
			break;
		if (nr < max) {
			size_t n = (size_t)(q - name) < sizeof(sym[nr].name) - 1 ?
				   (size_t)(q - name) : sizeof(sym[nr].name) - 1;

			sym[nr].value = v;
			memcpy(sym[nr].name, name, n);
			sym[nr].name[n] = '\0';
			nr++;
		}
		p = strchr(q, '}');
		if (!p)
			break;
		p++;
		while (*p == ' ')
			p++;
		if (*p != ',')
			break;
		p++;
	}
	return nr ? nr : -ENOENT;
}

/* The events counted, and the field values counted apart. */
static const struct {
	const char *event;		/* "system:name" */
	const char *field;		/* count each named value, or NULL */
	const char *const *values;	/* which names; NULL: all */
	const char *why_missing;	/* when the kernel lacks it */
} live_tp_list[] = {
	{ "tlb:tlb_flush", "reason", NULL, "x86 only" },
	{ "ipi:ipi_send_cpu", NULL, NULL, "Linux 6.6 or later" },
	{ "ipi:ipi_send_cpumask", NULL, NULL, "Linux 6.6 or later" },
	{ "huge_memory:mm_khugepaged_scan_pmd", "status",
	  (const char *const[]){ "succeeded", "failed", "pmd_null", "pmd_none",
		"page_pmd_mapped", "exceed_none_pte", "exceed_swap_pte",
		"exceed_shared_pte", "no_writable_page", "lack_referenced_page",
		"page_not_in_lru", "not_suitable_page_count", NULL },
	  "CONFIG_TRANSPARENT_HUGEPAGE" },
	{ "huge_memory:mm_khugepaged_scan", NULL, NULL, "" },
	{ "vmscan:mm_vmscan_memcg_reclaim_begin", NULL, NULL, "CONFIG_MEMCG" },
	{ "vmscan:mm_vmscan_direct_reclaim_begin", NULL, NULL, "" },
	{ "vmscan:mm_vmscan_kswapd_wake", NULL, NULL, "" },
	{ "vmscan:mm_vmscan_lru_shrink_inactive", NULL, NULL, "" },
	{ "vmscan:mm_vmscan_lru_shrink_active", NULL, NULL, "" },
	{ "vmscan:mm_vmscan_write_folio", NULL, NULL, "Linux 5.19 or later" },
	{ "lock:contention_begin", NULL, NULL, "Linux 5.19 or later" },
};

static int live_tp_add(struct live_tracepoints *tp, const char *name,
		       const char *event, long id, const char *filter,
		       const char *why)
{
	struct live_tp_count *c;

	if (tp->nr >= LIVE_TP_MAX)
		return -ENOSPC;
	c = &tp->c[tp->nr++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->event, sizeof(c->event), "%s", event);
	snprintf(c->filter, sizeof(c->filter), "%s", filter ? filter : "");
	c->id = id;
	if (why)
		snprintf(c->why, sizeof(c->why), "%s", why);
	return 0;
}

static const char *live_tp_open_why(int err)
{
	if (err == EACCES || err == EPERM)
		return "not permitted: counting tracepoints system-wide needs "
		       "root (CAP_PERFMON) or perf_event_paranoid -1";
	if (err == EMFILE || err == ENFILE)
		return "too many open files (one counter per CPU per event)";
	if (err == ENOENT || err == ENODEV)
		return "perf_event_open has no such tracepoint";
	return strerror(err);
}

static void live_tp_open_one(struct live_tp_count *c, int nr_cpus)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(a),
		.config = (uint64_t)c->id,
		.disabled = 1,
	};

	c->fd = calloc((size_t)nr_cpus, sizeof(int));
	if (!c->fd) {
		snprintf(c->why, sizeof(c->why), "out of memory");
		return;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		c->fd[cpu] = -1;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);

		if (fd < 0 && errno == ENODEV)
			continue;	/* an offline CPU */
		if (fd < 0) {
			snprintf(c->why, sizeof(c->why), "%s",
				 live_tp_open_why(errno));
			goto fail;
		}
		c->fd[cpu] = fd;
		if (c->filter[0] &&
		    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, c->filter)) {
			char filter[sizeof(c->filter)];

			memcpy(filter, c->filter, sizeof(filter));
			snprintf(c->why, sizeof(c->why), "the kernel refused "
				 "the filter '%s': %s", filter, strerror(errno));
			goto fail;
		}
	}
	c->ok = true;
	return;
fail:
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if (c->fd[cpu] >= 0)
			close(c->fd[cpu]);
	free(c->fd);
	c->fd = NULL;
}

/**
 * live_tracepoints_open - open the counters of every event in the list
 * @tp: filled in; each counter either ok or with why it is unavailable
 * @t: tracefs, as found by live_tracefs_open()
 *
 * Context: may block.  Opens nr_events x nr_cpus file descriptors (with
 * the soft RLIMIT_NOFILE raised to the hard one while it opens them).
 */
void live_tracepoints_open(struct live_tracepoints *tp,
			   const struct live_tracefs *t)
{
	static char fmt[16384];
	struct rlimit rl, saved;
	bool raised = false;
	/* each counted hit costs the traced task (docs/live.md): off counts none */
	const char *env = getenv("MMSIM_LIVE_TRACEPOINTS");
	bool off = env && !strcmp(env, "off");

	memset(tp, 0, sizeof(*tp));
	tp->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (tp->nr_cpus < 1)
		tp->nr_cpus = 1;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		saved = rl;
		rl.rlim_cur = rl.rlim_max;
		raised = !setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (size_t i = 0; i < sizeof(live_tp_list) / sizeof(live_tp_list[0]); i++) {
		const char *ev = live_tp_list[i].event;
		char sys[48], name[80], path[768], idbuf[32], why[200];
		struct live_tp_sym sym[64];
		const char *colon = strchr(ev, ':');
		long id;
		int nr;

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev), ev);
		snprintf(name, sizeof(name), "%s", colon + 1);
		if (!t->available) {
			live_tp_add(tp, ev, ev, -1, NULL, t->why);
			continue;
		}
		if (off) {
			live_tp_add(tp, ev, ev, -1, NULL, "not counted (MMSIM_LIVE_TRACEPOINTS=off)");
			continue;
		}
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", t->dir, sys, name);
		if (live_read_file(path, idbuf, sizeof(idbuf)) <= 0) {
			snprintf(why, sizeof(why), "this kernel has no %s tracepoint: "
				 "no events/%s/%s in tracefs%s%s", ev, sys, name,
				 live_tp_list[i].why_missing[0] ? "; it needs " : "",
				 live_tp_list[i].why_missing);
			live_tp_add(tp, ev, ev, -1, NULL, why);
			continue;
		}
		id = strtol(idbuf, NULL, 10);
		live_tp_add(tp, ev, ev, id, NULL, NULL);
		if (!live_tp_list[i].field)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", t->dir, sys, name);
		if (live_read_file(path, fmt, sizeof(fmt)) <= 0)
			continue;
		nr = live_tp_parse_symbols(fmt, live_tp_list[i].field, sym, 64);
		for (int s = 0; s < nr && s < 64; s++) {
			const char *const *want = live_tp_list[i].values;
			char cname[96], filter[64];
			bool keep = !want;

			for (int w = 0; want && want[w]; w++)
				keep |= !strcmp(want[w], sym[s].name);
			if (!keep)
				continue;
			snprintf(cname, sizeof(cname), "%s[%s]", ev, sym[s].name);
			snprintf(filter, sizeof(filter), "%s == %ld",
				 live_tp_list[i].field, sym[s].value);
			live_tp_add(tp, cname, ev, id, filter, NULL);
		}
	}
	for (int i = 0; i < tp->nr; i++)
		if (tp->c[i].id >= 0)
			live_tp_open_one(&tp->c[i], tp->nr_cpus);
	/* the counters stay open; the workloads get the usual limit */
	if (raised)
		setrlimit(RLIMIT_NOFILE, &saved);
}

static void live_tp_ioctl(struct live_tracepoints *tp, unsigned long req)
{
	for (int i = 0; i < tp->nr; i++)
		for (int cpu = 0; tp->c[i].ok && cpu < tp->nr_cpus; cpu++)
			if (tp->c[i].fd[cpu] >= 0)
				ioctl(tp->c[i].fd[cpu], req, 0);
}

/** live_tracepoints_enable - start counting.  Context: any. */
void live_tracepoints_enable(struct live_tracepoints *tp)
{
	live_tp_ioctl(tp, PERF_EVENT_IOC_RESET);
	live_tp_ioctl(tp, PERF_EVENT_IOC_ENABLE);
}

/**
 * live_tracepoints_disable - stop counting and read every counter
 * @tp: each ok counter's value is the sum over CPUs
 *
 * Context: any.
 */
void live_tracepoints_disable(struct live_tracepoints *tp)
{
	live_tp_ioctl(tp, PERF_EVENT_IOC_DISABLE);
	for (int i = 0; i < tp->nr; i++) {
		struct live_tp_count *c = &tp->c[i];

		c->value = 0;
		for (int cpu = 0; c->ok && cpu < tp->nr_cpus; cpu++) {
			uint64_t v;

			if (c->fd[cpu] < 0)
				continue;
			if (read(c->fd[cpu], &v, sizeof(v)) != sizeof(v)) {
				c->ok = false;
				snprintf(c->why, sizeof(c->why), "reading the "
					 "counter failed: %s", strerror(errno));
				break;
			}
			c->value += v;
		}
	}
}

/** live_tracepoints_close - close every counter.  Context: any; twice is safe. */
void live_tracepoints_close(struct live_tracepoints *tp)
{
	for (int i = 0; i < tp->nr; i++) {
		struct live_tp_count *c = &tp->c[i];

		for (int cpu = 0; c->fd && cpu < tp->nr_cpus; cpu++)
			if (c->fd[cpu] >= 0)
				close(c->fd[cpu]);
		free(c->fd);
		c->fd = NULL;
	}
}

/**
 * live_tracepoints_get - the count of one named counter
 * @tp: the counters
 * @name: "tlb:tlb_flush[remote shootdown]", "ipi:ipi_send_cpu"
 * @v: its value
 *
 * Context: any.
 * Return: the counter (ok or not), or NULL when there is none by @name.
 */
const struct live_tp_count *live_tracepoints_get(const struct live_tracepoints *tp,
						 const char *name, uint64_t *v)
{
	for (int i = 0; i < tp->nr; i++) {
		if (strcmp(tp->c[i].name, name))
			continue;
		*v = tp->c[i].ok ? tp->c[i].value : 0;
		return &tp->c[i];
	}
	return NULL;
}
