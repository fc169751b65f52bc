/* SPDX-License-Identifier: MIT */
/* The sections of an opened ELF file: found by name, read once through
 * libelf after our bounds, inflated when compressed; the debuglink, and
 * an executable's entry point. */
#include <stdlib.h>
#include <string.h>

#include "common/cursor_int.h"
#include "elffile_int.h"

/*
 * Deflate (RFC 1951) spends at least one bit on each run of up to 258
 * bytes, so a stream inflates to at most ~1032 times its size: a larger
 * ch_size is a lie, rejected before anything is allocated.
 */
#define DEFLATE_RATIO_MAX 1032u

/*
 * gABI "Compressed Sections": whether libelf may inflate section scn,
 * whose header is h: an Elf64_Chdr of ELFCOMPRESS_ZLIB whose ch_size is
 * at most max (the file's section limit) and at most what deflate can
 * make of the bytes that follow.  Checked before elf_compress, which
 * allocates ch_size bytes.
 */
static int
inflate_ok(Elf_Scn *scn, const GElf_Shdr *h, uint64_t max)
{
	GElf_Chdr ch;

	if (h->sh_size < sizeof(Elf64_Chdr))
		return -SP_EFORMAT;
	if (gelf_getchdr(scn, &ch) == NULL)
		return spi_elf_error();
	if (ch.ch_type != ELFCOMPRESS_ZLIB)
		return -SP_EFORMAT;
	if (ch.ch_size > max)
		return -SP_ELIMIT;
	if (ch.ch_size / DEFLATE_RATIO_MAX > h->sh_size - sizeof(Elf64_Chdr))
		return -SP_EFORMAT;
	return 0;
}

static int
load_section(struct sp_elf_file *f, size_t i)
{
	static const uint8_t empty[1];
	const GElf_Shdr *h = &f->sh[i];
	struct sp_elf_sec *s = &f->sec[i];
	Elf_Scn *scn = elf_getscn(f->elf, i);
	Elf_Data *d;
	int err;

	if (h->sh_type == SHT_NOBITS)
		return -SP_ENOTFOUND;
	/* libelf allocates sh_size bytes (or ch_size, inflating) for what
	 * the headers claim: bound both first. */
	if (!spi_elf_in_file(f, h->sh_offset, h->sh_size) || scn == NULL)
		return -SP_EFORMAT;
	if (h->sh_size > f->section_max)
		return -SP_ELIMIT;
	if (h->sh_flags & SHF_COMPRESSED) {
		err = inflate_ok(scn, h, f->section_max);
		if (err)
			return err;
		/* libelf inflates exactly ch_size bytes or fails. */
		d = elf_compress(scn, 0, 0) == 1 ? elf_getdata(scn, NULL) : NULL;
	} else {
		d = elf_rawdata(scn, NULL);
	}
	if (d == NULL)
		return spi_elf_error();
	if (d->d_buf == NULL && d->d_size > 0)
		return -SP_EFORMAT;
	s->data = d->d_buf != NULL ? d->d_buf : empty;
	s->len = d->d_size;
	return 0;
}

int
spi_elf_section_at(struct sp_elf_file *f, size_t i, const uint8_t **data,
    size_t *len)
{
	struct sp_elf_sec *s = &f->sec[i];

	/* Read once; a failure is kept too, so it is not retried. */
	if (s->err == 0) {
		int err = load_section(f, i);

		s->err = err ? err : 1;
	}
	if (s->err != 1)
		return s->err;
	/* Read under a higher limit (the name table, at open) is still
	 * refused under a lower one. */
	if (s->len > f->section_max || f->sh[i].sh_size > f->section_max)
		return -SP_ELIMIT;
	*data = s->data;
	*len = s->len;
	return 0;
}

/* Names are compared in the name table read at open (elf_strptr would
 * refuse one that is not SHT_STRTAB, hiding every section without a
 * word). */
size_t
spi_elf_section_find(const struct sp_elf_file *f, const char *name)
{
	const struct sp_elf_sec *names;
	size_t i, want = strlen(name) + 1;

	if (f->shstrndx == 0)
		return f->shnum;
	names = &f->sec[f->shstrndx];
	for (i = 0; i < f->shnum; i++) {
		uint32_t off = f->sh[i].sh_name;

		/* The name and its NUL must lie inside the table. */
		if (off < names->len && want <= names->len - off &&
		    memcmp(names->data + off, name, want) == 0)
			return i;
	}
	return f->shnum;
}

int
spi_elf_file_section(struct sp_elf_file *f, const char *name,
    const uint8_t **data, size_t *len)
{
	size_t i = spi_elf_section_find(f, name);

	if (i == f->shnum)
		return -SP_ENOTFOUND;
	return spi_elf_section_at(f, i, data, len);
}

int
spi_elf_file_section_addr(const struct sp_elf_file *f, const char *name,
    uint64_t *addr)
{
	size_t i = spi_elf_section_find(f, name);

	if (i == f->shnum)
		return -SP_ENOTFOUND;
	*addr = f->sh[i].sh_addr;
	return 0;
}

int
spi_elf_file_has_section(const struct sp_elf_file *f, const char *name)
{
	size_t i = spi_elf_section_find(f, name);

	return i < f->shnum && f->sh[i].sh_type != SHT_NOBITS;
}

int
spi_elf_file_has_debug(const struct sp_elf_file *f)
{
	return spi_elf_file_has_section(f, ".symtab") ||
	    spi_elf_file_has_section(f, ".debug_info");
}

int
spi_elf_file_debuglink(struct sp_elf_file *f, const char **name,
    uint32_t *crc)
{
	const uint8_t *p, *nul;
	size_t len, n, at;
	int err;

	err = spi_elf_file_section(f, ".gnu_debuglink", &p, &len);
	if (err)
		return err;
	nul = len > 0 ? memchr(p, 0, len) : NULL;
	if (nul == NULL)
		return -SP_EFORMAT;
	n = (size_t)(nul - p);
	at = (n + 1 + 3) / 4 * 4; /* the CRC follows, 4-byte aligned */
	if (n == 0 || at > len || len - at < 4 ||
	    memchr(p, '/', n) != NULL || strcmp((const char *)p, ".") == 0 ||
	    strcmp((const char *)p, "..") == 0)
		return -SP_EFORMAT;
	*name = (const char *)p;
	*crc = sp_le32(p + at);
	return 0;
}

/* gABI "Dynamic Section": whether .dynamic has a DT_SONAME entry (a
 * shared library's, which a position-independent executable lacks). */
static int
has_soname(struct sp_elf_file *f)
{
	const uint8_t *p, *b;
	struct sp_cur c;
	size_t len;

	if (spi_elf_file_section(f, ".dynamic", &p, &len) != 0)
		return 0;
	c = sp_cur_make(p, len);
	while ((b = sp_take(&c, 16)) != NULL && sp_le64(b) != DT_NULL)
		if (sp_le64(b) == DT_SONAME)
			return 1;
	return 0;
}

int
spi_elf_file_entry(struct sp_elf_file *f, uint64_t *entry)
{
	GElf_Ehdr eh;
	size_t i;
	int interp = 0;

	if (gelf_getehdr(f->elf, &eh) == NULL || eh.e_entry == 0)
		return -SP_ENOTFOUND;
	for (i = 0; i < f->phnum; i++)
		interp |= f->ph[i].p_type == PT_INTERP;
	if (eh.e_type != ET_EXEC &&
	    (eh.e_type != ET_DYN || !interp || has_soname(f)))
		return -SP_ENOTFOUND;
	*entry = eh.e_entry;
	return 0;
}
