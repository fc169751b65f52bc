/* SPDX-License-Identifier: MIT */
/*
 * The ELF reader and the symbol index, on the binaries build.ninja makes
 * from tests/workloads/syms.c.  Expected values come from nm and
 * readelf, run here; hostile files are the real ones with a field
 * changed.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "elf/elf_int.h"
#include "elf/elffile_int.h"
#include "elf/elfsym_int.h"
#include "elftest.h"

#define MAXSYMS 512

/* --- nm's view of the function symbols ------------------------------------ */

struct nmsym {
	uint64_t addr, size;
	uint64_t sec_end;  /* where its section ends */
	int rank;          /* 0 global, 1 weak, 2 local */
	char name[128];
};

/* Whether section name is executable (readelf -SW flag X); *end its end. */
static int
section_of(const char *sections, const char *name, uint64_t *end)
{
	const char *l;
	char sec[128], type[64], flags[64];
	unsigned long long addr, size;

	*end = 0;
	for (l = sections; (l = strchr(l, '[')) != NULL; l++) {
		const char *r = strchr(l, ']');

		if (r == NULL || sscanf(r + 1, " %127s %63s %llx %*x %llx %*x %63s",
		    sec, type, &addr, &size, flags) != 5)
			continue;
		if (strcmp(sec, name) == 0) {
			*end = addr + size;
			return strchr(flags, 'X') != NULL;
		}
	}
	return 0;
}

/*
 * Function symbols by nm --format=sysv (Name|Value|Class|Type|Size|Line|
 * Section): FUNC, IFUNC ("<OS specific>: 10"), and NOTYPE in an
 * executable section.  Binding from the class letter: lowercase local,
 * W/V weak, else global ('i' says IFUNC without the binding: the only
 * IFUNC of syms.c is global).
 */
static size_t
nm_functions(const char *path, int dynamic, struct nmsym *out)
{
	char *nm = run(dynamic ? "nm -D -S --defined-only --format=sysv %s" :
	    "nm -S --defined-only --format=sysv %s", path);
	char *secs = run("readelf -SW %s 2>/dev/null", path), *line, *save = NULL;
	size_t n = 0;

	for (line = strtok_r(nm, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char name[128], cls, type[64], size[32], sec[64];
		unsigned long long addr;
		struct nmsym *s = &out[n];
		int exec;

		size[0] = '\0';
		if (sscanf(line, "%127[^| ] |%llx| %c |%63[^|]|%31[^|]|%*[^|]|%63s",
		    name, &addr, &cls, type, size, sec) != 6)
			continue;
		exec = section_of(secs, sec, &s->sec_end);
		if (!(strstr(type, "FUNC") || strstr(type, ": 10") ||
		    (strstr(type, "NOTYPE") && exec)))
			continue;
		cr_assert_lt(n, MAXSYMS);
		(void)snprintf(s->name, sizeof(s->name), "%s", name);
		s->addr = addr;
		s->size = strtoull(size, NULL, 16);
		s->rank = strchr("WVwv", cls) ? 1 : islower(cls) && cls != 'i' ?
		    2 : 0;
		n++;
	}
	free(nm);
	free(secs);
	return n;
}

static size_t
unders(const char *s)
{
	return strspn(s, "_");
}

/* The name the alias rule picks among nm's symbols at addr, or NULL. */
static const char *
expected_at(const struct nmsym *s, size_t n, uint64_t addr)
{
	const struct nmsym *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct nmsym *x = &s[i];

		if (x->addr != addr)
			continue;
		if (best == NULL || x->rank < best->rank ||
		    (x->rank == best->rank && (unders(x->name) <
		    unders(best->name) || (unders(x->name) ==
		    unders(best->name) && (strlen(x->name) <
		    strlen(best->name) || (strlen(x->name) ==
		    strlen(best->name) && strcmp(x->name, best->name) < 0))))))
			best = x;
	}
	return best != NULL ? best->name : NULL;
}

static int
starts_within(const struct nmsym *s, size_t n, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].addr > lo && s[i].addr <= hi)
			return 1;
	return 0;
}

static int
covered(const struct nmsym *s, size_t n, uint64_t a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a >= s[i].addr && (a - s[i].addr < s[i].size ||
		    a == s[i].addr))
			return 1;
	return 0;
}

static size_t
distinct_addrs(const struct nmsym *s, size_t n)
{
	size_t i, j, d = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && s[j].addr != s[i].addr; j++)
			;
		d += j == i;
	}
	return d;
}

/* The address of the first symbol after a, or UINT64_MAX. */
static uint64_t
next_start(const struct nmsym *s, size_t n, uint64_t a)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].addr > a && s[i].addr < next)
			next = s[i].addr;
	return next;
}

