/* SPDX-License-Identifier: MIT */
/* The CFI interpreter and expression evaluator on hand-built bytes;
 * cfi_table's index on real files. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "elf/elf_int.h"
#include "unwind/cfi_table_int.h"
#include "unwind/x86_64/x86_64_int.h"

/*
 * An .eh_frame at address 0x2000 with one CIE (zR, pcrel sdata4 FDE
 * pointers, CFA = rsp+8, RA at CFA-8) and one FDE for [0x1000, 0x1100):
 *   0x1000       push rbp            CFA rsp+8
 *   0x1001       mov rbp, rsp        CFA rsp+16, rbp at CFA-16
 *   0x1005       (body)              CFA rbp+16  (remember_state)
 *   0x100d       ret                 CFA rsp+8, rbp restored
 *   0x100e       (more body)         restore_state: CFA rbp+16 again
 */
static const uint8_t eh[] = {
	/* CIE: length 20, id 0, version 1, "zR", code 1, data -8, RA 16 */
	20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16,
	1, 0x1b,                 /* augmentation: FDE pointers pcrel sdata4 */
	0x0c, 7, 8,              /* def_cfa rsp, 8 */
	0x90, 1,                 /* offset r16 at cfa - 8 */
	0, 0,                    /* nop padding */
	/* FDE at 24: length 32, CIE pointer 28 (back to 0) */
	32, 0, 0, 0, 28, 0, 0, 0,
	0xe0, 0xef, 0xff, 0xff,  /* pc_begin: 0x1000 - 0x2020 */
	0x00, 0x01, 0, 0,        /* pc_range 0x100 */
	0,                       /* augmentation length */
	0x41, 0x0e, 16, 0x86, 2, /* loc+1: cfa off 16; rbp at cfa-16 */
	0x44, 0x0d, 6, 0x0a,     /* loc+4: cfa reg rbp; remember */
	0x48, 0x0c, 7, 8, 0xc6,  /* loc+8: cfa rsp+8; restore rbp */
	0x41, 0x0b,              /* loc+1: restore_state */
	0, 0, 0,                 /* padding */
	0, 0, 0, 0,              /* terminator */
};

static const struct sp_cfi_section sec = { eh, sizeof(eh), 0x2000, 0, 0 };

static void
row_at(uint64_t pc, struct sp_cfi_row *row)
{
	struct sp_diag why = { 0 };
	int err = spi_cfi_row_at(&sec, 24, pc, row, NULL, &why);

	cr_assert_eq(err, 0, "pc 0x%llx: %s", (unsigned long long)pc,
	    why.msg);
}

Test(cfi, rows_follow_the_prologue_and_epilogue)
{
	struct sp_cfi_row r;

	row_at(0x1000, &r);
	cr_assert_eq(r.cfa_reg, X86_64_DW_RSP);
	cr_assert_eq(r.cfa_off, 8);
	cr_assert_eq(r.regs[X86_64_DW_RA].kind, SP_RULE_OFFSET);
	cr_assert_eq(r.regs[X86_64_DW_RA].off, -8);
	cr_assert_eq(r.regs[X86_64_DW_RBP].kind, SP_RULE_SAME);
	cr_assert_eq(r.pc_begin, 0x1000);
	cr_assert_eq(r.pc_end, 0x1100);
	row_at(0x1004, &r);
	cr_assert_eq(r.cfa_reg, X86_64_DW_RSP);
	cr_assert_eq(r.cfa_off, 16);
	cr_assert_eq(r.regs[X86_64_DW_RBP].kind, SP_RULE_OFFSET);
	cr_assert_eq(r.regs[X86_64_DW_RBP].off, -16);
	row_at(0x1005, &r);
	cr_assert_eq(r.cfa_reg, X86_64_DW_RBP);
	cr_assert_eq(r.cfa_off, 16);
	row_at(0x100d, &r);
	cr_assert_eq(r.cfa_reg, X86_64_DW_RSP);
	cr_assert_eq(r.cfa_off, 8);
	cr_assert_eq(r.regs[X86_64_DW_RBP].kind, SP_RULE_SAME, "restored");
	row_at(0x100e, &r);
	cr_assert_eq(r.cfa_reg, X86_64_DW_RBP, "restore_state");
	cr_assert_eq(r.regs[X86_64_DW_RBP].kind, SP_RULE_OFFSET);
	row_at(0x10ff, &r);
	cr_assert_eq(r.cfa_reg, X86_64_DW_RBP);
}

