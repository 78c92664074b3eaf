// SPDX-License-Identifier: GPL-2.0-only
/*
 * reclaim-tlb on the running kernel (`mmsim live reclaim-tlb`,
 * docs/live.md): the workload the simulator models, stress-ng itself.
 * `stress-ng --vm WORKERS --vm-bytes VM_BYTES --vm-keep --timeout
 * DURATION` in a memory cgroup limited to `memcg_limit` (stress-ng forks
 * a process per worker, each with vm_bytes/workers).  Reclaim
 * (shrink_folio_list()) unmaps and swaps their pages and flushes the
 * other CPUs' TLBs.  worker_kind=threads: stress-ng's --vm has no thread
 * mode, so `workers` threads of one process each keep vm_bytes/workers
 * mapped and rewrite one word per cache line of it; one bogo op is one
 * MiB rewritten (not stress-ng's methods: see the note it prints).
 *
 * Its parameters are the experiment's (reclaim_tlb.c, those marked
 * .live); bogo_ops_per_s is measured here, the other metrics are kernel
 * counters (sim_metric.live_counter).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiments/reclaim-tlb/stress_vm.h"
#include "host/live_internal.h"

/**
 * live_parse_stress_ng_yaml - a stressor's bogo ops from `stress-ng --yaml`
 * @text: the YAML file; its "metrics:" list has, per stressor,
 *        "- stressor: vm", "bogo-ops: N", "bogo-ops-per-second-real-time: X"
 * @stressor: "vm"
 * @ops_per_s: bogo ops per second of wall time (the post's "bogo ops/s")
 * @ops: bogo ops
 *
 * Context: any.
 * Return: 0, or -ENOENT when @stressor has no metrics in @text.
 */
int live_parse_stress_ng_yaml(const char *text, const char *stressor,
			      double *ops_per_s, uint64_t *ops)
{
	char key[64];
	const char *p = strstr(text, "\nmetrics:");
	const char *q, *end;
	bool have_rate = false, have_ops = false;

	if (!p)
		return -ENOENT;
	snprintf(key, sizeof(key), "- stressor: %s\n", stressor);
	p = strstr(p, key);
	if (!p)
		return -ENOENT;
	p += strlen(key);
	end = strstr(p, "- stressor:");
	if (!end)
		end = p + strlen(p);
	q = strstr(p, "bogo-ops-per-second-real-time:");
	if (q && q < end) {
		*ops_per_s = strtod(q + strlen("bogo-ops-per-second-real-time:"), NULL);
		have_rate = true;
	}
	q = strstr(p, "bogo-ops:");
	if (q && q < end) {
		*ops = strtoull(q + strlen("bogo-ops:"), NULL, 10);
		have_ops = true;
	}
	return have_rate && have_ops ? 0 : -ENOENT;
}

/**
 * live_parse_stress_ng_brief - a stressor's bogo ops from --metrics-brief
 * @text: stress-ng's output; the row is
 *        "stress-ng: metrc: [PID] vm  2075  2.01  0.51  0.26  1032.40  2690.01"
 *        (bogo ops, real, usr, sys seconds, bogo ops/s real time, usr+sys)
 * @stressor: "vm"
 * @ops_per_s: bogo ops/s (real time)
 * @ops: bogo ops
 *
 * Context: any.
 * Return: 0, or -ENOENT when there is no such row.
 */
int live_parse_stress_ng_brief(const char *text, const char *stressor,
			       double *ops_per_s, uint64_t *ops)
{
	for (const char *line = text; line && *line; ) {
		const char *next = strchr(line, '\n');
		const char *m = strstr(line, "] ");
		char name[32];
		unsigned long long n;
		double real, usr, sys, rate;

		if (m && (!next || m < next) && strstr(line, "metrc") &&
		    sscanf(m + 2, "%31s %llu %lf %lf %lf %lf", name, &n, &real,
			   &usr, &sys, &rate) == 6 && !strcmp(name, stressor)) {
			*ops = n;
			*ops_per_s = rate;
			return 0;
		}
		line = next ? next + 1 : NULL;
	}
	return -ENOENT;
}

