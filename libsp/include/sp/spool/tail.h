/* SPDX-License-Identifier: MIT */
#ifndef SP_TAIL_H
#define SP_TAIL_H

/*
 * Tail: follows a spool that a writer is still appending to.  Each poll
 * reads what was added, applies complete definitions and returns a bounded
 * batch of newly complete samples; a partial record at the end is kept for
 * the next poll.
 *
 * Threads: a tail is used by one thread at a time (sp_tail_poll changes
 * it, its events and its definitions; what they return is valid until
 * the next poll).  The writer it follows may be in another thread or
 * process: the tail reads only what was flushed to the file.  Separate
 * tails are independent.  A tail of the recorder's (sp_recorder_tail)
 * may be polled in another thread than the recorder's, as it reads its
 * own descriptor; it sees what the recorder has flushed
 * (sp_recorder_flush, or a poll whose writer buffer filled).
 */

#include "sp/spool/spool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_tail;

/*
 * Opens path for tailing; the file may still be empty.  0 or -errno.
 * Unlike Snapshot and Replay, Tail takes a file shorter than its header
 * for one whose writer has not written all of it yet: polls return 0 and
 * sp_tail_header NULL until the header is complete.
 */
int sp_tail_open(const char *path, struct sp_tail **out);

/*
 * Reads newly appended records, applying definitions, and stores at most
 * max new samples in out (*n of them).  Returns 0 when more may come, 1
 * once the END record was read (the spool is finished), or an error
 * described by sp_tail_diag.  Definitions the returned samples refer to
 * are in sp_tail_defs.
 */
int sp_tail_poll(struct sp_tail *t, struct sp_sample *out, size_t max,
    size_t *n);

/*
 * What else the last poll read, for a live symbolizer
 * (sp_symbolizer_update): the PYTHON records and the process events
 * (fork, exec, comm, exit) in the order read, at most SP_TAIL_EVENTS_MAX
 * of each (overflow set when more came), and the modules defined in it,
 * ids modules_from + 1 to modules_to.  Valid until the next poll.
 */
#define SP_TAIL_EVENTS_MAX 4096
struct sp_tail_events {
	const struct sp_python *python;
	size_t npython;
	const struct sp_proc *procs;
	size_t nprocs;
	uint32_t modules_from, modules_to;
	int overflow;
};
const struct sp_tail_events *sp_tail_events(const struct sp_tail *t);

/* The header, or NULL until the writer has written it. */
const struct sp_header *sp_tail_header(const struct sp_tail *t);
const struct sp_defs *sp_tail_defs(const struct sp_tail *t);
const struct sp_diag *sp_tail_diag(const struct sp_tail *t);

/*
 * Releases the file blocks of the records this tail has consumed (every
 * poll so far), for a tail the recorder made on its own file
 * (sp_recorder_tail): a long live view then holds on disk only what it
 * has not read yet.  The blocks are punched out (fallocate(2)
 * FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE): the size stays, the header
 * (the first SP_HEADER_MAX bytes, rounded up to a block) too, and the
 * holes read as zeros, so the file is then this tail's alone: another
 * reader, or this one reopened, fails at the first hole.  Whole blocks
 * only (st_blksize); what is left of a block is released by a later
 * call.  Returns 0; -SP_EUSAGE for a tail of sp_tail_open (the file is
 * everyone's to read); -EOPNOTSUPP where the file system cannot punch
 * holes (tmpfs, ext4, xfs and btrfs can; some network and FUSE file
 * systems cannot); or another -errno of fallocate(2).
 */
int sp_tail_discard_consumed(struct sp_tail *t);

/*
 * A sample's time on the profile's timeline, in µs since the epoch
 * (sp_header_timestamp_us): 1 with *us set, 0 before the header is
 * complete or when it has no start time.
 */
int sp_tail_timestamp_us(const struct sp_tail *t,
    const struct sp_sample *sample, int64_t *us);

/* Closes the file (a recorder's tail: its own descriptors, never the
 * writer's) and frees t.  t may be NULL. */
void sp_tail_free(struct sp_tail *t);

#ifdef __cplusplus
}
#endif

#endif
