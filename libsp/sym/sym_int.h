/* SPDX-License-Identifier: MIT */
#ifndef SP_SYM_INT_H
#define SP_SYM_INT_H

/*
 * The parts of the symbolizer (symbolizer.c) and of sp_sym_spool built on
 * it (symbolize.c): the ELF and DWARF file cache (sym_elf.c), perf maps,
 * kallsyms and the fallbacks (sym_resolve.c), the Python runtime rules
 * (sym_python.c), a frame's lines and their strings (sym_lines.c), the
 * report (sym_report.c).
 */

#include "common/intern_int.h"
#include "common/opts_int.h"
#include "dwarf/debuginfo_int.h"
#include "elf/elfsym_int.h"
#include "sp/sym/sym.h"
#include "sp/sym/symbolizer.h"
#include "sym/debugfind_int.h"
#include "sym/dwcache_int.h"
#include "sym/kallsyms_int.h"
#include "sym/perfmap_int.h"

/* One ELF module's files, opened and indexed once per run. */
struct sym_file {
	const char *path;            /* the input's string: lives as long */
	uint8_t build_id[SP_BUILD_ID_MAX];
	size_t id_len;
	int state;                   /* 0 not opened, 1 usable, -1 none */
	struct sp_debug_found found;
	struct sp_elf_syms *dsyms;   /* the debug file's symbols, or NULL */
	struct sp_elf_syms *bsyms;   /* the binary's symbols, or NULL */
	struct sp_dwarf *dwarf;      /* over the file with .debug_info */
	struct spi_dwcache cache;    /* its inflated sections, if mapped */
	size_t missing;              /* index + 1 in the report, 0 none */
	uint64_t named;              /* frames it named */
	int unmapped;                /* reported: an offset outside PT_LOAD */
	uint64_t entry, entry_end;   /* _start's range, or 0, 0 */
};

/* A process's perf map, read at most once. */
struct sym_pmap {
	uint32_t host, pid;
	struct sp_perf_map *map;     /* NULL: none or refused */
	/* DIR/perf-PID.map when it was looked for: size and mtime, or
	 * size -1 when there was none (sp_symbolizer_update). */
	int64_t size, mtime_ns;
};

/* A (host, pid) and whether it is a Python runtime now. */
struct sym_pid {
	uint32_t host, pid;
	int python;
};

#define SYM_STRIDS_BITS 12

struct sym_ctx {
	const struct sp_sym_options *o;
	struct sp_sym_report *rep;
	/* A symbol's strings: ids into own, whose key of id i is a
	 * NUL-terminated copy at own->keys.p + own->entries[i - 1].off. */
	struct sp_intern *own;
	/*
	 * Called instead of spi_sym_elf_frame when not NULL (a symbolizer
	 * with its own native backend): returns as it does, or 3 when the
	 * frame was put aside to be named later (c->sym left empty).
	 */
	int (*native)(struct sym_ctx *c, uint32_t module_id,
	    const struct sp_module *m, const struct sp_frame *f);
	void *native_arg;
	const struct sp_defs *defs;      /* the input's */
	const struct sp_header *hdr;     /* the input's */

	struct sym_file *files;
	size_t nfiles, capfiles;
	uint32_t *file_of;               /* input module id - 1 -> file + 1 */
	size_t capfile_of;
	/* Input module id - 1 -> report entry + 1, for modules of no file. */
	uint32_t *unnamed_of;
	size_t capunnamed_of;
	/* Input module id - 1 -> the id in own of its name, 0 not yet. */
	uint32_t *modname_of;
	size_t capmodname_of;
	size_t capmissing;          /* slots of rep->missing */
	size_t capdamaged;          /* slots of rep->damaged */
	size_t capfetches;          /* slots of rep->fetches */

	struct sym_pmap *pmaps;
	size_t npmaps, cappmaps;
	struct sym_pid *pids;
	size_t npids, cappids;

