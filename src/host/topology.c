// SPDX-License-Identifier: GPL-2.0-only
/*
 * This machine's CPU topology: which CPUs there are, their packages and
 * cores, the NUMA nodes, and what /proc/cpuinfo says of the clock, the
 * model and a hypervisor.  `mmsim calibrate` (cal_topology()) and live
 * mode's profile "host" (live_host_profile()) both read it here.
 *
 *   /sys/devices/system/cpu/cpuN/topology/physical_package_id, core_id
 *   /sys/devices/system/node/nodeN
 *   /proc/cpuinfo: "cpu MHz", "model name", "flags" (the first CPU's)
 *
 * Mirrors no kernel function; the files are the kernel's
 * (Documentation/ABI/stable/sysfs-devices-system-cpu, topology.rst).
 * /sys is read below a root the caller names (each caller's fake for
 * tests: MMSIM_CALIBRATE_SYS_ROOT for calibrate, which must not see live
 * mode's THP-only fake, MMSIM_LIVE_SYS_ROOT for the host profile); /proc
 * below MMSIM_LIVE_PROC_ROOT (live_proc_path()).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/topology.h"
#include "host/live_internal.h"

/**
 * host_sys_path - the path of a /sys file below a root
 * @buf: where to write the path
 * @len: size of @buf
 * @root: the fake /sys's parent, or NULL for the machine's own
 * @abs: the absolute path on a real machine, "/sys/..."
 *
 * Context: any.
 * Return: 0, or -ENAMETOOLONG.
 */
int host_sys_path(char *buf, size_t len, const char *root, const char *abs)
{
	int n = snprintf(buf, len, "%s%s", root ? root : "", abs);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int host_read_int(const char *root, const char *abs, long *v)
{
	char path[512], buf[64];

	if (host_sys_path(path, sizeof(path), root, abs) ||
	    live_read_file(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	*v = strtol(buf, NULL, 10);
	return 0;
}

static void host_read_cpuinfo(struct host_topology *t)
{
	static char cpuinfo[1 << 20];
	char path[512];

	snprintf(t->model, sizeof(t->model), "unknown CPU");
	if (!live_proc_path(path, sizeof(path), "/proc/cpuinfo") &&
	    live_read_file(path, cpuinfo, sizeof(cpuinfo)) > 0) {
		const char *m = strstr(cpuinfo, "model name");
		const char *c = strstr(cpuinfo, "cpu MHz");
		const char *f = strstr(cpuinfo, "\nflags");
		const char *fend = f ? strchr(f + 1, '\n') : NULL;
		const char *h = f ? strstr(f, " hypervisor") : NULL;

		if (m && (m = strchr(m, ':'))) {
			m++;
			while (*m == ' ')
				m++;
			snprintf(t->model, sizeof(t->model), "%.*s",
				 (int)strcspn(m, "\n"), m);
		}
		if (c && (c = strchr(c, ':')) && sscanf(c + 1, "%lf", &t->mhz) != 1)
			t->mhz = 0;
		t->hypervisor = h && (!fend || h < fend);
	}
}

/**
 * host_topology_read - this machine's CPUs, packages, cores and nodes
 * @t: filled
 * @sys_root: the fake /sys's parent, or NULL for the machine's own
 * @allowed: only these CPUs (calibrate: those it may run on), or NULL for
 *           every CPU /sys lists
 *
 * A CPU counts when both its topology files can be read (an offline CPU
 * has none).  Sockets are the distinct packages, cores the distinct
 * (package, core) pairs; where none is found each count is 1.
 *
 * Context: may block.
 * Return: 0, or -ENODEV when no CPU counts (@t then describes one CPU).
 */
int host_topology_read(struct host_topology *t, const char *sys_root,
		       const cpu_set_t *allowed)
{
	char abs[160], path[512];
	int nr_cores = 0, nr_pkgs = 0;
	struct dirent *de;
	DIR *d;

	memset(t, 0, sizeof(*t));
	for (int cpu = 0; cpu < HOST_MAX_CPUS; cpu++) {
		long p, c;

		if (allowed && (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, allowed)))
			continue;
		snprintf(abs, sizeof(abs),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
		if (host_read_int(sys_root, abs, &p))
			continue;
		snprintf(abs, sizeof(abs), "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		if (host_read_int(sys_root, abs, &c))
			continue;
		t->cpu[t->nr_cpus] = cpu;
		t->pkg[t->nr_cpus] = (int)p;
		t->core[t->nr_cpus] = (int)c;
		t->nr_cpus++;
	}
	for (int i = 0; i < t->nr_cpus; i++) {
		bool new_core = true, new_pkg = true;

		for (int j = 0; j < i; j++) {
			new_pkg &= t->pkg[j] != t->pkg[i];
			new_core &= !(t->pkg[j] == t->pkg[i] && t->core[j] == t->core[i]);
		}
		nr_cores += new_core;
		nr_pkgs += new_pkg;
	}
	t->sockets = nr_pkgs ? nr_pkgs : 1;
	t->threads_per_core = nr_cores && t->nr_cpus / nr_cores ? t->nr_cpus / nr_cores : 1;
	t->cores_per_socket = nr_cores / t->sockets ? nr_cores / t->sockets : 1;
	if (!host_sys_path(path, sizeof(path), sys_root, "/sys/devices/system/node") &&
	    (d = opendir(path))) {
		while ((de = readdir(d)))
			t->nodes += !strncmp(de->d_name, "node", 4) &&
				    de->d_name[4] >= '0' && de->d_name[4] <= '9';
		closedir(d);
	}
	if (t->nodes < 1)
		t->nodes = 1;
	host_read_cpuinfo(t);
	return t->nr_cpus ? 0 : -ENODEV;
}
