/* SPDX-License-Identifier: MIT */
#ifndef SP_ELFFILE_INT_H
#define SP_ELFFILE_INT_H

/* The inside of an opened ELF file, for the modules that index it. */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp/elffile.h"

/* gABI values this library uses (elf.h spells them the same way). */
#define SP_SHT_SYMTAB 2
#define SP_SHT_NOTE 7
#define SP_SHT_NOBITS 8
#define SP_SHT_DYNSYM 11
#define SP_SHF_EXECINSTR 0x4
#define SP_SHF_COMPRESSED 0x800
#define SP_PT_LOAD 1
#define SP_PT_NOTE 4

/* A section header (gABI Elf64_Shdr), decoded. */
struct sp_elf_shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, addralign, entsize;
};

/* A program header (gABI Elf64_Phdr), decoded. */
struct sp_elf_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

/* A section's bytes once read: in the image, or owned. */
struct sp_elf_sec {
	const uint8_t *data;
	size_t len;
	uint8_t *owned;     /* what to free: read from the fd or inflated */
	int err;            /* 0 not read yet, 1 read, else the error */
};

struct sp_elf_file {
	int fd;                     /* -1 for an image in memory */
	const uint8_t *mem;         /* that image */
	uint64_t size;
	char *path;
	dev_t dev;
	ino_t ino;
	struct sp_elf_shdr *sh;
	struct sp_elf_sec *sec;     /* one per section, read on demand */
	size_t shnum;
	size_t shstrndx;            /* 0: no section names */
	struct sp_elf_phdr *ph;
	size_t phnum;
	uint8_t build_id[SP_ELF_BUILD_ID_MAX];
	size_t build_id_len;        /* 0: none */
};

/*
 * The bytes of section i (inflated when compressed), as
 * sp_elf_file_section.  i must be below f->shnum.
 */
int sp_elf_file_section_at(struct sp_elf_file *f, size_t i,
    const uint8_t **data, size_t *len);

/* Reads len bytes at off of the file into buf: 0, -SP_EFORMAT (outside
 * the file), -errno. */
int sp_elf_file_read(const struct sp_elf_file *f, uint64_t off, void *buf,
    size_t len);

#endif
