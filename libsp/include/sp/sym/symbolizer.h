/* SPDX-License-Identifier: MIT */
#ifndef SP_SYMBOLIZER_H
#define SP_SYMBOLIZER_H

/*
 * Resolving stacks one at a time, for a program that shows them (sp-top)
 * or converts them into another profiler's format.  A symbolizer is built
 * over a reader's definitions (sp_snapshot_defs, sp_replay_defs,
 * sp_tail_defs), which may keep growing: it looks them up at each call.
 * It names frames as sp_sym_spool does (sp/sym/sym.h: perf maps, ELF and DWARF,
 * kallsyms, the address alone), with the same options, and caches each
 * frame once resolved; memory is bounded by the frames resolved and the
 * files indexed.
 *
 * Native frames (a user frame in a file) go to a backend: the built-in
 * ELF/DWARF one, or a program's own (struct sp_native_backend), which is
 * given them in batches and answers each, or hands a frame back to the
 * built-in one (SP_NATIVE_FALLBACK).
 *
 * Threads: a symbolizer is used by one thread at a time (it caches, and
 * what it returns is borrowed until its next call); distinct symbolizers
 * share nothing in memory and may run in parallel, also over one
 * reader's definitions as long as no thread advances that reader
 * meanwhile (sp_tail_poll, sp_replay_next add definitions).  A backend's
 * lookup is called only from within sp_symbolizer_resolve,
 * sp_symbolizer_resolve_raw and sp_symbolizer_resolve_frame, on the
 * caller's thread, never twice at once by one symbolizer; a backend
 * shared by symbolizers on several threads is called concurrently and
 * locks what it shares.  lookup must not call its symbolizer back.
 * sp_symbolizer_new without options reads the environment (getenv): not
 * while another thread changes it.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/spool/spool.h"
#include "sp/spool/tail.h"
#include "sp/sym/sym.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_symbolizer;

enum sp_resolved_kind {
	SP_RESOLVED_UNKNOWN = 0,  /* no module, or named by its address only */
	SP_RESOLVED_NATIVE = 1,   /* machine code of a user process */
	SP_RESOLVED_KERNEL = 2,
	SP_RESOLVED_PYTHON = 3,   /* a Python function (a perf map's py::) */
};

/*
 * One logical frame: a machine frame with inlined calls is several, the
 * innermost first, inline_depth counting down to 0 for the function the
 * code is in.  Strings are NUL-terminated and borrowed: valid until the
 * next call on the symbolizer.
 */
struct sp_resolved_frame {
	/* The same for every logical frame of this symbolizer with the same
	 * kind, name, file, line, column, module and inline depth, never reused
	 * for another: 1, 2, 3... in order of first appearance. */
	uint32_t id;
	uint32_t frame;        /* the reader's FRAME id, 0 for raw addresses */
	uint32_t kind;         /* enum sp_resolved_kind */
	uint32_t origin;       /* enum sp_sym_origin: how it was named */
	uint32_t flags;        /* enum sp_sym_flag: Python runtime, hidden by
	                        * default, JIT, truncated stack, Python */
	uint32_t inline_depth;
	const char *name;      /* never NULL: "module+0xOFFSET" at worst */
	const char *file;      /* NULL when unknown */
	uint32_t line, column; /* 0 when unknown (a column past 2047 too) */
	const char *module;    /* the module's base name, NULL for none */
	uint64_t address;      /* the absolute address sampled */
	/* The address's offset in its function (ELF symbols), when
	 * has_offset; only on the outermost logical frame. */
	uint64_t offset;
	int has_offset;
};

/*
 * A resolved stack, leaf first.  provisional: some frame was named from
 * data that a later call may improve (a backend could not open an image
 * yet, a JIT frame not in its perf map yet): do not cache this result.
 */
struct sp_resolved_stack {
	const struct sp_resolved_frame *frames;
	size_t n;
	int provisional;
};

/*
 * A native lookup: one user frame in a file-backed module, for a backend.
 * Addresses: abs the sampled address, rel its offset in the file (what
 * the recorder stores), image its ELF virtual address when has_image
 * (image_base + image == abs).  path is the module as recorded; open_path,
 * when not NULL, is a file to open now: the image the process has mapped
 * (/proc/PID/map_files/START-END, for root while the process runs, the
 * exact image even if its file was replaced or deleted), else the
 * recorded path when a file is there (check the build-id); build_id may
 * be empty.
 */
