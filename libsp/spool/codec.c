/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "codec_int.h"

static const char *const kind_names[SP_REC_KINDS_] = {
	[SP_REC_STRING] = "string",   [SP_REC_HOST] = "host",
	[SP_REC_MODULE] = "module",   [SP_REC_FRAME] = "frame",
	[SP_REC_NODE] = "node",       [SP_REC_THREAD] = "thread",
	[SP_REC_SAMPLE] = "sample",   [SP_REC_PYTHON] = "python",
	[SP_REC_PROC] = "proc",       [SP_REC_SUMMARY] = "summary",
	[SP_REC_SYMBOL] = "symbol",   [SP_REC_RECORDING] = "recording",
	[SP_REC_END] = "end",         [SP_REC_RAWSTACK] = "rawstack",
};

const char *
sp_kind_name(unsigned kind)
{
	if (kind > 0 && kind < SP_REC_KINDS_)
		return kind_names[kind];
	return "unknown";
}

void
spi_codec_init(struct sp_codec *c, uint64_t clock_base)
{
	memset(c, 0, sizeof(*c));
	c->clock = clock_base;
}

void
spi_codec_fini(struct sp_codec *c)
{
	free(c->counters);
	c->counters = NULL;
	c->counters_cap = 0;
}

int
spi_record_frame(const uint8_t *p, size_t len, unsigned *kind, size_t *hdr,
    size_t *plen, struct sp_diag *diag)
{
	uint64_t n;
	int k;

	if (len == 0)
		return -SP_ETRUNC;
	*kind = p[0];
	if (p[0] == 0)
		return sp_diag_set(diag, 0, -SP_EFORMAT,
		    "record kind 0 is invalid");
	k = spi_varint_get(p + 1, len - 1, &n);
	if (k < 0 || (k > 0 && n > SP_RECORD_MAX))
		return sp_diag_set(diag, 0, -SP_EFORMAT,
		    "record length exceeds the 1 MiB maximum");
	if (k == 0)
		return -SP_ETRUNC;
	*hdr = 1 + (size_t)k;
	*plen = (size_t)n;
	if (n > len - *hdr)
		return -SP_ETRUNC;
	return 0;
}

/* Applies a signed delta to the stream clock, refusing wrap-around. */
static int
clock_step(struct sp_codec *c, int64_t dt, uint64_t *t)
{
	uint64_t mag = dt < 0 ? (uint64_t)(-(dt + 1)) + 1 : (uint64_t)dt;

	if (dt < 0 ? mag > c->clock : mag > UINT64_MAX - c->clock)
		return -SP_EFORMAT;
	c->clock = dt < 0 ? c->clock - mag : c->clock + mag;
	*t = c->clock;
	return 0;
}

static void
rd_sp_str(struct sp_cur *c, struct sp_str *s)
{
	size_t n;
	const uint8_t *p = sp_rd_str(c, &n);

	if (n > UINT32_MAX)
		c->err = -SP_EFORMAT;
	s->s = (const char *)p;
	s->len = (uint32_t)n;
}

static const char *
dec_host(struct sp_cur *c, struct sp_host *h)
{
	struct sp_str id;

	rd_sp_str(c, &h->hostname);
	rd_sp_str(c, &h->release);
	rd_sp_str(c, &h->machine);
	h->page_size = sp_rd_u32v(c);
	rd_sp_str(c, &id);
	if (c->err == 0 && id.len != 0 && id.len != 16)
		return "host boot id is neither 0 nor 16 bytes";
	h->has_boot_id = c->err == 0 && id.len == 16;
	if (h->has_boot_id)
		memcpy(h->boot_id, id.s, 16);
	return NULL;
}

static const char *
dec_module(struct sp_cur *c, struct sp_module *m)
{
	size_t n;
	const uint8_t *bid;

	m->host = sp_rd_u32v(c);
	m->pid = sp_rd_u32v(c);
	m->flags = sp_rd_u32v(c);
	m->start = sp_rd_varint(c);
	m->size = sp_rd_varint(c);
	m->file_offset = sp_rd_varint(c);
	m->inode = sp_rd_varint(c);
	m->dev = sp_rd_varint(c);
	bid = sp_rd_str(c, &n);
	m->path = sp_rd_u32v(c);
	/* Appended fields: older spools end the record before them. */
	if (sp_cur_left(c) > 0)
		m->uid_plus1 = sp_rd_u32v(c);
	if (sp_cur_left(c) > 0)
		m->elf_vaddr_plus1 = sp_rd_varint(c);
	if (c->err)
		return NULL;
	if (n > SP_BUILD_ID_MAX)
		return "module build-id longer than 64 bytes";
	if (m->size == 0 || m->size > UINT64_MAX - m->start)
		return "module address range is empty or wraps";
	m->build_id_len = (uint8_t)n;
	if (n > 0)
		memcpy(m->build_id, bid, n);
	return NULL;
}

