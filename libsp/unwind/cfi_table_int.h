/* SPDX-License-Identifier: MIT */
#ifndef SP_CFI_TABLE_INT_H
#define SP_CFI_TABLE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf/cfi_int.h"

/*
 * One ELF file's call frame information, indexed for lookups by PC: its
 * .eh_frame (through .eh_frame_hdr's table when it has the usual
 * encoding) and its .debug_frame.  Sections past the bounds of
 * sp/elffile.h or SP_CFI_SECTION_MAX are not read, and counted
 * (spi_cfi_table_stats).
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
int spi_cfi_table_open(struct sp_elf_file *f, struct sp_cfi_table **out);

/* Frees t and its file.  NULL ok. */
void spi_cfi_table_free(struct sp_cfi_table *t);

/* The file t was read from, owned by t. */
const struct sp_elf_file *spi_cfi_table_file(const struct sp_cfi_table *t);

/*
 * The ELF address where an executable mapping of t's file at offset off
 * begins (spi_elf_file_exec_vaddr): the mapping's start less it is the load
 * bias.  Returns 0 with *vaddr, or -SP_ENOTFOUND.
 */
int spi_cfi_table_vaddr(const struct sp_cfi_table *t, uint64_t off,
    uint64_t *vaddr);

/* Whether the table has no FDE at all: 1 or 0. */
int spi_cfi_table_empty(const struct sp_cfi_table *t);

/* Most functions a table knows the stack to switch in. */
#define SP_CFI_STACK_ENDS_MAX 16

/* What spi_cfi_table_stack_end says of a pc. */
#define SPI_END_ROOT 1    /* a stack starts here: the walk is whole */
#define SPI_END_SWITCH 3  /* the stack was switched here: the caller is
                           * on another stack */

/*
 * Whether ELF address pc lies in a function where the stack being walked
 * began (SPI_END_ROOT: in a Go binary, runtime.goexit, mstart and rt0_go)
 * or was switched to, so that its caller is on another stack
 * (SPI_END_SWITCH: runtime.systemstack, mcall, morestack, asmcgocall,
 * sigtramp, and the vDSO calls of nanotime1, walltime and time.now),
 * found by name in its symbol table when the table is opened
 * (none when it is stripped).  0 elsewhere.
 */
int spi_cfi_table_stack_end(const struct sp_cfi_table *t, uint64_t pc);

/*
 * Looks up the kernel's signal trampoline in t's symbols
 * (__kernel_rt_sigreturn, arm64's vdso: its CFI, where there is any,
 * skips the interrupted frame), for spi_cfi_table_sigreturn.  For the
 * vdso's table only: it loads the file's symbols.
 */
void spi_cfi_table_find_sigreturn(struct sp_cfi_table *t);

/* Whether ELF address pc lies in that trampoline: 1 or 0. */
int spi_cfi_table_sigreturn(const struct sp_cfi_table *t, uint64_t pc);
/* Whether ELF address pc is where that trampoline ends: right after its
 * svc, the pc of a sample taken in the rt_sigreturn it makes.  1 or 0. */
int spi_cfi_table_sigreturn_end(const struct sp_cfi_table *t, uint64_t pc);

/* What a table holds, for counters and tests. */
struct spi_cfi_table_stats {
	size_t hdr_entries;       /* .eh_frame_hdr's table, when used */
	size_t indexed;           /* FDEs in the table's own index */
	size_t eh_frame_bytes;
	size_t debug_frame_bytes;
	size_t bad_entries;       /* malformed entries skipped */
	size_t refused;           /* CFI sections past a bound, not read */
};

void spi_cfi_table_stats(const struct sp_cfi_table *t,
    struct spi_cfi_table_stats *out);

/*
 * The row for ELF address pc.  Returns 0, -SP_ENOTFOUND (no FDE covers
 * pc), -SP_EFORMAT when the CIE's return-address column is not this
 * architecture's (SPI_DW_RA), or an error of spi_cfi_row_at.
 */
int spi_cfi_table_row(const struct sp_cfi_table *t, uint64_t pc,
    struct sp_cfi_row *row);

#endif
