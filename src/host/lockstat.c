// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode: lock waits from the kernel's contention tracepoints, through
 * `perf lock` (tools/perf/builtin-lock.c), as the deferred-split post
 * measured them ("perf lock contention showed ...").
 *
 * Mirrors no kernel function.  The kernel fires lock:contention_begin and
 * lock:contention_end around every slow-path wait (queued_spin_lock_slowpath(),
 * rwsem and mutex slow paths); perf pairs them per task and sums the wait
 * per caller, the first function of the call chain outside the locking
 * code.  Three ways, chosen in live_lockrec_start():
 *
 *   perf lock contention -b -a    where perf was built with BPF (not
 *                                 Debian 12's 6.1): the kernel sums
 *   mmsim's own streaming count   otherwise (lockstream.c): bounded memory,
 *                                 the waits summed while the run goes
 *   perf record + perf lock -i    only with MMSIM_LIVE_LOCKS=perf-record:
 *                                 a 60 s 16-worker reclaim run (23 M
 *                                 contentions) gave no table this way
 *
 * The perf record way:
 *   mmsim (parent)                        perf
 *   spawn workloads, blocked on a pipe
 *   host_spawn() perf record -e lock:contention_begin -e lock:contention_end
 *             -g -p PID,... -o DATA  ---> opens one event per task (inherit)
 *   poll /proc/PERF/fd until the events are open
 *   release the workloads; run; they exit
 *   SIGINT perf  ------------------------> writes DATA, exits
 *   perf lock contention -i DATA -E N ---> the table, parsed here
 *
 * Only the workload's own tasks (and what they fork) are counted, not the
 * whole machine (except in BPF mode), because this host is shared; a wait
 * inside kswapd or a kworker on the workload's behalf is not counted.
 *
 * perf names a wait by its caller ("folio_lruvec_lock_irqsave+0x4e"); the
 * post's locks are the callers that take them: the lruvec lock
 * (lruvec->lru_lock) through folio_lruvec_lock*() or directly in
 * mm/vmscan.c and mm/swap.c; the deferred split queue's lock through
 * deferred_split_folio(), __folio_unqueue_deferred_split(),
 * deferred_split_scan() and folio_split_queue_lock*() (or the list_lru
 * that the seed's kernel uses).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/spawn.h"
#include "host/live_internal.h"

#define LIVE_PERF_REPORT_S 120	/* the most perf may take to print its table */

static int live_wait_bounded(pid_t pid, int secs);
static int live_perf_start(struct live_lockrec *lr, const pid_t *pids, int nr);

/**
 * live_lock_class - which of the posts' locks a perf caller takes
 * @caller: as perf prints it, "folio_lruvec_lock_irqsave+0x4e"
 *
 * Context: any.
 * Return: LIVE_LOCK_LRUVEC, LIVE_LOCK_DEFERRED_SPLIT or LIVE_LOCK_OTHER.
 */
enum live_lock_class live_lock_class(const char *caller)
{
	static const char *const lruvec[] = {
		"folio_lruvec_lock", "folio_lruvec_relock", "lruvec_lock",
		"move_folios_to_lru", "shrink_inactive_list",
		"shrink_active_list", "isolate_lru_folios", "folio_isolate_lru",
		"folio_batch_move_lru", "lru_note_cost", "lru_add",
	};
	static const char *const split[] = {
		"deferred_split", "split_queue_lock", "folio_unqueue_deferred",
		"list_lru_add", "list_lru_del",
	};
	char fn[96];
	size_t n = strcspn(caller, "+");

	snprintf(fn, sizeof(fn), "%.*s", (int)(n < sizeof(fn) ? n : sizeof(fn) - 1),
		 caller);
	for (size_t i = 0; i < sizeof(split) / sizeof(split[0]); i++)
		if (strstr(fn, split[i]))
			return LIVE_LOCK_DEFERRED_SPLIT;
	for (size_t i = 0; i < sizeof(lruvec) / sizeof(lruvec[0]); i++)
		if (strstr(fn, lruvec[i]))
			return LIVE_LOCK_LRUVEC;
	return LIVE_LOCK_OTHER;
}

/* "13.94 ms" -> seconds; NULL on a unit perf does not print. */
static const char *live_parse_time(const char *p, double *s)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
		{ "m", 60 }, { "h", 3600 },
	};
	char *end;
	double v = strtod(p, &end);

	if (end == p)
		return NULL;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].unit);

		if (!strncmp(end, units[i].unit, n) && (end[n] == ' ' || !end[n] ||
							end[n] == '\n')) {
			*s = v * units[i].mul;
			return end + n;
		}
	}
	return NULL;
}

