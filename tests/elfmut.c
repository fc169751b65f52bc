/* SPDX-License-Identifier: MIT */
/*
 * elfmut: writes a damaged copy of a real ELF64 file, for the hostile
 * input tests of sp-sym (tests/cli/sym/hostile.sh) and of the recorder
 * (tests/cli/record/hostile.sh).  The build-id note is left alone, so
 * the copy still passes for the recorded file.  A numeric ARG may be
 * decimal or 0x hexadecimal.
 *
 *   elfmut MUTATION IN OUT [ARG]
 *
 *   cut-headers      the file ends where its section header table began,
 *                    or after its first ARG bytes
 *   cut-sections     the file keeps its first ARG percent (default 50)
 *                    and then its section header table, moved there:
 *                    the sections past the cut lie outside the file
 *   symtab-billions  .symtab claims 2^31 entries
 *   symtab-entsize   .symtab entries of 7 bytes
 *   symtab-link      .symtab names section 60000 as its string table
 *   overlap          every section starts at byte 64 and runs to the end
 *   absurd           every section at offset 2^64 - 4096, 8 KiB long
 *   zlib-claim       .debug_info and .debug_line: SHF_COMPRESSED with a
 *                    header claiming 496 MiB from the bytes there
 *   zlib-bomb        .debug_info and .debug_line: SHF_COMPRESSED, each a
 *                    real zlib stream of ARG MiB (default 256) of zeros,
 *                    deflated a chunk at a time and appended to the file
 *   frame-bomb       the same in .debug_frame, ARG MiB (default 2048): a
 *                    file of a few MiB that inflates to GiBs
 *   eh-bomb          the same in .eh_frame, which stays SHF_ALLOC: a
 *                    section the gABI says cannot be compressed
 *   cfi-size         the CFI sections (.eh_frame_hdr, .eh_frame and
 *                    .debug_frame, those the file has) run ARG bytes
 *                    (default 4096) past the end of the file
 *   cfi-hole         the CFI sections run to the end of the file, which
 *                    grows by a hole of ARG bytes (default 400 MiB): a
 *                    sparse file of a few KiB on disk, its sections inside
 *                    it, each below the readers' 512 MiB section limit
 *   cfi-offset       the CFI sections start ARG bytes (default 4096) past
 *                    the end of the file
 *   cfi-claim        the CFI sections SHF_COMPRESSED, with a header
 *                    claiming ARG bytes (default 2^40) from the bytes there
 *   zlib-short       .debug_info: a real zlib stream of its own bytes,
 *                    its header claiming twice their size
 *   garbage-debug    every .debug_* section's bytes pseudo-random
 *   debuglink        .gnu_debuglink names ARG (a file name) with the
 *                    CRC-32 of the file at ARG's path
 *   shstrndx         the section name table is section 65000
 *   phdr-absurd      every PT_LOAD at file offset 2^63, 2^62 bytes long
 */
#include <elf.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct img {
	unsigned char *b;
	size_t len, cap;
	uint64_t hole;	/* bytes of a hole written after b: a sparse file */
};

static Elf64_Ehdr *
ehdr(struct img *m)
{
	return (Elf64_Ehdr *)(void *)m->b;
}

static Elf64_Shdr *
shdr(struct img *m, size_t i)
{
	return (Elf64_Shdr *)(void *)(m->b + ehdr(m)->e_shoff +
	    i * sizeof(Elf64_Shdr));
}

static const char *
secname(struct img *m, size_t i)
{
	return (const char *)m->b + shdr(m, ehdr(m)->e_shstrndx)->sh_offset +
	    shdr(m, i)->sh_name;
}

/* The section named name, or NULL. */
static Elf64_Shdr *
lookup(struct img *m, const char *name)
{
	size_t i;

	for (i = 1; i < ehdr(m)->e_shnum; i++)
		if (strcmp(secname(m, i), name) == 0)
			return shdr(m, i);
	return NULL;
}

static Elf64_Shdr *
find(struct img *m, const char *name)
{
	Elf64_Shdr *s = lookup(m, name);

	if (s == NULL)
		errx(1, "no section %s", name);
	return s;
}

static void
load(struct img *m, const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		err(1, "%s", path);
	m->len = m->cap = (size_t)n;
	m->hole = 0;
	m->b = malloc(m->cap);
	if (m->b == NULL || fread(m->b, 1, m->len, f) != m->len)
		err(1, "%s", path);
	(void)fclose(f);
	if (m->len < sizeof(Elf64_Ehdr) || memcmp(m->b, ELFMAG, SELFMAG) != 0 ||
	    m->b[EI_CLASS] != ELFCLASS64 || ehdr(m)->e_shoff == 0 ||
	    ehdr(m)->e_shoff + ehdr(m)->e_shnum * sizeof(Elf64_Shdr) > m->len)
		errx(1, "%s: not an ELF64 file with sections", path);
}

