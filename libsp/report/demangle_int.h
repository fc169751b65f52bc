/* SPDX-License-Identifier: MIT */
#ifndef SP_DEMANGLE_INT_H
#define SP_DEMANGLE_INT_H

/* The demangler's state, shared by demangle.c (which names, their
 * results), which calls demangle_iberty.c (c++filt's text of a name, by
 * libiberty's demanglers in the process). */

#include <stddef.h>
#include <stdint.h>

#include "common/buf_int.h"
#include "common/intern_int.h"
#include "sp/report/demangle.h"

enum { DM_QUEUED, DM_DONE, DM_RAW };

/* A name queued, by its intern id - 1. */
struct dm_entry {
	size_t off;             /* DM_DONE: its text in res */
	uint32_t len;
	uint8_t state;
};

/* The text of one name, and a copy of the word being demangled (the
 * demanglers read NUL-terminated strings); each SP_DEMANGLE_NAME_MAX
 * bytes (+ 1), allocated on first use. */
struct dm_text {
	char *p;
	size_t len;
	char *word;
};

struct sp_demangle {
	struct sp_intern names;    /* name -> id */
	struct dm_entry *e;
	size_t ne, cape;
	uint32_t *queue;           /* ids of the next run, in order */
	size_t nq, capq;
	struct sp_buf res;         /* the texts kept */
	uint64_t sent, kept;       /* bytes, for SP_DEMANGLE_KEPT_MAX */
	int failed;                /* out of memory once: no more */
	struct dm_text text;
};

/*
 * c++filt's text of name s[0..len) (no NUL nor newline in it) into
 * t->p[0..t->len): 1 when some word of it was demangled, 0 when the
 * text is the name's own (t->len not set), -E2BIG when the text would
 * be longer than SP_DEMANGLE_NAME_MAX (or the name is), -ENOMEM.
 */
int spi_demangle_text(struct dm_text *t, const char *s, size_t len);

/* Whether c++filt takes byte c as part of a symbol (binutils cxxfilt.c:
 * alphanumerics and the target's "_$."). */
int spi_demangle_symbol_byte(unsigned char c);

#endif
