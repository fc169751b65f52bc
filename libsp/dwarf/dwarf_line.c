/* SPDX-License-Identifier: MIT */
/* DWARF 5 §6.2 (and DWARF 2-4 §6.2): the line number program of a unit,
 * run into rows sorted by address, and its directory and file tables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_int.h"

/* DWARF 5 §7.22, tables 7.25 to 7.27. */
enum {
	DW_LNS_COPY = 1, DW_LNS_ADVANCE_PC, DW_LNS_ADVANCE_LINE,
	DW_LNS_SET_FILE, DW_LNS_SET_COLUMN, DW_LNS_NEGATE_STMT,
	DW_LNS_SET_BASIC_BLOCK, DW_LNS_CONST_ADD_PC,
	DW_LNS_FIXED_ADVANCE_PC, DW_LNS_SET_PROLOGUE_END,
	DW_LNS_SET_EPILOGUE_BEGIN, DW_LNS_SET_ISA,
};
enum {
	DW_LNE_END_SEQUENCE = 1, DW_LNE_SET_ADDRESS, DW_LNE_DEFINE_FILE,
	DW_LNE_SET_DISCRIMINATOR,
};
enum { DW_LNCT_PATH = 1, DW_LNCT_DIRECTORY_INDEX };

struct lhdr {
	struct dw_unit lu;       /* the unit, with this table's sizes */
	unsigned min_inst, max_ops, line_range, opcode_base;
	int line_base;
	const uint8_t *std_lens; /* opcode_base - 1 of them */
	size_t prog, end;        /* the program's bytes */
	struct dw_scratch *scr;  /* where rows, files and dirs are built */
};

struct lstate {
	uint64_t addr, op_index, line, file, column;
};

static int
add_dir(struct dw_lines *l, struct lhdr *h, const char *dir)
{
	if (spi_grow_zeroed(&h->scr->dirs, &h->scr->dcap, l->ndirs + 1,
	    sizeof(*h->scr->dirs)) != 0)
		return -ENOMEM;
	l->dirs = h->scr->dirs;
	l->dirs[l->ndirs++] = dir;
	return 0;
}

static int
add_file(struct dw_lines *l, struct lhdr *h, const char *name, uint64_t dir)
{
	struct dw_file *p;

	if (spi_grow_zeroed(&h->scr->files, &h->scr->fcap, l->nfiles + 1,
	    sizeof(*h->scr->files)) != 0)
		return -ENOMEM;
	l->files = p = h->scr->files;
	p += l->nfiles++;
	p->name = name;
	p->dir = dir;
	p->path = NULL;
	return 0;
}

/* A DWARF 2-4 file entry (§6.2.4 item 12), in the header or in
 * DW_LNE_define_file. */
static int
file_v4(struct sp_cur *c, struct dw_lines *l, struct lhdr *h,
    const char *name)
{
	uint64_t dir = sp_rd_varint(c);

	(void)sp_rd_varint(c);	/* modification time */
	(void)sp_rd_varint(c);	/* length */
	if (c->err)
		return -SP_EFORMAT;
	return add_file(l, h, name, dir);
}

/* DWARF 2-4 §6.2.4 items 11-12: strings until an empty one. */
static int
tables_v4(struct sp_cur *c, struct dw_lines *l, struct lhdr *h)
{
	struct dw_val v;
	int err, files = 0;

	/* Directory 0 is the compilation directory; file 0 is unused. */
	err = add_dir(l, h, l->comp_dir);
	if (err == 0)
		err = add_file(l, h, NULL, 0);
	while (err == 0) {
		if (spi_dw_read_form(c, &h->lu, DW_FORM_STRING, 0, &v) < 0)
			return -SP_EFORMAT;
		if (v.blen == 0 && files++)
			break;
		if (v.blen == 0)
			continue;
		if (files)
			err = file_v4(c, l, h, (const char *)v.blk);
		else
			err = add_dir(l, h, (const char *)v.blk);
	}
	return err;
}

