/* SPDX-License-Identifier: MIT */
/* DWARF 5 §6.4: CIEs, FDEs and the CFA program, for .eh_frame (LSB
 * "Exception Frames") and .debug_frame. */
#include <string.h>

#include "common/cursor_int.h"
#include "dwarf/cfi_int.h"

/* DW_EH_PE_* (LSB 4.1 §10.5; DWARF 5 does not define them). */
enum {
	PE_ABSPTR = 0x00, PE_ULEB128 = 0x01, PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03, PE_UDATA8 = 0x04, PE_SLEB128 = 0x09,
	PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b, PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10, PE_DATAREL = 0x30, PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
};

/* Hostile CFI can ask for any factor: wrap instead of overflowing. */
static int64_t
scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

int
spi_cfi_read_pointer(const uint8_t *p, size_t len, size_t *pos, uint8_t enc,
    uint64_t base_vaddr, uint64_t datarel, uint64_t *out)
{
	struct sp_cur c = sp_cur_make(p, len);
	uint64_t v = 0, at;
	const uint8_t *b;

	c.pos = *pos;
	at = base_vaddr + *pos;
	if (enc == PE_OMIT)
		return -SP_EFORMAT;
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = sp_rd_u64(&c);
		break;
	case PE_ULEB128:
		v = sp_rd_varint(&c);
		break;
	case PE_UDATA2:
		b = sp_take(&c, 2);
		v = b ? sp_le16(b) : 0;
		c.err = b ? c.err : -SP_ETRUNC;
		break;
	case PE_SDATA2:
		b = sp_take(&c, 2);
		v = b ? (uint64_t)(int64_t)(int16_t)sp_le16(b) : 0;
		c.err = b ? c.err : -SP_ETRUNC;
		break;
	case PE_UDATA4:
		v = sp_rd_u32(&c);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)sp_rd_u32(&c);
		break;
	case PE_SLEB128:
		v = (uint64_t)sp_rd_sleb(&c);
		break;
	default:
		return -SP_EFORMAT;
	}
	if (c.err)
		return -SP_EFORMAT;
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		v += at;
		break;
	case PE_DATAREL:
		v += datarel;
		break;
	default:
		return -SP_EFORMAT; /* textrel, funcrel, aligned: not on x86-64 */
	}
	*pos = c.pos;
	*out = v;
	return 0;
}

/* One entry (CIE or FDE) framed by its length. */
struct entry {
	size_t id_pos;   /* where the CIE id / CIE pointer is */
	size_t body;     /* after it */
	size_t end;
	uint64_t id;
	int is_cie;
};

static int
read_entry(const struct sp_cfi_section *s, size_t off, struct entry *e,
    size_t *next)
{
	struct sp_cur c = sp_cur_make(s->data, s->len);
	uint64_t len;
	int wide = 0;

	c.pos = off;
	len = sp_rd_u32(&c);
	if (c.err == 0 && len == 0xffffffffu) {
		len = sp_rd_u64(&c);
		wide = 1;
	}
	if (c.err || len > sp_cur_left(&c))
		return -SP_EFORMAT;
	if (len == 0) {	/* the .eh_frame terminator */
		if (next != NULL)
			*next = 0;
		return -SP_ENOTFOUND;
	}
	e->end = c.pos + (size_t)len;
	if (next != NULL)
		*next = e->end < s->len ? e->end : 0;
	e->id_pos = c.pos;
	e->id = wide ? sp_rd_u64(&c) : sp_rd_u32(&c);
	if (c.err || c.pos > e->end)
		return -SP_EFORMAT;
	e->body = c.pos;
	if (s->debug_frame)
		e->is_cie = e->id == (wide ? ~(uint64_t)0 : 0xffffffffu);
	else
		e->is_cie = e->id == 0;
	return 0;
}

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc;
	int has_z;
	int signal;
	size_t insns, end;
};

