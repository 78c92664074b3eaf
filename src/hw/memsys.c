// SPDX-License-Identifier: GPL-2.0-only
/*
 * The memory system (include/mmsim/memsys.h): fluid FIFO queues for each
 * core's lines in flight, each inter-socket link direction and each
 * node's DRAM.  No kernel counterpart: this is the machine under
 * clear_page_erms() and copy_page().
 *
 * A request from CPU c for node n, of B bytes, after a sync point at
 * time t:
 *
 *   core[c]      B x latency(c, n) / (line_fill_buffers x 64)
 *                (a store's bytes only with mem.string_store_rfo = 1: a
 *                fast-string store invalidates its full destination line
 *                without reading it, Intel SDM vol. 3A 8.2.4, and does not
 *                hold a fill buffer for the memory's latency)
 *   link[s(c)][s(n)]   B / link bandwidth        (remote only)
 *   node[n]      B / node bandwidth
 *
 * each reserved from max(t, busy_until) on; the request is done at the
 * latest of those ends and of t + B / core_gbps (the core's own store
 * rate, shared with a busy SMT sibling).  Because every request is made
 * at a sync point, the queues see requests in virtual-time order, and
 * each is work-conserving: a resource is never idle while a request waits
 * for it.  A rate of 0 in the profile means "no limit".
 *
 * Two flows sharing a link, for example, alternate their requests and
 * each gets half of it: the fair share of a fluid model, at the
 * granularity of one request (a folio's clear).
 */
#include <stdlib.h>
#include <string.h>

#include "mmsim/memsys.h"
#include "mmsim/profile.h"

struct memsys *memsys_create(const struct sim_profile *p, int nr_cores)
{
	struct memsys *ms;

	if (p->topology_sockets > MEMSYS_MAX_SOCKETS || p->topology_nodes > MEMSYS_MAX_SOCKETS)
		return NULL;
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return NULL;
	ms->nr_sockets = (int)p->topology_sockets;
	ms->nr_nodes = (int)p->topology_nodes;
	ms->nr_cores = nr_cores > 0 ? nr_cores : 1;
	ms->cores_per_socket = p->topology_cores_per_socket ? (int)p->topology_cores_per_socket : 1;
	ms->node_write_gbps = p->mem_node_write_gbps;
	ms->node_read_gbps = p->mem_node_read_gbps;
	ms->link_mbps = p->mem_upi_links * p->mem_upi_mtps * 2;	/* 2 bytes per transfer */
	ms->lfb = p->mem_line_fill_buffers;
	ms->store_rfo = p->mem_string_store_rfo != 0;
	ms->local_ns = p->cache_dram_local_ns;
	ms->remote_ns = p->cache_dram_remote_ns;
	ms->directory = p->mem_directory != 0;
	ms->page_zero_ps = p->mem_page_zero_ns * SIM_NS;
	ms->zero_l3_gbps = p->mem_zero_l3_gbps;
	ms->write_behind_ps = p->mem_node_write_gbps ?
		(sim_time_t)(p->cache_l3_kib * 1024 * 1000 / p->mem_node_write_gbps) : 0;
	ms->core = calloc((size_t)(nr_cores > 0 ? nr_cores : 1), sizeof(*ms->core));
	ms->node = calloc((size_t)(ms->nr_nodes > 0 ? ms->nr_nodes : 1), sizeof(*ms->node));
	ms->load = calloc((size_t)(ms->nr_nodes > 0 ? ms->nr_nodes : 1), sizeof(*ms->load));
	if (!ms->core || !ms->node || !ms->load ||
	    memsys_parse_curve(p->mem_loaded_latency, &ms->curve)) {
		memsys_destroy(ms);
		return NULL;
	}
	return ms;
}

void memsys_destroy(struct memsys *ms)
{
	if (!ms)
		return;
	free(ms->core);
	free(ms->node);
	free(ms->load);
	free(ms);
}

static int node_socket(const struct memsys *ms, int nid)
{
	return ms->nr_nodes ? nid * ms->nr_sockets / ms->nr_nodes : 0;
}

/* Linux's numbering, as sim_machine_cpu_place(): one thread of every core, socket by socket, then the siblings. */
static int cpu_socket(const struct memsys *ms, int cpu)
{
	return (cpu % ms->nr_cores) / ms->cores_per_socket;
}

/* Reserve @ps of service on @r for a request arriving at @now; its end. */
static sim_time_t memsys_reserve(struct memsys_res *r, sim_time_t now, sim_time_t ps,
				 uint64_t bytes)
{
	sim_time_t start = r->busy_until > now ? r->busy_until : now;

	r->busy_until = start + ps;
	r->busy_ps += ps;
	r->bytes += bytes;
	return r->busy_until;
}

/*
 * Count @ps of service of node @nid at @now in its utilisation window.  A
 * window ends at the first request MEMSYS_LOAD_WINDOW_PS or more after its
 * start: its demand u (service over length) sets what loads see next, the
 * utilisation min(u, 1) for the curve and the over-capacity stretch
 * q' = max(1, q x u): flows that keep a fixed number of lines in flight
 * demand in inverse proportion to their latency, so q x u is the demand
 * they would make unstretched, and stretching by it brings them down to
 * the node's bandwidth (the fluid fair share, in one window).
 */
