/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "codec_int.h"
#include "common/intern_int.h"
#include "defs_int.h"
#include "remap_int.h"
#include "live_int.h"
#include "sp/spool/writer.h"

#define FLUSH_AT ((size_t)64 * 1024)

struct sp_writer {
	int fd;
	int failed;
	int finished;
	uint32_t crc;          /* over bytes already written */
	unsigned long long flushed;
	struct sp_buf out;     /* framed records not yet written */
	struct sp_buf payload; /* the record being encoded */
	struct sp_codec codec; /* stream clock of what was put */
	struct sp_codec check; /* decodes each payload back, as a reader will */
	struct sp_intern intern;
	struct sp_idmap nodes;  /* stack nodes and frames, by their fields */
	struct sp_idmap frames;
	/* The last stack sp_writer_stack wrote, leaf first: its frames and
	 * the node of each (the root path from it). */
	uint32_t *last_frames, *last_nodes;
	size_t last_n, last_cap;
	uint32_t n[SP_REC_KINDS_];
	uint32_t no_intern;    /* bit k: kind k is not interned */
	uint8_t *has_symbol;   /* per frame id - 1 */
	size_t has_symbol_cap;
};

static int
is_definition(unsigned kind)
{
	return kind >= SP_REC_STRING && kind <= SP_REC_THREAD;
}

