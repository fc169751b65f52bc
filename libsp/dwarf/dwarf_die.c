/* SPDX-License-Identifier: MIT */
/* DWARF 5 §7.5: attribute forms, the string and address sections they
 * point into, abbreviation tables and one DIE's attributes. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

/* An unsigned little-endian value of n (1 to 8) bytes. */
static uint64_t
rd_n(struct sp_cur *c, unsigned n)
{
	const uint8_t *b = c->err == 0 ? sp_take(c, n) : NULL;
	uint64_t v = 0;

	if (b == NULL) {
		if (c->err == 0)
			c->err = -SP_ETRUNC;
		return 0;
	}
	while (n-- > 0)
		v = v << 8 | b[n];
	return v;
}

uint64_t
spi_dw_rd_off(struct sp_cur *c, unsigned offsz)
{
	return rd_n(c, offsz == 8 ? 8 : 4);
}

uint64_t
spi_dw_rd_addr(struct sp_cur *c, unsigned size)
{
	if (size == 0 || size > 8) {
		if (c->err == 0)
			c->err = -SP_EFORMAT;
		return 0;
	}
	return rd_n(c, size);
}

/* A block: its length in lenbytes bytes (0: ULEB128), then the bytes. */
static void
rd_block(struct sp_cur *c, unsigned lenbytes, struct dw_val *v)
{
	uint64_t n = lenbytes ? rd_n(c, lenbytes) : sp_rd_varint(c);

	if (c->err)
		return;
	if (n > sp_cur_left(c)) {
		c->err = -SP_ETRUNC;
		return;
	}
	v->blen = (size_t)n;
	v->blk = sp_take(c, (size_t)n);
}

/* DW_FORM_string: NUL-terminated inside what remains. */
static void
rd_inline_str(struct sp_cur *c, struct dw_val *v)
{
	const uint8_t *s = c->p + c->pos;
	const uint8_t *z = c->err ? NULL : memchr(s, 0, sp_cur_left(c));

	if (z == NULL) {
		if (c->err == 0)
			c->err = -SP_ETRUNC;
		return;
	}
	v->blk = s;
	v->blen = (size_t)(z - s);
	(void)sp_take(c, v->blen + 1);
}

/* The fixed size of a form, 0 for the variable ones. */
static unsigned
fixed_size(const struct dw_unit *u, uint32_t form)
{
	switch (form) {
	case DW_FORM_DATA1: case DW_FORM_REF1: case DW_FORM_FLAG:
	case DW_FORM_STRX1: case DW_FORM_ADDRX1:
		return 1;
	case DW_FORM_DATA2: case DW_FORM_REF2: case DW_FORM_STRX2:
	case DW_FORM_ADDRX2:
		return 2;
	case DW_FORM_STRX3: case DW_FORM_ADDRX3:
		return 3;
	case DW_FORM_DATA4: case DW_FORM_REF4: case DW_FORM_REF_SUP4:
	case DW_FORM_STRX4: case DW_FORM_ADDRX4:
		return 4;
	case DW_FORM_DATA8: case DW_FORM_REF8: case DW_FORM_REF_SIG8:
	case DW_FORM_REF_SUP8:
		return 8;
	case DW_FORM_ADDR:
		return u->addr_size;
	case DW_FORM_STRP: case DW_FORM_LINE_STRP: case DW_FORM_SEC_OFFSET:
	case DW_FORM_STRP_SUP: case DW_FORM_GNU_REF_ALT:
	case DW_FORM_GNU_STRP_ALT:
		return u->offsz;
	case DW_FORM_REF_ADDR:
		/* DWARF 2 §7.5.4: an address; offset-sized from DWARF 3 on. */
		return u->version == 2 ? u->addr_size : u->offsz;
	default:
		return 0;
	}
}

