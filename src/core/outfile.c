// SPDX-License-Identifier: GPL-2.0-only
/*
 * Result files: every file mmsim writes for the user goes through
 * sim_outfile_open() and sim_outfile_commit() (docs/input.md, "Output
 * files").  A missing path or a regular file is written whole or not at
 * all (an unnamed O_TMPFILE file in its directory, linked and renamed
 * into place at the end); a device, FIFO or socket is written in place and
 * never replaced; a symbolic link is followed; a directory is refused.
 * sim_outfile_check() makes the same checks without opening anything, for
 * writers that make their file at the end.
 *
 * Models nothing of the kernel.  No locks; nothing here runs inside the
 * engine.  Named temporaries are removed on SIGINT, SIGTERM and SIGHUP.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "mmsim/input.h"
#include "mmsim/output.h"

/* ---- result files ------------------------------------------------------- */

/*
 * Temporary names that exist right now (a named temporary file, or the
 * moment between linkat() and rename()), removed if SIGINT, SIGTERM or
 * SIGHUP ends the process.  Only the process that made them removes them
 * (a forked child inherits the table, not the files).
 */
#define OUTFILE_MAX_TMPS	64
static char *outfile_tmps[OUTFILE_MAX_TMPS];
static pid_t outfile_owner;
static struct sigaction outfile_old[3];
static const int outfile_signals[3] = { SIGINT, SIGTERM, SIGHUP };

static void outfile_on_signal(int sig)
{
	int i;

	if (getpid() == outfile_owner)
		for (i = 0; i < OUTFILE_MAX_TMPS; i++)
			if (outfile_tmps[i])
				unlink(outfile_tmps[i]);	/* async-signal-safe */
	for (i = 0; i < 3; i++)
		if (outfile_signals[i] == sig)
			sigaction(sig, &outfile_old[i], NULL);
	raise(sig);
}

