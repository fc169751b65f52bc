/* SPDX-License-Identifier: MIT */
/* .debug_info (DWARF 5 §7.5): unit headers, the unit DIE's bases, and per
 * unit the tree of subprograms and inlined subroutines with code. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

/* DWARF 5 §7.5.1.1: the unit header at off; *next is 0 when the walk
 * cannot go on (bad or truncated length). */
static void
unit_header(const struct sp_dwarf_bytes *b, uint64_t off, struct dw_unit *u,
    uint64_t *next)
{
	struct sp_cur c = sp_cur_make(b->p, b->len);
	uint64_t len;
	const uint8_t *v;

	memset(u, 0, sizeof(*u));
	*next = 0;
	c.pos = (size_t)off;
	len = sp_rd_u32(&c);
	u->offsz = 4;
	if (len == 0xffffffffu) {
		len = sp_rd_u64(&c);
		u->offsz = 8;
	} else if (len >= 0xfffffff0u) {
		return;		/* reserved (§7.2.2) */
	}
	if (c.err || len > sp_cur_left(&c))
		return;
	u->off = off;
	u->end = c.pos + len;
	*next = u->end;
	c.len = (size_t)u->end;
	v = sp_take(&c, 2);
	u->version = v != NULL ? (uint8_t)sp_le16(v) : 0;
	if (v == NULL || sp_le16(v) < 2 || sp_le16(v) > 5) {
		u->version = 0;
		return;		/* unknown: skipped by its length */
	}
	if (u->version >= 5) {
		u->type = sp_rd_u8(&c);
		u->addr_size = sp_rd_u8(&c);
		u->abbrev_off = spi_dw_rd_off(&c, u->offsz);
		if (u->type == DW_UT_SKELETON || u->type == DW_UT_SPLIT_COMPILE)
			(void)sp_rd_u64(&c);	/* dwo_id */
		if (u->type == DW_UT_TYPE || u->type == DW_UT_SPLIT_TYPE) {
			(void)sp_rd_u64(&c);	/* type signature */
			(void)spi_dw_rd_off(&c, u->offsz);
		}
	} else {
		u->type = DW_UT_COMPILE;
		u->abbrev_off = spi_dw_rd_off(&c, u->offsz);
		u->addr_size = sp_rd_u8(&c);
	}
	if (c.err || (u->addr_size != 4 && u->addr_size != 8))
		u->type = 0;
	u->die_off = c.pos;
}

int
spi_dw_units_scan(struct sp_dwarf *d)
{
	uint64_t off = 0, next;
	size_t cap = 0;

	while (off < d->s.info.len) {
		struct dw_unit u;

		unit_header(&d->s.info, off, &u, &next);
		if (next == 0)
			break;
		/* One that cannot be read (an empty or unknown-version unit)
		 * is not kept: a section of zeros is a million of them. */
		if (u.type == 0) {
			off = next;
			continue;
		}
		if (spi_grow_zeroed(&d->units, &cap, d->nunits + 1,
		    sizeof(*d->units)) != 0)
			return -ENOMEM;
		d->units[d->nunits++] = u;
		off = next;
	}
	return 0;
}

