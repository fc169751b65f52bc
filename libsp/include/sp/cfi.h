/* SPDX-License-Identifier: MIT */
#ifndef SP_CFI_H
#define SP_CFI_H

/*
 * DWARF call frame information (DWARF 5 §6.4): parsing CIEs and FDEs of
 * .eh_frame and .debug_frame, running their CFA programs to the row for a
 * PC, and evaluating the DWARF expressions compilers and the x86-64 PLT
 * put there.  Everything works on caller-provided bytes and never reads
 * outside them; programs, expressions and their stacks are bounded.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/error.h"

/* x86-64 DWARF register numbers (System V ABI, figure 3.36). */
enum sp_dwarf_reg {
	SP_DW_RAX, SP_DW_RDX, SP_DW_RCX, SP_DW_RBX, SP_DW_RSI, SP_DW_RDI,
	SP_DW_RBP, SP_DW_RSP, SP_DW_R8, SP_DW_R9, SP_DW_R10, SP_DW_R11,
	SP_DW_R12, SP_DW_R13, SP_DW_R14, SP_DW_R15, SP_DW_RA,
	SP_DW_NREGS
};

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
	struct sp_cfi_rule regs[SP_DW_NREGS];
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
int sp_cfi_read_pointer(const uint8_t *p, size_t len, size_t *pos,
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
int sp_cfi_row_at(const struct sp_cfi_section *sec, size_t fde_off,
    uint64_t pc, struct sp_cfi_row *row, size_t *next, struct sp_diag *diag);

/*
 * Reads the range [begin, end) of the FDE at fde_off without running its
 * program.  Returns 0, -SP_ENOTFOUND for a CIE, -SP_EFORMAT.  *next as
 * above: this is how a section is walked to build an index.
 */
int sp_cfi_fde_range(const struct sp_cfi_section *sec, size_t fde_off,
    uint64_t *begin, uint64_t *end, size_t *next);

/*
 * Evaluates the DWARF expression expr (DWARF 5 §2.5) with initial stack
 * value init (pushed when push_init), registers regs[SP_DW_NREGS] (valid
 * when bit i of valid is set) and a memory reader for DW_OP_deref.
 * Returns 0 and *out; -SP_EFORMAT for an unsupported or malformed
 * operation; -SP_ELIMIT past the stack or step bounds; the reader's error.
 */
int sp_dwarf_expr(const uint8_t *expr, size_t len, const uint64_t *regs,
    uint32_t valid, uint64_t init, int push_init,
    int (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx,
    uint64_t *out);

/*
 * One ELF file's call frame information, indexed for lookups by PC: its
 * .eh_frame (through .eh_frame_hdr's table when it has the usual
 * encoding) and its .debug_frame.  Sections past the bounds of
 * sp/elffile.h or SP_CFI_SECTION_MAX are not read, and counted
 * (sp_cfi_table_stats).
 */
struct sp_cfi_table;
struct sp_elf_file;

/*
 * Largest CFI section a table reads, before and after inflating: the
 * recorder holds a file's CFI while it is mapped, so a hostile file must
 * not make it hold more.  Real ones are far smaller (libLLVM-14's
 * .eh_frame is 4.8 MiB, Chromium's 0.4 MiB).
 */
#define SP_CFI_SECTION_MAX ((uint64_t)32 << 20)

/*
 * Reads the CFI of f, which the table owns from then on (freed on failure
 * too); its sections are read up to SP_CFI_SECTION_MAX.  Returns 0 with
 * *out, -SP_ELIMIT (more FDEs than any real binary has), -ENOMEM.  A
 * file without CFI gives an empty table.
 */
int sp_cfi_table_open(struct sp_elf_file *f, struct sp_cfi_table **out);

/* Frees t and its file.  NULL ok. */
void sp_cfi_table_free(struct sp_cfi_table *t);

/* The file t was read from, owned by t. */
const struct sp_elf_file *sp_cfi_table_file(const struct sp_cfi_table *t);

/*
 * The ELF address where an executable mapping of t's file at offset off
 * begins (sp_elf_file_exec_vaddr): the mapping's start less it is the load
 * bias.  Returns 0 with *vaddr, or -SP_ENOTFOUND.
 */
int sp_cfi_table_vaddr(const struct sp_cfi_table *t, uint64_t off,
    uint64_t *vaddr);

/* Whether the table has no FDE at all: 1 or 0. */
int sp_cfi_table_empty(const struct sp_cfi_table *t);

/* Most functions a table knows the stack to switch in. */
#define SP_CFI_STACK_ENDS_MAX 16

/*
 * Whether ELF address pc lies in a function where the stack being walked
 * began, or was switched to, so that its caller is on another stack: in
 * a Go binary, runtime.systemstack, mcall, morestack, asmcgocall, mstart,
 * rt0_go, sigtramp and goexit, found by name in its symbol table when the
 * table is opened (none when it is stripped).  1 or 0.
 */
int sp_cfi_table_stack_end(const struct sp_cfi_table *t, uint64_t pc);

/* What a table holds, for counters and tests. */
struct sp_cfi_table_stats {
	size_t hdr_entries;       /* .eh_frame_hdr's table, when used */
	size_t indexed;           /* FDEs in the table's own index */
	size_t eh_frame_bytes;
	size_t debug_frame_bytes;
	size_t bad_entries;       /* malformed entries skipped */
	size_t refused;           /* CFI sections past a bound, not read */
};

void sp_cfi_table_stats(const struct sp_cfi_table *t,
    struct sp_cfi_table_stats *out);

/*
 * The row for ELF address pc.  Returns 0, -SP_ENOTFOUND (no FDE covers
 * pc), or an error of sp_cfi_row_at.
 */
int sp_cfi_table_row(const struct sp_cfi_table *t, uint64_t pc,
    struct sp_cfi_row *row);

#endif