/* A zero-size symbol covers up to the next one, or its section's end. */
static void
check_open_end(const struct sp_elf_syms *x, const struct nmsym *s, size_t n,
    size_t i, const char *want)
{
	uint64_t next = next_start(s, n, s[i].addr), end, start;
	const char *got;

	end = next < s[i].sec_end ? next : s[i].sec_end;
	cr_assert_gt(end, s[i].addr, "%s", s[i].name);
	got = spi_elf_syms_find(x, end - 1, &start);
	cr_assert_not_null(got, "%s: before its end", s[i].name);
	cr_assert_str_eq(got, want);
	cr_assert_eq(start, s[i].addr);
	if (end == s[i].sec_end && next > end && !covered(s, n, end))
		cr_assert_null(spi_elf_syms_find(x, end, NULL),
		    "%s: past its section", s[i].name);
}

/* --- objdump's view of the PLT stubs ---------------------------------------- */

#define MAXSTUBS 1024

struct stub {
	uint64_t addr;
	char label[256];   /* "NAME@plt", "*ABS*+0xADDR@plt", "NAME@plt-0x10" */
};

/* The labels objdump -d gives the code of .plt, .plt.sec and .plt.got:
 * one per stub, the head of .plt relative to the next one (or .plt). */
static size_t
objdump_stubs_by(const char *objdump, const char *path, struct stub *out)
{
	char *d = run("%s -d -j .plt -j .plt.sec -j .plt.got %s "
	    "2>/dev/null", objdump, path), *line, *save = NULL;
	unsigned long long addr;
	size_t n = 0;

	for (line = strtok_r(d, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		struct stub *s = &out[n];

		if (sscanf(line, "%llx <%255[^>]>:", &addr, s->label) != 2)
			continue;
		cr_assert_lt(n, MAXSTUBS);
		s->addr = addr;
		n++;
	}
	free(d);
	return n;
}

static size_t
objdump_stubs(const char *path, struct stub *out)
{
	return objdump_stubs_by("objdump", path, out);
}

/*
 * Every function nm lists resolves, at its first and last byte, to the
 * name the alias rule picks; the index holds one entry per address (and
 * one per PLT stub, each of which objdump labels); the first byte after
 * a symbol that nothing covers resolves to nothing.
 */
static void
check_against_nm(const char *path, int dynamic, size_t min)
{
	static struct nmsym s[MAXSYMS];
	static struct stub plt[MAXSTUBS];
	size_t n = nm_functions(path, dynamic, s), i, aliased = 0;
	size_t stubs = objdump_stubs(path, plt);
	struct sp_elf_file *f;
	struct sp_elf_syms *x;
	struct sp_diag d;
	uint64_t start;
	const char *got, *want;

	cr_assert_geq(n, min, "%s: nm lists %zu functions", path, n);
	cr_assert_eq(spi_elf_file_open(path, &f, &d), 0, "%s", d.msg);
	cr_assert_eq(spi_elf_syms_load(f, &x), 0);
	/* objdump labels the head of a section without bytes too. */
	if (!spi_elf_file_has_section(f, ".plt"))
		stubs = 0;
	cr_assert_eq(spi_elf_syms_count(x), distinct_addrs(s, n) + stubs, "%s",
	    path);
	for (i = 0; i < n; i++) {
		want = expected_at(s, n, s[i].addr);
		aliased += strcmp(want, s[i].name) != 0;
		got = spi_elf_syms_find(x, s[i].addr, &start);
		cr_assert_not_null(got, "%s: nothing at %s", path, s[i].name);
		cr_assert_str_eq(got, want, "%s: at %s", path, s[i].name);
		cr_assert_eq(start, s[i].addr);
		if (s[i].size == 0) {
			check_open_end(x, s, n, i, want);
			continue;
		}
		if (!starts_within(s, n, s[i].addr, s[i].addr + s[i].size - 1)) {
			got = spi_elf_syms_find(x, s[i].addr + s[i].size - 1,
			    NULL);
			cr_assert_not_null(got);
			cr_assert_str_eq(got, want, "%s: end of %s", path,
			    s[i].name);
		}
		if (!covered(s, n, s[i].addr + s[i].size))
			cr_assert_null(spi_elf_syms_find(x,
			    s[i].addr + s[i].size, NULL), "%s: after %s", path,
			    s[i].name);
	}
	if (!dynamic)
		cr_assert_geq(aliased, 5, "aliases were exercised");
	spi_elf_syms_free(x);
	spi_elf_file_free(f);
}

/* --- the ELF reader --------------------------------------------------------- */

Test(elffile, build_id_matches_readelf)
{
	uint8_t want[SP_ELF_BUILD_ID_MAX];
	const char *files[] = { SYMS, SYMS ".debug", SYMS "-stripped",
		SYMS "-gz", SYMS "-otherid" };
	size_t i, n, len;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct sp_elf_file *f;
		const uint8_t *id;

		n = readelf_build_id(files[i], want);
		cr_assert_eq(spi_elf_file_open(files[i], &f, NULL), 0);
		cr_assert_eq(spi_elf_file_build_id(f, &id, &len), 0);
		cr_assert_eq(len, n, "%s", files[i]);
		cr_assert_arr_eq(id, want, n, "%s", files[i]);
		spi_elf_file_free(f);
	}
}