/* The augmentation data of a 'z' CIE (LSB 4.1 §10.6.1.1). */
static int
cie_augmentation(const struct sp_cfi_section *s, struct sp_cur *c,
    const char *aug, struct cie *ci)
{
	uint64_t alen = sp_rd_varint(c), v;
	size_t stop;

	if (c->err || alen > sp_cur_left(c))
		return -SP_EFORMAT;
	stop = c->pos + (size_t)alen;
	for (aug++; *aug != '\0' && c->pos <= stop; aug++) {
		uint8_t enc;

		switch (*aug) {
		case 'L':
			(void)sp_rd_u8(c);
			break;
		case 'P':
			enc = sp_rd_u8(c);
			if (c->err || spi_cfi_read_pointer(s->data, stop, &c->pos,
			    enc & 0x7f, s->vaddr, s->datarel_base, &v) < 0)
				return -SP_EFORMAT;
			break;
		case 'R':
			ci->fde_enc = sp_rd_u8(c);
			break;
		case 'S':
			ci->signal = 1;
			break;
		default:
			c->pos = stop; /* unknown: the length lets us skip */
			break;
		}
	}
	if (c->err || c->pos > stop)
		return -SP_EFORMAT;
	c->pos = stop;
	return 0;
}

static int
parse_cie(const struct sp_cfi_section *s, size_t off, struct cie *ci)
{
	struct entry e;
	struct sp_cur c;
	const char *aug;
	uint8_t version;
	size_t n;

	memset(ci, 0, sizeof(*ci));
	if (read_entry(s, off, &e, NULL) < 0 || !e.is_cie)
		return -SP_EFORMAT;
	c = sp_cur_make(s->data, e.end);
	c.pos = e.body;
	version = sp_rd_u8(&c);
	if (c.err || (version != 1 && version != 3 && version != 4))
		return -SP_EFORMAT;
	aug = (const char *)s->data + c.pos;
	n = strnlen(aug, sp_cur_left(&c));
	if (n == sp_cur_left(&c))
		return -SP_EFORMAT;
	c.pos += n + 1;
	if (version == 4) {
		uint8_t address_size = sp_rd_u8(&c), segment_size = sp_rd_u8(&c);

		if (address_size != 8 || segment_size != 0)
			return -SP_EFORMAT; /* 8-byte addresses, no segments */
	}
	ci->code_align = sp_rd_varint(&c);
	ci->data_align = sp_rd_sleb(&c);
	ci->ra = version == 1 ? sp_rd_u8(&c) : sp_rd_varint(&c);
	ci->fde_enc = PE_ABSPTR; /* .debug_frame: plain 8-byte addresses */
	if (c.err)
		return -SP_EFORMAT;
	if (aug[0] == 'z') {
		ci->has_z = 1;
		if (cie_augmentation(s, &c, aug, ci) < 0)
			return -SP_EFORMAT;
	} else if (aug[0] != '\0') {
		return -SP_EFORMAT; /* "eh" and other pre-'z' forms */
	}
	ci->insns = c.pos;
	ci->end = e.end;
	return 0;
}

struct fde {
	struct cie cie;
	uint64_t begin, end;
	size_t insns, insns_end;
};

static int
parse_fde(const struct sp_cfi_section *s, size_t off, struct fde *f,
    size_t *next)
{
	struct entry e;
	struct sp_cur c;
	uint64_t cie_off, range;
	int err = read_entry(s, off, &e, next);

	if (err)
		return err;
	if (e.is_cie)
		return -SP_ENOTFOUND;
	if (s->debug_frame)
		cie_off = e.id;
	else if (e.id > e.id_pos)
		return -SP_EFORMAT;
	else
		cie_off = e.id_pos - e.id;
	if (cie_off >= s->len || parse_cie(s, (size_t)cie_off, &f->cie) < 0)
		return -SP_EFORMAT;
	c = sp_cur_make(s->data, e.end);
	c.pos = e.body;
	if (spi_cfi_read_pointer(s->data, e.end, &c.pos, f->cie.fde_enc,
	    s->vaddr, s->datarel_base, &f->begin) < 0 ||
	    spi_cfi_read_pointer(s->data, e.end, &c.pos, f->cie.fde_enc & 0x0f,
	    s->vaddr, s->datarel_base, &range) < 0)
		return -SP_EFORMAT;
	f->end = f->begin + range;
	if (f->cie.has_z) {
		uint64_t alen = sp_rd_varint(&c);

		if (c.err || alen > sp_cur_left(&c))
			return -SP_EFORMAT;
		c.pos += (size_t)alen;
	}
	f->insns = c.pos;
	f->insns_end = e.end;
	return 0;
}

