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
 * sp-record makes one beside the spool, SPOOL.bundle (sp_bundle_beside),
 * for the files no path on its host leads to (a container's).
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

#ifdef __cplusplus
extern "C" {
#endif

#define SP_BUNDLE_FILE_MAX ((uint64_t)1 << 30) /* larger files are skipped */
#define SP_BUNDLE_DEBUG_DIR "/usr/lib/debug" /* where debug files are kept from */
/* The bundle beside a spool: the files the recorder keeps by default
 * (those only a target's mount namespace reaches) go to SPOOL.bundle,
 * where sp-sym looks without being told. */
#define SP_BUNDLE_BESIDE_SUFFIX ".bundle"

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
 * binaries/BUILDID unless that build-id is stored already (binaries/ is
 * made if the bundle was opened without).  0 or -errno; -EFBIG past
 * SP_BUNDLE_FILE_MAX.
 */
int sp_bundle_binary(struct sp_bundle *b, int fd, const uint8_t *build_id,
    size_t len, const char *origin);

/* As sp_bundle_binary, for the module's debug file: debug/BUILDID. */
int sp_bundle_debug(struct sp_bundle *b, int fd, const uint8_t *build_id,
    size_t len, const char *origin);

/* Whether b was opened to keep every module's file (binaries): 1 or 0;
 * 0 for NULL.  Without, the recorder keeps only the files this host
 * cannot reach by their paths (sp/record/recorder.h). */
int sp_bundle_keeps_binaries(const struct sp_bundle *b);

/*
 * The bundle directory beside the spool at path spool ("x.spl" gives
 * "x.spl.bundle") into buf of cap bytes.  0, -EINVAL for no path or "-"
 * (standard input or output), -ENAMETOOLONG.
 */
int sp_bundle_beside(const char *spool, char *buf, size_t cap);

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

#ifdef __cplusplus
}
#endif

#endif
