/* SPDX-License-Identifier: MIT */
/*
 * Write -> read round trip: the input is a program of records for the
 * writer (which may refuse some); whatever it accepted must read back
 * identically, as a finished spool, and every id it gave a node or a
 * frame (found again by its fields, unencoded, when it was written
 * before) must be the definition with those fields, and every stack
 * sp_writer_stack gave (from its memo of the stack before, in part) the
 * path of those frames.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp/spool/snapshot.h"
#include "sp/spool/writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXS 4096

struct given {
	struct sp_record r;
	uint32_t id;
};

#define STACK_MAX 6
#define STACK_OP 0xff  /* a record kind no record has: sp_writer_stack */

struct stack {
	uint32_t frames[STACK_MAX];
	size_t n;
	uint32_t id;
};

struct prog {
	const uint8_t *p;
	size_t len, pos;
};

static uint64_t
take(struct prog *g, unsigned bytes)
{
	uint64_t v = 0;

	while (bytes-- > 0 && g->pos < g->len)
		v = v << 8 | g->p[g->pos++];
	return v;
}

/* Builds one record from the program; returns 0 when it is exhausted. */
static int
next_record(struct prog *g, struct sp_record *r, uint64_t *clock)
{
	if (g->pos >= g->len)
		return 0;
	memset(r, 0, sizeof(*r));
	r->kind = 1 + (unsigned)(take(g, 1) % 13);
	switch (r->kind) {
	case 13: /* frames of a stack, leaf first, in the node fields */
		r->kind = STACK_OP;
		r->u.node.depth = (uint32_t)take(g, 1) % (STACK_MAX + 1);
		r->u.node.parent = (uint32_t)take(g, 1);
		r->u.node.frame = (uint32_t)take(g, 1) % 4;
		break;
	case SP_REC_STRING:
		r->u.string.len = (uint32_t)take(g, 1) % 8;
		r->u.string.s = "abcdefgh";
		break;
	case SP_REC_FRAME:
		r->u.frame.module = (uint32_t)take(g, 1) % 3;
		r->u.frame.mode = (uint32_t)take(g, 1) % 4;
		r->u.frame.rel_ip = take(g, 8);
		r->u.frame.abs_ip = take(g, 2);
		break;
	case SP_REC_NODE:
		r->u.node.parent = (uint32_t)take(g, 1);
		r->u.node.frame = (uint32_t)take(g, 1);
		break;
	case SP_REC_THREAD:
		r->u.thread.pid = (uint32_t)take(g, 4);
		r->u.thread.tid = (uint32_t)take(g, 1);
		r->u.thread.comm = (uint32_t)take(g, 1) % 4;
		break;
	case SP_REC_SAMPLE:
		*clock += take(g, 2);
		*clock -= take(g, 1) & 0x80 ? take(g, 1) : 0;
		r->u.sample.thread = (uint32_t)take(g, 1);
		r->u.sample.stack = (uint32_t)take(g, 1);
		r->u.sample.cpu = (uint32_t)take(g, 1);
		r->u.sample.time = *clock;
		/* Kind 3 and off-CPU weight 0 are the writer's to refuse. */
		r->u.sample.kind = (uint32_t)take(g, 1) % 4;
		r->u.sample.weight = take(g, 1) & 1 ? take(g, 8) : 0;
		break;
	case SP_REC_MODULE:
		r->u.module.pid = (uint32_t)take(g, 2);
		r->u.module.start = take(g, 8);
		r->u.module.size = take(g, 2);
		r->u.module.path = (uint32_t)take(g, 1) % 3;
		r->u.module.build_id_len = (uint8_t)(take(g, 1) % 21);
		break;
	default:
		r->kind = SP_REC_STRING; /* other kinds: see the unit tests */
		r->u.string.s = "x";
		r->u.string.len = 1;
		break;
	}
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_sample want[MAXS];
	static struct given defs[MAXS];
	static struct stack stacks[MAXS];
	struct prog g = { data, size, 0 };
	struct sp_header h;
	struct sp_writer *w;
	struct sp_snapshot *s;
	struct sp_record r;
	uint64_t clock = 100;
	size_t n = 0, nd = 0, ns = 0, i, k;
	uint32_t id;
	int fd = memfd_create("rt", 0);

	memset(&h, 0, sizeof(h));
	h.start_mono_ns = 100;
	if (fd < 0 || sp_writer_new(fd, &h, &w) != 0)
		abort();
	while (n < MAXS && nd < MAXS && ns < MAXS &&
	    next_record(&g, &r, &clock)) {
		if (r.kind == STACK_OP) {
			/* A base frame and small steps from it: stacks that
			 * share root paths and differ near the leaf. */
			struct stack *st = &stacks[ns];

			st->n = r.u.node.depth;
			for (k = 0; k < st->n; k++)
				st->frames[k] = r.u.node.parent +
				    (k == 0 ? r.u.node.frame : 0);
			if (sp_writer_stack(w, st->frames, st->n,
			    &st->id) == 0)
				ns++;
			continue;
		}
		if (sp_writer_put(w, &r, &id) != 0)
			continue;
		if (r.kind == SP_REC_SAMPLE)
			want[n++] = r.u.sample;
		if (r.kind == SP_REC_NODE || r.kind == SP_REC_FRAME) {
			defs[nd].r = r;
			defs[nd++].id = id;
		}
	}
	if (sp_writer_finish(w) != 0)
		abort();
	sp_writer_free(w);
	{
		off_t len = lseek(fd, 0, SEEK_END);
		uint8_t *buf = malloc((size_t)len);

		if (buf == NULL || pread(fd, buf, (size_t)len, 0) != len)
			abort();
		if (sp_snapshot_open_mem(buf, (size_t)len, &s, NULL) != 0)
			abort(); /* the writer wrote what a reader rejects */
		free(buf);
	}
	if (!sp_snapshot_status(s)->finished || sp_snapshot_nsamples(s) != n)
		abort();
	for (i = 0; i < n; i++) {
		const struct sp_sample *got = &sp_snapshot_samples(s)[i];

		if (got->thread != want[i].thread ||
		    got->stack != want[i].stack || got->time != want[i].time ||
		    got->cpu != want[i].cpu || got->kind != want[i].kind ||
		    got->weight != (want[i].weight ? want[i].weight : 1))
			abort();
	}
	for (i = 0; i < nd; i++) {
		const struct sp_defs *d = sp_snapshot_defs(s);
		const struct sp_record *put = &defs[i].r;

		if (put->kind == SP_REC_NODE) {
			const struct sp_node *e = sp_defs_node(d, defs[i].id);

			if (e == NULL || e->parent != put->u.node.parent ||
			    e->frame != put->u.node.frame)
				abort();
		} else {
			const struct sp_frame *e = sp_defs_frame(d, defs[i].id);

			if (e == NULL || e->module != put->u.frame.module ||
			    e->mode != put->u.frame.mode ||
			    e->rel_ip != put->u.frame.rel_ip ||
			    e->abs_ip != put->u.frame.abs_ip)
				abort();
		}
	}
	for (i = 0; i < ns; i++) {
		const struct sp_defs *d = sp_snapshot_defs(s);
		uint32_t at = stacks[i].id;

		for (k = 0; k < stacks[i].n; k++) {
			const struct sp_node *e = sp_defs_node(d, at);

			if (e == NULL || e->frame != stacks[i].frames[k])
				abort();
			at = e->parent;
		}
		if (at != 0)
			abort();
	}
	sp_snapshot_free(s);
	(void)close(fd);
	return 0;
}
