/* SPDX-License-Identifier: MIT */
/* The CFI interpreter and expression evaluator on hand-built bytes. */
#include <criterion/criterion.h>
#include <string.h>

#include "cursor_int.h"
#include "sp/cfi.h"

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
	const char *why = NULL;
	int err = sp_cfi_row_at(&sec, 24, pc, row, NULL, &why);

	cr_assert_eq(err, 0, "pc 0x%llx: %s", (unsigned long long)pc,
	    why ? why : "");
}

Test(cfi, rows_follow_the_prologue_and_epilogue)
{
	struct sp_cfi_row r;

	row_at(0x1000, &r);
	cr_assert_eq(r.cfa_reg, SP_DW_RSP);
	cr_assert_eq(r.cfa_off, 8);
	cr_assert_eq(r.regs[SP_DW_RA].kind, SP_RULE_OFFSET);
	cr_assert_eq(r.regs[SP_DW_RA].off, -8);
	cr_assert_eq(r.regs[SP_DW_RBP].kind, SP_RULE_SAME);
	cr_assert_eq(r.pc_begin, 0x1000);
	cr_assert_eq(r.pc_end, 0x1100);
	row_at(0x1004, &r);
	cr_assert_eq(r.cfa_reg, SP_DW_RSP);
	cr_assert_eq(r.cfa_off, 16);
	cr_assert_eq(r.regs[SP_DW_RBP].kind, SP_RULE_OFFSET);
	cr_assert_eq(r.regs[SP_DW_RBP].off, -16);
	row_at(0x1005, &r);
	cr_assert_eq(r.cfa_reg, SP_DW_RBP);
	cr_assert_eq(r.cfa_off, 16);
	row_at(0x100d, &r);
	cr_assert_eq(r.cfa_reg, SP_DW_RSP);
	cr_assert_eq(r.cfa_off, 8);
	cr_assert_eq(r.regs[SP_DW_RBP].kind, SP_RULE_SAME, "restored");
	row_at(0x100e, &r);
	cr_assert_eq(r.cfa_reg, SP_DW_RBP, "restore_state");
	cr_assert_eq(r.regs[SP_DW_RBP].kind, SP_RULE_OFFSET);
	row_at(0x10ff, &r);
	cr_assert_eq(r.cfa_reg, SP_DW_RBP);
}

Test(cfi, pcs_outside_the_fde_and_cies_are_not_found)
{
	struct sp_cfi_row r;
	const char *why;
	size_t next = 99;
	uint64_t b, e;

	cr_assert_eq(sp_cfi_row_at(&sec, 24, 0x1100, &r, NULL, &why),
	    -SP_ENOTFOUND);
	cr_assert_eq(sp_cfi_row_at(&sec, 24, 0xfff, &r, NULL, &why),
	    -SP_ENOTFOUND);
	cr_assert_eq(sp_cfi_fde_range(&sec, 0, &b, &e, &next), -SP_ENOTFOUND);
	cr_assert_eq(next, 24, "a CIE is skipped by its length");
	cr_assert_eq(sp_cfi_fde_range(&sec, 24, &b, &e, &next), 0);
	cr_assert_eq(b, 0x1000);
	cr_assert_eq(e, 0x1100);
	cr_assert_eq(next, 60);
	cr_assert_eq(sp_cfi_fde_range(&sec, 60, &b, &e, &next), -SP_ENOTFOUND);
	cr_assert_eq(next, 0, "the terminator ends the walk");
}

