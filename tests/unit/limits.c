/* SPDX-License-Identifier: MIT */
/*
 * The limits of docs/limits.md that no other unit test reaches, each
 * at its value (accepted) and one past it (refused or cut, as the page
 * says).
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "common/procfs_int.h"
#include "dwarf/debuginfo_int.h"
#include "elf/elf_int.h"
#include "elf/elfplt_int.h"
#include "elf/elfsym_int.h"
#include "elftest.h"
#include "sp/spool/spool.h"
#include "spool/codec_int.h"
#include "sym/kallsyms_int.h"
#include "unwind/cfi_table_int.h"
#include "unwind/x86_64/x86_64_int.h"

/* A file of size bytes starting with head, the rest a hole. */
static void
sparse_file(const char *path, const char *head, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(write(fd, head, strlen(head)), (ssize_t)strlen(head));
	cr_assert_eq(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

/* --- kallsyms ----------------------------------------------------------- */

/* A text-symbol line of exactly len bytes before its newline. */
static char *
kallsyms_line(size_t len)
{
	static const char head[] = "ffffffff81000000 T ";
	char *s = malloc(len + 2);

	cr_assert_not_null(s);
	cr_assert_gt(len, sizeof(head));
	memcpy(s, head, sizeof(head) - 1);
	memset(s + sizeof(head) - 1, 'x', len - (sizeof(head) - 1));
	s[len] = '\n';
	s[len + 1] = '\0';
	return s;
}

Test(limits, kallsyms_line_of_the_limit_is_read_one_more_is_skipped)
{
	struct sp_kallsyms *k;
	char *ok = kallsyms_line(SP_KALLSYMS_LINE_MAX);
	char *big = kallsyms_line(SP_KALLSYMS_LINE_MAX + 1);

	cr_assert_eq(spi_kallsyms_parse(ok, strlen(ok), &k), 0);
	cr_assert_eq(spi_kallsyms_count(k), 1);
	cr_assert_eq(spi_kallsyms_bad_lines(k), 0);
	spi_kallsyms_free(k);
	cr_assert_eq(spi_kallsyms_parse(big, strlen(big), &k), 0);
	cr_assert_eq(spi_kallsyms_count(k), 0, "the long line is not read");
	cr_assert_eq(spi_kallsyms_bad_lines(k), 1, "and it is counted");
	spi_kallsyms_free(k);
	free(ok);
	free(big);
}

/* n text symbols at addresses 1..n, short lines. */
static char *
kallsyms_text(size_t n, size_t *len)
{
	struct sp_buf b = { 0 };
	char line[48];
	size_t i;

	for (i = 1; i <= n; i++) {
		int l = snprintf(line, sizeof(line), "%zx T f\n", i);

		spi_buf_put(&b, line, (size_t)l);
	}
	cr_assert_eq(b.err, 0);
	*len = b.len;
	return (char *)b.p;
}

Test(limits, kallsyms_entries_up_to_the_limit, .timeout = 120)
{
	struct sp_kallsyms *k;
	size_t len;
	char *text = kallsyms_text(SP_KALLSYMS_ENTRIES_MAX + 1, &len);
	const char *last;

	/* All but the last line: exactly the limit. */
	last = memrchr(text, '\n', len - 1);
	cr_assert_not_null(last);
	cr_assert_eq(spi_kallsyms_parse(text, (size_t)(last + 1 - text), &k),
	    0);
	cr_assert_eq(spi_kallsyms_count(k), SP_KALLSYMS_ENTRIES_MAX);
	spi_kallsyms_free(k);
	k = (struct sp_kallsyms *)text; /* not NULL: the failure clears it */
	cr_assert_eq(spi_kallsyms_parse(text, len, &k), -SP_ELIMIT);
	cr_assert_null(k);
	free(text);
}

Test(limits, kallsyms_file_of_the_limit_is_read_one_more_is_refused)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct sp_kallsyms *k;
	struct sp_diag d;

	tmpdir(dir, "limits-kallsyms");
	pathf(path, "%s/kallsyms", dir);
	/* One symbol, then a hole read as NUL bytes (one bad line). */
	sparse_file(path, "ffffffff81000000 T start\n", SP_KALLSYMS_FILE_MAX);
	cr_assert_eq(spi_kallsyms_open(path, &k, &d), 0, "%s", d.msg);
	cr_assert_eq(spi_kallsyms_count(k), 1);
	spi_kallsyms_free(k);
	sparse_file(path, "ffffffff81000000 T start\n",
	    SP_KALLSYMS_FILE_MAX + 1);
	cr_assert_eq(spi_kallsyms_open(path, &k, &d), -SP_ELIMIT);
	cr_assert(strstr(d.msg, path) != NULL, "the message names the file: %s",
	    d.msg);
	unlink(path);
}

/* --- /proc files ------------------------------------------------------------ */

Test(limits, proc_file_of_the_limit_is_read_one_more_is_refused)
{
	char dir[PATH_MAX], path[PATH_MAX], *buf = NULL;
	size_t len = 0;

	tmpdir(dir, "limits-proc");
	pathf(path, "%s/maps", dir);
	sparse_file(path, "1000-2000 r-xp 00000000 00:00 0\n",
	    SP_PROC_FILE_MAX);
	cr_assert_eq(spi_read_file(path, SP_PROC_FILE_MAX, &buf, &len), 0);
	cr_assert_eq(len, SP_PROC_FILE_MAX);
	free(buf);
	buf = NULL;
	sparse_file(path, "1000-2000 r-xp 00000000 00:00 0\n",
	    SP_PROC_FILE_MAX + 1);
	cr_assert_eq(spi_read_file(path, SP_PROC_FILE_MAX, &buf, &len),
	    -SP_ELIMIT);
	free(buf);
	/* A limit below the first buffer's size holds too. */
	cr_assert_eq(spi_read_file(path, 100, &buf, &len), -SP_ELIMIT);
	unlink(path);
	sparse_file(path, "", 100);
	cr_assert_eq(spi_read_file(path, 100, &buf, &len), 0);
	cr_assert_eq(len, 100);
	free(buf);
	unlink(path);
}

/* --- the spool ------------------------------------------------------------------ */

Test(limits, header_length_up_to_4096)
{
	static uint8_t b[SP_HEADER_MAX + 8];
	struct sp_header h, back;
	struct sp_diag d;

	memset(&h, 0, sizeof(h));
	h.page_size = 4096;
	h.sample_interval_us = 1000;
	sp_header_encode(&h, b);
	b[10] = SP_HEADER_MAX & 0xff;
	b[11] = SP_HEADER_MAX >> 8;
	cr_assert_eq(sp_header_decode(b, sizeof(b), &back, &d), 0, "%s",
	    d.msg);
	cr_assert_eq(back.header_len, SP_HEADER_MAX);
	b[10] = (SP_HEADER_MAX + 1) & 0xff;
	cr_assert_eq(sp_header_decode(b, sizeof(b), &back, &d), -SP_EFORMAT);
	cr_assert_eq(d.offset, 10);
}

/* Encodes r and decodes it back: the decoder's status, why on failure. */
static int
reencode(const struct sp_record *r, struct sp_buf *payload,
    struct sp_diag *why)
{
	struct sp_codec enc, dec;
	struct sp_record back;
	int err;

	spi_codec_init(&enc, 0);
	spi_codec_init(&dec, 0);
	payload->len = 0;
	err = spi_record_payload(&enc, r, payload);
	if (err == 0)
		err = spi_record_decode(&dec, r->kind, payload->p, payload->len,
		    &back, why);
	spi_codec_fini(&enc);
	spi_codec_fini(&dec);
	return err;
}

Test(limits, counter_names_up_to_64_bytes)
{
	char name[SP_COUNTER_NAME_MAX + 2];
	struct sp_counter ctr;
	struct sp_record r;
	struct sp_buf payload = { 0 };
	struct sp_diag why = { 0 };

	memset(name, 'c', sizeof(name));
	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_SUMMARY;
	r.u.summary.counters = &ctr;
	r.u.summary.count = 1;
	ctr.name.s = name;
	ctr.value = 7;
	ctr.name.len = SP_COUNTER_NAME_MAX;
	cr_assert_eq(reencode(&r, &payload, &why), 0, "%s", why.msg);
	ctr.name.len = SP_COUNTER_NAME_MAX + 1;
	cr_assert_eq(reencode(&r, &payload, &why), -SP_EFORMAT);
	cr_assert(strstr(why.msg, "64 bytes") != NULL, "%s", why.msg);
	spi_buf_fini(&payload);
}

Test(limits, rawstack_registers_up_to_64)
{
	static uint8_t regs[8 * (SP_RAWSTACK_REGS_MAX + 1)];
	static const uint8_t stack[16];
	struct sp_record r, back;
	struct sp_buf payload = { 0 };
	struct sp_codec dec;
	struct sp_diag why = { 0 };

	memset(&r, 0, sizeof(r));
	r.kind = SP_REC_RAWSTACK;
	r.u.rawstack.regs = regs;
	r.u.rawstack.stack = stack;
	r.u.rawstack.stack_len = sizeof(stack);
	r.u.rawstack.nregs = SP_RAWSTACK_REGS_MAX;
	cr_assert_eq(reencode(&r, &payload, &why), 0, "%s", why.msg);
	r.u.rawstack.nregs = SP_RAWSTACK_REGS_MAX + 1;
	cr_assert_eq(reencode(&r, &payload, &why), -SP_EUSAGE,
	    "the writer refuses to write one");
	/* And a reader refuses one written by hand: varint 65, the
	 * registers, an empty stack. */
	payload.len = 0;
	spi_buf_varint(&payload, SP_RAWSTACK_REGS_MAX + 1);
	spi_buf_put(&payload, regs, sizeof(regs));
	spi_buf_varint(&payload, 0);
	spi_codec_init(&dec, 0);
	cr_assert_eq(spi_record_decode(&dec, SP_REC_RAWSTACK, payload.p,
	    payload.len, &back, &why), -SP_EFORMAT);
	spi_codec_fini(&dec);
	spi_buf_fini(&payload);
}

/* --- ELF ---------------------------------------------------------------------- */

/* An ELF header and n empty program headers right after it. */
static uint8_t *
elf_with_phdrs(size_t n, size_t *len)
{
	uint8_t *img;
	Elf64_Ehdr *e;

	*len = sizeof(Elf64_Ehdr) + n * sizeof(Elf64_Phdr);
	img = calloc(1, *len);
	cr_assert_not_null(img);
	e = (Elf64_Ehdr *)img;
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = ET_DYN;
	e->e_machine = EM_X86_64;
	e->e_version = EV_CURRENT;
	e->e_ehsize = sizeof(Elf64_Ehdr);
	e->e_phoff = sizeof(Elf64_Ehdr);
	e->e_phentsize = sizeof(Elf64_Phdr);
	e->e_phnum = (Elf64_Half)n;
	return img;
}

Test(limits, elf_program_headers_up_to_4096)
{
	struct sp_elf_file *f;
	struct sp_diag d;
	size_t len;
	uint8_t *img = elf_with_phdrs(SP_ELF_SEGMENTS_MAX, &len);

	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, &d), 0, "%s", d.msg);
	spi_elf_file_free(f);
	free(img);
	img = elf_with_phdrs(SP_ELF_SEGMENTS_MAX + 1, &len);
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, &d), -SP_ELIMIT);
	cr_assert(strstr(d.msg, "program headers"), "%s", d.msg);
	free(img);
}

