/* SPDX-License-Identifier: MIT */
/* The leaf memo (libsp/unwind/leaf_memo.c): an analysis served again
 * only under its epoch, and only while the code at its pc is unchanged. */
#include <criterion/criterion.h>
#include <string.h>

#include "unwind/walk_int.h"

/* The "process": 64 bytes of code at 0x1000. */
static uint8_t code[64];

static size_t
read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	(void)ctx;
	if (addr < 0x1000 || addr - 0x1000 >= sizeof(code))
		return 0;
	if (len > sizeof(code) - (addr - 0x1000))
		len = sizeof(code) - (addr - 0x1000);
	memcpy(buf, code + (addr - 0x1000), len);
	return len;
}

/* find, and after a miss keep v: the value found, or -1 on a miss. */
static long
find_keep(struct sp_unwind_lookup *lk, uint64_t pc, long v,
    struct sp_unwind_stats *st)
{
	struct spi_leaf_key key;
	long got;

	if (spi_leaf_memo_find(lk, pc, &key, &got, sizeof(got), st) == 0)
		return got;
	spi_leaf_memo_keep(lk, &key, &v, sizeof(v));
	return -1;
}

/* A lookup with a new memo at epoch, over code of nops, and no stats. */
static void
setup(struct sp_unwind_lookup *lk, uint64_t epoch,
    struct sp_unwind_stats *st)
{
	memset(lk, 0, sizeof(*lk));
	lk->read_code = read_code;
	lk->epoch = epoch;
	lk->memo = spi_leaf_memo_new();
	cr_assert_not_null(lk->memo);
	memset(st, 0, sizeof(*st));
	memset(code, 0x90, sizeof(code));
}

Test(leaf_memo, serves_an_analysis_while_epoch_and_code_hold)
{
	struct sp_unwind_lookup lk;
	struct sp_unwind_stats st;

	setup(&lk, 7, &st);
	cr_expect_eq(find_keep(&lk, 0x1010, 24, &st), -1);
	cr_expect_eq(find_keep(&lk, 0x1010, 99, &st), 24);
	cr_expect_eq(st.leaf_memo_hits, 1);
	/* Another pc is another analysis. */
	cr_expect_eq(find_keep(&lk, 0x1011, 40, &st), -1);
	cr_expect_eq(find_keep(&lk, 0x1010, 99, &st), 24);
	/* A new epoch (the process's mappings changed): analysed again. */
	lk.epoch = 8;
	cr_expect_eq(find_keep(&lk, 0x1010, 88, &st), -1);
	cr_expect_eq(find_keep(&lk, 0x1010, 99, &st), 88);
	/* Code rewritten in place, within the 16 bytes at pc: again. */
	code[0x10 + SPI_LEAF_MEMO_CODE - 1] = 0xc3;
	cr_expect_eq(find_keep(&lk, 0x1010, 16, &st), -1);
	cr_expect_eq(find_keep(&lk, 0x1010, 99, &st), 16);
	cr_expect_eq(st.leaf_memo_hits, 4);
	spi_leaf_memo_free(lk.memo);
}

Test(leaf_memo, keeps_nothing_it_cannot_check)
{
	struct sp_unwind_lookup lk;
	struct sp_unwind_stats st;

	setup(&lk, 0, &st);
	/* Epoch 0: no memo. */
	cr_expect_eq(find_keep(&lk, 0x1010, 24, &st), -1);
	cr_expect_eq(find_keep(&lk, 0x1010, 24, &st), -1);
	/* Fewer than 16 code bytes readable at pc: none kept. */
	lk.epoch = 3;
	cr_expect_eq(find_keep(&lk, 0x1038, 24, &st), -1);
	cr_expect_eq(find_keep(&lk, 0x1038, 24, &st), -1);
	spi_leaf_memo_free(lk.memo);
	/* No memo at all. */
	lk.memo = NULL;
	cr_expect_eq(find_keep(&lk, 0x1010, 24, &st), -1);
	cr_expect_eq(st.leaf_memo_hits, 0);
}
