/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp/error.h"
#include "sp/output.h"

int
sp_output_open(const char *path, int *fd, struct sp_diag *diag)
{
	int err;

	diag->offset = 0;
	if (strcmp(path, "-") == 0) {
		if (isatty(STDOUT_FILENO)) {
			(void)snprintf(diag->msg, sizeof(diag->msg),
			    "refusing to write a binary spool to a terminal; "
			    "use -o FILE or a pipe");
			return -SP_EUSAGE;
		}
		*fd = STDOUT_FILENO;
		return 0;
	}
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd >= 0)
		return 0;
	err = -errno;
	/* Said as the output: the tools also name input files. */
	(void)snprintf(diag->msg, sizeof(diag->msg), "output %s: %s", path,
	    sp_strerror(err));
	return err;
}

static int
is_regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

void
sp_output_abandon(const char *path, int fd)
{
	if (fd < 0 || fd == STDOUT_FILENO)
		return;
	if (is_regular(fd))
		(void)unlink(path);
	(void)close(fd);
}

int
sp_output_close(const char *path, int fd)
{
	int reg, err;

	if (fd < 0 || fd == STDOUT_FILENO)
		return 0;
	reg = is_regular(fd);
	if (close(fd) == 0)
		return 0;
	/* NFS and quotas can report a failed write only now. */
	err = -errno;
	if (reg)
		(void)unlink(path);
	return err;
}
