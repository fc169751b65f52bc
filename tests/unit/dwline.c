/* SPDX-License-Identifier: MIT */
/*
 * The line table's order against a model: random line programs (many
 * sequences, out of order, overlapping at address 0 as the linker leaves
 * discarded COMDAT copies, adjacent, with rows at an end_sequence's own
 * address, some going down inside a sequence) looked up at every address
 * and compared with what the stable sort of all rows by address (an end
 * of sequence first at one address), the last row of each address kept,
 * gives.  libsp sorts by whole sequences where it can (dwarf_line.c);
 * this is what it must agree with.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor_int.h"
#include "dwarf/debuginfo_int.h"

#define SPAN 0x200      /* addresses looked up: [0, SPAN) */

struct out {
	uint8_t b[1 << 16];
	size_t n;
};

static void
emit(struct out *o, uint64_t v, unsigned size)
{
	cr_assert_leq(o->n + size, sizeof(o->b));
	for (; size > 0; size--, v >>= 8)
		o->b[o->n++] = (uint8_t)v;
}

/* A row of the model: program order is its index. */
struct mrow {
	uint64_t addr;
	uint32_t line;
	int end;
};

static struct mrow model[4096];
static size_t nmodel;

static int
before(const struct mrow *a, const struct mrow *b)
{
	return a->addr != b->addr ? a->addr < b->addr : a->end && !b->end;
}

static struct mrow sorted[4096];
static size_t nsorted;

/* The model's table: the rows sorted stably (insertion sort), then of
 * rows of one address and end flag the last one only. */
static void
model_sort(void)
{
	size_t i, j, k = 0;

	for (i = 0; i < nmodel; i++) {
		struct mrow r = model[i];

		for (j = i; j > 0 && before(&r, &sorted[j - 1]); j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = r;
	}
	for (i = 0; i < nmodel; i++) {
		if (k > 0 && sorted[k - 1].addr == sorted[i].addr &&
		    sorted[k - 1].end == sorted[i].end)
			k--;
		sorted[k++] = sorted[i];
	}
	nsorted = k;
}

/* The line at addr by the model: the last row at or below it, 0 when
 * none or an end of sequence. */
static uint32_t
model_line(uint64_t addr)
{
	size_t i = nsorted;

	while (i > 0 && sorted[i - 1].addr > addr)
		i--;
	return i == 0 || sorted[i - 1].end ? 0 : sorted[i - 1].line;
}

/* The address register moved to to (DW_LNE_set_address), and the
 * model's row there: the line, or an end of sequence. */
static void
move(struct out *p, uint64_t *addr, uint64_t to, uint32_t line, int end)
{
	if (to != *addr) {
		emit(p, 0x020900, 3);	/* extended, 9 bytes, set_address */
		emit(p, to, 8);
	}
	*addr = to;
	model[nmodel].addr = to;
	model[nmodel].line = line;
	model[nmodel++].end = end;
}

/* One row: the line register set by advance_line, then copy. */
static void
row(struct out *p, uint64_t *addr, uint32_t *line, uint64_t to,
    uint32_t newline)
{
	move(p, addr, to, newline, 0);
	emit(p, 0x03, 1);		/* advance_line, SLEB128 */
	emit(p, (uint64_t)(int64_t)(newline - *line) & 0x7f, 1);
	emit(p, 0x01, 1);		/* copy */
	*line = newline;
}

/* A random line program body: sequences of a few rows each. */
static void
program(struct out *p, unsigned seed)
{
	unsigned k, nseq = 1 + (unsigned)rand_r(&seed) % 40;
	/* One program in eight goes down somewhere (the merge sort then). */
	int down = seed % 8 == 0;

	nmodel = 0;
	for (k = 0; k < nseq; k++) {
		uint64_t addr = 0, at;
		uint32_t line = 1, nrows = 1 + (unsigned)rand_r(&seed) % 6, i;

		at = rand_r(&seed) % 4 == 0 ? 0 :
		    (uint64_t)(rand_r(&seed) % 16) * 0x10;
		for (i = 0; i < nrows; i++) {
			row(p, &addr, &line, at, 1 + (uint32_t)rand_r(&seed) % 60);
			at += (uint64_t)(rand_r(&seed) % 3) * 0x8;
			/* Now and then a step back, out of order. */
			if (down && rand_r(&seed) % 23 == 0 && at >= 0x10)
				at -= 0x10;
		}
		/* A row at the end's own address, then the end. */
		if (rand_r(&seed) % 3 == 0)
			row(p, &addr, &line, at, 1 + (uint32_t)rand_r(&seed) % 60);
		move(p, &addr, at, line, 1);
		emit(p, 0x010100, 3);	/* DW_LNE_end_sequence */
	}
}

/* A version 4 line table with one file, its program from seed. */
static void
line_table(struct out *l, unsigned seed)
{
	/* unit_length and header_length (set below), version 4;
	 * min_inst 1, max_ops 1, default_is_stmt 1, line_base -5,
	 * line_range 14, opcode_base 13, the 12 standard opcodes' operand
	 * counts; directory /src; file a.c in it. */
	static const uint8_t hdr[] = { 0, 0, 0, 0, 4, 0, 0, 0, 0, 0,
		1, 1, 1, 0xfb, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1,
		'/', 's', 'r', 'c', 0, 0, 'a', '.', 'c', 0, 1, 0, 0, 0 };

	memcpy(l->b, hdr, sizeof(hdr));
	l->n = sizeof(hdr);
	sp_put_le32(l->b + 6, (uint32_t)(sizeof(hdr) - 10));
	program(l, seed);
	sp_put_le32(l->b, (uint32_t)(l->n - 4));
}

Test(dwline, sorted_by_sequences_as_the_stable_sort_of_all_rows)
{
	/* A compile unit over [0, SPAN): stmt_list, low_pc, high_pc. */
	static const uint8_t ab[] = { 1, 0x11, 0, 0x10, 0x17, 0x11, 0x01,
		0x12, 0x06, 0, 0, 0 };
	static struct out info, line;
	struct sp_dwarf_sections s;
	unsigned seed;

	for (seed = 1; seed <= 1000; seed++) {
		struct sp_dwarf_frame f[2];
		struct sp_dwarf *d;
		uint64_t a;

		info.n = 0;
		emit(&info, 0, 4);
		emit(&info, 4, 2);
		emit(&info, 0, 4);
		emit(&info, 8, 1);
		emit(&info, 1, 1);
		emit(&info, 0, 4);
		emit(&info, 0, 8);
		emit(&info, SPAN, 4);
		sp_put_le32(info.b, (uint32_t)(info.n - 4));
		line_table(&line, seed);
		memset(&s, 0, sizeof(s));
		s.info.p = info.b;
		s.info.len = info.n;
		s.abbrev.p = ab;
		s.abbrev.len = sizeof(ab);
		s.line.p = line.b;
		s.line.len = line.n;
		cr_assert_eq(spi_dwarf_open(&s, &d), 0);
		model_sort();
		for (a = 0; a < SPAN; a++) {
			int n = spi_dwarf_lookup(d, a, f, 2);

			cr_assert_eq(n, 1, "seed %u address 0x%llx: %d", seed,
			    (unsigned long long)a, n);
			cr_assert_eq(f[0].line, model_line(a),
			    "seed %u address 0x%llx: line %u, the model's %u",
			    seed, (unsigned long long)a, f[0].line,
			    model_line(a));
		}
		spi_dwarf_free(d);
	}
}