Test(cfi, pcs_outside_the_fde_and_cies_are_not_found)
{
	struct sp_cfi_row r;
	struct sp_diag why = { 0 };
	size_t next = 99;
	uint64_t b, e;

	cr_assert_eq(spi_cfi_row_at(&sec, 24, 0x1100, &r, NULL, &why),
	    -SP_ENOTFOUND);
	cr_assert_eq(spi_cfi_row_at(&sec, 24, 0xfff, &r, NULL, &why),
	    -SP_ENOTFOUND);
	cr_assert_eq(spi_cfi_fde_range(&sec, 0, &b, &e, &next), -SP_ENOTFOUND);
	cr_assert_eq(next, 24, "a CIE is skipped by its length");
	cr_assert_eq(spi_cfi_fde_range(&sec, 24, &b, &e, &next), 0);
	cr_assert_eq(b, 0x1000);
	cr_assert_eq(e, 0x1100);
	cr_assert_eq(next, 60);
	cr_assert_eq(spi_cfi_fde_range(&sec, 60, &b, &e, &next), -SP_ENOTFOUND);
	cr_assert_eq(next, 0, "the terminator ends the walk");
}

Test(cfi, malformed_entries_are_errors)
{
	uint8_t bad[sizeof(eh)];
	struct sp_cfi_section s = sec;
	struct sp_cfi_row r;
	struct sp_diag why = { 0 };

	s.data = bad;
	memcpy(bad, eh, sizeof(eh));
	bad[24] = 200; /* FDE length beyond the section */
	cr_assert_eq(spi_cfi_row_at(&s, 24, 0x1000, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[28] = 100; /* CIE pointer before the section */
	cr_assert_eq(spi_cfi_row_at(&s, 24, 0x1000, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[8] = 2; /* CIE version 2 does not exist */
	cr_assert_eq(spi_cfi_row_at(&s, 24, 0x1000, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[46] = 0x0b; /* restore_state with nothing remembered */
	cr_assert_eq(spi_cfi_row_at(&s, 24, 0x1001, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[46] = 0x3f; /* an undefined DW_CFA opcode */
	cr_assert_eq(spi_cfi_row_at(&s, 24, 0x1001, &r, NULL, &why),
	    -SP_EFORMAT);
	cr_assert_str_eq(why.msg, "bad instruction in an FDE's program");
	cr_assert_eq(why.offset, 24, "the diagnostic points at the FDE");
}

Test(cfi, pointer_encodings)
{
	static const uint8_t b[] = { 0x10, 0x00, 0xf0, 0xff, 0xff, 0xff,
		0xe5, 0x8e, 0x26, 0x7f, 0x34, 0x12 };
	uint64_t v;
	size_t pos;

	pos = 0;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x02, 0, 0, &v), 0);
	cr_assert_eq(v, 0x10);                       /* udata2 */
	cr_assert_eq(pos, 2);
	pos = 2;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x0b, 0, 0, &v), 0);
	cr_assert_eq((int64_t)v, -16);               /* sdata4 */
	pos = 2;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x1b, 0x5000, 0,
	    &v), 0);
	cr_assert_eq(v, 0x5000 + 2 - 16);            /* pcrel sdata4 */
	pos = 2;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x3b, 0, 0x8000,
	    &v), 0);
	cr_assert_eq(v, 0x8000 - 16);                /* datarel sdata4 */
	pos = 6;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x01, 0, 0, &v), 0);
	cr_assert_eq(v, 624485);                     /* uleb128 */
	pos = 9;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x09, 0, 0, &v), 0);
	cr_assert_eq((int64_t)v, -1);                /* sleb128 0x7f */
	pos = 10;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x03, 0, 0, &v),
	    -SP_EFORMAT, "udata4 past the end");
	pos = 0;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x04, 0, 0, &v), 0);
	cr_assert_eq(pos, 8);                        /* udata8 */
	pos = 0;
	cr_assert_eq(spi_cfi_read_pointer(b, sizeof(b), &pos, 0x20, 0, 0, &v),
	    -SP_EFORMAT, "textrel is not used on x86-64");
}

static int
read_mem(void *ctx, uint64_t addr, uint64_t *v)
{
	(void)ctx;
	if (addr != 0x7000)
		return -SP_ENOTFOUND;
	*v = 0xabcdef;
	return 0;
}

