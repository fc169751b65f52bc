/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/lines_int.h"
#include "replay_int.h"
#include "sp/spool/replay.h"
#include "stream_int.h"

struct sp_replay {
	struct sp_stream s;
	int own_fd;
	int fd;              /* the source's, -1 for memory */
	off_t fd_start;      /* fd's offset at open; -1: not seekable */
	const void *mem;     /* a memory source */
	size_t len;
	int done;            /* sp_replay_next returned 0 or an error */
	int counted;         /* count is known */
	uint64_t count;
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
	r->fd = fd;
	r->fd_start = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : -1;
	r->mem = p;
	r->len = len;
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
spi_replay_ahead(const struct sp_replay *r, uint32_t skip,
    struct sp_replay **out)
{
	struct sp_replay *a;
	struct stat st;
	int err;

	*out = NULL;
	if (r->fd >= 0 && (r->fd_start < 0 || fstat(r->fd, &st) < 0 ||
	    !S_ISREG(st.st_mode)))
		return -ESPIPE;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	a->own_fd = -1;
	a->fd = r->fd;
	a->fd_start = r->fd_start;
	a->mem = r->mem;
	a->len = r->len;
	err = spi_stream_init(&a->s, r->fd, r->mem, r->len);
	/* It keeps no crc32, so the END record that checks it is skipped;
	 * a file is read with pread, leaving r's offset alone. */
	a->s.skip = skip | 1u << SP_REC_END;
	a->s.src.at = r->fd >= 0 ? (int64_t)r->fd_start : -1;
	if (err == 0)
		err = spi_stream_start(&a->s);
	if (err < 0) {
		sp_replay_free(a);
		return err;
	}
	*out = a;
	return 0;
}

int
sp_replay_next(struct sp_replay *r, struct sp_record *rec)
{
	int err = spi_stream_next(&r->s, rec);

	r->done |= err <= 0;
	return err;
}

/* The samples of the validated prefix of len bytes at p, by a stream of
 * its own (the reader's stays where it is). */
static int
count_samples(const void *p, size_t len, uint64_t *n)
{
	struct sp_stream s;
	struct sp_record rec;
	int err;

	err = spi_stream_init(&s, -1, p, len);
	if (err == 0)
		err = spi_stream_start(&s);
	while (err == 0 && (err = spi_stream_next(&s, &rec)) > 0)
		err = 0;
	*n = s.status.samples;
	spi_stream_fini(&s);
	/* A damaged record ends the prefix: the count is the answer. */
	return err == -ENOMEM ? err : 0;
}

/* count_samples over the reader's file, mapped from where it began. */
static int
count_file(const struct sp_replay *r, uint64_t *n)
{
	struct stat st;
	size_t len;
	void *map;
	int err;

	if (r->fd_start < 0 || fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -ESPIPE;
	if (st.st_size <= r->fd_start)
		return count_samples(NULL, 0, n);
	if ((uint64_t)st.st_size > SIZE_MAX)
		return -EFBIG;
	len = (size_t)st.st_size;
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	err = count_samples((const uint8_t *)map + r->fd_start,
	    len - (size_t)r->fd_start, n);
	(void)munmap(map, len);
	return err;
}

int
sp_replay_sample_count(struct sp_replay *r, uint64_t *n)
{
	int err;

	if (r->done) {
		*n = r->s.status.samples;
		return 0;
	}
	if (!r->counted) {
		err = r->fd >= 0 ? count_file(r, &r->count) :
		    count_samples(r->mem, r->len, &r->count);
		if (err < 0)
			return err;
		r->counted = 1;
	}
	*n = r->count;
	return 0;
}

int
sp_replay_timestamp_us(const struct sp_replay *r,
    const struct sp_sample *sample, int64_t *us)
{
	return sp_header_timestamp_us(&r->s.header, sample->time, us);
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