int
sp_writer_new(int fd, const struct sp_header *h, struct sp_writer **out)
{
	struct sp_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[SP_HEADER_LEN];

	*out = NULL;
	if (w == NULL)
		return -ENOMEM;
	w->fd = fd;
	w->crc = (uint32_t)crc32(0L, Z_NULL, 0);
	spi_codec_init(&w->codec, h->start_mono_ns);
	spi_codec_init(&w->check, h->start_mono_ns);
	w->nodes.words = 1;
	w->frames.words = 3;
	sp_header_encode(h, hdr);
	spi_buf_put(&w->out, hdr, sizeof(hdr));
	if (w->out.err) {
		sp_writer_free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

int
spi_writer_interval(struct sp_writer *w, uint32_t interval_us)
{
	struct sp_header h;

	if (w->flushed != 0 || w->out.len < SP_HEADER_LEN ||
	    sp_header_decode(w->out.p, SP_HEADER_LEN, &h, NULL) != 0)
		return -EALREADY;
	h.sample_interval_us = interval_us;
	sp_header_encode(&h, w->out.p);
	return 0;
}

int
spi_writer_fd(const struct sp_writer *w)
{
	return w->fd;
}

int
spi_writer_failed(const struct sp_writer *w)
{
	return w->failed;
}

void
sp_writer_free(struct sp_writer *w)
{
	if (w == NULL)
		return;
	spi_buf_fini(&w->out);
	spi_buf_fini(&w->payload);
	spi_codec_fini(&w->codec);
	spi_codec_fini(&w->check);
	spi_intern_fini(&w->intern);
	spi_idmap_fini(&w->nodes);
	spi_idmap_fini(&w->frames);
	free(w->last_frames);
	free(w->last_nodes);
	free(w->has_symbol);
	free(w);
}

/*
 * write(2) that raises no SIGPIPE: a pipe whose reader has gone gives
 * -EPIPE, as writer.h promises, and does not kill the embedding program
 * (MSG_NOSIGNAL serves sockets only).  SIGPIPE is blocked in this thread
 * for the write, and the one the write raised taken from the thread's
 * pending set before the mask comes back; one that was pending before
 * (of another cause) stays.  The process's dispositions are not touched.
 */
static ssize_t
write_nosigpipe(int fd, const void *p, size_t len)
{
	static const struct timespec now = { 0, 0 };
	sigset_t sigpipe, old, pending;
	int was_pending, saved;
	ssize_t n;

	(void)sigemptyset(&sigpipe);
	(void)sigaddset(&sigpipe, SIGPIPE);
	was_pending = sigpending(&pending) == 0 &&
	    sigismember(&pending, SIGPIPE) == 1;
	if (pthread_sigmask(SIG_BLOCK, &sigpipe, &old) != 0)
		return write(fd, p, len);
	n = write(fd, p, len);
	if (n < 0 && errno == EPIPE && !was_pending) {
		saved = errno;
		while (sigtimedwait(&sigpipe, NULL, &now) < 0 && errno == EINTR)
			;
		errno = saved;
	}
	saved = errno;
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return n;
}

int
sp_writer_flush(struct sp_writer *w)
{
	size_t off = 0;

	if (w->failed)
		return w->failed;
	while (off < w->out.len) {
		ssize_t n = write_nosigpipe(w->fd, spi_buf_at(&w->out, off),
		    w->out.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->failed = n < 0 ? -errno : -EIO;
			break;
		}
		w->crc = (uint32_t)crc32(w->crc, spi_buf_at(&w->out, off), (uInt)n);
		off += (size_t)n;
	}
	/* Keep what was not written, so the error can be reported and the
	 * prefix on disk stays a valid (truncated) spool. */
	if (off > 0)
		memmove(w->out.p, w->out.p + off, w->out.len - off);
	w->out.len -= off;
	w->flushed += off;
	return w->failed;
}

/*
 * Decodes the payload just encoded, exactly as a reader will, so that a
 * bad field is refused here instead of making an unreadable spool.
 */
static int
check_payload(struct sp_writer *w, const struct sp_record *r, uint64_t clock)
{
	struct sp_record back;
	int err;

	w->check.clock = clock;
	err = spi_record_decode(&w->check, r->kind, w->payload.p,
	    w->payload.len, &back, NULL);
	if (err == -ENOMEM)
		return err;
	if (err)
		return -SP_EUSAGE;
	if (spi_check_refs(w->n, &back, NULL) != 0)
		return -SP_EREF;
	return 0;
}

static int
mark_symbol(struct sp_writer *w, uint32_t frame)
{
	if (spi_grow_zeroed(&w->has_symbol, &w->has_symbol_cap, frame, 1) != 0)
		return -ENOMEM;
	if (w->has_symbol[frame - 1])
		return -SP_EUSAGE;
	w->has_symbol[frame - 1] = 1;
	return 0;
}

static int
append(struct sp_writer *w, unsigned kind)
{
	if (spi_record_put(&w->out, kind, w->payload.p, w->payload.len) < 0)
		return w->failed = -ENOMEM;
	if (w->out.len >= FLUSH_AT)
		return sp_writer_flush(w);
	return 0;
}

/*
 * The kinds put by the thousand (a recording's samples, sp-sym's symbols
 * and their strings) are checked on the record itself, as the decoder
 * checks them: they are ids, small enums and bytes, whose round trip
 * through a reader fuzz_roundtrip proves.  So is a record copied from a
 * reader (spi_writer_put_copy): the reader checked its fields, and only
 * its references changed.  Every other kind is decoded back.
 */
static int
check(struct sp_writer *w, const struct sp_record *r, uint64_t clock,
    int copied)
{
	const struct sp_sample *s = &r->u.sample;

	if (!copied) {
		switch (r->kind) {
		case SP_REC_STRING:
			break;
		case SP_REC_SYMBOL:
			if (spi_symbol_invalid(&r->u.symbol) != NULL)
				return -SP_EUSAGE;
			break;
		case SP_REC_SAMPLE:
			if (s->thread == 0 || s->kind > SP_SAMPLE_PREEMPTED ||
			    (s->kind != SP_SAMPLE_CPU && s->weight == 0))
				return -SP_EUSAGE;
			break;
		default:
			return check_payload(w, r, clock);
		}
	}
	return spi_check_refs(w->n, r, NULL) != 0 ? -SP_EREF : 0;
}

/* Nodes and frames, the kinds a recording defines by the hundred per
 * sample, have maps of their own, keyed by their fields. */
static struct sp_idmap *
idmap(struct sp_writer *w, const struct sp_record *r, uint64_t key[3])
{
	if (r->kind == SP_REC_NODE) {
		key[0] = (uint64_t)r->u.node.parent << 32 | r->u.node.frame;
		return &w->nodes;
	}
	if (r->kind == SP_REC_FRAME) {
		key[0] = (uint64_t)r->u.frame.module << 32 | r->u.frame.mode;
		key[1] = r->u.frame.rel_ip;
		key[2] = r->u.frame.abs_ip;
		return &w->frames;
	}
	return NULL;
}

/* The id of an equal definition already written, or 0. */
static uint32_t
find(struct sp_writer *w, const struct sp_record *r, uint64_t *hash)
{
	uint64_t key[3];
	struct sp_idmap *m = idmap(w, r, key);

	if (w->no_intern & 1u << r->kind)
		return 0;
	if (m != NULL)
		return spi_idmap_find(m, key, hash);
	return spi_intern_find(&w->intern, r->kind, w->payload.p,
	    w->payload.len, hash);
}

static int
remember(struct sp_writer *w, const struct sp_record *r, uint64_t hash,
    uint32_t id)
{
	uint64_t key[3];
	struct sp_idmap *m = idmap(w, r, key);
	int64_t got;

	if (w->no_intern & 1u << r->kind)
		return 0;
	if (m == NULL)
		return spi_intern_add(&w->intern, r->kind, w->payload.p,
		    w->payload.len, hash, id);
	got = spi_idmap_add(m, key, hash);
	if (got < 0)
		return (int)got;
	return got == id ? 0 : -SP_EUSAGE; /* ids are given in order */
}

/* sp_writer_put; copied: r is one a reader decoded (check above). */
static int
put(struct sp_writer *w, const struct sp_record *r, uint32_t *id, int copied)
{
	uint64_t clock = w->codec.clock, hash = 0;
	uint32_t found;
	int err;

	if (w->failed)
		return w->failed;
	if (w->finished || r->kind == SP_REC_END || r->kind == 0 ||
	    r->kind >= SP_REC_KINDS_)
		return -SP_EUSAGE;
	/* A stack node or frame written before (nearly all of them, sample
	 * after sample) is found by its fields alone, unencoded: it was
	 * checked when it was written. */
	if ((r->kind == SP_REC_NODE || r->kind == SP_REC_FRAME) &&
	    (found = find(w, r, &hash)) != 0) {
		if (id != NULL)
			*id = found;
		return 0;
	}
	err = spi_record_payload(&w->codec, r, &w->payload);
	if (err == 0)
		err = check(w, r, clock, copied);
	if (err == 0 && r->kind == SP_REC_SYMBOL)
		err = mark_symbol(w, r->u.symbol.frame);
	if (err) {
		w->codec.clock = clock; /* the record was not written */
		if (err == -ENOMEM)
			w->failed = err;
		return err;
	}
	if (!is_definition(r->kind))
		return append(w, r->kind);
	found = r->kind == SP_REC_NODE || r->kind == SP_REC_FRAME ? 0 :
	    find(w, r, &hash);
	if (found == 0) {
		if (w->n[r->kind] >= UINT32_MAX - 1)
			return -SP_ELIMIT;
		found = w->n[r->kind] + 1;
		err = remember(w, r, hash, found);
		if (err < 0)
			return w->failed = err;
		w->n[r->kind] = found;
		err = append(w, r->kind);
	}
	if (id != NULL)
		*id = found;
	return err;
}

int
sp_writer_put(struct sp_writer *w, const struct sp_record *r, uint32_t *id)
{
	return put(w, r, id, 0);
}

int
spi_writer_put_copy(struct sp_writer *w, const struct sp_record *r,
    uint32_t *id)
{
	return put(w, r, id, 1);
}

int
sp_writer_no_intern(struct sp_writer *w, unsigned kind)
{
	if (!is_definition(kind))
		return -SP_EUSAGE;
	w->no_intern |= 1u << kind;
	return 0;
}

int
sp_writer_string(struct sp_writer *w, const char *s, size_t len, uint32_t *id)
{
	struct sp_record r;

	if (len > SP_RECORD_MAX)
		return -SP_ELIMIT;
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_STRING;
	r.u.string.s = s;
	r.u.string.len = (uint32_t)len;
	return sp_writer_put(w, &r, id);
}

/* Room for a memo of n frames; 0, or -ENOMEM (then there is none).  The
 * two arrays grow alike; last_cap is what both hold. */
static int
memo_room(struct sp_writer *w, size_t n)
{
	size_t capf = w->last_cap, capd = w->last_cap;

	if (n <= w->last_cap)
		return 0;
	w->last_n = 0;
	if (spi_grow_zeroed(&w->last_frames, &capf, n,
	    sizeof(*w->last_frames)) != 0 ||
	    spi_grow_zeroed(&w->last_nodes, &capd, n,
	    sizeof(*w->last_nodes)) != 0)
		return -ENOMEM;
	w->last_cap = capf;
	return 0;
}

int
sp_writer_stack(struct sp_writer *w, const uint32_t *frames, size_t n,
    uint32_t *stack)
{
	struct sp_record r;
	uint32_t parent = 0;
	size_t same = 0, i;
	int memo = !(w->no_intern & 1u << SP_REC_NODE) &&
	    memo_room(w, n) == 0, err;

	/* The root path it shares with the stack before (a thread's samples
	 * mostly differ near the leaf): its nodes are known.  The memo is
	 * leaf first, so they move to their new depth. */
	if (memo) {
		while (same < n && same < w->last_n &&
		    frames[n - 1 - same] == w->last_frames[w->last_n - 1 - same])
			same++;
		if (same > 0) {
			parent = w->last_nodes[w->last_n - same];
			memmove(w->last_nodes + n - same,
			    w->last_nodes + w->last_n - same,
			    same * sizeof(*w->last_nodes));
		}
		w->last_n = 0; /* until it holds this stack */
	}
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_NODE;
	for (i = n - same; i-- > 0;) {
		r.u.node.parent = parent;
		r.u.node.frame = frames[i];
		err = sp_writer_put(w, &r, &parent);
		if (err)
			return err;
		if (memo)
			w->last_nodes[i] = parent;
	}
	if (memo && n > 0) {
		memcpy(w->last_frames, frames, n * sizeof(*frames));
		w->last_n = n;
	}
	*stack = parent;
	return 0;
}

int
sp_writer_finish(struct sp_writer *w)
{
	struct sp_record r;
	int err;

	if (w->failed)
		return w->failed;
	if (w->finished)
		return -SP_EUSAGE;
	err = sp_writer_flush(w);
	if (err)
		return err;
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_END;
	r.u.crc32 = w->crc;
	err = spi_record_payload(&w->codec, &r, &w->payload);
	if (err == 0)
		err = append(w, SP_REC_END);
	if (err == 0)
		err = sp_writer_flush(w);
	w->finished = 1;
	return err;
}

unsigned long long
sp_writer_bytes(const struct sp_writer *w)
{
	return w->flushed + w->out.len;
}

uint32_t
sp_writer_count(const struct sp_writer *w, enum sp_kind kind)
{
	return (unsigned)kind < SP_REC_KINDS_ ? w->n[kind] : 0;
}
