/* SPDX-License-Identifier: MIT */
/* The leaf-frame instruction analysis on hand-assembled x86-64 code. */
#include <criterion/criterion.h>
#include <string.h>

#include "unwind/x86_64/x86_64_leaf_int.h"

#define BASE 0x401000u

struct code {
	const uint8_t *p;
	size_t len;
	unsigned reads;
};

static size_t
read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	struct code *c = ctx;
	size_t off, n;

	c->reads++;
	if (addr < BASE || addr - BASE >= c->len)
		return 0;
	off = (size_t)(addr - BASE);
	n = c->len - off < len ? c->len - off : len;
	memcpy(buf, c->p + off, n);
	return n;
}

static struct sp_leaf
at(const uint8_t *p, size_t len, size_t off)
{
	struct code c = { p, len, 0 };
	struct sp_leaf lf;

	cr_assert_eq(spi_unwind_leaf(BASE + off, read_code, &c, &lf), 0);
	cr_assert_leq(c.reads, SP_LEAF_FETCH_MAX);
	return lf;
}

static void
expect_ra(const uint8_t *p, size_t len, size_t off, int64_t ra, int bp_saved,
    int64_t bp)
{
	struct sp_leaf lf = at(p, len, off);

	cr_assert_eq(lf.kind, SP_LEAF_RA_AT, "offset %zu: kind %d", off,
	    lf.kind);
	cr_assert_eq(lf.ra_off, ra, "offset %zu: ra at %lld, want %lld", off,
	    (long long)lf.ra_off, (long long)ra);
	cr_assert_eq(lf.bp_saved, bp_saved, "offset %zu", off);
	if (bp_saved)
		cr_assert_eq(lf.bp_off, bp, "offset %zu: rbp at %lld", off,
		    (long long)lf.bp_off);
}

/* No frame pointer: pushes, sub rsp, a loop, the epilogue. */
static const uint8_t noframe[] = {
	0x53,                   /*  0 push rbx */
	0x41, 0x54,             /*  1 push r12 */
	0x48, 0x83, 0xec, 0x18, /*  3 sub rsp, 24 */
	0xb9, 0x10, 0, 0, 0,    /*  7 mov ecx, 16 */
	0xff, 0xc9,             /* 12 1: dec ecx */
	0x75, 0xfc,             /* 14 jnz 1b */
	0x48, 0x83, 0xc4, 0x18, /* 16 add rsp, 24 */
	0x41, 0x5c,             /* 20 pop r12 */
	0x5b,                   /* 22 pop rbx */
	0xc3,                   /* 23 ret */
};

Test(leaf, frameless_prologue_body_epilogue)
{
	expect_ra(noframe, sizeof(noframe), 0, 0, 0, 0);
	expect_ra(noframe, sizeof(noframe), 1, 8, 0, 0);
	expect_ra(noframe, sizeof(noframe), 3, 16, 0, 0);
	expect_ra(noframe, sizeof(noframe), 7, 40, 0, 0);
	expect_ra(noframe, sizeof(noframe), 12, 40, 0, 0);
	expect_ra(noframe, sizeof(noframe), 14, 40, 0, 0);
	expect_ra(noframe, sizeof(noframe), 16, 40, 0, 0);
	expect_ra(noframe, sizeof(noframe), 20, 16, 0, 0);
	expect_ra(noframe, sizeof(noframe), 22, 8, 0, 0);
	expect_ra(noframe, sizeof(noframe), 23, 0, 0, 0);
}

/* endbr64; push rbp; mov rbp, rsp; push rbx; sub rsp, 8; ... pop rbp. */
static const uint8_t frame[] = {
	0xf3, 0x0f, 0x1e, 0xfa, /*  0 endbr64 */
	0x55,                   /*  4 push rbp */
	0x48, 0x89, 0xe5,       /*  5 mov rbp, rsp */
	0x53,                   /*  8 push rbx */
	0x48, 0x83, 0xec, 0x08, /*  9 sub rsp, 8 */
	0x90,                   /* 13 nop */
	0x48, 0x8b, 0x5d, 0xf8, /* 14 mov rbx, [rbp - 8] */
	0xc9,                   /* 18 leave */
	0xc3,                   /* 19 ret */
};

