/* SPDX-License-Identifier: MIT */
#ifndef SP_ELFFILE_INT_H
#define SP_ELFFILE_INT_H

/* The inside of an opened ELF file, for the modules that index it. */

#include <errno.h>
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf/elf_int.h"

/* A section's bytes once read (libelf owns them until elf_end). */
struct sp_elf_sec {
	const uint8_t *data;
	size_t len;
	int err;            /* 0 not read yet, 1 read, else the error */
};

struct sp_elf_file {
	int fd;                     /* -1 for an image in memory */
	uint8_t *mem;               /* libelf's copy of that image, whose
	                             * headers it edits when it inflates */
	uint8_t *image;             /* the image as given, for reads */
	uint64_t size;
	uint64_t section_max;       /* SP_ELF_SECTION_MAX, or lowered */
	char *path;
	dev_t dev;
	ino_t ino;
	Elf *elf;
	GElf_Shdr *sh;              /* the section headers, as libelf read them */
	struct sp_elf_sec *sec;     /* one per section, read on demand */
	size_t shnum;
	size_t shstrndx;            /* 0: no section names */
	GElf_Phdr *ph;
	size_t phnum;
	uint8_t build_id[SP_ELF_BUILD_ID_MAX];
	size_t build_id_len;        /* 0: none */
};

/*
 * libelf's error for a failed allocation: ELF_E_NOMEM of elfutils'
 * private libelfP.h, whose elf_errmsg is "out of memory" (checked by
 * tests/unit/elfsym.c against the libelf we build).
 */
#define SPI_ELF_E_NOMEM 8

/*
 * The error of libelf's last failure, for our callers: -ENOMEM when it
 * ran out of memory (so a tool says so instead of skipping the file as
 * malformed), else -SP_EFORMAT.
 */
static inline int
spi_elf_error(void)
{
	return elf_errno() == SPI_ELF_E_NOMEM ? -ENOMEM : -SP_EFORMAT;
}

/*
 * The bytes of section i (inflated when compressed), as
 * spi_elf_file_section.  i must be below f->shnum.
 */
int spi_elf_section_at(struct sp_elf_file *f, size_t i,
    const uint8_t **data, size_t *len);

/* The index of the first section named name, or f->shnum. */
size_t spi_elf_section_find(const struct sp_elf_file *f, const char *name);

/* Whether [off, off + len) lies inside the file. */
static inline int
spi_elf_in_file(const struct sp_elf_file *f, uint64_t off, uint64_t len)
{
	return len <= f->size && off <= f->size - len;
}

#endif
