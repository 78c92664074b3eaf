// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: what a run changed on the machine, kept in a state file so
 * that a run killed by SIGKILL is undone by the next one; and the zram
 * swap device reclaim-tlb sets up with --apply on a machine without swap.
 *
 * Mirrors no kernel function; zram is driven through its sysfs interface
 * (Documentation/admin-guide/blockdev/zram.rst: zram-control/hot_add,
 * disksize, reset, zram-control/hot_remove) and swapon(2)/swapoff(2).
 *
 * The state file (/run/mmsim-live.state, or $MMSIM_LIVE_STATE) is
 * rewritten whole, through a temporary file and rename, each time
 * something is changed or undone; it is removed when nothing is left to
 * undo.  One line per change:
 *
 *   pid 1234                       the run
 *   tracefs /sys/kernel/tracing    mounted by the run
 *   zram 1                         /dev/zram1, made by the run (swapon)
 *   memcg /sys/fs/cgroup/...       the run's memory cgroup
 *   tmpdir /tmp/mmsim-live-perf-X  perf's files (and stress-ng's)
 *   setting PATH VALUE             PATH held VALUE before the run
 *
 * Order of undo (live_state_recover()): processes in the memcg are killed
 * and the memcg removed; the zram device is swapped off and removed; the
 * settings are written back; tracefs is unmounted.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/live_internal.h"

#define LIVE_STATE_DEFAULT "/run/mmsim-live.state"
#define LIVE_ZRAM_CONTROL "/sys/class/zram-control"

static struct {
	char tracefs[512];
	int zram;			/* -1: none */
	char memcg[512];
	char tmpdir[LIVE_STATE_NR_TMPDIRS][256];
	const struct live_settings *st;	/* its changed entries are saved */
	char sys_dir[512];		/* LIVE_THP_DIR below the sys root */
	bool written;			/* this run wrote the state file */
} live_state = { .zram = -1 };

static void live_state_file(char *buf, size_t len)
{
	const char *env = getenv("MMSIM_LIVE_STATE");

	snprintf(buf, len, "%s", env && *env ? env : LIVE_STATE_DEFAULT);
}

