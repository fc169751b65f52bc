/* SPDX-License-Identifier: MIT */
#ifndef SP_BUF_INT_H
#define SP_BUF_INT_H

/*
 * A growable byte buffer for encoding.  Appends are sticky on failure: the
 * first allocation failure is kept in err and later appends do nothing, so
 * an encoder appends all fields and checks once.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "varint_int.h"

struct sp_buf {
	uint8_t *p;
	size_t len, cap;
	int err;	/* 0 or -ENOMEM */
};

/* spi_buf_reserve's growth: 0 or -ENOMEM (also kept in err). */
int spi_buf_grow(struct sp_buf *b, size_t n);

/* Makes room for n more bytes; returns 0 or -ENOMEM (also kept in err).
 * Inline, with the appends below: encoders call them per field. */
static inline int
spi_buf_reserve(struct sp_buf *b, size_t n)
{
	if (b->err == 0 && n <= b->cap - b->len)
		return 0;
	return spi_buf_grow(b, n);
}

static inline void
spi_buf_put(struct sp_buf *b, const void *p, size_t n)
{
	/* p is not NULL once room was made: said for the analyzer. */
	if (n == 0 || spi_buf_reserve(b, n) != 0 || b->p == NULL)
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void
spi_buf_u8(struct sp_buf *b, uint8_t v)
{
	if (spi_buf_reserve(b, 1) != 0 || b->p == NULL)
		return;
	b->p[b->len++] = v;
}

static inline void
spi_buf_varint(struct sp_buf *b, uint64_t v)
{
	if (spi_buf_reserve(b, SP_VARINT_MAX) != 0 || b->p == NULL)
		return;
	b->len += spi_varint_put(b->p + b->len, v);
}

static inline void
spi_buf_svarint(struct sp_buf *b, int64_t v)
{
	spi_buf_varint(b, sp_zigzag(v));
}
/* A length-prefixed byte string. */
void spi_buf_str(struct sp_buf *b, const void *p, size_t n);
void spi_buf_fini(struct sp_buf *b);

/*
 * b's bytes from off on.  A buffer nothing was appended to has no bytes
 * yet (p NULL), and NULL + 0 is undefined in C (C11 6.5.6p8; UBSan's
 * pointer-overflow check stops on it): off is then 0, and an empty
 * string stands in.  Every read of a buffer's contents at an offset
 * goes through here.
 */
static inline const uint8_t *
spi_buf_at(const struct sp_buf *b, size_t off)
{
	return b->p != NULL ? b->p + off : (const uint8_t *)"";
}

/*
 * The one growth helper of libsp (libbpf's libbpf_ensure_mem): grows the
 * array at *arrp (arrp is the address of a T *) of *cap elements of size
 * bytes to hold at least need (doubling, from 64), the new elements
 * zeroed.  Returns 0 or -ENOMEM (then the array and *cap are unchanged).
 */
int spi_grow_zeroed(void *arrp, size_t *cap, size_t need, size_t size);

#endif
