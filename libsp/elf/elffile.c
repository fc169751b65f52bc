/* SPDX-License-Identifier: MIT */
/*
 * One ELF file, through libelf: opened with ELF_C_READ (read with pread
 * on demand, never mapped), its header and header tables checked against
 * the file's size and our limits before libelf is asked for them; the
 * build-id, PT_LOAD offset to address, the whole file's CRC.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/cursor_int.h"
#include "elffile_int.h"

#define NOTES_MAX ((size_t)1 << 20) /* note bytes read per file, at most */
#define NAMES_MAX ((uint64_t)1 << 20) /* the section name table, at most */

static int read_exact(const struct sp_elf_file *f, uint64_t off, void *buf,
    size_t len);
#define CRC_CHUNK ((size_t)1 << 16)

/* A libelf call failed: its error (spi_elf_error) and message. */
static int
lib_fail(struct sp_diag *d, uint64_t off, const char *what)
{
	int e = elf_errno();

	return sp_diag_set(d, off, e == SPI_ELF_E_NOMEM ? -ENOMEM : -SP_EFORMAT,
	    "%s: %s", what, elf_errmsg(e));
}

/* e_ident: ELFCLASS64, ELFDATA2LSB, EV_CURRENT: what x86-64 runs. */
static int
check_ident(struct sp_elf_file *f, struct sp_diag *d)
{
	const unsigned char *id;
	size_t n;

	if (f->elf == NULL && f->size >= sizeof(Elf64_Ehdr))
		return lib_fail(d, 0, "ELF header");
	if (f->elf == NULL || elf_kind(f->elf) != ELF_K_ELF ||
	    (id = (const unsigned char *)elf_getident(f->elf, &n)) == NULL ||
	    n < EI_NIDENT)
		return sp_diag_set(d, 0, -SP_EFORMAT, "%s",
		    f->size < sizeof(Elf64_Ehdr) ?
		    "shorter than an ELF header" : "not ELF (bad magic)");
	if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB ||
	    id[EI_VERSION] != EV_CURRENT)
		return sp_diag_set(d, EI_CLASS, -SP_EFORMAT,
		    "ELF class %u data %u version %u: only 64-bit "
		    "little-endian version 1 is read", id[EI_CLASS],
		    id[EI_DATA], id[EI_VERSION]);
	if (f->size < sizeof(Elf64_Ehdr))
		return sp_diag_set(d, 0, -SP_EFORMAT, "shorter than an ELF header");
	return 0;
}

/*
 * The section header table.  libelf pretends a table that does not fit
 * the file is absent (elf_getshdrnum 0): a file that places one is then
 * malformed.  libelf assumes entries of sizeof(Elf64_Shdr).
 */
static int
read_sections(struct sp_elf_file *f, const GElf_Ehdr *eh, struct sp_diag *d)
{
	size_t n, i;

	if (elf_getshdrnum(f->elf, &n) != 0)
		return lib_fail(d, 60, "section count");
	if (n == 0 && eh->e_shoff == 0)
		return 0;
	if (n == 0 || !spi_elf_in_file(f, eh->e_shoff, (uint64_t)n *
	    sizeof(Elf64_Shdr)))
		return sp_diag_set(d, eh->e_shoff, -SP_EFORMAT, "section header "
		    "table at 0x%llx does not fit the file (%llu bytes)",
		    (unsigned long long)eh->e_shoff,
		    (unsigned long long)f->size);
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return sp_diag_set(d, 58, -SP_EFORMAT,
		    "section header entries of %u bytes", eh->e_shentsize);
	if (n > SP_ELF_SECTIONS_MAX)
		return sp_diag_set(d, 60, -SP_ELIMIT, "%zu section headers "
		    "(limit %u)", n, SP_ELF_SECTIONS_MAX);
	f->sh = calloc(n, sizeof(*f->sh));
	f->sec = calloc(n, sizeof(*f->sec));
	if (f->sh == NULL || f->sec == NULL)
		return -ENOMEM;
	f->shnum = n;
	for (i = 0; i < n; i++)
		if (gelf_getshdr(elf_getscn(f->elf, i), &f->sh[i]) == NULL)
			return lib_fail(d, eh->e_shoff, "section header table");
	return 0;
}