/*
 * levels functions nested like an onion (.set/.size in one code block):
 * nK starts 16*K bytes in and ends 16*K bytes before the end.  The
 * address 8 bytes before the end is inside n0 only, and the nearest
 * symbol below it is the innermost: the lookup walks out levels - 1
 * enclosing symbols to reach n0.
 */
static void
nested_library(const char *dir, int levels, char *so)
{
	char s[PATH_MAX];
	FILE *f;
	int k;

	pathf(s, "%s/nest%d.s", dir, levels);
	pathf(so, "%s/libnest%d.so", dir, levels);
	f = fopen(s, "w");
	cr_assert_not_null(f);
	fprintf(f, "\t.text\nbase:\n\t.fill 4096, 1, 0xc3\n");
	for (k = 0; k < levels; k++)
		fprintf(f, "\t.globl n%d\n\t.type n%d, @function\n"
		    "\t.set n%d, base + %d\n\t.size n%d, %d\n", k, k, k,
		    16 * k, k, 4096 - 32 * k);
	fclose(f);
	free(run("gcc -shared -nostdlib -o %s %s", so, s));
}

Test(limits, elf_symbols_nested_16_deep_are_found_17_are_not)
{
	char dir[PATH_MAX], so[PATH_MAX];
	struct sp_elf_file *f;
	struct sp_elf_syms *x;
	uint64_t n0, start;
	const char *name;
	int levels;

	tmpdir(dir, "limits-nest");
	/* 16 symbols: 15 enclosing steps; 17: 16 steps... the lookup tries
	 * SP_ELF_SYMS_NEST_MAX symbols, the innermost included. */
	for (levels = SP_ELF_SYMS_NEST_MAX; levels <= SP_ELF_SYMS_NEST_MAX + 1;
	    levels++) {
		nested_library(dir, levels, so);
		n0 = nm_addr(so, 'T', "n0");
		cr_assert_eq(nm_addr(so, 'T', "n1"), n0 + 16, "nm: the nesting");
		cr_assert_eq(spi_elf_file_open(so, &f, NULL), 0);
		cr_assert_eq(spi_elf_syms_load(f, &x), 0);
		name = spi_elf_syms_find(x, n0 + 4096 - 8, &start);
		if (levels == SP_ELF_SYMS_NEST_MAX) {
			cr_assert_str_eq(name != NULL ? name : "(none)", "n0");
			cr_assert_eq(start, n0);
		} else {
			cr_assert_null(name, "%d levels: %s", levels, name);
		}
		/* The innermost one is found at any depth. */
		name = spi_elf_syms_find(x, n0 + 16 * (levels - 1), NULL);
		cr_assert(name != NULL && atoi(name + 1) == levels - 1);
		spi_elf_syms_free(x);
		spi_elf_file_free(f);
	}
}