int
spi_cfi_fde_range(const struct sp_cfi_section *sec, size_t fde_off,
    uint64_t *begin, uint64_t *end, size_t *next)
{
	struct fde f;
	int err = parse_fde(sec, fde_off, &f, next);

	if (err)
		return err;
	*begin = f.begin;
	*end = f.end;
	return 0;
}

/* The rules as a program runs, with remember/restore_state. */
struct machine {
	struct sp_cfi_row *row;
	struct sp_cfi_row initial;
	struct sp_cfi_row saved[SP_CFI_STATE_MAX];
	int depth;
	const struct fde *f;
	const struct sp_cfi_section *s;
	uint64_t loc, pc;
};

static struct sp_cfi_rule *
rule(struct machine *m, uint64_t reg)
{
	/* Registers beyond RA (vector, flags) do not matter for unwinding. */
	return reg < SPI_CFI_NREGS ? &m->row->regs[reg] : NULL;
}

static void
set(struct machine *m, uint64_t reg, uint8_t kind, int64_t off)
{
	struct sp_cfi_rule *r = rule(m, reg);

	if (r != NULL) {
		memset(r, 0, sizeof(*r));
		r->kind = kind;
		r->off = off;
	}
}

static int
set_expr(struct machine *m, struct sp_cur *c, uint64_t reg, uint8_t kind)
{
	uint64_t n = sp_rd_varint(c);
	struct sp_cfi_rule *r = rule(m, reg);

	if (c->err || n > sp_cur_left(c))
		return -SP_EFORMAT;
	if (r != NULL) {
		r->kind = kind;
		r->expr = c->p + c->pos;
		r->expr_len = (size_t)n;
	}
	c->pos += (size_t)n;
	return 0;
}

/* DW_CFA_advance_loc*: returns 1 when the new location is past pc. */
static int
advance(struct machine *m, uint64_t delta)
{
	uint64_t loc = m->loc + delta * m->f->cie.code_align;

	if (loc > m->pc)
		return 1;
	m->loc = loc;
	return 0;
}

static int
def_cfa(struct machine *m, uint64_t reg, int64_t off)
{
	if (reg >= SPI_CFI_NREGS)
		return -SP_EFORMAT;
	m->row->cfa_reg = (uint8_t)reg;
	m->row->cfa_off = off;
	m->row->cfa_expr = NULL;
	return 0;
}