Test(elffile, vaddr_follows_the_load_segments)
{
	char *out = run("readelf -lW %s", SYMS), *l = out;
	unsigned long long off, va, pa, fsz, hi = 0;
	struct sp_elf_file *f;
	uint64_t v;
	int loads = 0;

	cr_assert_eq(spi_elf_file_open(SYMS, &f, NULL), 0);
	while ((l = strstr(l, "LOAD ")) != NULL) {
		cr_assert_eq(sscanf(l, "LOAD %llx %llx %llx %llx", &off, &va, &pa,
		    &fsz), 4);
		cr_assert_eq(spi_elf_file_vaddr(f, off + fsz / 2, &v), 0);
		cr_assert_eq(v, va + fsz / 2);
		if (off + fsz > hi)
			hi = off + fsz;
		loads++;
		l++;
	}
	cr_assert_geq(loads, 2);
	cr_assert_eq(spi_elf_file_vaddr(f, hi, &v), -SP_ENOTFOUND);
	spi_elf_file_free(f);
	free(out);
}

/* The entry point of an executable, as readelf -h gives it; a shared
 * library has none, also one that runs (libc.so.6: an interpreter, and
 * a DT_SONAME). */
Test(elffile, entry_point_of_executables_only)
{
	char *out = run("readelf -hW %s", SYMS), *e = strstr(out, "Entry point address:");
	char *lib = run("ldd %s | awk '/libc\\.so/ { print $3; exit }'", SYMS);
	unsigned long long want;
	struct sp_elf_file *f;
	uint64_t v;

	cr_assert_not_null(e);
	cr_assert_eq(sscanf(e, "Entry point address: %llx", &want), 1);
	cr_assert_eq(spi_elf_file_open(SYMS, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_entry(f, &v), 0);
	cr_assert_eq(v, want);
	spi_elf_file_free(f);
	lib[strcspn(lib, "\n")] = 0;
	cr_assert_eq(spi_elf_file_open(lib, &f, NULL), 0, "%s", lib);
	cr_assert_eq(spi_elf_file_entry(f, &v), -SP_ENOTFOUND, "%s", lib);
	spi_elf_file_free(f);
	free(lib);
	free(out);
}

/* An executable mapping starts on the page that holds the R E segment's
 * first byte, whatever segment the bytes before it belong to. */
Test(elffile, exec_vaddr_is_the_executable_segments_page)
{
	char *out = run("readelf -lW %s", SYMS), *l = out;
	unsigned long long off, va, pa, fsz, page;
	struct sp_elf_file *f;
	uint64_t v;
	int execs = 0;
	char flags[16];

	page = (unsigned long long)sysconf(_SC_PAGESIZE);
	cr_assert_eq(spi_elf_file_open(SYMS, &f, NULL), 0);
	while ((l = strstr(l, "LOAD ")) != NULL) {
		cr_assert_eq(sscanf(l, "LOAD %llx %llx %llx %llx %*x %15[RWE ]",
		    &off, &va, &pa, &fsz, flags), 5);
		l++;
		if (strchr(flags, 'E') == NULL)
			continue;
		cr_assert_eq(spi_elf_file_exec_vaddr(f, off & ~(page - 1), &v), 0);
		cr_assert_eq(v, va - (off & (page - 1)));
		cr_assert_eq(spi_elf_file_exec_vaddr(f, off + fsz / 2, &v), 0);
		cr_assert_eq(v, va + fsz / 2);
		execs++;
	}
	cr_assert_eq(execs, 1);
	spi_elf_file_free(f);
	free(out);
}

Test(elffile, debuglink_and_crc_match_readelf)
{
	char *out = run("readelf --debug-dump=links %s", SYMS "-stripped");
	char *s = strstr(out, "Separate debug info file: ");
	char name[256];
	unsigned want_crc;
	struct sp_elf_file *f, *g;
	const char *got;
	uint32_t crc, file_crc;

	cr_assert_not_null(s);
	cr_assert_eq(sscanf(s, "Separate debug info file: %255s CRC value: %x",
	    name, &want_crc), 2);
	cr_assert_eq(spi_elf_file_open(SYMS "-stripped", &f, NULL), 0);
	cr_assert_eq(spi_elf_file_debuglink(f, &got, &crc), 0);
	cr_assert_str_eq(got, name);
	cr_assert_eq(crc, want_crc);
	cr_assert_eq(spi_elf_file_open(SYMS ".debug", &g, NULL), 0);
	cr_assert_eq(spi_elf_file_crc32(g, &file_crc), 0);
	cr_assert_eq(file_crc, want_crc, "objcopy's CRC of the debug file");
	cr_assert(spi_elf_file_has_debug(g));
	cr_assert_not(spi_elf_file_has_debug(f), "stripped: no .symtab");
	cr_assert(spi_elf_file_has_section(f, ".dynsym"));
	cr_assert_not(spi_elf_file_has_section(g, ".text"), "NOBITS");
	spi_elf_file_free(f);
	spi_elf_file_free(g);
	free(out);
}

/* The size readelf -SW gives section name of path, and its flags. */
static size_t
readelf_section(const char *path, const char *name, char *flags)
{
	char *out = run("readelf -SW %s", path), *l, pat[64];
	unsigned long long size;

	(void)snprintf(pat, sizeof(pat), " %s ", name);
	l = strstr(out, pat);
	cr_assert_not_null(l, "%s: no %s", path, name);
	flags[0] = '\0';
	cr_assert_geq(sscanf(l, " %*s %*s %*x %*x %llx %*x %15[A-Z]", &size,
	    flags), 1);
	free(out);
	return (size_t)size;
}

Test(elffile, compressed_sections_inflate_to_the_original)
{
	struct sp_elf_file *plain, *gz;
	const uint8_t *a, *b;
	size_t alen, blen;
	char fl[16];
	static const char *const names[] = { ".debug_info", ".debug_line",
		".debug_abbrev" };
	size_t i, want;

	cr_assert_eq(spi_elf_file_open(SYMS, &plain, NULL), 0);
	cr_assert_eq(spi_elf_file_open(SYMS "-gz", &gz, NULL), 0);
	for (i = 0; i < 3; i++) {
		(void)readelf_section(SYMS "-gz", names[i], fl);
		cr_assert(strchr(fl, 'C'), "%s is compressed", names[i]);
		want = readelf_section(SYMS, names[i], fl);
		cr_assert_eq(spi_elf_file_section(plain, names[i], &a, &alen), 0);
		cr_assert_eq(spi_elf_file_section(gz, names[i], &b, &blen), 0);
		cr_assert_eq(alen, want);
		cr_assert_eq(blen, want);
		cr_assert_arr_eq(a, b, want);
	}
	cr_assert_eq(spi_elf_file_section(gz, ".nonexistent", &a, &alen),
	    -SP_ENOTFOUND);
	spi_elf_file_free(plain);
	spi_elf_file_free(gz);
}

/*
 * An image in memory reads back as it was given after a section was
 * inflated: libelf rewrites the header of a section it inflates in the
 * image it was handed, and the crc32 of a debug file (.gnu_debuglink)
 * and every read are of the bytes given, not of libelf's edits.
 */
Test(elffile, an_image_reads_back_unchanged_after_inflating)
{
	struct sp_elf_file *f;
	const Elf64_Ehdr *e;
	const uint8_t *sec;
	uint8_t *img, *got;
	size_t len, slen;
	uint32_t crc;

	img = slurp(SYMS "-gz", &len);
	e = (const Elf64_Ehdr *)img;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(f, ".debug_info", &sec, &slen), 0);
	cr_assert_eq(spi_elf_file_crc32(f, &crc), 0);
	cr_assert_eq(crc, (uint32_t)crc32(crc32(0L, Z_NULL, 0), img,
	    (uInt)len));
	got = malloc(len);
	cr_assert_not_null(got);
	cr_assert_eq(spi_elf_file_read(f, 0, got, len), len);
	cr_assert_arr_eq(got + e->e_shoff, img + e->e_shoff,
	    (size_t)e->e_shnum * e->e_shentsize, "the section headers");
	cr_assert_arr_eq(got, img, len);
	free(got);
	spi_elf_file_free(f);
	free(img);
}

