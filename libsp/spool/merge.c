/* SPDX-License-Identifier: MIT */
/*
 * sp_merge: many spools into one writer.  Each input is read by its own
 * Replay cursor, its ids mapped by its own remap (remap_int.h).  A cursor
 * copies definitions (and other untimed records) as it reads them and
 * stops at its next timestamped record, its head; a binary heap of heads
 * picks the next record to write by (rank of the input's host, time,
 * input order).  So samples come out in time order within a host, every
 * definition before the records that use it (it came before them in its
 * own input), and memory holds one head per input, not the samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "remap_int.h"
#include "sp/spool/merge.h"
#include "sp/spool/writer.h"

struct sp_merge {
	int fd;
	int failed;
	struct sp_writer *w;  /* created by the first input with a header */
	uint64_t *digest;     /* per output frame - 1: its SYMBOL's, 0 none */
	size_t ndigest;
};

/* One input of a batch. */
struct src {
	struct sp_merge_input *in;
	struct sp_remap map;
	struct sp_record head; /* next timestamped record, references mapped */
	size_t rank;           /* first input of the batch with its host */
};

struct batch {
	struct sp_merge *m;
	struct src *src;
	size_t *heap;          /* indices into src, a min-heap of heads */
	size_t nheap;
};

int
sp_merge_new(int fd, struct sp_merge **out)
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
 * format, MODULE: "0 = the header's host") maps to it.  The writer
 * interns it, so inputs from one host and boot share map->host0.
 */
static int
put_header_host(struct sp_writer *w, struct sp_remap *map,
    const struct sp_header *h)
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
	return sp_writer_put(w, &rec, &map->host0);
}

static int
is_timed(uint32_t kind)
{
	return kind == SP_REC_SAMPLE || kind == SP_REC_PYTHON ||
	    kind == SP_REC_PROC;
}

static uint64_t
time_of(const struct sp_record *rec)
{
	return rec->kind == SP_REC_SAMPLE ? rec->u.sample.time :
	    rec->kind == SP_REC_PYTHON ? rec->u.python.time :
	    rec->u.proc.time;
}

/*
 * The writer refuses a record (-SP_EREF, -SP_EUSAGE) without failing:
 * that is the input's fault (a field the reader let through), and the
 * input stops there.  Anything else fails the merger.
 */
static int
put_error(struct sp_merge *m, struct src *s, const struct sp_record *rec,
    int err)
{
	struct sp_diag *d = &s->in->diag;

	(void)sp_diag_set(d, rec->offset, err, "%s record: %s",
	    sp_kind_name(rec->kind), sp_strerror(err));
	if (err == -SP_EREF || err == -SP_EUSAGE) {
		s->in->err = err;
		return 0;
	}
	return m->failed = err;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull; /* FNV-1a, a word at a time */
}

/* A SYMBOL with its references mapped: equal symbols, equal digests. */
static uint64_t
symbol_digest(const struct sp_symbol *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	h = mix(mix(mix(mix(h, s->origin), s->flags), s->module_name),
	    s->count);
	for (i = 0; i < s->count; i++)
		h = mix(mix(mix(h, s->lines[i].function), s->lines[i].file),
		    s->lines[i].line);
	return h | 1; /* 0 is "no symbol" */
}

static int
note_digest(struct sp_merge *m, uint32_t frame, uint64_t d)
{
	int err = spi_grow_zeroed((void **)&m->digest, &m->ndigest, frame,
	    sizeof(*m->digest));

	if (err == 0)
		m->digest[frame - 1] = d;
	return err;
}

/*
 * A frame interned from an earlier input may have its SYMBOL already (a
 * frame has one, and the first stands): an equal one is dropped as
 * nothing lost, another is counted, so the user learns that inputs named
 * a frame differently (symbolized with other files or options).
 */
static int
put_symbol(struct sp_merge *m, struct src *s, struct sp_record *rec)
{
	uint32_t frame;
	uint64_t d;
	int err;

	spi_remap_refs(&s->map, rec);
	frame = rec->u.symbol.frame;
	d = symbol_digest(&rec->u.symbol);
	if (frame > 0 && frame <= m->ndigest && m->digest[frame - 1] != 0) {
		if (m->digest[frame - 1] == d)
			s->in->st.same_symbols++;
		else
			s->in->st.dup_symbols++;
		return 0;
	}
	err = sp_writer_put(m->w, rec, NULL);
	return err < 0 ? err : note_digest(m, frame, d);
}

/* One untimed input record, put at once; unknown kinds and END dropped. */
static int
step(struct sp_merge *m, struct src *s, struct sp_record *rec)
{
	if (rec->kind == SP_REC_END || rec->kind == 0 ||
	    rec->kind >= SP_REC_KINDS_)
		return 0;
	if (rec->kind == SP_REC_SYMBOL)
		return put_symbol(m, s, rec);
	return spi_remap_put(&s->map, m->w, rec, NULL);
}

static void
input_diag(struct sp_merge_input *in, int err)
{
	const struct sp_diag *d = sp_replay_diag(in->replay);

	in->err = err;
	if (d != NULL && d->msg[0] != '\0') {
		in->diag = *d;
		return;
	}
	(void)sp_diag_set(&in->diag, 0, err, "%s", sp_strerror(err));
}

static void
input_end(struct sp_merge_input *in)
{
	in->st.truncated = sp_replay_status(in->replay)->truncated;
	in->st.end_offset = sp_replay_status(in->replay)->end_offset;
}