	struct sp_kallsyms *ksyms;
	int ktried;
	int this_boot;                   /* the spool was recorded in this
	                                  * boot (sp_symbolizer_new says) */

	/* Writer ids of strings that stay in place for the run. */
	struct sym_strid {
		const char *s;
		size_t len;
		uint32_t id;
	} strids[(size_t)1 << SYM_STRIDS_BITS];

	/* The symbol being built: strings are own's ids. */
	struct sp_symbol sym;
	struct sp_symline lines[SP_INLINE_MAX];
	uint32_t columns[SP_INLINE_MAX]; /* of lines (the spool has none) */
	/* The address's offset in its ELF symbol + 1, 0 unknown. */
	uint64_t func_offset_plus1;
};

struct sp_symbolizer;

/* sz 0: struct sp_sym_options as of 0.5.0, whose last field is
 * progress_arg (frozen: a field added later lies past it).  Both readers
 * of the struct, sp_sym_spool and sp_symbolizer_new, take it. */
#define SYM_OPTS_SZ0 SPI_OPTS_END(struct sp_sym_options, progress_arg)

/*
 * sp_symbolizer_new whose report is rep (the caller's, not freed with
 * the symbolizer; NULL: its own).  sp_sym_spool's.
 */
int spi_symbolizer_new(const struct sp_defs *defs, const struct sp_header *hdr,
    const struct sp_sym_options *o, const struct sp_native_backend *backend,
    struct sp_sym_report *rep, struct sp_symbolizer **out);

/* A PYTHON record, for the frames resolved from now on.  0 or -ENOMEM. */
int spi_symbolizer_set_python(struct sp_symbolizer *s, uint32_t host,
    uint32_t pid, int is_python);

/* Ends the report: named counts of the files, entries sorted. */
void spi_symbolizer_report_finish(struct sp_symbolizer *s);

/*
 * sp_sym_spool's path: input frame id resolved into *out (valid until
 * the next call; its strings are ids for spi_symbolizer_str), neither
 * cached nor given logical frame ids: a spool names each frame once and
 * its SYMBOL carries no such ids.  defs: NULL for the symbolizer's; or
 * those of a second reader of the same input (spi_replay_ahead), whose
 * ids are the same, for this call.  They must outlive the symbolizer,
 * which keeps the paths of the files it opened.  0; -SP_EREF for an
 * unknown frame; -SP_EUSAGE for a symbolizer with a native backend;
 * -errno.
 */
int spi_symbolizer_frame_symbol(struct sp_symbolizer *s,
    const struct sp_defs *defs, uint32_t frame, const struct sp_symbol **out);

/*
 * sp_sym_spool, resolving frames a chunk of chunk frames ahead of the
 * copy where the input can be read twice (ahead_int.h); 0: each when
 * the copy comes to it.  The output is the same.
 */
int spi_sym_spool_ahead(const struct sp_sym_options *o, struct sp_replay *in,
    int out_fd, struct sp_sym_report *rep, struct sp_diag *diag,
    size_t chunk);

/* The symbolizer's string id, NUL-terminated, valid until
 * sp_symbolizer_free, and its length in *len; NULL for 0 or an unknown
 * id. */
const char *spi_symbolizer_str(const struct sp_symbolizer *s, uint32_t id,
    size_t *len);

/* Resolves input frame id into c->sym (its frame field not set). */
int spi_sym_resolve(struct sym_ctx *c, uint32_t frame);

/*
 * As spi_sym_resolve, for a frame that need not be defined (frame 0: a
 * caller's address, f->module defined or 0).  Returns 0, 3 when c->native
 * put the frame aside, or -errno.
 */
int spi_sym_resolve_frame(struct sym_ctx *c, const struct sp_frame *f,
    uint32_t frame);

/* The id of string s[0..len) in c->own.  0 or -errno. */
int spi_sym_string(struct sym_ctx *c, const char *s, size_t len,
    uint32_t *id);