Test(leaf, frame_pointer_prologue_and_epilogue)
{
	expect_ra(frame, sizeof(frame), 0, 0, 0, 0);
	expect_ra(frame, sizeof(frame), 4, 0, 0, 0);
	/* After push rbp: the caller's rbp is on the stack (and in rbp). */
	expect_ra(frame, sizeof(frame), 5, 8, 1, 0);
	/* Inside the frame, the path reaches `leave` with rbp set before
	 * the PC: walk the frame pointer. */
	cr_assert_eq(at(frame, sizeof(frame), 8).kind, SP_LEAF_FRAME);
	cr_assert_eq(at(frame, sizeof(frame), 13).kind, SP_LEAF_FRAME);
	cr_assert_eq(at(frame, sizeof(frame), 18).kind, SP_LEAF_FRAME);
	expect_ra(frame, sizeof(frame), 19, 0, 0, 0);
}

/* push rbp; mov rbp, rsp; ...; pop rbp; ret: pop from a known slot. */
static const uint8_t popframe[] = {
	0x55,                   /*  0 push rbp */
	0x48, 0x89, 0xe5,       /*  1 mov rbp, rsp */
	0x90,                   /*  4 nop */
	0x5d,                   /*  5 pop rbp */
	0xc3,                   /*  6 ret */
};

Test(leaf, frame_pointer_popped_slot)
{
	expect_ra(popframe, sizeof(popframe), 4, 8, 1, 0);
	expect_ra(popframe, sizeof(popframe), 5, 8, 1, 0);
	expect_ra(popframe, sizeof(popframe), 6, 0, 0, 0);
}

/* A loop whose exit is a forward branch, then a tail call through the
 * GOT after the epilogue. */
static const uint8_t tail[] = {
	0x48, 0x83, 0xec, 0x08, /*  0 sub rsp, 8 */
	0xff, 0xc9,             /*  4 1: dec ecx */
	0x74, 0x02,             /*  6 jz 2f */
	0xeb, 0xfa,             /*  8 jmp 1b */
	0x48, 0x83, 0xc4, 0x08, /* 10 2: add rsp, 8 */
	0xff, 0x25, 0, 0, 0, 0, /* 14 jmp [rip + 0] */
};

Test(leaf, loop_exit_and_tail_call)
{
	expect_ra(tail, sizeof(tail), 4, 8, 0, 0);
	expect_ra(tail, sizeof(tail), 8, 8, 0, 0);
	expect_ra(tail, sizeof(tail), 14, 0, 0, 0);
}

Test(leaf, unknown_is_bounded)
{
	static const uint8_t spin[] = { 0xeb, 0xfe };          /* jmp . */
	static const uint8_t table[] = { 0xff, 0xe0 };         /* jmp rax */
	static const uint8_t trap[] = { 0x0f, 0x0b };          /* ud2 */
	static const uint8_t junk[] = { 0x0f, 0xff, 0xff };    /* invalid */
	static const uint8_t realign[] = {
		0x48, 0x83, 0xe4, 0xf0, /* and rsp, -16 */
		0xc3,                   /* ret */
	};
	static uint8_t sled[4096];

	cr_assert_eq(at(spin, sizeof(spin), 0).kind, SP_LEAF_UNKNOWN);
	cr_assert_eq(at(table, sizeof(table), 0).kind, SP_LEAF_UNKNOWN);
	cr_assert_eq(at(trap, sizeof(trap), 0).kind, SP_LEAF_UNKNOWN);
	cr_assert_eq(at(junk, sizeof(junk), 0).kind, SP_LEAF_UNKNOWN);
	cr_assert_eq(at(realign, sizeof(realign), 0).kind, SP_LEAF_UNKNOWN);
	/* Code that ends without a return: unreadable bytes after it. */
	cr_assert_eq(at(noframe, 20, 0).kind, SP_LEAF_UNKNOWN);
	/* A long run of nops: the instruction and read bounds end it. */
	memset(sled, 0x90, sizeof(sled));
	cr_assert_eq(at(sled, sizeof(sled), 0).kind, SP_LEAF_UNKNOWN);
}
