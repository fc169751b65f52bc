/* SPDX-License-Identifier: MIT */
#ifndef SP_WRITER_H
#define SP_WRITER_H

/*
 * The spool writer: buffered, append-only, on a caller-owned file
 * descriptor (a file or a pipe; it never seeks).  Definitions are
 * interned: putting an equal string, host, module, frame, node or thread
 * twice returns the first id and writes nothing.  The writer checks every
 * record as its readers will, so it never writes a spool they reject.
 *
 * Threads: a writer is used by one thread at a time, its count too.  A
 * writer given to a recorder is written by the recorder's calls
 * (sp_recorder_poll, _flush, _finish...), so the program's own calls on
 * it go between those, in the same thread or under the same lock.  Its
 * SIGPIPE handling blocks the signal in the calling thread only, for the
 * write.  Readers of the file it writes (a tail) may be in any thread.
 */

#include "sp/spool/spool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_writer;

/*
 * Creates a writer on fd and buffers the header h (its version and length
 * fields are ignored).  Nothing is written to fd before the first flush.
 * Returns 0 or -ENOMEM.
 */
int sp_writer_new(int fd, const struct sp_header *h, struct sp_writer **out);

/*
 * Appends record r (its kind and fields; id, offset and size are ignored).
 * For a definition, stores its id, new or interned, in *id (id may be NULL
 * otherwise).  Times are absolute; the writer stores deltas.  Returns 0;
 * -SP_EREF for a reference to an id not yet defined; -SP_EUSAGE for a
 * field a reader would reject; -SP_ELIMIT; -errno from a flush; -ENOMEM.
 * After an error other than -SP_EREF/-SP_EUSAGE the writer is failed and
 * every later call returns that error.
 */
int sp_writer_put(struct sp_writer *w, const struct sp_record *r,
    uint32_t *id);

/*
 * From now on, definitions of kind are written every time they are put,
 * each with a new id, instead of being interned.  For a caller that keeps
 * its own ids for them and forgets them when they can no longer recur:
 * the recorder does so for threads, whose definitions would otherwise
 * stay in the writer's memory for the whole recording.  Returns 0, or
 * -SP_EUSAGE when kind is not a definition kind.
 */
int sp_writer_no_intern(struct sp_writer *w, unsigned kind);

/* Interns the string s[0..len) and stores its id. */
int sp_writer_string(struct sp_writer *w, const char *s, size_t len,
    uint32_t *id);

/*
 * Interns a stack of n frame ids, leaf first, as a chain of nodes and
 * stores the leaf node's id in *stack (0 for n == 0).  The root path it
 * shares with the stack of the call before costs one compare a frame.
 */
int sp_writer_stack(struct sp_writer *w, const uint32_t *frames, size_t n,
    uint32_t *stack);

/*
 * Writes buffered bytes to the fd.  Returns 0 or -errno (EPIPE, ENOSPC…).
 * A pipe or socket whose reader has gone gives -EPIPE and raises no
 * SIGPIPE: the write blocks it in the calling thread and takes the one it
 * raised, whatever the program's disposition (a program need not ignore
 * SIGPIPE for this; its other writes are its own affair).
 */
int sp_writer_flush(struct sp_writer *w);

/*
 * Appends the END record (crc32 of everything before it) and flushes.
 * Nothing may be put afterwards.  Returns 0 or an error.
 */
int sp_writer_finish(struct sp_writer *w);

/* Bytes put so far, header included, flushed or not. */
unsigned long long sp_writer_bytes(const struct sp_writer *w);

/* Definitions of kind written so far (the highest id). */
uint32_t sp_writer_count(const struct sp_writer *w, enum sp_kind kind);

/* Frees w without flushing; does not close the fd.  w may be NULL. */
void sp_writer_free(struct sp_writer *w);

#ifdef __cplusplus
}
#endif

#endif