/*
 * The program header table.  elf_getphdrnum trims a table that runs past
 * the end of the file to what fits; here that is an error, so the count
 * is taken as the header states it (gABI "Extended Section Header
 * Numbering": PN_XNUM, the count in section 0's sh_info).
 */
static int
read_segments(struct sp_elf_file *f, const GElf_Ehdr *eh, struct sp_diag *d)
{
	size_t n = eh->e_phnum, i;

	if (n == PN_XNUM && f->shnum > 0)
		n = f->sh[0].sh_info;
	if (eh->e_phoff == 0 || n == 0)
		return 0;
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return sp_diag_set(d, 54, -SP_EFORMAT,
		    "program header entries of %u bytes", eh->e_phentsize);
	if (!spi_elf_in_file(f, eh->e_phoff, (uint64_t)n * sizeof(Elf64_Phdr)))
		return sp_diag_set(d, eh->e_phoff, -SP_EFORMAT, "program header "
		    "table: %zu entries at 0x%llx do not fit the file (%llu "
		    "bytes)", n, (unsigned long long)eh->e_phoff,
		    (unsigned long long)f->size);
	if (n > SP_ELF_SEGMENTS_MAX)
		return sp_diag_set(d, 56, -SP_ELIMIT, "%zu program headers "
		    "(limit %u)", n, SP_ELF_SEGMENTS_MAX);
	f->ph = calloc(n, sizeof(*f->ph));
	if (f->ph == NULL)
		return -ENOMEM;
	f->phnum = n;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(f->elf, (int)i, &f->ph[i]) == NULL)
			return lib_fail(d, eh->e_phoff, "program header table");
	return 0;
}

/* Section names must come from a readable string table when there is one. */
static int
read_names(struct sp_elf_file *f, struct sp_diag *d)
{
	const uint8_t *p;
	size_t len, ndx;
	uint64_t max;
	int err;

	if (f->shnum == 0)
		return 0;
	if (elf_getshdrstrndx(f->elf, &ndx) != 0)
		return lib_fail(d, 62, "section name table");
	if (ndx == 0)
		return 0;
	if (ndx >= f->shnum)
		return sp_diag_set(d, 62, -SP_EFORMAT, "section name table %zu of "
		    "%zu sections", ndx, f->shnum);
	/* Held while f is open, for every file: no larger than names need. */
	max = f->section_max;
	f->section_max = NAMES_MAX;
	err = spi_elf_section_at(f, ndx, &p, &len);
	f->section_max = max;
	if (err)
		return sp_diag_set(d, f->sh[ndx].sh_offset, err,
		    "section name table (section %zu): %s", ndx,
		    err == -SP_EFORMAT ? "outside the file, or badly "
		    "compressed" : sp_strerror(err));
	f->shstrndx = ndx;
	return 0;
}

/* NT_GNU_BUILD_ID in one note area (gABI "Note Section"); nd NULL: libelf
 * could not read it. */
static int
scan_notes(struct sp_elf_file *f, const Elf_Data *nd)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (nd == NULL)
		return spi_elf_error() == -ENOMEM ? -ENOMEM : -SP_ENOTFOUND;
	if (nd->d_buf == NULL)
		return -SP_ENOTFOUND;
	/* gelf_getnote bounds every note by d_size. */
	while ((next = gelf_getnote((Elf_Data *)nd, off, &nh, &name_off,
	    &desc_off)) > 0) {
		const char *b = nd->d_buf;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(b + name_off, "GNU", 4) == 0 && nh.n_descsz > 0 &&
		    nh.n_descsz <= SP_ELF_BUILD_ID_MAX) {
			memcpy(f->build_id, b + desc_off, nh.n_descsz);
			f->build_id_len = nh.n_descsz;
			return 0;
		}
		off = next;
	}
	return -SP_ENOTFOUND;
}

/*
 * The build-id from PT_NOTE segments, else SHT_NOTE sections: 0 (found
 * or not), -ENOMEM.  libelf keeps each area it read until elf_end, so
 * the areas read add up to NOTES_MAX at most.
 */
