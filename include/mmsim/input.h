/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading an input file whole, bounded in size and in time: profiles and
 * their includes, merge's CSVs, diff's JSON.
 */
#ifndef MMSIM_INPUT_H
#define MMSIM_INPUT_H

#include <stddef.h>

/*
 * How long a FIFO, pipe or terminal may keep mmsim waiting: no byte for
 * SIM_INPUT_IDLE_MS, or not at its end after SIM_INPUT_TOTAL_MS, and the
 * input is refused.
 */
#define SIM_INPUT_IDLE_MS	10000
#define SIM_INPUT_TOTAL_MS	60000

int sim_input_read(const char *path, size_t max, const char *expect,
		   char **textp, size_t *lenp, char *err, size_t errlen);

/*
 * inih's reader over a string, counting lines, so that a handler knows the
 * line it is called for (Debian's inih is built without
 * INI_HANDLER_LINENO) and the line of the last section header.  Pass
 * sim_ini_reader and a struct sim_ini_lines to ini_parse_stream().
 */
struct sim_ini_lines {
	const char *next;		/* the rest of the text */
	int line;			/* lines handed to inih */
	int section_line;		/* the last one that opened a [section] */
};

char *sim_ini_reader(char *str, int num, void *stream);

#endif /* MMSIM_INPUT_H */
