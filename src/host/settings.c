// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: the THP, mTHP and khugepaged settings in force, and changing
 * them for one run.
 *
 * Mirrors no kernel function; it reads and writes the sysfs files that
 * mm/huge_memory.c (enabled, defrag, use_zero_page, hugepages-<size>/enabled)
 * and mm/khugepaged.c (khugepaged/<tunable>) export.
 *
 * Protocol: live_settings_read() records every value in force
 * (struct live_setting.saved).  A scenario marks what it wants
 * (live_settings_want()).  Only with --apply does live_settings_apply()
 * write them, marking each one it wrote as changed; live_settings_restore()
 * writes back saved for every changed one, in reverse order, and is called
 * on every way out of live_cmd_main(): normal end, SIGINT, SIGTERM, a dead
 * workload process, or a failure.  A SIGKILL of mmsim itself cannot be
 * caught: docs/live.md says how to restore by hand.
 *
 * Order matters for mTHP: a size set to "inherit" follows the top-level
 * "enabled", so the top level is written first and restored last.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/live_internal.h"

/* Top-level files, in the order they are applied. */
static const char *const live_setting_files[] = {
	"enabled",
	"defrag",
	"use_zero_page",
	"shrink_underused",
	"khugepaged/defrag",
	"khugepaged/max_ptes_none",
	"khugepaged/max_ptes_swap",
	"khugepaged/max_ptes_shared",
	"khugepaged/pages_to_scan",
	"khugepaged/scan_sleep_millisecs",
	"khugepaged/alloc_sleep_millisecs",
};

/**
 * live_setting_name_ok - whether live mode ever writes this setting
 * @rel: a path below LIVE_THP_DIR
 *
 * Context: any; the state file's recovery restores only these.
 * Return: true for a top-level file above or "hugepages-<N>kB/enabled".
 */
bool live_setting_name_ok(const char *rel)
{
	const char *p;

	for (size_t i = 0; i < sizeof(live_setting_files) / sizeof(char *); i++)
		if (!strcmp(rel, live_setting_files[i]))
			return true;
	if (strncmp(rel, "hugepages-", 10))
		return false;
	for (p = rel + 10; *p >= '0' && *p <= '9'; p++)
		;
	return p > rel + 10 && !strcmp(p, "kB/enabled");
}

static int live_setting_add(struct live_settings *st, const char *dir,
			    const char *rel)
{
	char path[768], text[256];
	struct live_setting *s;

	if (st->nr >= LIVE_MAX_SETTINGS)
		return -ENOSPC;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (live_read_file(path, text, sizeof(text)) < 0)
		return -ENOENT;
	s = &st->s[st->nr];
	memset(s, 0, sizeof(*s));
	snprintf(s->rel, sizeof(s->rel), "%s", rel);
	if (live_parse_choice(text, s->saved, sizeof(s->saved)))
		return -EINVAL;
	st->nr++;
	return 0;
}

static int live_cmp_setting(const void *a, const void *b)
{
	const struct live_setting *x = a, *y = b;
	unsigned long kx = strtoul(x->rel + 10, NULL, 10);
	unsigned long ky = strtoul(y->rel + 10, NULL, 10);

	return kx < ky ? -1 : kx > ky;
}

/**
 * live_settings_read - record every THP, mTHP and khugepaged setting in force
 * @st: filled; files the kernel lacks are left out
 *
 * Context: may block.
 * Return: the number of settings read, or -ENOENT when the kernel has no
 * transparent_hugepage directory (CONFIG_TRANSPARENT_HUGEPAGE=n).
 */
int live_settings_read(struct live_settings *st)
{
	char dir[512];
	DIR *d;
	struct dirent *de;
	int first_mthp;

	st->nr = 0;
	if (live_sys_path(dir, sizeof(dir), LIVE_THP_DIR))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(live_setting_files) / sizeof(char *); i++)
		live_setting_add(st, dir, live_setting_files[i]);
	first_mthp = st->nr;
	while ((de = readdir(d))) {
		char rel[80];

		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		snprintf(rel, sizeof(rel), "%.60s/enabled", de->d_name);
		live_setting_add(st, dir, rel);
	}
	closedir(d);
	/* readdir order is the file system's; sort sizes for stable output */
	qsort(st->s + first_mthp, (size_t)(st->nr - first_mthp),
	      sizeof(st->s[0]), live_cmp_setting);
	return st->nr;
}

