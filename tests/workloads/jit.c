/* SPDX-License-Identifier: MIT */
/*
 * A miniature JIT: writes a spin loop into anonymous executable memory,
 * announces it in /tmp/perf-PID.map as perf's JIT interface does
 * ("START SIZE NAME", hex), and runs it.
 * usage: jit [MILLISECONDS] (default 500), then 50 ms in plain code.
 * Prints "jit=0xADDR".
 *
 * jit MILLISECONDS call: the JIT code is a caller instead, as a JIT's
 * compiled method is that calls into its runtime: it keeps no frame
 * pointer (rbp holds data, 1), moves rsp by a register, and has a frame
 * of 1 KiB of zeros, larger than the recorder's stack scan looks through,
 * before it calls native_work: its frame cannot be unwound.  The samples
 * are in native_work, and the walk ends in the JIT's frame.
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

static volatile unsigned long sink;

/* What the JIT code calls: about a millisecond of work. */
__attribute__((noinline)) static void
native_work(void)
{
	for (long i = 0; i < 1000000; i++)
		sink += (unsigned long)i;
}

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500;
	int call = argc > 2 && strcmp(argv[2], "call") == 0;
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
	end = seconds() + (double)ms / 1000.0;
	while (seconds() < end) {
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
