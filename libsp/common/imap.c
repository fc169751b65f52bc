/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "imap_int.h"

static size_t
slot_of(uint32_t key, size_t cap)
{
	return (size_t)(key * 2654435761u) & (cap - 1);
}

void *
spi_imap_get(const struct sp_imap *m, uint32_t key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = slot_of(key, m->cap); m->slots[i].val != NULL;
	    i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			return m->slots[i].val;
	return NULL;
}

static void
place(struct sp_imap_slot *slots, size_t cap, uint32_t key, void *val)
{
	size_t i = slot_of(key, cap);

	while (slots[i].val != NULL && slots[i].key != key)
		i = (i + 1) & (cap - 1);
	slots[i].key = key;
	slots[i].val = val;
}

static int
resize(struct sp_imap *m, size_t cap)
{
	struct sp_imap_slot *s = calloc(cap, sizeof(*s));
	size_t i;

	if (s == NULL)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].val != NULL)
			place(s, cap, m->slots[i].key, m->slots[i].val);
	free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

int
spi_imap_put(struct sp_imap *m, uint32_t key, void *val)
{
	if (spi_imap_get(m, key) == NULL) {
		if ((m->used + 1) * 2 > m->cap &&
		    resize(m, m->cap ? m->cap * 2 : 64) < 0)
			return -ENOMEM;
		m->used++;
	}
	place(m->slots, m->cap, key, val);
	return 0;
}

void *
spi_imap_del(struct sp_imap *m, uint32_t key)
{
	size_t i, j, k;
	void *val;

	if (m->cap == 0)
		return NULL;
	for (i = slot_of(key, m->cap); m->slots[i].val != NULL;
	    i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			break;
	if (m->slots[i].val == NULL)
		return NULL;
	val = m->slots[i].val;
	m->slots[i].val = NULL;
	m->used--;
	/* Backward shift: move later entries of the run into the hole when
	 * their home slot is not between the hole and them. */
	for (j = (i + 1) & (m->cap - 1); m->slots[j].val != NULL;
	    j = (j + 1) & (m->cap - 1)) {
		k = slot_of(m->slots[j].key, m->cap);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			m->slots[i] = m->slots[j];
			m->slots[j].val = NULL;
			i = j;
		}
	}
	return val;
}

void
spi_imap_each(const struct sp_imap *m, void (*fn)(void *val, void *ctx),
    void *ctx)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].val != NULL)
			fn(m->slots[i].val, ctx);
}

void
spi_imap_fini(struct sp_imap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