/**
 * live_settings_find - one setting by its path below LIVE_THP_DIR
 * @st: the settings read
 * @rel: "enabled", "khugepaged/max_ptes_none", "hugepages-16kB/enabled"
 *
 * Context: any.
 * Return: the setting, or NULL when the kernel does not have it.
 */
struct live_setting *live_settings_find(struct live_settings *st,
					const char *rel)
{
	for (int i = 0; i < st->nr; i++)
		if (!strcmp(st->s[i].rel, rel))
			return &st->s[i];
	return NULL;
}

/**
 * live_settings_want - ask for a value during the run
 * @st: the settings read
 * @rel: which setting
 * @value: the value the experiment needs
 *
 * Context: any.  Nothing is written until live_settings_apply().
 * Return: 0, or -ENOENT when this kernel lacks the setting.
 */
int live_settings_want(struct live_settings *st, const char *rel,
		       const char *value)
{
	struct live_setting *s = live_settings_find(st, rel);

	if (!s)
		return -ENOENT;
	snprintf(s->want, sizeof(s->want), "%s", value);
	return 0;
}

/**
 * live_settings_print - print each setting, and what the run wants
 * @st: the settings read
 * @apply: whether --apply was given (and so the wanted values are in force)
 * @out: the sink
 *
 * Context: any.
 */
void live_settings_print(const struct live_settings *st, bool apply, FILE *out)
{
	int nr_differ = 0;

	fprintf(out, "settings (%s):\n", LIVE_THP_DIR);
	for (int i = 0; i < st->nr; i++) {
		const struct live_setting *s = &st->s[i];
		bool differ = s->want[0] && strcmp(s->want, s->saved);

		if (!differ) {
			fprintf(out, "  %-34s %s\n", s->rel, s->saved);
			continue;
		}
		nr_differ++;
		if (apply)
			fprintf(out, "  %-34s %s (was %s; restored at exit)\n",
				s->rel, s->want, s->saved);
		else
			fprintf(out, "  %-34s %s (the experiment wants %s)\n",
				s->rel, s->saved, s->want);
	}
	if (nr_differ && !apply)
		fprintf(out, "  note: %d setting%s differ from the experiment's; "
			"--apply sets them for the run and restores them after\n",
			nr_differ, nr_differ == 1 ? "" : "s");
}

/**
 * live_settings_apply - write every wanted value that differs
 * @st: the settings; each one written is marked changed
 * @err: one line on failure, naming the file and what to do
 * @errlen: size of @err
 *
 * On failure the settings already written stay marked changed, so that
 * live_settings_restore() undoes them.
 *
 * Context: may block.
 * Return: 0, or a negative errno.
 */
int live_settings_apply(struct live_settings *st, char *err, size_t errlen)
{
	char dir[512];

	if (live_sys_path(dir, sizeof(dir), LIVE_THP_DIR))
		return -ENAMETOOLONG;
	for (int i = 0; i < st->nr; i++) {
		struct live_setting *s = &st->s[i];
		char path[768];
		int ret;

		if (!s->want[0] || !strcmp(s->want, s->saved))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, s->rel);
		ret = live_write_file(path, s->want);
		if (ret) {
			snprintf(err, errlen, "cannot write '%s' to %s: %s; "
				 "--apply needs root (run as root or with sudo)",
				 s->want, path, strerror(-ret));
			return ret;
		}
		s->changed = true;
	}
	return 0;
}

/**
 * live_settings_restore - write back every value that apply changed
 * @st: the settings; changed is cleared for each one restored
 * @err: where to report a value that could not be restored, or NULL
 *
 * Context: may block.  Safe to call twice.
 * Return: the number of settings that could not be restored.
 */
int live_settings_restore(struct live_settings *st, FILE *err)
{
	char dir[512];
	int nr_failed = 0;

	if (live_sys_path(dir, sizeof(dir), LIVE_THP_DIR))
		return st->nr;
	for (int i = st->nr - 1; i >= 0; i--) {
		struct live_setting *s = &st->s[i];
		char path[768];
		int ret;

		if (!s->changed)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, s->rel);
		ret = live_write_file(path, s->saved);
		if (ret) {
			nr_failed++;
			if (err)
				fprintf(err, "mmsim: warning: could not restore "
					"%s to '%s': %s\n", path, s->saved,
					strerror(-ret));
			continue;
		}
		s->changed = false;
	}
	return nr_failed;
}
