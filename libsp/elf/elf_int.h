/* SPDX-License-Identifier: MIT */
#ifndef SP_ELF_INT_H
#define SP_ELF_INT_H

/*
 * One ELF file, opened for the recorder (build-id, CFI, load bias) and for
 * symbolization (symbols, DWARF, debuglink) alike: the only code in libsp
 * that opens ELF files.  It is built on libelf, opened with ELF_C_READ:
 * the file is read with pread(2) on demand, never mapped, so a file
 * truncated while open gives errors, not SIGBUS.
 *
 * Only ELFCLASS64 little-endian files are accepted (what x86-64 runs);
 * any e_machine and e_type are.  Before libelf is asked for anything it
 * allocates, the sizes the file states are bounded: the section and
 * program header tables must lie inside the file and hold at most
 * SP_ELF_SECTIONS_MAX and SP_ELF_SEGMENTS_MAX entries; a section must lie
 * inside the file and be at most SP_ELF_SECTION_MAX bytes, before and
 * after inflating (and claim no more than deflate can give).  libelf's
 * own bookkeeping at open is proportional to the file's size.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/common/error.h"

/* Largest section returned, after inflating: larger is -SP_ELIMIT. */
#define SP_ELF_SECTION_MAX ((uint64_t)512 << 20)
/* Most section headers a file may have (-SP_ELIMIT beyond). */
#define SP_ELF_SECTIONS_MAX 262144u
/* Most program headers a file may have (-SP_ELIMIT beyond). */
#define SP_ELF_SEGMENTS_MAX 4096u
/* Longest build-id kept; longer notes are ignored (SHA-1 ids have 20). */
#define SP_ELF_BUILD_ID_MAX 64

struct sp_elf_file;

/*
 * Opens the ELF file at path read-only.  Symlinks are followed (system
 * libraries are often reached through one), but only a regular file is
 * opened: anything else is -SP_EFORMAT before it is opened, so a FIFO
 * or device never blocks or reacts.  Returns 0 with *out set, -errno
 * (open, read), -SP_EFORMAT (not an ELF64 little-endian file, or its
 * header tables lie outside the file), -SP_ELIMIT (too many headers),
 * -ENOMEM.  diag (may be NULL) then names the reason and the offset.
 */
int spi_elf_file_open(const char *path, struct sp_elf_file **out,
    struct sp_diag *diag);

/*
 * As spi_elf_file_open, on the regular file open on fd, which f owns from
 * then on (it is closed on failure too).  spi_elf_file_path gives NULL.
 * The recorder opens a mapped file through /proc/PID/map_files this way.
 */
int spi_elf_file_open_fd(int fd, struct sp_elf_file **out,
    struct sp_diag *diag);

/*
 * As spi_elf_file_open, on a copy of the len bytes at p (a [vdso] read out
 * of a process, a fuzzer's input): the caller's bytes are not kept.
 */
int spi_elf_file_open_mem(const void *p, size_t len, struct sp_elf_file **out,
    struct sp_diag *diag);

/* Frees f and everything it returned (section bytes, names).  NULL ok. */
void spi_elf_file_free(struct sp_elf_file *f);

/*
 * Lowers the largest section f returns from then on, before and after
 * inflating, to max (SP_ELF_SECTION_MAX stays the most): a larger one is
 * -SP_ELIMIT.  The recorder's CFI tables keep to SP_CFI_SECTION_MAX.
 */
void spi_elf_file_limit_sections(struct sp_elf_file *f, uint64_t max);

/* The path f was opened from, or NULL for an image in memory. */
const char *spi_elf_file_path(const struct sp_elf_file *f);

/*
 * The GNU build-id (NT_GNU_BUILD_ID note, from a PT_NOTE segment or else
 * an SHT_NOTE section), read at open.  Returns 0 with *id (valid until
 * spi_elf_file_free) and *len, or -SP_ENOTFOUND.
 */
int spi_elf_file_build_id(const struct sp_elf_file *f, const uint8_t **id,
    size_t *len);

/*
 * The bytes of the first section named name.  A section with
 * SHF_COMPRESSED is inflated (gABI "Compressed Sections",
 * ELFCOMPRESS_ZLIB, with zlib).  The bytes are owned by f, read once and
 * kept until spi_elf_file_free.  Returns 0 with *data, *len (an empty
 * section gives len 0), -SP_ENOTFOUND (absent, SHT_NOBITS, or f has no
 * section names), -SP_EFORMAT (outside the file; a compressed section
 * that is malformed, does not inflate to exactly its stated size, or
 * uses another algorithm such as ELFCOMPRESS_ZSTD), -SP_ELIMIT (larger
 * than SP_ELF_SECTION_MAX, before or after inflating), -errno, -ENOMEM.
 */
