/* SPDX-License-Identifier: MIT */
/*
 * The DWARF readers against independent symbolizers: binaries the build
 * compiles from tests/workloads/inl.c (gcc DWARF 5, DWARF 4, 64-bit
 * DWARF, compressed sections; clang DWARF 5) and the build's own static
 * sp-dump, looked up at every byte of their functions (from nm) and
 * compared with addr2line -f -i (or llvm-symbolizer, see below): names,
 * file basenames, lines, and the inline chain's length and order.  Then
 * hand-made sections for the bounds.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cursor_int.h"
#include "dwarf/debuginfo_int.h"

/* An ELF file's DWARF sections, read with libelf (the test's own loader). */
struct dwfile {
	int fd;
	Elf *elf;
	struct sp_dwarf_sections s;
	int compressed;          /* some section was SHF_COMPRESSED */
};

static struct sp_dwarf_bytes *
section_slot(struct sp_dwarf_sections *s, const char *name)
{
	static const char *names[] = { ".debug_info", ".debug_abbrev",
		".debug_line", ".debug_str", ".debug_line_str",
		".debug_str_offsets", ".debug_addr", ".debug_ranges",
		".debug_rnglists", ".debug_aranges" };
	struct sp_dwarf_bytes *slots[] = { &s->info, &s->abbrev, &s->line,
		&s->str, &s->line_str, &s->str_offsets, &s->addr, &s->ranges,
		&s->rnglists, &s->aranges };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return slots[i];
	return NULL;
}

static void
dwfile_open(const char *path, struct dwfile *f)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(f, 0, sizeof(*f));
	(void)elf_version(EV_CURRENT);
	f->fd = open(path, O_RDONLY);
	cr_assert(f->fd >= 0, "%s: not built?", path);
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	cr_assert_not_null(f->elf);
	cr_assert_eq(elf_getshdrstrndx(f->elf, &shstrndx), 0);
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		struct sp_dwarf_bytes *b;
		GElf_Shdr sh;
		Elf_Data *d;

		cr_assert_not_null(gelf_getshdr(scn, &sh));
		b = section_slot(&f->s, elf_strptr(f->elf, shstrndx,
		    sh.sh_name));
		if (b == NULL || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_flags & SHF_COMPRESSED) {
			cr_assert_geq(elf_compress(scn, 0, 0), 0);
			f->compressed = 1;
		}
		d = elf_getdata(scn, NULL);
		cr_assert_not_null(d);
		b->p = d->d_buf;
		b->len = d->d_size;
	}
}

static void
dwfile_close(struct dwfile *f)
{
	(void)elf_end(f->elf);
	(void)close(f->fd);
}

/* Function symbols (nm -S) whose name starts with prefix. */
struct func {
	uint64_t addr, size;
};

static size_t
nm_funcs(const char *bin, const char *prefix, struct func **out)
{
	char cmd[512], line[1024], name[512], type;
	unsigned long long a, sz;
	size_t n = 0, cap = 0;
	FILE *p;

	*out = NULL;
	(void)snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", bin);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p) != NULL) {
		if (sscanf(line, "%llx %llx %c %511s", &a, &sz, &type,
		    name) != 4 || (type != 't' && type != 'T') || sz == 0 ||
		    strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = realloc(*out, cap * sizeof(**out));
			cr_assert_not_null(*out);
		}
		(*out)[n].addr = a;
		(*out)[n++].size = sz;
	}
	cr_assert_eq(pclose(p), 0);
	return n;
}

#define MAXF 16

/* One address's frames as a symbolizer prints them. */
struct ref {
	size_t n;
	struct {
		char func[256], file[256];  /* "??" when unknown */
		unsigned line;              /* 0 for "?" */
		unsigned col;               /* LLVM style: file:line:col */
	} f[MAXF];
};

/* The reference prints columns (llvm-symbolizer's LLVM style): compare
 * them too. */
static int with_columns;

static const char *
base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* "file:line" with an optional " (discriminator N)". */
static void
parse_loc(char *s, char *file, unsigned *line, unsigned *col)
{
	char *colon, *disc = strstr(s, " (discriminator");

	if (disc != NULL)
		*disc = '\0';
	*col = 0;
	if (with_columns) {
		colon = strrchr(s, ':');
		cr_assert_not_null(colon, "location %s", s);
		*col = (unsigned)strtoul(colon + 1, NULL, 10);
		*colon = '\0';
	}
	colon = strrchr(s, ':');
	cr_assert_not_null(colon, "location %s", s);
	*colon = '\0';
	(void)snprintf(file, 256, "%.255s", base(s));
	*line = (unsigned)strtoul(colon + 1, NULL, 10);
}

