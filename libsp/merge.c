/* SPDX-License-Identifier: MIT */
/*
 * sp_merge: many spools into one writer, input ids mapped per kind by
 * the shared remap code (remap_int.h), one input after another.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp/merge.h"
#include "sp/writer.h"
#include "remap_int.h"

struct sp_merge {
	int fd;
	int failed;
	struct sp_writer *w;  /* created by the first input */
	struct sp_remap map;
};

int
sp_merge_new(struct sp_merge **out, int fd)
{
	struct sp_merge *m;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->fd = fd;
	*out = m;
	return 0;
}

static int
is_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

/*
 * The input header's host as a HOST record: the input's host 0 (spool
 * format, MODULE: "0 = the header's host") maps to it.
 */
static int
put_header_host(struct sp_merge *m, const struct sp_header *h)
{
	struct sp_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.kind = SP_REC_HOST;
	rec.u.host.hostname.s = h->hostname;
	rec.u.host.hostname.len = (uint32_t)strnlen(h->hostname,
	    sizeof(h->hostname));
	rec.u.host.release.s = h->release;
	rec.u.host.release.len = (uint32_t)strnlen(h->release,
	    sizeof(h->release));
	rec.u.host.machine.s = h->machine;
	rec.u.host.machine.len = (uint32_t)strnlen(h->machine,
	    sizeof(h->machine));
	rec.u.host.page_size = h->page_size;
	if (!is_zero(h->boot_id, sizeof(h->boot_id))) {
		memcpy(rec.u.host.boot_id, h->boot_id, sizeof(h->boot_id));
		rec.u.host.has_boot_id = 1;
	}
	return sp_writer_put(m->w, &rec, &m->map.host0);
}

/* One input record; unknown kinds and END are dropped. */
static int
step(struct sp_merge *m, struct sp_record *rec, struct sp_merge_stats *st)
{
	int err;

	if (rec->kind == SP_REC_END || rec->kind == 0 ||
	    rec->kind >= SP_REC_KINDS_)
		return 0;
	if (rec->kind == SP_REC_SAMPLE)
		st->samples++;
	err = sp_remap_put(&m->map, m->w, rec, NULL);
	/*
	 * A frame interned from an earlier input may already have its
	 * SYMBOL; the writer refuses a second one, and the first stands.
	 */
	if (err == -SP_EUSAGE && rec->kind == SP_REC_SYMBOL) {
		st->dup_symbols++;
		return 0;
	}
	return err;
}

static void
input_diag(struct sp_diag *diag, struct sp_replay *in, int err)
{
	const struct sp_diag *d = sp_replay_diag(in);

	if (diag == NULL)
		return;
	if (d != NULL && d->msg[0] != '\0') {
		*diag = *d;
		return;
	}
	diag->offset = 0;
	(void)snprintf(diag->msg, sizeof(diag->msg), "%s", sp_strerror(err));
}

static int
copy_input(struct sp_merge *m, struct sp_replay *in,
    struct sp_merge_stats *st, struct sp_diag *diag)
{
	struct sp_record rec;
	int err;

	while ((err = sp_replay_next(in, &rec)) > 0) {
		st->records++;
		err = step(m, &rec, st);
		if (err < 0) {
			if (diag != NULL) {
				diag->offset = rec.offset;
				(void)snprintf(diag->msg, sizeof(diag->msg),
				    "%s record: %s", sp_kind_name(rec.kind),
				    sp_strerror(err));
			}
			return m->failed = err;
		}
	}
	if (err < 0) {
		/* The input's fault: the merger stays usable. */
		input_diag(diag, in, err);
		return err;
	}
	st->truncated = sp_replay_status(in)->truncated;
	st->end_offset = sp_replay_status(in)->end_offset;
	return 0;
}

static int
empty_input(struct sp_replay *in, struct sp_merge_stats *st,
    struct sp_diag *diag)
{
	struct sp_record rec;
	int err;

	err = sp_replay_next(in, &rec);
	if (err > 0)
		err = -SP_EFORMAT; /* records after no header: not a spool */
	if (err < 0) {
		input_diag(diag, in, err);
		return err;
	}
	st->truncated = sp_replay_status(in)->truncated;
	st->end_offset = sp_replay_status(in)->end_offset;
	return 0;
}

int
sp_merge_add(struct sp_merge *m, struct sp_replay *in,
    struct sp_merge_stats *st, struct sp_diag *diag)
{
	int err;

	memset(st, 0, sizeof(*st));
	if (m == NULL || in == NULL)
		return -SP_EUSAGE;
	if (m->failed)
		return m->failed;
	/*
	 * A spool that ended inside its header has no records: it adds
	 * nothing, and its all-zero header must not become the output's.
	 */
	if (sp_replay_header(in)->version == 0)
		return empty_input(in, st, diag);
	if (m->w == NULL) {
		err = sp_writer_new(&m->w, m->fd, sp_replay_header(in));
		if (err < 0)
			return m->failed = err;
	}
	/* Ids are per input: forget the previous input's mappings. */
	sp_remap_fini(&m->map);
	err = put_header_host(m, sp_replay_header(in));
	if (err < 0)
		return m->failed = err;
	return copy_input(m, in, st, diag);
}

int
sp_merge_failed(const struct sp_merge *m)
{
	return m->failed;
}

int
sp_merge_finish(struct sp_merge *m)
{
	struct sp_header h;
	int err;

	if (m->failed)
		return m->failed;
	if (m->w == NULL) {
		err = sp_header_init_host(&h);
		if (err == 0)
			err = sp_writer_new(&m->w, m->fd, &h);
		if (err < 0)
			return m->failed = err;
	}
	err = sp_writer_finish(m->w);
	if (err < 0)
		m->failed = err;
	return err;
}

void
sp_merge_free(struct sp_merge *m)
{
	if (m == NULL)
		return;
	sp_writer_free(m->w);
	sp_remap_fini(&m->map);
	free(m);
}
