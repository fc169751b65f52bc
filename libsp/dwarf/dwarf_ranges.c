/* SPDX-License-Identifier: MIT */
/* Address ranges: DW_AT_low_pc/high_pc, DW_AT_ranges in .debug_ranges
 * (DWARF 4 §2.17.3) and .debug_rnglists (DWARF 5 §2.17.3, §7.25),
 * .debug_aranges (DWARF 5 §6.1.2). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

/* DWARF 5 §7.25, table 7.30. */
enum {
	DW_RLE_END_OF_LIST, DW_RLE_BASE_ADDRESSX, DW_RLE_STARTX_ENDX,
	DW_RLE_STARTX_LENGTH, DW_RLE_OFFSET_PAIR, DW_RLE_BASE_ADDRESS,
	DW_RLE_START_END, DW_RLE_START_LENGTH,
};

/*
 * The walks below hand every entry to fn, base selections as (0, 0),
 * empty and wrapped ranges as they are: fn counts them all, so many DIEs
 * sharing one long list cost what the list holds, once per DIE, up to
 * the caller's limit.
 */

/* DWARF 4 §2.17.3: pairs of addresses, base selection, (0, 0) ends. */
static int
ranges_v4(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    uint64_t off, int (*fn)(void *, uint64_t, uint64_t), void *ctx)
{
	struct sp_cur c = sp_cur_make(s->ranges.p, s->ranges.len);
	uint64_t base = u->base_addr;
	uint64_t max = u->addr_size == 8 ? UINT64_MAX : UINT32_MAX;
	int err;

	if (off >= c.len)
		return -SP_EFORMAT;
	c.pos = (size_t)off;
	for (;;) {
		uint64_t b = spi_dw_rd_addr(&c, u->addr_size);
		uint64_t e = spi_dw_rd_addr(&c, u->addr_size);

		if (c.err)
			return -SP_EFORMAT;
		if (b == 0 && e == 0)
			return 0;
		if (b == max) {
			base = e;
			err = fn(ctx, 0, 0);
		} else {
			err = fn(ctx, base + b, base + e);
		}
		if (err)
			return err;
	}
}

/* One DW_RLE entry into [*lo, *hi), or the new *base (returns 1). */
static int
rle_entry(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    struct sp_cur *c, uint8_t kind, uint64_t *base, uint64_t *lo,
    uint64_t *hi)
{
	uint64_t a, b;

	switch (kind) {
	case DW_RLE_BASE_ADDRESSX:
		a = sp_rd_varint(c);
		return c->err || spi_dw_addrx(s, u, a, base) < 0 ? -SP_EFORMAT : 1;
	case DW_RLE_BASE_ADDRESS:
		*base = spi_dw_rd_addr(c, u->addr_size);
		return c->err ? -SP_EFORMAT : 1;
	case DW_RLE_STARTX_ENDX:
	case DW_RLE_STARTX_LENGTH:
		a = sp_rd_varint(c);
		b = sp_rd_varint(c);
		if (c->err || spi_dw_addrx(s, u, a, lo) < 0)
			return -SP_EFORMAT;
		if (kind == DW_RLE_STARTX_LENGTH)
			*hi = *lo + b;
		else if (spi_dw_addrx(s, u, b, hi) < 0)
			return -SP_EFORMAT;
		return 0;
	case DW_RLE_OFFSET_PAIR:
		a = sp_rd_varint(c);
		b = sp_rd_varint(c);
		*lo = *base + a;
		*hi = *base + b;
		break;
	case DW_RLE_START_END:
		*lo = spi_dw_rd_addr(c, u->addr_size);
		*hi = spi_dw_rd_addr(c, u->addr_size);
		break;
	case DW_RLE_START_LENGTH:
		*lo = spi_dw_rd_addr(c, u->addr_size);
		*hi = *lo + sp_rd_varint(c);
		break;
	default:
		return -SP_EFORMAT;
	}
	return c->err ? -SP_EFORMAT : 0;
}

static int
rnglist(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    uint64_t off, int (*fn)(void *, uint64_t, uint64_t), void *ctx)
{
	struct sp_cur c = sp_cur_make(s->rnglists.p, s->rnglists.len);
	uint64_t base = u->base_addr, lo = 0, hi = 0;
	int r;

	if (off >= c.len)
		return -SP_EFORMAT;
	c.pos = (size_t)off;
	for (;;) {
		uint8_t kind = sp_rd_u8(&c);

		if (c.err)
			return -SP_EFORMAT;
		if (kind == DW_RLE_END_OF_LIST)
			return 0;
		r = rle_entry(s, u, &c, kind, &base, &lo, &hi);
		if (r < 0)
			return r;
		r = r == 0 ? fn(ctx, lo, hi) : fn(ctx, 0, 0);
		if (r != 0)
			return r;
	}
}