/* Runs tool ("addr2line -a -f -i -e" or the llvm-symbolizer equivalent)
 * over addrs, whose output blocks each start with the address. */
static void
reference(const char *tool, const char *bin, const uint64_t *addrs,
    size_t n, struct ref *out)
{
	char path[] = "/tmp/sp-dwarf-XXXXXX", cmd[1024], line[1024];
	int fd = mkstemp(path), k = -1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL, *p;
	size_t i;

	cr_assert_not_null(f);
	for (i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)addrs[i]);
	cr_assert_eq(fclose(f), 0);
	(void)snprintf(cmd, sizeof(cmd), "%s %s < %s", tool, bin, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	memset(out, 0, n * sizeof(*out));
	while (fgets(line, sizeof(line), p) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0')
			continue;   /* LLVM style ends each address's block so */
		if (strncmp(line, "0x", 2) == 0 && line[strspn(line + 2,
		    "0123456789abcdef") + 2] == '\0') {
			k++;
			cr_assert_lt((size_t)k, n);
			continue;
		}
		cr_assert_geq(k, 0);
		if (out[k].n == MAXF)
			continue;
		(void)snprintf(out[k].f[out[k].n].func, 256, "%.255s", line);
		cr_assert_not_null(fgets(line, sizeof(line), p));
		line[strcspn(line, "\n")] = '\0';
		parse_loc(line, out[k].f[out[k].n].file,
		    &out[k].f[out[k].n].line, &out[k].f[out[k].n].col);
		out[k].n++;
	}
	cr_assert_eq(pclose(p), 0);
	(void)unlink(path);
	cr_assert_eq((size_t)k + 1, n, "%s answered %d of %zu", tool, k + 1,
	    n);
}

struct tally {
	size_t compared;         /* addresses with DWARF, compared */
	size_t nodwarf;          /* neither side has DWARF there */
	size_t inlined;          /* of the compared, with inlined frames */
	size_t deepest;
};

static void
check_one(uint64_t a, const struct ref *r, const struct sp_dwarf_frame *f,
    int n, struct tally *t)
{
	int i;

	cr_assert_geq(n, 0, "0x%llx: error %d", (unsigned long long)a, n);
	/* The tools fall back to the symbol table where no unit covers an
	 * address; the reader rightly finds nothing there. */
	if (n == 0) {
		cr_assert(r->n == 1 && (r->f[0].line == 0 ||
		    strcmp(r->f[0].file, "??") == 0),
		    "0x%llx: no frames, the tool has %s:%u",
		    (unsigned long long)a, r->f[0].file, r->f[0].line);
		t->nodwarf++;
		return;
	}
	cr_assert_eq((size_t)n, r->n, "0x%llx: %d frames, the tool %zu",
	    (unsigned long long)a, n, r->n);
	for (i = 0; i < n; i++) {
		cr_assert_str_eq(f[i].function ? f[i].function : "??",
		    r->f[i].func, "0x%llx frame %d", (unsigned long long)a, i);
		cr_assert_str_eq(f[i].file ? base(f[i].file) : "??",
		    r->f[i].file, "0x%llx frame %d", (unsigned long long)a, i);
		cr_assert_eq(f[i].line, r->f[i].line, "0x%llx frame %d",
		    (unsigned long long)a, i);
		if (with_columns)
			cr_assert_eq(f[i].column, r->f[i].col, "0x%llx frame "
			    "%d: column %u, the tool's %u", (unsigned long long)a,
			    i, f[i].column, r->f[i].col);
	}
	t->compared++;
	t->inlined += n > 1;
	if ((size_t)n > t->deepest)
		t->deepest = (size_t)n;
}