/* Stubs of plt-lazy's .plt and .plt.got found named SYMBOL@plt at
 * their start. */
static size_t
plt_named(const struct sp_elf_syms *x, const Elf64_Shdr *plt,
    const Elf64_Shdr *got)
{
	const Elf64_Shdr *sec[] = { plt, got };
	const char *name;
	uint64_t a, start;
	size_t n = 0, i, len;

	for (i = 0; i < 2; i++)
		for (a = sec[i]->sh_addr; a < sec[i]->sh_addr +
		    sec[i]->sh_size; a += 8) {
			name = spi_elf_syms_find(x, a, &start);
			len = name != NULL ? strlen(name) : 0;
			n += start == a && len > 4 &&
			    strcmp(name + len - 4, "@plt") == 0;
		}
	return n;
}

/*
 * plt-lazy with every GOT slot's relocation naming one string the size
 * of a whole string table: its 7 stubs would cost 7 times the table.
 * SPI_ELF_PLT_NAMES_MAX bytes of names are made (".plt" first, 5 bytes,
 * then each stub's name, its NUL and "@plt"): as many stubs as fit in
 * it are named, the next one is not.
 */
Test(limits, plt_names_up_to_4_strtab_bytes_plus_64_a_stub)
{
	size_t len, i, fit;
	uint8_t *img = slurp("build/tests/plt-lazy", &len);
	Elf64_Shdr *str = shdr_named(img, ".strtab");
	Elf64_Shdr *sym = shdr_named(img, ".symtab");
	Elf64_Shdr *plt = shdr_named(img, ".plt");
	Elf64_Shdr *got = shdr_named(img, ".plt.got");
	const char *const rela[] = { ".rela.plt", ".rela.dyn" };
	struct sp_elf_file *f;
	struct sp_elf_syms *x;
	uint64_t budget, name_len = str->sh_size - 1;

	memset(img + str->sh_offset, 'a', name_len);
	((Elf64_Sym *)(img + sym->sh_offset))[1].st_name = 0;
	for (i = 0; i < 2; i++) {
		Elf64_Shdr *r = shdr_named(img, rela[i]);
		Elf64_Rela *e = (Elf64_Rela *)(img + r->sh_offset);
		size_t k;

		r->sh_link = (Elf64_Word)(sym - (Elf64_Shdr *)(img +
		    ((Elf64_Ehdr *)img)->e_shoff));
		for (k = 0; k < r->sh_size / sizeof(*e); k++)
			e[k].r_info = ELF64_R_INFO(1, ELF64_R_TYPE(e[k].r_info));
	}
	budget = SPI_ELF_PLT_NAMES_MAX(str->sh_size,
	    (plt->sh_size + got->sh_size) / 8);
	fit = (size_t)((budget - 5) / (name_len + 5));
	cr_assert(fit >= 1 && fit < 7, "the limit is reached: %zu fit", fit);
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), 0);
	cr_assert_eq(plt_named(x, plt, got), fit);
	cr_assert_str_eq(spi_elf_syms_find(x, plt->sh_addr, NULL), ".plt");
	spi_elf_syms_free(x);
	spi_elf_file_free(f);
	free(img);
}

