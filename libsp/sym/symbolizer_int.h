/* SPDX-License-Identifier: MIT */
#ifndef SP_SYMBOLIZER_INT_H
#define SP_SYMBOLIZER_INT_H

/*
 * The symbolizer's state (sp/sym/symbolizer.h): symbolizer.c resolves and
 * caches frames, symbolizer_update.c forgets what a tail's events made
 * stale.
 */

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/buf_int.h"
#include "common/imap_int.h"
#include "common/intern_int.h"
#include "sp/sym/symbolizer.h"
#include "sym_int.h"

#define MAX_INVALID 1024         /* pids listed before "all" */

/* One resolved frame. */
struct slot {
	uint8_t state;              /* 0 not resolved, 1 resolved, 2 provisional */
	uint8_t kind;               /* enum sp_resolved_kind */
	uint16_t count;             /* lines */
	uint32_t origin, flags, module_name;
	uint32_t first;             /* its lines: lines[first..first+count) */
	uint32_t epoch;             /* of a provisional slot: when resolved */
	uint64_t offset_plus1;
};

/* A line of a slot: strings of the table, and its logical frame's id. */
struct sline {
	uint32_t function, file, line, column, id;
};

/* A frame set aside for the backend. */
struct pending {
	size_t index;               /* slots move as they grow */               /* into frames (raw 0) or raw (raw 1) */
	int raw;
	struct sp_frame f;
	uint32_t frame;
	char open[80];              /* /proc/PID/map_files/START-END */
};

struct answer {
	enum sp_native_status status;
	uint32_t first, count;      /* into the answer lines */
};

/* An answer's line: its strings at offsets of text + 1 (0: none). */
struct oline {
	size_t function, file;
	uint32_t line, column;
};

struct sp_native_out {
	struct answer *a;
	size_t n, cap, max;
	struct oline *lines;
	size_t nlines, caplines;
	struct sp_buf text;         /* the lines' strings, NUL-terminated */
	int err;
};

/* native.c: a request as sp_native_lookup_init makes it, from a frame's
 * recorded addresses (open_path NULL). */
void spi_native_lookup_fill(struct sp_native_lookup *l, uint32_t module_id,
    const struct sp_module *m, const char *path, uint64_t abs, uint64_t rel);

/* Empties out for a batch of max lookups, keeping its buffers for the
 * next; spi_native_out_fini frees them. */
void spi_native_out_reset(struct sp_native_out *out, size_t max);
void spi_native_out_fini(struct sp_native_out *out);

struct sp_symbolizer {
	struct sym_ctx c;
	struct sp_sym_options o;
	struct sp_sym_report rep;   /* unless the caller's (symbolize.c) */
	/* Without options, the environment's, as sp-sym reads it. */
	struct sp_debug_dirs env_dirs;
	struct sp_debuginfod env_dbgd;
	char *env_urls;
	struct sp_intern strs;
	struct sp_native_backend be;
	int have_be;

	struct slot scratch;        /* sp_symbolizer_resolve_frame's */
	struct slot *frames;        /* by frame id - 1 */
	size_t capframes;
	struct slot *raw;           /* by raw id - 1 */
	size_t capraw;
	struct sp_idmap rawmap;     /* (pid, address) -> raw id */
	struct sline *lines;
	size_t nlines, caplines;
	struct sp_idmap ids;        /* logical frames -> stable ids */

	struct pending *pend;
	size_t npend, cappend;
	struct sp_native_lookup *batch;
	size_t capbatch;
	struct sp_native_out out;
	long answering;             /* the answer being applied + 1, 0 none */

	uint32_t *stack;            /* SP_RESOLVE_MAX frame ids */
	struct sp_resolved_frame *res;
	size_t capres;

	uint32_t *invalid;          /* MAX_INVALID pids */
	uint32_t epoch;
	struct timespec pmaps_checked;
	uint32_t truncated;         /* the "[truncated]" string */
};

#endif
