/* SPDX-License-Identifier: MIT */
/* The sections of an opened ELF file: found by name, read once, inflated
 * when compressed; the debuglink and the whole file's CRC. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* zlib: next_in is a pointer to const, as inflate never writes there. */
#define ZLIB_CONST
#include <zlib.h>

#include "cursor_int.h"
#include "elffile_int.h"

#define ELFCOMPRESS_ZLIB 1
/*
 * Deflate (RFC 1951) spends at least one bit on each run of up to 258
 * bytes, so a stream inflates to at most ~1032 times its size: a larger
 * ch_size is a lie, rejected before anything is allocated.
 */
#define DEFLATE_RATIO_MAX 1032u
#define CRC_CHUNK ((size_t)1 << 16)

/* The file's raw bytes [off, off + len): in the image, or read into *own. */
static int
raw_bytes(const struct sp_elf_file *f, uint64_t off, uint64_t len,
    const uint8_t **p, uint8_t **own)
{
	int err;

	*own = NULL;
	if (len > f->size || off > f->size - len)
		return -SP_EFORMAT;
	if (f->mem != NULL) {
		*p = f->mem + off;
		return 0;
	}
	*own = malloc(len > 0 ? (size_t)len : 1);
	if (*own == NULL)
		return -ENOMEM;
	err = sp_elf_file_read(f, off, *own, (size_t)len);
	if (err) {
		free(*own);
		*own = NULL;
		return err;
	}
	*p = *own;
	return 0;
}

/* Inflates one zlib stream (RFC 1950) to exactly want bytes. */
static int
inflate_exact(const uint8_t *in, size_t inlen, uint8_t *out, size_t want)
{
	z_stream z;
	int zr;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	/* Both lengths are below SP_ELF_SECTION_MAX, so they fit a uInt. */
	z.next_in = in;
	z.avail_in = (uInt)inlen;
	z.next_out = out;
	z.avail_out = (uInt)want;
	zr = inflate(&z, Z_FINISH);
	(void)inflateEnd(&z);
	if (zr == Z_MEM_ERROR)
		return -ENOMEM;
	if (zr != Z_STREAM_END || z.total_out != want)
		return -SP_EFORMAT;
	return 0;
}

/*
 * gABI "Compressed Sections": an Elf64_Chdr (ch_type, ch_reserved,
 * ch_size, ch_addralign), then the compressed bytes.
 */
static int
inflate_section(struct sp_elf_sec *s, const uint8_t *raw, size_t rawlen)
{
	struct sp_cur c = sp_cur_make(raw, rawlen);
	const uint8_t *in;
	uint32_t type;
	uint64_t size;
	size_t inlen;
	uint8_t *out;
	int err;

	type = sp_rd_u32(&c);
	(void)sp_rd_u32(&c);
	size = sp_rd_u64(&c);
	(void)sp_rd_u64(&c);
	if (c.err || type != ELFCOMPRESS_ZLIB)
		return -SP_EFORMAT;
	if (size > SP_ELF_SECTION_MAX)
		return -SP_ELIMIT;
	inlen = sp_cur_left(&c);
	in = sp_take(&c, inlen);
	if (size / DEFLATE_RATIO_MAX > inlen)
		return -SP_EFORMAT;
	out = malloc(size > 0 ? (size_t)size : 1);
	if (out == NULL)
		return -ENOMEM;
	err = inflate_exact(in, inlen, out, (size_t)size);
	if (err) {
		free(out);
		return err;
	}
	s->owned = out;
	s->data = out;
	s->len = (size_t)size;
	return 0;
}

static int
load_section(struct sp_elf_file *f, size_t i)
{
	const struct sp_elf_shdr *h = &f->sh[i];
	struct sp_elf_sec *s = &f->sec[i];
	const uint8_t *raw;
	uint8_t *own;
	int err;

	if (h->type == SP_SHT_NOBITS)
		return -SP_ENOTFOUND;
	if (h->size > f->size || h->offset > f->size - h->size)
		return -SP_EFORMAT;
	if (h->size > SP_ELF_SECTION_MAX)
		return -SP_ELIMIT;
	err = raw_bytes(f, h->offset, h->size, &raw, &own);
	if (err)
		return err;
	if (h->flags & SP_SHF_COMPRESSED) {
		err = inflate_section(s, raw, (size_t)h->size);
		free(own);
		return err;
	}
	s->owned = own;
	s->data = raw;
	s->len = (size_t)h->size;
	return 0;
}

int
sp_elf_file_section_at(struct sp_elf_file *f, size_t i, const uint8_t **data,
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
	*data = s->data;
	*len = s->len;
	return 0;
}

/* The index of the first section named name, or f->shnum. */
static size_t
find_section(const struct sp_elf_file *f, const char *name)
{
	const struct sp_elf_sec *names;
	size_t i, want = strlen(name) + 1;

	if (f->shstrndx == 0)
		return f->shnum;
	names = &f->sec[f->shstrndx];
	for (i = 0; i < f->shnum; i++) {
		uint32_t off = f->sh[i].name;

		/* The name and its NUL must lie inside the table. */
		if (off < names->len && want <= names->len - off &&
		    memcmp(names->data + off, name, want) == 0)
			return i;
	}
	return f->shnum;
}

int
sp_elf_file_section(struct sp_elf_file *f, const char *name,
    const uint8_t **data, size_t *len)
{
	size_t i = find_section(f, name);

	if (i == f->shnum)
		return -SP_ENOTFOUND;
	return sp_elf_file_section_at(f, i, data, len);
}

int
sp_elf_file_has_section(const struct sp_elf_file *f, const char *name)
{
	size_t i = find_section(f, name);

	return i < f->shnum && f->sh[i].type != SP_SHT_NOBITS;
}

int
sp_elf_file_has_debug(const struct sp_elf_file *f)
{
	return sp_elf_file_has_section(f, ".symtab") ||
	    sp_elf_file_has_section(f, ".debug_info");
}

int
sp_elf_file_debuglink(struct sp_elf_file *f, const char **name,
    uint32_t *crc)
{
	const uint8_t *p, *nul;
	size_t len, n, at;
	int err;

	err = sp_elf_file_section(f, ".gnu_debuglink", &p, &len);
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

int
sp_elf_file_crc32(const struct sp_elf_file *f, uint32_t *crc)
{
	uint8_t *buf;
	uint64_t off;
	uLong c = crc32(0L, Z_NULL, 0);
	int err = 0;

	if (f->mem != NULL) {
		for (off = 0; off < f->size; off += CRC_CHUNK) {
			size_t n = f->size - off < CRC_CHUNK ?
			    (size_t)(f->size - off) : CRC_CHUNK;

			c = crc32(c, f->mem + off, (uInt)n);
		}
		*crc = (uint32_t)c;
		return 0;
	}
	buf = malloc(CRC_CHUNK);
	if (buf == NULL)
		return -ENOMEM;
	for (off = 0; off < f->size && err == 0; off += CRC_CHUNK) {
		size_t n = f->size - off < CRC_CHUNK ?
		    (size_t)(f->size - off) : CRC_CHUNK;

		err = sp_elf_file_read(f, off, buf, n);
		if (err == 0)
			c = crc32(c, buf, (uInt)n);
	}
	free(buf);
	if (err == 0)
		*crc = (uint32_t)c;
	return err;
}
