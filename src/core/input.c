// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim_input_read(): an input file read whole, in bounded time and size.
 *
 * Models nothing.  A FIFO with no writer, a terminal nobody types into or
 * a pipe whose writer stalls would block a plain read() forever, and
 * /dev/zero never ends: the file is opened with O_NONBLOCK (so that
 * opening a FIFO returns at once) and each read waits in poll() for at
 * most SIM_INPUT_IDLE_MS, the whole for at most SIM_INPUT_TOTAL_MS; at
 * most @max bytes, no NUL byte (every input mmsim reads is text).
 * `--profile <(command)` and other pipes whose writer writes keep working.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mmsim/input.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * sim_input_read() - read a whole input file, bounded
 * @path: the file
 * @max: the most bytes it may have
 * @expect: what it should be, for the error ("a readable INI file")
 * @textp: the text, NUL-terminated, to free(); NULL on error
 * @lenp: its length
 * @err: "PATH: WHAT: expected @expect" (the caller prefixes its noun)
 * @errlen: size of @err
 *
 * Return: 0, or -1 with @err filled.
 */
int sim_input_read(const char *path, size_t max, const char *expect,
		   char **textp, size_t *lenp, char *err, size_t errlen)
{
	long long start = now_ms(), idle_from = start;
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	struct stat st;
	ssize_t n;
	int fd;

	*textp = NULL;
	*lenp = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot read it (%s): expected %s", path,
			 strerror(errno), expect);
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: a directory: expected %s", path, expect);
		goto out_fail;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long t = now_ms();
		long long wait = idle_from + SIM_INPUT_IDLE_MS - t;

		if (start + SIM_INPUT_TOTAL_MS - t < wait)
			wait = start + SIM_INPUT_TOTAL_MS - t;
		if (!S_ISREG(st.st_mode)) {
			int r = wait > 0 ? poll(&pfd, 1, (int)wait) : 0;

			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0 && idle_from + SIM_INPUT_IDLE_MS <= start + SIM_INPUT_TOTAL_MS) {
				snprintf(err, errlen, "%s: %s for %d s (a FIFO or terminal with no writer?): expected %s",
					 path, len ? "no more bytes" : "nothing to read",
					 SIM_INPUT_IDLE_MS / 1000, expect);
				goto out_fail;
			}
			if (r == 0) {
				snprintf(err, errlen, "%s: not at its end after %d s: expected %s",
					 path, SIM_INPUT_TOTAL_MS / 1000, expect);
				goto out_fail;
			}
		}
		if (cap - len < 65536 + 1) {
			cap = cap ? cap * 2 : 65536 + 1;
			nb = realloc(buf, cap);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto out_fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, 65536);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: reading failed (%s): expected %s", path,
				 strerror(errno), expect);
			goto out_fail;
		}
		if (n == 0)
			break;
		if (memchr(buf + len, '\0', (size_t)n)) {
			snprintf(err, errlen, "%s: a NUL byte: expected %s", path, expect);
			goto out_fail;
		}
		len += (size_t)n;
		if (len > max) {
			snprintf(err, errlen, "%s: longer than %zu bytes: expected %s", path, max,
				 expect);
			goto out_fail;
		}
		idle_from = now_ms();
	}
	close(fd);
	if (!buf && !(buf = malloc(1))) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	buf[len] = '\0';
	*textp = buf;
	*lenp = len;
	return 0;
out_fail:
	free(buf);
	close(fd);
	return -1;
}

/* Like fgets() over a string; see struct sim_ini_lines. */
char *sim_ini_reader(char *str, int num, void *stream)
{
	struct sim_ini_lines *in = stream;
	int n = 0;

	if (!*in->next || num < 2)
		return NULL;
	while (n < num - 1 && in->next[0]) {
		char c = *in->next++;

		str[n++] = c;
		if (c == '\n')
			break;
	}
	str[n] = '\0';
	in->line++;
	for (char *p = str; *p == ' ' || *p == '\t' || *p == '['; p++)
		if (*p == '[') {
			in->section_line = in->line;
			break;
		}
	return str;
}