/**
 * live_parse_perf_lock - parse the table of `perf lock contention`
 * @text: its output: a header line " contended   total wait ..." and one
 *        line per caller: "4  33.20 ms  10.97 ms  8.30 ms  rwsem:R  caller+0x1d8"
 * @l: filled with the rows and the sums per lock class
 *
 * Lines that are not rows (the header, perf's messages) are skipped.
 *
 * Context: any.
 * Return: the number of rows, or -ENOENT when @text has no header (perf
 * printed an error instead of the table).
 */
int live_parse_perf_lock(const char *text, struct live_locks *l)
{
	const char *line = text;
	bool header = false;

	memset(l->row, 0, sizeof(l->row));
	l->nr = 0;
	memset(l->wait_s, 0, sizeof(l->wait_s));
	memset(l->contended, 0, sizeof(l->contended));
	while (line && *line) {
		const char *next = strchr(line, '\n');
		char buf[512];
		const char *p;
		unsigned long long cont;
		double total, max, avg;
		char type[32], caller[128];
		int n;

		snprintf(buf, sizeof(buf), "%.*s", next ? (int)(next - line) :
			 (int)strlen(line), line);
		line = next ? next + 1 : NULL;
		if (strstr(buf, "contended") && strstr(buf, "total wait")) {
			header = true;
			continue;
		}
		if (!header || sscanf(buf, "%llu%n", &cont, &n) != 1)
			continue;
		p = buf + n;
		while (*p == ' ')
			p++;
		if (!(p = live_parse_time(p, &total)) ||
		    !(p = live_parse_time(p, &max)) ||
		    !(p = live_parse_time(p, &avg)))
			continue;
		if (sscanf(p, "%31s %127s", type, caller) != 2)
			continue;
		if (l->nr < LIVE_MAX_LOCK_ROWS) {
			struct live_lock_row *r = &l->row[l->nr++];

			r->contended = cont;
			r->wait_total_s = total;
			r->wait_max_s = max;
			snprintf(r->type, sizeof(r->type), "%s", type);
			snprintf(r->caller, sizeof(r->caller), "%s", caller);
			r->cls = live_lock_class(caller);
			l->wait_s[r->cls] += total;
			l->contended[r->cls] += cont;
		}
	}
	return header ? l->nr : -ENOENT;
}

/* Count the file descriptors of @pid whose link names @what. */
static int live_nr_fds_named(pid_t pid, const char *what)
{
	char dir[64], link[600], target[64];
	struct dirent *de;
	DIR *d;
	int nr = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, what))
			nr++;
	}
	closedir(d);
	return nr;
}

/*
 * Start perf in the background, its stdout and stderr to @out_path; it
 * dies with mmsim (PR_SET_PDEATHSIG).  Return its pid, or a negative errno
 * (fork failed, perf could not be run), as host_spawn().
 */
static pid_t live_exec_perf(char *const argv[], const char *out_path)
{
	struct host_cmd cmd = { .file = argv[0], .argv = argv,
				.pdeathsig = SIGKILL, .output = out_path };

	return host_spawn(&cmd, -1);
}

static void live_first_line(const char *path, char *out, size_t len)
{
	char buf[1024];
	const char *p;

	out[0] = '\0';
	if (live_read_file(path, buf, sizeof(buf)) <= 0)
		return;
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
		if (!*p || strstr(p, "Warning") || strstr(p, "build id"))
			continue;
		if (!strcmp(p, "Error:"))	/* perf puts the reason below */
			continue;
		snprintf(out, len, "perf: %s", p);
		return;
	}
}

/**
 * live_on_path() - whether @prog is an executable in a directory of $PATH
 * @prog: a program name, without a slash
 *
 * Return: true if found (/usr/bin:/bin when PATH is unset).
 */