/* DWARF 5 §6.2.4 items 14-20: a format, then entries in it. */
static int
entries_v5(struct sp_cur *c, struct dw_lines *l, struct lhdr *h,
    const struct sp_dwarf_sections *s, int files)
{
	uint32_t fmt[255][2];
	uint8_t nfmt = sp_rd_u8(c), i;
	uint64_t n, k;
	int err = 0;

	for (i = 0; i < nfmt; i++) {
		fmt[i][0] = sp_rd_u32v(c);
		fmt[i][1] = sp_rd_u32v(c);
	}
	n = sp_rd_varint(c);
	if (c->err || n > sp_cur_left(c))
		return -SP_EFORMAT;
	for (k = 0; k < n && err == 0; k++) {
		const char *name = NULL;
		uint64_t dir = 0;
		struct dw_val v;

		for (i = 0; i < nfmt; i++) {
			if (spi_dw_read_form(c, &h->lu, fmt[i][1], 0, &v) < 0)
				return -SP_EFORMAT;
			if (fmt[i][0] == DW_LNCT_PATH)
				name = spi_dw_val_str(s, &h->lu, &v);
			else if (fmt[i][0] == DW_LNCT_DIRECTORY_INDEX &&
			    spi_dw_val_const(&v, &dir) < 0)
				return -SP_EFORMAT;
		}
		err = files ? add_file(l, h, name, dir) : add_dir(l, h, name);
	}
	return err;
}

/* The header (§6.2.4) at off; leaves c at the directory tables. */
static int
header(const struct sp_dwarf_bytes *b, uint64_t off, struct lhdr *h,
    struct dw_lines *l, struct sp_cur *c)
{
	uint64_t len, hlen;
	const uint8_t *v;
	int lb;

	*c = sp_cur_make(b->p, b->len);
	if (off >= c->len)
		return -SP_EFORMAT;
	c->pos = (size_t)off;
	len = sp_rd_u32(c);
	h->lu.offsz = 4;
	if (len == 0xffffffffu) {
		len = sp_rd_u64(c);
		h->lu.offsz = 8;
	}
	if (c->err || len > sp_cur_left(c))
		return -SP_EFORMAT;
	h->end = c->pos + (size_t)len;
	c->len = h->end;
	v = sp_take(c, 2);
	l->version = v != NULL ? sp_le16(v) : 0;
	if (l->version < 2 || l->version > 5)
		return -SP_EFORMAT;
	if (l->version >= 5) {
		h->lu.addr_size = sp_rd_u8(c);
		(void)sp_rd_u8(c);	/* segment selector size */
	}
	hlen = spi_dw_rd_off(c, h->lu.offsz);
	if (c->err || hlen > sp_cur_left(c))
		return -SP_EFORMAT;
	h->prog = c->pos + (size_t)hlen;
	h->min_inst = sp_rd_u8(c);
	h->max_ops = l->version >= 4 ? sp_rd_u8(c) : 1;
	(void)sp_rd_u8(c);	/* default_is_stmt */
	lb = sp_rd_u8(c);
	h->line_base = lb < 0x80 ? lb : lb - 0x100;	/* an sbyte */
	h->line_range = sp_rd_u8(c);
	h->opcode_base = sp_rd_u8(c);
	if (c->err || h->opcode_base == 0)
		return -SP_EFORMAT;
	h->std_lens = sp_take(c, h->opcode_base - 1);
	if (h->std_lens == NULL || c->pos > h->prog)
		return -SP_EFORMAT;
	c->len = h->prog;	/* the tables end where the program starts */
	return 0;
}

static int
add_row(struct dw_lines *l, struct lhdr *h, const struct lstate *st,
    int end)
{
	struct dw_row *r;

	if (spi_grow_zeroed(&h->scr->rows, &h->scr->rcap, l->nrows + 1,
	    sizeof(*h->scr->rows)) != 0)
		return -ENOMEM;
	l->rows = r = h->scr->rows;
	r += l->nrows++;
	r->addr = st->addr;
	r->line = st->line <= UINT32_MAX ? (uint32_t)st->line : 0;
	/* A file index past the field names no file (none has it). */
	r->file = st->file < DW_ROW_FILE ? (uint32_t)st->file : DW_ROW_FILE;
	if (st->column <= DW_ROW_COL_MAX)
		r->file |= (uint32_t)st->column << DW_ROW_COL_SHIFT;
	if (end)
		r->file |= DW_ROW_END;
	return 0;
}

/* DWARF 5 §6.2.5.1: advance by operation_advance (VLIW-aware). */
static void
advance(const struct lhdr *h, struct lstate *st, uint64_t adv)
{
	if (h->max_ops <= 1) {
		st->addr += h->min_inst * adv;
		return;
	}
	st->addr += h->min_inst * ((st->op_index + adv) / h->max_ops);
	st->op_index = (st->op_index + adv) % h->max_ops;
}

