/* SPDX-License-Identifier: MIT */
#ifndef SP_REPLAY_H
#define SP_REPLAY_H

/*
 * Replay: a sequential reader.  It keeps the definitions and hands out
 * every record in stream order, samples decoded on the fly, so memory is
 * O(definitions) whatever the number of samples.
 *
 * Threads: a replay is used by one thread at a time (sp_replay_next and
 * sp_replay_sample_count change it, and what sp_replay_next returns and
 * the definitions it grows are valid until its next call); a program that
 * shares one serialises the calls itself.  Separate replays are
 * independent, in any threads, also over the same file.
 */

#include "sp/spool/spool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_replay;

/*
 * Opens path ("-" is standard input) for replay and reads its header.
 * Returns 0 and *out; -errno when the file can't be opened, diag saying
 * "PATH: reason"; a format error with diag filled: a file that ends
 * before its header does (an empty one too) is not a spool, -SP_EFORMAT
 * ("not a spool: empty file", "not a spool: incomplete header (N of 216
 * bytes)").  diag may be NULL.
 */
int sp_replay_open(const char *path, struct sp_replay **out,
    struct sp_diag *diag);

/* As sp_replay_open, on fd, which stays the caller's (not closed). */
int sp_replay_open_fd(int fd, struct sp_replay **out, struct sp_diag *diag);

/* As sp_replay_open, on len bytes at p, which must outlive the reader. */
int sp_replay_open_mem(const void *p, size_t len, struct sp_replay **out,
    struct sp_diag *diag);

/*
 * Reads the next record into *rec, after checking its references and
 * adding it to the definitions.  Returns 1; 0 at the end of the data (see
 * sp_replay_status for a truncated tail); or a negative error, described by
 * sp_replay_diag, after which every call returns the same error.
 */
int sp_replay_next(struct sp_replay *r, struct sp_record *rec);

/* The header (an opened spool always has one). */
const struct sp_header *sp_replay_header(const struct sp_replay *r);
const struct sp_defs *sp_replay_defs(const struct sp_replay *r);
const struct sp_diag *sp_replay_diag(const struct sp_replay *r);
/* Valid once sp_replay_next returned 0. */
const struct sp_status *sp_replay_status(const struct sp_replay *r);

/*
 * The number of samples in the spool's validated prefix: those before its
 * end, a truncated tail or the first damaged record, as many as
 * sp_replay_next would return.  Once sp_replay_next returned 0 or an error
 * that is sp_replay_status's count, at once.  Before, the reader has
 * not seen the rest yet: the first call reads and checks the rest of the
 * spool once in a pass of its own (the file mapped, memory for a second
 * copy of the definitions; the reader's position does not move) and keeps
 * the count for the next calls.  Returns 0 with *n; -ESPIPE when the
 * input is a pipe (read once: count the samples while reading them, or
 * ask after the end), -ENOMEM, or -errno of mapping the file.
 */
int sp_replay_sample_count(struct sp_replay *r, uint64_t *n);

/*
 * A sample's time on the profile's timeline, in µs since the epoch
 * (sp_header_timestamp_us): 1 with *us set, 0 when the header has no
 * start time.
 */
int sp_replay_timestamp_us(const struct sp_replay *r,
    const struct sp_sample *sample, int64_t *us);

/* Frees r and closes the file it opened.  r may be NULL. */
void sp_replay_free(struct sp_replay *r);

#ifdef __cplusplus
}
#endif

#endif
