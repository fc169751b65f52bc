/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/cursor_int.h"
#include "defs_int.h"
#include "stream_int.h"

#define READ_CHUNK ((size_t)256 * 1024)
#define READ_MIN ((size_t)64 * 1024) /* read no less than this at once */

/* Never a null pointer as the source, so mem + pos is always defined. */
static const uint8_t no_bytes[1];

int
spi_stream_init(struct sp_stream *s, int fd, const void *mem, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->src.fd = fd;
	s->src.at = -1;
	s->src.mem = no_bytes;
	if (fd < 0) {
		if (mem != NULL)
			s->src.mem = mem;
		s->src.len = mem != NULL ? len : 0;
		s->src.eof = 1;
	}
	s->defs = spi_defs_new();
	if (s->defs == NULL)
		return -ENOMEM;
	s->crc = (uint32_t)crc32(0L, Z_NULL, 0);
	spi_codec_init(&s->codec, 0);
	return 0;
}

void
spi_stream_fini(struct sp_stream *s)
{
	spi_codec_fini(&s->codec);
	spi_defs_free(s->defs);
	free(s->src.buf);
	memset(s, 0, sizeof(*s));
}

static int
fail(struct sp_stream *s, uint64_t off, int err, const char *why)
{
	s->failed = err;
	if (err == -ENOMEM || why == NULL)
		why = sp_strerror(err);
	return sp_diag_set(&s->diag, off, err, "%s", why);
}

/* The record at s->offset is bad: the decoders filled s->diag at its
 * offset 0. */
static int
record_failed(struct sp_stream *s, int err)
{
	s->failed = err;
	s->diag.offset = s->offset;
	return err;
}

/*
 * Reads more bytes from an fd source, keeping the unread ones.  Returns 1
 * when bytes were added, 0 at end of file (or nothing new yet), -errno.
 */
static int
fill(struct sp_src *src)
{
	ssize_t n;

	if (src->fd < 0 || src->eof)
		return 0;
	if (src->pos > 0) {
		memmove(src->buf, src->buf + src->pos, src->len - src->pos);
		src->len -= src->pos;
		src->pos = 0;
	}
	if (src->cap - src->len < READ_MIN) {
		/* Grows only while a partial record fills it: the buffer
		 * stays under 2 x (SP_RECORD_MAX + READ_CHUNK). */
		size_t cap = src->cap * 2 > src->len + READ_CHUNK ?
		    src->cap * 2 : src->len + READ_CHUNK;
		uint8_t *p = realloc(src->buf, cap);

		if (p == NULL)
			return -ENOMEM;
		src->buf = p;
		src->cap = cap;
	}
	src->mem = src->buf;
	do
		n = src->at < 0 ? read(src->fd, src->buf + src->len,
		    src->cap - src->len) : pread(src->fd, src->buf + src->len,
		    src->cap - src->len, (off_t)src->at);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	src->len += (size_t)n;
	if (src->at >= 0)
		src->at += n;
	return n > 0;
}

/*
 * Adds the bytes consumed since the last call to the running crc32: at
 * the END record, and before a read moves them.  One call a buffer, not
 * one a record (zlib's per-call cost was a tenth of a copy's time).
 */
static void
crc_catch_up(struct sp_stream *s)
{
	if (s->skip == 0 && s->src.pos > s->crc_from)
		s->crc = (uint32_t)crc32_z(s->crc, s->src.mem + s->crc_from,
		    s->src.pos - s->crc_from);
	s->crc_from = s->src.pos;
}

static void
consume(struct sp_stream *s, size_t n)
{
	s->src.pos += n;
	s->offset += n;
}

/* The end of the data: a clean finish or a truncated tail. */
static int
at_end(struct sp_stream *s)
{
	s->status.end_offset = s->offset;
	s->status.truncated = !s->ended;
	s->status.finished = s->ended;
	return 0;
}

static int
more(struct sp_stream *s)
{
	int err;

	if (s->src.fd >= 0 && s->follow)
		s->src.eof = 0;
	crc_catch_up(s);
	err = fill(&s->src);
	s->crc_from = s->src.pos; /* moved to the buffer's start, or not */
	if (err < 0)
		return fail(s, s->offset, err, NULL);
	if (err == 0 && !s->follow)
		s->src.eof = 1;
	return err;
}

