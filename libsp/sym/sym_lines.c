/* SPDX-License-Identifier: MIT */
/* A frame's symbol lines, their strings in the symbolizer's table, with
 * the ids of strings that stay in place remembered.  A leaf of the sym folder: the
 * ELF and DWARF side (sym_elf.c) and the fallbacks (sym_resolve.c) both
 * add lines through it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym_int.h"

int
spi_sym_string(struct sym_ctx *c, const char *s, size_t len, uint32_t *id)
{
	struct sp_intern *t = c->own;
	uint8_t stack[256], *key;
	uint64_t h;
	int err;

	/* The key carries the NUL, so the stored copy is a C string. */
	key = len < sizeof(stack) ? stack : malloc(len + 1);
	if (key == NULL)
		return -ENOMEM;
	memcpy(key, s, len);
	key[len] = '\0';
	*id = spi_intern_find(t, 0, key, len + 1, &h);
	err = 0;
	if (*id == 0) {
		err = spi_intern_add(t, 0, key, len + 1, h,
		    (uint32_t)t->used + 1);
		if (err == 0)
			*id = (uint32_t)t->used;
	}
	if (key != stack)
		free(key);
	return err;
}

/*
 * The id of a string that stays in place and unchanged for the
 * whole run (ELF and DWARF bytes, owned by the file cache): remembered by
 * address and length, so a name or path met again is not encoded,
 * checked, hashed and compared again.
 */
static int
stable_string(struct sym_ctx *c, const char *s, size_t len, uint32_t *id)
{
	uint64_t h = ((uint64_t)(uintptr_t)s ^ ((uint64_t)len << 40)) *
	    0x9e3779b97f4a7c15ull;
	struct sym_strid *e = &c->strids[h >> (64 - SYM_STRIDS_BITS)];
	int err;

	if (e->s == s && e->len == len && e->id != 0) {
		*id = e->id;
		return 0;
	}
	err = spi_sym_string(c, s, len, id);
	if (err == 0) {
		e->s = s;
		e->len = len;
		e->id = *id;
	}
	return err;
}

static int
add_line(struct sym_ctx *c, const char *function, size_t flen,
    const char *file, size_t filelen, uint32_t line, int stable)
{
	struct sp_symline *l;
	int err;

	/* Innermost first: a longer chain loses its outermost frames. */
	if (c->sym.count >= SP_INLINE_MAX)
		return 0;
	l = &c->lines[c->sym.count];
	memset(l, 0, sizeof(*l));
	err = stable ? stable_string(c, function, flen, &l->function) :
	    spi_sym_string(c, function, flen, &l->function);
	if (err == 0 && file != NULL && filelen > 0)
		err = stable ? stable_string(c, file, filelen, &l->file) :
		    spi_sym_string(c, file, filelen, &l->file);
	if (err < 0)
		return err;
	l->line = line;
	c->columns[c->sym.count] = 0;
	c->sym.count++;
	return 0;
}

int
spi_sym_add_line(struct sym_ctx *c, const char *function, size_t flen,
    const char *file, size_t filelen, uint32_t line)
{
	return add_line(c, function, flen, file, filelen, line, 0);
}

int
spi_sym_add_stable_line(struct sym_ctx *c, const char *function, size_t flen,
    const char *file, size_t filelen, uint32_t line)
{
	return add_line(c, function, flen, file, filelen, line, 1);
}