/* The shared abbreviation table at off, parsed on first use. */
static int
abbrevs_at(struct sp_dwarf *d, uint64_t off, struct dw_abbrevs **out)
{
	size_t lo = 0, hi = d->nabbr;
	struct dw_abbr_slot *p;
	struct dw_abbrevs *t;
	int err;

	*out = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->abbr[mid].off == off) {
			*out = d->abbr[mid].t;
			return 0;
		}
		if (d->abbr[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (spi_grow_zeroed(&d->abbr, &d->abbrcap, d->nabbr + 1,
	    sizeof(*d->abbr)) != 0)
		return -ENOMEM;
	p = d->abbr;
	err = spi_dw_abbrevs_parse(d, off, &t);
	if (err)
		return err;
	memmove(p + lo + 1, p + lo, (d->nabbr - lo) * sizeof(*p));
	p[lo].off = off;
	p[lo].t = t;
	d->nabbr++;
	*out = t;
	return 0;
}

/* A section offset attribute, or dflt when absent. */
static int
base_of(const struct dw_val *v, uint64_t dflt, uint64_t *out)
{
	*out = dflt;
	return v->form != 0 ? spi_dw_val_const(v, out) : 0;
}

/* The unit DIE's bases (DWARF 5 §3.1.1); absent ones default to just
 * past their section's header, where a lone table's entries start. */
static int
unit_bases(struct sp_dwarf *d, struct dw_unit *u, const struct dw_die *die)
{
	unsigned hdr = u->offsz == 8 ? 16 : 8;
	uint64_t lang;

	if (base_of(&die->at[DA_STROFF_BASE], hdr, &u->str_offsets_base) < 0 ||
	    base_of(&die->at[DA_ADDR_BASE], hdr, &u->addr_base) < 0 ||
	    base_of(&die->at[DA_RNGL_BASE], hdr + 4, &u->rnglists_base) < 0)
		return -SP_EFORMAT;
	if (die->at[DA_LOW].form != 0 &&
	    spi_dw_val_addr(&d->s, u, &die->at[DA_LOW], &u->base_addr) < 0)
		return -SP_EFORMAT;
	u->has_stmt_list = die->at[DA_STMT_LIST].form != 0;
	if (u->has_stmt_list &&
	    spi_dw_val_const(&die->at[DA_STMT_LIST], &u->stmt_list) < 0)
		return -SP_EFORMAT;
	u->comp_dir = spi_dw_val_str(&d->s, u, &die->at[DA_COMP_DIR]);
	/* DWARF 5 §7.12: DW_LANG_Mips_Assembler, what GNU as writes. */
	u->assembler = spi_dw_val_const(&die->at[DA_LANGUAGE], &lang) == 0 &&
	    lang == 0x8001;
	return 0;
}

/* Reads the unit DIE of u into die. */
static int
unit_die(struct sp_dwarf *d, const struct dw_unit *u, struct sp_cur *c,
    struct dw_die *die)
{
	*c = sp_cur_make(d->s.info.p, (size_t)u->end);
	c->pos = (size_t)u->die_off;
	if (spi_dw_die_read(c, u, die) < 0 || die->ab == NULL)
		return -SP_EFORMAT;
	return 0;
}

static int
unit_prepare(struct sp_dwarf *d, struct dw_unit *u)
{
	struct dw_die die;
	struct sp_cur c;
	int err;

	if (u->prepared)
		return u->prep_err;
	if (u->type == 0)
		err = -SP_EFORMAT;
	else
		err = abbrevs_at(d, u->abbrev_off, &u->ab);
	if (err == -ENOMEM)
		return err;	/* not cached: may work next time */
	if (err == 0)
		err = unit_die(d, u, &c, &die);
	if (err == 0)
		err = unit_bases(d, u, &die);
	u->prepared = 1;
	u->prep_err = err;
	return err;
}

/* Whether u may have code: compile and partial units (§3.1). */
static int
code_unit(const struct dw_unit *u)
{
	return u->type == DW_UT_COMPILE || u->type == DW_UT_PARTIAL;
}

int
spi_dw_unit_ranges(struct sp_dwarf *d, struct dw_unit *u,
    int (*fn)(void *, uint64_t, uint64_t), void *ctx)
{
	struct dw_die die;
	struct sp_cur c;
	int err;

	if (!code_unit(u))
		return 0;
	err = unit_prepare(d, u);
	if (err == 0)
		err = unit_die(d, u, &c, &die);
	if (err == 0)
		err = spi_dw_die_ranges(&d->s, u, &die, fn, ctx);
	return err;
}

struct node_ranges {
	struct dw_spans *spans;
	uint32_t idx;
	size_t n;
};

static int
add_node_range(void *ctx, uint64_t lo, uint64_t hi)
{
	struct node_ranges *r = ctx;

	r->n += hi > lo;
	return spi_dw_spans_add(r->spans, lo, hi, r->idx);
}

static uint32_t
const32(const struct dw_val *v)
{
	uint64_t x = 0;

	if (v->form == 0 || spi_dw_val_const(v, &x) < 0 || x > UINT32_MAX)
		return 0;
	return (uint32_t)x;
}

/* A subprogram or inlined subroutine: a node if it has code.  The
 * nodes and their spans are built in d's scratch arrays. */
static int
add_node(struct sp_dwarf *d, struct dw_unit *u, const struct dw_die *die,
    int32_t parent, int32_t *node)
{
	struct dw_cu *cu = u->cu;
	struct node_ranges r = { &d->scr.spans, (uint32_t)cu->nnodes, 0 };
	struct dw_node *n;
	int err;

	if (cu->nnodes >= INT32_MAX)
		return -SP_ELIMIT;
	/* GNU as writes a subprogram per label of a function, with the
	 * same range (glibc's syscall wrappers: __sched_yield, sched_yield,
	 * __GI_sched_yield, ...): no name of the function's own, the ELF
	 * symbols choose (the line table still gives the lines). */
	if (u->assembler)
		return 0;
	err = spi_dw_die_ranges(&d->s, u, die, add_node_range, &r);
	if (err || r.n == 0)
		return err;
	if (spi_grow_zeroed(&d->scr.nodes, &d->scr.ncap, cu->nnodes + 1,
	    sizeof(*d->scr.nodes)) != 0)
		return -ENOMEM;
	cu->nodes = n = d->scr.nodes;
	n += cu->nnodes;
	n->die_off = die->off;
	n->parent = parent;
	n->inlined = die->ab->tag == DW_TAG_INLINED_SUBROUTINE;
	n->call_file = const32(&die->at[DA_CALL_FILE]);
	n->call_line = const32(&die->at[DA_CALL_LINE]);
	n->call_column = const32(&die->at[DA_CALL_COLUMN]);
	n->name = spi_dw_val_str(&d->s, u, &die->at[DA_NAME]);
	n->linkage = spi_dw_val_str(&d->s, u, &die->at[DA_LINKAGE]);
	n->origin = 0;
	if (spi_dw_val_ref(u, &die->at[DA_ORIGIN], &n->origin) < 0)
		(void)spi_dw_val_ref(u, &die->at[DA_SPEC], &n->origin);
	n->resolved = n->linkage != NULL || n->origin == 0;
	if (n->linkage != NULL && (n->name == NULL ||
	    spi_dwarf_mangled(n->linkage)))
		n->name = n->linkage;
	*node = (int32_t)cu->nnodes++;
	return 0;
}

/* Subtrees that never hold code, which DW_AT_sibling lets us skip. */
static int
skippable(uint32_t tag)
{
	switch (tag) {
	case DW_TAG_ARRAY_TYPE: case DW_TAG_CLASS_TYPE:
	case DW_TAG_ENUMERATION_TYPE: case DW_TAG_STRUCTURE_TYPE:
	case DW_TAG_SUBROUTINE_TYPE: case DW_TAG_UNION_TYPE:
		return 1;
	default:
		return 0;
	}
}

/* Walks the unit's DIEs, without recursion, into u->cu's nodes. */
static int
walk(struct sp_dwarf *d, struct dw_unit *u)
{
	int32_t parent[SP_DWARF_DEPTH_MAX + 1];
	struct dw_die die;
	struct sp_cur c;
	uint64_t sib;
	int depth = 0, err;

	err = unit_die(d, u, &c, &die);
	if (err || !die.ab->children)
		return err;
	parent[++depth] = -1;
	/* A missing last null entry is tolerated: the unit just ends. */
	while (depth > 0 && sp_cur_left(&c) > 0) {
		int32_t node = parent[depth];
		uint32_t tag;

		if (spi_dw_die_read(&c, u, &die) < 0)
			return -SP_EFORMAT;
		if (die.ab == NULL) {
			depth--;
			continue;
		}
		tag = die.ab->tag;
		if (tag == DW_TAG_SUBPROGRAM ||
		    tag == DW_TAG_INLINED_SUBROUTINE)
			err = add_node(d, u, &die, parent[depth], &node);
		if (err)
			return err;
		if (!die.ab->children)
			continue;
		/* Only forward: a sibling pointing back could loop. */
		if (skippable(tag) && spi_dw_val_ref(u, &die.at[DA_SIBLING],
		    &sib) == 0 && sib >= c.pos && sib <= u->end) {
			c.pos = (size_t)sib;
			continue;
		}
		if (depth == SP_DWARF_DEPTH_MAX)
			return -SP_EFORMAT;
		parent[++depth] = node;
	}
	return 0;
}

/* What loading u read and what it keeps. */
static uint64_t
cu_cost(const struct dw_unit *u)
{
	const struct dw_cu *cu = u->cu;
	const struct dw_lines *l = &cu->lines;

	return (u->end - u->off) + l->bytes + l->nrows * sizeof(*l->rows) +
	    l->nfiles * sizeof(*l->files) + l->ndirs * sizeof(*l->dirs) +
	    cu->nnodes * sizeof(*cu->nodes) + cu->spans.n *
	    (sizeof(*cu->spans.v) + sizeof(*cu->spans.maxhi));
}

/* Copies cu's nodes and spans from the scratch arrays to the arena. */
static int
cu_keep(struct sp_dwarf *d, struct dw_cu *cu)
{
	cu->nodes = spi_dw_arena_copy(&d->arena, cu->nodes, cu->nnodes,
	    sizeof(*cu->nodes));
	if (cu->nodes == NULL && cu->nnodes > 0)
		return -ENOMEM;
	if (spi_dw_lines_keep(&d->arena, &cu->lines) < 0)
		return -ENOMEM;
	return spi_dw_spans_pack(&d->scr.spans, &d->arena, &cu->spans);
}

int
spi_dw_unit_load(struct sp_dwarf *d, struct dw_unit *u)
{
	struct dw_cu cu;
	int err;

	if (u->cu != NULL || u->cu_err != 0)
		return u->cu_err;
	if (!code_unit(u))
		return -SP_ENOTFOUND;
	err = unit_prepare(d, u);
	if (err)
		return err;
	memset(&cu, 0, sizeof(cu));
	d->scr.spans.n = d->scr.spans.offered = 0;
	d->scr.spans.limit = SP_DWARF_RANGES_MAX(u->end - u->off);
	u->cu = &cu;	/* walk builds in it */
	if (u->has_stmt_list)
		err = spi_dw_lines_parse(d, u, &cu.lines);
	if (err == 0)
		err = walk(d, u);
	cu.spans.n = d->scr.spans.n;
	/* Charged before it is kept: a unit refused for the work limit
	 * costs no memory. */
	if (err == 0)
		err = spi_dw_charge(d, cu_cost(u));
	if (err == 0)
		err = cu_keep(d, &cu);
	if (err == 0)
		u->cu = spi_dw_arena_copy(&d->arena, &cu, 1, sizeof(cu));
	else
		u->cu = NULL;
	if (err == 0 && u->cu == NULL)
		err = -ENOMEM;
	if (err && err != -ENOMEM)
		u->cu_err = err;
	return err;
}

/* The unit whose DIEs contain .debug_info offset off. */
static struct dw_unit *
unit_of(struct sp_dwarf *d, uint64_t off)
{
	size_t lo = 0, hi = d->nunits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->units[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nunits || off < d->units[lo].die_off)
		return NULL;
	return &d->units[lo];
}

int
spi_dwarf_mangled(const char *name)
{
	if (name[0] != '_' || name[1] == '\0' || name[2] == '\0')
		return 0;
	if (name[1] == 'Z')
		return isalnum((unsigned char)name[2]) != 0;
	return name[1] == 'R' && (isupper((unsigned char)name[2]) ||
	    isdigit((unsigned char)name[2]));
}

/*
 * A C++ or Rust function's DW_AT_name is bare ("_M_lower_bound"); its
 * DW_AT_linkage_name, which demangles to the qualified name with its
 * class, namespace and parameters, is usually on the declaration that
 * DW_AT_specification leads to, past the abstract instance that
 * DW_AT_abstract_origin names (DWARF 5 §3.3.8.1, §2.13.2).  So the chain
 * is followed until a linkage name is found, the first DW_AT_name kept
 * for functions that have none (C), or whose linkage name is no mangled
 * name (C's asm labels: glibc's __GI_ aliases).
 */
int
spi_dw_node_name(struct sp_dwarf *d, struct dw_node *n)
{
	uint64_t off = n->origin;
	unsigned hop;

	if (n->resolved)
		return 0;
	/* The chain is cut at SP_DWARF_CHAIN_MAX hops, which ends cycles. */
	for (hop = 0; off != 0 && hop < SP_DWARF_CHAIN_MAX; hop++) {
		struct dw_unit *u = unit_of(d, off);
		struct dw_die die;
		struct sp_cur c;
		int err = u != NULL ? unit_prepare(d, u) : -SP_EFORMAT;

		if (err == -ENOMEM)
			return err;
		if (err)
			break;
		c = sp_cur_make(d->s.info.p, (size_t)u->end);
		c.pos = (size_t)off;
		if (spi_dw_die_read(&c, u, &die) < 0 || die.ab == NULL)
			break;
		n->linkage = spi_dw_val_str(&d->s, u, &die.at[DA_LINKAGE]);
		if (n->name == NULL)
			n->name = spi_dw_val_str(&d->s, u, &die.at[DA_NAME]);
		if (n->linkage != NULL)
			break;
		off = 0;
		if (spi_dw_val_ref(u, &die.at[DA_ORIGIN], &off) < 0 &&
		    spi_dw_val_ref(u, &die.at[DA_SPEC], &off) < 0)
			off = 0;
	}
	if (n->linkage != NULL && (n->name == NULL ||
	    spi_dwarf_mangled(n->linkage)))
		n->name = n->linkage;
	n->resolved = 1;
	return 0;
}
