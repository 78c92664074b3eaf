// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where live mode puts reclaim-tlb's memory cgroup (src/host/memcg.c), on
 * fake cgroup trees: a directory under /tmp with cgroup.controllers,
 * cgroup.subtree_control and cgroup.procs files, and a fake
 * /proc/self/cgroup and /proc/self/mountinfo (MMSIM_LIVE_PROC_ROOT).
 *
 * - cgroup v2, mmsim in a leaf that holds processes (a VM init's
 *   /process_api/<id>) and no cgroup delegating memory: the memcg is made
 *   below the root, "+memory" is written to the root's subtree_control and
 *   noted in the state file, only the workload's pid is written to the
 *   memcg's cgroup.procs, and at the end "-memory" is written back and the
 *   directory removed;
 * - cgroup v2 with a delegated ancestor (a systemd slice with "memory" in
 *   its subtree_control): the memcg goes there and no subtree_control is
 *   written;
 * - the hybrid layout of the development VM (cgroup2 without memory, v1
 *   memory hierarchy): the old place, below mmsim's own v1 cgroup;
 * - no cgroup that can delegate: one line, which names no command that
 *   cannot work.
 *
 * A fake tree is not a kernel: writing "+memory" to a fake subtree_control
 * leaves "+memory" in it, and the files in a fake cgroup must be removed
 * before rmdir: the test makes and removes them where the kernel would
 * (live_memcg_made(), kernel_empties()).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/live_internal.h"

static char root[64];
static char state_file[128];

static void mkfile(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* A cgroup v2 directory: its three files. */
static void mkcg(const char *rel, const char *controllers, const char *subtree,
		 const char *procs)
{
	char f[256];

	mkdirs(rel);
	snprintf(f, sizeof(f), "%s/cgroup.controllers", rel);
	mkfile(f, controllers);
	snprintf(f, sizeof(f), "%s/cgroup.subtree_control", rel);
	mkfile(f, subtree);
	snprintf(f, sizeof(f), "%s/cgroup.procs", rel);
	mkfile(f, procs);
}

static const char *slurp(const char *fmt, ...)
{
	static char buf[4096];
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (live_read_file(path, buf, sizeof(buf)) < 0)
		return NULL;
	return buf;
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/mmsim-memcg-test-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkdirs("proc");
	mkdirs("proc/self");
	setenv("MMSIM_LIVE_PROC_ROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	unsetenv("MMSIM_LIVE_PROC_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	unlink(state_file);
	return 0;
}

/* The fake mountinfo: cgroup2 at ROOT/cg2 (mount root @mroot), and v1 memory. */
static void fake_mounts(const char *mroot, bool v1)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "22 1 0:20 / /proc rw,nosuid - proc proc rw\n"
		 "30 25 0:26 %s %s/cg2 rw,nosuid,nodev - cgroup2 cgroup2 rw\n"
		 "%s%s%s",
		 mroot, root,
		 v1 ? "35 25 0:31 / " : "", v1 ? root : "",
		 v1 ? "/v1mem rw,relatime - cgroup cgroup rw,memory\n" : "");
	mkfile("proc/self/mountinfo", text);
}

static pid_t start_sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/* The kernel's part of mkdir in a cgroup file system (memcg.c's hook). */
void live_memcg_made(const char *path)
{
	static const char *const files[] = { "cgroup.procs", "memory.max",
		"memory.limit_in_bytes" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char f[700];
		FILE *fp;

		snprintf(f, sizeof(f), "%s/%s", path, files[i]);
		fp = fopen(f, "w");
		assert_non_null(fp);
		fclose(fp);
	}
}

/*
 * What the kernel does on its own: the killed workload leaves the
 * cgroup, and a cgroup's interface files go with its directory.
 */
static void kernel_empties(const char *cg, pid_t pid)
{
	char path[700];

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", cg);
	unlink(path);
}

