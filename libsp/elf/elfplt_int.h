/* SPDX-License-Identifier: MIT */
#ifndef SP_ELFPLT_INT_H
#define SP_ELFPLT_INT_H

/*
 * PLT stubs as named code, for the symbol index (elfsym.c).  No symbol
 * covers a stub; objdump -d labels it, and perf names it, SYMBOL@plt
 * after the relocation of the GOT slot it jumps through.
 */

#include <stddef.h>
#include <stdint.h>

#include "common/buf_int.h"
#include "elffile_int.h"

/*
 * Bytes of PLT names made for a file whose dynamic string tables hold
 * strtab bytes, with stubs stubs: an honest file names each stub once
 * (a lazy IBT binary twice, in .plt and .plt.sec), each name from the
 * string table; the stubs past the budget stay unnamed.  The cap keeps a
 * crafted file (every stub naming one long string) from costing stubs
 * times that string.
 */
#define SPI_ELF_PLT_NAMES_MAX(strtab, stubs) \
	(4 * (uint64_t)(strtab) + 64 * (uint64_t)(stubs))

struct spi_plt_stub {
	uint64_t start, size;
	size_t name;            /* offset of its NUL-terminated name in names */
	uint16_t shndx;
};

struct spi_plt {
	struct spi_plt_stub *v;
	size_t n, cap;
	struct sp_buf names;
	int budget_hit;         /* stubs were left unnamed for the budget */
};

/*
 * Fills p (zeroed by the caller; spi_elf_plt_fini frees it, also after a
 * failure) with the named stubs of f's .plt, .plt.sec and .plt.got, for
 * x86-64 files (System V psABI x86-64 §5.2, "Procedure Linkage Table";
 * other machines give none).  Each stub is decoded: its "jmp
 * *slot(%rip)" (after endbr64 and a bnd prefix) names the GOT slot, the
 * dynamic relocation of that slot (R_X86_64_JUMP_SLOT, GLOB_DAT) its
 * symbol, which gives "SYMBOL@plt"; an R_X86_64_IRELATIVE slot is named
 * after at(ctx, addend), the IFUNC whose resolver the addend is, when
 * at knows it.  A lazy IBT stub of .plt ("push $i") is the i-th
 * relocation of .rela.plt's.  The head of .plt, the lazy binding code,
 * is ".plt".  Stubs that decode to nothing stay out.  Returns 0,
 * -SP_ELIMIT (more than SP_ELF_SYMS_MAX relocations), another error of
 * reading a section, or -ENOMEM.
 */
int spi_elf_plt_read(struct sp_elf_file *f,
    const char *(*at)(void *ctx, uint64_t addr), void *ctx,
    struct spi_plt *p);

void spi_elf_plt_fini(struct spi_plt *p);

#endif
