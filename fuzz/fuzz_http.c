/* SPDX-License-Identifier: MIT */
/* A debuginfod server's reply, read from a pipe holding the input: the
 * body written is never more than the input holds, nor more than the
 * reply said, and a 200 is the only status with a body. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "sp/sym/debuginfod.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char loc[256];
	uint64_t bytes;
	int p[2], out, st;
	off_t end;

	/* A pipe holds 64 KiB: the whole input is in it before the read. */
	if (size > 60000 || pipe(p) < 0)
		return 0;
	if (write(p[1], data, size) != (ssize_t)size)
		abort();
	(void)close(p[1]);
	out = memfd_create("body", MFD_CLOEXEC);
	if (out < 0)
		abort();
	st = sp_debuginfod_response(p[0], out, 1000, &bytes, loc, sizeof(loc));
	end = lseek(out, 0, SEEK_END);
	if (end < 0 || (uint64_t)end != bytes || bytes > size ||
	    (st != 200 && st >= 0 && bytes != 0) ||
	    strlen(loc) >= sizeof(loc))
		abort();
	(void)close(p[0]);
	(void)close(out);
	return 0;
}