/* mmsim in /process_api/<id>, which holds it; nothing delegates memory. */
static void test_v2_leaf_root_enabled(void **state)
{
	struct live_memcg cg;
	char err[512], self[64], want[256], line[300];
	const char *text;
	struct stat sb;
	pid_t pid;

	fake_mounts("/", false);
	mkfile("proc/self/cgroup", "0::/process_api/b8146860\n");
	mkcg("cg2", "cpuset cpu io memory pids\n", "cpu pids\n", "1\n");
	mkcg("cg2/process_api", "cpu pids\n", "cpu pids\n", "");
	snprintf(self, sizeof(self), "%d\n", (int)getpid());
	mkcg("cg2/process_api/b8146860", "cpu pids\n", "", self);

	assert_int_equal(live_memcg_create(&cg, 64 << 20, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/cg2/mmsim-live-%d", root, (int)getpid());
	assert_string_equal(cg.path, want);		/* below the root */
	assert_int_equal(cg.version, 2);
	assert_true(cg.enabled_memory);
	assert_string_equal(slurp("%s/cg2/cgroup.subtree_control", root), "+memory");
	assert_string_equal(slurp("%s/memory.max", cg.path), "67108864");
	/* the state file names both, so that a SIGKILL is undone */
	text = slurp("%s", state_file);
	assert_non_null(text);
	snprintf(line, sizeof(line), "memcg %s\n", want);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line), "cgroup_subtree %s/cg2 memory\n", root);
	assert_non_null(strstr(text, line));

	/* only the workload moves; mmsim stays in its leaf */
	pid = start_sleeper();
	assert_int_equal(live_memcg_attach(&cg, pid), 0);
	snprintf(line, sizeof(line), "%d", (int)pid);
	assert_string_equal(slurp("%s/cgroup.procs", cg.path), line);
	assert_string_equal(slurp("%s/cg2/process_api/b8146860/cgroup.procs", root),
			    self);

	kernel_empties(cg.path, pid);
	assert_int_equal(live_memcg_destroy(&cg), 0);
	assert_int_equal(stat(want, &sb), -1);
	assert_false(cg.created);
	assert_false(cg.enabled_memory);
	assert_int_equal(cg.subtree_err, 0);
	assert_string_equal(slurp("%s/cg2/cgroup.subtree_control", root), "-memory");
	assert_null(slurp("%s", state_file));		/* nothing left to undo */
}

/* A delegated ancestor (memory in its subtree_control): used as it is. */
static void test_v2_delegated_ancestor(void **state)
{
	char dir[512], want[256], self[64];
	bool enable = true;
	int version = 0;

	fake_mounts("/", false);
	mkfile("proc/self/cgroup", "0::/user.slice/user-1000.slice/session-3.scope\n");
	mkcg("cg2", "cpu memory pids\n", "cpu memory pids\n", "1\n");
	mkcg("cg2/user.slice", "cpu memory pids\n", "memory pids\n", "");
	mkcg("cg2/user.slice/user-1000.slice", "memory pids\n", "memory pids\n", "");
	snprintf(self, sizeof(self), "%d\n", (int)getpid());
	mkcg("cg2/user.slice/user-1000.slice/session-3.scope", "memory pids\n", "",
	     self);
	assert_int_equal(live_memcg_find_parent(dir, sizeof(dir), &version, &enable,
						want, sizeof(want)), 0);
	snprintf(want, sizeof(want), "%s/cg2/user.slice/user-1000.slice", root);
	assert_string_equal(dir, want);
	assert_int_equal(version, 2);
	assert_false(enable);

	/*
	 * None delegates: the nearest empty one that has memory to give.
	 * On a kernel that is a user's delegated subtree below a parent that
	 * delegates memory but that mmsim may not write; a test run as root
	 * cannot be refused access, so here the root delegates nothing.
	 */
	mkfile("cg2/cgroup.subtree_control", "cpu pids\n");
	mkfile("cg2/user.slice/cgroup.subtree_control", "pids\n");
	mkfile("cg2/user.slice/user-1000.slice/cgroup.controllers", "pids\n");
	mkfile("cg2/user.slice/user-1000.slice/cgroup.subtree_control", "pids\n");
	assert_int_equal(live_memcg_find_parent(dir, sizeof(dir), &version, &enable,
						want, sizeof(want)), 0);
	snprintf(want, sizeof(want), "%s/cg2/user.slice", root);
	assert_string_equal(dir, want);
	assert_true(enable);
	/* ... but not one that holds processes: then the root */
	mkfile("cg2/user.slice/cgroup.procs", "4242\n");
	assert_int_equal(live_memcg_find_parent(dir, sizeof(dir), &version, &enable,
						want, sizeof(want)), 0);
	snprintf(want, sizeof(want), "%s/cg2", root);
	assert_string_equal(dir, want);
	assert_true(enable);
}

