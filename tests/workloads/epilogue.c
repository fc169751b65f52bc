/* SPDX-License-Identifier: MIT */
/*
 * Spends its time in the prologue and epilogue of a function that saves
 * all six callee-saved registers and does almost nothing else, so that
 * many samples interrupt it between pushes or between pops: the
 * unwinder's rows there change at every instruction, and in the
 * epilogue the save slots of registers already popped lie below the
 * stack pointer, outside the copied stack.
 *   main -> saver_loop -> saver
 * usage: epilogue [MILLISECONDS] (default 1000, of CPU time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) unsigned long saver(unsigned long x);
__attribute__((noinline)) unsigned long saver_loop(long ms);

static long
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

unsigned long
saver(unsigned long x)
{
	/* Claims every callee-saved register: the compiler saves them. */
	__asm__ volatile("" : "+r"(x) :: "rbx", "rbp", "r12", "r13", "r14",
	    "r15");
	return x + 1;
}

unsigned long
saver_loop(long ms)
{
	unsigned long x = 0;
	long end = cpu_ms() + ms;
	int i;

	while (cpu_ms() < end)
		for (i = 0; i < 100000; i++)
			x = saver(x);
	NO_TAIL_CALL();
	return x;
}

int
main(int argc, char **argv)
{
	unsigned long x = saver_loop(argc > 1 ? strtol(argv[1], NULL, 10) : 1000);

	fprintf(stderr, "calls=%lu cpu_ms=%ld\n", x, cpu_ms());
	return 0;
}
