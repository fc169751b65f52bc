/* SPDX-License-Identifier: MIT */
#ifndef SP_VERSION_H
#define SP_VERSION_H

/* What a tool's --version prints: the project's version, the spool format
 * it writes and reads, and the build-id of the running binary. */

#include <stddef.h>

/* The project's release; bumped with each release, not each commit. */
#define SP_PROJECT_VERSION "0.4.0"

/*
 * Writes "TOOL (stackpulse) VERSION\nspool format N\nbuild-id HEX\n" into
 * buf (at most cap bytes, NUL-terminated).  The build-id is read from
 * /proc/self/exe; "build-id unknown" stands in when it cannot be read.
 * Returns the length written, or -SP_ELIMIT when cap is too small.
 */
int sp_version_text(const char *tool, char *buf, size_t cap);

#endif