static int
rd_variable(struct sp_cur *c, uint32_t form, int64_t implicit,
    struct dw_val *v)
{
	switch (form) {
	case DW_FORM_UDATA: case DW_FORM_REF_UDATA: case DW_FORM_STRX:
	case DW_FORM_ADDRX: case DW_FORM_LOCLISTX: case DW_FORM_RNGLISTX:
	case DW_FORM_GNU_ADDR_INDEX: case DW_FORM_GNU_STR_INDEX:
		v->u = sp_rd_varint(c);
		break;
	case DW_FORM_SDATA:
		v->u = (uint64_t)sp_rd_sleb(c);
		break;
	case DW_FORM_STRING:
		rd_inline_str(c, v);
		break;
	case DW_FORM_BLOCK1:
		rd_block(c, 1, v);
		break;
	case DW_FORM_BLOCK2:
		rd_block(c, 2, v);
		break;
	case DW_FORM_BLOCK4:
		rd_block(c, 4, v);
		break;
	case DW_FORM_BLOCK: case DW_FORM_EXPRLOC:
		rd_block(c, 0, v);
		break;
	case DW_FORM_DATA16:
		v->blk = c->err == 0 ? sp_take(c, 16) : NULL;
		v->blen = 16;
		if (v->blk == NULL && c->err == 0)
			c->err = -SP_ETRUNC;
		break;
	case DW_FORM_FLAG_PRESENT:
		v->u = 1;
		break;
	case DW_FORM_IMPLICIT_CONST:
		v->u = (uint64_t)implicit;
		break;
	default:
		return -SP_EFORMAT;
	}
	return 0;
}

int
spi_dw_read_form(struct sp_cur *c, const struct dw_unit *u, uint32_t form,
    int64_t implicit, struct dw_val *v)
{
	unsigned hops, n;

	/* DWARF 5 §7.5.3: the form itself comes first, as a ULEB128. */
	for (hops = 0; form == DW_FORM_INDIRECT; hops++) {
		uint64_t f = sp_rd_varint(c);

		if (c->err || hops == SP_DWARF_INDIRECT_MAX || f > UINT32_MAX)
			return -SP_EFORMAT;
		form = (uint32_t)f;
	}
	v->form = form;
	v->u = 0;
	v->blk = NULL;
	v->blen = 0;
	n = fixed_size(u, form);
	if (n != 0)
		v->u = rd_n(c, n);
	else if (rd_variable(c, form, implicit, v) < 0)
		return -SP_EFORMAT;
	return c->err ? -SP_EFORMAT : 0;
}

static const char *
dw_cstr(const struct sp_dwarf_bytes *b, uint64_t off)
{
	if (b->p == NULL || off >= b->len)
		return NULL;
	if (memchr(b->p + off, 0, b->len - (size_t)off) == NULL)
		return NULL;
	return (const char *)b->p + off;
}

/* Entry idx of a table of size-byte entries at base in section b. */
int
spi_dw_table_entry(const struct sp_dwarf_bytes *b, uint64_t base,
    uint64_t idx, unsigned size, uint64_t *out)
{
	struct sp_cur c = sp_cur_make(b->p, b->len);

	if (size == 0 || base > c.len || idx > (c.len - base) / size)
		return -SP_EFORMAT;
	c.pos = (size_t)(base + idx * size);
	*out = rd_n(&c, size);
	return c.err ? -SP_EFORMAT : 0;
}

const char *
spi_dw_val_str(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    const struct dw_val *v)
{
	uint64_t off;

	switch (v->form) {
	case DW_FORM_STRING:
		return (const char *)v->blk;
	case DW_FORM_STRP:
		return dw_cstr(&s->str, v->u);
	case DW_FORM_LINE_STRP:
		return dw_cstr(&s->line_str, v->u);
	case DW_FORM_STRX: case DW_FORM_STRX1: case DW_FORM_STRX2:
	case DW_FORM_STRX3: case DW_FORM_STRX4: case DW_FORM_GNU_STR_INDEX:
		/* DWARF 5 §7.26: .debug_str offsets from the unit's base. */
		if (spi_dw_table_entry(&s->str_offsets, u->str_offsets_base, v->u,
		    u->offsz, &off) < 0)
			return NULL;
		return dw_cstr(&s->str, off);
	default:
		return NULL;	/* not a string, or in a supplementary file */
	}
}

int
spi_dw_addrx(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    uint64_t idx, uint64_t *out)
{
	/* DWARF 5 §7.27: addresses in .debug_addr from the unit's base. */
	return spi_dw_table_entry(&s->addr, u->addr_base, idx, u->addr_size, out);
}