/* --- CFI ------------------------------------------------------------------------ */

Test(limits, cfi_load_segments_all_4096)
{
	/* The CFI table maps offsets through the ELF layer's program
	 * headers: every PT_LOAD up to SP_ELF_SEGMENTS_MAX (it kept 16). */
	size_t len, k, n = SP_ELF_SEGMENTS_MAX;
	uint8_t *img = elf_with_phdrs(n, &len);
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(Elf64_Ehdr));
	struct sp_elf_file *f;
	struct sp_cfi_table *t;
	uint64_t vaddr;

	for (k = 0; k < n; k++) {
		ph[k].p_type = PT_LOAD;
		ph[k].p_flags = PF_R | PF_X;
		ph[k].p_offset = 0x10 * k;
		ph[k].p_vaddr = 0x400000 + 0x1000 * k;
		ph[k].p_filesz = ph[k].p_memsz = 0x10;
		ph[k].p_align = 0x1000;
	}
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	free(img);
	cr_assert_eq(spi_cfi_table_open(f, &t), 0);
	for (k = 0; k < n; k++) {
		cr_assert_eq(spi_cfi_table_vaddr(t, 0x10 * k + 4, &vaddr),
		    0, "segment %zu", k);
		cr_assert_eq(vaddr, 0x400000 + 0x1000 * k + 4);
	}
	cr_assert_neq(spi_cfi_table_vaddr(t, 0x10 * n + 4, &vaddr), 0,
	    "no segment holds that offset");
	spi_cfi_table_free(t);
}

