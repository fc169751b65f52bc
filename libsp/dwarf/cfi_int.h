/* SPDX-License-Identifier: MIT */
#ifndef SP_CFI_INT_H
#define SP_CFI_INT_H

/*
 * DWARF call frame information (DWARF 5 §6.4): parsing CIEs and FDEs of
 * .eh_frame and .debug_frame, running their CFA programs to the row for a
 * PC, and evaluating the DWARF expressions compilers and the x86-64 PLT
 * put there.  Everything works on caller-provided bytes and never reads
 * outside them; programs, expressions and their stacks are bounded.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/common/error.h"

/*
 * The DWARF registers a row tracks: numbers 0 to SPI_CFI_NREGS - 1, which
 * hold an architecture's general registers and its return-address
 * column.  The numbers are the architecture's (unwind/x86_64/: System V
 * ABI x86-64, fig. 3.36, 0-15 and the return address 16; unwind/aarch64/:
 * the AArch64 DWARF ABI, x0-x30 0-30 with the return address in x30, sp
 * 31, pc 32), and so is the check that the CIE's return-address column is
 * the one it uses: this parser knows none of them.  A rule for a register
 * past it is skipped; an expression that reads one fails.  A walk keeps
 * which registers it knows in a uint64_t: at most 64.
 */
#define SPI_CFI_NREGS 33

_Static_assert(SPI_CFI_NREGS <= 64, "a walk's valid bits hold every register");

#define SP_CFI_PROGRAM_MAX 65536 /* bytes of CFA program run per row */
#define SP_CFI_STATE_MAX 16      /* remember_state depth */
#define SP_EXPR_STACK_MAX 64
#define SP_EXPR_STEPS_MAX 1024

enum sp_cfi_rule_kind {
	SP_RULE_SAME,       /* same value (callee-saved, default) */
	SP_RULE_UNDEF,      /* undefined: for RA, the outermost frame */
	SP_RULE_OFFSET,     /* saved at CFA + off */
	SP_RULE_VAL_OFFSET, /* value is CFA + off */
	SP_RULE_REG,        /* value is in register reg */
	SP_RULE_EXPR,       /* saved at the address expr computes */
	SP_RULE_VAL_EXPR,   /* value is what expr computes */
};

struct sp_cfi_rule {
	uint8_t kind;
	uint8_t reg;
	int64_t off;
	const uint8_t *expr;
	size_t expr_len;
};

struct sp_cfi_row {
	/* CFA = reg + off, or (cfa_expr != NULL) the expression's value. */
	uint8_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *cfa_expr;
	size_t cfa_expr_len;
	struct sp_cfi_rule regs[SPI_CFI_NREGS];
	uint8_t ra;         /* the CIE's return-address column */
	/* AArch64: the return address is signed with a pointer
	 * authentication code (DW_CFA_AARCH64_negate_ra_state toggles it). */
	uint8_t ra_signed;
	int signal_frame;   /* the CIE has augmentation 'S' */
	uint64_t pc_begin, pc_end; /* the FDE's range */
};

/*
 * Where a CFI section lives: its bytes and the address its first byte has
 * in the ELF image (for pc-relative pointers), plus the .eh_frame_hdr or
 * GOT address for data-relative ones.  debug_frame selects .debug_frame
 * conventions (CIE id 0xffffffff, CIE pointers from the section start,
 * absolute addresses).
 */
struct sp_cfi_section {
	const uint8_t *data;
	size_t len;
	uint64_t vaddr;
	uint64_t datarel_base;
	int debug_frame;
};

/*
 * Decodes a pointer of encoding enc (DW_EH_PE_*) at p[*pos], len bytes
 * in all, whose first byte has address base_vaddr + *pos.  Advances *pos.
 * Indirect pointers are returned as the address holding the pointer.
 * Returns 0 or -SP_EFORMAT.
 */
int spi_cfi_read_pointer(const uint8_t *p, size_t len, size_t *pos,
    uint8_t enc, uint64_t base_vaddr, uint64_t datarel, uint64_t *out);

/*
 * Parses the FDE at byte offset fde_off of sec and its CIE, then runs the
 * CIE's initial instructions and the FDE's instructions up to pc (an ELF
 * address), filling row.  Returns 0; -SP_ENOTFOUND when the entry is a
 * CIE, a terminator, or pc is outside the FDE; -SP_EFORMAT for malformed
 * bytes or -SP_ELIMIT past a bound, with diag (when not NULL) at fde_off
 * saying which part was bad.  If next is not NULL it gets the offset of
 * the following entry (0 at the end).
 */
int spi_cfi_row_at(const struct sp_cfi_section *sec, size_t fde_off,
    uint64_t pc, struct sp_cfi_row *row, size_t *next, struct sp_diag *diag);

/*
 * Reads the range [begin, end) of the FDE at fde_off without running its
 * program.  Returns 0, -SP_ENOTFOUND for a CIE, -SP_EFORMAT.  *next as
 * above: this is how a section is walked to build an index.
 */
int spi_cfi_fde_range(const struct sp_cfi_section *sec, size_t fde_off,
    uint64_t *begin, uint64_t *end, size_t *next);

/*
 * Evaluates the DWARF expression expr (DWARF 5 §2.5) with initial stack
 * value init (pushed when push_init), registers regs[SPI_CFI_NREGS] (valid
 * when bit i of valid is set) and a memory reader for DW_OP_deref.
 * Returns 0 and *out; -SP_EFORMAT for an unsupported or malformed
 * operation; -SP_ELIMIT past the stack or step bounds; the reader's error.
 */
int spi_dwarf_expr(const uint8_t *expr, size_t len, const uint64_t *regs,
    uint64_t valid, uint64_t init, int push_init,
    int (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx,
    uint64_t *out);

#endif
