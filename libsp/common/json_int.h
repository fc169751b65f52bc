/* SPDX-License-Identifier: MIT */
#ifndef SP_JSON_INT_H
#define SP_JSON_INT_H

/*
 * Strings for JSON (RFC 8259 §7) and the other text formats that must be
 * UTF-8, written one way by every writer: '"' and '\' escaped, control
 * characters as \u00XX, valid UTF-8 as it is, and every byte that starts
 * no valid sequence as U+FFFD.  Names come from symbol tables and perf
 * maps, whose bytes are anything: a JIT's name with one invalid byte made
 * a speedscope file Python's json.load refused.
 */

#include <stddef.h>
#include <stdio.h>

#include "common/buf_int.h"

/* The length of the valid UTF-8 sequence at s[i..len) (Unicode 15
 * §3.9, table 3-7: no overlongs, no surrogates), 0 where there is none. */
size_t spi_utf8_len(const unsigned char *s, size_t len, size_t i);

/* The length of s[0..len) made valid UTF-8 (spi_utf8_put), and the bytes
 * themselves into b. */
size_t spi_utf8_size(const char *s, size_t len);
void spi_utf8_put(struct sp_buf *b, const char *s, size_t len);

/* s[0..len) as a JSON string's contents (without the quotes), into b. */
void spi_json_put(struct sp_buf *b, const char *s, size_t len);

/* The same, with its quotes, to out. */
void spi_json_fput(FILE *out, const char *s, size_t len);

#endif
