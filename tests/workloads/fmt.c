/* SPDX-License-Identifier: MIT */
/*
 * Time in libc's formatted output, for the unwinder's tests: linked
 * statically with musl, whose libc.a has neither CFI nor frame pointers,
 * most samples land in vfprintf, printf_core, fmt_fp or the string sink,
 * where a walk can only guess.  It must not pass a guess off as a whole
 * stack: a stack is whole when it reaches main's caller, and every other
 * one is marked truncated.
 *
 *   main -> format -> snprintf -> vfprintf -> ...
 *
 * usage: fmt [MILLISECONDS] (default 1000) of the process's CPU time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned sink;

__attribute__((noinline)) void format(void);

void
format(void)
{
	char buf[256];
	int i;

	for (i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "%d %s %.3f %x %20s", i, "abc",
		    i * 1.5, (unsigned)i, "right");
		sink += (unsigned char)buf[3];
	}
	__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	clock_t end = clock() + (clock_t)(argc > 1 ?
	    strtol(argv[1], NULL, 10) : 1000) * (CLOCKS_PER_SEC / 1000);

	while (clock() < end)
		format();
	return 0;
}