/* Runs one extended (low 6 bits) instruction; 1 stops the program. */
static int
extended(struct machine *m, struct sp_cur *c, uint8_t op)
{
	int64_t da = m->f->cie.data_align;
	uint64_t reg, v;
	struct sp_cfi_rule *r;

	switch (op) {
	case 0x00: /* DW_CFA_nop */
		return 0;
	case 0x01: /* DW_CFA_set_loc */
		if (spi_cfi_read_pointer(c->p, c->len, &c->pos, m->f->cie.fde_enc,
		    m->s->vaddr, m->s->datarel_base, &v) < 0)
			return -SP_EFORMAT;
		if (v > m->pc)
			return 1;
		m->loc = v;
		return 0;
	case 0x02: /* DW_CFA_advance_loc1 */
		return advance(m, sp_rd_u8(c));
	case 0x03: /* DW_CFA_advance_loc2 */
		v = sp_rd_u8(c);
		return advance(m, v | (uint64_t)sp_rd_u8(c) << 8);
	case 0x04: /* DW_CFA_advance_loc4 */
		return advance(m, sp_rd_u32(c));
	case 0x05: /* DW_CFA_offset_extended */
		reg = sp_rd_varint(c);
		set(m, reg, SP_RULE_OFFSET, scaled(sp_rd_varint(c), da));
		return 0;
	case 0x06: /* DW_CFA_restore_extended */
		reg = sp_rd_varint(c);
		if ((r = rule(m, reg)) != NULL)
			*r = m->initial.regs[reg];
		return 0;
	case 0x07: /* DW_CFA_undefined */
		set(m, sp_rd_varint(c), SP_RULE_UNDEF, 0);
		return 0;
	case 0x08: /* DW_CFA_same_value */
		set(m, sp_rd_varint(c), SP_RULE_SAME, 0);
		return 0;
	case 0x09: /* DW_CFA_register */
		reg = sp_rd_varint(c);
		v = sp_rd_varint(c);
		if (v >= SPI_CFI_NREGS && rule(m, reg) != NULL)
			return -SP_EFORMAT;
		set(m, reg, SP_RULE_REG, 0);
		if ((r = rule(m, reg)) != NULL)
			r->reg = (uint8_t)v;
		return 0;
	case 0x0a: /* DW_CFA_remember_state */
		if (m->depth == SP_CFI_STATE_MAX)
			return -SP_ELIMIT;
		m->saved[m->depth++] = *m->row;
		return 0;
	case 0x0b: /* DW_CFA_restore_state */
		if (m->depth == 0)
			return -SP_EFORMAT;
		/* §6.4.2.4: the CFA rule is restored too. */
		*m->row = m->saved[--m->depth];
		return 0;
	case 0x0c: /* DW_CFA_def_cfa */
		reg = sp_rd_varint(c);
		return def_cfa(m, reg, (int64_t)sp_rd_varint(c));
	case 0x0d: /* DW_CFA_def_cfa_register */
		return def_cfa(m, sp_rd_varint(c), m->row->cfa_off);
	case 0x0e: /* DW_CFA_def_cfa_offset */
		m->row->cfa_off = (int64_t)sp_rd_varint(c);
		return 0;
	case 0x0f: /* DW_CFA_def_cfa_expression */
		v = sp_rd_varint(c);
		if (c->err || v > sp_cur_left(c))
			return -SP_EFORMAT;
		m->row->cfa_expr = c->p + c->pos;
		m->row->cfa_expr_len = (size_t)v;
		c->pos += (size_t)v;
		return 0;
	case 0x10: /* DW_CFA_expression */
		return set_expr(m, c, sp_rd_varint(c), SP_RULE_EXPR);
	case 0x11: /* DW_CFA_offset_extended_sf */
		reg = sp_rd_varint(c);
		set(m, reg, SP_RULE_OFFSET, scaled((uint64_t)sp_rd_sleb(c), da));
		return 0;
	case 0x12: /* DW_CFA_def_cfa_sf */
		reg = sp_rd_varint(c);
		return def_cfa(m, reg, scaled((uint64_t)sp_rd_sleb(c), da));
	case 0x13: /* DW_CFA_def_cfa_offset_sf */
		m->row->cfa_off = scaled((uint64_t)sp_rd_sleb(c), da);
		return 0;
	case 0x14: /* DW_CFA_val_offset */
		reg = sp_rd_varint(c);
		set(m, reg, SP_RULE_VAL_OFFSET, scaled(sp_rd_varint(c), da));
		return 0;
	case 0x15: /* DW_CFA_val_offset_sf */
		reg = sp_rd_varint(c);
		set(m, reg, SP_RULE_VAL_OFFSET, scaled((uint64_t)sp_rd_sleb(c), da));
		return 0;
	case 0x16: /* DW_CFA_val_expression */
		return set_expr(m, c, sp_rd_varint(c), SP_RULE_VAL_EXPR);
	case 0x2d: /* DW_CFA_AARCH64_negate_ra_state (SPARC's window_save,
	            * which no architecture here has) */
		m->row->ra_signed ^= 1;
		return 0;
	case 0x2e: /* DW_CFA_GNU_args_size: no effect on the rules */
		(void)sp_rd_varint(c);
		return 0;
	case 0x2f: /* DW_CFA_GNU_negative_offset_extended */
		reg = sp_rd_varint(c);
		set(m, reg, SP_RULE_OFFSET,
		    (int64_t)(0 - (uint64_t)scaled(sp_rd_varint(c), da)));
		return 0;
	default:
		return -SP_EFORMAT;
	}
}

