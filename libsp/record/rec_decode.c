/* SPDX-License-Identifier: MIT */
/* perf records into typed structs, before anything acts on them. */
#include <linux/perf_event.h>
#include <string.h>

#include "common/cursor_int.h"
#include "rec_decode_int.h"
#include "sp/common/error.h"
#include "unwind/arch_int.h"

/* perf_event_open(2): the sample_id_all trailer of non-sample records for
 * our sample_type (TID, TIME, CPU), then IDENTIFIER where it is on. */
#define SAMPLE_ID_LEN 24

static int
trailer(const struct rec_format *f, const uint8_t *rec, size_t len,
    struct rec_decoded *out)
{
	size_t idlen = SAMPLE_ID_LEN + f->id_len;

	if (len < sizeof(struct perf_event_header) + idlen)
		return -SP_EFORMAT;
	rec += len - idlen;
	out->pid = sp_le32(rec);
	out->tid = sp_le32(rec + 4);
	out->time = sp_le64(rec + 8);
	out->cpu = sp_le32(rec + 16);
	return 0;
}

static void
read_regs(struct sp_cur *c, struct rec_sample *s)
{
	uint64_t abi = sp_rd_u64(c);
	size_t i;

	s->has_regs = c->err == 0 && abi != PERF_SAMPLE_REGS_ABI_NONE;
	if (!s->has_regs)
		return;
	/* In the bit order of the mask (SPI_ARCH_PERF_REGS). */
	for (i = 0; i < SPI_PERF_NREGS; i++)
		s->regs.r[i] = sp_rd_u64(c);
}

static void
read_stack(struct sp_cur *c, struct sp_ustack *stk)
{
	uint64_t size = sp_rd_u64(c), dyn;

	stk->data = NULL;
	stk->len = 0;
	stk->whole = 0;
	if (c->err || size == 0)
		return;
	if (size > sp_cur_left(c)) {
		c->err = -SP_EFORMAT;
		return;
	}
	stk->data = sp_take(c, (size_t)size);
	dyn = sp_rd_u64(c);
	/* dyn_size: how much of the copy is real stack. */
	stk->len = (size_t)(dyn < size ? dyn : size);
	stk->whole = dyn < size;
}

static int
sample(const struct rec_format *f, struct sp_cur *c, struct rec_decoded *out)
{
	struct rec_sample *s = &out->u.sample;

	s->in_kernel = (out->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
	    PERF_RECORD_MISC_KERNEL;
	if (f->id_len)
		s->id = sp_rd_u64(c);
	out->pid = sp_rd_u32(c);
	out->tid = sp_rd_u32(c);
	out->time = sp_rd_u64(c);
	out->cpu = sp_rd_u32(c);
	(void)sp_rd_u32(c);                /* res */
	if (f->period)
		s->period = sp_rd_u64(c);
	if (f->callchain) {
		s->nchain = sp_rd_u64(c);
		if (c->err == 0 && s->nchain > sp_cur_left(c) / 8)
			c->err = -SP_EFORMAT;
		if (c->err == 0)
			s->chain = sp_take(c, (size_t)s->nchain * 8);
	}
	if (!f->no_stack) {
		read_regs(c, s);
		read_stack(c, &s->stk);
	}
	return c->err ? -SP_EFORMAT : 0;
}

/* PERF_RECORD_MMAP2: pid, tid, addr, len, pgoff, maj, min, ino,
 * ino_generation, prot, flags, filename. */
static int
mmap2(struct sp_cur *c, struct rec_decoded *out)
{
	struct sp_map *m = &out->u.mmap.m;
	uint64_t len;

	out->u.mmap.pid = sp_rd_u32(c);
	(void)sp_rd_u32(c);                /* tid */
	m->start = sp_rd_u64(c);
	len = sp_rd_u64(c);
	m->offset = sp_rd_u64(c);
	m->dev_major = sp_rd_u32(c);
	m->dev_minor = sp_rd_u32(c);
	m->inode = sp_rd_u64(c);
	(void)sp_rd_u64(c);                /* ino_generation */
	out->u.mmap.prot = sp_rd_u32(c);
	(void)sp_rd_u32(c);                /* flags */
	if (c->err)
		return -SP_EFORMAT;
	/* Wraps for a nonsense length: the handler refuses end < start. */
	m->end = m->start + len;
	m->path = (const char *)c->p + c->pos;
	m->path_len = strnlen(m->path, sp_cur_left(c));
	return 0;
}

/* PERF_RECORD_COMM: pid, tid, comm; misc says whether it was an exec. */
static int
comm(struct sp_cur *c, struct rec_decoded *out)
{
	size_t n;

	out->u.comm.pid = sp_rd_u32(c);
	out->u.comm.tid = sp_rd_u32(c);
	if (c->err)
		return -SP_EFORMAT;
	n = strnlen((const char *)c->p + c->pos, sp_cur_left(c));
	if (n >= sizeof(out->u.comm.comm))
		n = sizeof(out->u.comm.comm) - 1;
	memcpy(out->u.comm.comm, c->p + c->pos, n);
	out->u.comm.comm[n] = '\0';
	out->u.comm.exec = (out->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	return 0;
}

/* PERF_RECORD_FORK / EXIT: pid, ppid, tid, ptid, time. */
static int
task(struct sp_cur *c, struct rec_decoded *out)
{
	out->u.task.pid = sp_rd_u32(c);
	out->u.task.ppid = sp_rd_u32(c);
	out->u.task.tid = sp_rd_u32(c);
	out->u.task.ptid = sp_rd_u32(c);
	(void)sp_rd_u64(c);                /* time */
	return c->err ? -SP_EFORMAT : 0;
}

int
spi_rec_decode(const struct rec_format *f, const uint8_t *rec, size_t len,
    struct rec_decoded *out)
{
	struct perf_event_header h;
	struct sp_cur c;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(h))
		return -SP_EFORMAT;
	memcpy(&h, rec, sizeof(h));
	out->misc = h.misc;
	if (h.type == PERF_RECORD_SAMPLE) {
		out->kind = REC_SAMPLE;
		c = sp_cur_make(rec + sizeof(h), len - sizeof(h));
		return sample(f, &c, out);
	}
	if (trailer(f, rec, len, out) < 0)
		return -SP_EFORMAT;
	/* The body: between the header and the trailer. */
	c = sp_cur_make(rec + sizeof(h), len - sizeof(h) - SAMPLE_ID_LEN -
	    f->id_len);
	switch (h.type) {
	case PERF_RECORD_MMAP2:
		out->kind = REC_MMAP2;
		return mmap2(&c, out);
	case PERF_RECORD_COMM:
		out->kind = REC_COMM;
		return comm(&c, out);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		out->kind = h.type == PERF_RECORD_FORK ? REC_FORK : REC_EXIT;
		return task(&c, out);
	case PERF_RECORD_LOST:
		out->kind = REC_LOST;
		(void)sp_rd_u64(&c);       /* id */
		out->u.lost = sp_rd_u64(&c);
		return c.err ? -SP_EFORMAT : 0;
	case PERF_RECORD_THROTTLE:
		out->kind = REC_THROTTLE;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		out->kind = REC_SWITCH;
		return 0;
	default:
		out->kind = REC_OTHER;
		return 0;
	}
}