Test(elffile, what_is_not_a_regular_elf64_file_is_refused)
{
	char dir[PATH_MAX], fifo[PATH_MAX];
	struct sp_elf_file *f;
	struct sp_diag d;
	uint8_t *img;
	size_t len;

	tmpdir(dir, "notelf");
	pathf(fifo, "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(spi_elf_file_open(fifo, &f, &d), -SP_EFORMAT, "no block");
	cr_assert(strstr(d.msg, "regular"));
	cr_assert_eq(spi_elf_file_open(dir, &f, &d), -SP_EFORMAT);
	cr_assert_eq(spi_elf_file_open("tests/unit/elfsym.c", &f, &d),
	    -SP_EFORMAT);
	cr_assert_eq(spi_elf_file_open("/nonexistent/x", &f, &d), -ENOENT);
	img = slurp(SYMS, &len);
	img[EI_CLASS] = ELFCLASS32;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, &d), -SP_EFORMAT);
	img[EI_CLASS] = ELFCLASS64;
	img[EI_DATA] = ELFDATA2MSB;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, &d), -SP_EFORMAT);
	img[EI_DATA] = ELFDATA2LSB;
	cr_assert_eq(spi_elf_file_open_mem(img, 40, &f, &d), -SP_EFORMAT);
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, &d), 0);
	spi_elf_file_free(f);
	free(img);
}

