/* SPDX-License-Identifier: MIT */
/*
 * Return addresses that follow no call of their own function, for the
 * names sp-sym gives callers' frames (issue 28.6).  ends_in_call ends
 * with a call: its return address is next_fn's first byte, and the frame
 * is ends_in_call's.  pushed_root pushes target_fn's address, as a
 * runtime does at a stack's root, and jumps to spin: the frame above
 * spin is target_fn's first byte, after padding that no symbol covers.
 * usage: pushed MILLISECONDS (of CPU time, each half spent in spin by
 * one of the two ways).
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

void spin(long ms);
void ends_in_call(long ms);
void pushed_root(long ms);

__attribute__((noinline)) void
spin(long ms)
{
	struct timespec ts;
	long end;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	end = ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + ms;
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 < end);
}

/* x86-64 psABI: the argument stays in %rdi.  ends_in_call's call returns
 * into next_fn, whose ret returns from ends_in_call; target_fn's, from
 * pushed_root.  pushed_root's one-byte tail (int3, never run) leaves 14
 * bytes of padding before the aligned target_fn. */
__asm__(
	".text\n"
	".globl ends_in_call\n"
	".type ends_in_call, @function\n"
	".p2align 4\n"
	"ends_in_call:\n"
	".cfi_startproc\n"
	"	call spin\n"
	".cfi_endproc\n"
	".size ends_in_call, .-ends_in_call\n"
	".globl next_fn\n"
	".type next_fn, @function\n"
	"next_fn:\n"
	".cfi_startproc\n"
	"	ret\n"
	".cfi_endproc\n"
	".size next_fn, .-next_fn\n"
	".globl pushed_root\n"
	".type pushed_root, @function\n"
	".p2align 4\n"
	"pushed_root:\n"
	".cfi_startproc\n"
	"	lea target_fn(%rip), %rax\n"
	"	push %rax\n"
	".cfi_adjust_cfa_offset 8\n"
	"	jmp spin\n"
	"	int3\n"
	".cfi_endproc\n"
	".size pushed_root, .-pushed_root\n"
	".globl target_fn\n"
	".type target_fn, @function\n"
	".p2align 4\n"
	"target_fn:\n"
	".cfi_startproc\n"
	"	ret\n"
	".cfi_endproc\n"
	".size target_fn, .-target_fn\n");

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;

	ends_in_call(ms / 2);
	pushed_root(ms / 2);
	return 0;
}
