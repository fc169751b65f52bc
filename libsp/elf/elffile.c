/* SPDX-License-Identifier: MIT */
/* One ELF file: its header and header tables, read with pread (or from
 * an image) after a bounds check and decoded field by field; the build-id. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cursor_int.h"
#include "elffile_int.h"

#define EHDR_SIZE 64          /* gABI: sizeof(Elf64_Ehdr) */
#define SHDR_SIZE 64          /* sizeof(Elf64_Shdr) */
#define PHDR_SIZE 56          /* sizeof(Elf64_Phdr) */
#define NOTES_MAX ((size_t)1 << 20) /* larger note areas are not read */
#define NT_GNU_BUILD_ID 3

static int
diag_set(struct sp_diag *d, uint64_t off, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
diag_set(struct sp_diag *d, uint64_t off, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (d != NULL) {
		d->offset = off;
		/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
		(void)vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	}
	va_end(ap);
	return err;
}

/* Whether [off, off + len) lies inside the file. */
static int
in_file(const struct sp_elf_file *f, uint64_t off, uint64_t len)
{
	return len <= f->size && off <= f->size - len;
}

int
sp_elf_file_read(const struct sp_elf_file *f, uint64_t off, void *buf,
    size_t len)
{
	size_t done = 0;

	if (!in_file(f, off, len))
		return -SP_EFORMAT;
	if (f->mem != NULL) {
		if (len > 0)
			memcpy(buf, f->mem + off, len);
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

/* gABI "Sections": Elf64_Shdr, little-endian. */
static void
decode_shdr(const uint8_t *b, void *out)
{
	struct sp_elf_shdr *s = out;

	s->name = sp_le32(b);
	s->type = sp_le32(b + 4);
	s->flags = sp_le64(b + 8);
	s->addr = sp_le64(b + 16);
	s->offset = sp_le64(b + 24);
	s->size = sp_le64(b + 32);
	s->link = sp_le32(b + 40);
	s->info = sp_le32(b + 44);
	s->addralign = sp_le64(b + 48);
	s->entsize = sp_le64(b + 56);
}

/* gABI "Program Header": Elf64_Phdr. */
static void
decode_phdr(const uint8_t *b, void *out)
{
	struct sp_elf_phdr *p = out;

	p->type = sp_le32(b);
	p->flags = sp_le32(b + 4);
	p->offset = sp_le64(b + 8);
	p->vaddr = sp_le64(b + 16);
	p->filesz = sp_le64(b + 32);
	p->memsz = sp_le64(b + 40);
	p->align = sp_le64(b + 48);
}

/* The fields of Elf64_Ehdr this library needs. */
struct ehdr {
	uint64_t phoff, shoff;
	uint32_t phentsize, phnum, shentsize, shnum, shstrndx;
};

static int
read_ehdr(struct sp_elf_file *f, struct ehdr *h, struct sp_diag *d)
{
	uint8_t b[EHDR_SIZE];

	if (f->size < EHDR_SIZE || sp_elf_file_read(f, 0, b, sizeof(b)) != 0)
		return diag_set(d, 0, -SP_EFORMAT, "shorter than an ELF header");
	if (memcmp(b, "\177ELF", 4) != 0)
		return diag_set(d, 0, -SP_EFORMAT, "not ELF (bad magic)");
	/* e_ident[EI_CLASS] ELFCLASS64, [EI_DATA] ELFDATA2LSB, [EI_VERSION] */
	if (b[4] != 2 || b[5] != 1 || b[6] != 1)
		return diag_set(d, 4, -SP_EFORMAT,
		    "ELF class %u data %u version %u: only 64-bit "
		    "little-endian version 1 is read", b[4], b[5], b[6]);
	h->phoff = sp_le64(b + 32);
	h->shoff = sp_le64(b + 40);
	h->phentsize = sp_le16(b + 54);
	h->phnum = sp_le16(b + 56);
	h->shentsize = sp_le16(b + 58);
	h->shnum = sp_le16(b + 60);
	h->shstrndx = sp_le16(b + 62);
	return 0;
}

/*
 * gABI "Extended Section Header Numbering": counts that do not fit the
 * ELF header's 16 bits are in section 0's sh_size, sh_link and sh_info.
 */
static int
extended_counts(struct sp_elf_file *f, struct ehdr *h, struct sp_diag *d)
{
	uint8_t b[SHDR_SIZE];
	struct sp_elf_shdr s0;

	if (h->shoff == 0 || (h->shnum != 0 && h->shstrndx != 0xffff &&
	    h->phnum != 0xffff))
		return 0;
	if (h->shentsize < SHDR_SIZE ||
	    sp_elf_file_read(f, h->shoff, b, sizeof(b)) != 0)
		return diag_set(d, h->shoff, -SP_EFORMAT,
		    "section header table at 0x%llx (entry size %u) is "
		    "outside the file", (unsigned long long)h->shoff,
		    h->shentsize);
	decode_shdr(b, &s0);
	if (h->shnum == 0)
		h->shnum = s0.size > UINT32_MAX ? UINT32_MAX : (uint32_t)s0.size;
	if (h->shstrndx == 0xffff) /* SHN_XINDEX */
		h->shstrndx = s0.link;
	if (h->phnum == 0xffff)    /* PN_XNUM */
		h->phnum = s0.info;
	return 0;
}

/* A header table the caller has checked to lie inside the file. */
static int
read_table(struct sp_elf_file *f, uint64_t off, uint64_t len, uint8_t **out)
{
	uint8_t *b;
	int err;

	*out = NULL;
	b = malloc(len > 0 ? (size_t)len : 1);
	if (b == NULL)
		return -ENOMEM;
	err = sp_elf_file_read(f, off, b, (size_t)len);
	if (err) {
		free(b);
		return err;
	}
	*out = b;
	return 0;
}

/* Where the ELF header places a header table, for read_hdr_table(). */
struct hdr_table {
	const char *what;     /* "section header" or "program header" */
	uint64_t off;
	uint32_t entsize, num;
	uint32_t min_entsize; /* the entry's size in this reader */
	unsigned max;         /* our limit on num */
	unsigned entsize_at;  /* the fields' offsets in the ELF header */
	unsigned num_at;
	size_t size;          /* of one decoded entry */
	void (*decode)(const uint8_t *, void *);
};

/*
 * Decodes the table t into *out, a new array of t->num entries (to free;
 * NULL when the file has none), after checking that the table fits the
 * file and our limit.
 */
static int
read_hdr_table(struct sp_elf_file *f, const struct hdr_table *t, void **out,
    struct sp_diag *d)
{
	uint64_t len = (uint64_t)t->entsize * t->num;
	struct sp_cur c;
	uint8_t *b;
	char *v;
	size_t i;
	int err;

	*out = NULL;
	if (t->off == 0 || t->num == 0)
		return 0;
	if (t->entsize < t->min_entsize)
		return diag_set(d, t->entsize_at, -SP_EFORMAT,
		    "%s entries of %u bytes", t->what, t->entsize);
	if (!in_file(f, t->off, len))
		return diag_set(d, t->off, -SP_EFORMAT, "%s table: %u entries "
		    "of %u bytes at 0x%llx do not fit the file (%llu bytes)",
		    t->what, t->num, t->entsize, (unsigned long long)t->off,
		    (unsigned long long)f->size);
	if (t->num > t->max)
		return diag_set(d, t->num_at, -SP_ELIMIT, "%u %ss (limit %u)",
		    t->num, t->what, t->max);
	err = read_table(f, t->off, len, &b);
	if (err)
		return diag_set(d, t->off, err, "%s table: %s", t->what,
		    sp_strerror(err));
	v = calloc(t->num, t->size);
	if (v == NULL) {
		free(b);
		return -ENOMEM;
	}
	c = sp_cur_make(b, (size_t)len);
	for (i = 0; i < t->num; i++) {
		const uint8_t *e = sp_take(&c, t->entsize);

		if (e == NULL)
			break; /* cannot be: the table was read whole */
		t->decode(e, v + i * t->size);
	}
	free(b);
	*out = v;
	return 0;
}

/* The section and program header tables. */
static int
read_headers(struct sp_elf_file *f, const struct ehdr *h, struct sp_diag *d)
{
	const struct hdr_table sht = { "section header", h->shoff,
	    h->shentsize, h->shnum, SHDR_SIZE, SP_ELF_SECTIONS_MAX, 58, 60,
	    sizeof(*f->sh), decode_shdr };
	const struct hdr_table pht = { "program header", h->phoff,
	    h->phentsize, h->phnum, PHDR_SIZE, SP_ELF_SEGMENTS_MAX, 54, 56,
	    sizeof(*f->ph), decode_phdr };
	void *v;
	int err;

	err = read_hdr_table(f, &sht, &v, d);
	if (err)
		return err;
	if (v != NULL && sht.num > 0) {
		f->sh = v;
		f->sec = calloc(sht.num, sizeof(*f->sec));
		if (f->sec == NULL)
			return -ENOMEM;
		f->shnum = sht.num;
	}
	err = read_hdr_table(f, &pht, &v, d);
	if (err || v == NULL)
		return err;
	f->ph = v;
	f->phnum = h->phnum;
	return 0;
}

/* Section names must come from a readable string table when there is one. */
static int
read_names(struct sp_elf_file *f, const struct ehdr *h, struct sp_diag *d)
{
	const uint8_t *p;
	size_t len;
	int err;

	if (f->shnum == 0 || h->shstrndx == 0)
		return 0;
	if (h->shstrndx >= f->shnum)
		return diag_set(d, 62, -SP_EFORMAT, "section name table %u of "
		    "%zu sections", h->shstrndx, f->shnum);
	err = sp_elf_file_section_at(f, h->shstrndx, &p, &len);
	if (err)
		return diag_set(d, f->sh[h->shstrndx].offset, err,
		    "section name table (section %u): %s", h->shstrndx,
		    err == -SP_EFORMAT ? "outside the file, or badly "
		    "compressed" : sp_strerror(err));
	f->shstrndx = h->shstrndx;
	return 0;
}

/*
 * gABI "Note Section": namesz, descsz, type, then name and desc, each
 * padded to the area's alignment (4, or 8 for areas aligned so).
 */
static int
scan_notes(struct sp_elf_file *f, const uint8_t *p, size_t len, uint64_t align)
{
	struct sp_cur c = sp_cur_make(p, len);
	size_t pad = align == 8 ? 8 : 4;

	while (sp_cur_left(&c) >= 12) {
		uint32_t namesz = sp_rd_u32(&c), descsz = sp_rd_u32(&c);
		uint32_t type = sp_rd_u32(&c);
		uint64_t nlen = ((uint64_t)namesz + pad - 1) / pad * pad;
		uint64_t dlen = ((uint64_t)descsz + pad - 1) / pad * pad;
		const uint8_t *name, *desc;

		if (nlen > sp_cur_left(&c))
			break;
		name = sp_take(&c, (size_t)nlen);
		if (dlen > sp_cur_left(&c))
			break;
		desc = sp_take(&c, (size_t)dlen);
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && descsz > 0 &&
		    descsz <= SP_ELF_BUILD_ID_MAX) {
			memcpy(f->build_id, desc, descsz);
			f->build_id_len = descsz;
			return 0;
		}
	}
	return -SP_ENOTFOUND;
}

static int
notes_at(struct sp_elf_file *f, uint64_t off, uint64_t len, uint64_t align)
{
	uint8_t *b;
	int err;

	if (len == 0 || len > NOTES_MAX || !in_file(f, off, len))
		return -SP_ENOTFOUND;
	if (f->mem != NULL)
		return scan_notes(f, f->mem + off, (size_t)len, align);
	b = malloc((size_t)len);
	if (b == NULL)
		return -ENOMEM;
	err = sp_elf_file_read(f, off, b, (size_t)len);
	if (err == 0)
		err = scan_notes(f, b, (size_t)len, align);
	free(b);
	return err;
}

/* The build-id from PT_NOTE segments, else SHT_NOTE sections. */
static int
find_build_id(struct sp_elf_file *f)
{
	size_t i;
	int err;

	for (i = 0; i < f->phnum; i++) {
		if (f->ph[i].type != SP_PT_NOTE)
			continue;
		err = notes_at(f, f->ph[i].offset, f->ph[i].filesz,
		    f->ph[i].align);
		if (err != -SP_ENOTFOUND)
			return err;
	}
	for (i = 0; i < f->shnum; i++) {
		if (f->sh[i].type != SP_SHT_NOTE ||
		    (f->sh[i].flags & SP_SHF_COMPRESSED))
			continue;
		err = notes_at(f, f->sh[i].offset, f->sh[i].size,
		    f->sh[i].addralign);
		if (err != -SP_ENOTFOUND)
			return err;
	}
	return 0;
}

static int
file_init(struct sp_elf_file *f, struct sp_elf_file **out, struct sp_diag *d)
{
	struct ehdr h;
	int err;

	memset(&h, 0, sizeof(h));
	err = read_ehdr(f, &h, d);
	if (err == 0)
		err = extended_counts(f, &h, d);
	if (err == 0)
		err = read_headers(f, &h, d);
	if (err == 0)
		err = read_names(f, &h, d);
	if (err == 0)
		err = find_build_id(f);
	if (err) {
		sp_elf_file_free(f);
		return err;
	}
	*out = f;
	return 0;
}

int
sp_elf_file_open(const char *path, struct sp_elf_file **out,
    struct sp_diag *diag)
{
	struct sp_elf_file *f;
	struct stat st;

	*out = NULL;
	/* Check before opening: opening a FIFO blocks, a device may act. */
	if (stat(path, &st) != 0) {
		int err = -errno;

		return diag_set(diag, 0, err, "%s: %s", path, sp_strerror(err));
	}
	if (!S_ISREG(st.st_mode))
		return diag_set(diag, 0, -SP_EFORMAT, "%s: not a regular file",
		    path);
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->path = strdup(path);
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (f->path == NULL || f->fd < 0 || fstat(f->fd, &st) != 0) {
		int err = f->path == NULL ? -ENOMEM : -errno;

		sp_elf_file_free(f);
		return diag_set(diag, 0, err, "%s: %s", path, sp_strerror(err));
	}
	if (!S_ISREG(st.st_mode)) { /* replaced since the stat */
		sp_elf_file_free(f);
		return diag_set(diag, 0, -SP_EFORMAT, "%s: not a regular file",
		    path);
	}
	f->size = (uint64_t)st.st_size;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	return file_init(f, out, diag);
}

int
sp_elf_file_open_mem(const void *p, size_t len, struct sp_elf_file **out,
    struct sp_diag *diag)
{
	static const uint8_t empty[1];
	struct sp_elf_file *f;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->fd = -1;
	f->mem = p != NULL ? p : empty;
	f->size = p != NULL ? len : 0;
	return file_init(f, out, diag);
}

void
sp_elf_file_free(struct sp_elf_file *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; f->sec != NULL && i < f->shnum; i++)
		free(f->sec[i].owned);
	if (f->fd >= 0)
		(void)close(f->fd);
	free(f->sec);
	free(f->sh);
	free(f->ph);
	free(f->path);
	free(f);
}

const char *
sp_elf_file_path(const struct sp_elf_file *f)
{
	return f->path;
}

uint64_t
sp_elf_file_size(const struct sp_elf_file *f)
{
	return f->size;
}

int
sp_elf_file_build_id(const struct sp_elf_file *f, const uint8_t **id,
    size_t *len)
{
	if (f->build_id_len == 0)
		return -SP_ENOTFOUND;
	*id = f->build_id;
	*len = f->build_id_len;
	return 0;
}

int
sp_elf_file_vaddr(const struct sp_elf_file *f, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const struct sp_elf_phdr *p = &f->ph[i];

		if (p->type == SP_PT_LOAD && off >= p->offset &&
		    off - p->offset < p->filesz) {
			*vaddr = p->vaddr + (off - p->offset);
			return 0;
		}
	}
	return -SP_ENOTFOUND;
}

int
sp_elf_file_same(const struct sp_elf_file *f, const struct sp_elf_file *g)
{
	if (f->mem != NULL || g->mem != NULL)
		return f->mem == g->mem;
	return f->dev == g->dev && f->ino == g->ino;
}