/*
 * An .eh_frame at 0x2000: the CIE of tests/unit/cfi.c (zR, pcrel sdata4,
 * CFA rsp+8, RA at CFA-8), then an FDE for [0x1000, 0x1100) whose
 * program is n DW_CFA_nop, then a terminator.
 */
static uint8_t *
eh_frame_with_program(size_t n, size_t *len)
{
	static const uint8_t cie[] = {
		20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16,
		1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0,
	};
	static const uint8_t fde_head[] = {
		0, 0, 0, 0,              /* length, below */
		28, 0, 0, 0,             /* CIE pointer: back to 0 */
		0xe0, 0xef, 0xff, 0xff,  /* pc_begin: 0x1000 - 0x2020 */
		0x00, 0x01, 0, 0,        /* pc_range 0x100 */
		0,                       /* augmentation length */
	};
	uint32_t flen = (uint32_t)(sizeof(fde_head) - 4 + n);
	uint8_t *p;

	*len = sizeof(cie) + sizeof(fde_head) + n + 4;
	p = calloc(1, *len);    /* nops and the terminator are zeros */
	cr_assert_not_null(p);
	memcpy(p, cie, sizeof(cie));
	memcpy(p + sizeof(cie), fde_head, sizeof(fde_head));
	memcpy(p + sizeof(cie), &flen, 4);
	return p;
}

Test(limits, cfi_program_up_to_65536_bytes_a_row)
{
	struct sp_cfi_section sec = { NULL, 0, 0x2000, 0, 0 };
	struct sp_cfi_row row;
	struct sp_diag why = { 0 };
	uint8_t *eh;

	eh = eh_frame_with_program(SP_CFI_PROGRAM_MAX, &sec.len);
	sec.data = eh;
	cr_assert_eq(spi_cfi_row_at(&sec, 24, 0x1080, &row, NULL, &why), 0,
	    "%s", why.msg);
	cr_assert_eq(row.cfa_reg, X86_64_DW_RSP);
	cr_assert_eq(row.cfa_off, 8);
	free(eh);
	eh = eh_frame_with_program(SP_CFI_PROGRAM_MAX + 1, &sec.len);
	sec.data = eh;
	cr_assert_eq(spi_cfi_row_at(&sec, 24, 0x1080, &row, NULL, &why),
	    -SP_ELIMIT);
	free(eh);
}

/* --- DWARF ------------------------------------------------------------------------ */

/*
 * A library whose function fn has, by a #line directive, the source
 * file DIR/f.c with DIR m bytes of 'x': gcc's line table gives the
 * compilation directory, the directory DIR and the name f.c, which the
 * reader joins into cwd/DIR/f.c (DWARF 5 §6.2.4).
 */