/* What the stress-ng process runs; @arg is its directory (output files). */
static void rt_stress_ng(struct live_run *r, void *arg, int idx)
{
	const char *dir = arg;
	char n[24], bytes[32], timeout[24], yaml[128], out[128];
	int fd;

	snprintf(n, sizeof(n), "%llu", (unsigned long long)live_param(r, "workers"));
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)live_param(r, "vm_bytes"));
	snprintf(timeout, sizeof(timeout), "%llu",
		 (unsigned long long)((live_param(r, "duration") + 999999999ULL) / 1000000000ULL));
	snprintf(yaml, sizeof(yaml), "%s/stress-ng.yaml", dir);
	snprintf(out, sizeof(out), "%s/stress-ng.out", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	/* stress-ng handles SIGINT itself; mmsim stops it with SIGKILL */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execlp("stress-ng", "stress-ng", "--vm", n, "--vm-bytes", bytes,
	       "--vm-keep", "--timeout", timeout, "--metrics-brief", "--yaml",
	       yaml, (char *)NULL);
	(void)idx;
	_exit(127);
}

/* threads: one vm loop per thread, one bogo op per MiB rewritten. */
struct rt_thread {
	struct live_shm *shm;
	size_t size;			/* its share of vm_bytes */
	int idx;
};

static void *rt_thread_fn(void *arg)
{
	struct rt_thread *t = arg;
	struct live_shm *shm = t->shm;
	size_t size = t->size;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t pass = 0;

	if (p == MAP_FAILED) {
		shm->fail = errno;
		return NULL;
	}
	while (!shm->stop) {
		for (size_t off = 0; off < size && !shm->stop; ) {
			size_t end = off + (1UL << 20) < size ? off + (1UL << 20) : size;

			for (; off < end; off += 64)
				*(volatile uint64_t *)(p + off) = pass + off;
			__atomic_fetch_add(&shm->ops[t->idx], 1, __ATOMIC_RELAXED);
		}
		pass++;
	}
	return NULL;
}

static void rt_threads(struct live_run *r, void *arg, int idx)
{
	int nr = (int)live_param(r, "workers");
	size_t size = (live_param(r, "vm_bytes") / (uint64_t)nr) & ~(LIVE_PAGE - 1);
	pthread_t tid[LIVE_MAX_CHILDREN];
	struct rt_thread t[LIVE_MAX_CHILDREN];

	for (int i = 0; i < nr; i++) {
		t[i] = (struct rt_thread){ .shm = arg, .size = size, .idx = i };
		if (pthread_create(&tid[i], NULL, rt_thread_fn, &t[i]))
			_exit(4);
	}
	for (int i = 0; i < nr; i++)
		pthread_join(tid[i], NULL);
	(void)idx;
	_exit(((struct live_shm *)arg)->fail ? 5 : 0);
}

/* All of vm_bytes: what is swapped out may sit in zram, that is in RAM. */
static uint64_t rt_memory(const struct sim_run_config *cfg)
{
	return sim_param(cfg, "vm_bytes");
}

static int rt_check(const struct sim_run_config *cfg, bool apply, char *err, size_t errlen)
{
	uint64_t vm_bytes = sim_param(cfg, "vm_bytes"), limit = sim_param(cfg, "memcg_limit");
	struct live_counters *mi = calloc(1, sizeof(*mi));
	uint64_t swap_kb = 0;
	char dir[512];
	bool enable;
	int version;

	if (!mi)
		return -ENOMEM;
	live_read_meminfo(mi);
	live_counters_get(mi, "SwapTotal", &swap_kb);
	free(mi);
	/* --apply on a machine without swap adds zram swap of vm_bytes */
	if (!swap_kb && !apply) {
		snprintf(err, errlen, "reclaim-tlb needs swap and this machine "
			 "has none (SwapTotal is 0 in /proc/meminfo); run with "
			 "--apply (zram swap for the run) or add some, "
			 "e.g. fallocate -l 1G /swapfile && chmod 600 /swapfile "
			 "&& mkswap /swapfile && swapon /swapfile");
		return -ENOENT;
	}
	if (swap_kb && vm_bytes - limit > swap_kb * 1024 &&
	    vm_bytes > limit) {
		snprintf(err, errlen, "reclaim-tlb needs vm_bytes - memcg_limit "
			 "= %llu MiB of swap and this machine has %llu MiB; "
			 "add swap or lower vm_bytes",
			 (unsigned long long)((vm_bytes - limit) >> 20),
			 (unsigned long long)(swap_kb >> 10));
		return -ENOSPC;
	}
	if (sim_param(cfg, "worker_kind") == 0 && !live_on_path("stress-ng")) {
		snprintf(err, errlen, "reclaim-tlb runs stress-ng, which is not "
			 "installed (Debian: apt-get install stress-ng); or use "
			 "--set worker_kind=threads");
		return -ENOENT;
	}
	return live_memcg_find_parent(dir, sizeof(dir), &version, &enable, err,
				      errlen);
}