static int
find_build_id(struct sp_elf_file *f)
{
	uint64_t budget = NOTES_MAX;
	size_t i;
	int err;

	for (i = 0; i < f->phnum; i++) {
		const GElf_Phdr *p = &f->ph[i];

		if (p->p_type != PT_NOTE || p->p_filesz == 0 ||
		    p->p_filesz > budget ||
		    !spi_elf_in_file(f, p->p_offset, p->p_filesz))
			continue;
		budget -= p->p_filesz;
		err = scan_notes(f, elf_getdata_rawchunk(f->elf,
		    (int64_t)p->p_offset, p->p_filesz,
		    p->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR));
		if (err != -SP_ENOTFOUND)
			return err;
	}
	for (i = 0; i < f->shnum; i++) {
		const GElf_Shdr *s = &f->sh[i];

		if (s->sh_type != SHT_NOTE || (s->sh_flags & SHF_COMPRESSED) ||
		    s->sh_size == 0 || s->sh_size > budget ||
		    !spi_elf_in_file(f, s->sh_offset, s->sh_size))
			continue;
		budget -= s->sh_size;
		err = scan_notes(f, elf_rawdata(elf_getscn(f->elf, i), NULL));
		if (err != -SP_ENOTFOUND)
			return err;
	}
	return 0;
}

/*
 * libelf makes its table of sections (some 200 bytes each) as large as
 * the header's count says, bounded only by the file's size, before we can
 * ask for the count: it is checked here first, from the raw header (gABI
 * "Extended Section Header Numbering": e_shnum 0 puts the count in
 * section 0's sh_size).  What is not ELF64 little-endian is left to
 * check_ident.
 */
static int
check_section_count(struct sp_elf_file *f, struct sp_diag *d)
{
	uint8_t h[sizeof(Elf64_Ehdr)], s0[8];
	uint64_t off, n;

	if (read_exact(f, 0, h, sizeof(h)) != 0 ||
	    memcmp(h, ELFMAG, SELFMAG) != 0 || h[EI_CLASS] != ELFCLASS64 ||
	    h[EI_DATA] != ELFDATA2LSB)
		return 0;
	off = sp_le64(h + offsetof(Elf64_Ehdr, e_shoff));
	n = sp_le16(h + offsetof(Elf64_Ehdr, e_shnum));
	if (off == 0)
		return 0;
	if (n == 0 && off <= f->size &&
	    read_exact(f, off + offsetof(Elf64_Shdr, sh_size), s0, 8) == 0)
		n = sp_le64(s0);
	if (n == 0 || n > f->size / sizeof(Elf64_Shdr) ||
	    !spi_elf_in_file(f, off, n * sizeof(Elf64_Shdr)))
		return 0;	/* libelf finds no table: read_sections says so */
	if (n > SP_ELF_SECTIONS_MAX)
		return sp_diag_set(d, offsetof(Elf64_Ehdr, e_shnum), -SP_ELIMIT,
		    "%llu section headers (limit %u)", (unsigned long long)n,
		    SP_ELF_SECTIONS_MAX);
	return 0;
}

static int
file_init(struct sp_elf_file *f, struct sp_elf_file **out, struct sp_diag *d)
{
	GElf_Ehdr eh;
	int err;

	f->section_max = SP_ELF_SECTION_MAX;
	(void)elf_version(EV_CURRENT);
	/* Read, not mapped: a file cut short under us is an error of one
	 * read, not SIGBUS.  An image in memory is libelf's own copy, as it
	 * writes to the headers it inflates in place (reads take another). */
	err = check_section_count(f, d);
	if (err) {
		spi_elf_file_free(f);
		return err;
	}
	f->elf = f->mem != NULL ? elf_memory((char *)f->mem, (size_t)f->size) :
	    elf_begin(f->fd, ELF_C_READ, NULL);
	err = check_ident(f, d);
	if (err == 0 && gelf_getehdr(f->elf, &eh) == NULL)
		err = lib_fail(d, 0, "ELF header");
	if (err == 0)
		err = read_sections(f, &eh, d);
	if (err == 0)
		err = read_segments(f, &eh, d);
	if (err == 0)
		err = read_names(f, d);
	if (err == 0)
		err = find_build_id(f);
	if (err) {
		spi_elf_file_free(f);
		return err;
	}
	*out = f;
	return 0;
}