/* Every stride-th byte of the functions named prefix* in bin. */
static void
compare(const struct dwfile *df, const char *bin, const char *tool,
    const char *prefix, unsigned stride, struct tally *t)
{
	struct sp_dwarf_frame fr[MAXF];
	struct sp_dwarf *d;
	struct func *fn;
	size_t nf = nm_funcs(bin, prefix, &fn), n = 0, cap = 0, i;
	uint64_t *addrs = NULL, a;
	struct ref *refs;

	memset(t, 0, sizeof(*t));
	cr_assert_gt(nf, 0, "%s: no functions %s*", bin, prefix);
	for (i = 0; i < nf; i++) {
		for (a = fn[i].addr; a < fn[i].addr + fn[i].size; a += stride) {
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				addrs = realloc(addrs, cap * sizeof(*addrs));
				cr_assert_not_null(addrs);
			}
			addrs[n++] = a;
		}
	}
	refs = calloc(n, sizeof(*refs));
	cr_assert_not_null(refs);
	reference(tool, bin, addrs, n, refs);
	cr_assert_eq(spi_dwarf_open(&df->s, &d), 0);
	for (i = 0; i < n; i++) {
		check_one(addrs[i], &refs[i], fr,
		    spi_dwarf_lookup(d, addrs[i], fr, MAXF), t);
		/* A short out[] keeps the innermost frames. */
		if (refs[i].n > 2) {
			cr_assert_eq(spi_dwarf_lookup(d, addrs[i], fr, 2), 2);
			cr_assert_str_eq(fr[1].function, refs[i].f[1].func);
			cr_assert_eq(fr[1].line, refs[i].f[1].line);
		}
	}
	spi_dwarf_free(d);
	free(refs);
	free(addrs);
	free(fn);
}

#define ADDR2LINE "addr2line -a -f -i -e"
/* Binutils 2.40 skips inlined subroutines whose DW_AT_ranges use
 * DW_FORM_rnglistx (clang's DWARF 5), so clang's binary is checked
 * against LLVM's symbolizer instead. */
#define LLVM_SYMBOLIZER "llvm-symbolizer --output-style=GNU -a -f -i --obj"

/* The inl binaries: all their code is from inl.c, with inline chains
 * up to mix <- leaf <- middle <- outer <- first (5 frames). */
static void
compare_inl(const char *bin, const char *tool, unsigned version)
{
	struct dwfile df;
	struct tally t;
	struct sp_cur c;
	uint32_t len;

	dwfile_open(bin, &df);
	/* The build made what the test is about (DWARF 5 §7.5.1.1). */
	c = sp_cur_make(df.s.info.p, df.s.info.len);
	len = sp_rd_u32(&c);
	if (len == 0xffffffffu)
		(void)sp_rd_u64(&c);
	cr_assert_eq(sp_rd_u8(&c), version, "%s: DWARF version", bin);
	compare(&df, bin, tool, "", 1, &t);
	cr_assert_gt(t.compared, 500, "%s: %zu compared", bin, t.compared);
	cr_assert_gt(t.inlined, 200);
	cr_assert_eq(t.deepest, 5, "%s: deepest chain %zu", bin, t.deepest);
	dwfile_close(&df);
}

Test(dwarf, gcc_dwarf5_matches_addr2line)
{
	compare_inl("build/tests/inl-dw5", ADDR2LINE, 5);
}

Test(dwarf, gcc_dwarf4_matches_addr2line)
{
	compare_inl("build/tests/inl-dw4", ADDR2LINE, 4);
}

Test(dwarf, clang_dwarf5_matches_llvm_symbolizer)
{
	compare_inl("build/tests/inl-clang", LLVM_SYMBOLIZER, 5);
}

/* Columns: LLVM's style prints file:line:column for every frame, the
 * callers' from DW_AT_call_column. */
#define LLVM_COLUMNS "llvm-symbolizer --output-style=LLVM --print-address " \
	"-f -i --obj"

Test(dwarf, columns_match_llvm_symbolizer)
{
	with_columns = 1;
	compare_inl("build/tests/inl-clang", LLVM_COLUMNS, 5);
	compare_inl("build/tests/inl-dw5", LLVM_COLUMNS, 5);
	with_columns = 0;
}

Test(dwarf, dwarf64_matches_addr2line)
{
	struct dwfile df;

	dwfile_open("build/tests/inl-dw64", &df);
	cr_assert_eq(sp_le32(df.s.info.p), 0xffffffffu, "64-bit .debug_info");
	cr_assert_eq(sp_le32(df.s.line.p), 0xffffffffu, "64-bit .debug_line");
	dwfile_close(&df);
	compare_inl("build/tests/inl-dw64", ADDR2LINE, 5);
}

