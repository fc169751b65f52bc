/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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
	(void)snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path,
	    sp_strerror(err));
	return err;
}
