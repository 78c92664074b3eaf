// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: `mmsim merge`, the CSV reader of a sweep's shards.  The
 * input is one shard, given twice (as shard 1 and as shard 2, so that the
 * header comparison and the duplicate-row check run), read from a memfd
 * so that nothing touches the disk; the merged CSV goes to memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fuzz.h"
#include "mmsim/scenario.h"

int fuzz_merge(const uint8_t *data, size_t size)
{
	char path[64], *obuf = NULL, *ebuf = NULL;
	size_t olen = 0, elen = 0;
	FILE *out, *err;
	int fd = memfd_create("fuzz.csv", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size)
		goto out_close;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	out = open_memstream(&obuf, &olen);
	err = open_memstream(&ebuf, &elen);
	if (out && err) {
		char *argv1[] = { (char *)"mmsim", (char *)"merge", path, NULL };
		char *argv2[] = { (char *)"mmsim", (char *)"merge", path, path, NULL };

		mmsim_main(3, argv1, sim_scenarios, out, err);
		mmsim_main(4, argv2, sim_scenarios, out, err);
	}
	if (out)
		fclose(out);
	if (err)
		fclose(err);
	free(obuf);
	free(ebuf);
out_close:
	close(fd);
	return 0;
}

FUZZ_ENTRY(fuzz_merge)
