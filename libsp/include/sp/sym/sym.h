/* SPDX-License-Identifier: MIT */
#ifndef SP_SYM_H
#define SP_SYM_H

/*
 * Offline symbolization: copies a spool and adds one SYMBOL record after
 * each FRAME definition (docs/spool-format.md), naming the frame from, in
 * this order,
 *
 *   1. a perf map (perf-PID.map; only for processes the spool marks as
 *      Python runtimes, and those the options allow): JIT and Python
 *      frames;
 *   2. the module's ELF symbols and DWARF (line, inline chain), in files
 *      found by spi_debug_find and verified by build-id;
 *   3. kallsyms, for kernel frames;
 *   4. the address alone ("module+0xOFFSET", or "0xADDRESS").
 *
 * Each ELF file is opened and indexed once per run (keyed by path and
 * build-id), each perf map and kallsyms read once, each FRAME (frames are
 * interned) resolved once.  Memory is bounded by the definitions and
 * those indexes, not by the number of samples.
 *
 * A spool that sp-sym wrote already carries a SYMBOL right after each
 * FRAME, with only STRING records between them.  The copy looks ahead
 * that far: such a SYMBOL is copied and its frame not resolved again, so
 * running sp-sym on its own output reproduces it byte for byte.  A SYMBOL
 * found anywhere else arrives after its frame was resolved and is dropped
 * (counted in stale_symbols): a frame has at most one symbol.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/common/opts.h"
#include "sp/spool/replay.h"
#include "sp/sym/debuginfod.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_DEBUG_DIR_DEFAULT "/usr/lib/debug"
#define SP_DEBUG_DIRS_ENV "STACKPULSE_DEBUG_DIRS"
#define SP_DEBUG_DIRS_MAX 32 /* directories in a list */

/* A list of debug directories, owned. */
struct sp_debug_dirs {
	const char **dirs;
	size_t n;
	char *buf;      /* the strings dirs point into */
};

/*
 * Parses spec, a colon-separated list of directories (empty elements
 * are skipped).  A NULL or empty spec gives {SP_DEBUG_DIR_DEFAULT}.
 * Returns 0, -SP_ELIMIT (more than SP_DEBUG_DIRS_MAX), -ENOMEM.
 */
int sp_debug_dirs_parse(const char *spec, struct sp_debug_dirs *out);

/*
 * sp_debug_dirs_parse on the environment variable STACKPULSE_DEBUG_DIRS,
 * which replaces the default list when set and not empty.
 */
int sp_debug_dirs_from_env(struct sp_debug_dirs *out);

void sp_debug_dirs_fini(struct sp_debug_dirs *d);

struct sp_sym_options {
	/* sizeof(struct sp_sym_options), or 0 for the 0.5.0 struct;
	 * fields past sz read as 0 (sp/common/opts.h) */
	size_t sz;
	const char *const *debug_dirs; /* NULL: {SP_DEBUG_DIR_DEFAULT} */
	size_t ndebug_dirs;
	const char *sysroot;         /* NULL: none */
	const char *bundle;          /* NULL: none; else used before this host
	                              * (no file reached through a symlink,
	                              * sp_bundle_check) */
	const char *perf_map_dir;    /* NULL: "/tmp" */
	const uint32_t *perf_map_pids; /* also read these pids' perf maps */
	size_t nperf_map_pids;
	int perf_maps_all;           /* read every process's perf map */
	int perf_maps_none;          /* read none, Python runtimes' neither */
	/* Refuse a perf map modified after this time (seconds since the
	 * epoch; 0: no bound): one written after the recording ended is
	 * another process's that got the pid. */
	int64_t perf_map_before;
	const char *kallsyms;        /* NULL: the bundle's, or this host's */
	int kernel_none;             /* no kernel symbols: kernel frames stay
	                              * address-only */
	/* Also read a module's image where its process maps it now
	 * (/proc/PID/map_files: root, a spool of this boot, the process
	 * running): the exact file, also when it was replaced or deleted on
	 * disk since.  Checked by build-id as every file.  For a live view. */
	int live_images;
	/* NULL: no debuginfod; else asked for debug files nothing here has
	 * (sp/sym/debuginfod.h, sym/debugfind_int.h) */
	struct sp_debuginfod *debuginfod;
	/*
	 * Called now and then (every few thousand records) with the input
	 * bytes read so far; may be NULL.
	 */
	void (*progress)(void *arg, uint64_t bytes, uint64_t frames);
	void *progress_arg;
	/*
	 * NULL: none.  Else a directory (made if missing, mode 0700) where
	 * the DWARF of a debug file whose sections are compressed is kept
	 * inflated, one file per build-id, so that later runs map it instead
	 * of inflating it again (docs/architecture.md).  sp-sym and sp-report
	 * pass --cache-dir, STACKPULSE_CACHE_DIR or ~/.cache/stackpulse.
	 */
	const char *cache_dir;
};