static void memsys_note_load(struct memsys *ms, int nid, sim_time_t now, sim_time_t ps)
{
	struct memsys_load *l = &ms->load[nid];

	if (now >= l->win_start + MEMSYS_LOAD_WINDOW_PS) {
		uint64_t u = (uint64_t)l->win_busy_ps * 1000 / (uint64_t)(now - l->win_start);
		uint64_t q = (l->stretch_permille ? l->stretch_permille : 1000) * u / 1000;

		l->util_permille = u > 1000 ? 1000 : (uint32_t)u;
		l->stretch_permille = q < 1000 ? 1000 : q > 1000000 ? 1000000 : (uint32_t)q;
		l->win_start = now;
		l->win_busy_ps = 0;
	}
	l->win_busy_ps += ps;
}

/* Reserve @ps on node @nid's queue and count it in the node's load. */
static sim_time_t node_reserve(struct memsys *ms, int nid, sim_time_t now, sim_time_t ps,
			       uint64_t bytes)
{
	memsys_note_load(ms, nid, now, ps);
	return memsys_reserve(&ms->node[nid], now, ps, bytes);
}

/* Lines in flight: B x latency / (LFBs x 64 B), the latency in ps. */
static sim_time_t core_ps(const struct memsys *ms, uint64_t bytes, bool remote)
{
	uint64_t lat_ps = (remote ? ms->remote_ns : ms->local_ns) * SIM_NS;

	if (!ms->lfb)
		return 0;
	return (sim_time_t)(bytes * lat_ps / (ms->lfb * 64));
}

static sim_time_t link_ps(const struct memsys *ms, uint64_t bytes)
{
	return ms->link_mbps ? (sim_time_t)(bytes * 1000000 / ms->link_mbps) : 0;
}

static sim_time_t later(sim_time_t a, sim_time_t b)
{
	return a > b ? a : b;
}

/*
 * One flow of this CPU's: @rbytes read from node @rnid and @wbytes written
 * to node @wnid.  It takes the longest of the CPU's own time and each
 * resource's turn: the core (a stream's bytes at @core_gbps with the
 * prefetchers keeping it full; otherwise its lines in flight, at the
 * latency of the memory each side reaches), the links its bytes cross, and
 * the DRAM of each node it touches (reads and writes of one node in one
 * turn).  The CPU's own time: @issue_ps for a stream, otherwise the bytes
 * it moves at @core_gbps (a copy's read and write count once), shared with
 * a busy SMT sibling.  Every other flow is one of these.
 */
static void memsys_flow(struct memsys *ms, int rnid, uint64_t rbytes, int wnid,
			uint64_t wbytes, uint64_t core_gbps, bool stream, sim_time_t issue_ps)
{
	uint64_t bytes = rbytes + wbytes, rdir, wdir;
	struct sim_vcpu *v;
	sim_time_t now, done, core;
	int from, to;
	bool rremote, wremote;

	sim_sync();
	v = sim_this_vcpu();
	now = v->now;
	from = node_socket(ms, rnid);
	to = node_socket(ms, wnid);
	rremote = from != v->socket;
	wremote = to != v->socket;
	/* The directory's writes at the homes of the lines this socket takes. */
	rdir = ms->directory && rremote ? rbytes : 0;
	wdir = ms->directory && wremote ? wbytes : 0;
	if (stream) {
		done = now + issue_ps;
		core = memsys_ps(bytes, core_gbps);
	} else {
		done = now + sim_smt_scaled_ps(memsys_ps(rbytes > wbytes ? rbytes : wbytes,
							 core_gbps));
		core = core_ps(ms, rbytes, rremote) +
		       (ms->store_rfo ? core_ps(ms, wbytes, wremote) : 0);
	}
	done = later(done, memsys_reserve(&ms->core[v->core], now, core, bytes));
	if (rremote && rbytes)
		done = later(done, memsys_reserve(&ms->link[from][v->socket], now,
						  link_ps(ms, rbytes), rbytes));
	if (wremote && wbytes)
		done = later(done, memsys_reserve(&ms->link[v->socket][to], now,
						  link_ps(ms, wbytes), wbytes));
	if (rnid == wnid) {
		done = later(done, node_reserve(ms, rnid, now,
						memsys_ps(rbytes, ms->node_read_gbps) +
						memsys_ps(wbytes + rdir + wdir,
							  ms->node_write_gbps),
						bytes + rdir + wdir));
	} else {
		if (rbytes)
			done = later(done, node_reserve(ms, rnid, now,
							memsys_ps(rbytes, ms->node_read_gbps) +
							memsys_ps(rdir, ms->node_write_gbps),
							rbytes + rdir));
		if (wbytes)
			done = later(done, node_reserve(ms, wnid, now,
							memsys_ps(wbytes + wdir,
								  ms->node_write_gbps),
							wbytes + wdir));
	}
	sim_cost_ps(done - now);
}

