/* SPDX-License-Identifier: MIT */
/*
 * The AArch64 leaf analysis, rule by rule, on A64 code assembled with
 * binutils (aarch64-linux-gnu-as -march=armv8.3-a; the words below are
 * objdump -d's, the source beside them), at every instruction.
 * tests/cli/a64/leaf.sh checks it against gcc's own code and CFI.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "unwind/aarch64/aarch64_leaf_int.h"
/* Built in: the host's libsp.a holds only its own architecture's
 * unwind/ folder, and this one is tested on every host. */
#include "unwind/aarch64/aarch64_leaf.c"

#define BASE 0x400000u

struct code {
	const uint32_t *w;
	size_t n;            /* words */
	size_t window;       /* most bytes a read gives, 0: as asked */
	size_t extra;        /* claim this much more than given */
	unsigned reads;
};

/* The words little-endian, as A64 code lies in memory. */
static size_t
read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	struct code *c = ctx;
	size_t i, off;

	c->reads++;
	if (addr < BASE || addr - BASE >= c->n * 4)
		return 0;
	off = (size_t)(addr - BASE);
	if (len > c->n * 4 - off)
		len = c->n * 4 - off;
	if (c->window != 0 && len > c->window)
		len = c->window;
	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(c->w[(off + i) / 4] >> ((off + i) % 4 * 8));
	return len + c->extra;
}

static struct spi_a64_leaf
run_at(struct code *c, size_t idx)
{
	struct spi_a64_leaf lf;

	memset(&lf, 0x5a, sizeof(lf));
	cr_assert_eq(spi_a64_leaf(BASE + idx * 4, read_code, c, &lf), 0);
	cr_assert_leq(c->reads, SPI_A64_FETCH_MAX);
	return lf;
}

/* One instruction's expectation: known, sp_off, ra_at, ra_off, fp_at,
 * fp_off. */
struct want {
	int known;
	int64_t sp;
	int ra_at;
	int64_t ra;
	int fp_at;
	int64_t fp;
};

static void
expect(const uint32_t *w, size_t n, size_t idx, struct want x)
{
	struct code c = { w, n, 0, 0, 0 };
	struct spi_a64_leaf lf = run_at(&c, idx);

	cr_assert_eq(lf.known, x.known, "insn %zu: known %d", idx, lf.known);
	if (!x.known) {
		/* The rest is 0, as the header says. */
		cr_assert(lf.sp_off == 0 && lf.ra_at == 0 && lf.fp_at == 0 &&
		    lf.ra_off == 0 && lf.fp_off == 0, "insn %zu", idx);
		return;
	}
	cr_assert_eq(lf.sp_off, x.sp, "insn %zu: sp+%lld, want %lld", idx,
	    (long long)lf.sp_off, (long long)x.sp);
	cr_assert_eq(lf.ra_at, x.ra_at, "insn %zu: ra_at %d", idx, lf.ra_at);
	cr_assert_eq(lf.fp_at, x.fp_at, "insn %zu: fp_at %d", idx, lf.fp_at);
	if (x.ra_at)
		cr_assert_eq(lf.ra_off, x.ra, "insn %zu: ra at %lld", idx,
		    (long long)lf.ra_off);
	if (x.fp_at)
		cr_assert_eq(lf.fp_off, x.fp, "insn %zu: fp at %lld", idx,
		    (long long)lf.fp_off);
}

#define EXPECT_ALL(w, table) do {                                     \
	size_t i_;                                                    \
	cr_assert_eq(sizeof(w) / 4, sizeof(table) / sizeof(table[0])); \
	for (i_ = 0; i_ < sizeof(w) / 4; i_++)                        \
		expect(w, sizeof(w) / 4, i_, table[i_]);              \
} while (0)

static const struct want REGS = { 1, 0, 0, 0, 0, 0 };  /* nothing moved */
static const struct want UNKNOWN = { 0, 0, 0, 0, 0, 0 };