/*
 * A module some of whose frames stayed address-only, and why: one per
 * ELF file (path and build-id), one per other kind of module and reason
 * ("[kernel.kallsyms]", "[anon]", "[vdso]", frames with no module).
 * Together they hold every address-only frame that sp_sym_spool looked
 * up (not the truncated-stack markers, nor symbols copied from the input).
 */
struct sp_sym_missing {
	char path[1024];         /* as recorded (cut to fit), or the name */
	char build_id[2 * SP_BUILD_ID_MAX + 1]; /* hex, "" when none */
	char why[256];           /* why its frames stayed address-only */
	char tried[1024];        /* where it looked, and what was there;
	                          * "" for modules without a file */
	uint64_t frames;         /* frames left address-only because of it */
	uint64_t named;          /* its frames that were named (ELF files) */
	unsigned mismatches;     /* files found but with another build-id */
	int no_symbols;          /* its files named none of its frames */
	int want_debug;          /* a debug file (or the binary) would help */
};

/* A module debuginfod was asked for, and what came of it. */
struct sp_sym_fetch {
	char path[1024];         /* the module as recorded (cut to fit) */
	char build_id[2 * SP_BUILD_ID_MAX + 1]; /* hex */
	char said[512];          /* "fetched 9.6 KiB from URL", "in the
	                          * cache (PATH)", or each server's answer */
	int used;                /* its debug file names frames now */
};

/* A table of a usable file that was skipped: malformed or over a limit. */
struct sp_sym_damaged {
	char path[1024];         /* the file (cut to fit) */
	char what[320];          /* the table, and why it was skipped */
};

struct sp_sym_report {
	uint64_t frames;           /* FRAME records in the output */
	uint64_t by_origin[5];     /* indexed by enum sp_sym_origin */
	uint64_t copied;           /* symbols copied from the input */
	uint64_t copied_address;   /* of them address-only (not markers) */
	uint64_t python_frames, jit_frames, hidden, truncated;
	uint64_t inline_lines;     /* logical frames beyond the first */
	uint64_t mismatches;       /* files rejected: build-id (or CRC) */
	uint64_t debuginfod_files; /* debug files from debuginfod (its cache) */
	uint64_t debuginfod_bytes; /* of them fetched from a server now */
	struct sp_sym_fetch *fetches; /* one per module debuginfod was asked
	                               * for, in the order asked */
	size_t nfetches;
	uint64_t perf_maps;        /* perf maps read (the bundle's or found) */
	uint64_t perf_maps_late;   /* refused: modified after the recording */
	uint64_t stale_symbols;    /* input SYMBOLs not right after their FRAME */
	uint64_t skipped_records;  /* records of kinds this library does not know */
	char kernel[320];          /* where kernel names came from, or why none */
	struct sp_sym_missing *missing; /* most address-only frames first */
	size_t nmissing;
	struct sp_sym_damaged *damaged; /* one per file and table */
	size_t ndamaged;
	uint64_t dwarf_errors;     /* lookups the DWARF refused (malformed) */
	int input_truncated;       /* the input ended without END (prefix kept) */
	/*
	 * After sp_sym_spool failed: 1 when the error is the input's (reading
	 * it failed, or it holds a record no spool may), diag giving the
	 * offset and the reason; 0 when it is the output's (writing failed)
	 * or -ENOMEM.
	 */
	int input_failed;
};

/*
 * Reads every record of in (opened by the caller, nothing read yet) and
 * writes the symbolized spool to out_fd (a file or a pipe; not closed),
 * ending with an END record, also when the input was truncated (its
 * intact prefix is copied).  Fills *rep (call sp_sym_report_fini on it
 * afterwards, also after an error).  Returns 0; an error of the input,
 * rep->input_failed set (a format error, or -errno such as -EIO from
 * reading it; diag: offset and reason, copied from the reader); -errno
 * from writing (EPIPE, ENOSPC...); -SP_EUSAGE for o NULL or an o->sz it
 * cannot read (sp/common/opts.h; diag says why); -ENOMEM.  Files that
 * cannot be found or read are not errors: they are in the report.  diag
 * may be NULL.  When in reads a file or memory, frames are resolved a
 * chunk ahead of the copy, sorted by address (the output is the same):
 * after an error, the report may count frames past it.
 */
int sp_sym_spool(const struct sp_sym_options *o, struct sp_replay *in,
    int out_fd, struct sp_sym_report *rep, struct sp_diag *diag);

/* Frees what rep holds and clears it. */
void sp_sym_report_fini(struct sp_sym_report *rep);

/*
 * Whether name, a function in a Python runtime module (python3.N,
 * libpython3.N...), is interpreter machinery that a UI hides by default:
 * the eval loop, the vectorcall and call helpers, the startup chain.
 * 1 or 0.  The list is in libsp/sym/sym_python.c and docs.
 */
int sp_sym_python_machinery(const char *name);

#ifdef __cplusplus
}
#endif

#endif