static const char *
dec_frame(struct sp_cur *c, struct sp_frame *f)
{
	f->module = sp_rd_u32v(c);
	f->mode = sp_rd_u32v(c);
	f->rel_ip = sp_rd_varint(c);
	f->abs_ip = sp_rd_varint(c);
	if (c->err)
		return NULL;
	if (f->mode > SP_FRAME_TRUNCATED)
		return "frame mode is not user, kernel or truncated";
	if (f->mode == SP_FRAME_TRUNCATED && f->module != 0)
		return "truncated-stack marker frame has a module";
	return NULL;
}

static const char *
dec_timed(struct sp_codec *k, struct sp_cur *c, int64_t dt, uint64_t *t)
{
	if (c->err)
		return NULL;
	if (clock_step(k, dt, t) < 0)
		return "time delta moves the clock out of range";
	return NULL;
}

static const char *
dec_sample(struct sp_codec *k, struct sp_cur *c, struct sp_sample *s)
{
	int64_t dt;

	s->thread = sp_rd_u32v(c);
	s->stack = sp_rd_u32v(c);
	dt = sp_rd_svarint(c);
	s->cpu = sp_rd_u32v(c);
	/* Appended fields: a CPU sample of weight 1 ends before them. */
	s->weight = sp_cur_left(c) > 0 ? sp_rd_varint(c) : 1;
	if (sp_cur_left(c) > 0)
		s->kind = sp_rd_u32v(c);
	if (c->err == 0 && s->thread == 0)
		return "sample has no thread";
	if (c->err == 0 && s->weight == 0)
		return "sample has weight 0";
	if (c->err == 0 && s->kind > SP_SAMPLE_PREEMPTED)
		return "sample counts an unknown quantity";
	return dec_timed(k, c, dt, &s->time);
}

static const char *
dec_python(struct sp_codec *k, struct sp_cur *c, struct sp_python *p)
{
	int64_t dt = sp_rd_svarint(c);

	p->host = sp_rd_u32v(c);
	p->pid = sp_rd_u32v(c);
	p->is_python = sp_rd_u8(c);
	if (c->err == 0 && p->is_python > 1)
		return "python status is neither 0 nor 1";
	return dec_timed(k, c, dt, &p->time);
}

static const char *
dec_proc(struct sp_codec *k, struct sp_cur *c, struct sp_proc *p)
{
	int64_t dt = sp_rd_svarint(c);

	p->event = sp_rd_u8(c);
	p->host = sp_rd_u32v(c);
	p->pid = sp_rd_u32v(c);
	p->tid = sp_rd_u32v(c);
	p->other_pid = sp_rd_u32v(c);
	p->other_tid = sp_rd_u32v(c);
	p->comm = sp_rd_u32v(c);
	if (c->err == 0 && (p->event < SP_PROC_FORK || p->event > SP_PROC_EXIT))
		return "process event is not fork, exec, comm or exit";
	return dec_timed(k, c, dt, &p->time);
}

static const char *
dec_summary(struct sp_codec *k, struct sp_cur *c, struct sp_summary *s)
{
	uint64_t n = sp_rd_varint(c), i;

	/* Each counter takes at least 3 bytes: cap before allocating. */
	if (c->err)
		return NULL;
	if (n > sp_cur_left(c) / 3)
		return "summary counter count exceeds the record";
	if (spi_grow_zeroed(&k->counters, &k->counters_cap, (size_t)n,
	    sizeof(*k->counters)) != 0) {
		c->err = -ENOMEM;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct sp_counter *ctr = &k->counters[i];

		rd_sp_str(c, &ctr->name);
		ctr->value = sp_rd_varint(c);
		if (c->err == 0 && (ctr->name.len == 0 ||
		    ctr->name.len > SP_COUNTER_NAME_MAX))
			return "summary counter name is empty or over 64 bytes";
	}
	s->counters = k->counters;
	s->count = (uint32_t)n;
	return NULL;
}