int
spi_dw_val_addr(const struct sp_dwarf_sections *s, const struct dw_unit *u,
    const struct dw_val *v, uint64_t *out)
{
	switch (v->form) {
	case DW_FORM_ADDR:
		*out = v->u;
		return 0;
	case DW_FORM_ADDRX: case DW_FORM_ADDRX1: case DW_FORM_ADDRX2:
	case DW_FORM_ADDRX3: case DW_FORM_ADDRX4: case DW_FORM_GNU_ADDR_INDEX:
		return spi_dw_addrx(s, u, v->u, out);
	default:
		return -SP_EFORMAT;
	}
}

int
spi_dw_val_const(const struct dw_val *v, uint64_t *out)
{
	switch (v->form) {
	case DW_FORM_DATA1: case DW_FORM_DATA2: case DW_FORM_DATA4:
	case DW_FORM_DATA8: case DW_FORM_UDATA: case DW_FORM_SDATA:
	case DW_FORM_IMPLICIT_CONST: case DW_FORM_SEC_OFFSET:
		*out = v->u;
		return 0;
	default:
		return -SP_EFORMAT;
	}
}

int
spi_dw_val_ref(const struct dw_unit *u, const struct dw_val *v, uint64_t *out)
{
	switch (v->form) {
	case DW_FORM_REF1: case DW_FORM_REF2: case DW_FORM_REF4:
	case DW_FORM_REF8: case DW_FORM_REF_UDATA:
		/* DWARF 5 §7.5.5: from the first byte of the unit header. */
		if (v->u >= u->end - u->off)
			return -SP_EFORMAT;
		*out = u->off + v->u;
		return 0;
	case DW_FORM_REF_ADDR:
		*out = v->u;
		return 0;
	default:
		return -SP_EFORMAT;	/* signatures, supplementary files */
	}
}

