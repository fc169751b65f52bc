/* SPDX-License-Identifier: MIT */
#ifndef SP_STREAM_INT_H
#define SP_STREAM_INT_H

/*
 * The decoding engine under all three readers: it pulls bytes from a
 * source (memory, or a file descriptor read in chunks), checks the header,
 * frames, decodes and validates records one at a time, keeps the
 * definitions and the running crc32, and notes where valid data ends.
 */

#include "codec_int.h"
#include "sp/spool/spool.h"

struct sp_defs;

struct sp_src {
	int fd;              /* -1 for memory */
	int64_t at;          /* fd read with pread from here; -1: read */
	const uint8_t *mem;  /* memory source, or fd's buffer */
	uint8_t *buf;        /* owned buffer for fd sources */
	size_t pos, len, cap;
	int eof;
};

struct sp_stream {
	struct sp_header header;
	int have_header;
	int ended;           /* END record read */
	int failed;          /* an error was returned; it sticks */
	int follow;          /* Tail: end of data is "not yet", not the end */
	/* Kinds (1 << kind) framed and skipped by their length, undecoded,
	 * for a look-ahead that wants the others (spi_replay_ahead): no
	 * definitions of them, and no crc32 is kept. */
	uint32_t skip;
	uint32_t crc;        /* of the bytes before src.mem + crc_from */
	size_t crc_from;     /* consumed bytes from here on: not in crc yet */
	uint64_t offset;     /* stream offset of src's next byte */
	struct sp_codec codec;
	struct sp_defs *defs;
	struct sp_diag diag;
	struct sp_status status;
	struct sp_src src;
};

/* Sets up s to read from memory (fd < 0) or from fd (not owned). */
int spi_stream_init(struct sp_stream *s, int fd, const void *mem, size_t len);
void spi_stream_fini(struct sp_stream *s);

/*
 * Reads the header if it is not read yet.  Returns 0 when the header is
 * there; with follow set, -SP_EAGAIN while it is incomplete; otherwise an
 * input that ends before the header does is not a spool (-SP_EFORMAT,
 * "not a spool: empty file" or "...: incomplete header (N of M bytes)").
 * Errors fill s->diag.
 */
int spi_stream_start(struct sp_stream *s);

/*
 * Decodes the next record into r.  Returns 1; 0 at the end of the data
 * (s->status says whether it was finished or truncated); -SP_EAGAIN with
 * follow set when no complete record is there yet; or an error with
 * s->diag filled.  Errors stick.
 */
int spi_stream_next(struct sp_stream *s, struct sp_record *r);

#endif
