/* SPDX-License-Identifier: MIT */
#ifndef SP_ELFID_H
#define SP_ELFID_H

/* Identifying ELF files: the GNU build-id. */

#include <stddef.h>
#include <stdint.h>

/*
 * Reads the GNU build-id note (NT_GNU_BUILD_ID) of the ELF file open on
 * fd, from its PT_NOTE segments or, failing that, its SHT_NOTE sections.
 * Stores at most cap bytes in out and the length in *len.  Returns 0,
 * -SP_ENOTFOUND when the file has none, -SP_EFORMAT when it is not ELF.
 */
int sp_elf_build_id(int fd, uint8_t *out, size_t cap, size_t *len);

#endif
