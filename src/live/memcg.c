// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: a memory cgroup with a limit for one run (reclaim-tlb).
 *
 * Mirrors no kernel function; it uses the interface of mm/memcontrol.c:
 * cgroup v2 (memory.max, cgroup.procs, cgroup.kill) where the unified
 * hierarchy has the memory controller, else cgroup v1
 * (memory.limit_in_bytes, cgroup.procs).
 *
 * Where the cgroup goes: below the cgroup mmsim itself runs in, so that
 * every limit above mmsim still holds for the workload and nothing outside
 * mmsim's own subtree changes.  Its name is "mmsim-live-<pid>".
 *
 * Lifetime: live_memcg_create() makes it; the workload processes join it
 * before they allocate; live_memcg_destroy() kills whatever is still in
 * it, waits until it is empty and removes it.  It is called on every way
 * out of a run.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/live_internal.h"

static const char *live_next_line(const char *line)
{
	line = strchr(line, '\n');
	return line ? line + 1 : NULL;
}

/* Find the mount point of a cgroup hierarchy in /proc/self/mounts. */
static int live_cgroup_mount(int version, char *mnt, size_t len)
{
	static char buf[64 * 1024];
	char path[512];
	const char *line;

	if (live_proc_path(path, sizeof(path), "/proc/self/mounts") ||
	    live_read_file(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (line = buf; line && *line; line = live_next_line(line)) {
		char dev[128], dir[384], type[32], opts[512];

		if (sscanf(line, "%127s %383s %31s %511s", dev, dir, type, opts) != 4)
			continue;
		if (version == 2 && !strcmp(type, "cgroup2")) {
			snprintf(mnt, len, "%s", dir);
			return 0;
		}
		if (version == 1 && !strcmp(type, "cgroup")) {
			char *tok, *save = NULL;

			for (tok = strtok_r(opts, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "memory")) {
					snprintf(mnt, len, "%s", dir);
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

/* Our own cgroup path in a hierarchy, from /proc/self/cgroup. */
static int live_cgroup_self(int version, char *out, size_t len)
{
	char path[512], buf[4096];
	const char *line;

	if (live_proc_path(path, sizeof(path), "/proc/self/cgroup") ||
	    live_read_file(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (line = buf; line && *line; line = live_next_line(line)) {
		const char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *end = c2 ? strchr(c2, '\n') : NULL;
		char ctrls[256];
		size_t n;

		if (!c2)
			continue;
		n = (size_t)(c2 - c1 - 1);
		if (n >= sizeof(ctrls))
			continue;
		memcpy(ctrls, c1 + 1, n);
		ctrls[n] = '\0';
		if ((version == 2 && n == 0 && !strncmp(line, "0:", 2)) ||
		    (version == 1 && (!strcmp(ctrls, "memory") ||
				      strstr(ctrls, "memory,") ||
				      strstr(ctrls, ",memory")))) {
			n = end ? (size_t)(end - c2 - 1) : strlen(c2 + 1);
			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(out, c2 + 1, n);
			out[n] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}

static bool live_file_has_word(const char *path, const char *word)
{
	char buf[1024];
	char *tok, *save = NULL;

	if (live_read_file(path, buf, sizeof(buf)) < 0)
		return false;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

/**
 * live_memcg_find_parent - where a memory cgroup for the run can be made
 * @dir: the directory of mmsim's own memory cgroup
 * @len: size of @dir
 * @version: 2 or 1
 * @err: when none can be made, one line saying what is missing and how
 *       to provide it
 * @errlen: size of @err
 *
 * Context: may block.
 * Return: 0, or -ENOENT (no memory controller) or -EACCES (not writable).
 */
int live_memcg_find_parent(char *dir, size_t len, int *version, char *err,
			   size_t errlen)
{
	char mnt[384], self[512], path[1024];

	if (!live_cgroup_mount(2, mnt, sizeof(mnt)) &&
	    !live_cgroup_self(2, self, sizeof(self))) {
		/* Children get the memory controller only if the parent
		 * delegates it in its cgroup.subtree_control. */
		snprintf(path, sizeof(path), "%s%s/cgroup.subtree_control",
			 mnt, strcmp(self, "/") ? self : "");
		if (live_file_has_word(path, "memory")) {
			snprintf(dir, len, "%s%s", mnt, strcmp(self, "/") ? self : "");
			*version = 2;
			goto check_access;
		}
	}
	if (!live_cgroup_mount(1, mnt, sizeof(mnt)) &&
	    !live_cgroup_self(1, self, sizeof(self))) {
		snprintf(dir, len, "%s%s", mnt, strcmp(self, "/") ? self : "");
		*version = 1;
		goto check_access;
	}
	snprintf(err, errlen, "reclaim-tlb needs a memory cgroup controller, "
		 "and none is available to mmsim (no cgroup v2 hierarchy with "
		 "\"memory\" in mmsim's cgroup.subtree_control, no cgroup v1 "
		 "\"memory\" mount); enable it, e.g. boot with "
		 "cgroup_enable=memory or run mmsim under "
		 "`systemd-run --scope -p Delegate=yes`");
	return -ENOENT;

check_access:
	if (access(dir, W_OK)) {
		snprintf(err, errlen, "reclaim-tlb needs to create a memory "
			 "cgroup in %s, which is not writable; run as root "
			 "or delegate that cgroup to your user", dir);
		return -EACCES;
	}
	return 0;
}

/**
 * live_memcg_create - make the run's memory cgroup and set its limit
 * @cg: filled with its path and version
 * @limit: the limit in bytes (memory.max or memory.limit_in_bytes)
 * @err: one line on failure
 * @errlen: size of @err
 *
 * Context: may block.
 * Return: 0, or a negative errno.
 */
int live_memcg_create(struct live_memcg *cg, uint64_t limit, char *err,
		      size_t errlen)
{
	char parent[512], file[640], val[32];
	int ret;

	memset(cg, 0, sizeof(*cg));
	ret = live_memcg_find_parent(parent, sizeof(parent), &cg->version,
				     err, errlen);
	if (ret)
		return ret;
	snprintf(cg->path, sizeof(cg->path), "%.480s/mmsim-live-%d", parent,
		 (int)getpid());
	if (mkdir(cg->path, 0755)) {
		ret = -errno;
		snprintf(err, errlen, "cannot create memory cgroup %s: %s",
			 cg->path, strerror(errno));
		return ret;
	}
	cg->created = true;
	live_state_note_memcg(cg->path);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)limit);
	snprintf(file, sizeof(file), "%s/%s", cg->path,
		 cg->version == 2 ? "memory.max" : "memory.limit_in_bytes");
	ret = live_write_file(file, val);
	if (ret) {
		snprintf(err, errlen, "cannot set the limit in %s: %s", file,
			 strerror(-ret));
		live_memcg_destroy(cg);
		return ret;
	}
	return 0;
}

/**
 * live_memcg_attach - move a process into the run's cgroup
 * @cg: the cgroup
 * @pid: the process; 0 means the caller
 *
 * Context: may block; called by each workload process before it allocates.
 * Return: 0, or a negative errno.
 */
int live_memcg_attach(const struct live_memcg *cg, pid_t pid)
{
	char file[640], val[32];

	snprintf(file, sizeof(file), "%s/cgroup.procs", cg->path);
	snprintf(val, sizeof(val), "%d", (int)(pid ? pid : getpid()));
	return live_write_file(file, val);
}

static int live_memcg_nr_procs(const struct live_memcg *cg, bool kill_them)
{
	char file[640], buf[8192];
	char *tok, *save = NULL;
	int nr = 0;

	snprintf(file, sizeof(file), "%s/cgroup.procs", cg->path);
	if (live_read_file(file, buf, sizeof(buf)) < 0)
		return 0;
	for (tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		nr++;
		if (kill_them)
			kill((pid_t)atoi(tok), SIGKILL);
	}
	return nr;
}

/**
 * live_memcg_destroy - kill what is left in the cgroup and remove it
 * @cg: the cgroup; created is cleared once it is gone
 *
 * Context: may block for up to about five seconds while killed processes
 * exit.  Safe to call when nothing was created.
 * Return: 0, or a negative errno when the directory could not be removed.
 */
int live_memcg_destroy(struct live_memcg *cg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int ret = 0;

	if (!cg->created)
		return 0;
	for (int i = 0; i < 500; i++) {
		if (live_memcg_nr_procs(cg, true)) {
			ret = -EBUSY;
		} else if (!rmdir(cg->path) || errno == ENOENT) {
			cg->created = false;
			live_state_note_memcg(NULL);
			return 0;
		} else {
			ret = -errno;
		}
		nanosleep(&ts, NULL);
	}
	return ret;
}