Test(dwarf, compressed_sections_match_addr2line)
{
	struct dwfile df;

	dwfile_open("build/tests/inl-gz", &df);
	cr_assert(df.compressed, "-gz made no SHF_COMPRESSED section");
	dwfile_close(&df);
	compare_inl("build/tests/inl-gz", ADDR2LINE, 5);
}

Test(dwarf, without_aranges_the_unit_dies_index_the_units)
{
	struct dwfile df;
	struct tally t;

	dwfile_open("build/tests/inl-dw5", &df);
	cr_assert_gt(df.s.aranges.len, 0);
	memset(&df.s.aranges, 0, sizeof(df.s.aranges));
	compare(&df, "build/tests/inl-dw5", ADDR2LINE, "", 1, &t);
	cr_assert_gt(t.compared, 500);
	cr_assert_eq(t.deepest, 5);
	dwfile_close(&df);
}

/* Our own static binary: libsp and sp-dump have DWARF 5, musl has none
 * (but its crt1.c has some, where binutils 2.40 names the wrong file of
 * a DWARF 5 table, so the sample is libsp's sp_* functions). */
Test(dwarf, sp_dump_matches_addr2line)
{
	static const char bin[] = "build/musl/sp-dump/sp-dump";
	struct sp_dwarf_frame fr[MAXF];
	struct sp_dwarf *d;
	struct dwfile df;
	struct tally t;
	struct func *fn;
	size_t nf, i;

	dwfile_open(bin, &df);
	compare(&df, bin, ADDR2LINE, "sp_", 2, &t);
	cr_assert_gt(t.compared, 3000, "%zu compared", t.compared);
	cr_assert_gt(t.inlined, 300, "%zu inlined", t.inlined);
	/* musl's internal functions have no DWARF: no unit covers them. */
	nf = nm_funcs(bin, "__", &fn);
	cr_assert_gt(nf, 0);
	cr_assert_eq(spi_dwarf_open(&df.s, &d), 0);
	for (i = 0; i < nf; i++)
		cr_assert_eq(spi_dwarf_lookup(d, fn[i].addr, fr, MAXF), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0, fr, MAXF), 0);
	cr_assert_eq(spi_dwarf_lookup(d, UINT64_MAX, fr, MAXF), 0);
	spi_dwarf_free(d);
	free(fn);
	dwfile_close(&df);
}

/* A unit whose bytes are broken fails alone; the others still answer. */
Test(dwarf, a_malformed_unit_leaves_the_others_usable)
{
	static const char bin[] = "build/musl/sp-dump/sp-dump";
	struct sp_dwarf_frame a[MAXF], b[MAXF];
	struct sp_dwarf *good, *bad;
	struct sp_dwarf_sections s;
	size_t nf, i, off = 0, units = 0, same = 0, failed = 0;
	struct dwfile df;
	struct func *fn;
	uint8_t *info;

	dwfile_open(bin, &df);
	s = df.s;
	info = malloc(s.info.len);
	cr_assert_not_null(info);
	memcpy(info, s.info.p, s.info.len);
	/* The middle unit (32-bit DWARF 5 headers: 12 bytes, then the unit
	 * DIE's abbreviation code, made 16383, which no table has). */
	while (off < s.info.len) {
		units++;
		off += 4 + sp_le32(info + off);
	}
	cr_assert_gt(units, 4);
	for (off = 0, i = 0; i < units / 2; i++)
		off += 4 + sp_le32(info + off);
	cr_assert_eq(info[off + 4], 5);
	info[off + 12] = 0xff;
	info[off + 13] = 0x7f;
	s.info.p = info;
	cr_assert_eq(spi_dwarf_open(&df.s, &good), 0);
	cr_assert_eq(spi_dwarf_open(&s, &bad), 0);
	nf = nm_funcs(bin, "", &fn);
	for (i = 0; i < nf; i++) {
		int na = spi_dwarf_lookup(good, fn[i].addr, a, MAXF);
		int nb = spi_dwarf_lookup(bad, fn[i].addr, b, MAXF);

		if (nb == -SP_EFORMAT && na > 0) {
			failed++;
			continue;
		}
		cr_assert_eq(na, nb);
		for (; nb > 0; nb--) {
			cr_assert_str_eq(a[nb - 1].function ?
			    a[nb - 1].function : "", b[nb - 1].function ?
			    b[nb - 1].function : "");
			cr_assert_eq(a[nb - 1].line, b[nb - 1].line);
			same++;
		}
	}
	cr_assert_gt(failed, 0);
	cr_assert_gt(same, 50, "%zu failed, %zu same", failed, same);
	spi_dwarf_free(good);
	spi_dwarf_free(bad);
	free(fn);
	free(info);
	dwfile_close(&df);
}

