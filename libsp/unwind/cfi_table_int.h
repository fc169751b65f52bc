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
	int fd;                  /* -1 for an image in memory */
	void *image;             /* that image, owned */
	Elf *elf;
	struct sp_cfi_section eh, dbg, hdr_sec;
	uint64_t got;
	const uint8_t *hdr;      /* .eh_frame_hdr's search table, or NULL */
	size_t hdr_count;
	uint64_t hdr_vaddr;
	struct fde_ix *ix;       /* sorted by begin: FDEs the table lacks */
	size_t n, cap;
	size_t bad_entries;      /* malformed entries skipped */
	size_t refused;          /* CFI sections past a bound, not read */
	uint64_t fsize;          /* the file's (or image's) size */
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
/* As sp_cfi_table_open, on an ELF image in memory (a [vdso] read out of
 * a process), a malloc'd buffer the table owns from then on. */
int sp_cfi_table_open_mem(void *image, size_t len, struct sp_cfi_table **out);
void sp_cfi_table_free(struct sp_cfi_table *t);

/* The ELF address of file offset off (through the PT_LOAD segments). */
int sp_cfi_table_vaddr(const struct sp_cfi_table *t, uint64_t off,
    uint64_t *vaddr);

/* Whether the table has no FDE at all. */
int sp_cfi_table_empty(const struct sp_cfi_table *t);

/* The row for ELF address pc: 0, -SP_ENOTFOUND (no FDE), or an error. */
int sp_cfi_table_row(const struct sp_cfi_table *t, uint64_t pc,
    struct sp_cfi_row *row);

#endif
