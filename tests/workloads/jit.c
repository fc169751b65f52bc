/* SPDX-License-Identifier: MIT */
/*
 * A miniature JIT: writes a spin loop into anonymous executable memory,
 * announces it in /tmp/perf-PID.map as perf's JIT interface does
 * ("START SIZE NAME", hex), and runs it.
 * usage: jit [MILLISECONDS] (default 500, of its CPU time), then 50 ms of
 * the clock in plain code.
 * Prints "jit=0xADDR".
 *
 * jit MILLISECONDS call: the JIT code is a caller instead, as a JIT's
 * compiled method is that calls into its runtime: it keeps no frame
 * pointer (rbp holds data, 1), moves rsp by a register, and has a frame
 * of 1 KiB of zeros, larger than the recorder's stack scan looks through,
 * before it calls native_work: its frame cannot be unwound.  The samples
 * are in native_work, and the walk ends in the JIT's frame.
 *
 * jit MILLISECONDS swap: the JIT replaces its code in place, as a JIT
 * reuses its code space, every 500 ms: one of two spin loops written at
 * the same address, with frames of different sizes (swap_a saves three
 * registers, swap_b has 0x58 bytes of locals), so the return address of
 * a sample in the loop, at the same pcs in both, is at rsp + 24 or
 * rsp + 0x58.  The perf map names
 * the address once.  Every sample's walk reaches main only if the
 * recorder analyses the code that ran, not a memory of the code before.
 */
#include <stdlib.h>
#include <string.h>

#include "jitcode.h"

/*
 * push rbp; push r12; push rbx; mov r12, rsp; mov rbx, rdi;
 * sub rsp, 0x400; mov rdi, rsp; xor eax, eax; mov ecx, 0x80; rep stosq;
 * mov ebp, 1; call rbx; mov rsp, r12; pop rbx; pop r12; pop rbp; ret
 */
static const unsigned char jit_caller[] = {
	0x55, 0x41, 0x54, 0x53, 0x49, 0x89, 0xe4, 0x48, 0x89, 0xfb,
	0x48, 0x81, 0xec, 0x00, 0x04, 0x00, 0x00, 0x48, 0x89, 0xe7,
	0x31, 0xc0, 0xb9, 0x80, 0x00, 0x00, 0x00, 0xf3, 0x48, 0xab,
	0xbd, 0x01, 0x00, 0x00, 0x00, 0xff, 0xd3, 0x4c, 0x89, 0xe4,
	0x5b, 0x41, 0x5c, 0x5d, 0xc3,
};

/* push rbx; push r12; push r13; mov ecx, 1000000; 1: dec ecx; jnz 1b;
 * pop r13; pop r12; pop rbx; ret */
static const unsigned char swap_a[] = {
	0x53, 0x41, 0x54, 0x41, 0x55, 0xb9, 0x40, 0x42, 0x0f, 0x00,
	0xff, 0xc9, 0x75, 0xfc, 0x41, 0x5d, 0x41, 0x5c, 0x5b, 0xc3,
};

/* nop; sub rsp, 0x58; mov ecx, 1000000; 1: dec ecx; jnz 1b;
 * add rsp, 0x58; ret (its loop at swap_a's) */
static const unsigned char swap_b[] = {
	0x90, 0x48, 0x83, 0xec, 0x58, 0xb9, 0x40, 0x42, 0x0f, 0x00,
	0xff, 0xc9, 0x75, 0xfc, 0x48, 0x83, 0xc4, 0x58, 0xc3,
};

static volatile unsigned long sink;

/* What the JIT code calls: about a millisecond of work. */
__attribute__((noinline)) static void
native_work(void)
{
	for (long i = 0; i < 1000000; i++)
		sink += (unsigned long)i;
}

/* One round of the swap mode: the loop of round n written at mem, run
 * for 500 ms; then 300 ms in plain code. */
static void
swap_round(unsigned char *mem, unsigned n)
{
	void (*fn)(void) = (void (*)(void))(void *)mem;
	double end;

	memset(mem, 0xcc, JIT_STRIDE);
	if (n % 2)
		memcpy(mem, swap_b, sizeof(swap_b));
	else
		memcpy(mem, swap_a, sizeof(swap_a));
	end = seconds() + 0.5;
	while (seconds() < end)
		fn();
	end = seconds() + 0.3;
	while (seconds() < end)
		native_work();
}

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500;
	int call = argc > 2 && strcmp(argv[2], "call") == 0;
	int swap = argc > 2 && strcmp(argv[2], "swap") == 0;
	unsigned swaps = 0;
	unsigned char *mem;
	void (*fn)(void);
	void (*caller)(void (*)(void));
	double end;
	FILE *map;

	if ((mem = jit_page(1)) == NULL || (map = perf_map_create()) == NULL)
		return 1;
	memcpy(mem + JIT_STRIDE, jit_caller, sizeof(jit_caller));
	fprintf(map, "%lx %zx jit_spin_loop\n", (unsigned long)mem,
	    sizeof(jit_code));
	fprintf(map, "%lx %zx jit_caller\n", (unsigned long)mem + JIT_STRIDE,
	    sizeof(jit_caller));
	fclose(map);
	printf("jit=%p\n", (void *)mem);
	fflush(stdout);
	fn = (void (*)(void))(void *)mem;
	caller = (void (*)(void (*)(void)))(void *)(mem + JIT_STRIDE);
	/* MILLISECONDS of its CPU time: a loaded machine still gives the
	 * samples a test needs (500 ms of the clock gave 44 of them). */
	end = cpu_seconds() + (double)ms / 1000.0;
	while (cpu_seconds() < end) {
		if (swap) {
			swap_round(mem, swaps++);
			continue;
		}
		if (call)
			caller(native_work);
		else
			fn();
	}
	/* Stay alive a little in ordinary code: the recorder reads the JIT
	 * code of samples still in its rings while the process exists. */
	end = seconds() + 0.05;
	while (seconds() < end)
		;
	return 0;
}