/* Hand-made sections (DWARF 4), for what compilers do not emit. */
struct wbuf {
	uint8_t b[4096];
	size_t n;
};

static void
put(struct wbuf *w, uint64_t v, unsigned size)
{
	cr_assert_leq(w->n + size, sizeof(w->b));
	while (size-- > 0) {
		w->b[w->n++] = (uint8_t)v;
		v >>= 8;
	}
}

static void
puts_(struct wbuf *w, const char *s)
{
	do
		put(w, (uint8_t)*s, 1);
	while (*s++ != '\0');
}

enum { AB_CU = 1, AB_SUB, AB_BLOCK, AB_ORIGIN_SUB, AB_INLINED, AB_DECL,
	AB_DECL_LINK, AB_SPEC };

/* A DIE of abbreviation ab: a reference (DW_AT_abstract_origin) to the
 * DIE at origin, then low and high pc (as a length). */
static void
put_ref_range(struct wbuf *w, unsigned ab, size_t origin, uint64_t lo,
    uint32_t len)
{
	put(w, ab, 1);
	put(w, origin, 4);
	put(w, lo, 8);
	put(w, len, 4);
}

/* A subprogram named name over [lo, lo + len), with children. */
static void
put_sub(struct wbuf *w, const char *name, uint64_t lo, uint32_t len)
{
	put(w, AB_SUB, 1);
	puts_(w, name);
	put(w, lo, 8);
	put(w, len, 4);
}

static void
abbrevs(struct wbuf *w)
{
	static const uint8_t ab[] = {
		AB_CU, 0x11, 1, 0x10, 0x17, 0x11, 0x01, 0x12, 0x06, 0, 0,
		AB_SUB, 0x2e, 1, 0x03, 0x08, 0x11, 0x01, 0x12, 0x06, 0, 0,
		AB_BLOCK, 0x0b, 1, 0, 0,
		AB_ORIGIN_SUB, 0x2e, 0, 0x31, 0x13, 0x11, 0x01, 0x12, 0x06,
		0, 0,
		AB_INLINED, 0x1d, 0, 0x31, 0x13, 0x11, 0x01, 0x12, 0x06,
		0x58, 0x0b, 0x59, 0x0b, 0, 0,
		AB_DECL, 0x2e, 0, 0x03, 0x08, 0, 0,
		AB_DECL_LINK, 0x2e, 0, 0x03, 0x08, 0x6e, 0x08, 0, 0,
		AB_SPEC, 0x2e, 0, 0x47, 0x13, 0, 0,
		0 };

	memcpy(w->b, ab, sizeof(ab));
	w->n = sizeof(ab);
}

/* A v4 line table for /src/a.c: [0x1000, 0x1100) line 7, then line 8
 * up to 0x2000. */