/* gcc's frame record with -mbranch-protection=standard. */
static const uint32_t frame[] = {
	0xd503233f, /* paciasp */
	0xa9be7bfd, /* stp x29, x30, [sp, #-32]! */
	0x910003fd, /* mov x29, sp */
	0xf9000bf3, /* str x19, [sp, #16] */
	0x97fffffc, /* bl frame */
	0xf9400bf3, /* ldr x19, [sp, #16] */
	0xa8c27bfd, /* ldp x29, x30, [sp], #32 */
	0xd50323bf, /* autiasp */
	0xd65f03c0, /* ret */
};

Test(leaf_a64, frame_record_pre_and_post_index)
{
	const struct want in = { 1, 32, 1, 8, 1, 0 };
	const struct want t[] = { REGS, REGS, in, in, in, in, in, REGS, REGS };

	EXPECT_ALL(frame, t);
}

/* A frame over 4 KiB: sub sp with lsl #12, the record at [sp, #16]. */
static const uint32_t big[] = {
	0xd14007ff, /* sub sp, sp, #0x1, lsl #12 */
	0xd10083ff, /* sub sp, sp, #0x20 */
	0xa9017bfd, /* stp x29, x30, [sp, #16] */
	0x910043fd, /* add x29, sp, #0x10 */
	0x97fffffc, /* bl big */
	0xa9417bfd, /* ldp x29, x30, [sp, #16] */
	0x910083ff, /* add sp, sp, #0x20 */
	0x914007ff, /* add sp, sp, #0x1, lsl #12 */
	0xd65f03c0, /* ret */
};

Test(leaf_a64, large_frame_offset_forms)
{
	const struct want in = { 1, 4128, 1, 24, 1, 16 };
	const struct want t[] = {
		REGS, { 1, 4096, 0, 0, 0, 0 }, { 1, 4128, 0, 0, 0, 0 },
		in, in, in,
		{ 1, 4128, 0, 0, 0, 0 }, { 1, 4096, 0, 0, 0, 0 }, REGS,
	};

	EXPECT_ALL(big, t);
}

/* Only x30 saved: str pre-index, ldr post-index. */
static const uint32_t lronly[] = {
	0xf81f0ffe, /* str x30, [sp, #-16]! */
	0x97ffffff, /* bl lronly */
	0xf84107fe, /* ldr x30, [sp], #16 */
	0xd65f03c0, /* ret */
};

Test(leaf_a64, lr_only_writeback)
{
	const struct want in = { 1, 16, 1, 0, 0, 0 };
	const struct want t[] = { REGS, in, in, REGS };

	EXPECT_ALL(lronly, t);
}

/* sp restored from x29: known when x29 was set on the path, else the
 * frame-pointer chain's business (known 0). */
static const uint32_t fpsp[] = {
	0xa9bf7bfd, /* stp x29, x30, [sp, #-16]! */
	0x910003fd, /* mov x29, sp */
	0xd100c3ff, /* sub sp, sp, #0x30 */
	0x910003bf, /* mov sp, x29 */
	0xa8c17bfd, /* ldp x29, x30, [sp], #16 */
	0xd65f0fff, /* retab */
};

Test(leaf_a64, sp_from_x29)
{
	const struct want in = { 1, 16, 1, 8, 1, 0 };
	const struct want t[] = { REGS, in, UNKNOWN, UNKNOWN, in, REGS };

	EXPECT_ALL(fpsp, t);
}

/* A call with x30 never saved: that path has no answer, the branch
 * around it has. */
static const uint32_t nosave[] = {
	0xb4000040, /* cbz x0, 1f */
	0x97ffffff, /* bl nosave */
	0xd65f03c0, /* 1: ret */
};

Test(leaf_a64, call_without_save)
{
	const struct want t[] = { REGS, UNKNOWN, REGS };

	EXPECT_ALL(nosave, t);
}

