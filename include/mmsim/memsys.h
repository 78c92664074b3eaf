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
 *   node     the node's DRAM: node_write_gbps for writes (and the
 *            directory's), node_read_gbps for reads (one queue: reads and
 *            writes share the channels).
 * A zeroing write needs no read: rep stosb's fast-string mode writes
 * whole lines after an invalidation, without reading them (Intel SDM
 * vol. 3A, 8.2.4 "Out-of-order stores for string operations").
 *
 * The memory directory (mem.directory, multi-socket Xeons since Ivy Bridge
 * EP; Skylake-SP has no other coherence mode): bits in each line's ECC at
 * its home node say whether another socket may hold it.  When a core of
 * another socket takes a line (to write it, or on a read that is answered
 * Exclusive), the home sets the bit, which writes the line to DRAM once
 * more; its write-back later clears it.  So a line written from a remote
 * socket costs its node two DRAM writes, one from the local socket one
 * (pcm-memory on a dual Skylake-SP: a core's stores to interleaved memory
 * wrote its remote node's DRAM twice as often as its own node's, each read
 * once; J. McCalpin's explanation in the same Intel forum thread, "SKL -
 * strange memory behavior", and his "Memory directories in Intel
 * processors", 28 August 2023).  Loads from a remote node count the same
 * write (memsys_read()).  Whether the home also reads a line that
 * rep stosb takes without its data, to update the bits in its ECC, is not
 * measured: the model does not charge that read.
 *
 * Loaded latency (issue 16): a load from DRAM waits longer the busier
 * the node.  Each node keeps its demand over windows of
 * MEMSYS_LOAD_WINDOW_PS of virtual time (the service time asked of its
 * queue, reads and writes, over the window's length); the latency a load
 * sees is the idle latency times the profile's curve at the utilisation
 * of the last whole window (mem.loaded_latency: points of Intel MLC's
 * --loaded_latency, linearly interpolated), times the over-capacity
 * stretch (struct memsys_load), plus any backlog of the fluid queue.
 * The access model (src/mm/access.c) reports its DRAM lines as read
 * traffic with memsys_read() once per batch and asks
 * memsys_loaded_latency_ps() for the next batch's latency.  Loads do not
 * enter the fluid queues (their requests come between sync points, out of
 * virtual-time order by up to a quantum, which a FIFO would turn into
 * false waits); the window's sums do not depend on that order.
 *
 * Left out: the directory cache (HitME), which spares the directory write
 * for lines that move between sockets often; loaded latency feeding back into the core's rate of bulk
 * flows (clear_page, copy_page keep the idle latency), the mesh, the
 * snoop traffic of coherence, DRAM refresh and bank conflicts.
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

/* The utilisation window: a model setting (many batches, well above the engine's quantum). */
#define MEMSYS_LOAD_WINDOW_PS	(10 * SIM_US)

/* Points of the loaded-latency curve at most (mem.loaded_latency). */
#define MEMSYS_CURVE_MAX	16

/*
 * A node's recent load.  The window that began at win_start has been asked
 * win_busy_ps of service so far; util_permille and stretch_permille are
 * set when it ends (memsys_note_load() in src/hw/memsys.c).
 */
struct memsys_load {
	sim_time_t win_start;
	sim_time_t win_busy_ps;
	uint32_t util_permille;		/* min(demand, 1) of the last window */
	uint32_t stretch_permille;	/* over capacity: max(1, stretch x demand); 0: 1000 */
};

/*
 * The latency of a node at a utilisation, per mille of the idle latency:
 * lat_permille[i] at util_permille[i], util rising from 0; linear between
 * the points, the last point's beyond it.  No points: always idle.
 */
struct memsys_curve {
	int nr;
	uint32_t util_permille[MEMSYS_CURVE_MAX];
	uint32_t lat_permille[MEMSYS_CURVE_MAX];
};

struct memsys {
	int nr_sockets, nr_nodes, nr_cores, cores_per_socket;
	uint64_t node_write_gbps, node_read_gbps;
	uint64_t link_mbps;		/* one direction, all links; 0: no limit */
	uint64_t lfb;			/* line fill buffers per core; 0: no limit */
	bool store_rfo;			/* mem.string_store_rfo: stores hold fill buffers too */
	uint64_t local_ns, remote_ns;	/* idle DRAM latency */
	bool directory;			/* mem.directory: remote lines cost their home a DRAM write */
	sim_time_t page_zero_ps;	/* mem.page_zero_ns: a 4K page zeroed, core time; 0: none */
	sim_time_t write_behind_ps;	/* the DRAM writes the caches hold back: L3 at node_write_gbps */
	uint64_t zero_l3_gbps;		/* mem.zero_l3_gbps: a folio's later pages; 0: page_zero_ps each */
	struct memsys_res *core;	/* [nr_cores] */
	struct memsys_res *node;	/* [nr_nodes] */
	struct memsys_load *load;	/* [nr_nodes] */
	struct memsys_curve curve;	/* mem.loaded_latency */
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
 * memsys_zero - zero @bytes (whole 4K pages) of node @nid's memory from this CPU
 * @ms: the memory system
 * @nid: the node written
 * @bytes: bytes zeroed, whole pages (clear_page_erms)
 * @core_gbps: the core's sustained store rate (mem.zero_gbps), used when
 *	mem.page_zero_ns is 0
 *
 * With mem.page_zero_ns, write-behind: the core spends page_zero_ns a page
 * (its stores go to its caches, whole lines, no read), and the lines'
 * write-back is reserved on the node's write bandwidth; the core waits
 * only for the part of the node's backlog beyond what the caches hold
 * back (write_behind_ps).  With mem.zero_l3_gbps, a folio's first page
 * hides behind the work after it (page_zero_ns) and the pages after it
 * wait for the ones before to drain, at the rate of zeroing lines the L3
 * holds: the allocator hands back frames freed a moment ago, still in the
 * caches (an assumption; past the L3 the kernel's zeroing is slower, which
 * the model does not see).  Without page_zero_ns, memsys_write().
 * Context: a task on a vCPU; a sync point.  Charges the time to the vCPU.
 */
void memsys_zero(struct memsys *ms, int nid, uint64_t bytes, uint64_t core_gbps);

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
 * The idle latency (cache.dram_local_ns or dram_remote_ns) times the
 * loaded-latency curve at the node's utilisation (struct memsys_load),
 * plus the backlog the load would queue behind on its path (the node,
 * and the link from @nid's socket to @cpu's when remote).  A cheap
 * query, it changes nothing.
 * Return: picoseconds.
 */
sim_time_t memsys_loaded_latency_ps(const struct memsys *ms, int cpu, int nid, sim_time_t now);

/**
 * memsys_read - @bytes of loads from node @nid by @cpu, as traffic
 * @ms: the memory system
 * @cpu: the CPU that loaded
 * @nid: the node read
 * @now: when the loads began
 * @bytes: bytes read (whole lines)
 *
 * Counts the bytes in the node's demand (node_read_gbps; when remote,
 * with the directory, as many again at node_write_gbps) and in the
 * statistics of the node and, when remote, the link.  No queue: the
 * loads' own limits bound them, and the node's bandwidth does through the
 * latency (struct memsys_load).
 * Context: any; deterministic in the engine's order of calls.
 */
void memsys_read(struct memsys *ms, int cpu, int nid, sim_time_t now, uint64_t bytes);

/**
 * memsys_parse_curve - read a mem.loaded_latency value into @c
 * @s: "none" (or empty), or "U:L U:L ..." pairs, per mille: utilisation rising from
 *	0, latency of the idle latency at least 1000
 * @c: the curve
 *
 * Return: 0, or -1 when @s is not such a list.
 */
int memsys_parse_curve(const char *s, struct memsys_curve *c);

/* The curve @c at @util_permille: latency per mille of the idle latency. */
uint32_t memsys_curve_at(const struct memsys_curve *c, uint32_t util_permille);

/* The service time of @bytes at @gbps GB/s, in picoseconds. */
static inline sim_time_t memsys_ps(uint64_t bytes, uint64_t gbps)
{
	return gbps ? (sim_time_t)(bytes * 1000 / gbps) : 0;
}

/**
 * memsys_stream - a pass of this CPU over memory of node @nid that misses the caches
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
void memsys_stream(struct memsys *ms, int nid, uint64_t read_bytes, uint64_t wb_bytes,
		   uint64_t core_gbps, sim_time_t issue_ps);

#endif /* MMSIM_MEMSYS_H */