Test(cfi, malformed_entries_are_errors)
{
	uint8_t bad[sizeof(eh)];
	struct sp_cfi_section s = sec;
	struct sp_cfi_row r;
	const char *why;

	s.data = bad;
	memcpy(bad, eh, sizeof(eh));
	bad[24] = 200; /* FDE length beyond the section */
	cr_assert_eq(sp_cfi_row_at(&s, 24, 0x1000, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[28] = 100; /* CIE pointer before the section */
	cr_assert_eq(sp_cfi_row_at(&s, 24, 0x1000, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[8] = 2; /* CIE version 2 does not exist */
	cr_assert_eq(sp_cfi_row_at(&s, 24, 0x1000, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[46] = 0x0b; /* restore_state with nothing remembered */
	cr_assert_eq(sp_cfi_row_at(&s, 24, 0x1001, &r, NULL, &why),
	    -SP_EFORMAT);
	memcpy(bad, eh, sizeof(eh));
	bad[46] = 0x3f; /* an undefined DW_CFA opcode */
	cr_assert_eq(sp_cfi_row_at(&s, 24, 0x1001, &r, NULL, &why),
	    -SP_EFORMAT);
	cr_assert_not_null(why);
}

Test(cfi, pointer_encodings)
{
	static const uint8_t b[] = { 0x10, 0x00, 0xf0, 0xff, 0xff, 0xff,
		0xe5, 0x8e, 0x26, 0x7f, 0x34, 0x12 };
	uint64_t v;
	size_t pos;

	pos = 0;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x02, 0, 0, &v), 0);
	cr_assert_eq(v, 0x10);                       /* udata2 */
	cr_assert_eq(pos, 2);
	pos = 2;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x0b, 0, 0, &v), 0);
	cr_assert_eq((int64_t)v, -16);               /* sdata4 */
	pos = 2;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x1b, 0x5000, 0,
	    &v), 0);
	cr_assert_eq(v, 0x5000 + 2 - 16);            /* pcrel sdata4 */
	pos = 2;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x3b, 0, 0x8000,
	    &v), 0);
	cr_assert_eq(v, 0x8000 - 16);                /* datarel sdata4 */
	pos = 6;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x01, 0, 0, &v), 0);
	cr_assert_eq(v, 624485);                     /* uleb128 */
	pos = 9;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x09, 0, 0, &v), 0);
	cr_assert_eq((int64_t)v, -1);                /* sleb128 0x7f */
	pos = 10;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x03, 0, 0, &v),
	    -SP_EFORMAT, "udata4 past the end");
	pos = 0;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x04, 0, 0, &v), 0);
	cr_assert_eq(pos, 8);                        /* udata8 */
	pos = 0;
	cr_assert_eq(sp_cfi_read_pointer(b, sizeof(b), &pos, 0x20, 0, 0, &v),
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
	uint64_t regs[SP_DW_NREGS] = { 0 }, v;
	uint32_t valid = 1u << SP_DW_RSP | 1u << SP_DW_RA;

	regs[SP_DW_RSP] = 0x1000;
	regs[SP_DW_RA] = 0x401025; /* rip & 15 = 5: before the push */
	cr_assert_eq(sp_dwarf_expr(plt, sizeof(plt), regs, valid, 0, 0,
	    read_mem, NULL, &v), 0);
	cr_assert_eq(v, 0x1008);
	regs[SP_DW_RA] = 0x40102b; /* rip & 15 = 11: after it */
	cr_assert_eq(sp_dwarf_expr(plt, sizeof(plt), regs, valid, 0, 0,
	    read_mem, NULL, &v), 0);
	cr_assert_eq(v, 0x1010);
	cr_assert_eq(sp_dwarf_expr(plt, sizeof(plt), regs, 1u << SP_DW_RSP, 0,
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

	cr_assert_eq(sp_dwarf_expr(deref, sizeof(deref), NULL, 0, 0, 0,
	    read_mem, NULL, &v), 0);
	cr_assert_eq(v, 0xabcdef);
	cr_assert_eq(sp_dwarf_expr(bra, sizeof(bra), NULL, 0, 0, 0, read_mem,
	    NULL, &v), 0);
	cr_assert_eq(v, 11);
	cr_assert_eq(sp_dwarf_expr(loop, sizeof(loop), NULL, 0, 0, 0, read_mem,
	    NULL, &v), -SP_ELIMIT, "an endless loop is cut off");
	memset(deep, 0x30, sizeof(deep));
	cr_assert_eq(sp_dwarf_expr(deep, sizeof(deep), NULL, 0, 0, 0, read_mem,
	    NULL, &v), -SP_ELIMIT, "stack overflow");
	cr_assert_eq(sp_dwarf_expr(divz, sizeof(divz), NULL, 0, 0, 0, read_mem,
	    NULL, &v), -SP_EFORMAT, "division by zero");
	cr_assert_eq(sp_dwarf_expr(deref, 3, NULL, 0, 0, 0, read_mem, NULL,
	    &v), -SP_EFORMAT, "truncated operand");
	cr_assert_eq(sp_dwarf_expr(deref + 5, 1, NULL, 0, 0x7000, 1, read_mem,
	    NULL, &v), 0, "the initial value is pushed");
	cr_assert_eq(v, 0xabcdef);
}
