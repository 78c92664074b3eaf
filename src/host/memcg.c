// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: a memory cgroup with a limit for one run (reclaim-tlb).
 *
 * Mirrors no kernel function; it uses the interface of mm/memcontrol.c:
 * cgroup v2 (memory.max, cgroup.procs, cgroup.kill) where the unified
 * hierarchy has the memory controller, else cgroup v1
 * (memory.limit_in_bytes, cgroup.procs).
 *
 * Where the cgroup goes.  cgroup v1: below the cgroup mmsim runs in, so
 * that every limit above mmsim still holds.  cgroup v2 forbids a cgroup
 * that holds processes to give a domain controller such as memory to its
 * children, and mmsim's own cgroup holds mmsim: the cgroup goes below the
 * nearest cgroup above it that delegates "memory" (cgroup.subtree_control)
 * and that mmsim may write, else below the nearest that can be made to
 * (the root cgroup, or one with no process in it), and mmsim writes
 * "+memory" there and "-memory" at the end, both noted in the state file.
 * On a machine that keeps every process in a leaf (a VM init's
 * /process_api/<id>, a systemd session scope) that is the root cgroup.
 * Only the workload processes are moved in; mmsim stays where it is.
 * Its name is "mmsim-live-<pid>" (the state file's rule).
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

#include "host/live_internal.h"

static const char *live_next_line(const char *line)
{
	line = strchr(line, '\n');
	return line ? line + 1 : NULL;
}

/* A cgroup2 mount (@version 2), or a cgroup v1 mount with "memory". */
static bool live_cgroup_type_ok(int version, const char *type, char *opts)
{
	char *tok, *save = NULL;

	if (version == 2)
		return !strcmp(type, "cgroup2");
	if (strcmp(type, "cgroup"))
		return false;
	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "memory"))
			return true;
	return false;
}

/*
 * Find a cgroup hierarchy's mount in /proc/self/mountinfo: its mount point
 * and the cgroup path mounted there (the "root" field: "/" unless a
 * subtree is bind-mounted).  Falls back to /proc/self/mounts (root "/").
 */