/* Remember @tmp until outfile_forget(); 0, or -1 when the table is full. */
static int outfile_remember(char *tmp)
{
	sigset_t all, old;
	int i, ret = -1;

	if (!outfile_owner) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = outfile_on_signal;
		sigfillset(&sa.sa_mask);
		for (i = 0; i < 3; i++)
			sigaction(outfile_signals[i], &sa, &outfile_old[i]);
	}
	outfile_owner = getpid();
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < OUTFILE_MAX_TMPS; i++)
		if (!outfile_tmps[i]) {
			outfile_tmps[i] = tmp;
			ret = 0;
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void outfile_forget(const char *tmp)
{
	sigset_t all, old;
	int i;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < OUTFILE_MAX_TMPS; i++)
		if (outfile_tmps[i] == tmp)
			outfile_tmps[i] = NULL;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* An unnamed file in @path's directory (O_TMPFILE), or -1 with errno set. */
static int outfile_open_anonymous(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash)
		return open(".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(dir);
	return fd;
}

/*
 * Follow @path's symbolic links to the path they end at, which need not
 * exist (a dangling link names the file to create).  Return: a malloc'd
 * path, or NULL with errno set (ELOOP after 40 links, as the kernel).
 */
static char *outfile_follow(const char *path)
{
	char *cur = strdup(path);

	for (int i = 0; cur && i < 40; i++) {
		char buf[PATH_MAX], *next;
		struct stat st;
		ssize_t n;

		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return cur;
		n = readlink(cur, buf, sizeof(buf) - 1);
		if (n < 0)
			break;
		buf[n] = '\0';
		if (buf[0] == '/') {
			next = strdup(buf);
		} else {
			const char *slash = strrchr(cur, '/');
			size_t dl = slash ? (size_t)(slash - cur) + 1 : 0;

			next = malloc(dl + (size_t)n + 1);
			if (next) {
				memcpy(next, cur, dl);
				memcpy(next + dl, buf, (size_t)n + 1);
			}
		}
		free(cur);
		cur = next;
	}
	if (cur) {
		free(cur);
		errno = ELOOP;
	}
	return NULL;
}

/*
 * A path that exists and is not a regular file (a character or block
 * device, a FIFO, a socket) is written directly, never replaced: /dev/null
 * takes the text, /dev/full fails at commit.  A FIFO is opened without
 * blocking, waiting for a reader as long as an input waits for a writer
 * (SIM_INPUT_IDLE_MS).
 */
static int outfile_open_direct(struct sim_outfile *f, const char *opt,
			       const char *path, const struct stat *st,
			       char *err, size_t len)
{
	int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY, fd;
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (S_ISFIFO(st->st_mode)) {
		for (int ms = 0;; ms += 10) {
			fd = open(path, flags | O_NONBLOCK);
			if (fd >= 0 || errno != ENXIO || ms >= SIM_INPUT_IDLE_MS)
				break;
			nanosleep(&tick, NULL);
		}
		if (fd < 0 && errno == ENXIO) {
			snprintf(err, len, "%s %s: a FIFO with no reader after %d s: "
				 "expected a reader on it, or a file path", opt,
				 path, SIM_INPUT_IDLE_MS / 1000);
			return -1;
		}
		if (fd >= 0)
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	} else {
		fd = open(path, flags);
	}
	if (fd < 0) {
		snprintf(err, len, "%s %s: cannot open it for writing (%s): expected "
			 "a file path, a device or a FIFO", opt, path, strerror(errno));
		return -1;
	}
	f->fp = fdopen(fd, "w");
	f->path = strdup(path);
	if (!f->fp || !f->path) {
		snprintf(err, len, "%s %s: out of memory", opt, path);
		if (f->fp)
			fclose(f->fp);
		else
			close(fd);
		free(f->path);
		memset(f, 0, sizeof(*f));
		return -1;
	}
	f->direct = true;
	return 0;
}

/*
 * Check that @target's name fits the file system, so that a name over
 * NAME_MAX fails now and not after the run.  0, or -1 with @err filled.
 */
static int outfile_check_name(const char *opt, const char *path,
			      const char *target, char *err, size_t len)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	char *dir = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target))
			  : strdup(".");
	long name_max;

	if (!dir) {
		snprintf(err, len, "%s %s: out of memory", opt, path);
		return -1;
	}
	errno = 0;
	name_max = pathconf(dir, _PC_NAME_MAX);
	free(dir);
	if (name_max <= 0)
		name_max = NAME_MAX;
	if (!*base) {
		snprintf(err, len, "%s %s: expected a file path, not a directory",
			 opt, path);
		return -1;
	}
	if (strlen(base) > (size_t)name_max || strlen(target) >= PATH_MAX) {
		snprintf(err, len, "%s %s: the file name is too long (%zu bytes): "
			 "expected at most %ld bytes", opt, path, strlen(base), name_max);
		return -1;
	}
	return 0;
}

/* What an output path names, by the rules of sim_outfile_open(). */
enum outfile_kind {
	OUTFILE_STDOUT,		/* "-" */
	OUTFILE_DIRECT,		/* an existing device, FIFO or socket */
	OUTFILE_REGULAR,	/* missing or a regular file: links followed */
};

/*
 * Classify @path: refuse an empty path, a directory, a path that cannot be
 * looked up or followed, and a name too long for its file system.  For
 * OUTFILE_DIRECT @st is the node's; for OUTFILE_REGULAR *@target is the
 * path the links end at (malloc'd).  Return: the kind, or -1 with @err.
 */
static int outfile_classify(const char *opt, const char *path, struct stat *st,
			    char **target, char *err, size_t len)
{
	*target = NULL;
	if (!strcmp(path, "-"))
		return OUTFILE_STDOUT;
	if (!*path) {
		snprintf(err, len, "%s: an empty path: expected a file path", opt);
		return -1;
	}
	if (!stat(path, st)) {
		if (S_ISDIR(st->st_mode)) {
			snprintf(err, len, "%s %s: expected a file path, not a directory",
				 opt, path);
			return -1;
		}
		if (!S_ISREG(st->st_mode))
			return OUTFILE_DIRECT;
	} else if (errno != ENOENT) {
		snprintf(err, len, "%s %s: cannot use it (%s): expected a path in a "
			 "writable directory", opt, path, strerror(errno));
		return -1;
	}
	*target = outfile_follow(path);
	if (!*target) {
		snprintf(err, len, "%s %s: cannot follow it (%s): expected a path in "
			 "a writable directory", opt, path, strerror(errno));
		return -1;
	}
	if (outfile_check_name(opt, path, *target, err, len)) {
		free(*target);
		*target = NULL;
		return -1;
	}
	return OUTFILE_REGULAR;
}

