/* SPDX-License-Identifier: MIT */
/*
 * The leaf analyses already done.  A JIT's hot code has no CFI, so every
 * sample in it used to be decoded afresh: hundreds of instructions and
 * several reads of the other process's memory (most of the recorder's
 * cost on a JVM).  The result depends on the code alone, so it is kept by
 * (epoch, pc) in a fixed table, with the code bytes at pc it was made
 * from: an entry serves while its process's code keeps its epoch (the
 * recorder gives it a new one when its mappings or its perf map change)
 * and the bytes at pc are still the same (a JIT that reuses its code
 * space in place changes no mapping).
 */
#include <stdlib.h>
#include <string.h>

#include "unwind/walk_int.h"

#define MEMO_SLOTS 2048  /* of 80 bytes: 160 KiB, whatever the load */

struct memo_slot {
	uint64_t epoch;  /* 0: empty */
	uint64_t pc;
	uint8_t code[SPI_LEAF_MEMO_CODE];
	unsigned char v[SPI_LEAF_MEMO_VALUE];
};

struct sp_leaf_memo {
	struct memo_slot slot[MEMO_SLOTS];
};

struct sp_leaf_memo *
spi_leaf_memo_new(void)
{
	return calloc(1, sizeof(struct sp_leaf_memo));
}

void
spi_leaf_memo_free(struct sp_leaf_memo *m)
{
	free(m);
}

static struct memo_slot *
slot_of(struct sp_leaf_memo *m, uint64_t epoch, uint64_t pc)
{
	uint64_t h = (pc ^ epoch << 32 ^ epoch) * 0x9e3779b97f4a7c15ull;

	return &m->slot[(h >> 40) & (MEMO_SLOTS - 1)];
}

int
spi_leaf_memo_find(const struct sp_unwind_lookup *lk, uint64_t pc,
    struct spi_leaf_key *key, void *v, size_t len,
    struct sp_unwind_stats *stats)
{
	struct memo_slot *s;

	key->ok = 0;
	if (lk->memo == NULL || lk->epoch == 0 || len > SPI_LEAF_MEMO_VALUE ||
	    lk->read_code(lk->ctx, pc, key->code, sizeof(key->code)) !=
	    sizeof(key->code))
		return -SP_ENOTFOUND;
	key->ok = 1;
	key->pc = pc;
	s = slot_of(lk->memo, lk->epoch, pc);
	if (s->epoch != lk->epoch || s->pc != pc ||
	    memcmp(s->code, key->code, sizeof(s->code)) != 0)
		return -SP_ENOTFOUND;
	memcpy(v, s->v, len);
	stats->leaf_memo_hits++;
	return 0;
}

void
spi_leaf_memo_keep(const struct sp_unwind_lookup *lk,
    const struct spi_leaf_key *key, const void *v, size_t len)
{
	struct memo_slot *s;

	if (!key->ok || len > SPI_LEAF_MEMO_VALUE)
		return;
	s = slot_of(lk->memo, lk->epoch, key->pc);
	s->epoch = lk->epoch;
	s->pc = key->pc;
	memcpy(s->code, key->code, sizeof(s->code));
	memset(s->v, 0, sizeof(s->v));
	memcpy(s->v, v, len);
}
