/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp/common/error.h"

static const char *const sp_messages[] = {
	[0] = "malformed spool data",
	[SP_ETRUNC - SP_EFORMAT] = "data ends inside a record (truncated)",
	[SP_EMAGIC - SP_EFORMAT] = "not a spool (bad magic)",
	[SP_EVERSION - SP_EFORMAT] = "unsupported spool version",
	[SP_EREF - SP_EFORMAT] = "reference to an undefined id",
	[SP_ELIMIT - SP_EFORMAT] = "a size or count limit was exceeded",
	[SP_ECHECKSUM - SP_EFORMAT] = "checksum mismatch",
	[SP_EAGAIN - SP_EFORMAT] = "no complete record yet",
	[SP_EUSAGE - SP_EFORMAT] = "invalid argument",
	[SP_ENOTFOUND - SP_EFORMAT] = "not found",
	[SP_EFREQ - SP_EFORMAT] = "sampling rate above the kernel's limit",
};

const char *
sp_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= SP_EFORMAT && err < SP_EMAX_)
		return sp_messages[err - SP_EFORMAT];
	/* strerror() returns static strings for valid errno values in
	 * glibc and musl; libsp never calls it concurrently with setlocale(). */
	return strerror(err); /* NOLINT(concurrency-mt-unsafe) */
}

enum sp_error_kind
sp_error_kind(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return SP_KIND_NONE;
	case ESRCH:
		return SP_KIND_GONE;
	case EACCES: case EPERM:
		return SP_KIND_PERMISSION;
	case SP_EFREQ:
		return SP_KIND_FREQUENCY;
	case SP_EUSAGE: case EINVAL:
		return SP_KIND_INVALID;
	case SP_EFORMAT: case SP_ETRUNC: case SP_EMAGIC: case SP_EVERSION:
	case SP_EREF: case SP_ECHECKSUM:
		return SP_KIND_FORMAT;
	case SP_ELIMIT: case ENOMEM: case EFBIG: case EMFILE: case ENFILE:
		return SP_KIND_LIMIT;
	case SP_ENOTFOUND: case ENOENT: case ENOTDIR:
		return SP_KIND_NOT_FOUND;
	case SP_EAGAIN: case EAGAIN: case EINTR:
		return SP_KIND_AGAIN;
	default:
		return SP_KIND_IO;
	}
}

const char *
sp_error_kind_name(enum sp_error_kind k)
{
	static const char *const names[] = { "none", "gone", "permission",
	    "frequency", "invalid", "format", "limit", "not found", "again",
	    "io" };

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] :
	    "none";
}

int
sp_diag_set(struct sp_diag *d, unsigned long long offset, int err,
    const char *fmt, ...)
{
	va_list ap;

	if (d == NULL)
		return err;
	va_start(ap, fmt);
	d->offset = offset;
	d->err = err;
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	(void)vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return err;
}
