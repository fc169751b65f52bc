/* SPDX-License-Identifier: MIT */
#ifndef SP_DEBUGINFOD_H
#define SP_DEBUGINFOD_H

/*
 * Debug files from debuginfod servers (elfutils' protocol: GET
 * URL/buildid/HEX/debuginfo, 200 with the file or 404), kept in the
 * cache that elfutils' own client uses, so that either finds what the
 * other fetched: CACHE/HEX/debuginfo, where CACHE is
 * $DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * $HOME/.cache/debuginfod_client.
 *
 * http:// URLs are fetched here (HTTP/1.1, Content-Length, chunked or to
 * the end, up to 4 redirects to http://).  stackpulse has no TLS: an
 * https:// URL is handed to elfutils' debuginfod-find when it is on the
 * PATH (Debian package debuginfod), else refused with that advice.
 * A file is renamed into the cache only when it was received whole and
 * is an ELF file with the asked build-id; a partial one is removed.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_DEBUGINFOD_URLS_MAX 8   /* servers in a list */
#define SP_DEBUGINFOD_FILE_MAX ((uint64_t)4 << 30) /* largest file taken */
#define SP_DEBUGINFOD_TIMEOUT 30   /* default seconds without progress */
#define SP_DEBUGINFOD_HEADER_MAX 16384 /* bytes of a response's head */

struct sp_debuginfod {
	const char *urls;   /* space-separated servers; NULL or "": none */
	const char *cache;  /* NULL: as above, from the environment */
	int timeout_s;      /* seconds without progress; 0: the default */
	/* Set by sp_debuginfod_find (start with 0): the servers, by their
	 * place in urls, that could not be reached; not asked again. */
	uint32_t unreachable;
};

struct sp_diag;

/*
 * The debug file of build_id[0..id_len): found in the cache, or fetched
 * from the first server that has it.  Returns 0 with its path in
 * path[0..cap) and *fetched set to the bytes fetched (0 from the cache);
 * 1 when none could be had; -ENOMEM.  Either way diag->msg (diag may be
 * NULL) says, for each server, what happened ("http://h:8002: 404 not
 * found; ...", cut when full; empty when nothing was asked), diag->err
 * 0 but for -ENOMEM.  Network and file errors are never returned: they
 * are in diag->msg.
 */
int sp_debuginfod_find(struct sp_debuginfod *d, const uint8_t *id,
    size_t id_len, char *path, size_t cap, uint64_t *fetched,
    struct sp_diag *diag);

/*
 * The client's reader of a server's reply, for tests and fuzzing: reads
 * an HTTP/1.x response from fd (a socket, or any readable fd: the
 * fuzz target's pipe) to its end: the status line, the head (at most
 * SP_DEBUGINFOD_HEADER_MAX bytes, lines of 1 KiB), and for a 200 the body
 * (Content-Length, chunked, or to the end; at most SP_DEBUGINFOD_FILE_MAX)
 * written to out, *bytes of it.  A Location header goes to loc (cut to
 * loccap).  Returns the status, or -SP_EFORMAT (not HTTP), -EPIPE (the
 * body ended short), -EFBIG, -ETIMEDOUT (timeout_ms without a byte),
 * -ENOMEM, -errno.
 */
int sp_debuginfod_response(int fd, int out, int timeout_ms, uint64_t *bytes,
    char *loc, size_t loccap);

#ifdef __cplusplus
}
#endif

#endif
