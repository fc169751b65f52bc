/* SPDX-License-Identifier: MIT */
#ifndef SP_DEFS_INT_H
#define SP_DEFS_INT_H

#include "sp/spool.h"

/* Returns a new, empty table, or NULL when out of memory. */
struct sp_defs *sp_defs_new(void);
void sp_defs_free(struct sp_defs *d);

/*
 * Checks a decoded record's references against the definitions so far
 * and, for a definition, adds it and sets r->id.  Copies r's strings into
 * the table and points r at the copies.  Returns 0; -SP_EREF or
 * -SP_EFORMAT with *why; -SP_ELIMIT past 2^32-1 definitions; -ENOMEM.
 */
int sp_defs_add(struct sp_defs *d, struct sp_record *r, const char **why);

/*
 * Checks r's references against n[kind], the number of definitions of each
 * kind so far.  Returns NULL, or the reason a reference is invalid.
 */
const char *sp_check_refs(const uint32_t *n, const struct sp_record *r);

#endif
