/* SPDX-License-Identifier: MIT */
#ifndef SP_ERROR_H
#define SP_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

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
	SP_EFREQ,          /* a sampling rate above the kernel's limit
	                    * (perf_event_max_sample_rate; sp_diag says both) */
	SP_EMAX_
};

/*
 * What kind of failure an error is, for a program to switch on whatever
 * the code: the kinds stay, codes may be added to them.
 */
enum sp_error_kind {
	SP_KIND_NONE,        /* 0: no error */
	SP_KIND_GONE,        /* the process asked for is gone (ESRCH) */
	SP_KIND_PERMISSION,  /* refused: privileges, perf_event_paranoid,
	                      * ownership (EACCES, EPERM) */
	SP_KIND_FREQUENCY,   /* the rate is above the kernel's limit
	                      * (SP_EFREQ) */
	SP_KIND_INVALID,     /* the caller's arguments (SP_EUSAGE, EINVAL) */
	SP_KIND_FORMAT,      /* input that is no spool or a damaged one
	                      * (SP_EFORMAT, SP_ETRUNC, SP_EMAGIC,
	                      * SP_EVERSION, SP_EREF, SP_ECHECKSUM) */
	SP_KIND_LIMIT,       /* a documented limit or the memory (SP_ELIMIT,
	                      * ENOMEM, EFBIG, EMFILE, ENFILE) */
	SP_KIND_NOT_FOUND,   /* a file or an entry that is not there
	                      * (SP_ENOTFOUND, ENOENT, ENOTDIR) */
	SP_KIND_AGAIN,       /* nothing yet: call again (SP_EAGAIN, EAGAIN,
	                      * EINTR) */
	SP_KIND_IO           /* reading or writing failed (EIO, ENOSPC, EPIPE,
	                      * ...): every other errno */
};

/* The kind of err (a libsp code or an errno value, with or without its
 * minus sign). */
enum sp_error_kind sp_error_kind(int err);

/* The kind's name: "gone", "permission", "frequency", "invalid",
 * "format", "limit", "not found", "again", "io", or "none". */
const char *sp_error_kind_name(enum sp_error_kind k);

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
	int err;             /* the code returned with it (an errno value
	                      * kept as the system gave it, negated) */
	/* SP_EFREQ: the rate asked for and the highest the kernel permits. */
	unsigned long requested, permitted;
};

/*
 * The one way libsp fills a diagnostic: d's offset, its code (err) and
 * its message, formatted as printf does (cut to fit).  d may be NULL (nothing is
 * kept).  Returns err, so that a failure is reported and returned in
 * one statement: return sp_diag_set(diag, off, -SP_EFORMAT, "...").
 */
int sp_diag_set(struct sp_diag *d, unsigned long long offset, int err,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif

#endif
