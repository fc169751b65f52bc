/* SPDX-License-Identifier: MIT */
#ifndef SP_FORMAT_H
#define SP_FORMAT_H

/*
 * Names of things in a spool, as the tools print them.  Everything is
 * formatted into a caller's buffer; nothing is printed.
 */

#include <stddef.h>

#include "sp/spool/spool.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Formats frame id as its function name when it has a symbol, else as
 * "module+0xOFFSET" (the module's base name), "0xADDRESS" without a
 * module or in the kernel's (whose offsets are addresses), "[kernel]"
 * for a kernel frame of no address, or "[truncated]" for the marker.  The
 * result is always NUL-terminated and cut to fit cap (cap > 0).  Returns
 * the length it would have had, like snprintf.
 */
size_t sp_format_frame(const struct sp_defs *d, uint32_t frame, char *buf,
    size_t cap);

/* The base name of a module's path ("?" when it has none). */
const char *sp_module_basename(const struct sp_defs *d, uint32_t module);

/*
 * Whether path (len bytes) names a CPython runtime by its base name:
 * python3.N[...] or libpython3.N[...], with something after the dot.
 * The recorder writes PYTHON records for processes that map one; sp-sym
 * marks its interpreter frames.  1 or 0.
 */
int sp_python_runtime_path(const char *path, size_t len);

#ifdef __cplusplus
}
#endif

#endif