int spi_elf_file_section(struct sp_elf_file *f, const char *name,
    const uint8_t **data, size_t *len);

/*
 * The address (sh_addr) of the first section named name.  Returns 0
 * with *addr, or -SP_ENOTFOUND.  Reads no section data.
 */
int spi_elf_file_section_addr(const struct sp_elf_file *f, const char *name,
    uint64_t *addr);

/*
 * Whether f has a section named name with bytes in the file (not
 * SHT_NOBITS): 1 or 0.  Reads no section data.
 */
int spi_elf_file_has_section(const struct sp_elf_file *f, const char *name);

/*
 * How section name is stored, read from its header and, when it has
 * SHF_COMPRESSED, from the compression header before its bytes (gABI
 * "Compressed Sections"): *stored its size in the file, *size its size
 * once read (ch_size, inflated), *compressed 1 or 0.  Inflates nothing.
 * Returns 0, -SP_ENOTFOUND (absent, SHT_NOBITS), -SP_EFORMAT (a
 * compression header outside the file, or not a 64-bit little-endian
 * file's: only those are described), -SP_ELIMIT (it inflates to more
 * than spi_elf_file_section would read).
 */
int spi_elf_file_section_shape(const struct sp_elf_file *f, const char *name,
    uint64_t *stored, uint64_t *size, int *compressed);

/*
 * Whether f can name functions on its own: it has a .symtab or a
 * .debug_info with bytes in the file (a debug file candidate).  1 or 0.
 */
int spi_elf_file_has_debug(const struct sp_elf_file *f);

/*
 * The .gnu_debuglink section: a file name, NUL-terminated and padded to
 * 4 bytes, then the CRC-32 of the debug file (GDB manual, "Debugging
 * Information in Separate Files").  Returns 0 with *name (owned by f)
 * and *crc, -SP_ENOTFOUND, -SP_EFORMAT (unterminated, no room for the
 * CRC, an empty name, ".", "..", or a name with '/': the link names a
 * file, never a path), or an error of spi_elf_file_section.
 */
int spi_elf_file_debuglink(struct sp_elf_file *f, const char **name,
    uint32_t *crc);

/*
 * The entry point (e_entry) of an executable: ET_EXEC, or ET_DYN with an
 * interpreter (PT_INTERP) and no DT_SONAME, a position-independent
 * executable; a shared library that can also run (libc.so.6) is not one.
 * Returns 0 with *entry, or -SP_ENOTFOUND.
 */
int spi_elf_file_entry(struct sp_elf_file *f, uint64_t *entry);

/*
 * Reads up to len bytes at file offset off into buf, fewer where the file
 * ends (as it was when opened).  Returns how many were read: 0 past the
 * end, or when a read fails (the file shrank since).
 */
size_t spi_elf_file_read(const struct sp_elf_file *f, uint64_t off, void *buf,
    size_t len);

/*
 * The CRC-32 (ISO-HDLC, as zlib's crc32 and .gnu_debuglink use) of the
 * whole file, read in chunks.  Returns 0 with *crc, or -errno.
 */
int spi_elf_file_crc32(const struct sp_elf_file *f, uint32_t *crc);

/*
 * The ELF virtual address of file offset off, through the PT_LOAD
 * program headers (the first whose file bytes contain off).  Returns 0
 * with *vaddr, or -SP_ENOTFOUND.  A separate debug file made by
 * objcopy --only-keep-debug has no file bytes in its segments: map
 * offsets through the binary, whose addresses the debug file shares.
 */
int spi_elf_file_vaddr(const struct sp_elf_file *f, uint64_t off,
    uint64_t *vaddr);

/*
 * The ELF virtual address where an executable mapping of f at file offset
 * off begins (the mapping's start less it is the load bias).  The kernel
 * maps a segment from the page that holds its first byte, so off may lie
 * up to a page below p_offset, inside the segment before it when a linker
 * packs segments (lld: R at 0, R E at 0x17f70 mapped from 0x17000): the
 * PT_LOAD with PF_X whose pages hold off is taken, else the first whose
 * file bytes contain it (spi_elf_file_vaddr).  The page is this host's
 * (the mapping is live here).  Returns 0 with *vaddr, or -SP_ENOTFOUND.
 */
int spi_elf_file_exec_vaddr(const struct sp_elf_file *f, uint64_t off,
    uint64_t *vaddr);

/*
 * Whether f is the same file as the one open on g (same device and
 * inode; for images in memory, the same object).  1 or 0.
 */
int spi_elf_file_same(const struct sp_elf_file *f, const struct sp_elf_file *g);

#endif