static void
line_table(struct wbuf *w)
{
	static const uint8_t std[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	size_t hl;

	w->n = 0;
	put(w, 0, 4);
	put(w, 4, 2);
	hl = w->n;
	put(w, 0, 4);
	put(w, 1, 1);
	put(w, 1, 1);
	put(w, 1, 1);
	put(w, (uint8_t)-5, 1);
	put(w, 14, 1);
	put(w, 13, 1);
	memcpy(w->b + w->n, std, sizeof(std));
	w->n += sizeof(std);
	puts_(w, "/src");
	put(w, 0, 1);
	puts_(w, "a.c");
	put(w, 0x000001, 3);	/* dir 1, mtime 0, length 0 */
	put(w, 0, 1);
	sp_put_le32(w->b + hl, (uint32_t)(w->n - hl - 4));
	put(w, 0x020900, 3);	/* DW_LNE_set_address */
	put(w, 0x1000, 8);
	put(w, 0x0603, 2);	/* advance_line 6 */
	put(w, 1, 1);		/* copy */
	put(w, 0x028002, 3);	/* advance_pc 0x100 */
	put(w, 0x0103, 2);	/* advance_line 1 */
	put(w, 1, 1);
	put(w, 0x1e8002, 3);	/* advance_pc 0xf00 */
	put(w, 0x010100, 3);	/* DW_LNE_end_sequence */
	sp_put_le32(w->b, (uint32_t)(w->n - 4));
}

/* A unit header and its compile-unit DIE over [0x1000, 0x2000). */
static void
unit_start(struct wbuf *w)
{
	w->n = 0;
	put(w, 0, 4);
	put(w, 4, 2);
	put(w, 0, 4);
	put(w, 8, 1);
	put(w, AB_CU, 1);
	put(w, 0, 4);
	put(w, 0x1000, 8);
	put(w, 0x1000, 4);
}

static void
unit_end(struct wbuf *w)
{
	put(w, 0, 1);
	sp_put_le32(w->b, (uint32_t)(w->n - 4));
}

static void
sections(struct sp_dwarf_sections *s, struct wbuf *info, struct wbuf *ab,
    struct wbuf *line)
{
	memset(s, 0, sizeof(*s));
	abbrevs(ab);
	line_table(line);
	s->info.p = info->b;
	s->info.len = info->n;
	s->abbrev.p = ab->b;
	s->abbrev.len = ab->n;
	s->line.p = line->b;
	s->line.len = line->n;
}

Test(dwarf, hand_made_unit_names_lines_and_inline_chain)
{
	static struct wbuf info, ab, line;
	struct sp_dwarf_frame f[4];
	struct sp_dwarf_sections s;
	struct sp_dwarf *d;
	size_t decl;

	unit_start(&info);
	decl = info.n;
	put(&info, AB_DECL, 1);
	puts_(&info, "g");
	put_sub(&info, "f", 0x1000, 0x200);
	put_ref_range(&info, AB_INLINED, decl, 0x1080, 0x100);
	put(&info, 0x2a01, 2);	/* call_file 1, call_line 42 */
	put(&info, 0, 1);
	unit_end(&info);
	sections(&s, &info, &ab, &line);
	cr_assert_eq(spi_dwarf_open(&s, &d), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1000, f, 4), 1);
	cr_assert_str_eq(f[0].function, "f");
	cr_assert_str_eq(f[0].file, "/src/a.c");
	cr_assert_eq(f[0].line, 7);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1100, f, 4), 2);
	cr_assert_str_eq(f[0].function, "g");
	cr_assert_eq(f[0].line, 8);
	cr_assert_str_eq(f[1].function, "f");
	cr_assert_str_eq(f[1].file, "/src/a.c");
	cr_assert_eq(f[1].line, 42);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1fff, f, 4), 1, "unit, no function");
	cr_assert_null(f[0].function);
	cr_assert_eq(f[0].line, 8);
	cr_assert_eq(spi_dwarf_lookup(d, 0x2000, f, 4), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0xfff, f, 4), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1000, f, 0), -SP_EUSAGE);
	spi_dwarf_free(d);
}

/*
 * As g++ writes a method inlined and out of line: the declaration in its
 * class has DW_AT_name and DW_AT_linkage_name, the abstract instance
 * only DW_AT_specification, the inlined and concrete copies point at
 * the abstract instance.  The linkage name is taken (it demangles to the
 * qualified name); a C function's DW_AT_name where there is none.
 */
Test(dwarf, linkage_names_through_origin_and_specification)
{
	static struct wbuf info, ab, line;
	struct sp_dwarf_frame f[4];
	struct sp_dwarf_sections s;
	struct sp_dwarf *d;
	size_t decl, abstract, cdecl;

	unit_start(&info);
	decl = info.n;
	put(&info, AB_DECL_LINK, 1);
	puts_(&info, "m");
	puts_(&info, "_ZN1A1mEv");
	abstract = info.n;
	put(&info, AB_SPEC, 1);
	put(&info, decl, 4);
	cdecl = info.n;
	put(&info, AB_DECL, 1);
	puts_(&info, "g");
	put_sub(&info, "f", 0x1000, 0x200);
	put_ref_range(&info, AB_INLINED, abstract, 0x1080, 0x100);
	put(&info, 0x2a01, 2);	/* call_file 1, call_line 42 */
	put_ref_range(&info, AB_INLINED, cdecl, 0x1190, 0x10);
	put(&info, 0x2b01, 2);
	put(&info, 0, 1);
	put_ref_range(&info, AB_ORIGIN_SUB, abstract, 0x1400, 0x100);
	unit_end(&info);
	sections(&s, &info, &ab, &line);
	cr_assert_eq(spi_dwarf_open(&s, &d), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1080, f, 4), 2);
	cr_assert_str_eq(f[0].function, "_ZN1A1mEv", "inlined method");
	cr_assert_str_eq(f[1].function, "f");
	cr_assert_eq(f[1].line, 42);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1190, f, 4), 2);
	cr_assert_str_eq(f[0].function, "g", "inlined C function");
	cr_assert_eq(spi_dwarf_lookup(d, 0x1400, f, 4), 1);
	cr_assert_str_eq(f[0].function, "_ZN1A1mEv", "method out of line");
	spi_dwarf_free(d);
}

