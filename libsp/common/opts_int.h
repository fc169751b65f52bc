/* SPDX-License-Identifier: MIT */
#ifndef SP_OPTS_INT_H
#define SP_OPTS_INT_H

#include <stddef.h>

struct sp_diag;

/*
 * The end of FIELD in TYPE: an options struct's size as of the release
 * whose last field FIELD is.  Each entry point freezes its struct's
 * baseline (the size sz 0 stands for) with it: fields added later lie
 * past the baseline, so a caller built before them and leaving sz 0 is
 * read as the prefix it has.  sizeof would grow with the struct.  (The
 * field's size by its type: clang-tidy takes sizeof of a field that
 * points to a struct for a mistake.)
 */
#define SPI_OPTS_END(TYPE, FIELD) \
	(offsetof(TYPE, FIELD) + sizeof(__typeof__(((TYPE *)0)->FIELD)))

/*
 * Larger than any options struct will be: an sz above it is no size but
 * a struct left uninitialized (and reading up to it would leave the
 * caller's memory).
 */
#define SPI_OPTS_SZ_MAX 4096u

/*
 * Reads the caller's options src, whose first field is size_t sz (docs/
 * api.md "Options and ABI"), into dst (dst_size bytes, this library's
 * struct): zero-fills dst, then copies min(sz, dst_size) bytes, so the
 * fields a shorter (older) struct lacks read as 0, the defaults.  sz 0
 * means baseline bytes (the struct of the release that introduced sz).
 * Bytes of a longer (newer) struct past dst_size must be 0: a field this
 * library does not know, set, would be ignored silently (libbpf's rule).
 * src NULL: all defaults.  dst's sz is set to dst_size, so that the copy
 * may be handed on to another entry point.  Returns 0 or -SP_EUSAGE
 * with diag (may be NULL) naming struct NAME, the size and the fix.
 */
int spi_opts_copy(void *dst, size_t dst_size, const void *src,
    size_t baseline, const char *name, struct sp_diag *diag);

#endif