static void
reset(struct lstate *st)
{
	st->addr = 0;
	st->op_index = 0;
	st->line = 1;
	st->file = 1;
	st->column = 0;
}

/* DWARF 5 §6.2.5.3: an extended opcode, skipped by its length. */
static int
extended(struct sp_cur *c, struct dw_lines *l, struct lhdr *h,
    struct lstate *st)
{
	uint64_t len = sp_rd_varint(c);
	struct sp_cur e;
	struct dw_val v;
	uint8_t op;
	int err = 0;

	if (c->err || len > sp_cur_left(c))
		return -SP_EFORMAT;
	e = sp_cur_make(c->p, c->pos + (size_t)len);
	e.pos = c->pos;
	c->pos += (size_t)len;
	if (len == 0)
		return 0;
	op = sp_rd_u8(&e);
	switch (op) {
	case DW_LNE_END_SEQUENCE:
		err = add_row(l, h, st, 1);
		reset(st);
		break;
	case DW_LNE_SET_ADDRESS:
		if (len - 1 != 4 && len - 1 != 8)
			return -SP_EFORMAT;
		st->addr = spi_dw_rd_addr(&e, (unsigned)(len - 1));
		st->op_index = 0;
		break;
	case DW_LNE_DEFINE_FILE:
		if (spi_dw_read_form(&e, &h->lu, DW_FORM_STRING, 0, &v) < 0)
			return -SP_EFORMAT;
		err = file_v4(&e, l, h, (const char *)v.blk);
		break;
	default:
		break;	/* set_discriminator, vendor extensions */
	}
	return e.err ? -SP_EFORMAT : err;
}

/* DWARF 5 §6.2.5.2: a standard opcode. */
static int
standard(struct sp_cur *c, struct dw_lines *l, struct lhdr *h,
    struct lstate *st, uint8_t op)
{
	const uint8_t *b;
	unsigned i;

	switch (op) {
	case DW_LNS_COPY:
		return add_row(l, h, st, 0);
	case DW_LNS_ADVANCE_PC:
		advance(h, st, sp_rd_varint(c));
		break;
	case DW_LNS_ADVANCE_LINE:
		st->line += (uint64_t)sp_rd_sleb(c);
		break;
	case DW_LNS_SET_FILE:
		st->file = sp_rd_varint(c);
		break;
	case DW_LNS_SET_COLUMN:
		st->column = sp_rd_varint(c);
		break;
	case DW_LNS_CONST_ADD_PC:
		if (h->line_range == 0)
			return -SP_EFORMAT;
		advance(h, st, (255 - h->opcode_base) / h->line_range);
		break;
	case DW_LNS_FIXED_ADVANCE_PC:
		b = sp_take(c, 2);
		if (b == NULL)
			return -SP_EFORMAT;
		st->addr += sp_le16(b);
		st->op_index = 0;
		break;
	case DW_LNS_NEGATE_STMT: case DW_LNS_SET_BASIC_BLOCK:
	case DW_LNS_SET_PROLOGUE_END: case DW_LNS_SET_EPILOGUE_BEGIN:
		break;
	default:
		/* set_isa and unknown ones: the header says how
		 * many ULEB128 operands each takes. */
		for (i = 0; i < h->std_lens[op - 1]; i++)
			(void)sp_rd_varint(c);
		break;
	}
	return c->err ? -SP_EFORMAT : 0;
}

static int
run(const struct sp_dwarf_bytes *b, struct dw_lines *l, struct lhdr *h)
{
	struct sp_cur c = sp_cur_make(b->p, h->end);
	struct lstate st;
	int err = 0;

	c.pos = h->prog;
	reset(&st);
	while (err == 0 && sp_cur_left(&c) > 0) {
		uint8_t op = sp_rd_u8(&c);

		if (op >= h->opcode_base) {
			/* §6.2.5.1: a special opcode. */
			unsigned adj = op - h->opcode_base;

			if (h->line_range == 0)
				return -SP_EFORMAT;
			advance(h, &st, adj / h->line_range);
			st.line += (uint64_t)(int64_t)(h->line_base +
			    (int)(adj % h->line_range));
			err = add_row(l, h, &st, 0);
		} else if (op == 0) {
			err = extended(&c, l, h, &st);
		} else {
			err = standard(&c, l, h, &st, op);
		}
	}
	return err;
}