Test(dwarf, origin_cycles_end_without_a_name)
{
	static struct wbuf info, ab, line;
	struct sp_dwarf_frame f[4];
	struct sp_dwarf_sections s;
	struct sp_dwarf *d;
	size_t self, x;

	unit_start(&info);
	self = info.n;		/* its own origin */
	put_ref_range(&info, AB_ORIGIN_SUB, self, 0x1000, 0x100);
	x = info.n;		/* two pointing at each other */
	put_ref_range(&info, AB_ORIGIN_SUB, x + 17, 0x1100, 0x100);
	put_ref_range(&info, AB_ORIGIN_SUB, x, 0x1200, 0x100);
	unit_end(&info);
	sections(&s, &info, &ab, &line);
	cr_assert_eq(spi_dwarf_open(&s, &d), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1000, f, 4), 1);
	cr_assert_null(f[0].function);
	cr_assert_eq(f[0].line, 7);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1100, f, 4), 1);
	cr_assert_null(f[0].function);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1200, f, 4), 1);
	cr_assert_null(f[0].function);
	spi_dwarf_free(d);
}

static int
nested(unsigned depth, uint64_t addr)
{
	static struct wbuf info, ab, line;
	struct sp_dwarf_frame f[4];
	struct sp_dwarf_sections s;
	struct sp_dwarf *d;
	unsigned i;
	int n;

	unit_start(&info);
	for (i = 0; i < depth; i++)
		put(&info, AB_BLOCK, 1);
	for (i = 0; i < depth; i++)
		put(&info, 0, 1);
	unit_end(&info);
	sections(&s, &info, &ab, &line);
	cr_assert_eq(spi_dwarf_open(&s, &d), 0);
	n = spi_dwarf_lookup(d, addr, f, 4);
	spi_dwarf_free(d);
	return n;
}

Test(dwarf, nesting_is_bounded)
{
	cr_assert_eq(nested(SP_DWARF_DEPTH_MAX - 1, 0x1000), 1);
	cr_assert_eq(nested(SP_DWARF_DEPTH_MAX + 1, 0x1000), -SP_EFORMAT);
	cr_assert_eq(nested(SP_DWARF_DEPTH_MAX + 1, 0x3000), 0,
	    "no unit covers it");
}

Test(dwarf, malformed_line_tables_and_empty_sections)
{
	static struct wbuf info, ab, line;
	struct sp_dwarf_sections s, empty;
	struct sp_dwarf_frame f[4];
	struct sp_dwarf *d;

	memset(&empty, 0, sizeof(empty));
	cr_assert_eq(spi_dwarf_open(&empty, &d), -SP_ENOTFOUND);
	cr_assert_null(d);
	cr_assert_eq(spi_dwarf_open(NULL, &d), -SP_EUSAGE);
	spi_dwarf_free(NULL);
	unit_start(&info);
	unit_end(&info);
	sections(&s, &info, &ab, &line);
	line.b[14] = 0;		/* line_range 0, which special opcodes */
	line.b[line.n - 13] = 0x20;	/* divide by: one for the copy */
	cr_assert_eq(spi_dwarf_open(&s, &d), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1000, f, 4), -SP_EFORMAT);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1000, f, 4), -SP_EFORMAT, "cached");
	spi_dwarf_free(d);
	sections(&s, &info, &ab, &line);
	line.b[0] = 0xf0;	/* unit_length beyond the section */
	cr_assert_eq(spi_dwarf_open(&s, &d), 0);
	cr_assert_eq(spi_dwarf_lookup(d, 0x1000, f, 4), -SP_EFORMAT);
	spi_dwarf_free(d);
}
