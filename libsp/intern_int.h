/* SPDX-License-Identifier: MIT */
#ifndef SP_INTERN_INT_H
#define SP_INTERN_INT_H

/*
 * The writer's interning table: maps (kind, encoded payload) to the id the
 * writer gave that definition, so equal definitions are written once.
 * Open addressing with linear probing; keys are kept in one byte buffer.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf_int.h"

struct sp_intern_slot {
	uint64_t hash;
	uint32_t id;    /* 0: empty slot */
	uint32_t kind;
	size_t off;     /* key bytes in keys */
	size_t len;
};

struct sp_intern {
	struct sp_intern_slot *slots;
	size_t cap, used;
	struct sp_buf keys;
};

void sp_intern_fini(struct sp_intern *t);

/*
 * Looks up (kind, key[0..len)).  Returns its id, or 0 when absent and
 * stores in *hash the value to pass to sp_intern_add.
 */
uint32_t sp_intern_find(const struct sp_intern *t, unsigned kind,
    const uint8_t *key, size_t len, uint64_t *hash);

/* Adds a key known to be absent.  Returns 0 or -ENOMEM. */
int sp_intern_add(struct sp_intern *t, unsigned kind, const uint8_t *key,
    size_t len, uint64_t hash, uint32_t id);

#endif