/*
 * ELF + DWARF for a file-backed user frame: 1 named; 2 not named (the
 * caller may try the perf map, then counts it with spi_sym_elf_unnamed);
 * 0 no file to look at (a path that is not absolute); or -errno.
 */
int spi_sym_elf_frame(struct sym_ctx *c, uint32_t module_id,
    const struct sp_module *m, uint64_t rel_ip);

/*
 * The built-in backend for a file-backed user frame: its file's symbols
 * (spi_sym_elf_frame), then its process's perf map for what they do not
 * name; a symbolizer's backend falls back to it (SP_NATIVE_FALLBACK).
 * Returns as spi_sym_elf_frame.
 */
int spi_sym_file_frame(struct sym_ctx *c, const struct sp_frame *f,
    const struct sp_module *m);

/* Counts a frame of m that its file did not name in the report, under
 * the file: 2, or -errno. */
int spi_sym_elf_unnamed(struct sym_ctx *c, uint32_t module_id,
    const struct sp_module *m);

/*
 * The perf map of m's process (where the options allow reading it) for
 * address ip: 1 named (origin perf map, flagged a Python or JIT frame);
 * 0 no map, or ip not in it; or -errno.
 */
int spi_sym_pmap_frame(struct sym_ctx *c, const struct sp_module *m,
    uint64_t ip);

/*
 * Where m's process maps m now, into buf (/proc/PID/map_files/START-END),
 * for a spool of this boot (c->this_boot), a running process and a
 * reader allowed to open it (root); else NULL.
 */
const char *spi_sym_mapped_image(const struct sym_ctx *c,
    const struct sp_module *m, char *buf, size_t cap);

/* Frees the file cache. */
void spi_sym_files_free(struct sym_ctx *c);

/* Frees everything c holds but own and the report. */
void spi_sym_ctx_fini(struct sym_ctx *c);

/* A PYTHON record: (host, pid) is a Python runtime from now on, or not. */
int spi_sym_set_python(struct sym_ctx *c, uint32_t host, uint32_t pid,
    int is_python);

/*
 * Forgets the perf maps whose file changed (appeared, grew, rewritten)
 * since they were read, storing at most cap of their pids in pids; they
 * are read again at their next use.  Returns how many were forgotten.
 */
size_t spi_sym_pmaps_refresh(struct sym_ctx *c, uint32_t *pids, size_t cap);

/* sym_lines.c: appends a line to c->sym with function and file (file may
 * be NULL). */
int spi_sym_add_line(struct sym_ctx *c, const char *function, size_t flen,
    const char *file, size_t filelen, uint32_t line);

/* As spi_sym_add_line, for strings that stay in place and unchanged until
 * spi_sym_ctx_fini (ELF and DWARF bytes of the file cache). */
int spi_sym_add_stable_line(struct sym_ctx *c, const char *function, size_t flen,
    const char *file, size_t filelen, uint32_t line);

/* Records a table of path skipped because of err (not -ENOMEM). */
int spi_sym_report_damaged(struct sym_ctx *c, const char *path, const char *what,
    int err);

/* Records what debuginfod said for f (found.debuginfod_said). */
int spi_sym_report_fetch(struct sym_ctx *c, const struct sym_file *f);

/* A frame of f left address-only: counted under f's report entry. */
int spi_sym_report_file_frame(struct sym_ctx *c, struct sym_file *f);

/*
 * A frame of input module id (0 none; m its definition or NULL) that no
 * file was read for, left address-only for the reason why: counted under
 * the entry of its module's name and that reason.
 */
int spi_sym_report_frame(struct sym_ctx *c, uint32_t id,
    const struct sp_module *m, const char *why);

/* Ends the report: named counts of the files, entries sorted. */
void spi_sym_report_finish(struct sym_ctx *c);

/* Counts symbol s in rep: by origin, its flags, its inlined lines. */
void spi_sym_report_count(struct sp_sym_report *rep, const struct sp_symbol *s);

#endif