const char *
spi_symbol_invalid(const struct sp_symbol *s)
{
	if (s->frame == 0)
		return "symbol has no frame";
	if (s->origin < SP_ORIGIN_PERF_MAP || s->origin > SP_ORIGIN_ADDRESS)
		return "symbol origin out of range";
	if (s->count == 0 || s->count > SP_INLINE_MAX)
		return "symbol has 0 or more than 64 logical frames";
	return NULL;
}

static const char *
dec_symbol(struct sp_codec *k, struct sp_cur *c, struct sp_symbol *s)
{
	const char *why;
	uint32_t i;

	s->frame = sp_rd_u32v(c);
	s->origin = sp_rd_u8(c);
	s->flags = sp_rd_u32v(c);
	s->module_name = sp_rd_u32v(c);
	s->count = sp_rd_u32v(c);
	if (c->err)
		return NULL;
	if ((why = spi_symbol_invalid(s)) != NULL)
		return why;
	for (i = 0; i < s->count; i++) {
		k->lines[i].function = sp_rd_u32v(c);
		k->lines[i].file = sp_rd_u32v(c);
		k->lines[i].line = sp_rd_u32v(c);
	}
	s->lines = k->lines;
	return NULL;
}

static const char *
dec_recording(struct sp_cur *c, struct sp_recording *r)
{
	rd_sp_str(c, &r->event);
	r->frequency = sp_rd_u32v(c);
	r->stack_bytes = sp_rd_u32v(c);
	r->flags = sp_rd_u32v(c);
	rd_sp_str(c, &r->command);
	/* Appended: absent in older spools. */
	r->period = sp_cur_left(c) > 0 ? sp_rd_varint(c) : 0;
	return NULL;
}

static const char *
dec_rawstack(struct sp_cur *c, struct sp_rawstack *r)
{
	size_t len;

	r->nregs = sp_rd_u32v(c);
	if (c->err == 0 && r->nregs > SP_RAWSTACK_REGS_MAX)
		return "raw stack has too many registers";
	if (c->err == 0 && (size_t)r->nregs * 8 > sp_cur_left(c))
		c->err = -SP_ETRUNC;
	r->regs = sp_take(c, (size_t)r->nregs * 8);
	r->stack = sp_rd_str(c, &len);
	r->stack_len = (uint32_t)len; /* < SP_RECORD_MAX */
	return NULL;
}

static const char *
dec_payload(struct sp_codec *k, struct sp_cur *c, struct sp_record *r)
{
	switch (r->kind) {
	case SP_REC_STRING:
		r->u.string.s = (const char *)c->p;
		r->u.string.len = (uint32_t)c->len;
		return NULL;
	case SP_REC_HOST:
		return dec_host(c, &r->u.host);
	case SP_REC_MODULE:
		return dec_module(c, &r->u.module);
	case SP_REC_FRAME:
		return dec_frame(c, &r->u.frame);
	case SP_REC_NODE:
		r->u.node.parent = sp_rd_u32v(c);
		r->u.node.frame = sp_rd_u32v(c);
		if (c->err == 0 && r->u.node.frame == 0)
			return "stack node has no frame";
		return NULL;
	case SP_REC_THREAD:
		r->u.thread.host = sp_rd_u32v(c);
		r->u.thread.pid = sp_rd_u32v(c);
		r->u.thread.tid = sp_rd_u32v(c);
		r->u.thread.comm = sp_rd_u32v(c);
		return NULL;
	case SP_REC_SAMPLE:
		return dec_sample(k, c, &r->u.sample);
	case SP_REC_PYTHON:
		return dec_python(k, c, &r->u.python);
	case SP_REC_PROC:
		return dec_proc(k, c, &r->u.proc);
	case SP_REC_SUMMARY:
		return dec_summary(k, c, &r->u.summary);
	case SP_REC_SYMBOL:
		return dec_symbol(k, c, &r->u.symbol);
	case SP_REC_RECORDING:
		return dec_recording(c, &r->u.recording);
	case SP_REC_RAWSTACK:
		return dec_rawstack(c, &r->u.rawstack);
	case SP_REC_END:
		if (c->len != 4)
			return "end record is not 4 bytes";
		r->u.crc32 = sp_le32(c->p);
		return NULL;
	default:
		return NULL;
	}
}

