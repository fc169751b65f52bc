/* SPDX-License-Identifier: MIT */
/*
 * Leaf functions in hand-written assembly without any CFI (no .cfi_*
 * directives, so no FDE covers them): one without a frame pointer, one
 * with.  They are short and called in a loop, so samples land in their
 * prologues and epilogues as well as in their bodies; only instruction
 * analysis unwinds those into the C callers.
 * usage: asmleaf [ROUNDS] (default 3000).  Prints cpu_ms=N on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void leaf_noframe(void);
void leaf_frame(void);

__asm__(
    ".text\n"
    ".globl leaf_noframe\n"
    ".type leaf_noframe, @function\n"
    "leaf_noframe:\n"
    "	push %rbx\n"
    "	push %r12\n"
    "	sub $24, %rsp\n"
    "	mov $3, %ecx\n"
    "1:	dec %ecx\n"
    "	jnz 1b\n"
    "	add $24, %rsp\n"
    "	pop %r12\n"
    "	pop %rbx\n"
    "	ret\n"
    ".size leaf_noframe, .-leaf_noframe\n"
    ".globl leaf_frame\n"
    ".type leaf_frame, @function\n"
    "leaf_frame:\n"
    "	push %rbp\n"
    "	mov %rsp, %rbp\n"
    "	push %rbx\n"
    "	sub $8, %rsp\n"
    "	mov $12, %ecx\n"
    "1:	dec %ecx\n"
    "	jnz 1b\n"
    "	add $8, %rsp\n"
    "	pop %rbx\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size leaf_frame, .-leaf_frame\n");

/* The empty asm keeps the calls from becoming tail jumps. */
__attribute__((noinline)) static void
call_noframe(long n)
{
	long i;

	for (i = 0; i < n; i++)
		leaf_noframe();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void
call_frame(long n)
{
	long i;

	for (i = 0; i < n; i++)
		leaf_frame();
	__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 3000, r;
	struct timespec ts;

	for (r = 0; r < rounds; r++) {
		call_noframe(1000);
		call_frame(1000);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	fprintf(stderr, "cpu_ms=%ld\n", ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	return 0;
}
