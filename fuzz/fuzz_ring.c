/* SPDX-License-Identifier: MIT */
/*
 * The recorder's ring reader, spi_ring_read and spi_ring_release (white-box:
 * they have no public header), on a ring made in memory as the kernel
 * lays it out: a metadata page, then 4, 8 or 16 KiB of data (input byte
 * 0).  The reader's tail is anywhere in 64 bits (bytes 1-8: records that
 * wrap around the data's end, positions past 2^32), the head up to a
 * whole ring after it (bytes 9-10), the drain's time limit bytes 11-18 (0:
 * take everything), and the data the rest of the input.
 *
 * Checks: the records given are back to back from the tail and never
 * past the head; each is as long as its header says, and its bytes are
 * the ring's (in place, inside the data area, or reassembled across the
 * wrap); none is timed after the limit, and where the reading stops
 * short of the head the next record is (its time read in the ring as
 * spi_perf_record_time reads it); the reading stops where the records
 * given end, or, after a header that makes no sense, at the head; the
 * release hands exactly that place back to the kernel; a second reading
 * goes on from there.  Each record given is decoded as the recorder
 * decodes it (spi_rec_decode, with and without a callchain): what the
 * decoded record points at lies inside the record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/perf_int.h"
#include "record/rec_decode_int.h"
#include "sp/common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE 4096u

struct seen {
	const struct sp_ring *ring;
	struct sp_buf *wrapped;
	uint64_t pos;   /* where the next record must start */
	uint64_t head;
	uint64_t until; /* the reading's time limit */
};

static uint8_t
ring_byte(const struct sp_ring *r, uint64_t pos)
{
	return r->base[PAGE + (pos & (r->data_size - 1))];
}

/* [q, q + n) inside the record [p, p + len). */
static void
inside(const uint8_t *p, size_t len, const void *q, uint64_t n)
{
	const uint8_t *b = q;

	if (b < p || (size_t)(b - p) > len || n > len - (size_t)(b - p))
		abort();
}

static void
decode(const uint8_t *p, size_t len, size_t id_len)
{
	struct rec_format f = { id_len, 0, 0, 0 };
	struct rec_decoded d;
	const struct rec_sample *s = &d.u.sample;
	unsigned v;

	/* Every sample layout: callchain, period (-e), no stack (fp). */
	for (v = 0; v < 8; v++) {
		f.callchain = (v & 1) != 0;
		f.period = (v & 2) != 0;
		f.no_stack = (v & 4) != 0;
		if (spi_rec_decode(&f, p, len, &d) < 0)
			continue;
		if (d.kind == REC_SAMPLE) {
			if (s->chain != NULL)
				inside(p, len, s->chain, s->nchain * 8);
			if (s->stk.data != NULL)
				inside(p, len, s->stk.data, s->stk.len);
			else if (s->stk.len != 0)
				abort();
		} else if (d.kind == REC_MMAP2) {
			inside(p, len, d.u.mmap.m.path, d.u.mmap.m.path_len);
		} else if (d.kind == REC_COMM &&
		    memchr(d.u.comm.comm, 0, sizeof(d.u.comm.comm)) == NULL) {
			abort();
		}
	}
}

static int
add(void *ctx, const struct sp_ring_rec *rec)
{
	struct seen *s = ctx;
	const uint8_t *area = s->ring->base + PAGE;
	const uint8_t *p;
	struct perf_event_header h;
	size_t i;

	if (rec->p != NULL) {
		if (rec->p < area || rec->len > s->ring->data_size ||
		    rec->p + rec->len > area + s->ring->data_size)
			abort(); /* outside the data area */
		p = rec->p;
	} else {
		if (rec->off > s->wrapped->len ||
		    rec->len > s->wrapped->len - rec->off)
			abort();
		p = s->wrapped->p + rec->off;
	}
	if (rec->len < sizeof(h) || rec->len > s->head - s->pos)
		abort();
	memcpy(&h, p, sizeof(h));
	if (h.size != rec->len)
		abort();
	for (i = 0; i < rec->len; i++)
		if (p[i] != ring_byte(s->ring, s->pos + i))
			abort(); /* not the ring's bytes at its place */
	if (spi_perf_record_time(p, rec->len, s->ring->id_len) > s->until)
		abort(); /* given, but timed after the limit */
	decode(p, rec->len, s->ring->id_len);
	s->pos += rec->len;
	return 0;
}

/* One drain's reading and release: it stops where the records given
 * end, or at the head after nonsense, and hands that back. */
static void
read_release(struct sp_ring *r, uint64_t until, struct seen *s)
{
	const struct perf_event_mmap_page *meta = (const void *)r->base;
	int got;

	s->until = until;
	got = spi_ring_read(r, until, s->wrapped, add, s);
	if (got == -SP_EFORMAT ? r->next_tail != s->head :
	    got < 0 || r->next_tail != s->pos)
		abort();
	/* Stopped before the head by the limit: the next record is timed
	 * after it, read in the ring as spi_perf_record_time reads it. */
	if (got >= 0 && r->next_tail < s->head &&
	    s->head - r->next_tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint8_t rec[65536];
		size_t i;

		for (i = 0; i < sizeof(h); i++)
			rec[i] = ring_byte(r, r->next_tail + i);
		memcpy(&h, rec, sizeof(h));
		if (h.size >= sizeof(h) && h.size <= s->head - r->next_tail) {
			for (i = sizeof(h); i < h.size; i++)
				rec[i] = ring_byte(r, r->next_tail + i);
			if (spi_perf_record_time(rec, h.size, r->id_len) <= until)
				abort();
		}
	}
	spi_ring_release(r);
	if (meta->data_tail != r->next_tail)
		abort();
}

static uint64_t
take(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *meta;
	struct sp_ring r;
	struct sp_buf wrapped = { 0 };
	struct seen s;
	uint64_t tail, until;
	size_t n;

	if (size < 19)
		return 0;
	memset(&r, 0, sizeof(r));
	r.fd = -1;
	r.data_size = (size_t)PAGE << (data[0] % 3);
	/* With --off-cpu the identifier moves every record's time. */
	r.id_len = data[0] & 0x80 ? 8 : 0;
	r.map_len = PAGE + r.data_size;
	r.base = aligned_alloc(PAGE, r.map_len);
	if (r.base == NULL)
		abort();
	memset(r.base, 0, r.map_len);
	n = size - 19 < r.data_size ? size - 19 : r.data_size;
	memcpy(r.base + PAGE, data + 19, n);
	meta = (void *)r.base;
	tail = take(data + 1, 8);
	meta->data_tail = tail;
	meta->data_head = tail + take(data + 9, 2) % (r.data_size + 1);
	until = take(data + 11, 8);
	if (until == 0)
		until = UINT64_MAX;

	s.ring = &r;
	s.wrapped = &wrapped;
	s.pos = tail;
	s.head = meta->data_head;
	read_release(&r, until, &s);
	/* The rest, from where the first reading stopped. */
	wrapped.len = 0;
	s.pos = meta->data_tail;
	read_release(&r, UINT64_MAX, &s);
	spi_buf_fini(&wrapped);
	free(r.base);
	return 0;
}