static void live_state_save(void)
{
	char path[512], tmp[600];
	bool any = live_state.tracefs[0] || live_state.zram >= 0 ||
		   live_state.memcg[0] || live_state.tmpdir[0][0] ||
		   live_state.tmpdir[1][0];
	FILE *f;

	for (int i = 0; live_state.st && i < live_state.st->nr; i++)
		any |= live_state.st->s[i].changed;
	live_state_file(path, sizeof(path));
	if (!any) {
		if (live_state.written)
			unlink(path);
		live_state.written = false;
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;	/* a run without root: nothing it could change either */
	fprintf(f, "pid %d\n", (int)getpid());
	if (live_state.tracefs[0])
		fprintf(f, "tracefs %s\n", live_state.tracefs);
	if (live_state.zram >= 0)
		fprintf(f, "zram %d\n", live_state.zram);
	if (live_state.memcg[0])
		fprintf(f, "memcg %s\n", live_state.memcg);
	for (int i = 0; i < LIVE_STATE_NR_TMPDIRS; i++)
		if (live_state.tmpdir[i][0])
			fprintf(f, "tmpdir %s\n", live_state.tmpdir[i]);
	for (int i = 0; live_state.st && i < live_state.st->nr; i++)
		if (live_state.st->s[i].changed)
			fprintf(f, "setting %s/%s %s\n", live_state.sys_dir,
				live_state.st->s[i].rel, live_state.st->s[i].saved);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
	else
		live_state.written = true;
}

/** live_state_note_tracefs - remember (or, NULL, forget) a tracefs mount. */
void live_state_note_tracefs(const char *dir)
{
	snprintf(live_state.tracefs, sizeof(live_state.tracefs), "%s", dir ? dir : "");
	live_state_save();
}

/** live_state_note_zram - remember (or, -1, forget) a zram device. */
void live_state_note_zram(int dev)
{
	live_state.zram = dev;
	live_state_save();
}

/** live_state_note_memcg - remember (or, NULL, forget) the run's memcg. */
void live_state_note_memcg(const char *path)
{
	snprintf(live_state.memcg, sizeof(live_state.memcg), "%s", path ? path : "");
	live_state_save();
}

/**
 * live_state_note_tmpdir - remember (or, NULL, forget) a directory of files
 * @slot: LIVE_STATE_TMPDIR_PERF or LIVE_STATE_TMPDIR_STRESS_NG
 * @dir: "/tmp/mmsim-live-...", or NULL once removed
 */
void live_state_note_tmpdir(int slot, const char *dir)
{
	snprintf(live_state.tmpdir[slot], sizeof(live_state.tmpdir[slot]), "%s",
		 dir ? dir : "");
	live_state_save();
}

/**
 * live_state_note_settings - save the settings' original values
 * @st: the run's settings (or NULL when the run ends); every entry marked
 *      changed is saved, with the value it held before the run
 *
 * Context: call after each change of @st's changed flags.
 */
void live_state_note_settings(const struct live_settings *st)
{
	live_state.st = st;
	if (live_sys_path(live_state.sys_dir, sizeof(live_state.sys_dir), LIVE_THP_DIR))
		live_state.sys_dir[0] = '\0';
	live_state_save();
}

static void live_zram_remove(int dev, FILE *err)
{
	char path[128], val[16];
	int ret;

	snprintf(path, sizeof(path), "/dev/zram%d", dev);
	if (swapoff(path) && errno != EINVAL && errno != ENOENT && err)
		fprintf(err, "mmsim: warning: swapoff %s: %s\n", path, strerror(errno));
	snprintf(path, sizeof(path), "/sys/block/zram%d/reset", dev);
	live_write_file(path, "1");
	snprintf(val, sizeof(val), "%d", dev);
	ret = live_write_file(LIVE_ZRAM_CONTROL "/hot_remove", val);
	if (ret && ret != -ENODEV && err)
		fprintf(err, "mmsim: warning: could not remove /dev/zram%d: %s; "
			"remove it with echo %d > %s/hot_remove\n", dev,
			strerror(-ret), dev, LIVE_ZRAM_CONTROL);
}

/**
 * live_zram_setup - add a zram swap device of @bytes
 * @z: the device; created and swapon set as they happen
 * @bytes: its disksize
 * @err: why it failed
 * @errlen: size of @err
 *
 * Context: root; runs mkswap.
 * Return: 0, or a negative errno.
 */
int live_zram_setup(struct live_zram *z, uint64_t bytes, char *err, size_t errlen)
{
	char buf[32], path[128], cmd[256];
	int ret, st;

	z->dev = -1;
	z->swapon = false;
	if (access(LIVE_ZRAM_CONTROL "/hot_add", R_OK)) {
		snprintf(err, errlen, "reclaim-tlb --apply sets up zram swap and "
			 "this kernel has no %s/hot_add (load the module: "
			 "modprobe zram), or add swap by hand", LIVE_ZRAM_CONTROL);
		return -ENOENT;
	}
	ret = (int)live_read_file(LIVE_ZRAM_CONTROL "/hot_add", buf, sizeof(buf));
	if (ret <= 0) {
		snprintf(err, errlen, "cannot add a zram device (%s/hot_add): %s",
			 LIVE_ZRAM_CONTROL, ret ? strerror(-ret) : "no answer");
		return ret ? ret : -EIO;
	}
	z->dev = atoi(buf);
	live_state_note_zram(z->dev);
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", z->dev);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
	ret = live_write_file(path, buf);
	if (ret) {
		snprintf(err, errlen, "cannot set %s: %s", path, strerror(-ret));
		return ret;
	}
	snprintf(cmd, sizeof(cmd), "mkswap /dev/zram%d >/dev/null 2>&1", z->dev);
	st = system(cmd);
	if (st) {
		snprintf(err, errlen, "mkswap /dev/zram%d failed (status %d)",
			 z->dev, WIFEXITED(st) ? WEXITSTATUS(st) : st);
		return -EIO;
	}
	snprintf(path, sizeof(path), "/dev/zram%d", z->dev);
	if (swapon(path, 0)) {
		snprintf(err, errlen, "swapon %s: %s", path, strerror(errno));
		return -errno;
	}
	z->swapon = true;
	return 0;
}

/**
 * live_zram_teardown - swap off and remove the device live_zram_setup() made
 * @z: the device; dev is -1 afterwards
 * @err: where warnings go, or NULL
 *
 * Context: root; swapoff may take a while.  Safe to call twice.
 */
void live_zram_teardown(struct live_zram *z, FILE *err)
{
	if (z->dev < 0)
		return;
	live_zram_remove(z->dev, err);
	z->dev = -1;
	z->swapon = false;
	live_state_note_zram(-1);
}

/**
 * live_parse_state - read a state file's text
 * @text: the file
 * @s: what it lists
 *
 * Context: any.
 * Return: 0, or -EINVAL when it has no "pid" line.
 */
int live_parse_state(const char *text, struct live_saved_state *s)
{
	const char *line = text;

	memset(s, 0, sizeof(*s));
	s->zram = -1;
	while (line && *line) {
		const char *next = strchr(line, '\n');
		char buf[1200], a[900], b[200];

		snprintf(buf, sizeof(buf), "%.*s", next ? (int)(next - line) :
			 (int)strlen(line), line);
		line = next ? next + 1 : NULL;
		b[0] = '\0';
		if (sscanf(buf, "pid %d", &s->pid) == 1)
			continue;
		if (sscanf(buf, "zram %d", &s->zram) == 1)
			continue;
		if (sscanf(buf, "tracefs %511s", s->tracefs) == 1)
			continue;
		if (sscanf(buf, "memcg %511s", s->memcg) == 1)
			continue;
		if (s->nr_tmpdirs < LIVE_STATE_NR_TMPDIRS &&
		    sscanf(buf, "tmpdir %255s", s->tmpdir[s->nr_tmpdirs]) == 1) {
			s->nr_tmpdirs++;
			continue;
		}
		if (sscanf(buf, "setting %899s %199[^\n]", a, b) >= 1 &&
		    s->nr_settings < LIVE_MAX_SETTINGS) {
			snprintf(s->setting[s->nr_settings][0], sizeof(s->setting[0][0]), "%s", a);
			snprintf(s->setting[s->nr_settings][1], sizeof(s->setting[0][1]), "%s", b);
			s->nr_settings++;
		}
	}
	return s->pid > 0 ? 0 : -EINVAL;
}

/**
 * live_state_recover - undo what a killed earlier run left, if anything
 * @out: where to say what was restored
 * @msg: when another run is still going, a one-line error
 * @len: size of @msg
 *
 * Context: at the start of a run, before anything is changed.
 * Return: 0 (nothing left, or restored), or -EBUSY when the run that wrote
 * the state file is still alive.
 */
int live_state_recover(FILE *out, char *msg, size_t len)
{
	static char text[32768];
	static struct live_saved_state s;
	char path[512];
	int nr = 0;

	live_state_file(path, sizeof(path));
	if (live_read_file(path, text, sizeof(text)) <= 0)
		return 0;
	if (live_parse_state(text, &s)) {
		unlink(path);
		return 0;
	}
	if (s.pid != getpid() && !kill(s.pid, 0)) {
		snprintf(msg, len, "another live run (pid %d) is in progress "
			 "(state file %s); wait for it to end", s.pid, path);
		return -EBUSY;
	}
	if (s.memcg[0]) {
		struct live_memcg cg = { .created = true };

		snprintf(cg.path, sizeof(cg.path), "%s", s.memcg);
		live_memcg_destroy(&cg);
		nr++;
	}
	if (s.zram >= 0) {
		live_zram_remove(s.zram, out);
		nr++;
	}
	for (int i = s.nr_settings - 1; i >= 0; i--) {
		if (live_write_file(s.setting[i][0], s.setting[i][1]))
			fprintf(out, "mmsim: warning: could not restore %s to '%s'\n",
				s.setting[i][0], s.setting[i][1]);
		nr++;
	}
	for (int t = 0; t < s.nr_tmpdirs; t++) {
		static const char *const files[] = { "lock.data", "lock.data.old",
			"record.out", "contention.out", "stress-ng.yaml",
			"stress-ng.out" };

		if (strncmp(s.tmpdir[t], "/tmp/mmsim-live-", 16))
			continue;	/* only ever ours */
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char f[400];

			snprintf(f, sizeof(f), "%s/%s", s.tmpdir[t], files[i]);
			unlink(f);
		}
		rmdir(s.tmpdir[t]);
		nr++;
	}
	if (s.tracefs[0]) {
		umount(s.tracefs);
		nr++;
	}
	unlink(path);
	fprintf(out, "mmsim: the live run %d ended without undoing its "
		"changes (killed?); restored %d of them from %s\n", s.pid, nr, path);
	return 0;
}