static void
append(struct img *m, const void *p, size_t n)
{
	while (m->len + n > m->cap) {
		m->cap = m->cap * 2 + n;
		m->b = realloc(m->b, m->cap);
		if (m->b == NULL)
			err(1, "realloc");
	}
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

/* The file's first pct percent, then its section header table. */
static void
cut_sections(struct img *m, unsigned pct)
{
	size_t tlen = ehdr(m)->e_shnum * sizeof(Elf64_Shdr);
	size_t cut = m->len / 100 * pct & ~(size_t)7;
	unsigned char *t = malloc(tlen);

	if (t == NULL)
		err(1, "malloc");
	memcpy(t, m->b + ehdr(m)->e_shoff, tlen);
	m->len = cut;
	append(m, t, tlen);
	ehdr(m)->e_shoff = cut;
	free(t);
}

/* A compression header (gABI Elf64_Chdr) and deflated bytes appended. */
static void
put_compressed(struct img *m, Elf64_Shdr *s, const void *raw, size_t rawlen,
    uint64_t claim)
{
	Elf64_Chdr ch = { ELFCOMPRESS_ZLIB, 0, claim, 1 };
	uLongf zlen = compressBound((uLong)rawlen);
	unsigned char *z = malloc(zlen);

	if (z == NULL || compress2(z, &zlen, raw, (uLong)rawlen, 9) != Z_OK)
		errx(1, "compress");
	s->sh_offset = m->len;
	s->sh_size = sizeof(ch) + zlen;
	s->sh_flags |= SHF_COMPRESSED;
	append(m, &ch, sizeof(ch));
	append(m, z, zlen);
	free(z);
}

/* Section name as mib MiB of zeros, deflated without holding them. */
static void
zlib_bomb(struct img *m, const char *name, size_t mib)
{
	static unsigned char zeros[1 << 20], out[1 << 16];
	Elf64_Shdr *s = find(m, name);
	Elf64_Chdr ch = { ELFCOMPRESS_ZLIB, 0, (uint64_t)mib << 20, 1 };
	z_stream z;
	size_t i;
	int flush, rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, Z_BEST_SPEED) != Z_OK)
		errx(1, "deflateInit");
	s->sh_offset = m->len;
	s->sh_flags |= SHF_COMPRESSED;
	s->sh_addralign = 1;
	append(m, &ch, sizeof(ch));
	for (i = 0; i <= mib; i++) {
		flush = i == mib ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = zeros;
		z.avail_in = i == mib ? 0 : sizeof(zeros);
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			rc = deflate(&z, flush);
			if (rc == Z_STREAM_ERROR)
				errx(1, "deflate");
			append(m, out, sizeof(out) - z.avail_out);
		} while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	}
	/* append() may have moved the image: find the header again. */
	s = find(m, name);
	s->sh_size = m->len - s->sh_offset;
	(void)deflateEnd(&z);
}

static void
zlib_claim(struct img *m, Elf64_Shdr *s, uint64_t claim)
{
	Elf64_Chdr ch = { ELFCOMPRESS_ZLIB, 0, claim, 1 };

	if (s->sh_size < sizeof(ch))
		errx(1, "section too small");
	memcpy(m->b + s->sh_offset, &ch, sizeof(ch));
	s->sh_flags |= SHF_COMPRESSED;
}

static void
garbage(struct img *m)
{
	uint32_t x = 2463534242u;
	size_t i, j;

	for (i = 1; i < ehdr(m)->e_shnum; i++) {
		Elf64_Shdr *s = shdr(m, i);

		if (strncmp(secname(m, i), ".debug_", 7) != 0)
			continue;
		for (j = 0; j < s->sh_size; j++) {
			x ^= x << 13; /* xorshift32 */
			x ^= x >> 17;
			x ^= x << 5;
			m->b[s->sh_offset + j] = (unsigned char)x;
		}
	}
}

static void
debuglink(struct img *m, const char *target)
{
	Elf64_Shdr *s = find(m, ".gnu_debuglink");
	const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 :
	    target;
	size_t n = strlen(base), at = (n + 1 + 3) / 4 * 4;
	struct img t;
	uint32_t crc;

	load(&t, target);
	crc = (uint32_t)crc32(0L, t.b, (uInt)t.len);
	free(t.b);
	if (at + 4 > s->sh_size)
		errx(1, "%s: name too long for .gnu_debuglink", base);
	memset(m->b + s->sh_offset, 0, s->sh_size);
	memcpy(m->b + s->sh_offset, base, n);
	memcpy(m->b + s->sh_offset + at, &crc, 4);
}

static void
each_section(struct img *m, uint64_t off, uint64_t size)
{
	size_t i;

	for (i = 1; i < ehdr(m)->e_shnum; i++) {
		shdr(m, i)->sh_offset = off;
		shdr(m, i)->sh_size = size ? size : m->len - off;
	}
}

static void
phdr_absurd(struct img *m)
{
	Elf64_Phdr *p = (Elf64_Phdr *)(void *)(m->b + ehdr(m)->e_phoff);
	size_t i;

	for (i = 0; i < ehdr(m)->e_phnum; i++)
		if (p[i].p_type == PT_LOAD) {
			p[i].p_offset = (uint64_t)1 << 63;
			p[i].p_filesz = (uint64_t)1 << 62;
		}
}

