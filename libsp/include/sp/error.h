/* SPDX-License-Identifier: MIT */
#ifndef SP_ERROR_H
#define SP_ERROR_H

/*
 * Error codes of libsp.  Library functions return 0 on success or a
 * negative number: -SP_E... for the conditions below, or -errno for a
 * failed system call.  The SP_E values lie above every errno value so the
 * two never collide.
 */
enum sp_error {
	SP_EFORMAT = 4096, /* malformed input: a field or length is impossible */
	SP_ETRUNC,         /* input ends inside a record (recoverable prefix) */
	SP_EMAGIC,         /* not a spool: the magic does not match */
	SP_EVERSION,       /* spool version or header fields this library does not know */
	SP_EREF,           /* reference to an id that is not (yet) defined */
	SP_ELIMIT,         /* a documented limit was exceeded */
	SP_ECHECKSUM,      /* the END record's crc32 does not match the data */
	SP_EAGAIN,         /* no complete record yet (Tail): try again later */
	SP_EUSAGE,         /* invalid argument passed by the caller */
	SP_ENOTFOUND,      /* what was asked for does not exist */
	SP_EMAX_
};

/*
 * Returns a static, human-readable description of err, which may be a
 * libsp code or an errno value, with or without its minus sign.  Never
 * returns NULL.
 */
const char *sp_strerror(int err);

/*
 * A diagnostic for input errors: the byte offset where the offending
 * record or field starts and a sentence naming the reason.  Readers own one
 * and fill it when they return an error; it stays valid until the next
 * call on that reader.
 */
struct sp_diag {
	unsigned long long offset;
	char msg[320];
};

/*
 * The one way libsp fills a diagnostic: d's offset and its message,
 * formatted as printf does (cut to fit).  d may be NULL (nothing is
 * kept).  Returns err, so that a failure is reported and returned in
 * one statement: return sp_diag_set(diag, off, -SP_EFORMAT, "...").
 */
int sp_diag_set(struct sp_diag *d, unsigned long long offset, int err,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
