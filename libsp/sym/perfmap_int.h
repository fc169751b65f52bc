/* SPDX-License-Identifier: MIT */
#ifndef SP_PERFMAP_INT_H
#define SP_PERFMAP_INT_H

/*
 * Perf maps: the names JIT compilers give their generated code.  A
 * runtime appends to /tmp/perf-PID.map one line per code blob
 * (Linux tools/perf/Documentation/jit-interface.txt):
 *
 *   START SIZE NAME
 *
 * START and SIZE in hex, NAME the rest of the line.  What this reader
 * accepts, line by line:
 *   - START and SIZE: hex digits in either case, with or without "0x",
 *     at most 64 bits; START + SIZE must not pass 2^64; SIZE not 0.
 *   - fields separated by runs of spaces or tabs; NAME starts at its
 *     first non-blank byte and runs to the end of the line (spaces
 *     included), without a CR before the LF.  It must not be empty nor
 *     contain a NUL byte.
 *   - blank lines are ignored; other lines that do not fit, and lines
 *     longer than SP_PERF_MAP_LINE_MAX, are skipped and counted
 *     (spi_perf_map_bad_lines).
 *
 * CPython 3.12+ run with -X perf (or PYTHONPERFSUPPORT=1) writes one line
 * per code object's trampoline: Python/perf_trampoline.c formats the name
 * as "py::%s:%s" from co_qualname and co_filename, and Python/sysmodule.c
 * (PyUnstable_WritePerfMapEntry) writes "%" PRIxPTR " %x %s\n"; the
 * example in Doc/c-api/perfmaps.rst is "7f3529fcf759 b py::bar:/run/t.py".
 * A qualified name has no ':' ("Cls.meth.<locals>.f"), a file name may.
 * (-X perf_jit, CPython 3.13+, writes a jitdump file instead: not read
 * here.)
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp/common/error.h"

#define SP_PERF_MAP_LINE_MAX 4096             /* bytes, without newline */
#define SP_PERF_MAP_ENTRIES_MAX ((size_t)4 << 20) /* accepted lines */
#define SP_PERF_MAP_MAX ((size_t)256 << 20)   /* bytes of a file */

struct spi_perf_map_entry {
	uint64_t start, size;
	const char *name;   /* NUL-terminated; owned by the map */
	uint32_t name_len;  /* without the NUL */
};

struct sp_perf_map;

/*
 * Parses perf map text (len bytes; need not be NUL-terminated).  Later
 * lines win over earlier ones they overlap (runtimes append, and a range
 * that is compiled again replaces the old code): the result is a sorted
 * set of non-overlapping entries, where an earlier entry is trimmed, split
 * in two or dropped by later ones.  Names are copied into memory the map
 * owns.  Returns 0 with *out (free with spi_perf_map_free), -ENOMEM, or
 * -SP_ELIMIT when more than SP_PERF_MAP_ENTRIES_MAX lines are accepted.
 */
int spi_perf_map_parse(const char *text, size_t len, struct sp_perf_map **out);

/*
 * Opens and parses a perf map file that another (untrusted) process
 * wrote: opened with O_NOFOLLOW | O_NONBLOCK, so a symlink is refused
 * (-ELOOP) and a FIFO does not block; it must be a regular file owned by
 * uid ((uid_t)-1: by anyone), else -EPERM; and at most SP_PERF_MAP_MAX
 * bytes, else -SP_ELIMIT.  Returns 0 with *out, those errors, the errors
 * of spi_perf_map_parse or -errno.  On error diag (may be NULL) names the
 * path and the reason.
 */
int spi_perf_map_open(const char *path, uid_t uid, struct sp_perf_map **out,
    struct sp_diag *diag);

/* Frees the map and its names; accepts NULL. */
void spi_perf_map_free(struct sp_perf_map *m);

/*
 * The entry whose range [start, start + size) contains addr, or NULL.
 * O(log n).  Valid until spi_perf_map_free.
 */
const struct spi_perf_map_entry *spi_perf_map_find(const struct sp_perf_map *m,
    uint64_t addr);

/* Number of entries after overlaps were resolved. */
size_t spi_perf_map_count(const struct sp_perf_map *m);

/* The i-th entry in address order (i < spi_perf_map_count), or NULL. */
const struct spi_perf_map_entry *spi_perf_map_entry(const struct sp_perf_map *m,
    size_t i);

/* Number of lines skipped as malformed or too long. */
size_t spi_perf_map_bad_lines(const struct sp_perf_map *m);

/*
 * Splits a CPython perf map name "py::FUNC:FILE" (see above): returns 1
 * with *func and *file pointing into name (FUNC up to the first ':' after
 * "py::", FILE the rest, which may contain ':'; either may be empty), or
 * 0 when name is not of that form (no "py::" prefix or no ':' after it,
 * as in a bare "py::"), leaving the outputs untouched.
 */
int spi_perf_map_python(const char *name, size_t len, const char **func,
    size_t *func_len, const char **file, size_t *file_len);

#endif