/* --- the symbol index ------------------------------------------------------- */

Test(elfsym, symtab_lookups_match_nm)
{
	check_against_nm(SYMS, 0, 20);
}

Test(elfsym, debug_file_symbols_match_nm)
{
	check_against_nm(SYMS ".debug", 0, 20);
}

Test(elfsym, compressed_debug_copy_symbols_match_nm)
{
	check_against_nm(SYMS "-gz", 0, 20);
}

Test(elfsym, stripped_binary_falls_back_to_dynsym)
{
	check_against_nm(SYMS "-stripped", 1, 10);
}

Test(elfsym, data_and_unknown_addresses_have_no_name)
{
	uint64_t data = nm_addr(SYMS, 'D', "notype_data");
	struct sp_elf_file *f;
	struct sp_elf_syms *x;

	cr_assert_eq(spi_elf_file_open(SYMS, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), 0);
	cr_assert_null(spi_elf_syms_find(x, data, NULL));
	cr_assert_null(spi_elf_syms_find(x, 0, NULL));
	cr_assert_null(spi_elf_syms_find(x, UINT64_MAX, NULL));
	spi_elf_syms_free(x);
	spi_elf_file_free(f);
}

/*
 * Whether name is "SYM@plt" for a symbol nm (or nm -D) lists at addr
 * (its version, "@@GLIBC_2.2.5", left out):
 * the stub of an R_X86_64_IRELATIVE slot, which objdump labels
 * "*ABS*+0xADDR@plt", is named after the IFUNC at the addend.
 */
static int
ifunc_stub(const char *path, uint64_t addr, const char *name)
{
	char *nm = run("{ nm --defined-only %s; nm -D --defined-only %s; } "
	    "2>/dev/null", path, path), *line, *save = NULL, sym[256];
	unsigned long long a;
	size_t len = strlen(name);
	int ok = 0;

	for (line = strtok_r(nm, "\n", &save); line != NULL && !ok;
	    line = strtok_r(NULL, "\n", &save))
		ok = sscanf(line, "%llx %*c %255[^@]", &a, sym) == 2 &&
		    a == addr &&
		    len == strlen(sym) + 4 && strncmp(name, sym, len - 4) == 0 &&
		    strcmp(name + len - 4, "@plt") == 0;
	free(nm);
	return ok;
}

/*
 * Each stub objdump labels NAME@plt is found as NAME@plt from its first
 * byte to its eighth (the smallest stub, .plt.got's, has 8), an IFUNC's
 * as SYM@plt, the head of .plt as ".plt".  Returns the stubs checked.
 */
static size_t
check_plt_by(const char *objdump, const char *path, size_t min)
{
	static struct stub st[MAXSTUBS];
	size_t n = objdump_stubs_by(objdump, path, st), i, len, checked = 0;
	unsigned long long target;
	struct sp_elf_file *f;
	struct sp_elf_syms *x;
	uint64_t start, head = 0;
	const char *got;

	cr_assert_eq(spi_elf_file_open(path, &f, NULL), 0, "%s", path);
	cr_assert_eq(spi_elf_syms_load(f, &x), 0);
	(void)spi_elf_file_section_addr(f, ".plt", &head);
	for (i = 0; i < n; i++) {
		const char *want = st[i].label;

		len = strlen(want);
		if (st[i].addr == head)
			want = ".plt";
		else if (len < 4 || strcmp(want + len - 4, "@plt") != 0)
			continue;
		got = spi_elf_syms_find(x, st[i].addr, &start);
		cr_assert_not_null(got, "%s: %s", path, st[i].label);
		cr_assert_eq(start, st[i].addr, "%s: %s", path, got);
		if (sscanf(want, "*ABS*+%llx@plt", &target) == 1)
			cr_assert(ifunc_stub(path, target, got), "%s: %s is %s",
			    path, st[i].label, got);
		else
			cr_assert_str_eq(got, want, "%s: %s, not %s", path, got,
			    want);
		cr_assert_eq(spi_elf_syms_find(x, st[i].addr + 7, NULL), got,
		    "%s: %s to its eighth byte", path, got);
		checked++;
	}
	cr_assert_geq(checked, min, "%s: %zu stubs", path, checked);
	spi_elf_syms_free(x);
	spi_elf_file_free(f);
	return checked;
}

