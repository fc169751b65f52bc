/* SPDX-License-Identifier: MIT */
#ifndef SP_BUNDLE_H
#define SP_BUNDLE_H

/*
 * A bundle: what sp-sym needs to symbolize a spool on another machine,
 * preserved by the recorder.  Layout of the directory:
 *
 *   manifest                  "stackpulse-bundle 1", then one line per
 *                             item: KIND<TAB>KEY<TAB>FILE[<TAB>ORIGIN]
 *   kallsyms                  /proc/kallsyms, when it shows real addresses
 *   perf-maps/perf-PID.map    /tmp/perf-PID.map of recorded processes
 *   binaries/BUILDID          each recorded module's ELF file, once
 *   debug/BUILDID             its separate debug file, where the recording
 *                             host has one (/usr/lib/debug/.build-id/)
 *
 * Files are created with mode 0600 (directories 0700) relative to the
 * bundle's directory fd, never following symlinks (O_NOFOLLOW, O_EXCL).
 * Perf maps are copied only when they are regular files owned by the
 * recorded process's uid.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp/common/error.h"

#define SP_BUNDLE_FILE_MAX ((uint64_t)1 << 30) /* larger files are skipped */
#define SP_BUNDLE_DEBUG_DIR "/usr/lib/debug" /* where debug files are kept from */

struct sp_bundle;

/*
 * Creates the bundle directory dir (it may exist, but not as a symlink)
 * and its subdirectories.  binaries: also keep ELF files.  Returns 0 or
 * -errno with diag naming the path.
 */
int sp_bundle_open(const char *dir, int binaries, struct sp_bundle **out,
    struct sp_diag *diag);

/*
 * Copies /tmp/perf-PID.map if it exists, is a regular file (not a
 * symlink) and belongs to uid; for a process in a PID namespace, whose
 * runtime names the map by the pid it sees there (NSpid in
 * /proc/PID/status) in its own /tmp, /proc/PID/root/tmp/perf-NSPID.map
 * (never the host's /tmp/perf-PID.map, an older process's; and once it
 * is gone, nothing).  Later copies of the same pid replace the earlier
 * one (runtimes append).  Returns 0 (also when there is none), -EPERM
 * for a file owned by another user, -errno.
 */
int sp_bundle_perf_map(struct sp_bundle *b, pid_t pid, uid_t uid);

/* Copies /proc/kallsyms when its addresses are not hidden.  0 or -errno. */
int sp_bundle_kallsyms(struct sp_bundle *b);

/*
 * Keeps the ELF file open on fd (not moved; the caller's) as
 * binaries/BUILDID unless that build-id is stored already.  0 or -errno.
 */
int sp_bundle_binary(struct sp_bundle *b, int fd, const uint8_t *build_id,
    size_t len, const char *origin);

/* As sp_bundle_binary, for the module's debug file: debug/BUILDID. */
int sp_bundle_debug(struct sp_bundle *b, int fd, const uint8_t *build_id,
    size_t len, const char *origin);

/* Writes the manifest.  Returns 0 or -errno. */
int sp_bundle_finish(struct sp_bundle *b);

void sp_bundle_free(struct sp_bundle *b);

/*
 * For readers: whether rel ("binaries/ID", "debug/ID", "perf-maps/perf-PID.map",
 * "kallsyms") inside the bundle directory dir may be read.  Every
 * directory on the way must be a real directory and rel a regular file,
 * none of them a symlink, and no component "." or "..": a bundle made
 * elsewhere cannot point the reader at a file outside it.  (dir itself
 * is the caller's choice and may be reached through a symlink.)  The
 * check is by name, so a bundle the reader shares with a hostile writer
 * can still be changed between check and open.  Returns 0, -ELOOP (a
 * symlink), -EINVAL (a dot component), -EPERM (not a regular file or
 * directory), or -errno (-ENOENT...).
 */
int sp_bundle_check(const char *dir, const char *rel);

#endif
