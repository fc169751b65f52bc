/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "common/lines_int.h"
#include "sp/spool/snapshot.h"
#include "stream_int.h"

struct sp_snapshot {
	struct sp_stream s;
	struct sp_sample *samples;
	size_t nsamples, cap;
	struct sp_python *python;
	size_t npython, cappython;
};

static int
push_sample(struct sp_snapshot *snap, const struct sp_sample *smp)
{
	if (spi_grow_zeroed(&snap->samples, &snap->cap, snap->nsamples + 1,
	    sizeof(*snap->samples)) != 0)
		return -ENOMEM;
	snap->samples[snap->nsamples++] = *smp;
	return 0;
}

static int
push_python(struct sp_snapshot *snap, const struct sp_python *py)
{
	if (spi_grow_zeroed(&snap->python, &snap->cappython, snap->npython + 1,
	    sizeof(*snap->python)) != 0)
		return -ENOMEM;
	snap->python[snap->npython++] = *py;
	return 0;
}

/* Reads every record from an initialised stream. */
static int
load(struct sp_snapshot *snap, struct sp_diag *diag)
{
	struct sp_record r;
	int err;

	while ((err = spi_stream_next(&snap->s, &r)) > 0) {
		if (r.kind == SP_REC_SAMPLE)
			err = push_sample(snap, &r.u.sample);
		else if (r.kind == SP_REC_PYTHON)
			err = push_python(snap, &r.u.python);
		if (err < 0)
			break;
	}
	if (err < 0 && diag != NULL)
		*diag = snap->s.diag;
	return err;
}

static int
snapshot_new(int fd, const void *p, size_t len, struct sp_snapshot **out,
    struct sp_diag *diag)
{
	struct sp_snapshot *snap = calloc(1, sizeof(*snap));
	int err;

	*out = NULL;
	if (snap == NULL)
		return -ENOMEM;
	err = spi_stream_init(&snap->s, fd, p, len);
	if (err == 0)
		err = load(snap, diag);
	/* The stream's source is not kept: everything was copied. */
	snap->s.src.fd = -1;
	snap->s.src.mem = NULL;
	if (err < 0) {
		sp_snapshot_free(snap);
		return err;
	}
	*out = snap;
	return 0;
}

int
sp_snapshot_open_mem(const void *p, size_t len, struct sp_snapshot **out,
    struct sp_diag *diag)
{
	return snapshot_new(-1, p, len, out, diag);
}

/* Maps a regular file; falls back to reading fd for pipes and the like. */
static int
open_fd(int fd, struct sp_snapshot **out, struct sp_diag *diag)
{
	struct stat st;
	void *map;
	int err;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		    fd, 0);
		if (map != MAP_FAILED) {
			err = snapshot_new(-1, map, (size_t)st.st_size, out,
			    diag);
			(void)munmap(map, (size_t)st.st_size);
			return err;
		}
	}
	return snapshot_new(fd, NULL, 0, out, diag);
}

int
sp_snapshot_open(const char *path, struct sp_snapshot **out,
    struct sp_diag *diag)
{
	int fd, err;

	*out = NULL;
	if (strcmp(path, "-") == 0)
		return open_fd(STDIN_FILENO, out, diag);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return spi_path_fail(diag, path, -errno, NULL);
	err = open_fd(fd, out, diag);
	(void)close(fd);
	return err;
}

const struct sp_header *
sp_snapshot_header(const struct sp_snapshot *s)
{
	return &s->s.header;
}

const struct sp_defs *
sp_snapshot_defs(const struct sp_snapshot *s)
{
	return s->s.defs;
}

const struct sp_status *
sp_snapshot_status(const struct sp_snapshot *s)
{
	return &s->s.status;
}

size_t
sp_snapshot_nsamples(const struct sp_snapshot *s)
{
	return s->nsamples;
}

const struct sp_sample *
sp_snapshot_samples(const struct sp_snapshot *s)
{
	return s->samples;
}

size_t
sp_snapshot_python(const struct sp_snapshot *s, const struct sp_python **out)
{
	*out = s->python;
	return s->npython;
}

int
sp_snapshot_timestamp_us(const struct sp_snapshot *s,
    const struct sp_sample *sample, int64_t *us)
{
	return sp_header_timestamp_us(&s->s.header, sample->time, us);
}

void
sp_snapshot_free(struct sp_snapshot *s)
{
	if (s == NULL)
		return;
	spi_stream_fini(&s->s);
	free(s->samples);
	free(s->python);
	free(s);
}