/* Rows by address; at one address a sequence's end comes before the
 * start of the next sequence. */
static int
row_before(const struct dw_row *a, const struct dw_row *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	return (a->file & DW_ROW_END) && !(b->file & DW_ROW_END);
}

/* A stable merge sort of v[0..n), tmp as large: rows at one address keep
 * the program's order. */
static void
merge_rows(struct dw_row *v, struct dw_row *tmp, size_t n)
{
	struct dw_row *src = v, *dst = tmp;
	size_t w, i;

	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			size_t a = i, m = i + w < n ? i + w : n, b = m;
			size_t e = m + w < n ? m + w : n, k = i;

			while (a < m || b < e)
				dst[k++] = b >= e || (a < m &&
				    !row_before(&src[b], &src[a])) ?
				    src[a++] : src[b++];
		}
		dst = src;
		src = src == tmp ? v : tmp;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*src));
}

/*
 * The sequences of a line program: seq[k] (lo its first address, idx its
 * place in the program) holds rows begin[idx] .. begin[idx + 1].  Their
 * addresses do not go down; hi counts the rows at the end_sequence row's
 * address just before it, which the stable sort puts after it.
 */
struct seqs {
	struct dw_span *seq;
	size_t *begin;
	size_t n;
};

/* Sequence k's first and last rows in sorted order. */
static const struct dw_row *
seq_first(const struct dw_row *r, const struct seqs *q, size_t k)
{
	size_t b = q->begin[q->seq[k].idx], e = q->begin[q->seq[k].idx + 1];

	return e - b == q->seq[k].hi + 1 ? &r[e - 1] : &r[b];
}

static const struct dw_row *
seq_last(const struct dw_row *r, const struct seqs *q, size_t k)
{
	size_t e = q->begin[q->seq[k].idx + 1];

	return q->seq[k].hi > 0 ? &r[e - 2] : &r[e - 1];
}

/* Counts the rows at end row e's address just before it (r[b..e)). */
static uint64_t
end_ties(const struct dw_row *r, size_t b, size_t e)
{
	size_t i = e;

	while (i > b && r[i - 1].addr == r[e].addr)
		i--;
	return e - i;
}

/* Finds the sequences of l; 1 when the addresses of one go down,
 * -ENOMEM. */
static int
seqs_find(const struct dw_lines *l, struct seqs *q)
{
	const struct dw_row *r = l->rows;
	size_t n = l->nrows, i, k;

	for (i = 0; i < n; i++)
		q->n += i == 0 || (r[i - 1].file & DW_ROW_END);
	if (q->n > UINT32_MAX)
		return 1;
	q->seq = malloc(q->n * sizeof(*q->seq));
	q->begin = malloc((q->n + 1) * sizeof(*q->begin));
	if (q->seq == NULL || q->begin == NULL)
		return -ENOMEM;
	for (i = 0, k = 0; i < n; i++) {
		if (i == 0 || (r[i - 1].file & DW_ROW_END)) {
			q->seq[k].lo = r[i].addr;
			q->seq[k].hi = 0;
			q->seq[k].idx = (uint32_t)k;
			q->begin[k++] = i;
		} else if (r[i].addr < r[i - 1].addr) {
			return 1;
		}
		if (r[i].file & DW_ROW_END)
			q->seq[k - 1].hi = end_ties(r, q->begin[k - 1], i);
	}
	q->begin[q->n] = n;
	return 0;
}

/*
 * Appends the rows of sequences seq[a..b) (one cluster) to out at *at:
 * one sequence sorted (its end row before the rows at its address);
 * overlapping ones (the linker leaves those of discarded COMDAT copies
 * at address 0) in program order, for a merge.
 */
static void
cluster_put(const struct dw_row *r, struct seqs *q, size_t a, size_t b,
    struct dw_row *out, size_t *at)
{
	size_t k, from, to, t;

	if (b - a == 1 && (t = (size_t)q->seq[a].hi) > 0) {
		from = q->begin[q->seq[a].idx];
		to = q->begin[q->seq[a].idx + 1];
		memcpy(out + *at, r + from, (to - from - 1 - t) * sizeof(*r));
		*at += to - from - 1 - t;
		out[(*at)++] = r[to - 1];
		memcpy(out + *at, r + to - 1 - t, t * sizeof(*r));
		*at += t;
		return;
	}
	if (b - a > 1) {
		for (k = a; k < b; k++)
			q->seq[k].lo = q->seq[k].idx;
		spi_dw_span_sort(q->seq + a, b - a);
	}
	for (k = a; k < b; k++) {
		from = q->begin[q->seq[k].idx];
		to = q->begin[q->seq[k].idx + 1];
		memcpy(out + *at, r + from, (to - from) * sizeof(*r));
		*at += to - from;
	}
}