static void
long_path_library(const char *dir, size_t m, char *so, char **joined)
{
	char c[PATH_MAX];
	char *x = malloc(m + 1);
	FILE *f;

	cr_assert_not_null(x);
	memset(x, 'x', m);
	x[m] = '\0';
	pathf(c, "%s/long%zu.c", dir, m);
	pathf(so, "%s/liblong%zu.so", dir, m);
	f = fopen(c, "w");
	cr_assert_not_null(f);
	fprintf(f, "#line 1 \"%s/f.c\"\nint fn(int a) { return 3 * a + 1; }\n",
	    x);
	fclose(f);
	free(run("cd %s && gcc -g -O0 -fPIC -shared -nostdlib -o %s %s", dir,
	    so, c));
	cr_assert(asprintf(joined, "%s/%s/f.c", dir, x) > 0);
	free(x);
}

/* The file spi_dwarf_lookup gives for fn in so; malloc'd. */
static char *
dwarf_file_of_fn(const char *so)
{
	static const char *const names[] = { ".debug_info", ".debug_abbrev",
		".debug_line", ".debug_str", ".debug_line_str" };
	struct sp_dwarf_bytes *b[5];
	struct sp_dwarf_sections s;
	struct sp_dwarf_frame fr[4];
	struct sp_elf_file *f;
	struct sp_dwarf *d;
	char *file;
	size_t i;

	memset(&s, 0, sizeof(s));
	b[0] = &s.info;
	b[1] = &s.abbrev;
	b[2] = &s.line;
	b[3] = &s.str;
	b[4] = &s.line_str;
	cr_assert_eq(spi_elf_file_open(so, &f, NULL), 0);
	for (i = 0; i < 5; i++)
		if (spi_elf_file_section(f, names[i], &b[i]->p, &b[i]->len) < 0)
			b[i]->p = NULL;
	cr_assert_eq(spi_dwarf_open(&s, &d), 0);
	cr_assert_geq(spi_dwarf_lookup(d, nm_addr(so, 'T', "fn") + 4, fr, 4), 1);
	cr_assert_not_null(fr[0].file);
	file = strdup(fr[0].file);
	spi_dwarf_free(d);
	spi_elf_file_free(f);
	return file;
}

Test(limits, dwarf_paths_up_to_4096_bytes_with_the_nul_are_joined)
{
	char dir[PATH_MAX], so[PATH_MAX], *joined, *file, *rd;
	size_t m;

	tmpdir(dir, "limits-dwpath");
	/* cwd "/" m "/f.c": 4095 bytes, then 4096 (4097 with its NUL). */
	m = SP_DWARF_PATH_MAX - 1 - strlen(dir) - 5;
	long_path_library(dir, m, so, &joined);
	rd = run("readelf --debug-dump=line %s", so);
	cr_assert(strstr(rd, dir) != NULL, "readelf: the compilation "
	    "directory is %s", dir);
	free(rd);
	cr_assert_eq(strlen(joined), SP_DWARF_PATH_MAX - 1);
	file = dwarf_file_of_fn(so);
	cr_assert_str_eq(file, joined);
	free(file);
	free(joined);
	long_path_library(dir, m + 1, so, &joined);
	file = dwarf_file_of_fn(so);
	cr_assert_str_eq(file, "f.c", "too long to join: the name alone");
	free(file);
	free(joined);
}

/*
 * Hand-made DWARF 4 units appended to the .debug_info and .debug_abbrev
 * of a gcc-built library (which gives the line table they point to),
 * for what compilers do not emit: DW_FORM_indirect chains and huge range
 * lists.  The unit's abbreviations:
 *   1 compile_unit, children: stmt_list, ranges (sec_offset)
 *   2 subprogram: name FORM, ranges sec_offset (FORM from the caller)
 * .debug_ranges holds the subprogram's list of n entries at 0, then the
 * unit's, [0x100000, 0x100100) (DWARF 4 §2.17.3).
 */
struct hand {
	struct sp_buf info, abbrev, ranges;
	struct sp_elf_file *f;
	struct sp_dwarf_sections s;
	size_t unit;          /* offset of the unit in info */
};

static void ranges_list(struct sp_buf *b, size_t n);

