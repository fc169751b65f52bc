/* SPDX-License-Identifier: MIT */
#ifndef SP_LINES_INT_H
#define SP_LINES_INT_H

/*
 * Text files of lines from untrusted sources (perf maps, kallsyms): read
 * a whole file with a size cap, split it into lines with a length cap,
 * parse hex numbers without overflow.
 */

#include <stddef.h>
#include <stdint.h>

#include "cursor_int.h"

struct sp_diag;

/*
 * Reads fd to its end into a new buffer (*out, to free; NUL-terminated,
 * *len excludes the NUL).  hint: the expected size (0 when unknown, as
 * for /proc files).  Returns 0, -SP_ELIMIT when there are more than max
 * bytes (max < SIZE_MAX / 2), -ENOMEM, -errno.
 */
int spi_read_fd(int fd, size_t max, size_t hint, char **out, size_t *len);

/*
 * The next line of c, without its newline and without one CR before it.
 * The last line need not end in a newline.  Returns 1 with the line in
 * *line and *len, 0 at the end of c, -SP_ELIMIT for a line longer than
 * max bytes (the cursor moves past it, so the caller may go on).
 */
int spi_next_line(struct sp_cur *c, size_t max, const char **line,
    size_t *len);

/*
 * Parses the hex number at s[*pos..len) (digits in either case; with
 * prefix: an optional "0x" or "0X" first) and moves *pos past it.
 * Returns 0, or -SP_EFORMAT when there are no digits or the value does
 * not fit in 64 bits.
 */
int spi_parse_hex(const char *s, size_t len, size_t *pos, int prefix,
    uint64_t *v);

/*
 * Fills diag (when not NULL) with "PATH: why", or "PATH: " and err's
 * message when why is NULL, for a file that could not be used.  Returns
 * err.
 */
int spi_path_fail(struct sp_diag *diag, const char *path, int err,
    const char *why);

#endif