/*
 * The stable sort by whole sequences.  A sequence's addresses only go up
 * (DWARF 5 §6.2.5.3: end_sequence ends it), and a C++ unit holds
 * thousands of them, one per function instance.  Ordered by their first
 * rows, sequences are gathered into clusters, each of which ends before
 * a sequence whose first row comes after all of the cluster's: a
 * cluster's rows are laid out sorted (one sequence) or merged
 * (overlapping ones, in program order), and the clusters end to end are
 * what the stable sort of all rows gives, mostly by copying.  The sorted
 * rows go to scr->tmp, which becomes scr->rows.  0 when sorted, 1 when a
 * sequence goes down (the merge sort of all rows then), -ENOMEM.
 */
static int
sort_sequences(struct dw_lines *l, struct dw_scratch *scr)
{
	const struct dw_row *r = l->rows, *max = NULL;
	struct seqs q = { NULL, NULL, 0 };
	size_t k, a = 0, at = 0, nmerge = 0, *merge = NULL;
	int ret = seqs_find(l, &q);

	if (ret == 0 && (spi_grow_zeroed(&scr->tmp, &scr->tcap, l->nrows,
	    sizeof(*scr->tmp)) != 0 ||
	    (merge = malloc(q.n * 2 * sizeof(*merge))) == NULL))
		ret = -ENOMEM;
	if (ret != 0)
		goto out;
	/*
	 * By first address, then program order.  A later sequence whose
	 * first row at that address ends it (all its rows at one address)
	 * comes before the first rows of the others there, so it joins
	 * their cluster; it may still follow an end of sequence of the
	 * cluster before at that address, where the stable sort puts the
	 * two ends the other way round: of two ends at one address the
	 * table keeps one, and an end names no line either way.
	 */
	spi_dw_span_sort(q.seq, q.n);
	for (k = 0; k <= q.n; k++) {
		/* (max is set whenever k > a: the test says so to the
		 * analyzer.) */
		if (k > a && max != NULL && (k == q.n ||
		    row_before(max, seq_first(r, &q, k)))) {
			if (k - a > 1)
				merge[nmerge++] = at;
			cluster_put(r, &q, a, k, scr->tmp, &at);
			if (k - a > 1)
				merge[nmerge++] = at;
			a = k;
			max = NULL;
		}
		if (k < q.n && (max == NULL ||
		    row_before(max, seq_last(r, &q, k))))
			max = seq_last(r, &q, k);
	}
	/* The rows are all copied: their old place is the merges' scratch. */
	for (k = 0; k < nmerge; k += 2)
		merge_rows(scr->tmp + merge[k], scr->rows,
		    merge[k + 1] - merge[k]);
	l->rows = scr->tmp;
	scr->tmp = scr->rows;
	scr->rows = l->rows;
	k = scr->tcap;
	scr->tcap = scr->rcap;
	scr->rcap = k;
out:
	free(merge);
	free(q.seq);
	free(q.begin);
	return ret;
}

/* Rows by address, stable: by sequences, else one merge sort. */
static int
sort_rows(struct dw_lines *l, struct dw_scratch *scr)
{
	size_t n = l->nrows, i = 1;
	int err;

	while (i < n && !row_before(&l->rows[i], &l->rows[i - 1]))
		i++;
	if (i >= n)
		return 0;
	if ((err = sort_sequences(l, scr)) <= 0)
		return err;
	if (spi_grow_zeroed(&scr->tmp, &scr->tcap, n, sizeof(*scr->tmp)) != 0)
		return -ENOMEM;
	merge_rows(l->rows, scr->tmp, n);
	return 0;
}

/* Of rows at one address (and end flag) only the last one counts: the
 * earlier ones describe no instruction. */
static void
dedup_rows(struct dw_lines *l)
{
	size_t i, k = 0;

	for (i = 0; i < l->nrows; i++) {
		if (k > 0 && l->rows[k - 1].addr == l->rows[i].addr &&
		    ((l->rows[k - 1].file ^ l->rows[i].file) & DW_ROW_END) == 0)
			k--;
		l->rows[k++] = l->rows[i];
	}
	l->nrows = k;
}

