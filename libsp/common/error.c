/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp/error.h"

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

int
sp_diag_set(struct sp_diag *d, unsigned long long offset, int err,
    const char *fmt, ...)
{
	va_list ap;

	if (d == NULL)
		return err;
	va_start(ap, fmt);
	d->offset = offset;
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	(void)vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return err;
}
