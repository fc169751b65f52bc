/* SPDX-License-Identifier: MIT */
/*
 * ELF symbols and DWARF for file-backed modules.  Each (path, build-id)
 * is looked up and indexed once per run; modules of many processes that
 * map the same file share it.
 */
#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "dwarf/cfi_int.h"
#include "sp/spool/format.h"
#include "sym_int.h"

static void
file_fini(struct sym_file *f)
{
	spi_dwarf_free(f->dwarf);
	spi_dwcache_fini(&f->cache);
	spi_elf_syms_free(f->dsyms);
	spi_elf_syms_free(f->bsyms);
	spi_debug_found_fini(&f->found);
}

void
spi_sym_files_free(struct sym_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++)
		file_fini(&c->files[i]);
	free(c->files);
	free(c->file_of);
	c->files = NULL;
	c->file_of = NULL;
	c->nfiles = c->capfiles = c->capfile_of = 0;
}

/*
 * The DWARF sections of f: bytes owned by f, or for compressed ones the
 * cache's inflated bytes (dwcache_int.h), mapped into *cache.  A section
 * that cannot be read (malformed, compressed beyond belief, over
 * SP_ELF_SECTION_MAX) is left out and reported; the index uses what is
 * left.  A file inflated here is put in the cache for the next run.
 */
