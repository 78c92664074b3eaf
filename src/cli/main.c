// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmsim's entry point: the command line over the real scenario registry.
 * Everything else is in cli.c and the mmsim_cli library, so that the tests can run the same code with
 * a registry of their own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"

/*
 * A descriptor 0, 1 or 2 that the caller closed (`2>&-`) is opened on
 * /dev/null before anything else: otherwise the first file mmsim opens
 * takes its number, and a note meant for stderr lands in an output file.
 */
static void open_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(2);	/* nowhere to say it */
}

int main(int argc, char **argv)
{
	open_std_fds();
	return mmsim_main(argc, argv, sim_scenarios, stdout, stderr);
}
