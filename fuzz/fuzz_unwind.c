/* SPDX-License-Identifier: MIT */
/* The unwinder on stack bytes and registers against the CFI of an ELF
 * image, both from the input: bias u64, image length u32, image,
 * SP_REG_COUNT registers (u64), stack bytes.  Seeds are real recorded
 * stacks (tests/unwreplay -s). */
#include <stdlib.h>
#include <string.h>

#include "common/cursor_int.h"
#include "sp/cfi.h"
#include "sp/elffile.h"
#include "sp/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	struct sp_cur cur = sp_cur_make(data, size);
	struct ctx c = { NULL, sp_rd_u64(&cur), NULL, sp_rd_u32(&cur) };
	struct sp_unwind_lookup lk = { find, &c, NULL, code };
	struct sp_cfi_table *t = NULL;
	struct sp_unwind_result res;
	struct sp_unwind_stats st;
	struct sp_uregs regs;
	struct sp_ustack stk;
	uint64_t ips[256];
	struct sp_elf_file *ef;
	int i;

	c.img = sp_take(&cur, c.len);
	if (cur.err || c.img == NULL ||
	    sp_elf_file_open_mem(c.img, c.len, &ef, NULL) != 0 ||
	    sp_cfi_table_open(ef, &t) != 0)
		return 0;
	c.t = t;
	for (i = 0; i < SP_REG_COUNT; i++)
		regs.r[i] = sp_rd_u64(&cur);
	stk.data = data + cur.pos;
	stk.len = cur.err ? 0 : sp_cur_left(&cur);
	memset(&st, 0, sizeof(st));
	/* No row cache: its 1 MiB would dominate each run, and the unit
	 * and CLI tests cover it. */
	sp_unwind_dwarf(&regs, &stk, &lk, ips, 256, &res, &st);
	sp_cfi_table_free(t);
	return 0;
}
