/* SPDX-License-Identifier: MIT */
/* The sections of an opened ELF file: found by name, read once, inflated
 * when compressed; the debuglink and the whole file's CRC. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* zlib: next_in is a pointer to const, as inflate never writes there. */
#define ZLIB_CONST
#include <zlib.h>

#include "common/cursor_int.h"
#include "elffile_int.h"

#define ELFCOMPRESS_ZLIB 1
/*
 * Deflate (RFC 1951) spends at least one bit on each run of up to 258
 * bytes, so a stream inflates to at most ~1032 times its size: a larger
 * ch_size is a lie, rejected before anything is allocated.
 */
#define DEFLATE_RATIO_MAX 1032u
#define CRC_CHUNK ((size_t)1 << 16)
#define INFLATE_CHUNK ((size_t)1 << 17)
#define CHDR_LEN 24	/* Elf64_Chdr */

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
 * Inflates the zlib stream in the file's bytes [off, off + len) to
 * exactly want bytes, reading the file a chunk at a time through one
 * small buffer instead of holding the whole compressed section.
 */
static int
inflate_file(const struct sp_elf_file *f, uint64_t off, uint64_t len,
    uint8_t *out, size_t want)
{
	size_t cap = len < INFLATE_CHUNK ? (size_t)len + 1 : INFLATE_CHUNK;
	uint8_t *buf = malloc(cap);
	z_stream z;
	int zr, err = 0;

	if (buf == NULL)
		return -ENOMEM;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	z.next_out = out;
	z.avail_out = (uInt)want;	/* below SP_ELF_SECTION_MAX */
	for (;;) {
		if (z.avail_in == 0 && len > 0) {
			size_t n = len < cap ? (size_t)len : cap;

			if ((err = sp_elf_file_read(f, off, buf, n)) != 0)
				break;
			off += n;
			len -= n;
			z.next_in = buf;
			z.avail_in = (uInt)n;
		}
		/* Z_OK means progress, so this ends: at the stream's end,
		 * with no input left, or with no room left for output. */
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			break;
		if (zr == Z_BUF_ERROR && z.avail_in == 0 && len > 0)
			continue;
		if (zr != Z_OK) {
			err = zr == Z_MEM_ERROR ? -ENOMEM : -SP_EFORMAT;
			break;
		}
	}
	if (err == 0 && z.total_out != want)
		err = -SP_EFORMAT;
	(void)inflateEnd(&z);
	free(buf);
	return err;
}

/*
 * gABI "Compressed Sections": an Elf64_Chdr (ch_type, ch_reserved,
 * ch_size, ch_addralign), then the compressed bytes: in the image, or
 * read from the file as they are inflated.
 */
static int
inflate_section(const struct sp_elf_file *f, struct sp_elf_sec *s,
    const struct sp_elf_shdr *h)
{
	uint8_t hdr[CHDR_LEN];
	struct sp_cur c;
	uint32_t type;
	uint64_t size, inlen;
	uint8_t *out;
	int err;

	if (h->size < CHDR_LEN)
		return -SP_EFORMAT;
	err = sp_elf_file_read(f, h->offset, hdr, CHDR_LEN);
	if (err)
		return err;
	c = sp_cur_make(hdr, CHDR_LEN);
	type = sp_rd_u32(&c);
	(void)sp_rd_u32(&c);
	size = sp_rd_u64(&c);
	(void)sp_rd_u64(&c);
	if (c.err || type != ELFCOMPRESS_ZLIB)
		return -SP_EFORMAT;
	if (size > SP_ELF_SECTION_MAX)
		return -SP_ELIMIT;
	inlen = h->size - CHDR_LEN;
	if (size / DEFLATE_RATIO_MAX > inlen)
		return -SP_EFORMAT;
	out = malloc(size > 0 ? (size_t)size : 1);
	if (out == NULL)
		return -ENOMEM;
	if (f->mem != NULL)
		err = inflate_exact(f->mem + h->offset + CHDR_LEN, (size_t)inlen,
		    out, (size_t)size);
	else
		err = inflate_file(f, h->offset + CHDR_LEN, inlen, out,
		    (size_t)size);
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
	if (h->flags & SP_SHF_COMPRESSED)
		return inflate_section(f, s, h);
	err = raw_bytes(f, h->offset, h->size, &raw, &own);
	if (err)
		return err;
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