Test(expr, the_x86_64_plt_cfa)
{
	/* breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus */
	static const uint8_t plt[] = { 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b,
		0x2a, 0x33, 0x24, 0x22 };
	uint64_t regs[SPI_CFI_NREGS] = { 0 }, v;
	uint64_t valid = 1ull << X86_64_DW_RSP | 1ull << X86_64_DW_RA;

	regs[X86_64_DW_RSP] = 0x1000;
	regs[X86_64_DW_RA] = 0x401025; /* rip & 15 = 5: before the push */
	cr_assert_eq(spi_dwarf_expr(plt, sizeof(plt), regs, valid, 0, 0,
	    read_mem, NULL, &v), 0);
	cr_assert_eq(v, 0x1008);
	regs[X86_64_DW_RA] = 0x40102b; /* rip & 15 = 11: after it */
	cr_assert_eq(spi_dwarf_expr(plt, sizeof(plt), regs, valid, 0, 0,
	    read_mem, NULL, &v), 0);
	cr_assert_eq(v, 0x1010);
	cr_assert_eq(spi_dwarf_expr(plt, sizeof(plt), regs, 1ull << X86_64_DW_RSP, 0,
	    0, read_mem, NULL, &v), -SP_EFORMAT, "rip not known");
}

Test(expr, deref_constants_branches_and_bounds)
{
	static const uint8_t deref[] = { 0x0c, 0x00, 0x70, 0, 0, 0x06 };
	/* lit1; bra +1 (taken: over lit10); lit11 */
	static const uint8_t bra[] = { 0x31, 0x28, 1, 0, 0x3a, 0x3b };
	static const uint8_t loop[] = { 0x2f, 0xfd, 0xff }; /* skip -3 */
	static const uint8_t divz[] = { 0x31, 0x30, 0x1b };
	uint8_t deep[SP_EXPR_STACK_MAX + 1];
	uint64_t v;

	cr_assert_eq(spi_dwarf_expr(deref, sizeof(deref), NULL, 0, 0, 0,
	    read_mem, NULL, &v), 0);
	cr_assert_eq(v, 0xabcdef);
	cr_assert_eq(spi_dwarf_expr(bra, sizeof(bra), NULL, 0, 0, 0, read_mem,
	    NULL, &v), 0);
	cr_assert_eq(v, 11);
	cr_assert_eq(spi_dwarf_expr(loop, sizeof(loop), NULL, 0, 0, 0, read_mem,
	    NULL, &v), -SP_ELIMIT, "an endless loop is cut off");
	memset(deep, 0x30, sizeof(deep));
	cr_assert_eq(spi_dwarf_expr(deep, sizeof(deep), NULL, 0, 0, 0, read_mem,
	    NULL, &v), -SP_ELIMIT, "stack overflow");
	cr_assert_eq(spi_dwarf_expr(divz, sizeof(divz), NULL, 0, 0, 0, read_mem,
	    NULL, &v), -SP_EFORMAT, "division by zero");
	cr_assert_eq(spi_dwarf_expr(deref, 3, NULL, 0, 0, 0, read_mem, NULL,
	    &v), -SP_EFORMAT, "truncated operand");
	cr_assert_eq(spi_dwarf_expr(deref + 5, 1, NULL, 0, 0x7000, 1, read_mem,
	    NULL, &v), 0, "the initial value is pushed");
	cr_assert_eq(v, 0xabcdef);
}

/*
 * cfi_table's own index, on real files: tree-O2 built again without
 * .eh_frame_hdr, and with its functions' FDEs in .debug_frame only, must
 * give each function the rows the .eh_frame_hdr table of tree-O2 gives
 * it.  Functions and their ranges come from nm.  Run from the source top
 * after ninja has built build/tests.
 */
struct fn {
	char name[64];
	uint64_t addr, size;
};

#define FNS_MAX 64