int
spi_record_decode(struct sp_codec *c, unsigned kind, const uint8_t *p,
    size_t len, struct sp_record *r, struct sp_diag *diag)
{
	struct sp_cur cur = sp_cur_make(p, len);
	const char *msg;

	memset(&r->u, 0, sizeof(r->u));
	r->kind = kind;
	msg = dec_payload(c, &cur, r);
	if (cur.err == -ENOMEM)
		return sp_diag_set(diag, 0, -ENOMEM, "out of memory");
	if (cur.err != 0)
		return sp_diag_set(diag, 0, -SP_EFORMAT, "record payload ends "
		    "inside its fields, or a field is out of range");
	if (msg != NULL)
		return sp_diag_set(diag, 0, -SP_EFORMAT, "%s", msg);
	return 0;
}

/* The signed delta from the stream clock to t, which becomes the clock. */
static int
clock_delta(struct sp_codec *c, uint64_t t, int64_t *dt)
{
	uint64_t mag = t >= c->clock ? t - c->clock : c->clock - t;

	if (mag > (uint64_t)INT64_MAX)
		return -SP_EUSAGE;
	*dt = t >= c->clock ? (int64_t)mag : -(int64_t)mag;
	c->clock = t;
	return 0;
}

static void
enc_module(struct sp_buf *b, const struct sp_module *m)
{
	spi_buf_varint(b, m->host);
	spi_buf_varint(b, m->pid);
	spi_buf_varint(b, m->flags);
	spi_buf_varint(b, m->start);
	spi_buf_varint(b, m->size);
	spi_buf_varint(b, m->file_offset);
	spi_buf_varint(b, m->inode);
	spi_buf_varint(b, m->dev);
	spi_buf_str(b, m->build_id,
	    m->build_id_len <= SP_BUILD_ID_MAX ? m->build_id_len : 0);
	spi_buf_varint(b, m->path);
	if (m->uid_plus1 != 0 || m->elf_vaddr_plus1 != 0)
		spi_buf_varint(b, m->uid_plus1);
	if (m->elf_vaddr_plus1 != 0)
		spi_buf_varint(b, m->elf_vaddr_plus1);
}

static void
enc_host(struct sp_buf *b, const struct sp_host *h)
{
	spi_buf_str(b, h->hostname.s, h->hostname.len);
	spi_buf_str(b, h->release.s, h->release.len);
	spi_buf_str(b, h->machine.s, h->machine.len);
	spi_buf_varint(b, h->page_size);
	spi_buf_str(b, h->boot_id, h->has_boot_id ? 16 : 0);
}

static void
enc_summary(struct sp_buf *b, const struct sp_summary *s)
{
	uint32_t i;

	spi_buf_varint(b, s->count);
	for (i = 0; i < s->count; i++) {
		spi_buf_str(b, s->counters[i].name.s, s->counters[i].name.len);
		spi_buf_varint(b, s->counters[i].value);
	}
}

static void
enc_symbol(struct sp_buf *b, const struct sp_symbol *s)
{
	uint32_t i;

	spi_buf_varint(b, s->frame);
	spi_buf_u8(b, (uint8_t)s->origin);
	spi_buf_varint(b, s->flags);
	spi_buf_varint(b, s->module_name);
	spi_buf_varint(b, s->count);
	for (i = 0; i < s->count; i++) {
		spi_buf_varint(b, s->lines[i].function);
		spi_buf_varint(b, s->lines[i].file);
		spi_buf_varint(b, s->lines[i].line);
	}
}

static void
enc_recording(struct sp_buf *b, const struct sp_recording *r)
{
	spi_buf_str(b, r->event.s, r->event.len);
	spi_buf_varint(b, r->frequency);
	spi_buf_varint(b, r->stack_bytes);
	spi_buf_varint(b, r->flags);
	spi_buf_str(b, r->command.s, r->command.len);
	if (r->period != 0)
		spi_buf_varint(b, r->period);
}