int
spi_dw_die_ranges(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    const struct dw_die *die, int (*fn)(void *, uint64_t, uint64_t),
    void *ctx)
{
	const struct dw_val *r = &die->at[DA_RANGES];
	uint64_t lo, hi, off;

	if (r->form == DW_FORM_RNGLISTX) {
		/* DWARF 5 §7.28: an offset table after the list header, its
		 * entries relative to the base. */
		if (spi_dw_table_entry(&s->rnglists, u->rnglists_base, r->u,
		    u->offsz, &off) < 0)
			return -SP_EFORMAT;
		return rnglist(s, u, u->rnglists_base + off, fn, ctx);
	}
	if (r->form != 0) {
		if (spi_dw_val_const(r, &off) < 0)
			return -SP_EFORMAT;
		if (u->version >= 5)
			return rnglist(s, u, off, fn, ctx);
		return ranges_v4(s, u, off, fn, ctx);
	}
	if (die->at[DA_LOW].form == 0 || die->at[DA_HIGH].form == 0)
		return 0;
	if (spi_dw_val_addr(s, u, &die->at[DA_LOW], &lo) < 0)
		return -SP_EFORMAT;
	/* DWARF 5 §2.17.2: a constant high_pc is an offset from low_pc. */
	if (spi_dw_val_addr(s, u, &die->at[DA_HIGH], &hi) < 0) {
		if (spi_dw_val_const(&die->at[DA_HIGH], &hi) < 0)
			return -SP_EFORMAT;
		hi += lo;
	}
	return fn(ctx, lo, hi);
}

/* One set's tuples; fn is NULL for the checking pass. */
static int
arange_tuples(struct sp_cur *c, uint8_t asz, uint64_t info_off,
    int (*fn)(void *, uint64_t, uint64_t, uint64_t), void *ctx)
{
	for (;;) {
		uint64_t a = spi_dw_rd_addr(c, asz), n = spi_dw_rd_addr(c, asz);
		int err;

		if (c->err)
			return -SP_EFORMAT;
		if (a == 0 && n == 0)
			return 0;
		if (fn != NULL && a + n > a &&
		    (err = fn(ctx, info_off, a, a + n)) != 0)
			return err;
	}
}

/* One set of .debug_aranges at c's position, restricted to the set. */
static int
arange_set(struct sp_cur c, size_t start, unsigned offsz,
    int (*fn)(void *, uint64_t, uint64_t, uint64_t), void *ctx)
{
	uint16_t version;
	uint64_t info_off;
	uint8_t asz, segsz;
	size_t pad, tuples, tsz;
	const uint8_t *b = sp_take(&c, 2);
	int err;

	version = b != NULL ? sp_le16(b) : 0;
	info_off = spi_dw_rd_off(&c, offsz);
	asz = sp_rd_u8(&c);
	segsz = sp_rd_u8(&c);
	if (c.err || version != 2 || (asz != 4 && asz != 8) || segsz != 0)
		return -SP_EFORMAT;
	/* The tuples are aligned to twice the address size from the set. */
	tsz = 2 * (size_t)asz;
	pad = (tsz - (c.pos - start) % tsz) % tsz;
	if (sp_take(&c, pad) == NULL)
		return -SP_EFORMAT;
	tuples = c.pos;
	err = arange_tuples(&c, asz, info_off, NULL, ctx);
	if (err)
		return err;
	c.pos = tuples;
	err = arange_tuples(&c, asz, info_off, fn, ctx);
	/* A well-formed set ends with an empty range for its unit. */
	return err ? err : fn(ctx, info_off, 0, 0);
}

int
spi_dw_aranges(const struct sp_dwarf_bytes *b,
    int (*fn)(void *, uint64_t, uint64_t, uint64_t), void *ctx)
{
	struct sp_cur c = sp_cur_make(b->p, b->len);

	while (sp_cur_left(&c) > 0) {
		size_t start = c.pos;
		uint64_t len = sp_rd_u32(&c);
		unsigned offsz = 4;
		struct sp_cur set;
		int err;

		if (len == 0xffffffffu) {
			len = sp_rd_u64(&c);
			offsz = 8;
		} else if (len >= 0xfffffff0u)
			return -SP_EFORMAT;
		if (c.err || len > sp_cur_left(&c))
			return -SP_EFORMAT;
		set = sp_cur_make(b->p, c.pos + (size_t)len);
		set.pos = c.pos;
		err = arange_set(set, start, offsz, fn, ctx);
		if (err != 0 && err != -SP_EFORMAT)
			return err;	/* a bad set is skipped by its length */
		c.pos += (size_t)len;
	}
	return 0;
}