static size_t
nm_functions(const char *path, struct fn *fns)
{
	char cmd[256], line[256];
	size_t n = 0;
	FILE *p;

	(void)snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	while (fgets(line, sizeof(line), p) != NULL && n < FNS_MAX) {
		unsigned long long a, s;
		char type;

		if (sscanf(line, "%llx %llx %c %63s", &a, &s, &type,
		    fns[n].name) == 4 && (type == 'T' || type == 't') && s > 0) {
			fns[n].addr = a;
			fns[n++].size = s;
		}
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	return n;
}

static struct sp_cfi_table *
table(const char *path)
{
	struct sp_cfi_table *t = NULL;
	struct sp_elf_file *f;

	cr_assert_eq(spi_elf_file_open(path, &f, NULL), 0,
	    "%s: run from the source top after ninja", path);
	cr_assert_eq(spi_cfi_table_open(f, &t), 0, "%s", path);
	return t;
}

static void
same_row(const struct sp_cfi_row *a, uint64_t fa, const struct sp_cfi_row *b,
    uint64_t fb, const char *fn, uint64_t d)
{
	cr_assert_eq(a->cfa_reg, b->cfa_reg, "%s+%llu: CFA register", fn,
	    (unsigned long long)d);
	cr_assert_eq(a->cfa_off, b->cfa_off, "%s+%llu: CFA offset", fn,
	    (unsigned long long)d);
	cr_assert_eq(a->cfa_expr_len, b->cfa_expr_len, "%s+%llu: CFA expr",
	    fn, (unsigned long long)d);
	if (a->cfa_expr_len > 0)
		cr_assert(memcmp(a->cfa_expr, b->cfa_expr, a->cfa_expr_len) == 0);
	cr_assert_eq(a->regs[X86_64_DW_RA].kind, b->regs[X86_64_DW_RA].kind,
	    "%s+%llu: RA rule", fn, (unsigned long long)d);
	cr_assert_eq(a->regs[X86_64_DW_RA].off, b->regs[X86_64_DW_RA].off,
	    "%s+%llu: RA offset", fn, (unsigned long long)d);
	cr_assert_eq(a->pc_begin - fa, b->pc_begin - fb, "%s: FDE start", fn);
	cr_assert_eq(a->pc_end - fa, b->pc_end - fb, "%s: FDE end", fn);
}

/* Compares the rows at the start, middle and last byte of every function
 * both files have; returns how many rows were found and compared. */
static size_t
compare_tables(const char *ref_path, const char *path)
{
	static struct fn ref[FNS_MAX], other[FNS_MAX];
	struct sp_cfi_table *r = table(ref_path), *t = table(path);
	size_t nr = nm_functions(ref_path, ref), no = nm_functions(path, other);
	size_t i, j, k, rows = 0;
	struct spi_cfi_table_stats rs, ts;

	spi_cfi_table_stats(r, &rs);
	spi_cfi_table_stats(t, &ts);
	cr_assert_gt(rs.hdr_entries, 0, "%s uses its .eh_frame_hdr", ref_path);
	cr_assert_gt(ts.indexed, 0, "%s: FDEs in the own index", path);
	for (i = 0; i < nr; i++)
		for (j = 0; j < no; j++) {
			if (strcmp(ref[i].name, other[j].name) != 0)
				continue;
			cr_assert_eq(ref[i].size, other[j].size, "%s: same code",
			    ref[i].name);
			for (k = 0; k < 3; k++) {
				uint64_t d = k * (ref[i].size - 1) / 2;
				struct sp_cfi_row a, b;
				int ea = spi_cfi_table_row(r, ref[i].addr + d, &a);
				int eb = spi_cfi_table_row(t, other[j].addr + d, &b);

				cr_assert_eq(ea, eb, "%s+%llu: %d vs %d",
				    ref[i].name, (unsigned long long)d, ea, eb);
				if (ea == 0) {
					same_row(&a, ref[i].addr, &b, other[j].addr,
					    ref[i].name, d);
					rows++;
				}
			}
		}
	spi_cfi_table_free(r);
	spi_cfi_table_free(t);
	return rows;
}

Test(cfi_table, the_own_index_of_eh_frame_matches_the_hdr_table)
{
	struct sp_cfi_table *t = table("build/tests/tree-O2-nohdr");
	struct spi_cfi_table_stats st;
	size_t rows;

	spi_cfi_table_stats(t, &st);
	cr_assert_eq(st.hdr_entries, 0, "no .eh_frame_hdr table");
	cr_assert_gt(st.eh_frame_bytes, 0, "the file has .eh_frame");
	spi_cfi_table_free(t);
	rows = compare_tables("build/tests/tree-O2", "build/tests/tree-O2-nohdr");

	/* tree's own functions alone are main, run, work_a/b, leaf_a/b,
	 * spin, seconds: 8 functions, 3 rows each. */
	cr_assert_geq(rows, 24, "%zu rows compared", rows);
}

Test(cfi_table, the_index_of_debug_frame_matches_the_hdr_table)
{
	struct sp_cfi_table *t = table("build/tests/tree-O2-dbgframe");
	struct spi_cfi_table_stats st;

	spi_cfi_table_stats(t, &st);
	cr_assert_gt(st.debug_frame_bytes, 0, "the file has .debug_frame");
	spi_cfi_table_free(t);
	cr_assert_geq(compare_tables("build/tests/tree-O2",
	    "build/tests/tree-O2-dbgframe"), 24);
}