/*
 * Puts s's records up to its next timestamped one, which becomes its
 * head.  Returns 1 with a head; 0 at the input's end or error (in
 * s->in); or the merger's error.
 */
static int
advance(struct sp_merge *m, struct src *s)
{
	struct sp_record *rec = &s->head;
	int err;

	while ((err = sp_replay_next(s->in->replay, rec)) > 0) {
		s->in->st.records++;
		if (is_timed(rec->kind)) {
			/* Ids defined so far are all it can use. */
			spi_remap_refs(&s->map, rec);
			return 1;
		}
		if ((err = step(m, s, rec)) < 0)
			return put_error(m, s, rec, err);
	}
	if (err < 0)
		input_diag(s->in, err);
	else
		input_end(s->in);
	return 0;
}

/* Heap order: host rank, then time, then input order (a stable merge). */
static int
before(const struct batch *b, size_t x, size_t y)
{
	const struct src *p = &b->src[x], *q = &b->src[y];
	uint64_t tp = time_of(&p->head), tq = time_of(&q->head);

	if (p->rank != q->rank)
		return p->rank < q->rank;
	if (tp != tq)
		return tp < tq;
	return x < y;
}

static void
sift_down(struct batch *b, size_t i)
{
	size_t c, t;

	while ((c = 2 * i + 1) < b->nheap) {
		if (c + 1 < b->nheap && before(b, b->heap[c + 1], b->heap[c]))
			c++;
		if (!before(b, b->heap[c], b->heap[i]))
			break;
		t = b->heap[c];
		b->heap[c] = b->heap[i];
		b->heap[i] = t;
		i = c;
	}
}

static void
push(struct batch *b, size_t x)
{
	size_t i = b->nheap++, p;

	b->heap[i] = x;
	while (i > 0 && before(b, b->heap[i], b->heap[p = (i - 1) / 2])) {
		b->heap[i] = b->heap[p];
		b->heap[p] = x;
		i = p;
	}
}

/* Opens input i: its header's host, its rank, its first head. */
static int
start(struct batch *b, size_t i)
{
	struct sp_merge *m = b->m;
	struct src *s = &b->src[i];
	const struct sp_header *h;
	size_t j;
	int err;

	if (s->in->replay == NULL)
		return 0;
	h = sp_replay_header(s->in->replay);
	if (m->w == NULL && (err = sp_writer_new(m->fd, h, &m->w)) < 0)
		return m->failed = err;
	if ((err = put_header_host(m->w, &s->map, h)) < 0)
		return m->failed = err;
	for (s->rank = i, j = 0; j < i; j++)
		if (b->src[j].map.host0 == s->map.host0) {
			s->rank = b->src[j].rank;
			break;
		}
	err = advance(m, s);
	if (err > 0)
		push(b, i);
	return err < 0 ? err : 0;
}

/* Writes the least head and refills it from its input, until none. */
static int
drain(struct batch *b)
{
	struct src *s;
	int err;

	while (b->nheap > 0) {
		s = &b->src[b->heap[0]];
		if ((err = sp_writer_put(b->m->w, &s->head, NULL)) < 0) {
			if ((err = put_error(b->m, s, &s->head, err)) < 0)
				return err;
		} else {
			s->in->st.samples += s->head.kind == SP_REC_SAMPLE;
			if ((err = advance(b->m, s)) < 0)
				return err;
		}
		if (err == 0 || s->in->err != 0)
			b->heap[0] = b->heap[--b->nheap];
		sift_down(b, 0);
	}
	return 0;
}

int
sp_merge_inputs(struct sp_merge *m, struct sp_merge_input *in, size_t n)
{
	struct batch b;
	size_t i;
	int err = 0;

	if (m == NULL || (in == NULL && n > 0))
		return -SP_EUSAGE;
	for (i = 0; i < n; i++) {
		memset(&in[i].st, 0, sizeof(in[i].st));
		memset(&in[i].diag, 0, sizeof(in[i].diag));
		in[i].err = 0;
	}
	if (m->failed)
		return m->failed;
	memset(&b, 0, sizeof(b));
	b.m = m;
	b.src = calloc(n ? n : 1, sizeof(*b.src));
	b.heap = calloc(n ? n : 1, sizeof(*b.heap));
	if (b.src == NULL || b.heap == NULL)
		err = m->failed = -ENOMEM;
	for (i = 0; i < n && err == 0; i++) {
		b.src[i].in = &in[i];
		err = start(&b, i);
	}
	if (err == 0)
		err = drain(&b);
	for (i = 0; i < n && b.src != NULL; i++)
		spi_remap_fini(&b.src[i].map);
	free(b.src);
	free(b.heap);
	return err;
}

int
sp_merge_add(struct sp_merge *m, struct sp_replay *in,
    struct sp_merge_stats *st, struct sp_diag *diag)
{
	struct sp_merge_input one;
	int err;

	memset(&one, 0, sizeof(one));
	one.replay = in;
	if (in == NULL)
		return -SP_EUSAGE;
	err = sp_merge_inputs(m, &one, 1);
	*st = one.st;
	if (diag != NULL)
		*diag = one.diag;
	return err < 0 ? err : one.err;
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
			err = sp_writer_new(m->fd, &h, &m->w);
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
	free(m->digest);
	free(m);
}
