/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "intern_int.h"

/* FNV-1a over the kind and the key: short keys, speed over strength. */
static uint64_t
hash_key(unsigned kind, const uint8_t *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ kind;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= key[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

void
sp_intern_fini(struct sp_intern *t)
{
	free(t->slots);
	sp_buf_fini(&t->keys);
	memset(t, 0, sizeof(*t));
}

uint32_t
sp_intern_find(const struct sp_intern *t, unsigned kind, const uint8_t *key,
    size_t len, uint64_t *hash)
{
	size_t i;

	*hash = hash_key(kind, key, len);
	if (t->cap == 0)
		return 0;
	for (i = *hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const struct sp_intern_slot *s = &t->slots[i];

		if (s->id == 0)
			return 0;
		if (s->hash == *hash && s->kind == kind && s->len == len &&
		    (len == 0 || memcmp(t->keys.p + s->off, key, len) == 0))
			return s->id;
	}
}

static void
place(struct sp_intern_slot *slots, size_t cap, const struct sp_intern_slot *s)
{
	size_t i = s->hash & (cap - 1);

	while (slots[i].id != 0)
		i = (i + 1) & (cap - 1);
	slots[i] = *s;
}

static int
rehash(struct sp_intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	struct sp_intern_slot *slots;

	if (cap > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->slots[i].id != 0)
			place(slots, cap, &t->slots[i]);
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

int
sp_intern_add(struct sp_intern *t, unsigned kind, const uint8_t *key,
    size_t len, uint64_t hash, uint32_t id)
{
	struct sp_intern_slot s;

	/* Keep the load under 1/2 so probes stay short. */
	if ((t->used + 1) * 2 > t->cap && rehash(t) < 0)
		return -ENOMEM;
	s.hash = hash;
	s.id = id;
	s.kind = kind;
	s.off = t->keys.len;
	s.len = len;
	sp_buf_put(&t->keys, key, len);
	if (t->keys.err)
		return t->keys.err;
	place(t->slots, t->cap, &s);
	t->used++;
	return 0;
}