static void
hand_start(struct hand *h, uint8_t name_form, size_t n)
{
	const uint8_t ab[] = { 1, 0x11, 1, 0x10, 0x17, 0x55, 0x17, 0, 0,
		2, 0x2e, 0, 0x03, name_form, 0x55, 0x17, 0, 0, 0 };
	char dir[PATH_MAX], so[PATH_MAX], c[PATH_MAX];
	const uint8_t *p;
	size_t len, aboff;

	memset(h, 0, sizeof(*h));
	tmpdir(dir, "limits-hand");
	pathf(c, "%s/fn.c", dir);
	pathf(so, "%s/libfn.so", dir);
	spit(c, "int fn(int a) { return a + 1; }\n", 32);
	free(run("gcc -gdwarf-4 -O0 -fPIC -shared -nostdlib -o %s %s", so, c));
	cr_assert_eq(spi_elf_file_open(so, &h->f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(h->f, ".debug_info", &p, &len), 0);
	spi_buf_put(&h->info, p, len);
	cr_assert_eq(spi_elf_file_section(h->f, ".debug_abbrev", &p, &len), 0);
	spi_buf_put(&h->abbrev, p, len);
	aboff = h->abbrev.len;
	spi_buf_put(&h->abbrev, ab, sizeof(ab));
	cr_assert_eq(spi_elf_file_section(h->f, ".debug_line", &p, &len), 0);
	h->s.line.p = p;
	h->s.line.len = len;
	if (spi_elf_file_section(h->f, ".debug_str", &p, &len) == 0) {
		h->s.str.p = p;
		h->s.str.len = len;
	}
	/* DWARF 4 §7.5.1.1: length, version, abbrev offset, address size. */
	h->unit = h->info.len;
	spi_buf_put(&h->info, "\0\0\0\0\4\0", 6);
	spi_buf_put(&h->info, &(uint32_t){ (uint32_t)aboff }, 4);
	spi_buf_u8(&h->info, 8);
	spi_buf_u8(&h->info, 1);
	spi_buf_put(&h->info, "\0\0\0\0", 4);   /* stmt_list 0 */
	spi_buf_put(&h->info, &(uint32_t){ (uint32_t)(16 * (n + 1)) }, 4);
	spi_buf_u8(&h->info, 2);
	ranges_list(&h->ranges, n);
	ranges_list(&h->ranges, 1);
}

/* Ends the unit (the subprogram's attributes written by the caller). */
static struct sp_dwarf *
hand_open(struct hand *h)
{
	struct sp_dwarf *d;
	uint32_t ulen;

	spi_buf_u8(&h->info, 0);
	cr_assert_eq(h->info.err | h->abbrev.err | h->ranges.err, 0);
	ulen = (uint32_t)(h->info.len - h->unit - 4);
	memcpy(h->info.p + h->unit, &ulen, 4);
	h->s.info.p = h->info.p;
	h->s.info.len = h->info.len;
	h->s.abbrev.p = h->abbrev.p;
	h->s.abbrev.len = h->abbrev.len;
	h->s.ranges.p = h->ranges.p;
	h->s.ranges.len = h->ranges.len;
	cr_assert_eq(spi_dwarf_open(&h->s, &d), 0);
	return d;
}

static void
hand_fini(struct hand *h, struct sp_dwarf *d)
{
	spi_dwarf_free(d);
	spi_elf_file_free(h->f);
	spi_buf_fini(&h->info);
	spi_buf_fini(&h->abbrev);
	spi_buf_fini(&h->ranges);
}

/* One range list [0x100000, 0x100100) at offset 0 of .debug_ranges,
 * after n - 1 empty entries (DWARF 4 §2.17.3). */
static void
ranges_list(struct sp_buf *b, size_t n)
{
	static const uint64_t empty[2] = { 0x200000, 0x200000 };
	static const uint64_t r[2] = { 0x100000, 0x100100 };
	static const uint64_t end[2] = { 0, 0 };
	size_t i;

	for (i = 0; i + 1 < n; i++)
		spi_buf_put(b, empty, sizeof(empty));
	spi_buf_put(b, r, sizeof(r));
	spi_buf_put(b, end, sizeof(end));
}

/* A name through hops ULEB128 forms: DW_FORM_indirect (0x16) hops - 1
 * times, then DW_FORM_string. */
static int
indirect_name(unsigned hops, struct sp_dwarf_frame *fr)
{
	struct hand h;
	struct sp_dwarf *d;
	unsigned i;
	int n;

	hand_start(&h, 0x16, 1);
	for (i = 0; i + 1 < hops; i++)
		spi_buf_u8(&h.info, 0x16);
	spi_buf_u8(&h.info, 0x08);
	spi_buf_put(&h.info, "hand", 5);
	spi_buf_put(&h.info, "\0\0\0\0", 4);    /* ranges at 0 */
	d = hand_open(&h);
	n = spi_dwarf_lookup(d, 0x100010, fr, 4);
	if (n > 0 && fr[0].function != NULL && strcmp(fr[0].function,
	    "hand") != 0)
		n = -1000;
	hand_fini(&h, d);
	return n;
}

Test(limits, dwarf_form_indirect_up_to_4_hops)
{
	struct sp_dwarf_frame fr[4];

	cr_assert_eq(indirect_name(1, fr), 1);
	cr_assert_eq(indirect_name(SP_DWARF_INDIRECT_MAX, fr), 1,
	    "4 forms read: the name");
	cr_assert_eq(indirect_name(SP_DWARF_INDIRECT_MAX + 1, fr),
	    -SP_EFORMAT, "5: a format error for the unit");
}

/* A unit whose function lists n ranges; the lookup's status. */
static int
many_ranges(size_t n, size_t *unit_bytes)
{
	struct hand h;
	struct sp_dwarf *d;
	struct sp_dwarf_frame fr[4];
	int err;

	hand_start(&h, 0x08, n);
	spi_buf_put(&h.info, "hand", 5);
	spi_buf_put(&h.info, "\0\0\0\0", 4);
	d = hand_open(&h);
	*unit_bytes = h.info.len - h.unit;
	err = spi_dwarf_lookup(d, 0x100010, fr, 4);
	hand_fini(&h, d);
	return err;
}

Test(limits, dwarf_ranges_per_unit_up_to_4_unit_bytes_plus_65536)
{
	size_t ub;

	(void)many_ranges(1, &ub);
	cr_assert_eq(many_ranges(SP_DWARF_RANGES_MAX(ub), &ub), 1);
	cr_assert_eq(many_ranges(SP_DWARF_RANGES_MAX(ub) + 1, &ub),
	    -SP_ELIMIT);
}

/* The section header named name in an ELF image. */
static Elf64_Shdr *
section_header(uint8_t *img, const char *name)
{
	Elf64_Ehdr *e = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + e->e_shoff);
	const char *strs = (const char *)img + sh[e->e_shstrndx].sh_offset;
	Elf64_Half k;

	for (k = 0; k < e->e_shnum; k++)
		if (strcmp(strs + sh[k].sh_name, name) == 0)
			return sh + k;
	cr_assert_fail("no %s", name);
	return NULL;
}