struct sp_native_lookup {
	uint32_t module;        /* the reader's MODULE id */
	uint32_t pid;
	const char *path;
	const char *open_path;
	const uint8_t *build_id;
	size_t build_id_len;
	uint64_t abs, rel, image, image_base;
	int has_image;
};

/* A backend's answer to one lookup: lines innermost first. */
struct sp_native_line {
	const char *function;   /* NULL: not named */
	const char *file;       /* NULL unknown */
	uint32_t line, column;  /* 0 unknown */
};

enum sp_native_status {
	SP_NATIVE_NAMED = 0,       /* lines name the frame */
	SP_NATIVE_NOT_FOUND = 1,   /* nothing names it: the address stays */
	SP_NATIVE_PROVISIONAL = 2, /* not now (image not open yet...): the
	                            * address for now, asked again later */
	/* Not this backend's: the built-in ELF/DWARF backend names it (then
	 * its process's perf map, then its address), as without a backend:
	 * a backend may cover some modules only. */
	SP_NATIVE_FALLBACK = 3,
};

struct sp_native_out;

/*
 * Appends the answer to the next lookup of the batch: status, and for
 * SP_NATIVE_NAMED 1 to SP_INLINE_MAX lines (more are cut).  Strings are
 * copied.  0, -SP_EUSAGE (more answers than lookups, or a named answer
 * without a line), -ENOMEM.
 */
int sp_native_append(struct sp_native_out *out, enum sp_native_status status,
    const struct sp_native_line *lines, size_t nlines);

/*
 * For testing a backend without a recording or a symbolizer: an answer
 * buffer for a batch of max lookups (max >= 1), to pass to the backend's
 * lookup as the symbolizer does; sp_native_out_count and
 * sp_native_out_answer read back what it appended.  Returns 0,
 * -SP_EUSAGE (max 0) or -ENOMEM.  Used by one thread at a time.
 */
int sp_native_out_new(size_t max, struct sp_native_out **out);

/* The answers appended to out so far. */
size_t sp_native_out_count(const struct sp_native_out *out);

/*
 * Answer i of out: its status, and its lines (*nlines of them, 0 unless
 * SP_NATIVE_NAMED) into lines, which has room for SP_INLINE_MAX; their
 * strings are borrowed until the next append to out or its free.
 * Returns 0, or -SP_EUSAGE when i >= sp_native_out_count(out).
 */
int sp_native_out_answer(const struct sp_native_out *out, size_t i,
    enum sp_native_status *status, struct sp_native_line *lines,
    size_t *nlines);

void sp_native_out_free(struct sp_native_out *out);

/*
 * A request for abs in a synthetic module, as the symbolizer makes one
 * from a recording: for testing a backend.  m gives the mapping (start,
 * size, file_offset), pid, build-id and, when elf_vaddr_plus1 is set,
 * the image address of its first byte; its path field is unused: path
 * (borrowed by *l, as m's build-id) names it.  module_id is the caller's
 * opaque identity for the module: give each synthetic module its own.
 * rel and image are computed from abs as for a recorded frame;
 * open_path is NULL (no process maps a synthetic module).  Returns 0,
 * or -SP_EUSAGE: module_id 0, path NULL, a kernel or anonymous module,
 * abs outside [start, start + size).
 */
int sp_native_lookup_init(struct sp_native_lookup *l, uint32_t module_id,
    const struct sp_module *m, const char *path, uint64_t abs);

/*
 * A native-symbolizer backend.  lookup is called with a batch of n >= 1
 * lookups and appends one answer per lookup, in order, with
 * sp_native_append; lookups left unanswered count as SP_NATIVE_NOT_FOUND.
 * It returns 0, or a negative error that the resolve call returns.  The
 * batch and out are valid only during the call.  destroy, when not NULL,
 * is called with arg by sp_symbolizer_free, on its caller's thread.
 */
struct sp_native_backend {
	int (*lookup)(void *arg, const struct sp_native_lookup *batch,
	    size_t n, struct sp_native_out *out);
	void (*destroy)(void *arg);
	void *arg;
};