static int
dwarf_open(struct sym_ctx *c, struct sp_elf_file *f, struct spi_dwcache *cache,
    struct sp_dwarf **out)
{
	static const char *const names[] = {
		".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
		".debug_line_str", ".debug_str_offsets", ".debug_addr",
		".debug_ranges", ".debug_rnglists", ".debug_aranges",
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	struct sp_dwarf_sections s;
	struct sp_dwarf_bytes *const b[N] = { &s.info, &s.abbrev, &s.line,
		&s.str, &s.line_str, &s.str_offsets, &s.addr, &s.ranges,
		&s.rnglists, &s.aranges };
	const char *dir = c->o->cache_dir;
	size_t i;
	int err;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	err = spi_dwcache_get(dir, f, names, N, b, cache);
	if (err == -ENOMEM)
		return err;
	for (i = 0; i < N; i++) {
		if (b[i]->p != NULL)
			continue;       /* from the cache */
		err = spi_elf_file_section(f, names[i], &b[i]->p, &b[i]->len);
		if (err == -ENOMEM)
			return err;
		if (err < 0 && err != -SP_ENOTFOUND &&
		    (err = spi_sym_report_damaged(c, spi_elf_file_path(f),
		    names[i], err)) < 0)
			return err;
		if (err < 0 || b[i]->len == 0) {
			b[i]->p = NULL;
			b[i]->len = 0;
		}
	}
	/* Best effort: a run without a cache is only slower. */
	if (spi_dwcache_put(cache,
	    (const struct sp_dwarf_bytes *const *)b) == -ENOMEM)
		return -ENOMEM;
	err = spi_dwarf_open(&s, out);
	if (err < 0 && err != -SP_ENOTFOUND && err != -ENOMEM)
		return spi_sym_report_damaged(c, spi_elf_file_path(f), "DWARF", err);
	return err;
}

static int
syms_of(struct sym_ctx *c, struct sp_elf_file *f, struct sp_elf_syms **out)
{
	int err;

	if (f == NULL)
		return 0;
	err = spi_elf_syms_load(f, out);
	if (err == 0 && spi_elf_syms_count(*out) == 0) {
		spi_elf_syms_free(*out);
		*out = NULL;
	}
	if (err < 0 && err != -ENOMEM)
		return spi_sym_report_damaged(c, spi_elf_file_path(f),
		    ".symtab and .dynsym", err);
	return err == -ENOMEM ? err : 0;
}

const char *
spi_sym_mapped_image(const struct sym_ctx *c, const struct sp_module *m,
    char *buf, size_t cap)
{
	int n;

	if (!c->this_boot || m == NULL || m->host != 0 || m->pid == 0)
		return NULL;
	n = snprintf(buf, cap, "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
	    m->pid, m->start, m->start + m->size);
	if (n <= 0 || (size_t)n >= cap || access(buf, R_OK) != 0)
		return NULL;
	return buf;
}

/*
 * An executable's entry point is _start (glibc's and musl's crt1), as
 * the ELF header says, also where the binary is stripped: its range is
 * that of the FDE that begins there (.eh_frame, LSB 4.1 §10.6.1).  Without
 * one, where the code ends is unknown, and the entry stays unnamed.
 */
static void
entry_range(struct sym_file *fl)
{
	struct sp_elf_file *b = fl->found.binary;
	struct sp_cfi_section sec;
	uint64_t entry, lo, hi;
	size_t off = 0, next;

	memset(&sec, 0, sizeof(sec));
	if (b == NULL || spi_elf_file_entry(b, &entry) != 0 ||
	    spi_elf_file_section(b, ".eh_frame", &sec.data, &sec.len) != 0 ||
	    spi_elf_file_section_addr(b, ".eh_frame", &sec.vaddr) != 0)
		return;
	/* DW_EH_PE_datarel is relative to the GOT (x86-64 psABI). */
	(void)spi_elf_file_section_addr(b, ".got", &sec.datarel_base);
	while (off < sec.len) {
		next = 0;
		if (spi_cfi_fde_range(&sec, off, &lo, &hi, &next) == 0 &&
		    lo == entry && hi > lo) {
			fl->entry = lo;
			fl->entry_end = hi;
			return;
		}
		if (next <= off)
			return;
		off = next;
	}
}

/* Opens and indexes fl's files (m: a module of it); marks it usable or
 * not. */
static int
file_open(struct sym_ctx *c, struct sym_file *fl, const struct sp_module *m)
{
	const struct sp_sym_options *o = c->o;
	struct sp_debug_search s;
	struct sp_elf_file *dw;
	char image[80];
	int err;

	memset(&s, 0, sizeof(s));
	s.image = o->live_images ? spi_sym_mapped_image(c, m, image,
	    sizeof(image)) : NULL;
	s.debug_dirs = o->debug_dirs;
	s.ndebug_dirs = o->ndebug_dirs;
	s.sysroot = o->sysroot;
	s.bundle = o->bundle;
	s.debuginfod = o->debuginfod;
	err = spi_debug_find(&s, fl->path, fl->build_id, fl->id_len,
	    &fl->found);
	if (err == -ENOMEM)
		return err;
	c->rep->mismatches += fl->found.mismatches;
	c->rep->debuginfod_files += fl->found.debuginfod != 0;
	c->rep->debuginfod_bytes += fl->found.fetched;
	if (fl->found.debuginfod_said[0] != '\0' &&
	    (err = spi_sym_report_fetch(c, fl)) < 0)
		return err;
	if ((err = syms_of(c, fl->found.debug, &fl->dsyms)) < 0 ||
	    (err = syms_of(c, fl->found.binary, &fl->bsyms)) < 0)
		return err;
	dw = fl->found.debug;
	if (dw == NULL || !spi_elf_file_has_section(dw, ".debug_info"))
		dw = fl->found.binary;
	if (dw != NULL && spi_elf_file_has_section(dw, ".debug_info")) {
		err = dwarf_open(c, dw, &fl->cache, &fl->dwarf);
		if (err == -ENOMEM)
			return err;
	}
	entry_range(fl);
	fl->state = fl->dsyms != NULL || fl->bsyms != NULL ||
	    fl->dwarf != NULL || fl->entry_end != 0 ? 1 : -1;
	return 0;
}

static int
file_new(struct sym_ctx *c, const struct sp_module *m, const char *path,
    size_t *index)
{
	struct sym_file *f;
	size_t i;

	for (i = 0; i < c->nfiles; i++) {
		f = &c->files[i];
		if (f->id_len == m->build_id_len &&
		    memcmp(f->build_id, m->build_id, f->id_len) == 0 &&
		    strcmp(f->path, path) == 0) {
			*index = i;
			return 0;
		}
	}
	if (spi_grow_zeroed(&c->files, &c->capfiles, c->nfiles + 1,
	    sizeof(*c->files)) != 0)
		return -ENOMEM;
	f = &c->files[c->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = path;
	memcpy(f->build_id, m->build_id, m->build_id_len);
	f->id_len = m->build_id_len;
	*index = c->nfiles++;
	return 0;
}

/* The file of input module id, opened on first use. */
static int
file_get(struct sym_ctx *c, uint32_t id, const struct sp_module *m,
    struct sym_file **out)
{
	const struct sp_str *path = sp_defs_string(c->defs, m->path);
	struct sym_file *f;
	size_t i;
	int err;

	*out = NULL;
	/* A file's path, or the [vdso] by its build-id (spi_debug_find). */
	if (path == NULL || path->len == 0 || (path->s[0] != '/' &&
	    !((m->flags & SP_MOD_VDSO) && m->build_id_len > 0)) ||
	    memchr(path->s, '\0', path->len) != NULL)
		return 0;
	if ((err = spi_grow_zeroed((void **)&c->file_of, &c->capfile_of, id,
	    sizeof(*c->file_of))) < 0)
		return err;
	if (c->file_of[id - 1] == 0) {
		err = file_new(c, m, path->s, &i);
		if (err < 0)
			return err;
		c->file_of[id - 1] = (uint32_t)i + 1;
	}
	f = &c->files[c->file_of[id - 1] - 1];
	if (f->state == 0 && (err = file_open(c, f, m)) < 0)
		return err;
	*out = f;
	return 0;
}

/*
 * The ELF address of file offset off in module m: through the binary's
 * PT_LOAD headers; else, as the recorder saw it (m's elf_vaddr_plus1):
 * a debug file made by objcopy --only-keep-debug keeps the headers but
 * without file bytes, so it serves last, when it answers at all.
 */
static int
file_vaddr(const struct sym_file *f, const struct sp_module *m, uint64_t off,
    uint64_t *vaddr)
{
	if (f->found.binary != NULL)
		return spi_elf_file_vaddr(f->found.binary, off, vaddr);
	if (m->elf_vaddr_plus1 != 0 && off >= m->file_offset &&
	    off - m->file_offset < m->size) {
		*vaddr = m->elf_vaddr_plus1 - 1 + (off - m->file_offset);
		return 0;
	}
	if (f->found.debug != NULL)
		return spi_elf_file_vaddr(f->found.debug, off, vaddr);
	return -SP_ENOTFOUND;
}

/* The ELF symbol at vaddr, with *offset_plus1 its offset in it + 1;
 * _start at a stripped executable's entry point. */
static const char *
elf_name(const struct sym_file *f, uint64_t vaddr, uint64_t *offset_plus1)
{
	const char *name = NULL;
	uint64_t start = vaddr;

	if (f->dsyms != NULL)
		name = spi_elf_syms_find(f->dsyms, vaddr, &start);
	if (name == NULL && f->bsyms != NULL)
		name = spi_elf_syms_find(f->bsyms, vaddr, &start);
	if (name == NULL && vaddr >= f->entry && vaddr < f->entry_end) {
		name = "_start";
		start = f->entry;
	}
	*offset_plus1 = name != NULL && start <= vaddr ? vaddr - start + 1 : 0;
	return name;
}

/*
 * A .symtab keeps the symbol version in the name of a versioned symbol
 * ("clock_gettime@@GLIBC_2.17"): linking detail, not part of the name.
 * A PLT stub's "@plt" (elf/elfsym_int.h) says what the code is: it stays.
 */
static int
add(struct sym_ctx *c, const char *fn, const char *file, uint32_t line)
{
	const char *at = fn[0] != '\0' ? strchr(fn + 1, '@') : NULL;

	if (at != NULL && strcmp(at, "@plt") == 0)
		at = NULL;

	return spi_sym_add_stable_line(c, fn, at != NULL ? (size_t)(at - fn) :
	    strlen(fn), file, file != NULL ? strlen(file) : 0, line);
}

/*
 * DWARF gives the inline chain, innermost first, and the lines, and names
 * every frame it knows, the machine frame (the outermost) too, so that
 * one address has one name whatever aliases .symtab gives it, the one
 * addr2line and perf show: __ieee754_fmod, not its compatibility alias
 * __fmod_finite (glibc's libm); systrim, not the clone
 * systrim.constprop.0.  DWARF's name is the linkage name where it has
 * one: DW_AT_name of a C++ or Rust function lacks its namespace and
 * class.  Where it has only that bare name (Rust's line-tables-only
 * debug information: "unit") and the ELF symbol is mangled
 * ("_ZN5rtree4unit17h...E"), the symbol names the frame, as addr2line
 * does.  Where DWARF names no function, the ELF symbol does
 * (elfsym_int.h: global over weak over local).
 */
static const char *
outer_name(const char *dwarf, const char *elf)
{
	if (dwarf == NULL || (elf != NULL && spi_dwarf_mangled(elf) &&
	    !spi_dwarf_mangled(dwarf)))
		return elf;
	return dwarf;
}

/*
 * A frame's ELF address: a caller's comes rewound by 1 into its call,
 * which a function's symbol covers even where the call ends it.  An
 * address pushed rather than returned to (a runtime's fake return
 * address at a stack's root: a function's first byte) comes rewound into
 * the padding before that function, which no symbol covers: the frame is
 * the function's.  Also gives the ELF symbol there, which name_frame
 * needs, and its offset in it + 1.
 */
static uint64_t
pushed(const struct sym_file *f, uint64_t vaddr, const char **name,
    uint64_t *offset_plus1)
{
	const char *next;
	uint64_t off;

	*name = elf_name(f, vaddr, offset_plus1);
	if (*name == NULL && vaddr < UINT64_MAX &&
	    (next = elf_name(f, vaddr + 1, &off)) != NULL && off == 1) {
		*name = next;
		*offset_plus1 = off;
		return vaddr + 1;
	}
	return vaddr;
}

/* Names the frame at vaddr, whose ELF symbol is name (pushed found it). */
static int
name_frame(struct sym_ctx *c, struct sym_file *f, uint64_t vaddr,
    const char *name, const char **outer)
{
	struct sp_dwarf_frame df[SP_INLINE_MAX];
	const char *fn;
	uint32_t had;
	int n = 0, i, err;

	if (f->dwarf != NULL) {
		n = spi_dwarf_lookup(f->dwarf, vaddr, df, SP_INLINE_MAX);
		if (n == -ENOMEM)
			return n;
		if (n < 0 && n != -SP_ENOTFOUND)
			c->rep->dwarf_errors++;
	}
	for (i = 0; i < n; i++) {
		fn = df[i].function;
		if (i == n - 1)
			fn = outer_name(fn, name);
		*outer = fn != NULL ? fn : "??";
		had = c->sym.count;
		err = add(c, *outer, df[i].file, df[i].line);
		if (err < 0)
			return err;
		if (c->sym.count > had)
			c->columns[had] = df[i].column;
	}
	if (n <= 0) {
		if (name == NULL)
			return 0;
		*outer = name;
		err = add(c, name, NULL, 0);
		if (err < 0)
			return err;
	}
	c->sym.origin = SP_ORIGIN_ELF;
	return 1;
}

int
spi_sym_elf_unnamed(struct sym_ctx *c, uint32_t module_id,
    const struct sp_module *m)
{
	struct sym_file *f;
	int err = file_get(c, module_id, m, &f);

	if (err < 0 || f == NULL)
		return err;
	err = spi_sym_report_file_frame(c, f);
	return err < 0 ? err : 2;
}

int
spi_sym_elf_frame(struct sym_ctx *c, uint32_t module_id,
    const struct sp_module *m, uint64_t rel_ip)
{
	const char *outer = "", *name;
	struct sym_file *f;
	uint64_t vaddr;
	int r;

	r = file_get(c, module_id, m, &f);
	if (r < 0 || f == NULL)
		return r;
	if (f->state > 0 && file_vaddr(f, m, rel_ip, &vaddr) == 0) {
		vaddr = pushed(f, vaddr, &name, &c->func_offset_plus1);
		r = name_frame(c, f, vaddr, name, &outer);
	} else if (f->state > 0 && !f->unmapped) {
		/* The file's segments do not hold what was mapped. */
		f->unmapped = 1;
		r = spi_sym_report_damaged(c, f->path, "program headers",
		    -SP_ENOTFOUND);
		if (r < 0)
			return r;
	}
	if (r <= 0)
		return r < 0 ? r : 2;
	f->named++;
	/* file_get took only modules with a path. */
	if (sp_python_runtime_path(f->path, strlen(f->path)) &&
	    sp_sym_python_machinery(outer))
		c->sym.flags |= SP_SYM_PYTHON_RUNTIME | SP_SYM_HIDDEN;
	return 1;
}