/* Tail calls: to unreadable code (the state past the frame's release
 * answers), to a readable function (followed to its ret), to the PLT
 * (br x17 ends it). */
static const uint32_t tails[] = {
	0xa9bf7bfd, /*  0 stp x29, x30, [sp, #-16]! */
	0xa8c17bfd, /*  1 ldp x29, x30, [sp], #16 */
	0x14040000, /*  2 b 0x100000 (unreadable) */
	0xa9bf7bfd, /*  3 stp x29, x30, [sp, #-16]! */
	0xa8c17bfd, /*  4 ldp x29, x30, [sp], #16 */
	0x14000001, /*  5 b 6 */
	0xa9bf7bfd, /*  6 stp x29, x30, [sp, #-16]! */
	0x910003fd, /*  7 mov x29, sp */
	0x94000000, /*  8 bl . */
	0xa8c17bfd, /*  9 ldp x29, x30, [sp], #16 */
	0xd65f03c0, /* 10 ret */
	0x90000010, /* 11 adrp x16, . */
	0xf9400611, /* 12 ldr x17, [x16, #8] */
	0x91002210, /* 13 add x16, x16, #0x8 */
	0xd61f0220, /* 14 br x17 */
};

Test(leaf_a64, tail_calls)
{
	const struct want out = { 1, 16, 1, 8, 1, 0 };
	const struct want t[] = {
		UNKNOWN, out, UNKNOWN,  /* nothing released before that b */
		REGS, out, REGS,        /* the callee followed */
		REGS, out, out, out, REGS,
		REGS, REGS, REGS, REGS, /* the PLT */
	};

	EXPECT_ALL(tails, t);
}

/* A jump table's br is a dead end; the bounds check's branch is not. */
static const uint32_t jt[] = {
	0x71000c1f, /* cmp w0, #0x3 */
	0x54000068, /* b.hi 1f */
	0x10ffffc1, /* adr x1, jt */
	0xd61f0020, /* br x1 */
	0xd65f0bff, /* 1: retaa */
};

Test(leaf_a64, jump_table)
{
	const struct want t[] = { REGS, REGS, UNKNOWN, UNKNOWN, REGS };

	EXPECT_ALL(jt, t);
}

Test(leaf_a64, writes_not_modelled)
{
	static const uint32_t badsp[] = {
		0x9100001f, /* mov sp, x0 */
		0xd65f03c0, /* ret */
	};
	static const uint32_t realign[] = {
		0x927cec1f, /* and sp, x0, #0xfffffffffffffff0 */
		0xd65f03c0, /* ret */
	};
	static const uint32_t clob[] = {
		0xaa0003fd, /* mov x29, x0 */
		0xd65f03c0, /* ret */
	};
	static const uint32_t lrclob[] = {
		0xaa0003fe, /* mov x30, x0 */
		0xd65f03c0, /* ret */
	};
	static const uint32_t ret_x1[] = {
		0xd65f0020, /* ret x1 */
	};
	const struct want t[] = { UNKNOWN, REGS };

	EXPECT_ALL(badsp, t);
	EXPECT_ALL(realign, t);
	EXPECT_ALL(clob, t);
	EXPECT_ALL(lrclob, t);
	expect(ret_x1, 1, 0, UNKNOWN);
}

/* gcc -O0's frame over 4 KiB: sp moved by a constant in x12. */
static const uint32_t konst[] = {
	0xd282f20c, /* mov x12, #0x1790 */
	0xcb2c63ff, /* sub sp, sp, x12 */
	0x8b2c63ff, /* add sp, sp, x12 */
	0xd65f03c0, /* ret */
};

Test(leaf_a64, sp_by_constant_register)
{
	/* From the mov: known; after it, x12 was set before the pc. */
	const struct want t[] = { REGS, UNKNOWN, UNKNOWN, REGS };

	EXPECT_ALL(konst, t);
}

