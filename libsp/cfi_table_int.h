/* SPDX-License-Identifier: MIT */
#ifndef SP_CFI_TABLE_INT_H
#define SP_CFI_TABLE_INT_H

/* One ELF file's call frame information, indexed for lookups by PC. */

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "sp/cfi.h"

#define SP_CFI_LOADS_MAX 16

struct sp_cfi_table {
	int fd;
	Elf *elf;
	struct sp_cfi_section eh, dbg;
	uint64_t got;
	struct fde_ix *ix;       /* sorted by begin */
	size_t n, cap;
	size_t bad_entries;      /* malformed entries skipped */
	struct {
		uint64_t offset, vaddr, filesz;
	} loads[SP_CFI_LOADS_MAX];
	size_t nloads;
};

/*
 * Reads the CFI of the ELF file on fd, which the table owns from then on
 * (closed on failure too).  Returns 0, -SP_EFORMAT for a file that is not
 * ELF, -SP_ELIMIT, -ENOMEM.  A file without CFI gives an empty table.
 */
int sp_cfi_table_open(int fd, struct sp_cfi_table **out);
void sp_cfi_table_free(struct sp_cfi_table *t);

/* The ELF address of file offset off (through the PT_LOAD segments). */
int sp_cfi_table_vaddr(const struct sp_cfi_table *t, uint64_t off,
    uint64_t *vaddr);

/* The row for ELF address pc: 0, -SP_ENOTFOUND (no FDE), or an error. */
int sp_cfi_table_row(const struct sp_cfi_table *t, uint64_t pc,
    struct sp_cfi_row *row);

#endif