/*
 * A symbolizer over defs (a reader's; it must outlive the symbolizer)
 * and the reader's header hdr (whose host and boot decide whether this
 * host's kallsyms may name kernel frames).  o: as for sp_sym_spool (perf
 * maps none, only given PIDs, all, or a directory; kallsyms from the host
 * or a file; debug directories; a bundle; debuginfod); copied (the
 * strings and arrays it points to must outlive the symbolizer).  NULL for
 * sp-sym's defaults, which read the environment here, once: the debug
 * directories of STACKPULSE_DEBUG_DIRS (else /usr/lib/debug), and the
 * debuginfod servers of DEBUGINFOD_URLS (none when unset), with
 * DEBUGINFOD_TIMEOUT and the cache of DEBUGINFOD_CACHE_PATH (see
 * sp/sym/debuginfod.h).  Given options read no environment.  backend:
 * NULL for the built-in ELF/DWARF backend; else copied.  Returns 0,
 * -SP_EUSAGE (also for an o->sz it cannot read: sp/common/opts.h),
 * -SP_ELIMIT (STACKPULSE_DEBUG_DIRS lists more than
 * SP_DEBUG_DIRS_MAX) or -ENOMEM.
 */
int sp_symbolizer_new(const struct sp_defs *defs, const struct sp_header *hdr,
    const struct sp_sym_options *o, const struct sp_native_backend *backend,
    struct sp_symbolizer **out);

/*
 * Resolves stack (a NODE id of the reader; 0 is the empty stack) into
 * *out, borrowed until the next call.  Frames beyond SP_RESOLVE_MAX
 * logical frames are cut, their place marked by a last frame named
 * "[truncated]" with SP_SYM_TRUNCATED.  Returns 0; -SP_EREF for an
 * undefined stack; a backend's error; -ENOMEM.
 */
#define SP_RESOLVE_MAX 4096
int sp_symbolizer_resolve(struct sp_symbolizer *s, uint32_t stack,
    struct sp_resolved_stack *out);

/*
 * Resolves one frame (a FRAME id of the reader) afresh into *out: its
 * logical frames, innermost first (more than one when calls were inlined
 * there).  Not cached: for a caller that resolves each frame once (sp-sym
 * writes a SYMBOL record per FRAME).  Returns as sp_symbolizer_resolve.
 */
int sp_symbolizer_resolve_frame(struct sp_symbolizer *s, uint32_t frame,
    struct sp_resolved_stack *out);

/*
 * Resolves caller-owned absolute addresses of process pid (leaf first,
 * as a sample's), each looked up in the modules the reader defined for
 * that pid (the last one defined over an address wins); kernel
 * addresses by kallsyms.  At most SP_RESOLVE_MAX addresses.  Returns as
 * sp_symbolizer_resolve.
 */
int sp_symbolizer_resolve_raw(struct sp_symbolizer *s, uint32_t pid,
    const uint64_t *addrs, size_t n, struct sp_resolved_stack *out);

/*
 * What changed for a caller's cache after sp_symbolizer_update: all (drop
 * every cached stack), or the pids whose cached stacks may be stale
 * (borrowed until the next call).
 */
struct sp_invalidation {
	int all;
	const uint32_t *pids;
	size_t npids;
};

/*
 * Applies what a tail's last poll read (sp_tail_events): a process that
 * exec'd or a pid reused (new modules over its old ones) is invalidated;
 * a process that became a Python runtime gets its perf map and is
 * invalidated; perf maps read before are read again when they changed
 * (at most once a second), invalidating their processes.  Frames named
 * provisionally are resolved again at their next use.  ev may be NULL
 * (a reader that is no tail): perf maps and provisional frames only.
 * Returns 0 or -ENOMEM (then *inv says all).
 */
int sp_symbolizer_update(struct sp_symbolizer *s,
    const struct sp_tail_events *ev, struct sp_invalidation *inv);

/*
 * Whether inv makes the cached stacks of process pid stale: inv->all, or
 * pid among inv->pids.  1 or 0.
 */
int sp_invalidation_affects(const struct sp_invalidation *inv, uint32_t pid);

/*
 * What the symbolizer found so far: as sp_sym_spool's report (files
 * missing, damaged, fetched).  Its counts are of resolutions: frames,
 * by_origin, python_frames, jit_frames, hidden, truncated and
 * inline_lines grow by each frame resolved (a cached frame counts once,
 * a frame resolved again, provisional or invalidated or through
 * sp_symbolizer_resolve_frame, again).  Borrowed until the next call.
 */
const struct sp_sym_report *sp_symbolizer_report(const struct sp_symbolizer *s);

void sp_symbolizer_free(struct sp_symbolizer *s);

#ifdef __cplusplus
}
#endif

#endif
