/* SPDX-License-Identifier: MIT */
#ifndef SP_REPLAY_H
#define SP_REPLAY_H

/*
 * Replay: a sequential reader.  It keeps the definitions and hands out
 * every record in stream order, samples decoded on the fly, so memory is
 * O(definitions) whatever the number of samples.
 */

#include "sp/spool/spool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_replay;

/*
 * Opens path ("-" is standard input) for replay and reads its header.
 * Returns 0 and *out; -errno when the file can't be opened, diag saying
 * "PATH: reason"; a format error with diag filled: a file that ends before its header does (an
 * empty one too) is not a spool, -SP_EFORMAT ("not a spool: empty file",
 * "not a spool: incomplete header (N of 216 bytes)").  diag may be NULL.
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

/* Frees r and closes the file it opened.  r may be NULL. */
void sp_replay_free(struct sp_replay *r);

#ifdef __cplusplus
}
#endif

#endif