Test(leaf_a64, system_simd_and_traps)
{
	static const uint32_t sys[] = {
		0xd4000001, /* svc #0: returns to the next instruction */
		0xb13ffc1f, /* cmn x0, #0xfff */
		0xd503241f, /* bti */
		0xd503201f, /* nop */
		0xd65f03c0, /* ret */
	};
	static const uint32_t dsave[] = {
		0x6dbf27e8, /* stp d8, d9, [sp, #-16]! */
		0x6cc127e8, /* ldp d8, d9, [sp], #16 */
		0xd65f03c0, /* ret */
	};
	static const uint32_t trap[] = {
		0xd4207d00, /* brk #0x3e8 */
		0xd65f03c0, /* ret */
	};
	static const uint32_t udf[] = {
		0x00000000, /* udf #0 */
		0xd65f03c0, /* ret */
	};
	const struct want t_sys[] = { REGS, REGS, REGS, REGS, REGS };
	const struct want t_dsave[] = { REGS, { 1, 16, 0, 0, 0, 0 }, REGS };
	const struct want t_trap[] = { UNKNOWN, REGS };

	EXPECT_ALL(sys, t_sys);
	EXPECT_ALL(dsave, t_dsave);
	EXPECT_ALL(trap, t_trap);
	EXPECT_ALL(udf, t_trap);
}

Test(leaf_a64, bounded_whatever_the_code)
{
	static const uint32_t spin[] = { 0x14000000 };   /* b . */
	static uint32_t sled[2048];
	static uint32_t hops[128];
	struct code c;
	size_t i;

	expect(spin, 1, 0, UNKNOWN);
	/* A pc not 4-aligned reads nothing. */
	c = (struct code){ frame, 9, 0, 0, 0 };
	cr_assert_eq(run_at(&c, 0).known, 1);
	c.reads = 0;
	{
		struct spi_a64_leaf lf;

		spi_a64_leaf(BASE + 2, read_code, &c, &lf);
		cr_assert_eq(lf.known, 0);
		cr_assert_eq(c.reads, 0);
	}
	/* nops to a ret: within SPI_A64_INSNS_MAX known, beyond not. */
	for (i = 0; i < 2048; i++)
		sled[i] = 0xd503201f;
	sled[SPI_A64_INSNS_MAX - 1] = 0xd65f03c0;
	expect(sled, 2048, 0, REGS);
	sled[SPI_A64_INSNS_MAX - 1] = 0xd503201f;
	sled[SPI_A64_INSNS_MAX] = 0xd65f03c0;
	expect(sled, 2048, 0, UNKNOWN);
	/* b to the next window, again and again: SPI_A64_FETCH_MAX reads. */
	for (i = 0; i < 128; i++)
		hops[i] = i % 8 == 0 ? 0x14000008 : 0xd503201f;  /* b +32 */
	hops[8 * (SPI_A64_FETCH_MAX - 1)] = 0xd65f03c0;
	c = (struct code){ hops, 128, 32, 0, 0 };
	cr_assert_eq(run_at(&c, 0).known, 1);
	cr_assert_eq(c.reads, SPI_A64_FETCH_MAX);
	hops[8 * (SPI_A64_FETCH_MAX - 1)] = 0x14000008;
	hops[8 * SPI_A64_FETCH_MAX] = 0xd65f03c0;
	c = (struct code){ hops, 128, 32, 0, 0 };
	cr_assert_eq(run_at(&c, 0).known, 0);
	/* Reads of a few bytes each still decode whole instructions. */
	c = (struct code){ frame, 9, 6, 0, 0 };
	cr_assert_eq(run_at(&c, 6).known, 1);
	/* A read that claims more than it was asked for gives nothing. */
	c = (struct code){ frame, 9, 0, SPI_A64_WINDOW, 0 };
	cr_assert_eq(run_at(&c, 0).known, 0);
}
