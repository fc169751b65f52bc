/* SPDX-License-Identifier: MIT */
#ifndef TESTS_LIVETEST_H
#define TESTS_LIVETEST_H

/*
 * Helpers of the embedder's tests (live.c, update.c, attach.c): a
 * recorder writing a temporary spool that a tail follows, on real
 * processes through the kernel.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp/record/recorder.h"
#include "sp/spool/spool.h"
#include "sp/spool/tail.h"
#include "sp/spool/writer.h"
#include "sp/sym/symbolizer.h"

/* A spinner that a failed test cannot leak for long: 10 s of CPU. */
extern char *const spin_argv[];

struct live {
	struct sp_writer *w;
	struct sp_recorder *r;
	struct sp_tail *t;
	char path[64];
	int fd;
	/* Called after each tail poll of read_tail, when not NULL: the
	 * events it read are gone at the next poll. */
	void (*on_poll)(void *arg, const struct sp_tail_events *ev);
	void *on_poll_arg;
};

/* A recorder with options o (NULL: the defaults) writing a new spool
 * (unlinked already) that l->t follows. */
void live_start(struct live *l, const struct sp_recorder_opts *o);
void live_end(struct live *l);

/* Launches argv suspended, attaches it SP_ATTACH_AT_EXEC and releases
 * it; returns its pid.  Skips the test when perf events are refused. */
pid_t live_launch(struct live *l, char *const argv[]);

/* Polls the recorder for secs seconds, then flushes. */
void record_for(struct live *l, double secs);

/* Reads the tail; returns the samples (at most max) into s. */
size_t read_tail(struct live *l, struct sp_sample *s, size_t max);

/*
 * Records and reads the tail until it holds want samples (at most max,
 * into s), or 20 s: a loaded machine (the full test run beside an ASan
 * build) gives the workload a fraction of a CPU.
 */
size_t record_samples(struct live *l, struct sp_sample *s, size_t max,
    size_t want);

/* The stack of the first of the n samples s whose leaf sym resolves in
 * a file's code (not the kernel), three frames deep at least, or 0. */
uint32_t native_stack(const struct sp_sample *s, size_t n,
    struct sp_symbolizer *sym);

/* The stack of the first of the n samples s whose leaf sym resolves in
 * anonymous memory (JIT code), or 0. */
uint32_t anon_stack(const struct sp_sample *s, size_t n,
    struct sp_symbolizer *sym);

/*
 * Starts l, launches the spinner (*pid), records 200 samples or more
 * (at most max, into s; returns how many) and opens *sym, a symbolizer
 * with the defaults over l's tail.
 */
size_t live_spin_symbolized(struct live *l, struct sp_sample *s, size_t max,
    pid_t *pid, struct sp_symbolizer **sym);

#endif