void memsys_write(struct memsys *ms, int nid, uint64_t bytes, uint64_t core_gbps)
{
	memsys_flow(ms, nid, 0, nid, bytes, core_gbps, false, 0);
}

void memsys_zero(struct memsys *ms, int nid, uint64_t bytes, uint64_t core_gbps)
{
	struct sim_vcpu *v = sim_this_vcpu();
	sim_time_t now = v->now, core, done, stall;

	if (!ms->page_zero_ps) {
		memsys_write(ms, nid, bytes, core_gbps);
		return;
	}
	if (ms->zero_l3_gbps && bytes > 4096)
		core = ms->page_zero_ps + memsys_ps(bytes - 4096, ms->zero_l3_gbps);
	else
		core = ms->page_zero_ps * (sim_time_t)(bytes >> 12);
	core = sim_smt_scaled_ps(core);
	done = node_reserve(ms, nid, now, memsys_ps(bytes, ms->node_write_gbps), bytes);
	stall = done - now > ms->write_behind_ps ? done - now - ms->write_behind_ps : 0;
	sim_cost_ps(later(core, stall));
}

void memsys_copy(struct memsys *ms, int src, int dst, uint64_t bytes, uint64_t core_gbps)
{
	memsys_flow(ms, src, bytes, dst, bytes, core_gbps, false, 0);
}

void memsys_read(struct memsys *ms, int cpu, int nid, sim_time_t now, uint64_t bytes)
{
	int from = node_socket(ms, nid);
	int to = cpu_socket(ms, cpu);
	sim_time_t ps = memsys_ps(bytes, ms->node_read_gbps);
	uint64_t dir = 0;

	if (from != to) {
		ms->link[from][to].busy_ps += link_ps(ms, bytes);
		ms->link[from][to].bytes += bytes;
		/* answered Exclusive: the home records it in the directory */
		if (ms->directory) {
			dir = bytes;
			ps += memsys_ps(dir, ms->node_write_gbps);
		}
	}
	ms->node[nid].busy_ps += ps;
	ms->node[nid].bytes += bytes + dir;
	memsys_note_load(ms, nid, now, ps);
}

int memsys_parse_curve(const char *s, struct memsys_curve *c)
{
	memset(c, 0, sizeof(*c));
	if (!*s || !strcmp(s, "none"))
		return 0;
	while (*s) {
		unsigned long u, l;
		char *end;

		if (c->nr == MEMSYS_CURVE_MAX || *s < '0' || *s > '9')
			return -1;
		u = strtoul(s, &end, 10);
		if (*end != ':' || end[1] < '0' || end[1] > '9')
			return -1;
		l = strtoul(end + 1, &end, 10);
		if (u > 1000 || l < 1000 || l > 100000 ||
		    (c->nr && u <= c->util_permille[c->nr - 1]) || (!c->nr && u))
			return -1;
		c->util_permille[c->nr] = (uint32_t)u;
		c->lat_permille[c->nr] = (uint32_t)l;
		c->nr++;
		if (*end == ' ')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return c->nr ? 0 : -1;
}

uint32_t memsys_curve_at(const struct memsys_curve *c, uint32_t util_permille)
{
	int i;

	if (!c->nr)
		return 1000;
	for (i = 1; i < c->nr; i++) {
		uint32_t u0 = c->util_permille[i - 1], u1 = c->util_permille[i];
		uint32_t l0 = c->lat_permille[i - 1], l1 = c->lat_permille[i];

		if (util_permille <= u1)
			return (uint32_t)((int64_t)l0 + ((int64_t)l1 - (int64_t)l0) *
					  (int64_t)(util_permille - u0) / (int64_t)(u1 - u0));
	}
	return c->lat_permille[c->nr - 1];
}

sim_time_t memsys_loaded_latency_ps(const struct memsys *ms, int cpu, int nid, sim_time_t now)
{
	int from = node_socket(ms, nid);
	int to = cpu_socket(ms, cpu);
	sim_time_t idle = (from == to ? ms->local_ns : ms->remote_ns) * SIM_NS;
	const struct memsys_load *l = &ms->load[nid];
	uint64_t stretch = l->stretch_permille ? l->stretch_permille : 1000;
	sim_time_t lat = idle * memsys_curve_at(&ms->curve, l->util_permille) / 1000 * stretch /
			 1000;
	sim_time_t wait = 0;

	if (ms->node[nid].busy_until > now)
		wait = ms->node[nid].busy_until - now;
	if (from != to && ms->link[from][to].busy_until > now + wait)
		wait = ms->link[from][to].busy_until - now;
	return lat + wait;
}

void memsys_stream(struct memsys *ms, int nid, uint64_t read_bytes, uint64_t wb_bytes,
		   uint64_t core_gbps, sim_time_t issue_ps)
{
	memsys_flow(ms, nid, read_bytes, nid, wb_bytes, core_gbps, true, issue_ps);
}
