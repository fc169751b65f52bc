/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live_int.h"
#include "sp/common/error.h"
#include "sp/spool/tail.h"
#include "stream_int.h"

struct sp_tail {
	struct sp_stream s;
	int fd;
	int punch_fd;         /* the recorder's tail: its writer's file,
	                       * to release what was consumed; -1 */
	off_t punched;        /* released up to here */
	struct sp_tail_events ev;
	struct sp_python python[SP_TAIL_EVENTS_MAX];
	struct sp_proc procs[SP_TAIL_EVENTS_MAX];
};

/* Keeps what a live symbolizer needs of a record that is no sample. */
static void
keep_event(struct sp_tail *t, const struct sp_record *r)
{
	struct sp_tail_events *e = &t->ev;

	if (r->kind == SP_REC_PYTHON) {
		if (e->npython < SP_TAIL_EVENTS_MAX)
			t->python[e->npython++] = r->u.python;
		else
			e->overflow = 1;
	} else if (r->kind == SP_REC_PROC) {
		if (e->nprocs < SP_TAIL_EVENTS_MAX)
			t->procs[e->nprocs++] = r->u.proc;
		else
			e->overflow = 1;
	}
}

int
spi_tail_fd(int fd, int punch_fd, struct sp_tail **out)
{
	struct sp_tail *t;
	int err;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		(void)close(fd);
		if (punch_fd >= 0)
			(void)close(punch_fd);
		return -ENOMEM;
	}
	t->fd = fd;
	t->punch_fd = punch_fd;
	err = spi_stream_init(&t->s, t->fd, NULL, 0);
	if (err < 0) {
		sp_tail_free(t);
		return err;
	}
	t->s.follow = 1;
	*out = t;
	return 0;
}

int
sp_tail_open(const char *path, struct sp_tail **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*out = NULL;
	if (fd < 0)
		return -errno;
	return spi_tail_fd(fd, -1, out);
}

/*
 * The blocks from the first after the header's to the last that only
 * records already consumed fill: the header stays, so the file still
 * says what it is, and the tail reads on from its own offset.
 */
int
sp_tail_discard_consumed(struct sp_tail *t)
{
	struct stat st;
	off_t blk, from, to;

	if (t->punch_fd < 0)
		return -SP_EUSAGE;
	if (fstat(t->punch_fd, &st) != 0)
		return -errno;
	blk = st.st_blksize > 0 ? (off_t)st.st_blksize : 4096;
	from = ((off_t)SP_HEADER_MAX + blk - 1) / blk * blk;
	to = (off_t)t->s.offset / blk * blk;
	if (to <= from || to <= t->punched)
		return 0;
	if (t->punched > from)
		from = t->punched;
	if (fallocate(t->punch_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	    from, to - from) != 0)
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	t->punched = to;
	return 0;
}

int
sp_tail_poll(struct sp_tail *t, struct sp_sample *out, size_t max, size_t *n)
{
	struct sp_record r;
	int err = 0;

	*n = 0;
	memset(&t->ev, 0, sizeof(t->ev));
	t->ev.python = t->python;
	t->ev.procs = t->procs;
	t->ev.modules_from = sp_defs_count(t->s.defs, SP_REC_MODULE);
	while (*n < max && !t->s.ended) {
		err = spi_stream_next(&t->s, &r);
		if (err <= 0)
			break;
		if (r.kind == SP_REC_SAMPLE)
			out[(*n)++] = r.u.sample;
		else
			keep_event(t, &r);
	}
	t->ev.modules_to = sp_defs_count(t->s.defs, SP_REC_MODULE);
	if (err == -SP_EAGAIN)
		err = 0;
	if (err < 0)
		return err;
	return t->s.ended ? 1 : 0;
}

const struct sp_tail_events *
sp_tail_events(const struct sp_tail *t)
{
	return &t->ev;
}

const struct sp_header *
sp_tail_header(const struct sp_tail *t)
{
	return t->s.have_header ? &t->s.header : NULL;
}

const struct sp_defs *
sp_tail_defs(const struct sp_tail *t)
{
	return t->s.defs;
}

const struct sp_diag *
sp_tail_diag(const struct sp_tail *t)
{
	return &t->s.diag;
}

int
sp_tail_timestamp_us(const struct sp_tail *t, const struct sp_sample *sample,
    int64_t *us)
{
	return t->s.have_header &&
	    sp_header_timestamp_us(&t->s.header, sample->time, us);
}

void
sp_tail_free(struct sp_tail *t)
{
	if (t == NULL)
		return;
	spi_stream_fini(&t->s);
	if (t->fd >= 0)
		(void)close(t->fd);
	if (t->punch_fd >= 0)
		(void)close(t->punch_fd);
	free(t);
}