/*
 * The input ended before its header did.  Unlike a cut inside the records
 * there is no prefix to recover, not even the recording host: it is not a
 * spool (an empty file is what a failed command leaves in a pipe).
 */
static int
short_header(struct sp_stream *s)
{
	const uint8_t *p = s->src.mem + s->src.pos;
	size_t avail = s->src.len - s->src.pos, want = SP_HEADER_LEN;
	char why[96];

	if (avail == 0)
		return fail(s, 0, -SP_EFORMAT, "not a spool: empty file");
	/* The decoder checked header_len (bytes 10..11) once they came. */
	if (avail >= 12 && sp_le16(p + 10) > SP_HEADER_LEN)
		want = sp_le16(p + 10);
	(void)snprintf(why, sizeof(why), "not a spool: incomplete header "
	    "(%zu of %zu bytes)", avail, want);
	return fail(s, avail, -SP_EFORMAT, why);
}

int
spi_stream_start(struct sp_stream *s)
{
	int err;

	if (s->failed)
		return s->failed;
	while (!s->have_header) {
		size_t avail = s->src.len - s->src.pos;

		err = sp_header_decode(s->src.mem + s->src.pos, avail,
		    &s->header, &s->diag);
		if (err == 0) {
			consume(s, s->header.header_len);
			s->codec.clock = s->header.start_mono_ns;
			s->have_header = 1;
			break;
		}
		if (err != -SP_ETRUNC)
			return s->failed = err;
		err = more(s);
		if (err < 0)
			return err;
		if (err == 0) {
			if (s->follow)
				return -SP_EAGAIN;
			return short_header(s);
		}
	}
	return 0;
}

static int
end_record(struct sp_stream *s, const struct sp_record *r)
{
	crc_catch_up(s);
	if (r->u.crc32 != s->crc)
		return fail(s, r->offset, -SP_ECHECKSUM,
		    "end record crc32 does not match the data before it");
	s->ended = 1;
	return 0;
}

/* Frames and decodes the record at the source's position. */
static int
decode_one(struct sp_stream *s, struct sp_record *r, size_t *used)
{
	const uint8_t *p = s->src.mem + s->src.pos;
	size_t avail = s->src.len - s->src.pos, hdr = 0, plen = 0;
	unsigned kind = 0;
	int err;

	err = spi_record_frame(p, avail, &kind, &hdr, &plen, &s->diag);
	if (err)
		return err == -SP_ETRUNC ? err : record_failed(s, err);
	if (s->ended)
		return fail(s, s->offset, -SP_EFORMAT,
		    "data follows the end record");
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->offset = s->offset;
	r->size = hdr + plen;
	*used = hdr + plen;
	/* Unknown kinds are skipped by their length, as are those a
	 * look-ahead does not want. */
	if (kind >= SP_REC_KINDS_ || (s->skip & 1u << kind))
		return 0;
	err = spi_record_decode(&s->codec, kind, p + hdr, plen, r, &s->diag);
	if (err == 0 && kind != SP_REC_END)
		err = spi_defs_add(s->defs, r, &s->diag);
	if (err)
		return record_failed(s, err);
	if (kind == SP_REC_END)
		return end_record(s, r);
	return 0;
}

int
spi_stream_next(struct sp_stream *s, struct sp_record *r)
{
	size_t used = 0;
	int err = spi_stream_start(s);

	if (err < 0 || !s->have_header)
		return err;
	for (;;) {
		err = decode_one(s, r, &used);
		if (err == 0)
			break;
		if (err != -SP_ETRUNC)
			return err;
		err = more(s);
		if (err < 0)
			return err;
		if (err == 0) {
			if (s->follow)
				return -SP_EAGAIN;
			return at_end(s);
		}
	}
	consume(s, used);
	s->status.records++;
	if (r->kind == SP_REC_SAMPLE)
		s->status.samples++;
	s->status.end_offset = s->offset;
	return 1;
}
