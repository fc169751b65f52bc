/* SPDX-License-Identifier: MIT */
/*
 * The PLT stubs of AArch64 files (ELF for the Arm 64-bit Architecture,
 * "Procedure Linkage Table"): each stub loads its GOT slot's address
 * into x16 with adrp and ldr x17 from it, then branches to x17; .plt's
 * first entry saves x16 and x30 for the lazy binder.  Chosen by the
 * file's e_machine, not the build's.
 */
#include <elf.h>

#include "common/cursor_int.h"
#include "elf/elfplt_int.h"

/* musl's elf.h lacks it (the AArch64 ELF ABI's number). */
#ifndef R_AARCH64_IRELATIVE
#define R_AARCH64_IRELATIVE 1032
#endif

#define A64_BTI_C 0xd503245fu
#define A64_STP_X16_X30_PRE 0xa9bf7bf0u  /* stp x16, x30, [sp, #-16]! */

static int
wanted(uint32_t type)
{
	return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT ||
	    type == R_AARCH64_IRELATIVE;
}

/* Stub b[0..n) at addr: an optional "bti c", then "adrp x16, PAGE" and
 * "ldr x17, [x16, #OFF]": the slot is PAGE + OFF. */
static enum spi_plt_to
stub(const uint8_t *b, size_t n, uint64_t addr, int lazy, int first,
    uint64_t *to)
{
	uint32_t adrp, ldr;
	uint64_t imm;
	size_t i = 0;

	if (lazy && first && n >= 4 && sp_le32(b) == A64_STP_X16_X30_PRE)
		return SPI_PLT_HEAD;
	if (n >= 4 && sp_le32(b) == A64_BTI_C)
		i = 4;
	if (i + 8 > n)
		return SPI_PLT_NONE;
	adrp = sp_le32(b + i);
	ldr = sp_le32(b + i + 4);
	if ((adrp & 0x9f00001fu) != 0x90000010u ||   /* adrp x16 */
	    (ldr & 0xffc003ffu) != 0xf9400211u)      /* ldr x17, [x16, #] */
		return SPI_PLT_NONE;
	/* immhi:immlo, 21 bits signed, in pages. */
	imm = (uint64_t)((adrp >> 5) & 0x7ffff) << 2 | ((adrp >> 29) & 3);
	imm = (uint64_t)((int64_t)(imm << 43) >> 43) << 12;
	*to = ((addr + i) & ~0xfffull) + imm + (uint64_t)((ldr >> 10) & 0xfff) * 8;
	return SPI_PLT_SLOT;
}

const struct spi_plt_arch spi_aarch64_plt = {
	.machine = EM_AARCH64,
	.irelative = R_AARCH64_IRELATIVE,
	.wanted = wanted,
	.stub = stub,
};
