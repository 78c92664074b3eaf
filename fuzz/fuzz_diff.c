// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: `mmsim diff A.json B.json`, the reader of two saved runs.
 * The input is A, or A and B separated by the first byte 0x01 (which JSON
 * text never holds raw); each is put in a memfd so that nothing touches
 * the disk, and diff runs as A B and as B A (A A without a 0x01), so that
 * the matching of variants, metrics and locks sees two different files.
 * The table goes to memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fuzz.h"
#include "mmsim/scenario.h"

static int fuzz_diff_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz.json", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int fuzz_diff(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, 0x01, size);
	size_t alen = sep ? (size_t)(sep - data) : size;
	char pa[64], pb[64], *obuf = NULL, *ebuf = NULL;
	size_t olen = 0, elen = 0;
	FILE *out, *err;
	int fa, fb;

	fa = fuzz_diff_memfd(data, alen, pa, sizeof(pa));
	if (fa < 0)
		return 0;
	fb = sep ? fuzz_diff_memfd(sep + 1, size - alen - 1, pb, sizeof(pb)) : -1;
	if (!sep)
		snprintf(pb, sizeof(pb), "%s", pa);
	else if (fb < 0)
		goto out_close;
	out = open_memstream(&obuf, &olen);
	err = open_memstream(&ebuf, &elen);
	if (out && err) {
		char *argv1[] = { (char *)"mmsim", (char *)"diff", pa, pb, NULL };
		char *argv2[] = { (char *)"mmsim", (char *)"diff", pb, pa, NULL };

		mmsim_main(4, argv1, sim_scenarios, out, err);
		if (sep)
			mmsim_main(4, argv2, sim_scenarios, out, err);
	}
	if (out)
		fclose(out);
	if (err)
		fclose(err);
	free(obuf);
	free(ebuf);
out_close:
	if (fb >= 0)
		close(fb);
	close(fa);
	return 0;
}

FUZZ_ENTRY(fuzz_diff)
