/* SPDX-License-Identifier: MIT */
/*
 * Input id -> output id maps for copying records between spools (see
 * remap_int.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp/error.h"
#include "remap_int.h"

int
sp_remap_add(struct sp_remap *m, uint32_t kind, uint32_t in, uint32_t out)
{
	struct sp_idmap *im;
	uint32_t *v;
	size_t cap;

	if (kind == 0 || kind >= SP_REC_KINDS_)
		return -SP_EUSAGE;
	im = &m->map[kind];
	/* The reader checked the ordinals: in is the next one. */
	if (in != im->n + 1)
		return -SP_EFORMAT;
	if (im->n == im->cap) {
		cap = im->cap ? im->cap * 2 : 1024;
		v = realloc(im->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		im->v = v;
		im->cap = cap;
	}
	im->v[im->n++] = out;
	return 0;
}

uint32_t
sp_remap_get(const struct sp_remap *m, uint32_t kind, uint32_t in)
{
	const struct sp_idmap *im;

	if (kind == 0 || kind >= SP_REC_KINDS_)
		return 0;
	/* Host 0 is the input header's host (spool format, MODULE). */
	if (kind == SP_REC_HOST && in == 0)
		return m->host0;
	im = &m->map[kind];
	return in == 0 || in > im->n ? 0 : im->v[in - 1];
}

int
sp_remap_is_definition(uint32_t kind)
{
	return kind == SP_REC_STRING || kind == SP_REC_HOST ||
	    kind == SP_REC_MODULE || kind == SP_REC_FRAME ||
	    kind == SP_REC_NODE || kind == SP_REC_THREAD;
}

static void
remap_symbol(struct sp_remap *m, struct sp_symbol *s)
{
	uint32_t i;

	for (i = 0; i < s->count && i < SP_INLINE_MAX; i++) {
		m->lines[i].function = sp_remap_get(m, SP_REC_STRING,
		    s->lines[i].function);
		m->lines[i].file = sp_remap_get(m, SP_REC_STRING,
		    s->lines[i].file);
		m->lines[i].line = s->lines[i].line;
	}
	s->frame = sp_remap_get(m, SP_REC_FRAME, s->frame);
	s->module_name = sp_remap_get(m, SP_REC_STRING, s->module_name);
	s->lines = m->lines;
}

void
sp_remap_refs(struct sp_remap *m, struct sp_record *rec)
{
	switch (rec->kind) {
	case SP_REC_MODULE:
		rec->u.module.host = sp_remap_get(m, SP_REC_HOST,
		    rec->u.module.host);
		rec->u.module.path = sp_remap_get(m, SP_REC_STRING,
		    rec->u.module.path);
		break;
	case SP_REC_FRAME:
		rec->u.frame.module = sp_remap_get(m, SP_REC_MODULE,
		    rec->u.frame.module);
		break;
	case SP_REC_NODE:
		rec->u.node.parent = sp_remap_get(m, SP_REC_NODE,
		    rec->u.node.parent);
		rec->u.node.frame = sp_remap_get(m, SP_REC_FRAME,
		    rec->u.node.frame);
		break;
	case SP_REC_THREAD:
		rec->u.thread.host = sp_remap_get(m, SP_REC_HOST,
		    rec->u.thread.host);
		rec->u.thread.comm = sp_remap_get(m, SP_REC_STRING,
		    rec->u.thread.comm);
		break;
	case SP_REC_SAMPLE:
		rec->u.sample.thread = sp_remap_get(m, SP_REC_THREAD,
		    rec->u.sample.thread);
		rec->u.sample.stack = sp_remap_get(m, SP_REC_NODE,
		    rec->u.sample.stack);
		break;
	case SP_REC_PYTHON:
		rec->u.python.host = sp_remap_get(m, SP_REC_HOST,
		    rec->u.python.host);
		break;
	case SP_REC_PROC:
		rec->u.proc.host = sp_remap_get(m, SP_REC_HOST,
		    rec->u.proc.host);
		rec->u.proc.comm = sp_remap_get(m, SP_REC_STRING,
		    rec->u.proc.comm);
		break;
	case SP_REC_SYMBOL:
		remap_symbol(m, &rec->u.symbol);
		break;
	default:
		break;
	}
}

int
sp_remap_put(struct sp_remap *m, struct sp_writer *w, struct sp_record *rec,
    uint32_t *out)
{
	uint32_t in_id = rec->id, out_id = 0;
	int def = sp_remap_is_definition(rec->kind), err;

	sp_remap_refs(m, rec);
	err = sp_writer_put(w, rec, def ? &out_id : NULL);
	if (err < 0 || !def)
		return err;
	if (out != NULL)
		*out = out_id;
	return sp_remap_add(m, rec->kind, in_id, out_id);
}

void
sp_remap_fini(struct sp_remap *m)
{
	size_t k;

	for (k = 0; k < SP_REC_KINDS_; k++) {
		free(m->map[k].v);
		m->map[k].v = NULL;
		m->map[k].n = m->map[k].cap = 0;
	}
	m->host0 = 0;
}
