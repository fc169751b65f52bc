/* SPDX-License-Identifier: MIT */
/*
 * A fake Python runtime for sp-sym's tests: run as .../python3.12, the
 * recorder marks it a Python runtime.  Like CPython 3.12 with -X perf, it
 * writes a trampoline per "Python function" into anonymous executable
 * memory and names it in /tmp/perf-PID.map as "py::FUNC:FILE"; its own
 * eval loop, named as CPython's, runs them.
 * usage: python3.12 [MILLISECONDS] (default 500).  Prints "fakepy=0xADDR".
 */
#include <stdlib.h>

#include "jitcode.h"

/* Named as CPython's eval loop, so sp-sym hides it; spins a little too,
 * so that it is sampled as a leaf. */
void _PyEval_EvalFrameDefault(void (*fn)(void));

void __attribute__((noinline))
_PyEval_EvalFrameDefault(void (*fn)(void))
{
	volatile unsigned i;

	for (i = 0; i < 300000; i++)
		continue;
	fn();
}

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500;
	unsigned char *mem;
	double end;
	FILE *map;

	if ((mem = jit_page(2)) == NULL || (map = perf_map_create()) == NULL)
		return 1;
	fprintf(map, "%lx %zx py::compute:/srv/app/calc.py\n",
	    (unsigned long)mem, sizeof(jit_code));
	fprintf(map, "%lx %zx py::Loop.run:/srv/app/main.py\n",
	    (unsigned long)(mem + JIT_STRIDE), sizeof(jit_code));
	fclose(map);
	printf("fakepy=%p\n", (void *)mem);
	fflush(stdout);
	end = seconds() + (double)ms / 1000.0;
	while (seconds() < end) {
		_PyEval_EvalFrameDefault((void (*)(void))(void *)mem);
		_PyEval_EvalFrameDefault((void (*)(void))(void *)(mem + JIT_STRIDE));
	}
	return 0;
}
