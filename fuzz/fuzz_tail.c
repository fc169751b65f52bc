/* SPDX-License-Identifier: MIT */
/*
 * Tail over arbitrary bytes that arrive in pieces: the first byte of the
 * input picks the piece size.  It must see the samples Snapshot sees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp/spool/snapshot.h"
#include "sp/spool/tail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/sp-fuzz-tail-XXXXXX";
	struct sp_sample out[16];
	struct sp_tail *t;
	struct sp_snapshot *s;
	size_t piece, off = 1, n, total = 0;
	int fd, st = 0, whole;

	if (size < 1)
		return 0;
	piece = (size_t)data[0] + 1;
	fd = mkstemp(path);
	if (fd < 0 || sp_tail_open(path, &t) != 0)
		abort();
	(void)unlink(path);
	while (st == 0) {
		size_t k = size - off < piece ? size - off : piece;

		if (k > 0 && write(fd, data + off, k) != (ssize_t)k)
			abort();
		off += k;
		do {
			st = sp_tail_poll(t, out, 16, &n);
			total += n;
		} while (st == 0 && n == 16);
		if (k == 0)
			break;
	}
	whole = sp_snapshot_open_mem(data + 1, size - 1, &s, NULL);
	/* Where Snapshot accepts the bytes, Tail saw the same samples. */
	if (whole == 0 && st >= 0 && total != sp_snapshot_nsamples(s))
		abort();
	if (whole == 0)
		sp_snapshot_free(s);
	sp_tail_free(t);
	(void)close(fd);
	return 0;
}
