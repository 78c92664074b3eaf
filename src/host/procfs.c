// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: reading the host's /proc and /sys.
 *
 * What it reads: /proc/vmstat ("name value" lines), /proc/interrupts (one
 * column per online CPU; a row is summed over CPUs and keyed by its label,
 * so "TLB" is "TLB shootdowns" and "CAL" is "Function call interrupts"),
 * /proc/meminfo and /proc/PID/smaps_rollup ("Name:  123 kB" lines), the
 * mTHP statistics in LIVE_THP_DIR/hugepages-<size>/stats/ and khugepaged's
 * counters in LIVE_THP_DIR/khugepaged/.  These are the kernel's own names,
 * which the simulator also uses for its counters.
 *
 * The parsers take text, not paths, so that tests feed them recorded
 * samples (tests/fixtures/live/).  A source that cannot be read leaves
 * its struct live_counters with available == false; callers then report
 * "unavailable", never zero.
 *
 * No locks: live mode's measuring process is single-threaded.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/live_internal.h"

static int live_root_path(char *buf, size_t len, const char *env,
			  const char *abs)
{
	const char *root = getenv(env);
	int n = snprintf(buf, len, "%s%s", root ? root : "", abs);

	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

/**
 * live_sys_path - the path of a /sys file, below MMSIM_LIVE_SYS_ROOT if set
 * @buf: where to write the path
 * @len: size of @buf
 * @abs: the absolute path on a real machine, "/sys/..."
 *
 * Context: any.
 * Return: 0, or -ENAMETOOLONG.
 */
int live_sys_path(char *buf, size_t len, const char *abs)
{
	return live_root_path(buf, len, "MMSIM_LIVE_SYS_ROOT", abs);
}

/**
 * live_proc_path - the path of a /proc file, below MMSIM_LIVE_PROC_ROOT if set
 * @buf: where to write the path
 * @len: size of @buf
 * @abs: the absolute path on a real machine, "/proc/..."
 *
 * Context: any.
 * Return: 0, or -ENAMETOOLONG.
 */
int live_proc_path(char *buf, size_t len, const char *abs)
{
	return live_root_path(buf, len, "MMSIM_LIVE_PROC_ROOT", abs);
}

/**
 * live_read_file - read a whole (small) file as a string
 * @path: the file
 * @buf: where to put its text, NUL-terminated
 * @len: size of @buf; longer files are cut
 *
 * Context: may block.
 * Return: the number of bytes read, or a negative errno.
 */
ssize_t live_read_file(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (used + 1 < len) {
		ssize_t n = read(fd, buf + used, len - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	close(fd);
	return (ssize_t)used;
}

/**
 * live_write_file - write a value to a /sys or /proc file in one write
 * @path: the file
 * @text: the value, usually without a newline
 *
 * Context: may block.
 * Return: 0, or a negative errno (the kernel's answer to the write).
 */
int live_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/**
 * live_counters_set - set (or add) one named counter
 * @c: the set
 * @name: its kernel name; cut to 63 characters
 * @v: its value
 *
 * Context: any.  Silently drops the counter when the set is full.
 */
void live_counters_set(struct live_counters *c, const char *name, uint64_t v)
{
	for (int i = 0; i < c->nr; i++) {
		if (!strcmp(c->kv[i].name, name)) {
			c->kv[i].value = v;
			return;
		}
	}
	if (c->nr >= LIVE_MAX_KV)
		return;
	snprintf(c->kv[c->nr].name, sizeof(c->kv[c->nr].name), "%s", name);
	c->kv[c->nr].value = v;
	c->nr++;
}

/**
 * live_counters_get - look up one named counter
 * @c: the set
 * @name: the kernel's name
 * @v: its value, when found
 *
 * Context: any.
 * Return: true if the set is available and holds @name.
 */
bool live_counters_get(const struct live_counters *c, const char *name,
		       uint64_t *v)
{
	if (!c->available)
		return false;
	for (int i = 0; i < c->nr; i++) {
		if (!strcmp(c->kv[i].name, name)) {
			*v = c->kv[i].value;
			return true;
		}
	}
	return false;
}

/**
 * live_counters_delta - after minus before, for each counter in both
 * @before: the first reading
 * @after: the second reading
 * @delta: the result; available only if both readings were.  A counter
 *         that went down (a gauge such as nr_anon) gets 0.
 *
 * Context: any.
 */
void live_counters_delta(const struct live_counters *before,
			 const struct live_counters *after,
			 struct live_counters *delta)
{
	delta->nr = 0;
	delta->available = before->available && after->available;
	if (!delta->available)
		return;
	for (int i = 0; i < after->nr; i++) {
		uint64_t b;

		if (!live_counters_get(before, after->kv[i].name, &b))
			continue;
		live_counters_set(delta, after->kv[i].name,
				  after->kv[i].value >= b ?
				  after->kv[i].value - b : 0);
	}
}

/* One counter per line that @fmt (a name, then a value) matches; -EINVAL if none. */
static int live_parse_name_value(const char *text, const char *fmt, struct live_counters *c)
{
	const char *line = text;

	c->nr = 0;
	while (line && *line) {
		char name[64];
		unsigned long long v;

		if (sscanf(line, fmt, name, &v) == 2)
			live_counters_set(c, name, v);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	c->available = c->nr > 0;
	return c->nr ? c->nr : -EINVAL;
}

/**
 * live_parse_vmstat - parse /proc/vmstat text
 * @text: lines "name value"
 * @c: filled with every line; available set
 *
 * Context: any.
 * Return: the number of counters read, or -EINVAL when none could be.
 */
int live_parse_vmstat(const char *text, struct live_counters *c)
{
	return live_parse_name_value(text, "%63s %llu", c);
}

/**
 * live_parse_interrupts - parse /proc/interrupts text, summing over CPUs
 * @text: a header of CPU names, then "LABEL: n n ... description" rows
 * @c: one counter per row, keyed by LABEL without the colon ("TLB", "CAL")
 *
 * Rows with fewer numbers than CPUs (ERR, MIS) are summed as they are.
 *
 * Context: any.
 * Return: the number of rows read, or -EINVAL.
 */
int live_parse_interrupts(const char *text, struct live_counters *c)
{
	const char *line = strchr(text, '\n');
	int nr_cpus = 0;

	c->nr = 0;
	c->available = false;
	for (const char *s = text; line && s < line; s++)
		if (!strncmp(s, "CPU", 3) && (s == text || isspace((unsigned char)s[-1])))
			nr_cpus++;
	if (!nr_cpus)
		return -EINVAL;
	while (line && *++line) {
		char label[64];
		const char *s = line, *colon;
		uint64_t sum = 0;
		int i = 0;
		size_t n;

		while (*s == ' ')
			s++;
		colon = strchr(s, ':');
		n = colon ? (size_t)(colon - s) : 0;
		if (!colon || n == 0 || n >= sizeof(label) || memchr(s, '\n', n))
			goto next;
		memcpy(label, s, n);
		label[n] = '\0';
		s = colon + 1;
		for (i = 0; i < nr_cpus; i++) {
			char *end;
			unsigned long long v;

			while (*s == ' ' || *s == '\t')
				s++;
			if (!isdigit((unsigned char)*s))
				break;
			v = strtoull(s, &end, 10);
			sum += v;
			s = end;
		}
		if (i > 0)
			live_counters_set(c, label, sum);
next:
		line = strchr(line, '\n');
	}
	c->available = c->nr > 0;
	return c->nr ? c->nr : -EINVAL;
}

/**
 * live_parse_kb_file - parse "Name:  123 kB" text (meminfo, smaps_rollup)
 * @text: the file's text; lines without a number are skipped
 * @c: one counter per line, in the file's unit (kB)
 *
 * Context: any.
 * Return: the number of counters read, or -EINVAL.
 */
int live_parse_kb_file(const char *text, struct live_counters *c)
{
	return live_parse_name_value(text, "%63[^:\n]: %llu", c);
}

/**
 * live_parse_choice - the value in force of a sysfs setting
 * @text: "always [madvise] never" or a plain value such as "511\n"
 * @out: the bracketed word, or the trimmed value
 * @len: size of @out
 *
 * Context: any.
 * Return: 0, or -EINVAL for an empty or malformed file.
 */
int live_parse_choice(const char *text, char *out, size_t len)
{
	const char *open = strchr(text, '['), *start, *end;

	if (open) {
		start = open + 1;
		end = strchr(start, ']');
		if (!end)
			return -EINVAL;
	} else {
		start = text;
		while (isspace((unsigned char)*start))
			start++;
		end = start + strlen(start);
		while (end > start && isspace((unsigned char)end[-1]))
			end--;
	}
	if (end == start || (size_t)(end - start) >= len)
		return -EINVAL;
	memcpy(out, start, (size_t)(end - start));
	out[end - start] = '\0';
	return 0;
}

static int live_read_parsed(const char *abs, bool proc, struct live_counters *c,
			    int (*parse)(const char *, struct live_counters *))
{
	static char buf[256 * 1024];
	char path[512];
	ssize_t n;

	c->nr = 0;
	c->available = false;
	if ((proc ? live_proc_path : live_sys_path)(path, sizeof(path), abs))
		return -ENAMETOOLONG;
	n = live_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return parse(buf, c) < 0 ? -EINVAL : 0;
}

/**
 * live_read_vmstat - read /proc/vmstat
 * @c: its counters
 *
 * Context: may block.
 * Return: 0, or a negative errno (then @c is unavailable).
 */
int live_read_vmstat(struct live_counters *c)
{
	return live_read_parsed("/proc/vmstat", true, c, live_parse_vmstat);
}

/**
 * live_read_interrupts - read /proc/interrupts, rows summed over CPUs
 * @c: its rows
 *
 * Context: may block.
 * Return: 0, or a negative errno.
 */
int live_read_interrupts(struct live_counters *c)
{
	return live_read_parsed("/proc/interrupts", true, c,
				live_parse_interrupts);
}

/**
 * live_read_meminfo - read /proc/meminfo (kB)
 * @c: its lines
 *
 * Context: may block.
 * Return: 0, or a negative errno.
 */
int live_read_meminfo(struct live_counters *c)
{
	return live_read_parsed("/proc/meminfo", true, c, live_parse_kb_file);
}

static int live_read_counter_dir(const char *dir, const char *prefix,
				 struct live_counters *c)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int nr = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[768], text[64], name[64];
		unsigned long long v;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%.600s/%.100s", dir, de->d_name);
		if (live_read_file(path, text, sizeof(text)) <= 0)
			continue;
		if (sscanf(text, "%llu", &v) != 1)
			continue;
		snprintf(name, sizeof(name), "%.40s%.23s", prefix, de->d_name);
		live_counters_set(c, name, v);
		nr++;
	}
	closedir(d);
	return nr;
}

/**
 * live_read_mthp_stats - read every hugepages-<size>/stats/<name> file
 * @c: counters named "hugepages-16kB/split_deferred" and so on
 *
 * Context: may block.
 * Return: 0, or -ENOENT when the kernel has no mTHP statistics (before 6.9).
 */
int live_read_mthp_stats(struct live_counters *c)
{
	char dir[512];
	DIR *d;
	struct dirent *de;

	c->nr = 0;
	c->available = false;
	if (live_sys_path(dir, sizeof(dir), LIVE_THP_DIR))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char sub[600], prefix[64];

		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		snprintf(sub, sizeof(sub), "%.500s/%.60s/stats", dir, de->d_name);
		snprintf(prefix, sizeof(prefix), "%.40s/", de->d_name);
		if (live_read_counter_dir(sub, prefix, c) > 0)
			c->available = true;
	}
	closedir(d);
	return c->available ? 0 : -ENOENT;
}

/**
 * live_read_khugepaged - read khugepaged's counters
 * @c: "pages_collapsed" and "full_scans" (and the tunables, which are
 *     numbers too, but only the two counters are reported)
 *
 * Context: may block.
 * Return: 0, or a negative errno.
 */
int live_read_khugepaged(struct live_counters *c)
{
	static const char *const names[] = { "pages_collapsed", "full_scans" };
	char dir[512];

	c->nr = 0;
	c->available = false;
	if (live_sys_path(dir, sizeof(dir), LIVE_THP_DIR "/khugepaged"))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[600], text[64];
		unsigned long long v;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (live_read_file(path, text, sizeof(text)) <= 0 ||
		    sscanf(text, "%llu", &v) != 1)
			return -ENOENT;
		live_counters_set(c, names[i], v);
	}
	c->available = true;
	return 0;
}

/**
 * live_read_smaps_anon_huge - AnonHugePages of one process
 * @pid: the process (always the real /proc/PID/smaps_rollup)
 * @kb: its AnonHugePages in kB
 *
 * Context: may block.
 * Return: 0, or a negative errno (no smaps_rollup before 4.14, process gone).
 */
int live_read_smaps_anon_huge(pid_t pid, uint64_t *kb)
{
	static struct live_counters c;
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	n = live_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (live_parse_kb_file(buf, &c) < 0 ||
	    !live_counters_get(&c, "AnonHugePages", kb))
		return -ENOENT;
	return 0;
}
