/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The memory system as a resource: each node's memory controller, the
 * links between sockets and each core's own limit on lines in flight.
 *
 * Bulk traffic (clear_page, copy_page) is charged here by where the CPU
 * and the memory are.  Every resource is a fluid FIFO queue in virtual
 * time (one busy-until time each, not per line): a request reserves
 * bytes / bandwidth on every resource on its path, starting when that
 * resource is free, and completes when the last of them has served it.
 * Requests are made at a sync point, so they reach each queue in
 * virtual-time order; flows that keep requesting share a saturated
 * resource fairly, at the granularity of one request.
 *
 * Resources, with their rates (profile [mem] and [cache]):
 *   core     line_fill_buffers x 64 B / the idle latency of the memory
 *            reached (dram_local_ns or dram_remote_ns), shared by SMT
 *            siblings (Little's law); and zero_gbps / copy_gbps, the
 *            core's own store rate;
 *   link     socket A -> socket B, one queue per direction:
 *            upi_links x upi_mtps x 2 bytes per transfer;
 *   node     the node's DRAM: node_write_gbps for writes,
 *            node_read_gbps for reads (one queue: reads and writes share
 *            the channels).
 * A zeroing write needs no read: rep stosb's fast-string mode writes
 * whole lines after an invalidation, without reading them (Intel SDM
 * vol. 3A, 8.2.4 "Out-of-order stores for string operations").
 *
 * Left out: loaded latency feeding back into the core's rate, the mesh,
 * the snoop traffic of coherence, DRAM refresh and bank conflicts.
 */
#ifndef MMSIM_MEMSYS_H
#define MMSIM_MEMSYS_H

#include <stdint.h>

#include "mmsim/sim.h"

struct sim_profile;

/* One fluid FIFO queue.  Invariant: busy_ps <= busy_until. */
struct memsys_res {
	sim_time_t busy_until;		/* when it has served every request so far */
	sim_time_t busy_ps;		/* total service time (utilisation) */
	uint64_t bytes;			/* bytes served */
};

#define MEMSYS_MAX_SOCKETS	8

struct memsys {
	int nr_sockets, nr_nodes, nr_cores, cores_per_socket;
	uint64_t node_write_gbps, node_read_gbps;
	uint64_t link_mbps;		/* one direction, all links; 0: no limit */
	uint64_t lfb;			/* line fill buffers per core; 0: no limit */
	uint64_t local_ns, remote_ns;	/* idle DRAM latency */
	struct memsys_res *core;	/* [nr_cores] */
	struct memsys_res *node;	/* [nr_nodes] */
	struct memsys_res link[MEMSYS_MAX_SOCKETS][MEMSYS_MAX_SOCKETS]; /* [from][to] */
};

/**
 * memsys_create - the memory system of a profile's machine
 * @p: the profile
 * @nr_cores: physical cores (sockets x cores_per_socket)
 *
 * Return: a new memory system, all resources idle; NULL if out of memory
 * or the profile has more sockets than MEMSYS_MAX_SOCKETS.
 */
struct memsys *memsys_create(const struct sim_profile *p, int nr_cores);
void memsys_destroy(struct memsys *ms);

/**
 * memsys_write - write @bytes to node @nid from this CPU, whole lines
 * @ms: the memory system
 * @nid: the node written
 * @bytes: bytes written (no read for ownership: clear_page_erms)
 * @core_gbps: the core's own store rate (mem.zero_gbps)
 *
 * Context: a task on a vCPU; a sync point.  Charges the time to the vCPU.
 */
void memsys_write(struct memsys *ms, int nid, uint64_t bytes, uint64_t core_gbps);

/**
 * memsys_copy - copy @bytes from node @src to node @dst on this CPU
 * @ms: the memory system
 * @src: the node read
 * @dst: the node written
 * @bytes: bytes copied
 * @core_gbps: the core's own copy rate (mem.copy_gbps)
 *
 * Context: a task on a vCPU; a sync point.  Charges the time to the vCPU.
 */
void memsys_copy(struct memsys *ms, int src, int dst, uint64_t bytes, uint64_t core_gbps);

/**
 * memsys_loaded_latency_ps - the latency a load from @cpu to node @nid sees now
 * @ms: the memory system
 * @cpu: the CPU
 * @nid: the node
 * @now: the time of the load
 *
 * The idle latency (cache.dram_local_ns or dram_remote_ns) plus the
 * backlog the load would queue behind on its path (the node, and the
 * link from @nid's socket to @cpu's when remote).  For the access model
 * (issue 16): a cheap query, it changes nothing.
 * Return: picoseconds.
 */
sim_time_t memsys_loaded_latency_ps(const struct memsys *ms, int cpu, int nid, sim_time_t now);

/* The service time of @bytes at @gbps GB/s, in picoseconds. */
static inline sim_time_t memsys_ps(uint64_t bytes, uint64_t gbps)
{
	return gbps ? (sim_time_t)(bytes * 1000 / gbps) : 0;
}

/**
 * memsys_read - a pass of this CPU over memory of node @nid that misses the caches
 * @ms: the memory system
 * @nid: the node read
 * @read_bytes: lines filled from DRAM (a load, or a store's read for ownership)
 * @wb_bytes: dirty lines written back to DRAM as they are evicted
 * @core_gbps: the core's streaming rate with hardware prefetch (mem.stream_gbps)
 * @issue_ps: the CPU's own time for the pass's instructions, which overlaps
 *            the memory traffic
 *
 * The pass is sequential within each page, so the prefetchers keep the
 * core's streams full: it takes the longest of @issue_ps, its bytes at the
 * core's rate (one queue per physical core, shared by SMT siblings) and its
 * turn on the node's DRAM (reads at node_read_gbps, write-backs at
 * node_write_gbps), where it queues behind the other cores' traffic.
 *
 * Context: a task on a vCPU; a sync point.  Charges the time to the vCPU.
 */
void memsys_read(struct memsys *ms, int nid, uint64_t read_bytes, uint64_t wb_bytes,
		 uint64_t core_gbps, sim_time_t issue_ps);

#endif /* MMSIM_MEMSYS_H */
