/* SPDX-License-Identifier: MIT */
/*
 * Input id -> output id maps for copying records between spools (see
 * remap_int.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf_int.h"
#include "remap_int.h"
#include "sp/common/error.h"

int
spi_remap_add(struct sp_remap *m, uint32_t kind, uint32_t in, uint32_t out)
{
	struct sp_remap_ids *im;

	if (kind == 0 || kind >= SP_REC_KINDS_)
		return -SP_EUSAGE;
	im = &m->map[kind];
	/* The reader checked the ordinals: in is the next one. */
	if (in != im->n + 1)
		return -SP_EFORMAT;
	if (spi_grow_zeroed(&im->v, &im->cap, im->n + 1, sizeof(*im->v)) != 0)
		return -ENOMEM;
	im->v[im->n++] = out;
	return 0;
}

uint32_t
spi_remap_get(const struct sp_remap *m, uint32_t kind, uint32_t in)
{
	const struct sp_remap_ids *im;

	if (kind == 0 || kind >= SP_REC_KINDS_)
		return 0;
	/* Host 0 is the input header's host (spool format, MODULE). */
	if (kind == SP_REC_HOST && in == 0)
		return m->host0;
	im = &m->map[kind];
	return in == 0 || in > im->n ? 0 : im->v[in - 1];
}

int
spi_remap_is_definition(uint32_t kind)
{
	return kind == SP_REC_STRING || kind == SP_REC_HOST ||
	    kind == SP_REC_MODULE || kind == SP_REC_FRAME ||
	    kind == SP_REC_NODE || kind == SP_REC_THREAD;
}

/* A reference field: a uint32_t id of kind target at off in the record. */
struct ref_field {
	uint16_t off;
	uint8_t target;
};

#define REF(f, t) { (uint16_t)offsetof(struct sp_record, u.f), t }

/*
 * Every reference of every kind, as docs/spool-format.md lists them
 * (SYMBOL's lines are the one array, mapped by remap_symbol).
 */
static const struct ref_fields {
	uint8_t n;
	struct ref_field f[2];
} refs[SP_REC_KINDS_] = {
	[SP_REC_MODULE] = { 2, { REF(module.host, SP_REC_HOST),
	    REF(module.path, SP_REC_STRING) } },
	[SP_REC_FRAME] = { 1, { REF(frame.module, SP_REC_MODULE) } },
	[SP_REC_NODE] = { 2, { REF(node.parent, SP_REC_NODE),
	    REF(node.frame, SP_REC_FRAME) } },
	[SP_REC_THREAD] = { 2, { REF(thread.host, SP_REC_HOST),
	    REF(thread.comm, SP_REC_STRING) } },
	[SP_REC_SAMPLE] = { 2, { REF(sample.thread, SP_REC_THREAD),
	    REF(sample.stack, SP_REC_NODE) } },
	[SP_REC_PYTHON] = { 1, { REF(python.host, SP_REC_HOST) } },
	[SP_REC_PROC] = { 2, { REF(proc.host, SP_REC_HOST),
	    REF(proc.comm, SP_REC_STRING) } },
	[SP_REC_SYMBOL] = { 2, { REF(symbol.frame, SP_REC_FRAME),
	    REF(symbol.module_name, SP_REC_STRING) } },
};

static void
remap_symbol(struct sp_remap *m, struct sp_symbol *s)
{
	uint32_t i;

	for (i = 0; i < s->count && i < SP_INLINE_MAX; i++) {
		m->lines[i].function = spi_remap_get(m, SP_REC_STRING,
		    s->lines[i].function);
		m->lines[i].file = spi_remap_get(m, SP_REC_STRING,
		    s->lines[i].file);
		m->lines[i].line = s->lines[i].line;
	}
	s->lines = m->lines;
}

void
spi_remap_refs(struct sp_remap *m, struct sp_record *rec)
{
	const struct ref_fields *r;
	uint32_t *id;
	uint8_t i;

	if (rec->kind >= SP_REC_KINDS_)
		return;
	r = &refs[rec->kind];
	for (i = 0; i < r->n; i++) {
		id = (uint32_t *)(void *)((char *)rec + r->f[i].off);
		*id = spi_remap_get(m, r->f[i].target, *id);
	}
	if (rec->kind == SP_REC_SYMBOL)
		remap_symbol(m, &rec->u.symbol);
}

int
spi_remap_put(struct sp_remap *m, struct sp_writer *w, struct sp_record *rec,
    uint32_t *out)
{
	uint32_t in_id = rec->id, out_id = 0;
	int def = spi_remap_is_definition(rec->kind), err;

	spi_remap_refs(m, rec);
	err = spi_writer_put_copy(w, rec, def ? &out_id : NULL);
	if (err < 0 || !def)
		return err;
	if (out != NULL)
		*out = out_id;
	return spi_remap_add(m, rec->kind, in_id, out_id);
}

void
spi_remap_fini(struct sp_remap *m)
{
	size_t k;

	for (k = 0; k < SP_REC_KINDS_; k++) {
		free(m->map[k].v);
		m->map[k].v = NULL;
		m->map[k].n = m->map[k].cap = 0;
	}
	m->host0 = 0;
}