/* Takes fd (closed on failure too); path may be NULL. */
static int
open_fd(int fd, const char *path, struct sp_elf_file **out,
    struct sp_diag *diag)
{
	const char *name = path != NULL ? path : "ELF file";
	struct sp_elf_file *f;
	struct stat st;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		(void)close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	if (path != NULL && (f->path = strdup(path)) == NULL) {
		spi_elf_file_free(f);
		return -ENOMEM;
	}
	if (fstat(fd, &st) != 0) {
		int err = -errno;

		spi_elf_file_free(f);
		return sp_diag_set(diag, 0, err, "%s: %s", name, sp_strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		spi_elf_file_free(f);
		return sp_diag_set(diag, 0, -SP_EFORMAT, "%s: not a regular file",
		    name);
	}
	f->size = (uint64_t)st.st_size;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	return file_init(f, out, diag);
}

int
spi_elf_file_open(const char *path, struct sp_elf_file **out,
    struct sp_diag *diag)
{
	struct stat st;
	int fd;

	*out = NULL;
	/* Check before opening: opening a FIFO blocks, a device may act.
	 * open_fd checks again what was opened (replaced since). */
	if (stat(path, &st) != 0) {
		int err = -errno;

		return sp_diag_set(diag, 0, err, "%s: %s", path, sp_strerror(err));
	}
	if (!S_ISREG(st.st_mode))
		return sp_diag_set(diag, 0, -SP_EFORMAT, "%s: not a regular file",
		    path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int err = -errno;

		return sp_diag_set(diag, 0, err, "%s: %s", path, sp_strerror(err));
	}
	return open_fd(fd, path, out, diag);
}

int
spi_elf_file_open_fd(int fd, struct sp_elf_file **out, struct sp_diag *diag)
{
	return open_fd(fd, NULL, out, diag);
}

int
spi_elf_file_open_mem(const void *p, size_t len, struct sp_elf_file **out,
    struct sp_diag *diag)
{
	struct sp_elf_file *f;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->fd = -1;
	f->size = p != NULL ? len : 0;
	f->mem = malloc(f->size > 0 ? (size_t)f->size : 1);
	f->image = malloc(f->size > 0 ? (size_t)f->size : 1);
	if (f->mem == NULL || f->image == NULL) {
		spi_elf_file_free(f);
		return -ENOMEM;
	}
	if (f->size > 0) {
		memcpy(f->mem, p, (size_t)f->size);
		memcpy(f->image, p, (size_t)f->size);
	}
	return file_init(f, out, diag);
}

void
spi_elf_file_free(struct sp_elf_file *f)
{
	if (f == NULL)
		return;
	if (f->elf != NULL)
		(void)elf_end(f->elf);
	if (f->fd >= 0)
		(void)close(f->fd);
	free(f->mem);
	free(f->image);
	free(f->sec);
	free(f->sh);
	free(f->ph);
	free(f->path);
	free(f);
}

const char *
spi_elf_file_path(const struct sp_elf_file *f)
{
	return f->path;
}

void
spi_elf_file_limit_sections(struct sp_elf_file *f, uint64_t max)
{
	if (max < f->section_max)
		f->section_max = max;
}

int
spi_elf_file_build_id(const struct sp_elf_file *f, const uint8_t **id,
    size_t *len)
{
	if (f->build_id_len == 0)
		return -SP_ENOTFOUND;
	*id = f->build_id;
	*len = f->build_id_len;
	return 0;
}

int
spi_elf_file_vaddr(const struct sp_elf_file *f, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const GElf_Phdr *p = &f->ph[i];

		if (p->p_type == PT_LOAD && off >= p->p_offset &&
		    off - p->p_offset < p->p_filesz) {
			*vaddr = p->p_vaddr + (off - p->p_offset);
			return 0;
		}
	}
	return -SP_ENOTFOUND;
}

