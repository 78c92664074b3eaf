/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * This machine's CPU topology, read once from sysfs and /proc/cpuinfo, for
 * `mmsim calibrate` (its topology keys and CPU pairs) and live mode's
 * profile "host" (src/host/topology.c).
 */
#ifndef MMSIM_HOST_TOPOLOGY_H
#define MMSIM_HOST_TOPOLOGY_H

#include <sched.h>
#include <stdbool.h>

#define HOST_MAX_CPUS	1024

/*
 * nr_cpus == CPUs below HOST_MAX_CPUS with both topology files (and in
 * the affinity mask given), ascending in cpu[];
 * sockets * cores_per_socket * threads_per_core <= nr_cpus when nr_cpus > 0.
 */
struct host_topology {
	int nr_cpus;
	int cpu[HOST_MAX_CPUS];		/* the CPUs' numbers, ascending */
	int pkg[HOST_MAX_CPUS];		/* cpu[i]'s topology/physical_package_id */
	int core[HOST_MAX_CPUS];	/* cpu[i]'s topology/core_id */
	int sockets;			/* distinct packages; 1 when none */
	int cores_per_socket;		/* distinct (package, core) / sockets, >= 1 */
	int threads_per_core;		/* CPUs / distinct cores, >= 1 */
	int nodes;			/* /sys/devices/system/node/nodeN; >= 1 */
	double mhz;			/* /proc/cpuinfo's first "cpu MHz"; 0: none */
	char model[80];			/* its first "model name"; "unknown CPU" */
	bool hypervisor;		/* its first "flags" line has "hypervisor" */
};

int host_sys_path(char *buf, size_t len, const char *root, const char *abs);
int host_topology_read(struct host_topology *t, const char *sys_root,
		       const cpu_set_t *allowed);

#endif /* MMSIM_HOST_TOPOLOGY_H */