/*
 * SYMS with its .symtab moved to a hole at the end of the file, n
 * entries long: the limit is checked on the sizes before any entry is
 * read, so a sparse file reaches it without 384 MiB of disk or memory.
 */
static int
symtab_of(const char *path, size_t n)
{
	size_t len, off;
	uint8_t *img = slurp(SYMS, &len);
	Elf64_Shdr *st = section_header(img, ".symtab");
	struct sp_elf_file *f;
	struct sp_elf_syms *x = NULL;
	int fd, err;

	off = (len + 7) & ~(size_t)7;
	st->sh_offset = off;
	st->sh_size = n * sizeof(Elf64_Sym);
	spit(path, img, len);
	fd = open(path, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, (off_t)(off + st->sh_size)), 0);
	close(fd);
	free(img);
	cr_assert_eq(spi_elf_file_open(path, &f, NULL), 0);
	err = spi_elf_syms_load(f, &x);
	spi_elf_syms_free(x);
	spi_elf_file_free(f);
	return err;
}

Test(limits, elf_symbols_over_16_mi_are_refused_before_reading)
{
	char dir[PATH_MAX], path[PATH_MAX];

	tmpdir(dir, "limits-syms");
	pathf(path, "%s/syms-big", dir);
	/* One past the limit: refused by its size, nothing read (the
	 * limit itself would read 384 MiB of entries). */
	cr_assert_eq(symtab_of(path, SP_ELF_SYMS_MAX + 1), -SP_ELIMIT);
	/* A few thousand entries of the hole are read (null symbols). */
	cr_assert_eq(symtab_of(path, 4096), 0);
	unlink(path);
}
