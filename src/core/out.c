// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one output sink, struct sim_out: a stream, or text collected in
 * memory, with a failure remembered rather than returned at every write.
 * Everything mmsim prints goes through it (the report layer in
 * src/harness/report*.c, the engine's trace writer, the verdicts), so
 * that tests capture the exact text.
 *
 * Models nothing of the kernel.  No locks; nothing here runs inside the
 * engine.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/output.h"

/* ---- the sink ------------------------------------------------------- */

/**
 * sim_out_init_file() - a sink that writes to a stream
 * @o: the sink
 * @fp: the stream; the caller keeps it open and closes it
 */
void sim_out_init_file(struct sim_out *o, FILE *fp)
{
	memset(o, 0, sizeof(*o));
	o->fp = fp;
}

/**
 * sim_out_init_buffer() - a sink that collects the text in memory
 * @o: the sink; release it with sim_out_release()
 */
void sim_out_init_buffer(struct sim_out *o)
{
	memset(o, 0, sizeof(*o));
}

/**
 * sim_out_release() - free the memory of an in-memory sink
 * @o: the sink
 */
void sim_out_release(struct sim_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

/**
 * sim_out_text() - the text collected by an in-memory sink
 * @o: the sink
 *
 * Return: the text, "" when nothing was written.
 */
const char *sim_out_text(const struct sim_out *o)
{
	return o->buf ? o->buf : "";
}

/**
 * sim_out_write() - write bytes to a sink
 * @o: the sink
 * @s: the bytes
 * @n: how many
 *
 * A failure is remembered in o->failed.
 */
void sim_out_write(struct sim_out *o, const char *s, size_t n)
{
	if (o->fp) {
		if (fwrite(s, 1, n, o->fp) != n)
			o->failed = true;
		return;
	}
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 1024;
		char *nb;

		while (cap < o->len + n + 1)
			cap *= 2;
		nb = realloc(o->buf, cap);
		if (!nb) {
			o->failed = true;
			return;
		}
		o->buf = nb;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/**
 * sim_out_printf() - formatted write to a sink
 * @o: the sink
 * @fmt: printf format
 */
void sim_out_printf(struct sim_out *o, const char *fmt, ...)
{
	char small[512], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sim_out_write(o, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		o->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sim_out_write(o, big, (size_t)n);
	free(big);
}
