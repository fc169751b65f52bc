/* SPDX-License-Identifier: MIT */
/*
 * The PLT stubs of x86-64 files (System V psABI x86-64 §5.2, "Procedure
 * Linkage Table"): which relocations fill a GOT slot a stub jumps
 * through, and what each stub's bytes say.  Chosen by the file's
 * e_machine, not the build's: a spool recorded here is symbolized
 * anywhere.
 */
#include <elf.h>
#include <string.h>

#include "common/cursor_int.h"
#include "elf/elfplt_int.h"

static int
wanted(uint32_t type)
{
	return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT ||
	    type == R_X86_64_IRELATIVE;
}

/*
 * Stub b[0..n) at addr: an optional endbr64, an optional bnd prefix (f2)
 * and "jmp *rel32(%rip)" (ff 25) lead to a GOT slot; in .plt, the first
 * entry's "pushq GOT+8(%rip)" (ff 35) is the lazy binding code, and a
 * lazy IBT stub's "push $i" (68) names the i-th relocation of .rela.plt.
 */
static enum spi_plt_to
stub(const uint8_t *b, size_t n, uint64_t addr, int lazy, int first,
    uint64_t *to)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t i = 0;

	if (lazy && first && n >= 2 && b[0] == 0xff && b[1] == 0x35)
		return SPI_PLT_HEAD;
	if (n >= sizeof(endbr64) && memcmp(b, endbr64, sizeof(endbr64)) == 0)
		i = sizeof(endbr64);
	if (i < n && b[i] == 0xf2)
		i++;
	if (i + 6 <= n && b[i] == 0xff && b[i + 1] == 0x25) {
		*to = addr + i + 6 + (uint64_t)(int64_t)(int32_t)sp_le32(b + i + 2);
		return SPI_PLT_SLOT;
	}
	if (lazy && i + 5 <= n && b[i] == 0x68) {
		*to = sp_le32(b + i + 1);
		return SPI_PLT_INDEX;
	}
	return SPI_PLT_NONE;
}

const struct spi_plt_arch spi_x86_64_plt = {
	.machine = EM_X86_64,
	.irelative = R_X86_64_IRELATIVE,
	.wanted = wanted,
	.stub = stub,
};
