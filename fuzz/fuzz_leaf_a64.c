/* SPDX-License-Identifier: MIT */
/* The AArch64 leaf analysis on any code: byte 0 the pc's instruction,
 * byte 1 how many bytes a read gives at most (0: as asked), then the
 * code.  Answers keep the header's promises; reads stay bounded. */
#include <stdlib.h>
#include <string.h>

#include "unwind/aarch64/aarch64_leaf_int.h"
/* Built in, so that every host fuzzes it (libsp.a has its own arch's). */
#include "unwind/aarch64/aarch64_leaf.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in { const uint8_t *p; size_t len, cap; unsigned reads; };

static size_t
rd(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	struct in *c = ctx;

	if (++c->reads > SPI_A64_FETCH_MAX || len != SPI_A64_WINDOW)
		abort();
	if (addr < 0x10000 || addr - 0x10000 >= c->len)
		return 0;
	len = c->len - (addr - 0x10000) < len ? c->len - (addr - 0x10000) : len;
	len = c->cap != 0 && c->cap < len ? c->cap : len;
	memcpy(buf, c->p + (addr - 0x10000), len);
	return len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in c = { data, 0, 0, 0 };
	struct spi_a64_leaf lf;

	if (size < 2)
		return 0;
	c.p = data + 2;
	c.len = size - 2;
	c.cap = data[1];
	if (spi_a64_leaf(0x10000 + 4 * (uint64_t)data[0], rd, &c, &lf) != 0 ||
	    (!lf.known && (lf.sp_off | lf.ra_at | lf.ra_off | lf.fp_at |
	    lf.fp_off) != 0) || lf.sp_off < 0 || (lf.sp_off & 15) != 0 ||
	    (lf.ra_at && (lf.ra_off < 0 || lf.ra_off > lf.sp_off - 8)) ||
	    (lf.fp_at && (lf.fp_off < 0 || lf.fp_off > lf.sp_off - 8)))
		abort();
	return 0;
}
