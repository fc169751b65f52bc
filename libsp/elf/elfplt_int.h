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

/* What a stub's bytes lead to (struct spi_plt_arch's stub). */
enum spi_plt_to {
	SPI_PLT_NONE,           /* not a stub of a known form */
	SPI_PLT_SLOT,           /* *to: the GOT slot it jumps through */
	SPI_PLT_INDEX,          /* *to: the index of its .rela.plt relocation */
	SPI_PLT_HEAD,           /* the lazy binding code: .plt's first entry */
};

/* A machine's PLT: the relocations of the GOT slots stubs jump through,
 * and the stubs' forms.  One per folder of elf/, by machine. */
struct spi_plt_arch {
	uint16_t machine;       /* e_machine */
	uint32_t irelative;     /* the IFUNC slot's type: named by its addend */
	int (*wanted)(uint32_t type);   /* a GOT slot's relocation type */
	/* Stub b[0..n) at addr, in .plt (lazy) or not, the section's
	 * first entry (first) or not. */
	enum spi_plt_to (*stub)(const uint8_t *b, size_t n, uint64_t addr,
	    int lazy, int first, uint64_t *to);
};

extern const struct spi_plt_arch spi_x86_64_plt;       /* x86_64/ */
extern const struct spi_plt_arch spi_aarch64_plt;      /* aarch64/ */

/*
 * Fills p (zeroed by the caller; spi_elf_plt_fini frees it, also after a
 * failure) with the named stubs of f's .plt, .plt.sec and .plt.got, for
 * the machines of spi_plt_arch (others give none).  Each stub is decoded
 * by its machine's forms to the GOT slot it jumps through, the dynamic
 * relocation of that slot to its symbol, which gives "SYMBOL@plt"; an
 * IFUNC slot is named after at(ctx, addend), the function whose resolver
 * the addend is, when at knows it.  A lazy stub that pushes an index
 * names the index-th relocation of .rela.plt.  The head of .plt, the
 * lazy binding code, is ".plt".  Stubs that decode to nothing stay out.  Returns 0,
 * -SP_ELIMIT (more than SP_ELF_SYMS_MAX relocations), another error of
 * reading a section, or -ENOMEM.
 */
int spi_elf_plt_read(struct sp_elf_file *f,
    const char *(*at)(void *ctx, uint64_t addr), void *ctx,
    struct spi_plt *p);

void spi_elf_plt_fini(struct spi_plt *p);

#endif
