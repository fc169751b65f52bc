/* SPDX-License-Identifier: MIT */
/*
 * Functions of every binding, with aliases, for the symbol index and
 * debug-file tests (tests/unit/elfsym.c).  Built -O2 -g; the tests read
 * the expected names with nm, never from this file.  Runs and exits 0.
 */
#include <stdio.h>

#define KEEP __attribute__((noinline, noclone, used))

static volatile int sink;

/* STB_LOCAL */
static KEEP int
local_add(int a)
{
	return a + sink + 1;
}

/* STB_GLOBAL, with aliases of every kind at its address */
KEEP int global_mul(int a);
KEEP int
global_mul(int a)
{
	return a * (sink + 3);
}
int alias_global_longer(int) __attribute__((alias("global_mul")));
int __under_alias(int) __attribute__((alias("global_mul")));
__attribute__((weak)) int weak_alias(int) __attribute__((alias("global_mul")));

/* STB_WEAK, with a local alias, which it wins over */
KEEP __attribute__((weak)) int weak_sub(int a);
KEEP __attribute__((weak)) int
weak_sub(int a)
{
	return a - sink - 5;
}
static int local_alias_of_weak(int) __attribute__((alias("weak_sub"), used));

/* A local with a weak alias: the weak name wins */
static KEEP int
local_xor(int a)
{
	return a ^ (sink + 7);
}
__attribute__((weak)) int wxor(int) __attribute__((alias("local_xor")));

/* Two globals alike but for their letters: strcmp decides */
KEEP int bbb_same(int a);
KEEP int
bbb_same(int a)
{
	return a + 2 * sink + 11;
}
int aaa_same(int) __attribute__((alias("bbb_same")));

/* Leading underscores lose even against a longer name */
KEEP int __two_under(int a);
KEEP int
__two_under(int a)
{
	return a + 3 * sink + 13;
}
int one_plain_but_much_longer(int) __attribute__((alias("__two_under")));

/* An IFUNC: its symbol's value is the resolver's address */
static int
ifunc_impl(int a)
{
	return a + 4 * sink + 17;
}
static KEEP int (*resolve_pick(void))(int)
{
	return ifunc_impl;
}
int picked(int) __attribute__((ifunc("resolve_pick")));

/* An assembler label: STT_NOTYPE, size 0, in .text; and one in .data,
 * which is no function. */
__asm__(".text\n"
    ".globl notype_fn\n"
    "notype_fn:\n"
    "\tleal 19(%rdi), %eax\n"
    "\tret\n"
    ".data\n"
    ".globl notype_data\n"
    "notype_data:\n"
    "\t.quad 0\n"
    ".text\n");
int notype_fn(int);

int
main(void)
{
	int v = 0;

	v += local_add(1) + global_mul(2) + alias_global_longer(3);
	v += __under_alias(4) + weak_alias(5) + weak_sub(6);
	v += local_alias_of_weak(7) + local_xor(8) + wxor(9);
	v += bbb_same(10) + aaa_same(11) + __two_under(12);
	v += one_plain_but_much_longer(13) + picked(14) + notype_fn(15);
	printf("%d\n", v);
	return 0;
}
