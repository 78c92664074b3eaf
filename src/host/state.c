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
 *   pid 1234 567890                the run, and its start time (clock
 *                                  ticks after boot, /proc/PID/stat)
 *   tracefs /sys/kernel/tracing    mounted by the run
 *   zram 1 268435456               /dev/zram1 of that disksize, made by
 *                                  the run (swapon)
 *   memcg /sys/fs/cgroup/...       the run's memory cgroup
 *   cgroup_subtree DIR memory      the run wrote "+memory" to
 *                                  DIR/cgroup.subtree_control (cgroup v2,
 *                                  DIR the memcg's parent)
 *   tmpdir /tmp/mmsim-live-perf-X  perf's files (and stress-ng's, and a
 *                                  workload file's wl-* files)
 *   setting PATH VALUE             PATH held VALUE before the run
 *
 * Order of undo (live_state_recover()): processes in the memcg are killed,
 * "-memory" written back to the parent's subtree_control, the memcg
 * removed; the zram device is swapped off and removed; the
 * settings are written back; tracefs is unmounted.
 *
 * The file is not trusted: root runs live mode, and whoever can write the
 * file (or a damaged one) must not make the next run kill, remove or
 * overwrite what mmsim did not make.  So recovery acts on a line only when
 * it names what a run makes, after resolving the path
 * (live_state_line_ok()):
 *   pid      busy only while that pid is a process of this program (its
 *            comm is ours or "mmsim") started at the recorded time
 *   memcg    a directory on a cgroup file system named mmsim-live-PID,
 *            PID the state file's
 *   cgroup_subtree  the word "memory", and DIR the directory of the
 *            memcg line that was accepted (its parent), on cgroup2
 *   zram     a device whose disksize is the recorded one (or still 0),
 *            and not mounted
 *   setting  a file below the THP directory that live mode writes, by name
 *            (live_setting_name_ok()), and a value of one plain word
 *   tmpdir   /tmp/mmsim-live-WORD itself, a directory, not a link
 *   tracefs  the tracefs directory live mode mounts, holding a tracefs
 * Anything else is left alone, with a warning naming the line.
 *
 * One lock (live_state_lock()): an flock on the state file's path with
 * ".lock" added, taken by a live run, by compare and by a calibrate that
 * may change the machine, for as long as they may write the state file;
 * the second is refused.  Without it two runs would rewrite one file, and
 * one would save the other's temporary values as those to restore.  The
 * pid line still guards against a run of a version without the lock.
 *
 *   run A                              run B
 *   open(PATH.lock, O_CREAT)
 *   flock(LOCK_EX|LOCK_NB) = 0
 *   same inode as PATH.lock? yes       open(PATH.lock): A's inode
 *   ... the run ...                    flock(LOCK_NB) = EWOULDBLOCK:
 *                                        "another ... is in progress"
 *   unlink(PATH.lock); close           (or, had B's flock come after
 *                                        A's unlink: not PATH.lock's
 *                                        inode any more, open again)
 * The holder removes the file before it lets go, so that no file is left
 * behind; a taker checks that what it locked is still the file at the
 * path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/live_internal.h"

#define LIVE_STATE_DEFAULT "/run/mmsim-live.state"
#define LIVE_ZRAM_CONTROL "/sys/class/zram-control"
#define LIVE_TRACEFS_MAGIC 0x74726163UL	/* include/uapi/linux/magic.h */
#define LIVE_CGROUP_MAGIC 0x27e0ebUL
#define LIVE_CGROUP2_MAGIC 0x63677270UL

static struct {
	char tracefs[512];
	int zram;			/* -1: none */
	uint64_t zram_bytes;		/* its disksize */
	char memcg[512];
	char subtree[512];		/* the memcg's parent: "+memory" written */
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

static struct {
	int fd;				/* the flock's file, -1: not held */
	int depth;			/* nested takes (compare, then live) */
	char path[520];
} live_lock = { .fd = -1 };

/**
 * live_state_lock - take the state file's lock, or be refused
 * @msg: when another run holds it, a one-line error
 * @len: size of @msg
 *
 * The lock is the state file's path (/run/mmsim-live.state or
 * $MMSIM_LIVE_STATE) with ".lock" added.  Taken again by its holder, it
 * nests.  Where the lock file cannot be made (not root: /run is not
 * writable), the state file cannot be written either and the run goes on
 * without it.
 *
 * Context: before the run looks at the state file; paired with
 * live_state_unlock().  The file descriptor is close-on-exec; forked
 * workload processes share the lock until they end.
 * Return: 0, or -EBUSY when another process holds it.
 */
int live_state_lock(char *msg, size_t len)
{
	char path[512];

	if (live_lock.depth++)
		return 0;
	live_state_file(path, sizeof(path));
	snprintf(live_lock.path, sizeof(live_lock.path), "%s.lock", path);
	for (int tries = 0; tries < 100; tries++) {
		struct stat a, b;
		int fd = open(live_lock.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			      0600);

		if (fd < 0)
			return 0;	/* nothing can be recorded: nothing to guard */
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			close(fd);
			if (e == EINTR)
				continue;
			if (e != EWOULDBLOCK)
				return 0;
			live_lock.depth = 0;
			snprintf(msg, len, "another live run or calibrate is in "
				 "progress (it holds %s); wait for it to end",
				 live_lock.path);
			return -EBUSY;
		}
		/* the holder before us may have removed it as we opened it */
		if (!fstat(fd, &a) && !stat(live_lock.path, &b) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			live_lock.fd = fd;
			return 0;
		}
		close(fd);
	}
	live_lock.depth = 0;
	snprintf(msg, len, "%s: kept being replaced as it was locked; another "
		 "live run or calibrate is starting", live_lock.path);
	return -EBUSY;
}

/**
 * live_state_unlock - let go of live_state_lock()'s lock
 *
 * Context: the last of nested takes removes the lock file and drops it.
 */
void live_state_unlock(void)
{
	if (live_lock.depth <= 0 || --live_lock.depth)
		return;
	if (live_lock.fd < 0)
		return;
	unlink(live_lock.path);	/* while held: see the diagram above */
	close(live_lock.fd);
	live_lock.fd = -1;
}

static void live_state_save(void)
{
	char path[512], tmp[600];
	bool any = live_state.tracefs[0] || live_state.zram >= 0 ||
		   live_state.memcg[0] || live_state.subtree[0] ||
		   false;
	FILE *f;

	for (int i = 0; i < LIVE_STATE_NR_TMPDIRS; i++)
		any |= live_state.tmpdir[i][0] != '\0';

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
	fprintf(f, "pid %d %llu\n", (int)getpid(),
		(unsigned long long)live_pid_start_time(getpid()));
	if (live_state.tracefs[0])
		fprintf(f, "tracefs %s\n", live_state.tracefs);
	if (live_state.zram >= 0)
		fprintf(f, "zram %d %llu\n", live_state.zram,
			(unsigned long long)live_state.zram_bytes);
	if (live_state.memcg[0])
		fprintf(f, "memcg %s\n", live_state.memcg);
	if (live_state.subtree[0])
		fprintf(f, "cgroup_subtree %s memory\n", live_state.subtree);
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

/**
 * live_state_note_zram - remember (or, -1, forget) a zram device
 * @dev: its number
 * @bytes: the disksize the run gives it (before it is set)
 */
void live_state_note_zram(int dev, uint64_t bytes)
{
	live_state.zram = dev;
	live_state.zram_bytes = bytes;
	live_state_save();
}

/** live_state_note_memcg - remember (or, NULL, forget) the run's memcg. */
void live_state_note_memcg(const char *path)
{
	snprintf(live_state.memcg, sizeof(live_state.memcg), "%s", path ? path : "");
	live_state_save();
}

/**
 * live_state_note_subtree - remember (or, NULL, forget) a subtree_control
 * @dir: the cgroup v2 directory (the memcg's parent) in whose
 *       cgroup.subtree_control the run is about to write "+memory"
 */
void live_state_note_subtree(const char *dir)
{
	snprintf(live_state.subtree, sizeof(live_state.subtree), "%s", dir ? dir : "");
	live_state_save();
}

/**
 * live_state_note_tmpdir - remember (or, NULL, forget) a directory of files
 * @slot: LIVE_STATE_TMPDIR_PERF, _STRESS_NG or _WORKLOAD
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

/**
 * live_zram_remove - swap off, reset and remove /dev/zram@dev
 * @dev: the device
 * @err: where a warning goes, or NULL
 *
 * hot_remove answers EBUSY for a moment after a reset while udev still
 * probes the device: it is retried for up to a second.
 *
 * Context: root; may sleep.
 * Return: 0 when the device is gone, or -EBUSY.
 */
int live_zram_remove(int dev, FILE *err)
{
	char path[128], val[16];
	int ret = 0;

	snprintf(path, sizeof(path), "/dev/zram%d", dev);
	if (swapoff(path) && errno != EINVAL && errno != ENOENT && err)
		fprintf(err, "mmsim: warning: swapoff %s: %s\n", path, strerror(errno));
	snprintf(path, sizeof(path), "/sys/block/zram%d/reset", dev);
	live_write_file(path, "1");
	snprintf(val, sizeof(val), "%d", dev);
	snprintf(path, sizeof(path), "/sys/block/zram%d", dev);
	for (int i = 0; i < 20 && !access(path, F_OK); i++) {
		ret = live_write_file(LIVE_ZRAM_CONTROL "/hot_remove", val);
		if (ret != -EBUSY)
			break;
		usleep(50000);
	}
	if (!access(path, F_OK)) {
		if (err)
			fprintf(err, "mmsim: warning: could not remove /dev/zram%d: %s; "
				"remove it with echo %d > %s/hot_remove\n", dev,
				strerror(ret ? -ret : EBUSY), dev, LIVE_ZRAM_CONTROL);
		return -EBUSY;
	}
	return 0;
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
	live_state_note_zram(z->dev, bytes);
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
	live_state_note_zram(-1, 0);
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
		if (sscanf(buf, "pid %d %llu", &s->pid, &s->start_time) >= 1)
			continue;
		if (sscanf(buf, "zram %d %llu", &s->zram, &s->zram_bytes) >= 1)
			continue;
		if (sscanf(buf, "tracefs %511s", s->tracefs) == 1)
			continue;
		if (sscanf(buf, "memcg %511s", s->memcg) == 1)
			continue;
		if (sscanf(buf, "cgroup_subtree %511s %31s", s->subtree,
			   s->subtree_ctrl) >= 1)
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
 * live_pid_start_time - when a process started
 * @pid: the process
 *
 * Context: any.
 * Return: field 22 of /proc/PID/stat (clock ticks after boot), or 0 when
 * there is no such process.
 */
unsigned long long live_pid_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (live_read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%*u %*u %*d %*d %*d %*d %*d %*d %llu", &t) != 1)
		return 0;
	return t;
}

static void live_pid_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/comm");
	n = live_read_file(path, buf, len);
	if (n <= 0)
		buf[0] = '\0';
	else if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

/**
 * live_pid_is_ours - whether a state file's pid is a run still going
 * @pid: from the "pid" line
 * @start_time: its start time from the same line
 *
 * A pid is reused: only a process of this program ("mmsim", or the
 * caller's own name, as a test calls live mode in process) that started
 * at the recorded time is the run that wrote the file.
 *
 * Context: any.
 * Return: true when that run is alive.
 */
bool live_pid_is_ours(pid_t pid, unsigned long long start_time)
{
	char comm[64], self[64];

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return false;
	if (!start_time || live_pid_start_time(pid) != start_time)
		return false;
	live_pid_comm(pid, comm, sizeof(comm));
	live_pid_comm(0, self, sizeof(self));
	return !strcmp(comm, "mmsim") || (self[0] && !strcmp(comm, self));
}

/* A word of letters, digits and "+-_.", as THP settings' values are. */
static bool live_plain_word(const char *w, size_t max)
{
	size_t n = strlen(w);

	if (!n || n > max)
		return false;
	for (; *w; w++)
		if (!((*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z') ||
		      (*w >= '0' && *w <= '9') || strchr("+-_.", *w)))
			return false;
	return true;
}

static bool live_fs_is(const char *path, unsigned long magic)
{
	struct statfs sfs;

	return !statfs(path, &sfs) && (unsigned long)sfs.f_type == magic;
}

/*
 * The setting @path resolves to LIVE_THP_DIR/REL below the sys root, REL a
 * file live mode writes, and @value is one plain word.
 */
static bool live_state_setting_ok(const char *path, const char *value)
{
	char dir[512], rdir[PATH_MAX], rpath[PATH_MAX];
	size_t n;

	if (live_sys_path(dir, sizeof(dir), LIVE_THP_DIR) ||
	    !realpath(dir, rdir) || !realpath(path, rpath))
		return false;
	n = strlen(rdir);
	return !strncmp(rpath, rdir, n) && rpath[n] == '/' &&
	       live_setting_name_ok(rpath + n + 1) &&
	       live_plain_word(value, sizeof(((struct live_setting *)0)->saved) - 1);
}

/* A memory cgroup named mmsim-live-@pid, as live_memcg_create() makes. */
static bool live_state_memcg_ok(const char *path, int pid, char *real,
				size_t len)
{
	char rpath[PATH_MAX], want[32];
	const char *base;
	struct stat st;

	if (!realpath(path, rpath) || lstat(rpath, &st) || !S_ISDIR(st.st_mode))
		return false;
	base = strrchr(rpath, '/');
	snprintf(want, sizeof(want), "mmsim-live-%d", pid);
	if (!base || strcmp(base + 1, want))
		return false;
	if (!live_fs_is(rpath, LIVE_CGROUP2_MAGIC) &&
	    !live_fs_is(rpath, LIVE_CGROUP_MAGIC))
		return false;
	if (strlen(rpath) >= len)
		return false;
	memcpy(real, rpath, strlen(rpath) + 1);
	return true;
}

/*
 * "cgroup_subtree @dir @ctrl": @ctrl is "memory" and @dir, on cgroup2, is
 * the parent of the memcg line that was accepted (@memcg, resolved).
 */
static bool live_state_subtree_ok(const char *dir, const char *ctrl,
				  const char *memcg)
{
	char rdir[PATH_MAX];
	const char *slash = memcg ? strrchr(memcg, '/') : NULL;
	size_t n;

	if (strcmp(ctrl, "memory") || !slash || !realpath(dir, rdir) ||
	    !live_fs_is(rdir, LIVE_CGROUP2_MAGIC))
		return false;
	n = strlen(rdir);
	return (size_t)(slash - memcg) == n && !strncmp(memcg, rdir, n);
}

/* /dev/zram@dev with the disksize the run gave it (or none yet), unmounted. */
static bool live_state_zram_ok(int dev, unsigned long long bytes)
{
	char path[128], buf[64], mounts[65536], name[32];
	ssize_t n;

	if (dev < 0 || dev > 65535 || !bytes)
		return false;
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", dev);
	if (live_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	if (strtoull(buf, NULL, 10) != bytes && strtoull(buf, NULL, 10) != 0)
		return false;
	n = live_read_file("/proc/self/mounts", mounts, sizeof(mounts));
	snprintf(name, sizeof(name), "/dev/zram%d ", dev);
	return n >= 0 && !strstr(mounts, name);
}

/*
 * A workload file's files in @dir (src/workload/live.c): regular files
 * named wl-N or wl-N-T, nothing else.
 */
static void live_state_unlink_wl(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *p = de->d_name;
		char f[400];
		struct stat st;

		if (strncmp(p, "wl-", 3) || !p[3] || strspn(p + 3, "0123456789-") != strlen(p + 3))
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, p);
		if (!lstat(f, &st) && S_ISREG(st.st_mode))
			unlink(f);
	}
	closedir(d);
}

/* /tmp/mmsim-live-WORD itself: a directory, not a link, nothing above it. */
static bool live_state_tmpdir_ok(const char *dir)
{
	const char *w = dir + 16;
	struct stat st;

	if (strncmp(dir, "/tmp/mmsim-live-", 16) || !live_plain_word(w, 200) ||
	    strstr(w, ".."))
		return false;
	return !lstat(dir, &st) && S_ISDIR(st.st_mode);
}

/* The tracefs directory live_tracefs_open() mounts, with a tracefs there. */
static bool live_state_tracefs_ok(const char *dir)
{
	char want[512], rwant[PATH_MAX], rdir[PATH_MAX];

	if (live_sys_path(want, sizeof(want), "/sys/kernel/tracing") ||
	    !realpath(want, rwant) || !realpath(dir, rdir) || strcmp(rwant, rdir))
		return false;
	return live_fs_is(rdir, LIVE_TRACEFS_MAGIC);
}

static void live_state_refuse(FILE *out, const char *path, const char *what,
			      const char *value, const char *expected)
{
	fprintf(out, "mmsim: warning: state file %s: left alone: %s %s: "
		"expected %s\n", path, what, value, expected);
}

/**
 * live_state_recover - undo what a killed earlier run left, if anything
 * @out: where to say what was restored, and which lines were left alone
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
	char path[512], real[sizeof(((struct live_memcg *)0)->path)];
	int nr = 0;

	live_state_file(path, sizeof(path));
	if (live_read_file(path, text, sizeof(text)) <= 0)
		return 0;
	if (live_parse_state(text, &s)) {
		unlink(path);
		return 0;
	}
	if (s.pid != getpid() && live_pid_is_ours(s.pid, s.start_time)) {
		snprintf(msg, len, "another live run (pid %d) is in progress "
			 "(state file %s); wait for it to end", s.pid, path);
		return -EBUSY;
	}
	if (s.memcg[0] && !live_state_memcg_ok(s.memcg, s.pid, real, sizeof(real))) {
		char want[64];

		snprintf(want, sizeof(want), "a memory cgroup named mmsim-live-%d",
			 s.pid);
		live_state_refuse(out, path, "memcg", s.memcg, want);
	} else if (s.memcg[0]) {
		struct live_memcg cg = { .created = true };

		memcpy(cg.path, real, sizeof(cg.path));
		if (s.subtree[0] && live_state_subtree_ok(s.subtree, s.subtree_ctrl,
							  real)) {
			snprintf(cg.parent, sizeof(cg.parent), "%s", s.subtree);
			cg.enabled_memory = true;
			nr++;
		} else if (s.subtree[0]) {
			live_state_refuse(out, path, "cgroup_subtree", s.subtree,
					  "the memcg line's parent cgroup, and "
					  "\"memory\"");
		}
		s.subtree[0] = '\0';
		live_memcg_destroy(&cg);
		if (cg.subtree_err)
			fprintf(out, "mmsim: warning: could not write -memory to "
				"%s/cgroup.subtree_control: %s\n", cg.parent,
				strerror(cg.subtree_err));
		nr++;
	}
	if (s.subtree[0])
		live_state_refuse(out, path, "cgroup_subtree", s.subtree,
				  "the memcg line's parent cgroup, and \"memory\"");
	if (s.zram >= 0 && !live_state_zram_ok(s.zram, s.zram_bytes)) {
		char dev[32];

		snprintf(dev, sizeof(dev), "%d", s.zram);
		live_state_refuse(out, path, "zram", dev, "an unmounted zram "
				  "device of the disksize the run gave it");
	} else if (s.zram >= 0) {
		live_zram_remove(s.zram, out);
		nr++;
	}
	for (int i = s.nr_settings - 1; i >= 0; i--) {
		if (!live_state_setting_ok(s.setting[i][0], s.setting[i][1])) {
			live_state_refuse(out, path, "setting", s.setting[i][0],
					  "a THP setting live mode writes, below "
					  LIVE_THP_DIR ", and one word");
			continue;
		}
		if (live_write_file(s.setting[i][0], s.setting[i][1]))
			fprintf(out, "mmsim: warning: could not restore %s to '%s'\n",
				s.setting[i][0], s.setting[i][1]);
		nr++;
	}
	for (int t = 0; t < s.nr_tmpdirs; t++) {
		static const char *const files[] = { "lock.data", "lock.data.old",
			"record.out", "contention.out", "stress-ng.yaml",
			"stress-ng.out" };

		if (!live_state_tmpdir_ok(s.tmpdir[t])) {
			live_state_refuse(out, path, "tmpdir", s.tmpdir[t],
					  "a directory /tmp/mmsim-live-NAME");
			continue;
		}
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char f[400];

			snprintf(f, sizeof(f), "%s/%s", s.tmpdir[t], files[i]);
			unlink(f);
		}
		live_state_unlink_wl(s.tmpdir[t]);
		rmdir(s.tmpdir[t]);
		nr++;
	}
	if (s.tracefs[0] && !live_state_tracefs_ok(s.tracefs)) {
		live_state_refuse(out, path, "tracefs", s.tracefs,
				  "a tracefs mounted at /sys/kernel/tracing");
	} else if (s.tracefs[0]) {
		umount(s.tracefs);
		nr++;
	}
	unlink(path);
	fprintf(out, "mmsim: the live run %d ended without undoing its "
		"changes (killed?); restored %d of them from %s\n", s.pid, nr, path);
	return 0;
}
