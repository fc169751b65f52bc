/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp/spool/tail.h"
#include "stream_int.h"

struct sp_tail {
	struct sp_stream s;
	int fd;
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
sp_tail_open(const char *path, struct sp_tail **out)
{
	struct sp_tail *t;
	int err;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		err = -errno;
		free(t);
		return err;
	}
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
	free(t);
}