bool live_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096], file[4200], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(file, sizeof(file), "%s/%s", d, prog);
		if (!access(file, X_OK))
			return true;
	}
	return false;
}

/**
 * live_perf_lock_has_bpf - whether this perf has `perf lock contention -b`
 * @help: what `perf lock contention -h` printed
 *
 * Debian 12's perf 6.1 lists -b with "(not built-in because no
 * BUILD_BPF_SKEL=1)", and refuses it.
 */
bool live_perf_lock_has_bpf(const char *help)
{
	return strstr(help, "--use-bpf") && !strstr(help, "not built-in");
}

static bool live_perf_bpf_available(void)
{
	static char text[16384];
	char dir[] = "/tmp/mmsim-live-probe-XXXXXX", out[64];
	char *argv[] = { "perf", "lock", "contention", "-h", NULL };
	bool ok = false;
	pid_t pid;

	if (!mkdtemp(dir))
		return false;
	snprintf(out, sizeof(out), "%s/help", dir);
	pid = live_exec_perf(argv, out);
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (live_read_file(out, text, sizeof(text)) > 0)
		ok = live_perf_lock_has_bpf(text);
	unlink(out);
	rmdir(dir);
	return ok;
}

/* The pids as perf takes them: "12,34". */
static void live_pidlist(char *buf, size_t len, const pid_t *pids, int nr)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < nr && used + 16 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 i ? "," : "", (int)pids[i]);
}

/*
 * perf lock contention -b: the kernel sums the waits in BPF maps; perf
 * prints the table when it gets SIGINT.  It traces every task (-a): its
 * -p filter takes the threads that exist when it starts, and reclaim-tlb's
 * stress-ng forks its workers afterwards.
 */
