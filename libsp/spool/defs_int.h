/* SPDX-License-Identifier: MIT */
#ifndef SP_DEFS_INT_H
#define SP_DEFS_INT_H

#include "sp/spool/spool.h"

/* Returns a new, empty table, or NULL when out of memory. */
struct sp_defs *spi_defs_new(void);
void spi_defs_free(struct sp_defs *d);

/*
 * Checks a decoded record's references against the definitions so far
 * and, for a definition, adds it and sets r->id.  Copies r's strings into
 * the table and points r at the copies.  Returns 0; -SP_EREF or
 * -SP_EFORMAT; -SP_ELIMIT past 2^32-1 definitions; -ENOMEM; each with diag
 * (may be NULL) saying why, at offset 0 as spi_record_decode does.
 */
int spi_defs_add(struct sp_defs *d, struct sp_record *r, struct sp_diag *diag);

/*
 * Checks r's references against n[kind], the number of definitions of each
 * kind so far.  Returns 0, or -SP_EREF with diag (may be NULL) naming the
 * reference, at offset 0.
 */
int spi_check_refs(const uint32_t *n, const struct sp_record *r,
    struct sp_diag *diag);

#endif
