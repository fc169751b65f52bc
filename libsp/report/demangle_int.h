/* SPDX-License-Identifier: MIT */
#ifndef SP_DEMANGLE_INT_H
#define SP_DEMANGLE_INT_H

/* The demangler's state, shared by demangle.c (the names and their
 * results), which calls demangle_child.c (c++filt and the exchange). */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf_int.h"
#include "common/intern_int.h"
#include "sp/report/demangle.h"

enum { DM_QUEUED, DM_DONE, DM_RAW };

/* An answer of c++filt: a line of text in ans, without its newline. */
struct dm_answer {
	size_t off;
	size_t len;             /* SIZE_MAX: longer than SP_DEMANGLE_NAME_MAX */
};

/* A name sent (or to be sent), by its intern id - 1. */
struct dm_entry {
	size_t off;             /* DM_DONE: its text in res */
	uint32_t len;
	uint8_t state;
};

struct sp_demangle {
	char *prog;
	struct sp_intern names;    /* name -> id */
	struct dm_entry *e;
	size_t ne, cape;
	uint32_t *queue;           /* ids of the next batch, in order */
	size_t nq, capq;
	struct sp_buf res;         /* the texts kept */
	uint64_t sent, kept;       /* bytes, for SP_DEMANGLE_KEPT_MAX */
	pid_t pid;                 /* 0 before the child started */
	int fd;                    /* our end of its input and output */
	int failed;                /* the child failed once: no more */
	struct sp_buf out;         /* the batch being written */
	struct sp_buf ans;         /* the batch's answers */
	struct dm_answer *ansv;    /* one per queued name, in order */
	size_t nans, capans;
	int overlong;              /* the line being read passed the limit */
};

/*
 * Sends the queued names to the child (started on the first call) and
 * reads an answer per name into ans and ansv, as sp_demangle_run says
 * (last, the errors).
 */
int spi_demangle_exchange(struct sp_demangle *dm, int last,
    struct sp_diag *diag);

/* Closes the child's input and waits for it to exit. */
void spi_demangle_stop(struct sp_demangle *dm);

#endif
