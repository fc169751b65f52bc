/* SPDX-License-Identifier: MIT */
#ifndef SP_SNAPSHOT_H
#define SP_SNAPSHOT_H

/*
 * Snapshot: a whole spool in memory, every reference validated, with
 * random access to its samples.  Files are mapped while they are parsed.
 *
 * Threads: once sp_snapshot_open has returned, a snapshot does not change
 * until sp_snapshot_free, so any number of threads may call the calls
 * that take it const (and sp_defs_* on its definitions) at once, without
 * a lock; freeing it must wait until they are done.  The library keeps
 * no global state: separate snapshots are independent.
 */

#include "sp/spool/spool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_snapshot;

/*
 * Reads all of path ("-" is standard input).  Returns 0 and *out; -errno
 * when the file can't be read (diag: "PATH: reason" when it can't be
 * opened); a format error with diag filled (diag may be NULL).  A
 * truncated spool opens with its intact prefix and
 * sp_snapshot_status()->truncated set; one cut before the end of its
 * header has no prefix and is -SP_EFORMAT, as sp_replay_open says.
 */
int sp_snapshot_open(const char *path, struct sp_snapshot **out,
    struct sp_diag *diag);

/* As sp_snapshot_open, on len bytes at p (not kept after it returns). */
int sp_snapshot_open_mem(const void *p, size_t len, struct sp_snapshot **out,
    struct sp_diag *diag);

const struct sp_header *sp_snapshot_header(const struct sp_snapshot *s);
const struct sp_defs *sp_snapshot_defs(const struct sp_snapshot *s);
const struct sp_status *sp_snapshot_status(const struct sp_snapshot *s);

/* The samples in stream order; valid until sp_snapshot_free. */
size_t sp_snapshot_nsamples(const struct sp_snapshot *s);
const struct sp_sample *sp_snapshot_samples(const struct sp_snapshot *s);

/*
 * The PYTHON records in stream order (from each one's time on, process
 * pid is, or is no longer, a Python runtime with perf maps: is_python),
 * in *out, valid until sp_snapshot_free.  Returns their number (0: none,
 * *out then NULL).
 */
size_t sp_snapshot_python(const struct sp_snapshot *s,
    const struct sp_python **out);

/*
 * A sample's time (sp_sample.time) on the profile's timeline, in µs since
 * the epoch: sp_header_timestamp_us with this spool's header.  1 with *us
 * set, 0 when the header has no start time.
 */
int sp_snapshot_timestamp_us(const struct sp_snapshot *s,
    const struct sp_sample *sample, int64_t *us);

void sp_snapshot_free(struct sp_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif
