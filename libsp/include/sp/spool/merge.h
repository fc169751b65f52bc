/* SPDX-License-Identifier: MIT */
#ifndef SP_MERGE_H
#define SP_MERGE_H

/*
 * Merging spools into one: every input is read through its own Replay
 * cursor into one writer, its definitions re-interned and its references
 * mapped to the writer's ids.  Each input's header becomes a HOST record
 * that the input's host 0 references map to, so equal PIDs from
 * different hosts (or boots) stay distinct; inputs with equal headers'
 * hosts (host name, release, machine, page size, boot id) share it.
 *
 * Within one batch (sp_merge_inputs), the timestamped records (SAMPLE,
 * PYTHON, PROC) of inputs that share a host come out in time order, a
 * k-way merge of the inputs' streams (equal times: input order); each
 * input's definitions come out before the records that use them.  Hosts
 * follow one another in the order of their first input: their clocks
 * (CLOCK_MONOTONIC of different machines or boots) can't be compared.
 * Memory is bounded by the definitions, not the samples: one pending
 * record per input.  SUMMARY records are copied; readers add them up.
 */

#include <stddef.h>

#include "sp/common/error.h"
#include "sp/spool/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_merge;

/* What was copied from one input. */
struct sp_merge_stats {
	uint64_t records;     /* records read */
	uint64_t samples;     /* samples written */
	/*
	 * SYMBOLs of frames interned from an earlier input that named them
	 * already (a frame has one symbol; the first stands): dup_symbols
	 * name the frame otherwise, so that input's names were lost;
	 * same_symbols are equal to the first, and nothing was lost.
	 */
	uint64_t dup_symbols;
	uint64_t same_symbols;
	int truncated;        /* the input ended early; its prefix was merged */
	uint64_t end_offset;  /* bytes of valid input */
};

/* One input of sp_merge_inputs. */
struct sp_merge_input {
	/* The caller's: opened, nothing read yet; NULL: left out. */
	struct sp_replay *replay;
	struct sp_merge_stats st; /* filled */
	/*
	 * 0, or the input's own error (a format error, or a record the
	 * writer refused), with diag filled (offset and reason): its
	 * records before the error are merged, the rest is not read.
	 */
	int err;
	struct sp_diag diag;
};

/*
 * Creates a merger writing to fd (a file or a pipe; not closed).  The
 * output header is the first input's header.  Returns 0 or -ENOMEM.
 */
int sp_merge_new(int fd, struct sp_merge **out);

/*
 * Merges the n inputs in[] as a batch, ordered as described above, after
 * what earlier calls merged.  Fills each in[i].st, .err and .diag; an
 * input's error does not stop the others.  Returns 0, also when inputs
 * had errors (in[i].err); -errno from writing or -ENOMEM, after which the
 * merger is failed.  Every input is read concurrently, so all must be
 * open; the caller frees them afterwards.
 */
int sp_merge_inputs(struct sp_merge *m, struct sp_merge_input *in, size_t n);

/*
 * sp_merge_inputs of the single input in: it follows what was merged
 * before.  Returns 0 (also for a truncated input, st->truncated); the
 * input's error with diag filled (diag may be NULL); or the merger's
 * error (sp_merge_failed tells which).
 */
int sp_merge_add(struct sp_merge *m, struct sp_replay *in,
    struct sp_merge_stats *st, struct sp_diag *diag);

/*
 * The error that failed the merger (writing, memory), or 0 while it can
 * take inputs: tells an input's fault from the output's after
 * sp_merge_add returned an error.
 */
int sp_merge_failed(const struct sp_merge *m);

/*
 * Ends the output with an END record and flushes it.  With no input
 * added, the output is an empty spool with this host's header.  Returns 0
 * or an error.
 */
int sp_merge_finish(struct sp_merge *m);

/* Frees m without flushing; does not close the fd.  m may be NULL. */
void sp_merge_free(struct sp_merge *m);

#ifdef __cplusplus
}
#endif

#endif
