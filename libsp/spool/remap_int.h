/* SPDX-License-Identifier: MIT */
#ifndef SP_REMAP_INT_H
#define SP_REMAP_INT_H

/*
 * Copying records from a reader to a writer: the writer interns
 * definitions, so an input id maps to a possibly different output id.
 * One map per definition kind; input ids come 1, 2, 3... (spool format,
 * "Ids").  Used by sp_sym_spool (one input) and sp_merge (many).
 */

#include "sp/spool/spool.h"
#include "sp/spool/writer.h"

struct sp_remap_ids {
	uint32_t *v;
	size_t n, cap;
};

struct sp_remap {
	struct sp_remap_ids map[SP_REC_KINDS_];
	/* The output host for input host 0 (the input header's host). */
	uint32_t host0;
	struct sp_symline lines[SP_INLINE_MAX]; /* a mapped SYMBOL's lines */
};

/* Records that in (the next input id of kind) became out.  0 or error. */
int spi_remap_add(struct sp_remap *m, uint32_t kind, uint32_t in,
    uint32_t out);

/* The output id of input id in of kind; 0 for 0 or an unknown id. */
uint32_t spi_remap_get(const struct sp_remap *m, uint32_t kind, uint32_t in);

/* Whether kind is a definition (it defines an id). */
int spi_remap_is_definition(uint32_t kind);

/*
 * Maps rec's references to output ids in place.  A SYMBOL's lines are
 * copied into m->lines, so rec is valid until the next call.
 */
void spi_remap_refs(struct sp_remap *m, struct sp_record *rec);

/*
 * Maps rec's references, puts it to w and, for a definition, records the
 * id mapping and stores the output id in *out (out may be NULL).  Returns
 * 0 or the writer's error.  rec is one a reader decoded: the writer
 * checks its references, not its fields again (spi_writer_put_copy).
 */
int spi_remap_put(struct sp_remap *m, struct sp_writer *w,
    struct sp_record *rec, uint32_t *out);

/*
 * sp_writer_put for a record a reader decoded, whose references alone
 * may have changed since: checked on those, not encoded and decoded back
 * (writer.c).  For spi_remap_put.
 */
int spi_writer_put_copy(struct sp_writer *w, const struct sp_record *r,
    uint32_t *id);

/* Forgets every mapping (for the next input) and frees the maps. */
void spi_remap_fini(struct sp_remap *m);

#endif
