/* SPDX-License-Identifier: MIT */
#ifndef SP_MERGE_H
#define SP_MERGE_H

/*
 * Merging spools into one: every input is copied through Replay into one
 * writer, its definitions re-interned and its references mapped to the
 * writer's ids, so memory is bounded by the definitions, not the samples.
 * Inputs are copied one after another: samples stay in time order within
 * each input, not across inputs.  Each input's header becomes a HOST
 * record that the input's host 0 references map to, so equal PIDs from
 * different hosts (or boots) stay distinct.  SUMMARY records are copied;
 * readers add them up.
 */

#include "sp/error.h"
#include "sp/replay.h"

struct sp_merge;

/* What sp_merge_add copied from one input. */
struct sp_merge_stats {
	uint64_t records;     /* records read */
	uint64_t samples;
	uint64_t dup_symbols; /* SYMBOLs of frames that already had one */
	int truncated;        /* the input ended early; its prefix was merged */
	uint64_t end_offset;  /* bytes of valid input */
};

/*
 * Creates a merger writing to fd (a file or a pipe; not closed).  The
 * output header is the first added input's header.  Returns 0 or -ENOMEM.
 */
int sp_merge_new(struct sp_merge **out, int fd);

/*
 * Copies every record of in (opened by the caller, nothing read yet).
 * Fills *st.  Returns 0, also for a truncated input (st->truncated); a
 * format error of the input, with diag filled (offset and reason), after
 * which the records before the error stay merged and the merger can take
 * further inputs; -errno from writing or -ENOMEM, after which the merger
 * is failed.  diag may be NULL.
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

#endif
