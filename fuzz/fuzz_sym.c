/* SPDX-License-Identifier: MIT */
/*
 * sp_sym_spool over arbitrary bytes, with no host file in reach (debug
 * dir, sysroot and perf-map dir empty, a fixed kallsyms): the output of
 * an accepted input reads back, and symbolizing it again reproduces it.
 * Resolving the frames ahead of the copy, in chunks of 2 or of the
 * default size, writes what resolving each in turn (chunk 0) writes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp/sym/sym.h"
#include "sym/ahead_int.h"
#include "sym/sym_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fuzz-sym-XXXXXX", ksyms[64];
static const char *dirs[1];

/* The symbolized copy of len bytes at p in a memfd, resolved chunk
 * frames ahead: 0 with *out, or -1. */
static int
sym(const void *p, size_t len, size_t chunk, uint8_t **out, size_t *outlen)
{
	struct sp_sym_options o = { .debug_dirs = dirs, .ndebug_dirs = 1,
		.sysroot = dir, .perf_map_dir = dir, .perf_maps_all = 1,
		.kallsyms = ksyms };
	struct sp_replay *r;
	struct sp_sym_report rep;
	int fd = memfd_create("sym", MFD_CLOEXEC), rc = -1;
	off_t n = 0;

	if (fd >= 0 && sp_replay_open_mem(p, len, &r, NULL) == 0) {
		rc = spi_sym_spool_ahead(&o, r, fd, &rep, NULL, chunk);
		sp_sym_report_fini(&rep);
		sp_replay_free(r);
	}
	*out = NULL;
	if (rc == 0 && (n = lseek(fd, 0, SEEK_END)) > 0 &&
	    (*out = malloc((size_t)n)) != NULL &&
	    pread(fd, *out, (size_t)n, 0) != n)
		abort();
	*outlen = *out != NULL ? (size_t)n : 0;
	if (fd >= 0)
		close(fd);
	return *out != NULL ? 0 : -1;
}

static void
cleanup(void)
{
	(void)unlink(ksyms);
	(void)rmdir(dir);
}

/* Whether chunks x and y give the same: both fail, or the same bytes.
 * Aborts when they differ; 0 when both failed. */
static int
same(const uint8_t *data, size_t size, size_t x, size_t y)
{
	uint8_t *a, *b;
	size_t alen, blen;
	int ra = sym(data, size, x, &a, &alen), rb = sym(data, size, y, &b,
	    &blen);

	if (ra != rb || alen != blen || (ra == 0 && memcmp(a, b, alen) != 0))
		abort();
	free(a);
	free(b);
	return ra == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *a, *b;
	size_t alen, blen;
	FILE *f;

	if (dirs[0] == NULL) {
		if (mkdtemp(dir) == NULL)
			abort();
		(void)snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", dir);
		if ((f = fopen(ksyms, "w")) == NULL)
			abort();
		fputs("ffffffff81000000 T _stext\nffffffff81000100 t "
		    "helper\nffffffffc0000000 t modfn\t[mod]\n", f);
		fclose(f);
		dirs[0] = dir;
		(void)atexit(cleanup);
	}
	if (!same(data, size, 0, 2) ||
	    sym(data, size, SP_AHEAD_FRAMES, &a, &alen) != 0)
		return 0;
	/* sp-sym on its own output copies every symbol: the same bytes. */
	if (sym(a, alen, SP_AHEAD_FRAMES, &b, &blen) != 0 || blen != alen ||
	    memcmp(a, b, alen) != 0)
		abort();
	free(a);
	free(b);
	return 0;
}