int
spi_elf_file_exec_vaddr(const struct sp_elf_file *f, uint64_t off,
    uint64_t *vaddr)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const GElf_Phdr *p = &f->ph[i];

		/* From the page that holds p_offset to the segment's end:
		 * off - p_offset wraps for off below p_offset, so it is
		 * compared only once off is known to be at or above it. */
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X) ||
		    off < (p->p_offset & ~(page - 1)) ||
		    (off >= p->p_offset && off - p->p_offset >= p->p_filesz))
			continue;
		*vaddr = p->p_vaddr - p->p_offset + off;
		return 0;
	}
	return spi_elf_file_vaddr(f, off, vaddr);
}

int
spi_elf_file_same(const struct sp_elf_file *f, const struct sp_elf_file *g)
{
	if (f->mem != NULL || g->mem != NULL)
		return f == g;
	return f->dev == g->dev && f->ino == g->ino;
}

/* Reads exactly len bytes at off: 0, -SP_EFORMAT (outside the file, or
 * it shrank since it was opened), -errno. */
static int
read_exact(const struct sp_elf_file *f, uint64_t off, void *buf, size_t len)
{
	size_t done = 0;

	if (!spi_elf_in_file(f, off, len))
		return -SP_EFORMAT;
	/* Not libelf's copy: it may have edited a section's header. */
	if (f->image != NULL) {
		if (len > 0)
			memcpy(buf, f->image + off, len);
		return 0;
	}
	while (done < len) {
		ssize_t n = pread(f->fd, (uint8_t *)buf + done, len - done,
		    (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -SP_EFORMAT; /* the file shrank since fstat */
		done += (size_t)n;
	}
	return 0;
}

size_t
spi_elf_file_read(const struct sp_elf_file *f, uint64_t off, void *buf,
    size_t len)
{
	if (off >= f->size)
		return 0;
	if (len > f->size - off)
		len = (size_t)(f->size - off);
	return read_exact(f, off, buf, len) == 0 ? len : 0;
}

int
spi_elf_file_section_shape(const struct sp_elf_file *f, const char *name,
    uint64_t *stored, uint64_t *size, int *compressed)
{
	size_t i = spi_elf_section_find(f, name);
	uint8_t ch[sizeof(Elf64_Chdr)];
	const char *ident;
	const GElf_Shdr *h;

	if (i == f->shnum || f->sh[i].sh_type == SHT_NOBITS)
		return -SP_ENOTFOUND;
	h = &f->sh[i];
	*stored = *size = h->sh_size;
	*compressed = (h->sh_flags & SHF_COMPRESSED) != 0;
	if (!*compressed)
		return 0;
	/* Elf64_Chdr: ch_type, ch_reserved, ch_size, ch_addralign. */
	ident = elf_getident(f->elf, NULL);
	if (gelf_getclass(f->elf) != ELFCLASS64 || ident == NULL ||
	    ident[EI_DATA] != ELFDATA2LSB || h->sh_size < sizeof(ch) ||
	    spi_elf_file_read(f, h->sh_offset, ch, sizeof(ch)) != sizeof(ch))
		return -SP_EFORMAT;
	*size = sp_le64(ch + 8);
	return *size > f->section_max ? -SP_ELIMIT : 0;
}

int
spi_elf_file_crc32(const struct sp_elf_file *f, uint32_t *crc)
{
	uint8_t *buf;
	uint64_t off;
	uLong c = crc32(0L, Z_NULL, 0);
	int err = 0;

	buf = malloc(CRC_CHUNK);
	if (buf == NULL)
		return -ENOMEM;
	for (off = 0; off < f->size && err == 0; off += CRC_CHUNK) {
		size_t n = f->size - off < CRC_CHUNK ?
		    (size_t)(f->size - off) : CRC_CHUNK;

		err = read_exact(f, off, buf, n);
		if (err == 0)
			c = crc32(c, buf, (uInt)n);
	}
	free(buf);
	if (err == 0)
		*crc = (uint32_t)c;
	return err;
}
