/* SPDX-License-Identifier: MIT */
#ifndef SP_KALLSYMS_INT_H
#define SP_KALLSYMS_INT_H

/*
 * Kernel symbols from /proc/kallsyms (or the copy a bundle keeps), to name
 * kernel frames.  Each line is (kernel/kallsyms.c, s_show)
 *
 *   ADDR TYPE NAME              core kernel
 *   ADDR TYPE NAME\t[MODULE]    loadable modules, and pseudo-modules
 *                               such as [bpf] or [__builtin__ftrace]
 *
 * ADDR in hex without "0x" (not all ones: no range could start there),
 * TYPE one nm(1) letter.  Only text symbols are
 * kept: t T w W, for the core kernel and modules alike.  With
 * kptr_restrict in force (or without CAP_SYSLOG) the kernel prints every
 * ADDR as zeros: such symbols are dropped and spi_kallsyms_hidden() says so.
 *
 * A symbol covers from its address up to the next higher address of any
 * symbol.  When there is none, or it belongs to another module (or to the
 * core kernel), the symbol is the last of its module and covers at most
 * SP_KALLSYMS_TAIL_MAX bytes: the largest function of the 6.18 x86-64
 * kernel this was tested on is 20 KiB, and a larger window would only
 * name code kallsyms does not know (a module loaded later) after an
 * unrelated symbol.  Symbols at one address are aliases: lookups return a
 * global one (T, W) before a local one, then the one listed first.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/common/error.h"

#define SP_KALLSYMS_LINE_MAX 1024   /* bytes; KSYM_NAME_LEN is 512 */
#define SP_KALLSYMS_ENTRIES_MAX ((size_t)4 << 20) /* text symbols */
#define SP_KALLSYMS_FILE_MAX ((size_t)64 << 20)   /* bytes read */
#define SP_KALLSYMS_TAIL_MAX ((uint64_t)64 << 10) /* see above */

struct sp_kallsyms;

/* One symbol, as spi_kallsyms_symbol gives it. */
struct sp_ksym {
	uint64_t start, end;  /* [start, end) */
	const char *name;     /* NUL-terminated, owned by the table */
	const char *module;   /* without brackets; NULL: the core kernel */
};

/*
 * Parses kallsyms text (len bytes; need not be NUL-terminated), keeping
 * the text symbols sorted by address.  Lines that do not fit the format,
 * or are longer than SP_KALLSYMS_LINE_MAX, are skipped and counted
 * (spi_kallsyms_bad_lines).  Returns 0 with *out (free with
 * spi_kallsyms_free), -ENOMEM, or -SP_ELIMIT for more than
 * SP_KALLSYMS_ENTRIES_MAX text symbols.
 */
int spi_kallsyms_parse(const char *text, size_t len, struct sp_kallsyms **out);

/*
 * Reads and parses the file at path: a regular file (a bundle's copy, or
 * /proc/kallsyms itself, whose size stat(2) gives as 0: it is read to its
 * end) of at most SP_KALLSYMS_FILE_MAX bytes.  Returns 0 with *out,
 * -EPERM for anything but a regular file, -SP_ELIMIT for a larger file,
 * the errors of spi_kallsyms_parse, or -errno; then diag (may be NULL)
 * names the path and the reason.
 */
int spi_kallsyms_open(const char *path, struct sp_kallsyms **out,
    struct sp_diag *diag);

/* Frees the table and its names; accepts NULL. */
void spi_kallsyms_free(struct sp_kallsyms *k);

/*
 * The name of the symbol containing addr, or NULL when none does.  When
 * found, *start (if start is not NULL) is its address and *module (if
 * module is not NULL) its module without brackets, or NULL for the core
 * kernel.  O(log n); the strings are valid until spi_kallsyms_free.
 */
const char *spi_kallsyms_find(const struct sp_kallsyms *k, uint64_t addr,
    uint64_t *start, const char **module);

/* Number of text symbols kept (aliases included). */
size_t spi_kallsyms_count(const struct sp_kallsyms *k);

/*
 * The i-th symbol in address order (aliases in lookup preference order).
 * Returns 0, or -SP_ENOTFOUND when i >= spi_kallsyms_count.
 */
int spi_kallsyms_symbol(const struct sp_kallsyms *k, size_t i,
    struct sp_ksym *out);

/* Number of lines skipped as malformed or too long. */
size_t spi_kallsyms_bad_lines(const struct sp_kallsyms *k);

/*
 * 1 when text symbols were dropped because their address was all zeros
 * (addresses hidden by kptr_restrict), else 0.
 */
int spi_kallsyms_hidden(const struct sp_kallsyms *k);

#endif