struct rt_clock {
	double t_end;
};

static bool rt_elapsed(void *arg)
{
	return live_now() >= ((struct rt_clock *)arg)->t_end;
}

static void rt_rmdir(const char *dir)
{
	static const char *const files[] = { "stress-ng.yaml", "stress-ng.out" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
	live_state_note_tmpdir(LIVE_STATE_TMPDIR_STRESS_NG, NULL);
}

/* stress-ng's bogo ops/s, from its YAML, else from its metrics lines. */
static void rt_stress_ng_result(struct live_run *r, const char *dir)
{
	static char text[64 * 1024];
	char path[128];
	double rate = 0;
	uint64_t ops = 0;
	const char *from = "--yaml";

	snprintf(path, sizeof(path), "%s/stress-ng.yaml", dir);
	if (live_read_file(path, text, sizeof(text)) <= 0 ||
	    live_parse_stress_ng_yaml(text, "vm", &rate, &ops)) {
		from = "--metrics-brief";
		snprintf(path, sizeof(path), "%s/stress-ng.out", dir);
		if (live_read_file(path, text, sizeof(text)) <= 0 ||
		    live_parse_stress_ng_brief(text, "vm", &rate, &ops)) {
			live_unavailable(r, "bogo_ops_per_s", "stress-ng printed no vm "
					 "metrics (see its output: it ran "
					 "but reported nothing)");
			return;
		}
	}
	live_set_metric(r, "bogo_ops_per_s", rate);
	if (!ops)
		live_note(r->res, "stress-ng counted no bogo op: a method stores its count "
			  "when it returns (set_counter()), and a worker the OOM killer "
			  "took starts again at the first method (stress_oomable_child()) "
			  "without the count of the one it was in");
	live_note(r->res, "stress-ng --vm %llu --vm-bytes %lluM --vm-keep "
		  "--timeout %llus: %llu bogo ops, %.2f bogo ops/s (real time, "
		  "from %s)", (unsigned long long)live_param(r, "workers"),
		  (unsigned long long)(live_param(r, "vm_bytes") >> 20),
		  (unsigned long long)((live_param(r, "duration") + 999999999ULL) / 1000000000ULL),
		  (unsigned long long)ops, rate, from);
}

/*
 * The installed stress-ng's version from `stress-ng --version` ("stress-ng,
 * version 0.15.06 (gcc ...)"): 0 and *ver set, or -1.
 */
static int rt_stress_ng_version(unsigned int ver[3])
{
	char buf[256] = "";
	const char *v;
	ssize_t n, got = 0;
	int fd[2], st;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (!pid) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execlp("stress-ng", "stress-ng", "--version", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	v = strstr(buf, "version ");
	if (!v || sscanf(v + 8, "%u.%u.%u", &ver[0], &ver[1], &ver[2]) != 3)
		return -1;
	return 0;
}

static enum live_stop rt_run(struct live_run *r)
{
	struct live_shm *shm = live_shm_map(r);
	struct live_counters *mi;
	struct rt_clock clk;
	enum live_stop stop;
	char dir[64] = "";
	bool threads = live_param(r, "worker_kind") == 1;
	uint64_t ops = 0, swap_kb = 0;
	double t0, t1;
	pid_t pid;
	int ret;

	if (!shm)
		return LIVE_STOP_ERROR;
	mi = calloc(1, sizeof(*mi));
	if (mi) {
		live_read_meminfo(mi);
		live_counters_get(mi, "SwapTotal", &swap_kb);
		free(mi);
	}
	if (!swap_kb && r->apply) {
		if (live_zram_setup(&r->zram, live_param(r, "vm_bytes"), r->err,
				    sizeof(r->err)))
			goto out_error;
		live_note(r->res, "no swap: /dev/zram%d of %llu MiB set up as "
			  "swap for the run (removed at exit)", r->zram.dev,
			  (unsigned long long)(live_param(r, "vm_bytes") >> 20));
	}
	if (live_memcg_create(&r->memcg, live_param(r, "memcg_limit"), r->err,
			      sizeof(r->err)))
		goto out_error;
	if (live_open_start_pipe(r))
		goto out_error;
	if (!threads) {
		snprintf(dir, sizeof(dir), "/tmp/mmsim-live-sng-XXXXXX");
		if (!mkdtemp(dir)) {
			snprintf(r->err, sizeof(r->err), "mkdtemp: %s", strerror(errno));
			dir[0] = '\0';
			goto out_error;
		}
		live_state_note_tmpdir(LIVE_STATE_TMPDIR_STRESS_NG, dir);
	}
	if (!threads) {
		unsigned int ver[3];

		int k = sim_scenario_param_index(r->cfg->scenario, "stress_ng");

		if (k >= 0 && !rt_stress_ng_version(ver)) {
			const char *table = r->cfg->scenario->params[k].choices[
				stress_vm_version_of(ver[0], ver[1], ver[2])];

			live_model_param(r->res, "stress_ng", table);
			live_note(r->res, "stress-ng %u.%02u.%02u: the model's stress_ng=%s",
				  ver[0], ver[1], ver[2], table);
		}
	}
	mi = calloc(1, sizeof(*mi));
	if (mi) {
		char v[32];

		live_read_meminfo(mi);
		if (live_counters_get(mi, "SwapTotal", &swap_kb) && swap_kb) {
			snprintf(v, sizeof(v), "%lluK", (unsigned long long)swap_kb);
			live_model_param(r->res, "swap", v);
		}
		free(mi);
	}
	pid = live_spawn(r, threads ? "vmthreads" : "stress-ng",
			 threads ? rt_threads : rt_stress_ng,
			 threads ? (void *)shm : (void *)dir, 0);
	if (pid < 0)
		goto out_error;
	ret = live_memcg_attach(&r->memcg, pid);
	if (ret) {
		snprintf(r->err, sizeof(r->err), "cannot move the workload into "
			 "%s: %s", r->memcg.path, strerror(-ret));
		goto out_error;
	}
	t0 = live_now();
	clk.t_end = t0 + (double)live_param(r, "duration") * 1e-9;
	live_start(r);
	if (threads) {
		stop = live_wait_all(r, rt_elapsed, &clk);
		shm->stop = 1;
	} else {
		stop = LIVE_STOP_NONE;
	}
	t1 = live_now();
	if (stop == LIVE_STOP_NONE)
		stop = live_wait_all(r, NULL, NULL);
	if (!threads)
		t1 = live_now();
	live_close_start_pipe(r);
	if (stop == LIVE_STOP_NONE && threads) {
		for (uint64_t i = 0; i < live_param(r, "workers"); i++)
			ops += shm->ops[i];
		live_set_metric(r, "bogo_ops_per_s", (double)ops / (t1 - t0));
		live_note(r->res, "worker_kind=threads: %llu threads of one "
			  "process (stress-ng's --vm has no thread mode); one "
			  "bogo op = 1 MiB rewritten, one word per cache line, "
			  "not stress-ng's op; %llu ops in %.2f s",
			  (unsigned long long)live_param(r, "workers"),
			  (unsigned long long)ops, t1 - t0);
	} else if (stop == LIVE_STOP_NONE) {
		rt_stress_ng_result(r, dir);
	}
	live_note(r->res, "memory cgroup v%d %s, limit %llu MiB (removed at "
		  "exit)", r->memcg.version, r->memcg.path,
		  (unsigned long long)(live_param(r, "memcg_limit") >> 20));
	if (r->memcg.enabled_memory)
		live_note(r->res, "\"memory\" enabled in %s/cgroup.subtree_control "
			  "for the run (disabled at exit)", r->memcg.parent);
	if (dir[0])
		rt_rmdir(dir);
	live_shm_unmap(shm);
	return stop;

out_error:
	live_close_start_pipe(r);
	if (dir[0])
		rt_rmdir(dir);
	live_shm_unmap(shm);
	return LIVE_STOP_ERROR;
}

const struct live_ops reclaim_tlb_live = {
	.summary = "stress-ng --vm workers reclaimed in a memory cgroup",
	.record_locks = true,
	.memory_bytes = rt_memory,
	.check = rt_check,
	.run = rt_run,
};
