/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/lines_int.h"
#include "sp/spool/replay.h"
#include "stream_int.h"

struct sp_replay {
	struct sp_stream s;
	int own_fd;
};

static int
replay_new(int fd, int own, const void *p, size_t len, struct sp_replay **out,
    struct sp_diag *diag)
{
	struct sp_replay *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (r == NULL) {
		if (own)
			(void)close(fd);
		return -ENOMEM;
	}
	r->own_fd = own ? fd : -1;
	err = spi_stream_init(&r->s, fd, p, len);
	if (err == 0)
		err = spi_stream_start(&r->s);
	if (err < 0) {
		if (diag != NULL)
			*diag = r->s.diag;
		sp_replay_free(r);
		return err;
	}
	*out = r;
	return 0;
}

int
sp_replay_open(const char *path, struct sp_replay **out, struct sp_diag *diag)
{
	int fd;

	*out = NULL;
	if (strcmp(path, "-") == 0)
		return replay_new(STDIN_FILENO, 0, NULL, 0, out, diag);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return spi_path_fail(diag, path, -errno, NULL);
	/* replay_new closes fd when it fails. */
	return replay_new(fd, 1, NULL, 0, out, diag);
}

int
sp_replay_open_fd(int fd, struct sp_replay **out, struct sp_diag *diag)
{
	return replay_new(fd, 0, NULL, 0, out, diag);
}

int
sp_replay_open_mem(const void *p, size_t len, struct sp_replay **out,
    struct sp_diag *diag)
{
	return replay_new(-1, 0, p, len, out, diag);
}

int
sp_replay_next(struct sp_replay *r, struct sp_record *rec)
{
	return spi_stream_next(&r->s, rec);
}

const struct sp_header *
sp_replay_header(const struct sp_replay *r)
{
	return &r->s.header;
}

const struct sp_defs *
sp_replay_defs(const struct sp_replay *r)
{
	return r->s.defs;
}

const struct sp_diag *
sp_replay_diag(const struct sp_replay *r)
{
	return &r->s.diag;
}

const struct sp_status *
sp_replay_status(const struct sp_replay *r)
{
	return &r->s.status;
}

void
sp_replay_free(struct sp_replay *r)
{
	if (r == NULL)
		return;
	spi_stream_fini(&r->s);
	if (r->own_fd >= 0)
		(void)close(r->own_fd);
	free(r);
}
