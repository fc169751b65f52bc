/* SPDX-License-Identifier: MIT */
#ifndef SP_VERSION_H
#define SP_VERSION_H

/* The library's version, for embedders at build time (the macros) and at
 * run time (sp_version), and what a tool's --version prints: the project's
 * version, the spool format it writes and reads (SP_VERSION in
 * sp/spool/spool.h, a separate number), and the build-id of the running binary. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The project's release; bumped with each release, not each commit.  The
 * API may change while MAJOR is 0; from 1 on, only with MAJOR. */
#define SP_VERSION_MAJOR 0
#define SP_VERSION_MINOR 5
#define SP_VERSION_PATCH 0
#define SP_VERSION_STR_(a, b, c) #a "." #b "." #c
#define SP_VERSION_STR(a, b, c) SP_VERSION_STR_(a, b, c)
#define SP_PROJECT_VERSION SP_VERSION_STR(SP_VERSION_MAJOR, SP_VERSION_MINOR, \
    SP_VERSION_PATCH)
/* One number that grows with each release: 500 for 0.5.0. */
#define SP_VERSION_NUMBER (SP_VERSION_MAJOR * 10000 + SP_VERSION_MINOR * 100 + \
    SP_VERSION_PATCH)

/* The version of the library linked in, "0.5.0": it may differ from the
 * SP_PROJECT_VERSION of the headers a program was built with. */
const char *sp_version(void);
/* The same as SP_VERSION_NUMBER does. */
unsigned sp_version_number(void);

/*
 * Writes "TOOL (stackpulse) VERSION\nspool format N\nbuild-id HEX\n" into
 * buf (at most cap bytes, NUL-terminated).  The build-id is read from
 * /proc/self/exe; "build-id unknown" stands in when it cannot be read.
 * Returns the length written, or -SP_ELIMIT when cap is too small.
 */
int sp_version_text(const char *tool, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