static size_t
check_plt(const char *path, size_t min)
{
	return check_plt_by("objdump", path, min);
}

Test(elfsym, plt_stubs_are_named_as_objdump_labels_them)
{
	char *libc = run("realpath \"$(gcc -print-file-name=libc.so.6)\"");

	libc[strcspn(libc, "\n")] = '\0';
	check_plt(SYMS, 4);		/* an IFUNC's stub, .plt.got */
	check_plt(SYMS "-stripped", 4);
	check_plt("build/tests/plt-lazy", 9);
	check_plt("build/tests/plt-now", 9);	/* IBT: .plt.sec */
	check_plt("build/tests/libplt.so", 2);
	check_plt(libc, 40);		/* IFUNCs */
	free(libc);
}

/* AArch64's stubs, by the forms of the file's machine whatever the
 * build's: Debian's arm64 libc and a program of the cross compiler's,
 * against its objdump. */
Test(elfsym, aarch64_plt_stubs_are_named_as_objdump_labels_them)
{
	static const char libc[] = "/usr/aarch64-linux-gnu/lib/libc.so.6";
	char *prog;

	if (access(libc, R_OK) != 0 ||
	    system("aarch64-linux-gnu-gcc --version >/dev/null 2>&1") != 0)
		cr_skip_test("no aarch64 cross toolchain (gcc-aarch64-linux-gnu; "
		    "ninja aarch64 installs it)");
	prog = run("d=$(mktemp -d) && printf '%%s\\n' '#include <stdio.h>' "
	    "'#include <stdlib.h>' '#include <string.h>' 'int main(int c, "
	    "char **v) { char *p = malloc(9); strcpy(p, v[0]); puts(p); "
	    "free(p); return c; }' >$d/p.c && aarch64-linux-gnu-gcc -O2 "
	    "$d/p.c -o $d/p && echo $d/p");
	prog[strcspn(prog, "\n")] = '\0';
	check_plt_by("aarch64-linux-gnu-objdump", prog, 5);
	check_plt_by("aarch64-linux-gnu-objdump", libc, 10);
	free(prog);
}

/* By name: main's range as nm -S gives it; an alias that lost to another
 * name (global_mul, alias_global_longer share an address) and an absent
 * name are not found. */
Test(elfsym, a_symbol_is_found_by_name)
{
	char *out = run("nm -S %s | awk '$4 == \"main\" { print $1, $2 }'",
	    SYMS);
	unsigned long long at, size;
	uint64_t lo, hi;
	struct sp_elf_file *f;
	struct sp_elf_syms *x;

	cr_assert_eq(sscanf(out, "%llx %llx", &at, &size), 2, "%s", out);
	cr_assert_eq(spi_elf_file_open(SYMS, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), 0);
	cr_assert_eq(spi_elf_syms_named(x, "main", &lo, &hi), 0);
	cr_assert_eq(lo, at);
	cr_assert_eq(hi, at + size);
	cr_assert_eq(spi_elf_syms_named(x, "alias_global_longer", &lo, &hi),
	    -SP_ENOTFOUND);
	cr_assert_eq(spi_elf_syms_named(x, "no_such_function", &lo, &hi),
	    -SP_ENOTFOUND);
	spi_elf_syms_free(x);
	spi_elf_file_free(f);
	free(out);
}

/* --- hostile files: the real binary with one field changed ------------------ */

Test(hostile, truncated_section_table)
{
	struct sp_elf_file *f;
	struct sp_diag d;
	size_t len;
	uint8_t *img = slurp(SYMS, &len);
	Elf64_Ehdr *e = (Elf64_Ehdr *)img;

	cr_assert_eq(spi_elf_file_open_mem(img, e->e_shoff + 100, &f, &d),
	    -SP_EFORMAT);
	cr_assert(strstr(d.msg, "section header table"), "%s", d.msg);
	cr_assert_eq(d.offset, e->e_shoff);
	e->e_shentsize = 8;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, &d), -SP_EFORMAT);
	e->e_shentsize = sizeof(Elf64_Shdr);
	e->e_phoff = len - 8;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, &d), -SP_EFORMAT);
	free(img);
}