static int
cmp_abbrev(const void *a, const void *b)
{
	const struct dw_abbrev *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static int
slot(uint32_t name)
{
	switch (name) {
	case DW_AT_NAME:
		return DA_NAME;
	case DW_AT_LINKAGE_NAME:
	case DW_AT_MIPS_LINKAGE_NAME:
		return DA_LINKAGE;
	case DW_AT_LOW_PC:
		return DA_LOW;
	case DW_AT_HIGH_PC:
		return DA_HIGH;
	case DW_AT_RANGES:
		return DA_RANGES;
	case DW_AT_ABSTRACT_ORIGIN:
		return DA_ORIGIN;
	case DW_AT_SPECIFICATION:
		return DA_SPEC;
	case DW_AT_CALL_FILE:
		return DA_CALL_FILE;
	case DW_AT_CALL_LINE:
		return DA_CALL_LINE;
	case DW_AT_CALL_COLUMN:
		return DA_CALL_COLUMN;
	case DW_AT_STMT_LIST:
		return DA_STMT_LIST;
	case DW_AT_COMP_DIR:
		return DA_COMP_DIR;
	case DW_AT_STR_OFFSETS_BASE:
		return DA_STROFF_BASE;
	case DW_AT_ADDR_BASE:
		return DA_ADDR_BASE;
	case DW_AT_RNGLISTS_BASE:
		return DA_RNGL_BASE;
	case DW_AT_SIBLING:
		return DA_SIBLING;
	case DW_AT_LANGUAGE:
		return DA_LANGUAGE;
	default:
		return -1;
	}
}

/* One declaration's attribute specifications, up to their (0, 0). */
static int
parse_specs(struct sp_cur *c, struct dw_abbrevs *t, struct dw_scratch *scr)
{
	for (;;) {
		uint64_t name = sp_rd_varint(c), form = sp_rd_varint(c);
		int64_t implicit = 0;
		int k;

		if (form == DW_FORM_IMPLICIT_CONST)
			implicit = sp_rd_sleb(c);
		if (c->err || name > UINT32_MAX || form > UINT32_MAX)
			return -SP_EFORMAT;
		if (name == 0 && form == 0)
			return 0;
		if (spi_grow_zeroed(&scr->specs, &scr->scap, t->nspecs + 1,
		    sizeof(*scr->specs)) != 0)
			return -ENOMEM;
		t->specs = scr->specs;
		t->specs[t->nspecs].name = (uint32_t)name;
		t->specs[t->nspecs].form = (uint32_t)form;
		k = slot((uint32_t)name);
		t->specs[t->nspecs].slot = (uint8_t)(k >= 0 ? k : DA_NUM);
		t->specs[t->nspecs++].implicit = implicit;
	}
}

/* Into the scratch arrays: t's a and specs point there. */
static int
parse_abbrevs(struct sp_cur *c, struct dw_abbrevs *t, struct dw_scratch *scr)
{
	size_t i;
	int err;

	/* The table ends with code 0, or (leniently) with the section. */
	while (sp_cur_left(c) > 0) {
		uint64_t code = sp_rd_varint(c), tag;
		struct dw_abbrev *a;

		if (code == 0)
			break;
		tag = sp_rd_varint(c);
		if (c->err || tag > UINT32_MAX)
			return -SP_EFORMAT;
		if (spi_grow_zeroed(&scr->ab, &scr->acap, t->n + 1,
		    sizeof(*scr->ab)) != 0)
			return -ENOMEM;
		t->a = scr->ab;
		a = &t->a[t->n++];
		a->code = code;
		a->tag = (uint32_t)tag;
		a->children = sp_rd_u8(c);
		a->first = t->nspecs;
		err = parse_specs(c, t, scr);
		if (err)
			return err;
		a->nspecs = t->nspecs - a->first;
	}
	if (c->err)
		return -SP_EFORMAT;
	i = 1;
	while (i < t->n && t->a[i - 1].code < t->a[i].code)
		i++;
	if (i < t->n)
		qsort(t->a, t->n, sizeof(*t->a), cmp_abbrev);
	for (i = 1; i < t->n; i++)
		if (t->a[i - 1].code == t->a[i].code)
			return -SP_EFORMAT;
	return 0;
}

int
spi_dw_abbrevs_parse(struct sp_dwarf *d, uint64_t off, struct dw_abbrevs **out)
{
	struct sp_cur c = sp_cur_make(d->s.abbrev.p, d->s.abbrev.len);
	struct dw_abbrevs t, *p;
	int err;

	*out = NULL;
	if (off >= c.len)
		return -SP_EFORMAT;
	c.pos = (size_t)off;
	memset(&t, 0, sizeof(t));
	t.off = off;
	err = parse_abbrevs(&c, &t, &d->scr);
	if (err)
		return err;
	t.bytes = c.pos - (size_t)off;
	/* Charged before it is kept, so a table refused for the work limit
	 * costs no memory however many units name it. */
	err = spi_dw_charge(d, t.bytes + t.n * sizeof(*t.a) +
	    t.nspecs * sizeof(*t.specs));
	if (err)
		return err;
	p = spi_dw_arena_alloc(&d->arena, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	*p = t;
	p->a = spi_dw_arena_copy(&d->arena, t.a, t.n, sizeof(*t.a));
	p->specs = spi_dw_arena_copy(&d->arena, t.specs, t.nspecs,
	    sizeof(*t.specs));
	if ((p->a == NULL && t.n > 0) || (p->specs == NULL && t.nspecs > 0))
		return -ENOMEM;
	*out = p;
	return 0;
}

static const struct dw_abbrev *
find_abbrev(const struct dw_abbrevs *t, uint64_t code)
{
	size_t lo = 0, hi = t->n;

	/* Producers number 1, 2, 3, ...: try the direct index first. */
	if (code - 1 < t->n && t->a[code - 1].code == code)
		return &t->a[code - 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->a[mid].code == code)
			return &t->a[mid];
		if (t->a[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int
spi_dw_die_read(struct sp_cur *c, const struct dw_unit *u, struct dw_die *die)
{
	const struct dw_abbrev *ab;
	uint64_t code;
	size_t i;

	die->off = c->pos;
	die->ab = NULL;
	code = sp_rd_varint(c);
	if (c->err)
		return -SP_EFORMAT;
	if (code == 0)
		return 0;	/* a null entry: the end of a sibling chain */
	ab = u->ab != NULL ? find_abbrev(u->ab, code) : NULL;
	if (ab == NULL)
		return -SP_EFORMAT;
	for (i = 0; i < DA_NUM; i++)
		die->at[i].form = 0;
	for (i = 0; i < ab->nspecs; i++) {
		const struct dw_spec *sp = &u->ab->specs[ab->first + i];
		struct dw_val v;

		if (spi_dw_read_form(c, u, sp->form, sp->implicit, &v) < 0)
			return -SP_EFORMAT;
		if (sp->slot < DA_NUM)
			die->at[sp->slot] = v;
	}
	die->ab = ab;
	return 0;
}