/* The timed kinds: their delta comes first or third (docs). */
static int
enc_timed(struct sp_codec *c, struct sp_buf *b, const struct sp_record *r)
{
	int64_t dt;

	switch (r->kind) {
	case SP_REC_SAMPLE:
		if (clock_delta(c, r->u.sample.time, &dt) < 0)
			return -SP_EUSAGE;
		spi_buf_varint(b, r->u.sample.thread);
		spi_buf_varint(b, r->u.sample.stack);
		spi_buf_svarint(b, dt);
		spi_buf_varint(b, r->u.sample.cpu);
		if (r->u.sample.kind != SP_SAMPLE_CPU ||
		    r->u.sample.weight > 1)
			spi_buf_varint(b, r->u.sample.weight);
		if (r->u.sample.kind != SP_SAMPLE_CPU)
			spi_buf_varint(b, r->u.sample.kind);
		return 0;
	case SP_REC_PYTHON:
		if (clock_delta(c, r->u.python.time, &dt) < 0)
			return -SP_EUSAGE;
		spi_buf_svarint(b, dt);
		spi_buf_varint(b, r->u.python.host);
		spi_buf_varint(b, r->u.python.pid);
		spi_buf_u8(b, r->u.python.is_python != 0);
		return 0;
	default: /* SP_REC_PROC */
		if (clock_delta(c, r->u.proc.time, &dt) < 0)
			return -SP_EUSAGE;
		spi_buf_svarint(b, dt);
		spi_buf_u8(b, (uint8_t)r->u.proc.event);
		spi_buf_varint(b, r->u.proc.host);
		spi_buf_varint(b, r->u.proc.pid);
		spi_buf_varint(b, r->u.proc.tid);
		spi_buf_varint(b, r->u.proc.other_pid);
		spi_buf_varint(b, r->u.proc.other_tid);
		spi_buf_varint(b, r->u.proc.comm);
		return 0;
	}
}

static int
enc_payload(struct sp_codec *c, struct sp_buf *b, const struct sp_record *r)
{
	uint8_t crc[4];

	switch (r->kind) {
	case SP_REC_STRING:
		spi_buf_put(b, r->u.string.s, r->u.string.len);
		return 0;
	case SP_REC_HOST:
		enc_host(b, &r->u.host);
		return 0;
	case SP_REC_MODULE:
		enc_module(b, &r->u.module);
		return 0;
	case SP_REC_FRAME:
		spi_buf_varint(b, r->u.frame.module);
		spi_buf_varint(b, r->u.frame.mode);
		spi_buf_varint(b, r->u.frame.rel_ip);
		spi_buf_varint(b, r->u.frame.abs_ip);
		return 0;
	case SP_REC_NODE:
		spi_buf_varint(b, r->u.node.parent);
		spi_buf_varint(b, r->u.node.frame);
		return 0;
	case SP_REC_THREAD:
		spi_buf_varint(b, r->u.thread.host);
		spi_buf_varint(b, r->u.thread.pid);
		spi_buf_varint(b, r->u.thread.tid);
		spi_buf_varint(b, r->u.thread.comm);
		return 0;
	case SP_REC_SAMPLE:
	case SP_REC_PYTHON:
	case SP_REC_PROC:
		return enc_timed(c, b, r);
	case SP_REC_SUMMARY:
		enc_summary(b, &r->u.summary);
		return 0;
	case SP_REC_SYMBOL:
		enc_symbol(b, &r->u.symbol);
		return 0;
	case SP_REC_RECORDING:
		enc_recording(b, &r->u.recording);
		return 0;
	case SP_REC_RAWSTACK:
		if (r->u.rawstack.nregs > SP_RAWSTACK_REGS_MAX)
			return -SP_EUSAGE;
		spi_buf_varint(b, r->u.rawstack.nregs);
		spi_buf_put(b, r->u.rawstack.regs, (size_t)r->u.rawstack.nregs * 8);
		spi_buf_str(b, (const char *)r->u.rawstack.stack,
		    r->u.rawstack.stack_len);
		return 0;
	case SP_REC_END:
		sp_put_le32(crc, r->u.crc32);
		spi_buf_put(b, crc, 4);
		return 0;
	default:
		return -SP_EUSAGE;
	}
}

int
spi_record_payload(struct sp_codec *c, const struct sp_record *r,
    struct sp_buf *payload)
{
	int err;

	payload->len = 0;
	err = enc_payload(c, payload, r);
	if (err == 0)
		err = payload->err;
	if (err == 0 && payload->len > SP_RECORD_MAX)
		err = -SP_ELIMIT;
	return err;
}

int
spi_record_put(struct sp_buf *out, unsigned kind, const uint8_t *payload,
    size_t len)
{
	spi_buf_u8(out, (uint8_t)kind);
	spi_buf_varint(out, len);
	spi_buf_put(out, payload, len);
	return out->err;
}