Test(hostile, section_beyond_the_file)
{
	struct sp_elf_file *f;
	struct sp_elf_syms *x;
	const uint8_t *p;
	size_t len, plen;
	uint8_t *img = slurp(SYMS, &len);

	shdr_named(img, ".symtab")->sh_size = len * 2 / 24 * 24;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(f, ".symtab", &p, &plen),
	    -SP_EFORMAT);
	cr_assert_eq(spi_elf_syms_load(f, &x), -SP_EFORMAT);
	spi_elf_file_free(f);
	/* A billion entries: refused by the file's size, nothing allocated. */
	shdr_named(img, ".symtab")->sh_size = (uint64_t)24 << 30;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), -SP_EFORMAT);
	spi_elf_file_free(f);
	shdr_named(img, ".symtab")->sh_offset = UINT64_MAX - 10;
	shdr_named(img, ".symtab")->sh_size = 24;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), -SP_EFORMAT);
	spi_elf_file_free(f);
	free(img);
}

Test(hostile, bad_string_table_links_and_entry_sizes)
{
	struct sp_elf_file *f;
	struct sp_elf_syms *x;
	size_t len;
	uint8_t *img = slurp(SYMS, &len);
	Elf64_Shdr *sym = shdr_named(img, ".symtab");

	sym->sh_link = 60000;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), -SP_EFORMAT);
	spi_elf_file_free(f);
	sym->sh_link = shdr_named(img, ".dynstr") - (Elf64_Shdr *)(img +
	    ((Elf64_Ehdr *)img)->e_shoff);
	sym->sh_entsize = 16;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), -SP_EFORMAT);
	spi_elf_file_free(f);
	/* Right size, wrong string table: names change, nothing breaks. */
	sym->sh_entsize = 24;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_syms_load(f, &x), 0);
	(void)spi_elf_syms_find(x, 0x1000, NULL);
	spi_elf_syms_free(x);
	spi_elf_file_free(f);
	free(img);
}

Test(hostile, compressed_section_lies_about_its_size)
{
	struct sp_elf_file *f;
	const uint8_t *p;
	size_t len, plen;
	uint8_t *img = slurp(SYMS "-gz", &len);
	Elf64_Shdr *sh = shdr_named(img, ".debug_info");
	Elf64_Chdr *ch = (Elf64_Chdr *)(img + sh->sh_offset), orig = *ch;
	static const uint64_t sizes[] = { (uint64_t)1 << 40,
		SP_ELF_SECTION_MAX + 1, SP_ELF_SECTION_MAX, 400 << 20 };
	static const int errs[] = { -SP_ELIMIT, -SP_ELIMIT, -SP_EFORMAT,
		-SP_EFORMAT };
	size_t i;

	cr_assert_eq(orig.ch_type, ELFCOMPRESS_ZLIB);
	for (i = 0; i < 4; i++) {
		ch->ch_size = sizes[i];
		cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
		cr_assert_eq(spi_elf_file_section(f, ".debug_info", &p, &plen),
		    errs[i], "ch_size %llu", (unsigned long long)sizes[i]);
		spi_elf_file_free(f);
	}
	ch->ch_size = orig.ch_size - 1; /* inflates to more than stated */
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(f, ".debug_info", &p, &plen),
	    -SP_EFORMAT);
	cr_assert_eq(spi_elf_file_section(f, ".debug_info", &p, &plen),
	    -SP_EFORMAT, "the failure is kept");
	spi_elf_file_free(f);
	ch->ch_size = orig.ch_size + 1; /* the stream ends too soon */
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(f, ".debug_info", &p, &plen),
	    -SP_EFORMAT);
	spi_elf_file_free(f);
	*ch = orig;
	ch->ch_type = 2; /* ELFCOMPRESS_ZSTD */
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(f, ".debug_info", &p, &plen),
	    -SP_EFORMAT);
	spi_elf_file_free(f);
	*ch = orig;
	img[sh->sh_offset + sizeof(orig) + 5] ^= 0xff; /* corrupt stream */
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(f, ".debug_info", &p, &plen),
	    -SP_EFORMAT);
	spi_elf_file_free(f);
	free(img);
}

