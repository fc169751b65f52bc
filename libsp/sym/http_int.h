/* SPDX-License-Identifier: MIT */
#ifndef SP_HTTP_INT_H
#define SP_HTTP_INT_H

/*
 * The HTTP/1.x client under debuginfod.c (http.c).  The response reader
 * is sp_debuginfod_response (sp/sym/debuginfod.h), fuzzed by fuzz_http.
 */

#include <stddef.h>
#include <stdint.h>

/* A parsed http:// URL: host, port, and the path prefix (no trailing /). */
struct spi_url {
	char host[256], port[8], path[1024];
};

/* Parses u, which starts "http://": 0, or -1 when it is not a URL this
 * client reads (no host, a bad port, a field too long). */
int spi_http_parse_url(const char *u, struct spi_url *out);

/*
 * GET u's path prefix + rel into the file out, waiting at most
 * timeout_ms for each step.  Returns the HTTP status, or -errno,
 * -ETIMEDOUT, -ENOENT (host not found), as sp_debuginfod_response; *bytes:
 * the body's bytes written, loc: a Location header.
 */
int spi_http_get(const struct spi_url *u, const char *rel, int out,
    int timeout_ms, uint64_t *bytes, char *loc, size_t loccap);

#endif