/* DWARF 5 §6.4.2: runs p[from, to) until the location passes pc. */
static int
run(struct machine *m, size_t from, size_t to)
{
	struct sp_cur c = sp_cur_make(m->s->data, to);
	int err = 0;

	if (to - from > SP_CFI_PROGRAM_MAX)
		return -SP_ELIMIT;
	c.pos = from;
	while (err == 0 && c.err == 0 && c.pos < to) {
		uint8_t op = sp_rd_u8(&c), low = op & 0x3f;
		struct sp_cfi_rule *r;

		switch (op & 0xc0) {
		case 0x40: /* DW_CFA_advance_loc */
			err = advance(m, low);
			break;
		case 0x80: /* DW_CFA_offset */
			set(m, low, SP_RULE_OFFSET, scaled(sp_rd_varint(&c),
			    m->f->cie.data_align));
			break;
		case 0xc0: /* DW_CFA_restore */
			if ((r = rule(m, low)) != NULL)
				*r = m->initial.regs[low];
			break;
		default:
			err = extended(m, &c, op);
			break;
		}
	}
	if (err == 1)
		return 0; /* stopped at pc */
	return err ? err : (c.err ? -SP_EFORMAT : 0);
}

int
spi_cfi_row_at(const struct sp_cfi_section *sec, size_t fde_off, uint64_t pc,
    struct sp_cfi_row *row, size_t *next, struct sp_diag *diag)
{
	struct machine m; /* not cleared: saved[] alone is 16 rows */
	struct fde f;
	int err = parse_fde(sec, fde_off, &f, next), i;

	if (err == -SP_ENOTFOUND)
		return err;
	if (err)
		return sp_diag_set(diag, fde_off, err, "malformed CIE or FDE");
	if (pc < f.begin || pc >= f.end)
		return -SP_ENOTFOUND;
	memset(row, 0, sizeof(*row));
	for (i = 0; i < SPI_CFI_NREGS; i++)
		row->regs[i].kind = SP_RULE_SAME;
	m.row = row;
	m.initial = *row; /* a restore in the CIE's program: the default */
	m.depth = 0;
	m.f = &f;
	m.s = sec;
	m.pc = UINT64_MAX; /* the CIE's program has no locations */
	m.loc = f.begin;
	err = run(&m, f.cie.insns, f.cie.end);
	if (err)
		return sp_diag_set(diag, fde_off, err, "bad instruction in a "
		    "CIE's initial instructions");
	m.initial = *row;
	m.pc = pc;
	err = run(&m, f.insns, f.insns_end);
	if (err)
		return sp_diag_set(diag, fde_off, err, "bad instruction in an "
		    "FDE's program");
	if (f.cie.ra >= SPI_CFI_NREGS)
		return sp_diag_set(diag, fde_off, -SP_EFORMAT, "return address "
		    "column past the registers a row tracks");
	row->ra = (uint8_t)f.cie.ra;
	row->signal_frame = f.cie.signal;
	row->pc_begin = f.begin;
	row->pc_end = f.end;
	return 0;
}
