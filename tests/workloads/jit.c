/* SPDX-License-Identifier: MIT */
/*
 * A miniature JIT: writes a spin loop into anonymous executable memory,
 * announces it in /tmp/perf-PID.map as perf's JIT interface does
 * ("START SIZE NAME", hex), and runs it.
 * usage: jit [MILLISECONDS] (default 500), then 50 ms in plain code.
 * Prints "jit=0xADDR".
 */
#include <stdlib.h>

#include "jitcode.h"

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500;
	unsigned char *mem;
	void (*fn)(void);
	double end;
	FILE *map;

	if ((mem = jit_page(1)) == NULL || (map = perf_map_create()) == NULL)
		return 1;
	fprintf(map, "%lx %zx jit_spin_loop\n", (unsigned long)mem,
	    sizeof(jit_code));
	fclose(map);
	printf("jit=%p\n", (void *)mem);
	fflush(stdout);
	fn = (void (*)(void))(void *)mem;
	end = seconds() + (double)ms / 1000.0;
	while (seconds() < end)
		fn();
	/* Stay alive a little in ordinary code: the recorder reads the JIT
	 * code of samples still in its rings while the process exists. */
	end = seconds() + 0.05;
	while (seconds() < end)
		;
	return 0;
}