/**
 * sim_outfile_open() - start a result file
 * @f: the file to set up
 * @opt: the option that names it, for errors ("--json")
 * @path: the path, or "-" for @stdout_fp
 * @stdout_fp: standard output
 * @err: one line naming the path and what was expected
 * @len: size of @err
 *
 * What @path names decides how it is written (docs/input.md, "Output
 * files"):
 *   missing or a regular file   written whole or not at all: created now,
 *                               so that a bad path fails before the run,
 *                               but without a name (an O_TMPFILE file in
 *                               the directory, which nothing can leave
 *                               behind, not even SIGKILL; where the file
 *                               system cannot, a named .mmsim.PID.N.tmp,
 *                               removed on SIGINT, SIGTERM and SIGHUP),
 *                               then renamed over it
 *   a symbolic link             followed: the rule of what it points to
 *                               applies to the target, the link stays
 *   a device, FIFO, socket      written directly, never replaced
 *   a directory                 refused
 *
 * Return: 0, or -1 with @err filled.
 */
int sim_outfile_open(struct sim_outfile *f, const char *opt, const char *path,
		     FILE *stdout_fp, char *err, size_t len)
{
	static unsigned int seq;
	char *target = NULL;
	const char *slash;
	struct stat st;
	size_t n;
	int fd, kind;

	memset(f, 0, sizeof(*f));
	kind = outfile_classify(opt, path, &st, &target, err, len);
	if (kind < 0)
		return -1;
	if (kind == OUTFILE_STDOUT) {
		f->fp = stdout_fp;
		return 0;
	}
	if (kind == OUTFILE_DIRECT)
		return outfile_open_direct(f, opt, path, &st, err, len);
	slash = strrchr(target, '/');
	n = (slash ? (size_t)(slash - target) + 1 : 0) + 64;
	f->path = target;
	f->tmp = malloc(n);
	if (!f->tmp) {
		snprintf(err, len, "%s %s: out of memory", opt, path);
		goto out_free;
	}
	/* a short name, so that a long but valid one still fits */
	snprintf(f->tmp, n, "%.*s.mmsim.%ld.%u.tmp",
		 slash ? (int)(slash - target) + 1 : 0, target, (long)getpid(), seq++);
	fd = outfile_open_anonymous(target);
	if (fd >= 0) {
		f->anonymous = true;
	} else if (errno == EISDIR || errno == EOPNOTSUPP || errno == EINVAL) {
		/* no O_TMPFILE here: a named file, removed on signals */
		if (outfile_remember(f->tmp)) {
			snprintf(err, len, "%s %s: too many output files", opt, path);
			goto out_free;
		}
		fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0)
			outfile_forget(f->tmp);
	}
	if (fd < 0) {
		snprintf(err, len,
			 "%s %s: cannot create it (%s): expected a path in a writable directory",
			 opt, path, strerror(errno));
		goto out_free;
	}
	f->fp = fdopen(fd, "w");
	if (!f->fp) {
		snprintf(err, len, "%s %s: %s", opt, path, strerror(errno));
		close(fd);
		if (!f->anonymous) {
			unlink(f->tmp);
			outfile_forget(f->tmp);
		}
		goto out_free;
	}
	return 0;
out_free:
	free(f->path);
	free(f->tmp);
	memset(f, 0, sizeof(*f));
	return -1;
}

/**
 * sim_outfile_check() - check an output path before any work, creating nothing
 * @opt: the option that names it, for errors ("--plot")
 * @path: the path ("-" passes)
 * @err: one line naming the path and what was expected
 * @len: size of @err
 *
 * The checks of sim_outfile_open() without opening anything: for a
 * writer that makes its file only at the end (a chart drawn by gnuplot,
 * live mode's reports).  The write itself then goes through
 * sim_outfile_open() and sim_outfile_commit().
 *
 * Return: 0, or -1 with @err filled.
 */
