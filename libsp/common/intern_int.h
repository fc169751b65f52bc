/* SPDX-License-Identifier: MIT */
#ifndef SP_INTERN_INT_H
#define SP_INTERN_INT_H

/*
 * The writer's interning table: maps (kind, encoded payload) to the id the
 * writer gave that definition, so equal definitions are written once.
 *
 * Open addressing with linear probing over 8-byte slots (32 bits of the
 * hash and an entry index), so probes and growth stay in few cache lines;
 * the entries (where the key bytes are, their kind and id) and the key
 * bytes live in arrays that only grow.  The hash mixes every key byte
 * into all of its bits before the slot is taken from the low ones.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf_int.h"

struct sp_intern_slot {
	uint32_t hash;  /* the key's hash, cut to 32 bits */
	uint32_t entry; /* index + 1 into entries; 0: empty slot */
};

struct sp_intern_entry {
	uint64_t off;   /* key bytes in keys */
	uint32_t len;
	uint32_t id;
	uint32_t kind;
};

struct sp_intern {
	struct sp_intern_slot *slots;
	size_t cap;                     /* slots, a power of two or 0 */
	struct sp_intern_entry *entries;
	size_t used, capentries;
	struct sp_buf keys;
};

void spi_intern_fini(struct sp_intern *t);

/*
 * Looks up (kind, key[0..len)).  Returns its id, or 0 when absent and
 * stores in *hash the value to pass to spi_intern_add.
 */
uint32_t spi_intern_find(const struct sp_intern *t, unsigned kind,
    const uint8_t *key, size_t len, uint64_t *hash);

/* Adds a key known to be absent.  Returns 0, -SP_ELIMIT (2^32 - 1 keys
 * or a key of 4 GiB) or -ENOMEM. */
int spi_intern_add(struct sp_intern *t, unsigned kind, const uint8_t *key,
    size_t len, uint64_t hash, uint32_t id);

/*
 * A map from keys of a fixed number of 64-bit words to the ids 1, 2, 3...
 * in the order they were added: stack nodes (parent and frame ids in one
 * word) and frames (module and mode, relative and absolute address), so
 * one seen before is found with a hash and a compare, without encoding
 * it.  Slots as in sp_intern (32 bits of the hash and the id); the key of
 * id i is keys[(i - 1) * words].
 */
struct sp_idmap {
	struct sp_intern_slot *slots;   /* entry: the id */
	size_t cap, used;               /* cap: a power of two or 0 */
	uint64_t *keys;
	size_t capkeys;                 /* in keys */
	size_t words;                   /* per key, 1 to 4 */
};

/* The id of key[0..words), or 0 (stores the hash for spi_idmap_add). */
uint32_t spi_idmap_find(const struct sp_idmap *t, const uint64_t *key,
    uint64_t *hash);
/* Adds a key known to be absent as id used + 1.  Returns that id,
 * -SP_ELIMIT or -ENOMEM. */
int64_t spi_idmap_add(struct sp_idmap *t, const uint64_t *key, uint64_t hash);
void spi_idmap_fini(struct sp_idmap *t);

#endif