/* The sections the recorder reads besides the build-id: its unwinder's
 * CFI (libsp/unwind/cfi_table.c). */
enum cfi_mut { CFI_SIZE, CFI_OFFSET, CFI_CLAIM };

static void
cfi_sections(struct img *m, enum cfi_mut what, uint64_t arg)
{
	static const char *const names[] = { ".eh_frame_hdr", ".eh_frame",
	    ".debug_frame" };
	Elf64_Shdr *s;
	size_t i, n = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((s = lookup(m, names[i])) == NULL)
			continue;
		n++;
		if (what == CFI_SIZE)
			s->sh_size = m->len - s->sh_offset + arg;
		else if (what == CFI_OFFSET)
			s->sh_offset = m->len + arg;
		else
			zlib_claim(m, s, arg);
	}
	if (n == 0)
		errx(1, "no CFI section");
}

/* ARG as a number, or dflt without one. */
static uint64_t
num(const char *arg, uint64_t dflt)
{
	return arg ? strtoull(arg, NULL, 0) : dflt;
}

static void
mutate(struct img *m, const char *what, const char *arg)
{
	if (strcmp(what, "cut-headers") == 0) {
		uint64_t at = num(arg, ehdr(m)->e_shoff);

		if (at > m->len)
			errx(1, "the file has fewer than %s bytes", arg);
		m->len = (size_t)at;
	} else if (strcmp(what, "cut-sections") == 0)
		cut_sections(m, (unsigned)num(arg, 50));
	else if (strcmp(what, "symtab-billions") == 0)
		find(m, ".symtab")->sh_size = (uint64_t)24 << 31;
	else if (strcmp(what, "symtab-entsize") == 0)
		find(m, ".symtab")->sh_entsize = 7;
	else if (strcmp(what, "symtab-link") == 0)
		find(m, ".symtab")->sh_link = 60000;
	else if (strcmp(what, "overlap") == 0)
		each_section(m, 64, 0);
	else if (strcmp(what, "absurd") == 0)
		each_section(m, ~(uint64_t)4095, 8192);
	else if (strcmp(what, "zlib-claim") == 0) {
		zlib_claim(m, find(m, ".debug_info"), (uint64_t)496 << 20);
		zlib_claim(m, find(m, ".debug_line"), (uint64_t)496 << 20);
	} else if (strcmp(what, "zlib-bomb") == 0) {
		zlib_bomb(m, ".debug_info", (size_t)num(arg, 256));
		zlib_bomb(m, ".debug_line", (size_t)num(arg, 256));
	} else if (strcmp(what, "frame-bomb") == 0)
		zlib_bomb(m, ".debug_frame", (size_t)num(arg, 2048));
	else if (strcmp(what, "eh-bomb") == 0)
		zlib_bomb(m, ".eh_frame", (size_t)num(arg, 2048));
	else if (strcmp(what, "cfi-size") == 0)
		cfi_sections(m, CFI_SIZE, num(arg, 4096));
	else if (strcmp(what, "cfi-hole") == 0) {
		m->hole = num(arg, (uint64_t)400 << 20);
		cfi_sections(m, CFI_SIZE, m->hole);
	} else if (strcmp(what, "cfi-offset") == 0)
		cfi_sections(m, CFI_OFFSET, num(arg, 4096));
	else if (strcmp(what, "cfi-claim") == 0)
		cfi_sections(m, CFI_CLAIM, num(arg, (uint64_t)1 << 40));
	else if (strcmp(what, "zlib-short") == 0) {
		Elf64_Shdr *s = find(m, ".debug_info");
		unsigned char *raw = malloc(s->sh_size);

		if (raw == NULL)
			err(1, "malloc");
		memcpy(raw, m->b + s->sh_offset, s->sh_size);
		put_compressed(m, s, raw, s->sh_size, 2 * s->sh_size);
		free(raw);
	} else if (strcmp(what, "garbage-debug") == 0)
		garbage(m);
	else if (strcmp(what, "debuglink") == 0 && arg != NULL)
		debuglink(m, arg);
	else if (strcmp(what, "shstrndx") == 0)
		ehdr(m)->e_shstrndx = 65000;
	else if (strcmp(what, "phdr-absurd") == 0)
		phdr_absurd(m);
	else
		errx(2, "unknown mutation %s", what);
}

int
main(int argc, char **argv)
{
	struct img m;
	FILE *f;

	if (argc < 4 || argc > 5)
		errx(2, "usage: elfmut MUTATION IN OUT [ARG]");
	load(&m, argv[2]);
	mutate(&m, argv[1], argc == 5 ? argv[4] : NULL);
	f = fopen(argv[3], "wb");
	if (f == NULL || fwrite(m.b, 1, m.len, f) != m.len || fflush(f) != 0 ||
	    ftruncate(fileno(f), (off_t)(m.len + m.hole)) != 0 || fclose(f) != 0)
		err(1, "%s", argv[3]);
	free(m.b);
	return 0;
}
