/* SPDX-License-Identifier: MIT */
#ifndef SP_TOP_H
#define SP_TOP_H

/*
 * Live hot-function tables (sp-top): samples from a tail are counted per
 * second, by thread and stack; a view sums the seconds of a window (or
 * all since the start), resolves each distinct stack once through a
 * symbolizer and ranks functions by self samples (the leaf) or total
 * samples (anywhere in the stack, once per stack).  Functions are told
 * apart by name and module; frames the symbolizer marks hidden (Python
 * interpreter machinery) are skipped as sp-fold skips them.  Memory: the
 * distinct (thread, stack) pairs of each second kept, the window's
 * seconds at most SP_TOP_WINDOW_MAX.
 */

#include <stddef.h>
#include <stdint.h>

#include "sp/spool/spool.h"
#include "sp/sym/symbolizer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_TOP_WINDOW_MAX 600   /* seconds */

struct sp_top;

/* One row of a view: a function, or (per thread) a thread. */
struct sp_top_row {
	const char *name;       /* function; per thread: the thread's comm */
	const char *module;     /* NULL none; per thread: its hottest
	                         * function's name */
	uint32_t pid, tid;      /* per thread */
	uint64_t self, total;   /* samples; per thread: total = its samples,
	                         * self = those of its hottest function */
};

struct sp_top_view {
	uint64_t samples;       /* in the window */
	uint64_t empty;         /* of them with no stack */
	uint64_t truncated;     /* of them whose stack ends in [truncated] */
	double seconds;         /* sampled seconds in the window: from the
	                         * first sample (or the window's start) to now */
	const struct sp_top_row *rows;  /* borrowed until the next call */
	size_t nrows;
};

/*
 * A table over a reader's definitions, resolving through sym (both the
 * caller's; they must outlive it).  0, -SP_EUSAGE, -ENOMEM.
 */
int sp_top_new(const struct sp_defs *defs, struct sp_symbolizer *sym,
    struct sp_top **out);

/* Names as the symbolizer gives them, C++ and Rust ones mangled
 * (sp-top --no-demangle): call before the first sp_top_add. */
void sp_top_keep_mangled(struct sp_top *t);

/* Counts n samples (a tail's batch), those on CPU: off-CPU samples are
 * skipped.  0 or -ENOMEM. */
int sp_top_add(struct sp_top *t, const struct sp_sample *s, size_t n);

/* Forgets resolved stacks after sp_symbolizer_update said so. */
void sp_top_invalidate(struct sp_top *t, const struct sp_invalidation *inv);

enum sp_top_order {
	SP_TOP_SELF = 0,        /* functions by self samples */
	SP_TOP_TOTAL = 1,       /* functions by total samples */
	SP_TOP_THREADS = 2,     /* threads by samples */
};

/*
 * The rows of the window of the last window_s seconds of sample time up
 * to now_ns (from the start of a whole second: up to one second more)
 * (CLOCK_MONOTONIC, the samples' clock; window_s 0: since the first
 * sample), in order, at most max of them (by self: those with self
 * samples only).  0, a symbolizer's error, -ENOMEM.
 */
int sp_top_view(struct sp_top *t, uint64_t now_ns, unsigned window_s,
    enum sp_top_order order, size_t max, struct sp_top_view *out);

void sp_top_free(struct sp_top *t);

#ifdef __cplusplus
}
#endif

#endif
