/* SPDX-License-Identifier: MIT */
#ifndef SP_IMAP_INT_H
#define SP_IMAP_INT_H

/*
 * A hash map from 32-bit keys (pids, tids) to pointers, with deletion
 * (linear probing, backward-shift delete), so tables of processes and
 * threads shrink as they exit.
 */

#include <stddef.h>
#include <stdint.h>

struct sp_imap_slot {
	uint32_t key;
	void *val;  /* NULL: empty */
};

struct sp_imap {
	struct sp_imap_slot *slots;
	size_t cap, used;
};

void *spi_imap_get(const struct sp_imap *m, uint32_t key);
/* Sets key to val (not NULL).  Returns 0 or -ENOMEM. */
int spi_imap_put(struct sp_imap *m, uint32_t key, void *val);
/* Removes key and returns its value, or NULL. */
void *spi_imap_del(struct sp_imap *m, uint32_t key);
/* Calls fn for every value (the map must not change meanwhile). */
void spi_imap_each(const struct sp_imap *m, void (*fn)(void *val, void *ctx),
    void *ctx);
void spi_imap_fini(struct sp_imap *m);

#endif
