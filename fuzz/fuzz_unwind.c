/* SPDX-License-Identifier: MIT */
/* The unwinder on stack bytes and registers against the CFI of an ELF
 * image, both from the input: bias u64, image length u32, image,
 * SPI_PERF_NREGS registers (u64), stack bytes.  Seeds are real recorded
 * stacks (tests/unwreplay -s). */
#include <stdlib.h>
#include <string.h>

#include "elf/elf_int.h"
#include "unwind/cfi_table_int.h"
#include "unwind/unwind_int.h"

/* The fields are little-endian and read with memcpy. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fuzz_unwind reads its input in the host's byte order"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input, read front to back.  A read past its end sets err, after
 * which every read fails: the fields are read, then err checked once. */
struct in {
	const uint8_t *p;
	size_t len;
	size_t pos;
	int err;
};

/* The next n bytes, or NULL; never forms a pointer past the end. */
static const uint8_t *
take(struct in *in, size_t n)
{
	const uint8_t *r;

	if (in->err || n > in->len - in->pos) {
		in->err = 1;
		return NULL;
	}
	r = in->p + in->pos;
	in->pos += n;
	return r;
}

/* An n-byte field (n <= 8), or 0 once the input is short. */
static uint64_t
rd(struct in *in, size_t n)
{
	const uint8_t *b = take(in, n);
	uint64_t v = 0;

	if (b != NULL)
		memcpy(&v, b, n);
	return v;
}

struct ctx {
	const struct sp_cfi_table *t;
	uint64_t bias;
	const uint8_t *img;
	size_t len;
};

static int
find(void *p, uint64_t pc, const struct sp_cfi_table **t, uint64_t *bias)
{
	const struct ctx *c = p;

	(void)pc;
	*t = c->t;
	*bias = c->bias;
	return 0;
}

static size_t
code(void *p, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct ctx *c = p;
	uint64_t off = addr - c->bias;

	if (off >= c->len)
		return 0;
	len = len < c->len - off ? len : (size_t)(c->len - off);
	memcpy(buf, c->img + off, len);
	return len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size, 0, 0 };
	struct ctx c = { NULL, 0, NULL, 0 };
	struct sp_unwind_lookup lk = { .find = find, .ctx = &c,
	    .read_code = code };
	struct sp_cfi_table *t = NULL;
	struct sp_unwind_result res;
	struct sp_unwind_stats st;
	struct sp_uregs regs;
	struct sp_ustack stk;
	uint64_t ips[256];
	struct sp_elf_file *ef;
	int i;

	c.bias = rd(&in, 8);
	c.len = (size_t)rd(&in, 4);
	c.img = take(&in, c.len);
	if (in.err ||
	    spi_elf_file_open_mem(c.img, c.len, &ef, NULL) != 0 ||
	    spi_cfi_table_open(ef, &t) != 0)
		return 0;
	c.t = t;
	for (i = 0; i < SPI_PERF_NREGS; i++)
		regs.r[i] = rd(&in, 8);
	stk.data = data + in.pos;
	stk.len = in.err ? 0 : in.len - in.pos;
	memset(&st, 0, sizeof(st));
	/* No row cache: its 1 MiB would dominate each run, and the unit
	 * and CLI tests cover it. */
	spi_unwind_dwarf(&regs, &stk, &lk, ips, 256, &res, &st);
	spi_cfi_table_free(t);
	return 0;
}