static int live_cgroup_mount(int version, char *mnt, size_t len, char *root,
			     size_t rootlen)
{
	static char buf[64 * 1024];
	char path[512];
	const char *line;

	if (!live_proc_path(path, sizeof(path), "/proc/self/mountinfo") &&
	    live_read_file(path, buf, sizeof(buf)) > 0) {
		for (line = buf; line && *line; line = live_next_line(line)) {
			char r[384], dir[384], type[32], opts[512];
			const char *sep = strstr(line, " - ");
			const char *eol = strchr(line, '\n');

			if (!sep || (eol && sep > eol) ||
			    sscanf(line, "%*s %*s %*s %383s %383s", r, dir) != 2 ||
			    sscanf(sep + 3, "%31s %*s %511s", type, opts) != 2)
				continue;
			if (!live_cgroup_type_ok(version, type, opts))
				continue;
			snprintf(mnt, len, "%s", dir);
			snprintf(root, rootlen, "%s", r);
			return 0;
		}
		return -ENOENT;
	}
	if (live_proc_path(path, sizeof(path), "/proc/self/mounts") ||
	    live_read_file(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (line = buf; line && *line; line = live_next_line(line)) {
		char dev[128], dir[384], type[32], opts[512];

		if (sscanf(line, "%127s %383s %31s %511s", dev, dir, type, opts) != 4)
			continue;
		if (live_cgroup_type_ok(version, type, opts)) {
			snprintf(mnt, len, "%s", dir);
			snprintf(root, rootlen, "/");
			return 0;
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

/* Whether a cgroup directory's cgroup.procs lists any process. */
static bool live_cgroup_has_procs(const char *dir)
{
	char path[1100], buf[64];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return live_read_file(path, buf, sizeof(buf)) > 0 && buf[0] != '\n';
}

/* "/a/b" -> "/a"; "/a" -> "/".  Returns false at "/". */
static bool live_cgroup_up(char *cg)
{
	char *slash = strrchr(cg, '/');

	if (!slash || !strcmp(cg, "/"))
		return false;
	if (slash == cg)
		slash[1] = '\0';
	else
		*slash = '\0';
	return true;
}

/*
 * cgroup v2: the nearest cgroup, from mmsim's own up to the top of the
 * mount, that gives its children the memory controller already
 * ("memory" in its cgroup.subtree_control) and that mmsim may write; else
 * the nearest that can be made to (memory in its cgroup.controllers, no
 * process in it unless it is the root: a cgroup that holds processes
 * gives no domain controller to children), *enable set.  mmsim's own
 * cgroup holds mmsim, so on a machine that keeps every process in a leaf
 * this is the root cgroup.
 */
static int live_memcg_find_v2(const char *mnt, const char *mroot,
			      const char *self, char *dir, size_t len,
			      bool *enable, char *err, size_t errlen)
{
	char cg[512], d[1024], f[1100];
	size_t rl = strcmp(mroot, "/") ? strlen(mroot) : 0;

	snprintf(f, sizeof(f), "%s/cgroup.controllers", mnt);
	if (!live_file_has_word(f, "memory"))
		return -ENOENT;		/* memory is not on the v2 hierarchy */
	if (rl && (strncmp(self, mroot, rl) || (self[rl] && self[rl] != '/')))
		snprintf(cg, sizeof(cg), "/");	/* not below the mount: its top */
	else
		snprintf(cg, sizeof(cg), "%s", self[rl] ? self + rl : "/");
	for (int pass = 0; pass < 2; pass++) {
		char walk[512];

		memcpy(walk, cg, sizeof(walk));
		do {
			bool top = !strcmp(walk, "/");

			snprintf(d, sizeof(d), "%s%s", mnt, top ? "" : walk);
			if (access(d, W_OK))
				continue;
			snprintf(f, sizeof(f), "%s/cgroup.subtree_control", d);
			if (pass == 0 && live_file_has_word(f, "memory")) {
				*enable = false;
				snprintf(dir, len, "%s", d);
				return 0;
			}
			if (pass == 1 && !access(f, W_OK) &&
			    (top ? !rl : !live_cgroup_has_procs(d))) {
				snprintf(f, sizeof(f), "%s/cgroup.controllers", d);
				if (!top && !live_file_has_word(f, "memory"))
					continue;
				*enable = true;
				snprintf(dir, len, "%s", d);
				return 0;
			}
		} while (live_cgroup_up(walk));
	}
	snprintf(err, errlen, "reclaim-tlb needs a memory cgroup, and no cgroup "
		 "v2 from mmsim's own (%s, which holds mmsim, so cgroup v2 lets "
		 "it give no controller to a child) up to %s delegates \"memory\" "
		 "in its cgroup.subtree_control or can be made to by mmsim; run "
		 "mmsim as root (it then makes the cgroup below the root "
		 "cgroup), or from a child of a cgroup D you may write: mkdir "
		 "D/shell && echo $$ > D/shell/cgroup.procs && echo +memory > "
		 "D/cgroup.subtree_control", self, mnt);
	return -EACCES;
}

/**
 * live_memcg_find_parent - where a memory cgroup for the run can be made
 * @dir: the directory to make it in
 * @len: size of @dir
 * @version: 2 or 1
 * @enable: (v2) set when "memory" must first be written to @dir's
 *          cgroup.subtree_control (live_memcg_create() does, and undoes)
 * @err: when none can be made, one line saying what is missing and how
 *       to provide it
 * @errlen: size of @err
 *
 * cgroup v2 when the v2 hierarchy has the memory controller (the nearest
 * cgroup from mmsim's own upward that delegates it or can: see
 * live_memcg_find_v2()), else mmsim's own cgroup in the v1 memory
 * hierarchy (v1 has no rule against processes in inner cgroups).
 *
 * Context: may block.
 * Return: 0, or -ENOENT (no memory controller) or -EACCES (none writable).
 */
int live_memcg_find_parent(char *dir, size_t len, int *version, bool *enable,
			   char *err, size_t errlen)
{
	char mnt[384], mroot[384], self[512];
	int ret;

	*enable = false;
	if (!live_cgroup_mount(2, mnt, sizeof(mnt), mroot, sizeof(mroot)) &&
	    !live_cgroup_self(2, self, sizeof(self))) {
		ret = live_memcg_find_v2(mnt, mroot, self, dir, len, enable, err,
					 errlen);
		if (ret != -ENOENT) {
			*version = 2;
			return ret;
		}
	}
	if (!live_cgroup_mount(1, mnt, sizeof(mnt), mroot, sizeof(mroot)) &&
	    !live_cgroup_self(1, self, sizeof(self))) {
		size_t rl = strcmp(mroot, "/") ? strlen(mroot) : 0;
		const char *rel = strncmp(self, mroot, rl) ? "" : self + rl;

		snprintf(dir, len, "%s%s", mnt, strcmp(rel, "/") ? rel : "");
		*version = 1;
		if (access(dir, W_OK)) {
			snprintf(err, errlen, "reclaim-tlb needs to create a memory "
				 "cgroup in %s, which is not writable; run as root "
				 "or delegate that cgroup to your user", dir);
			return -EACCES;
		}
		return 0;
	}
	snprintf(err, errlen, "reclaim-tlb needs a memory cgroup controller, "
		 "and none is available to mmsim (no cgroup v2 hierarchy with "
		 "\"memory\" in its root's cgroup.controllers, no cgroup v1 "
		 "\"memory\" mount); enable it, e.g. boot with "
		 "cgroup_enable=memory");
	return -ENOENT;
}

/**
 * live_memcg_made - called right after the run's cgroup directory is made
 * @path: the directory
 *
 * Does nothing.  tests/test_memcg.c defines its own, which creates the
 * interface files (memory.max, cgroup.procs) that the kernel creates in a
 * new cgroup, since its cgroup tree is plain directories.
 */
__attribute__((weak)) void live_memcg_made(const char *path)
{
	(void)path;
}

/**
 * live_memcg_create - make the run's memory cgroup and set its limit
 * @cg: filled with its path and version, and, when mmsim had to enable
 *      the memory controller in the parent's cgroup.subtree_control, the
 *      parent (live_memcg_destroy() disables it again)
 * @limit: the limit in bytes (memory.max or memory.limit_in_bytes)
 * @err: one line on failure
 * @errlen: size of @err
 *
 * Order, so that a SIGKILL at any point leaves the state file able to
 * undo it: the directory is made and noted; the parent's subtree_control
 * is noted, then written.
 *
 * Context: may block.
 * Return: 0, or a negative errno.
 */
int live_memcg_create(struct live_memcg *cg, uint64_t limit, char *err,
		      size_t errlen)
{
	char parent[512], file[640], val[32];
	bool enable;
	int ret;

	memset(cg, 0, sizeof(*cg));
	ret = live_memcg_find_parent(parent, sizeof(parent), &cg->version,
				     &enable, err, errlen);
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
	live_memcg_made(cg->path);
	if (enable) {
		snprintf(cg->parent, sizeof(cg->parent), "%s", parent);
		cg->enabled_memory = true;
		live_state_note_subtree(parent);
		snprintf(file, sizeof(file), "%.600s/cgroup.subtree_control", parent);
		ret = live_write_file(file, "+memory");
		if (ret) {
			cg->enabled_memory = false;
			live_state_note_subtree(NULL);
			snprintf(err, errlen, "cannot enable the memory controller "
				 "in %s: %s", file, strerror(-ret));
			live_memcg_destroy(cg);
			return ret;
		}
	}
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
	/*
	 * Lift the limit first: killed workers that swap in on their way
	 * out (and a swapoff of the run's zram that comes before the memcg
	 * is gone) would be charged against it, and the memcg OOM killer
	 * then fails swapoff with ENOMEM and leaves the device in use, as
	 * another session's run on this machine did (dmesg: "mmsim invoked
	 * oom-killer ... __do_sys_swapoff", /dev/zram1 left on).
	 */
	{
		char file[640];

		snprintf(file, sizeof(file), "%s/memory.max", cg->path);
		live_write_file(file, "max");
		snprintf(file, sizeof(file), "%s/memory.limit_in_bytes", cg->path);
		live_write_file(file, "-1");
	}
	for (int i = 0; i < 500; i++) {
		if (live_memcg_nr_procs(cg, true)) {
			ret = -EBUSY;
			nanosleep(&ts, NULL);
			continue;
		}
		if (cg->enabled_memory) {
			char file[640];

			/* before the rmdir, so that the state file's memcg
			 * line still vouches for this one (state.c) */
			snprintf(file, sizeof(file), "%.600s/cgroup.subtree_control",
				 cg->parent);
			cg->subtree_err = -live_write_file(file, "-memory");
			cg->enabled_memory = false;
			live_state_note_subtree(NULL);
		}
		if (!rmdir(cg->path) || errno == ENOENT) {
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
