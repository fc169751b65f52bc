/* SPDX-License-Identifier: MIT */
/*
 * A function entered the way glibc's arm64 _dl_runtime_resolve is: a stub
 * pushes 16 bytes and jumps into it, and its CFI takes the CFA to be the
 * stack pointer after that push, with the return address saved at
 * CFA + 16, above it (dl-trampoline.S says x30 is at CFA + 8 and adds
 * nothing for the PLT's "stp x16, x30, [sp, #-16]!").  The caller's stack
 * pointer is past that slot, not the CFA: a walk that takes the CFA reads
 * the caller's frame 16 bytes low.  x86-64 only (elsewhere it says so and
 * exits 2).
 *
 *   main -> outer -> stub (pushes 16 bytes, jumps) -> resolve (spins)
 *
 * usage: pltpush [ROUNDS] (default 2000): each round spins 1,000,000 times
 * in resolve.  Prints cpu_ms=N on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__)
void stub(long n);

__asm__(
    ".text\n"
    ".globl stub\n"
    ".type stub, @function\n"
    "stub:\n"
    "	push %rax\n"
    "	push %rax\n"
    "	jmp resolve\n"
    ".size stub, .-stub\n"
    ".globl resolve\n"
    ".type resolve, @function\n"
    "resolve:\n"
    "	.cfi_startproc\n"
    "	.cfi_def_cfa %rsp, 0\n"
    "	.cfi_offset %rip, 16\n"
    "	mov %rdi, %rcx\n"
    "1:	dec %rcx\n"
    "	jnz 1b\n"
    "	add $16, %rsp\n"
    "	.cfi_def_cfa_offset -16\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size resolve, .-resolve\n");

static volatile long sink;

/* Its CFA is its stack pointer's (-fomit-frame-pointer): a caller's
 * stack pointer 16 bytes low reads a wrong return address. */
__attribute__((noinline)) static void
outer(long rounds)
{
	long i;

	for (i = 0; i < rounds; i++) {
		stub(1000000);
		sink += i;
	}
}

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	struct timespec t;

	outer(rounds);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	fprintf(stderr, "cpu_ms=%ld\n", (long)t.tv_sec * 1000 +
	    t.tv_nsec / 1000000);
	return 0;
}
#else
int
main(void)
{
	fputs("pltpush: x86-64 only\n", stderr);
	return 2;
}
#endif