Test(hostile, too_many_sections)
{
	/* gABI extended numbering: e_shnum 0, the count in section 0. */
	size_t n = SP_ELF_SECTIONS_MAX + 1, len = 64 + n * 64;
	uint8_t *img = calloc(1, len);
	Elf64_Ehdr *e = (Elf64_Ehdr *)img;
	Elf64_Shdr *s0 = (Elf64_Shdr *)(img + 64);
	struct sp_elf_file *f;

	cr_assert_not_null(img);
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_shoff = 64;
	e->e_shentsize = sizeof(Elf64_Shdr);
	s0->sh_size = n;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), -SP_ELIMIT);
	s0->sh_size = n + 1; /* one more than the file holds */
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), -SP_EFORMAT);
	s0->sh_size = 2;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	spi_elf_file_free(f);
	free(img);
}

Test(hostile, debuglink_names_a_path)
{
	static const char *const bad[] = { "../x", "a/b", "..", ".", "" };
	struct sp_elf_file *f;
	const char *name;
	uint32_t crc;
	size_t len, i;
	uint8_t *img = slurp(SYMS "-stripped", &len);
	Elf64_Shdr *sh = shdr_named(img, ".gnu_debuglink");

	for (i = 0; i < 5; i++) {
		memset(img + sh->sh_offset, 0, 8);
		memcpy(img + sh->sh_offset, bad[i], strlen(bad[i]));
		cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
		cr_assert_eq(spi_elf_file_debuglink(f, &name, &crc), -SP_EFORMAT,
		    "%s", bad[i]);
		spi_elf_file_free(f);
	}
	memset(img + sh->sh_offset, 'a', sh->sh_size); /* unterminated */
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_debuglink(f, &name, &crc), -SP_EFORMAT);
	spi_elf_file_free(f);
	free(img);
}


/* libelf's "out of memory" is told from a malformed file by its code. */
Test(elffile, libelf_out_of_memory_code)
{
	cr_assert_str_eq(elf_errmsg(SPI_ELF_E_NOMEM), "out of memory");
}

/* A name table of another type still names the sections (elf_strptr
 * would refuse it and hide every section). */
Test(hostile, name_table_of_another_type)
{
	struct sp_elf_file *f;
	size_t len;
	uint8_t *img = slurp(SYMS, &len);

	shdr_named(img, ".shstrtab")->sh_type = SHT_PROGBITS;
	cr_assert_eq(spi_elf_file_open_mem(img, len, &f, NULL), 0);
	cr_assert(spi_elf_file_has_section(f, ".symtab"));
	spi_elf_file_free(f);
	free(img);
}

/* A section read at open under the higher limit (the name table) is
 * refused once the limit is lowered below its size. */
Test(elffile, a_lowered_limit_covers_sections_read_before)
{
	struct sp_elf_file *f;
	const uint8_t *p;
	size_t len;

	cr_assert_eq(spi_elf_file_open(SYMS, &f, NULL), 0);
	cr_assert_eq(spi_elf_file_section(f, ".shstrtab", &p, &len), 0);
	cr_assert_gt(len, 16);
	spi_elf_file_limit_sections(f, 16);
	cr_assert_eq(spi_elf_file_section(f, ".shstrtab", &p, &len),
	    -SP_ELIMIT);
	spi_elf_file_free(f);
}

/*
 * A sparse file whose header claims 2^30 sections (e_shnum 0, the count
 * in section 0): refused from the raw header, before libelf would make a
 * table of 2^30 sections (some 200 GiB).
 */
Test(elffile, a_huge_section_count_is_refused_before_libelf)
{
	char dir[PATH_MAX], path[PATH_MAX];
	uint64_t n = (uint64_t)1 << 30;
	Elf64_Ehdr e;
	Elf64_Shdr s0;
	struct sp_elf_file *f;
	struct sp_diag d;
	int fd;

	tmpdir(dir, "shcount");
	pathf(path, "%s/sparse", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	memset(&e, 0, sizeof(e));
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	e.e_shoff = sizeof(e);
	e.e_shentsize = sizeof(Elf64_Shdr);
	memset(&s0, 0, sizeof(s0));
	s0.sh_size = n;
	cr_assert_eq(pwrite(fd, &e, sizeof(e), 0), (ssize_t)sizeof(e));
	cr_assert_eq(pwrite(fd, &s0, sizeof(s0), sizeof(e)), (ssize_t)sizeof(s0));
	cr_assert_eq(ftruncate(fd, (off_t)(sizeof(e) + n * sizeof(s0))), 0);
	(void)close(fd);
	cr_assert_eq(spi_elf_file_open(path, &f, &d), -SP_ELIMIT, "%s", d.msg);
	cr_assert(strstr(d.msg, "section headers"), "%s", d.msg);
	(void)unlink(path);
}
