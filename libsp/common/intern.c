/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "intern_int.h"
#include "sp/common/error.h"

#define MUL1 0x9e3779b97f4a7c15ull	/* odd constants with mixed bits */
#define MUL2 0xd6e8feb86659fd93ull

/* Host byte order: the hash never leaves the process. */
static uint64_t
word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One 64-bit word into the state: multiply, then fold the high half
 * down, so every input bit reaches every bit of the result. */
static uint64_t
mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * MUL1;
	return h ^ (h >> 32);
}

/* Eight bytes at a time: the keys are short varint payloads and names. */
static uint64_t
hash_key(unsigned kind, const uint8_t *key, size_t len)
{
	uint64_t h = ((uint64_t)kind << 56) ^ len ^ MUL2, w;
	size_t i = 0;

	for (; len - i >= 8; i += 8)
		h = mix(h, word(key + i));
	if (i < len) {
		w = 0;
		memcpy(&w, key + i, len - i);
		h = mix(h, w ^ ((uint64_t)(len - i) << 59));
	}
	h *= MUL2;
	return h ^ (h >> 29);
}

void
spi_intern_fini(struct sp_intern *t)
{
	free(t->slots);
	free(t->entries);
	spi_buf_fini(&t->keys);
	memset(t, 0, sizeof(*t));
}

uint32_t
spi_intern_find(const struct sp_intern *t, unsigned kind, const uint8_t *key,
    size_t len, uint64_t *hash)
{
	uint32_t h32;
	size_t i;

	*hash = hash_key(kind, key, len);
	if (t->cap == 0)
		return 0;
	h32 = (uint32_t)*hash;
	for (i = *hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const struct sp_intern_slot *s = &t->slots[i];
		const struct sp_intern_entry *e;

		if (s->entry == 0)
			return 0;
		if (s->hash != h32)
			continue;
		e = &t->entries[s->entry - 1];
		if (e->kind == kind && e->len == len && (len == 0 ||
		    memcmp(spi_buf_at(&t->keys, e->off), key, len) == 0))
			return e->id;
	}
}

/* The slot index comes from the hash's low bits, which the final mix of
 * hash_key made depend on all of the key; only the 32 bits kept in the
 * slot are needed to place it again. */
static void
place(struct sp_intern_slot *slots, size_t cap, uint32_t hash,
    uint32_t entry)
{
	size_t i = hash & (cap - 1);

	while (slots[i].entry != 0)
		i = (i + 1) & (cap - 1);
	slots[i].hash = hash;
	slots[i].entry = entry;
}

static int
rehash(struct sp_intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 4096, i;
	struct sp_intern_slot *slots;

	if (cap > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->slots[i].entry != 0)
			place(slots, cap, t->slots[i].hash, t->slots[i].entry);
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

static int
grow_entries(struct sp_intern *t)
{
	return spi_grow_zeroed(&t->entries, &t->capentries, t->capentries + 1,
	    sizeof(*t->entries));
}

int
spi_intern_add(struct sp_intern *t, unsigned kind, const uint8_t *key,
    size_t len, uint64_t hash, uint32_t id)
{
	struct sp_intern_entry *e;

	if (t->used >= UINT32_MAX - 1 || len > UINT32_MAX)
		return -SP_ELIMIT;
	/* Keep the load under 3/4: a probe reads 8-byte slots in a row,
	 * eight to a cache line, so even a miss's longer run stays in one
	 * or two, and a large table (sp-sym's names, by the ten thousand)
	 * doubles later, touching fewer new pages. */
	if ((t->used + 1) * 4 > t->cap * 3 && rehash(t) < 0)
		return -ENOMEM;
	if (t->used == t->capentries && grow_entries(t) < 0)
		return -ENOMEM;
	e = &t->entries[t->used];
	e->off = t->keys.len;
	e->len = (uint32_t)len;
	e->id = id;
	e->kind = kind;
	spi_buf_put(&t->keys, key, len);
	if (t->keys.err)
		return t->keys.err;
	t->used++;
	place(t->slots, t->cap, (uint32_t)hash, (uint32_t)t->used);
	return 0;
}

static uint64_t
hash_words(const uint64_t *key, size_t words)
{
	uint64_t h = MUL2 ^ words;
	size_t i;

	for (i = 0; i < words; i++)
		h = mix(h, key[i]);
	h *= MUL2;
	return h ^ (h >> 29);
}

/* Not memcmp: musl's compares byte by byte. */
static int
same_words(const uint64_t *a, const uint64_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

uint32_t
spi_idmap_find(const struct sp_idmap *t, const uint64_t *key, uint64_t *hash)
{
	size_t i;

	*hash = hash_words(key, t->words);
	if (t->cap == 0)
		return 0;
	for (i = *hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const struct sp_intern_slot *s = &t->slots[i];

		if (s->entry == 0)
			return 0;
		if (s->hash == (uint32_t)*hash &&
		    same_words(t->keys + (s->entry - 1) * t->words, key,
		    t->words))
			return s->entry;
	}
}

int64_t
spi_idmap_add(struct sp_idmap *t, const uint64_t *key, uint64_t hash)
{
	size_t n = t->used * t->words;

	if (t->used >= UINT32_MAX - 1)
		return -SP_ELIMIT;
	if ((t->used + 1) * 2 > t->cap) {
		struct sp_intern tab = { .slots = t->slots, .cap = t->cap };

		if (rehash(&tab) < 0)
			return -ENOMEM;
		t->slots = tab.slots;
		t->cap = tab.cap;
	}
	if (spi_grow_zeroed(&t->keys, &t->capkeys, n + t->words,
	    sizeof(*t->keys)) != 0)
		return -ENOMEM;
	memcpy(t->keys + n, key, t->words * sizeof(*key));
	t->used++;
	place(t->slots, t->cap, (uint32_t)hash, (uint32_t)t->used);
	return (int64_t)t->used;
}

void
spi_idmap_fini(struct sp_idmap *t)
{
	size_t words = t->words;

	free(t->slots);
	free(t->keys);
	memset(t, 0, sizeof(*t));
	t->words = words;
}