static int live_perf_bpf_start(struct live_lockrec *lr)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char out[700];

	snprintf(out, sizeof(out), "%s/contention.out", lr->dir);
	{
		char *argv[] = { "perf", "lock", "contention", "-b", "-a",
				 "-E", "64", NULL };

		lr->pid = live_exec_perf(argv, out);
	}
	if (lr->pid < 0) {
		snprintf(lr->why, sizeof(lr->why), "cannot run perf: %s",
			 strerror((int)-lr->pid));
		lr->pid = 0;
		return -EAGAIN;
	}
	snprintf(lr->method, sizeof(lr->method), "perf lock contention -b -a "
		 "(BPF, counted in the kernel; every task of the machine, "
		 "kswapd's and kworkers' waits too)");
	/* attached when its BPF links stop growing */
	for (int i = 0, last = -1, same = 0; i < 1000; i++) {
		int st, n;

		if (waitpid(lr->pid, &st, WNOHANG) == lr->pid) {
			lr->pid = 0;
			live_first_line(out, lr->why, sizeof(lr->why));
			return -EIO;
		}
		if (live_signal)
			break;
		n = live_nr_fds_named(lr->pid, "bpf");
		same = n == last ? same + 1 : 0;
		last = n;
		if (n > 0 && same >= 10) {
			lr->running = true;
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	kill(lr->pid, SIGKILL);
	waitpid(lr->pid, NULL, 0);
	lr->pid = 0;
	snprintf(lr->why, sizeof(lr->why), live_signal ? "interrupted" :
		 "perf lock contention -b did not attach within 10 s");
	return live_signal ? -EINTR : -ETIMEDOUT;
}

/**
 * live_lockrec_start - start counting the workload's lock waits
 * @lr: the recording; on failure, why it is unavailable
 * @pids: the workload processes (blocked until released)
 * @nr: how many
 * @tracefs_ok: tracefs is mounted (the tracepoints' ids are read there)
 *
 * The method: `perf lock contention -b` where perf has its BPF mode, else
 * mmsim's own streaming count of the tracepoints (lockstream.c), whose
 * memory and time stay bounded however many waits there are.
 * MMSIM_LIVE_LOCKS=stream, perf-bpf or perf-record chooses one, off none
 * (no tracepoint enabled: the workload's time without their cost);
 * perf-record is the former way (perf record, then perf lock contention
 * -i), which a 23 M-contention run overwhelms.
 *
 * Context: parent; sleeps until the events are open (at most 10 s).
 * Return: 0, or a negative errno with @lr->why set.
 */
int live_lockrec_start(struct live_lockrec *lr, const pid_t *pids, int nr,
		       bool tracefs_ok)
{
	const char *want = getenv("MMSIM_LIVE_LOCKS");
	bool record = want && !strcmp(want, "perf-record");
	bool bpf = want && !strcmp(want, "perf-bpf");
	bool stream = want && !strcmp(want, "stream");

	memset(lr, 0, sizeof(*lr));
	if (want && !strcmp(want, "off")) {
		snprintf(lr->why, sizeof(lr->why), "not recorded (MMSIM_LIVE_LOCKS=off): "
			 "no lock tracepoint is enabled during the run");
		return -ENOENT;
	}
	if (want && *want && !record && !bpf && !stream) {
		snprintf(lr->why, sizeof(lr->why), "MMSIM_LIVE_LOCKS=%.40s: "
			 "expected off, stream, perf-bpf or perf-record", want);
		return -EINVAL;
	}
	if (!tracefs_ok) {
		snprintf(lr->why, sizeof(lr->why), "lock waits need tracefs, "
			 "which is unavailable");
		return -ENOENT;
	}
	if (!stream && !record && live_on_path("perf") &&
	    (bpf || live_perf_bpf_available()))
		lr->method_id = LIVE_LOCKS_PERF_BPF;
	else if (record)
		lr->method_id = LIVE_LOCKS_PERF_RECORD;
	else if (bpf) {
		snprintf(lr->why, sizeof(lr->why), "MMSIM_LIVE_LOCKS=perf-bpf: "
			 "perf is not installed");
		return -ENOENT;
	} else {
		lr->method_id = LIVE_LOCKS_STREAM;
		return live_lockstream_start(lr, pids, nr);
	}
	return live_perf_start(lr, pids, nr);
}

static int live_perf_start(struct live_lockrec *lr, const pid_t *pids, int nr)
{
	char pidlist[512] = "", out[700], data[700];
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	if (!live_on_path("perf")) {
		snprintf(lr->why, sizeof(lr->why), "perf is not installed "
			 "(Debian: apt-get install linux-perf)");
		return -ENOENT;
	}
	snprintf(lr->dir, sizeof(lr->dir), "/tmp/mmsim-live-perf-XXXXXX");
	if (!mkdtemp(lr->dir)) {
		snprintf(lr->why, sizeof(lr->why), "mkdtemp: %s", strerror(errno));
		lr->dir[0] = '\0';
		return -errno;
	}
	live_state_note_tmpdir(LIVE_STATE_TMPDIR_PERF, lr->dir);
	if (lr->method_id == LIVE_LOCKS_PERF_BPF)
		return live_perf_bpf_start(lr);
	snprintf(lr->method, sizeof(lr->method), "perf record -e "
		 "lock:contention_begin/end -g, then perf lock contention -i "
		 "(unbounded: for small runs)");
	live_pidlist(pidlist, sizeof(pidlist), pids, nr);
	snprintf(data, sizeof(data), "%s/lock.data", lr->dir);
	snprintf(out, sizeof(out), "%s/record.out", lr->dir);
	{
		char *argv[] = { "perf", "record", "-q", "-e",
				 "lock:contention_begin", "-e",
				 "lock:contention_end", "-g", "-p", pidlist,
				 "-o", data, NULL };

		lr->pid = live_exec_perf(argv, out);
	}
	if (lr->pid < 0) {
		snprintf(lr->why, sizeof(lr->why), "cannot run perf: %s",
			 strerror((int)-lr->pid));
		lr->pid = 0;
		return -EAGAIN;
	}
	/*
	 * The workloads are single tasks, blocked, until released; perf has
	 * opened all its events (two per task and CPU, and a dummy) when
	 * their number stops growing: the same over 10 polls, 100 ms.
	 */
	for (int i = 0, last = -1, same = 0; i < 1000; i++) {
		int st, nr_fds;

		if (waitpid(lr->pid, &st, WNOHANG) == lr->pid) {
			lr->pid = 0;
			live_first_line(out, lr->why, sizeof(lr->why));
			if (!lr->why[0])
				snprintf(lr->why, sizeof(lr->why), "perf record "
					 "exited with status %d", WEXITSTATUS(st));
			return -EIO;
		}
		if (live_signal)
			break;	/* the caller sees live_signal and stops */
		nr_fds = live_nr_fds_named(lr->pid, "perf_event");
		same = nr_fds == last ? same + 1 : 0;
		last = nr_fds;
		if (nr_fds >= 2 * nr && same >= 10) {
			lr->running = true;
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	kill(lr->pid, SIGKILL);
	waitpid(lr->pid, NULL, 0);
	lr->pid = 0;
	snprintf(lr->why, sizeof(lr->why), live_signal ? "interrupted" :
		 "perf record did not open its events within 10 s");
	return live_signal ? -EINTR : -ETIMEDOUT;
}

/**
 * live_lockrec_stop - stop perf record and read `perf lock contention`
 * @lr: the recording
 * @l: the table, per caller and per lock class; l->ok false with l->why
 *     when it could not be had
 *
 * Context: parent; sleeps while perf writes and reads its data.
 */
void live_lockrec_stop(struct live_lockrec *lr, struct live_locks *l)
{
	static char text[256 * 1024];
	char out[700], data[700];
	int st;

	memset(l, 0, sizeof(*l));
	if (!lr->running) {
		snprintf(l->why, sizeof(l->why), "%s", lr->why[0] ? lr->why :
			 "lock waits were not counted");
		live_lockrec_cleanup(lr);
		return;
	}
	if (lr->method_id == LIVE_LOCKS_STREAM) {
		live_lockstream_stop(lr, l);
		return;
	}
	kill(lr->pid, SIGINT);
	/* BPF mode prints its table now; give it LIVE_PERF_REPORT_S */
	st = live_wait_bounded(lr->pid, LIVE_PERF_REPORT_S);
	lr->pid = 0;
	lr->running = false;
	snprintf(data, sizeof(data), "%s/lock.data", lr->dir);
	snprintf(out, sizeof(out), "%s/contention.out", lr->dir);
	if (lr->method_id == LIVE_LOCKS_PERF_RECORD) {
		char *argv[] = { "perf", "lock", "contention", "-i", data,
				 "-E", "64", NULL };
		pid_t pid = live_exec_perf(argv, out);

		st = pid > 0 ? live_wait_bounded(pid, LIVE_PERF_REPORT_S) : -1;
	}
	if (st == -ETIMEDOUT) {
		snprintf(l->why, sizeof(l->why), "perf lock contention printed "
			 "no table within %d s", LIVE_PERF_REPORT_S);
		live_lockrec_cleanup(lr);
		return;
	}
	if (live_read_file(out, text, sizeof(text)) < 0 ||
	    live_parse_perf_lock(text, l) < 0) {
		live_first_line(out, l->why, sizeof(l->why));
		if (!l->why[0])
			snprintf(l->why, sizeof(l->why), "perf lock contention "
				 "printed no table");
	} else {
		l->ok = true;
		snprintf(l->method, sizeof(l->method), "%s", lr->method);
	}
	live_lockrec_cleanup(lr);
}

/* waitpid() for at most @secs, then SIGKILL; -ETIMEDOUT if it came to that. */
static int live_wait_bounded(pid_t pid, int secs)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int st;

	for (int i = 0; i < secs * 20; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return 0;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -ETIMEDOUT;
}

/**
 * live_lockrec_cleanup - kill perf if it still runs, remove its files
 * @lr: the recording
 *
 * Context: parent.  Safe to call twice.
 */
void live_lockrec_cleanup(struct live_lockrec *lr)
{
	static const char *const files[] = { "lock.data", "lock.data.old",
		"record.out", "contention.out" };

	if (lr->pid > 0) {
		kill(lr->pid, SIGKILL);
		waitpid(lr->pid, NULL, 0);
		lr->pid = 0;
	}
	lr->running = false;
	if (lr->ls)
		live_lockstream_stop(lr, NULL);
	if (!lr->dir[0])
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[700];

		snprintf(path, sizeof(path), "%s/%s", lr->dir, files[i]);
		unlink(path);
	}
	rmdir(lr->dir);
	lr->dir[0] = '\0';
	live_state_note_tmpdir(LIVE_STATE_TMPDIR_PERF, NULL);
}
