/* SPDX-License-Identifier: MIT */
#ifndef SP_CURSOR_INT_H
#define SP_CURSOR_INT_H

/*
 * A bounds-checked reader over untrusted bytes.  Every read goes through
 * sp_take(), which compares against the bytes that remain (n <= len - pos)
 * and so never forms a pointer past the end.  A failed read leaves the
 * cursor where it was and returns -SP_ETRUNC or -SP_EFORMAT.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/common/error.h"
#include "varint_int.h"

struct sp_cur {
	const uint8_t *p;
	size_t len;
	size_t pos;
	int err;	/* sticky: the first error of the sp_rd_* helpers */
};

/* A cursor over p[0..len); never over a null pointer, so p + pos is
 * always defined (an empty buffer may come as NULL). */
static inline struct sp_cur
sp_cur_make(const void *p, size_t len)
{
	static const uint8_t empty[1];
	struct sp_cur c = { p != NULL ? (const uint8_t *)p : empty,
		p != NULL ? len : 0, 0, 0 };
	return c;
}

static inline size_t
sp_cur_left(const struct sp_cur *c)
{
	return c->len - c->pos;
}

/* Returns a pointer to the next n bytes and advances, or NULL. */
static inline const uint8_t *
sp_take(struct sp_cur *c, size_t n)
{
	const uint8_t *r;

	if (n > c->len - c->pos)
		return NULL;
	r = c->p + c->pos;
	c->pos += n;
	return r;
}

static inline uint16_t
sp_le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | (unsigned)b[1] << 8);
}

static inline uint32_t
sp_le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

static inline uint64_t
sp_le64(const uint8_t *b)
{
	return (uint64_t)sp_le32(b) | (uint64_t)sp_le32(b + 4) << 32;
}

static inline void
sp_put_le16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void
sp_put_le32(uint8_t *b, uint32_t v)
{
	sp_put_le16(b, (uint16_t)v);
	sp_put_le16(b + 2, (uint16_t)(v >> 16));
}

static inline void
sp_put_le64(uint8_t *b, uint64_t v)
{
	sp_put_le32(b, (uint32_t)v);
	sp_put_le32(b + 4, (uint32_t)(v >> 32));
}

static inline int
sp_get_u8(struct sp_cur *c, uint8_t *v)
{
	const uint8_t *b = sp_take(c, 1);

	if (b == NULL)
		return -SP_ETRUNC;
	*v = b[0];
	return 0;
}

static inline int
sp_get_u32(struct sp_cur *c, uint32_t *v)
{
	const uint8_t *b = sp_take(c, 4);

	if (b == NULL)
		return -SP_ETRUNC;
	*v = sp_le32(b);
	return 0;
}

static inline int
sp_get_varint(struct sp_cur *c, uint64_t *v)
{
	int n = spi_varint_get(c->p + c->pos, c->len - c->pos, v);

	if (n < 0)
		return -SP_EFORMAT;
	if (n == 0)
		return -SP_ETRUNC;
	c->pos += (size_t)n;
	return 0;
}

static inline int
sp_get_svarint(struct sp_cur *c, int64_t *v)
{
	uint64_t u;
	int err = sp_get_varint(c, &u);

	if (err == 0)
		*v = sp_unzigzag(u);
	return err;
}

/* A length-prefixed byte string, which must fit in what remains. */
static inline int
sp_get_str(struct sp_cur *c, const uint8_t **s, size_t *len)
{
	size_t save = c->pos;
	uint64_t n;
	int err = sp_get_varint(c, &n);

	if (err)
		return err;
	if (n > sp_cur_left(c)) {
		c->pos = save;
		return -SP_ETRUNC;
	}
	*len = (size_t)n;
	*s = sp_take(c, (size_t)n);
	return 0;
}

/*
 * Sticky readers: after the first failure they return 0 and leave the
 * error in c->err, so a decoder reads all fields and checks once.
 */
static inline uint64_t
sp_rd_varint(struct sp_cur *c)
{
	uint64_t v = 0;

	if (c->err == 0)
		c->err = sp_get_varint(c, &v);
	return c->err == 0 ? v : 0;
}

static inline uint32_t
sp_rd_u32v(struct sp_cur *c)
{
	uint64_t v = sp_rd_varint(c);

	if (v > UINT32_MAX) {
		c->err = -SP_EFORMAT;
		return 0;
	}
	return (uint32_t)v;
}

static inline uint8_t
sp_rd_u8(struct sp_cur *c)
{
	uint8_t v = 0;

	if (c->err == 0)
		c->err = sp_get_u8(c, &v);
	return v;
}

static inline uint32_t
sp_rd_u32(struct sp_cur *c)
{
	uint32_t v = 0;

	if (c->err == 0)
		c->err = sp_get_u32(c, &v);
	return v;
}

static inline uint64_t
sp_rd_u64(struct sp_cur *c)
{
	const uint8_t *b = c->err == 0 ? sp_take(c, 8) : NULL;

	if (b == NULL) {
		if (c->err == 0)
			c->err = -SP_ETRUNC;
		return 0;
	}
	return sp_le64(b);
}

/* A signed LEB128 (DWARF 5 §7.6), at most 10 bytes. */
static inline int64_t
sp_rd_sleb(struct sp_cur *c)
{
	uint64_t r = 0;
	unsigned shift = 0;
	uint8_t b = 0x80;

	while (c->err == 0 && (b & 0x80)) {
		b = sp_rd_u8(c);
		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (shift > 70)
			c->err = -SP_EFORMAT;
	}
	if (shift < 64 && (b & 0x40))
		r |= ~(uint64_t)0 << shift;
	return (int64_t)r;
}

static inline int64_t
sp_rd_svarint(struct sp_cur *c)
{
	return sp_unzigzag(sp_rd_varint(c));
}

static inline const uint8_t *
sp_rd_str(struct sp_cur *c, size_t *len)
{
	const uint8_t *s = NULL;

	*len = 0;
	if (c->err == 0)
		c->err = sp_get_str(c, &s, len);
	return s;
}

#endif
