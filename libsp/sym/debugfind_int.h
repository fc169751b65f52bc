/* SPDX-License-Identifier: MIT */
#ifndef SP_DEBUGFIND_INT_H
#define SP_DEBUGFIND_INT_H

/*
 * Finding the files that name a module's functions: its own image (in a
 * bundle, under a sysroot, or where it was recorded) and a separate
 * debug file (by build-id under the debug directories, or through its
 * .gnu_debuglink), as GDB lays them out ("Debugging Information in
 * Separate Files").  Every file used is verified: by build-id, and a
 * debuglink target also by its CRC-32.
 */

#include <stddef.h>
#include <stdint.h>

#include "elf/elf_int.h"
#include "sp/sym/sym.h"

struct sp_debug_search {
	const char *const *debug_dirs; /* default {SP_DEBUG_DIR_DEFAULT} when 0 */
	size_t ndebug_dirs;
	const char *sysroot;    /* NULL: none; else the target's root mounted here */
	const char *bundle;     /* NULL or a bundle dir: binaries/BUILDID (hex) */
	/* NULL: none; else asked last, when no debug file was found and
	 * the binary has no DWARF (sp/sym/debuginfod.h) */
	struct sp_debuginfod *debuginfod;
	/* NULL: none; else the image a running process maps, tried for the
	 * binary after the bundle (/proc/PID/map_files/START-END: the very
	 * file, also when it was replaced or deleted since) */
	const char *image;
};

struct sp_debug_found {
	struct sp_elf_file *binary;  /* the module's own image, or NULL */
	struct sp_elf_file *debug;   /* a separate debug file, or NULL */
	/* The paths looked at, each with what was found there ("absent",
	 * "used", "build-id differs", ...), separated by "; ", cut short
	 * with "..." when they do not fit. */
	char tried[1024];
	unsigned mismatches;  /* files rejected: build-id or CRC differed */
	int unverified;       /* binary taken without a build-id to check */
	int debuginfod;       /* the debug file came from debuginfod's cache */
	uint64_t fetched;     /* bytes fetched from a server for it */
	/* When debuginfod was asked: what came of it ("fetched 9.6 KiB from
	 * URL", "in the cache", or each server's answer); else "". */
	char debuginfod_said[512];
};

/*
 * Looks for the module recorded as path (absolute, as in
 * /proc/PID/maps) with build-id build_id[0..id_len).
 *
 * The binary: bundle/binaries/HEXID, s->image, sysroot + path, then path; the
 * first whose build-id equals build_id is used.  With id_len 0 there is
 * nothing to check: the first that opens is used and out->unverified
 * set, and its own build-id (if any) is used for the debug file.
 *
 * The debug file, first match wins:
 *   bundle/debug/HEXID (sp_bundle_check), with the same build-id;
 *   DIR/.build-id/xx/rest.debug for each debug dir DIR, under the
 *     sysroot first and then as is (xx: the id's first byte in hex,
 *     rest: the others), with the same build-id;
 *   then, if the binary has a .gnu_debuglink naming NAME with CRC C,
 *     for root in (sysroot, ""): root + dirname(path)/NAME,
 *     root + dirname(path)/.debug/NAME, root + DIR + dirname(path)/NAME
 *     for each DIR; the file's CRC-32 must be C, its build-id (if both
 *     have one) the binary's, and it must not be the binary itself.
 *   then, with s->debuginfod, when no debug file was found and the
 *     binary (if found) has no .debug_info: the debuginfod cache, then
 *     its servers (what they said is in out->tried).
 * A debug file's own debuglink is never followed, so the search is
 * bounded (at most 9 + 4 * SP_DEBUG_DIRS_MAX files) and cannot loop.
 *
 * Returns 0, also when nothing was found (both NULL), -SP_EUSAGE for
 * more than SP_DEBUG_DIRS_MAX dirs, or -ENOMEM.  Any other failure to
 * open or read a candidate is recorded in out->tried and the search
 * goes on.  Call spi_debug_found_fini on out afterwards (also after an
 * error).
 */
int spi_debug_find(const struct sp_debug_search *s, const char *path,
    const uint8_t *build_id, size_t id_len, struct sp_debug_found *out);

/* Frees the files in f and clears it. */
void spi_debug_found_fini(struct sp_debug_found *f);


#endif
