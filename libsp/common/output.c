/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp/common/error.h"
#include "sp/common/output.h"

/* "-": standard output, refused on a terminal (binary bytes would land on
 * the screen). */
static int
open_stdout(int *fd, struct sp_diag *diag)
{
	diag->offset = 0;
	if (isatty(STDOUT_FILENO)) {
		return sp_diag_set(diag, 0, -SP_EUSAGE, "refusing to write a "
		    "binary spool to a terminal; use -o FILE or a pipe");
	}
	*fd = STDOUT_FILENO;
	return 0;
}

/*
 * What a temporary would replace: path, or the regular file a link at
 * path points to.  NULL (with *mode untouched) when path must be written
 * in place: not a regular file, or not to be looked at.
 */
static char *
replaced(const char *path, mode_t *mode, int *exists)
{
	struct stat st;
	char *real;

	*exists = 0;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? strdup(path) : NULL;
	if (S_ISLNK(st.st_mode)) {
		/* A rename would replace the link itself: follow it. */
		real = realpath(path, NULL);
		if (real == NULL || stat(real, &st) != 0 ||
		    !S_ISREG(st.st_mode)) {
			free(real);
			return NULL;
		}
	} else {
		real = S_ISREG(st.st_mode) ? strdup(path) : NULL;
		if (real == NULL)
			return NULL;
	}
	*mode = st.st_mode & 07777;
	*exists = 1;
	return real;
}

/* Creates a new ".NAME.PID-N" next to o->target; -1 with errno. */
static int
create_tmp(struct sp_output_file *o, mode_t mode, int exists)
{
	const char *slash = strrchr(o->target, '/');
	const char *base = slash != NULL ? slash + 1 : o->target;
	int dirlen = slash != NULL ? (int)(slash + 1 - o->target) : 0;
	size_t len = strlen(o->target) + 40;
	unsigned n;
	int fd = -1;

	if ((o->tmp = malloc(len)) == NULL)
		return -1;
	for (n = 0; n < 100; n++) {
		(void)snprintf(o->tmp, len, "%.*s.%s.%ld-%u", dirlen, o->target,
		    base, (long)getpid(), n);
		/* A new file gets 0600, as perf.data does: profiles hold
		 * command lines, paths and names.  A replaced one keeps its
		 * mode exactly. */
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd >= 0 && exists)
		(void)fchmod(fd, mode);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
	}
	return fd;
}

static void
output_free(struct sp_output_file *o)
{
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}

/*
 * The file behind o for path: a new temporary next to what it replaces,
 * or, where nothing is to be replaced (a FIFO, a device), path itself
 * opened with O_WRONLY | O_CREAT | flags.  -1 with errno.
 */
static int
open_target(struct sp_output_file *o, const char *path, int flags)
{
	mode_t mode = 0600;
	int exists;

	o->name = o->path = path;
	o->target = replaced(path, &mode, &exists);
	if (o->target != NULL)
		return create_tmp(o, mode, exists);
	return open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0600);
}

int
sp_output_redirect(struct sp_output_file *o, const char *path,
    struct sp_diag *diag)
{
	int fd, err;

	memset(o, 0, sizeof(*o));
	o->name = "stdout";
	diag->offset = 0;
	if (path == NULL || strcmp(path, "-") == 0)
		return 0;
	fd = open_target(o, path, O_TRUNC);
	/* No temporary (a directory that takes no new file): write in
	 * place. */
	if (fd < 0)
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	(void)fflush(stdout);
	if (fd < 0 || (fd != STDOUT_FILENO && dup2(fd, STDOUT_FILENO) < 0)) {
		err = -errno;
		if (fd >= 0)
			(void)close(fd);
		sp_output_discard(o);
		(void)sp_diag_set(diag, 0, err, "%s: %s", path,
		    sp_strerror(err));
		return err;
	}
	if (fd != STDOUT_FILENO)
		(void)close(fd);
	return 0;
}

int
sp_output_commit(struct sp_output_file *o, struct sp_diag *diag)
{
	int err = 0;

	diag->offset = 0;
	/* errno is the failed write's: fflush retries what is buffered, or
	 * the writer's own failed write was the last to set it. */
	if (fflush(stdout) != 0 || ferror(stdout))
		err = errno != 0 ? -errno : -EIO;
	/* close(2) reports what a file system defers (NFS, quotas). */
	if (err == 0 && o->path != NULL && close(STDOUT_FILENO) != 0)
		err = -errno;
	if (err == 0 && o->tmp != NULL && rename(o->tmp, o->target) != 0)
		err = -errno;
	if (err < 0) {
		(void)sp_diag_set(diag, 0, err, "%s: %s",
		    o->name, sp_strerror(err));
		sp_output_discard(o);
		return err;
	}
	output_free(o);
	return 0;
}

void
sp_output_discard(struct sp_output_file *o)
{
	if (o->tmp != NULL)
		(void)unlink(o->tmp);
	output_free(o);
}

int
sp_output_spool(struct sp_output_file *o, const char *path, int *fd,
    struct sp_diag *diag)
{
	int err;

	memset(o, 0, sizeof(*o));
	o->name = "stdout";
	*fd = -1;
	if (strcmp(path, "-") == 0)
		return open_stdout(fd, diag);
	diag->offset = 0;
	/* A FIFO or a device is written, never replaced or truncated. */
	*fd = open_target(o, path, 0);
	if (*fd >= 0)
		return 0;
	err = -errno;
	sp_output_discard(o);
	/* Said as the output: the tools also name input files. */
	(void)sp_diag_set(diag, 0, err, "output %s: %s", path,
	    sp_strerror(err));
	return err;
}

int
sp_output_place(struct sp_output_file *o, struct sp_diag *diag)
{
	char *tmp = o->tmp;

	if (tmp == NULL)
		return 0;
	if (rename(tmp, o->target) != 0) {
		int err = -errno;

		(void)sp_diag_set(diag, 0, err, "%s: %s",
		    o->name, sp_strerror(err));
		return err;
	}
	/* Cleared before it is freed: a signal handler may read it. */
	o->tmp = NULL;
	free(tmp);
	return 0;
}

int
sp_output_finish(struct sp_output_file *o, int fd, struct sp_diag *diag)
{
	int err = 0;

	diag->offset = 0;
	/* close(2) reports what a file system defers (NFS, quotas). */
	if (fd >= 0 && fd != STDOUT_FILENO && close(fd) != 0) {
		err = -errno;
		(void)sp_diag_set(diag, 0, err, "output %s: %s",
		    o->name, sp_strerror(err));
	}
	if (err == 0)
		err = sp_output_place(o, diag);
	sp_output_discard(o);
	return err;
}

void
sp_output_abandon(struct sp_output_file *o, int fd)
{
	if (fd >= 0 && fd != STDOUT_FILENO)
		(void)close(fd);
	sp_output_discard(o);
}
