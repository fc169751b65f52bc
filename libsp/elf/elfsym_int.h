/* SPDX-License-Identifier: MIT */
#ifndef SP_ELFSYM_INT_H
#define SP_ELFSYM_INT_H

/*
 * An ELF file's function symbols and PLT stubs, indexed by address: what
 * names a frame when there is no DWARF.
 */

#include <stddef.h>
#include <stdint.h>

#include "elf/elf_int.h"

/* Most symbol table entries read from one file (both tables). */
#define SP_ELF_SYMS_MAX ((size_t)16 << 20)
/* How many enclosing symbols a lookup tries when the nearest symbol
 * below an address ends before it (nested or overlapping symbols). */
#define SP_ELF_SYMS_NEST_MAX 16

struct sp_elf_syms;

/*
 * Indexes the function symbols of f: STT_FUNC, STT_GNU_IFUNC, and
 * STT_NOTYPE in sections with SHF_EXECINSTR, defined in a section (not
 * SHN_UNDEF, SHN_ABS, ...) and with a name, from .symtab (SHT_SYMTAB)
 * and .dynsym (SHT_DYNSYM) together.  Symbols at the same address are
 * aliases and resolve to one name, chosen deterministically: STB_GLOBAL
 * (or STB_GNU_UNIQUE) over STB_WEAK over STB_LOCAL, then fewer leading
 * underscores, then the shorter name, then strcmp order.  The group
 * covers [value, value + size) with the largest size of its members; a
 * group of zero-size symbols covers up to the next symbol, and at most
 * to the end of its section.
 *
 * A table in SHT_NOBITS (as in a debug file's .dynsym), or whose string
 * table is, is skipped.
 *
 * PLT stubs, which no symbol covers, are named as objdump -d labels them
 * and perf names them: "SYMBOL@plt" after the dynamic relocation of the
 * GOT slot each stub of .plt, .plt.sec or .plt.got jumps through (an
 * R_X86_64_IRELATIVE slot after the IFUNC symbol at its addend), ".plt"
 * for the lazy binding code at the head of .plt.  x86-64 files only; a
 * symbol at a stub's address wins.  A PLT that cannot be read (malformed
 * relocations, -SP_ELIMIT) leaves the stubs unnamed, not the symbols; a
 * crafted file's names are capped (elfplt_int.h).
 *
 * Returns 0 with *out (also when f has no symbols: an empty index),
 * -SP_EFORMAT (a table outside the file, an entry size other than 24,
 * or a string table link that is not a section), -SP_ELIMIT (more than
 * SP_ELF_SYMS_MAX entries), another error of spi_elf_file_section, or
 * -ENOMEM.  Names point into f's string tables: s must be freed before f.
 */
int spi_elf_syms_load(struct sp_elf_file *f, struct sp_elf_syms **out);

void spi_elf_syms_free(struct sp_elf_syms *s);

/*
 * The name of the symbol containing ELF address vaddr (binary search),
 * with *start (may be NULL) set to its address; NULL when no symbol
 * contains vaddr.  Where symbols nest, the innermost one that contains
 * vaddr, looking at most SP_ELF_SYMS_NEST_MAX levels out.  The name is
 * NUL-terminated and valid while f and s live.
 */
const char *spi_elf_syms_find(const struct sp_elf_syms *s, uint64_t vaddr,
    uint64_t *start);

/* How many address groups (one name each) the index holds. */
size_t spi_elf_syms_count(const struct sp_elf_syms *s);

/*
 * The range [*start, *end) of the symbol that a group resolves to under
 * name (a linear scan: for a few names, not per frame).  Returns 0, or
 * -SP_ENOTFOUND (absent, or an alias that lost to another name).
 */
int spi_elf_syms_named(const struct sp_elf_syms *s, const char *name,
    uint64_t *start, uint64_t *end);

#endif