int
spi_dw_lines_parse(struct sp_dwarf *d, const struct dw_unit *u,
    struct dw_lines *l)
{
	const struct sp_dwarf_sections *s = &d->s;
	struct lhdr h;
	struct sp_cur c;
	int err;

	memset(l, 0, sizeof(*l));
	memset(&h, 0, sizeof(h));
	h.lu = *u;
	h.scr = &d->scr;
	l->comp_dir = u->comp_dir;
	err = header(&s->line, u->stmt_list, &h, l, &c);
	if (err == 0 && h.lu.addr_size != 4 && h.lu.addr_size != 8)
		err = -SP_EFORMAT;
	if (err == 0)
		err = l->version >= 5 ? entries_v5(&c, l, &h, s, 0) :
		    tables_v4(&c, l, &h);
	if (err == 0 && l->version >= 5)
		err = entries_v5(&c, l, &h, s, 1);
	if (err == 0)
		err = run(&s->line, l, &h);
	if (err == 0)
		err = sort_rows(l, h.scr);
	if (err) {
		memset(l, 0, sizeof(*l));
		return err;
	}
	dedup_rows(l);
	l->bytes = h.end - (size_t)u->stmt_list;
	return 0;
}

int
spi_dw_lines_keep(struct dw_arena *a, struct dw_lines *l)
{
	l->rows = spi_dw_arena_copy(a, l->rows, l->nrows, sizeof(*l->rows));
	l->files = spi_dw_arena_copy(a, l->files, l->nfiles, sizeof(*l->files));
	l->dirs = spi_dw_arena_copy(a, l->dirs, l->ndirs, sizeof(*l->dirs));
	if ((l->rows == NULL && l->nrows > 0) ||
	    (l->files == NULL && l->nfiles > 0) ||
	    (l->dirs == NULL && l->ndirs > 0))
		return -ENOMEM;
	return 0;
}

const struct dw_row *
spi_dw_lines_find(const struct dw_lines *l, uint64_t addr)
{
	size_t lo = 0, hi = l->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || (l->rows[lo - 1].file & DW_ROW_END))
		return NULL;
	return &l->rows[lo - 1];
}

/* a/b/c into *out (in a), leaving out the NULL or empty parts; *out
 * stays NULL when the path would be longer than SP_DWARF_PATH_MAX. */
static int
join(struct dw_arena *a, const char *x, const char *y, const char *z,
    char **out)
{
	const char *part[3] = { x, y, z };
	size_t len = 0, i, n;
	char *p;

	*out = NULL;
	for (i = 0; i < 3; i++)
		len += part[i] != NULL ? strlen(part[i]) + 1 : 0;
	if (len > SP_DWARF_PATH_MAX)
		return 0;
	*out = p = spi_dw_arena_alloc(a, len + 1);
	if (p == NULL)
		return -ENOMEM;
	for (i = 0; i < 3; i++) {
		if (part[i] == NULL || part[i][0] == '\0')
			continue;
		if (p > *out && p[-1] != '/')
			*p++ = '/';
		n = strlen(part[i]);
		memcpy(p, part[i], n);
		p += n;
	}
	*p = '\0';
	return 0;
}

int
spi_dw_lines_path(struct dw_arena *a, struct dw_lines *l, uint64_t file,
    const char **out)
{
	struct dw_file *f;
	const char *dir, *base;
	char *joined;

	*out = NULL;
	if (file >= l->nfiles || l->files[file].name == NULL)
		return 0;
	f = &l->files[file];
	if (f->path != NULL) {
		*out = f->path;
		return 0;
	}
	dir = f->dir < l->ndirs ? l->dirs[f->dir] : NULL;
	/* DWARF 5 §6.2.4: relative directories are relative to the
	 * compilation directory (entry 0 in version 5). */
	base = l->version >= 5 ? (l->ndirs > 0 ? l->dirs[0] : NULL) :
	    l->comp_dir;
	if (f->name[0] == '/' || dir == NULL || dir[0] == '\0') {
		f->path = f->name;
	} else {
		if (dir[0] == '/' || f->dir == 0)
			base = NULL;
		if (join(a, base, dir, f->name, &joined) < 0)
			return -ENOMEM;
		f->path = joined != NULL ? joined : f->name;
	}
	*out = f->path;
	return 0;
}