/* The development VM: cgroup2 without memory, the v1 memory hierarchy. */
static void test_v1_hybrid(void **state)
{
	struct live_memcg cg;
	char err[512], want[256];
	struct stat sb;
	pid_t pid;

	fake_mounts("/", true);
	mkfile("proc/self/cgroup", "4:memory:/process_api/b8146860\n"
	       "1:cpu:/\n0::/\n");
	mkcg("cg2", "hugetlb\n", "", "1\n");
	mkdirs("v1mem");
	mkdirs("v1mem/process_api");
	mkdirs("v1mem/process_api/b8146860");
	assert_int_equal(live_memcg_create(&cg, 16 << 20, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/v1mem/process_api/b8146860/mmsim-live-%d",
		 root, (int)getpid());
	assert_string_equal(cg.path, want);		/* below mmsim's own */
	assert_int_equal(cg.version, 1);
	assert_false(cg.enabled_memory);
	assert_string_equal(slurp("%s/memory.limit_in_bytes", cg.path), "16777216");
	assert_null(strstr(slurp("%s", state_file), "cgroup_subtree"));
	pid = start_sleeper();
	assert_int_equal(live_memcg_attach(&cg, pid), 0);
	kernel_empties(cg.path, pid);
	assert_int_equal(live_memcg_destroy(&cg), 0);
	assert_int_equal(stat(want, &sb), -1);
}

/* Nothing can delegate memory: one line, and no systemd-run suggestion. */
static void test_v2_nowhere(void **state)
{
	char dir[512], err[1024], self[64];
	bool enable;
	int version;

	/* a container's view: the mount's top is /ct, itself holding processes */
	fake_mounts("/ct", false);
	mkfile("proc/self/cgroup", "0::/ct/app\n");
	mkcg("cg2", "cpu memory pids\n", "cpu pids\n", "1\n");
	snprintf(self, sizeof(self), "%d\n", (int)getpid());
	mkcg("cg2/app", "cpu pids\n", "", self);
	assert_int_equal(live_memcg_find_parent(dir, sizeof(dir), &version, &enable,
						err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "/ct/app"));
	assert_non_null(strstr(err, "holds mmsim"));
	assert_non_null(strstr(err, "as root"));
	assert_null(strstr(err, "systemd-run"));
	assert_null(strchr(err, '\n'));
}

/* The state file's cgroup_subtree line is read back. */
static void test_state_subtree_line(void **state)
{
	static struct live_saved_state s;

	assert_int_equal(live_parse_state("pid 12 34\n"
					  "memcg /sys/fs/cgroup/mmsim-live-12\n"
					  "cgroup_subtree /sys/fs/cgroup memory\n", &s), 0);
	assert_string_equal(s.memcg, "/sys/fs/cgroup/mmsim-live-12");
	assert_string_equal(s.subtree, "/sys/fs/cgroup");
	assert_string_equal(s.subtree_ctrl, "memory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v2_leaf_root_enabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_delegated_ancestor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_hybrid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_nowhere, setup, teardown),
		cmocka_unit_test(test_state_subtree_line),
	};

	snprintf(state_file, sizeof(state_file), "/tmp/mmsim-memcg-test-state-%d",
		 (int)getpid());
	setenv("MMSIM_LIVE_STATE", state_file, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