int sim_outfile_check(const char *opt, const char *path, char *err, size_t len)
{
	char *target, *dir;
	const char *slash;
	struct stat st;
	int ret = 0, kind;

	kind = outfile_classify(opt, path, &st, &target, err, len);
	if (kind < 0)
		return -1;
	if (kind == OUTFILE_STDOUT)
		return 0;
	if (kind == OUTFILE_DIRECT) {
		if (!access(path, W_OK))
			return 0;
		snprintf(err, len, "%s %s: cannot write it (%s): expected a writable "
			 "file, device or FIFO", opt, path, strerror(errno));
		return -1;
	}
	slash = strrchr(target, '/');
	dir = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target))
		    : strdup(".");
	errno = 0;
	if (!dir) {
		snprintf(err, len, "%s %s: out of memory", opt, path);
		ret = -1;
	} else if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK)) {
		snprintf(err, len, "%s %s: cannot create it (%s): expected a path in "
			 "a writable directory", opt, path,
			 errno ? strerror(errno) : "not a directory");
		ret = -1;
	}
	free(dir);
	free(target);
	return ret;
}

/* Give the anonymous file of @f the name f->tmp; 0 or -1 with errno set. */
static int outfile_link(struct sim_outfile *f)
{
	char proc[64];

	if (outfile_remember(f->tmp)) {
		errno = EMFILE;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(f->fp));
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW))
		return 0;
	unlink(f->tmp);		/* a stale one of an earlier process of this pid */
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW) ||
	    !linkat(fileno(f->fp), "", AT_FDCWD, f->tmp, AT_EMPTY_PATH))
		return 0;
	outfile_forget(f->tmp);
	return -1;
}

/**
 * sim_outfile_commit() - write the whole text and put the file in place
 * @f: the file from sim_outfile_open()
 * @text: the complete contents
 * @n: its length
 * @err: one line naming the path and what failed
 * @len: size of @err
 *
 * Return: 0, or -1 with @err filled; the path is then left untouched.
 */
int sim_outfile_commit(struct sim_outfile *f, const char *text, size_t n,
		       char *err, size_t len)
{
	int ret = 0;

	if (!f->fp)
		return 0;
	if (f->direct) {	/* a device or FIFO: written, never replaced */
		if (fwrite(text, 1, n, f->fp) != n || fflush(f->fp))
			ret = -1;
		if (fclose(f->fp))
			ret = -1;
		f->fp = NULL;
		if (ret)
			snprintf(err, len, "%s: writing failed (%s)", f->path,
				 strerror(errno));
		free(f->path);
		f->path = NULL;
		f->direct = false;
		return ret;
	}
	if (!f->tmp) {		/* standard output */
		if (fwrite(text, 1, n, f->fp) != n || fflush(f->fp))
			ret = -1;
		f->fp = NULL;
		if (ret)
			snprintf(err, len, "writing to standard output failed");
		return ret;
	}
	if (fwrite(text, 1, n, f->fp) != n || fflush(f->fp) || fsync(fileno(f->fp)))
		ret = -1;
	if (!ret && f->anonymous && outfile_link(f))
		ret = -1;
	if (fclose(f->fp))
		ret = -1;
	f->fp = NULL;
	if (!ret && rename(f->tmp, f->path))
		ret = -1;
	if (ret) {
		snprintf(err, len, "%s: writing failed (%s)", f->path,
			 strerror(errno));
		unlink(f->tmp);
	}
	outfile_forget(f->tmp);
	free(f->path);
	free(f->tmp);
	f->path = f->tmp = NULL;
	return ret;
}

/**
 * sim_outfile_abort() - give a result file up, leaving its path untouched
 * @f: the file from sim_outfile_open(), or a zeroed one
 */
void sim_outfile_abort(struct sim_outfile *f)
{
	if (f->direct && f->fp) {
		fclose(f->fp);
	} else if (f->tmp && f->fp) {
		fclose(f->fp);
		if (!f->anonymous)
			unlink(f->tmp);
		outfile_forget(f->tmp);
	}
	free(f->path);
	free(f->tmp);
	memset(f, 0, sizeof(*f));
}
