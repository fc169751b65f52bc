/* SPDX-License-Identifier: MIT */
/*
 * A fake Python runtime for sp-sym's tests: run as .../python3.12, the
 * recorder marks it a Python runtime.  Like CPython 3.12 with -X perf, it
 * writes a trampoline per "Python function" into anonymous executable
 * memory and names it in /tmp/perf-PID.map as "py::FUNC:FILE"; its own
 * eval loop, named as CPython's, runs them.
 * usage: python3.12 [MILLISECONDS] (default 500).  Prints "fakepy=0xADDR".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov ecx, 1000000; 1: dec ecx; jnz 1b; ret */
static const unsigned char code[] = {
	0xb9, 0x40, 0x42, 0x0f, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
};

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
	char path[64];
	unsigned char *mem;
	double end;
	FILE *map;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	memcpy(mem + 64, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (map == NULL)
		return 1;
	fprintf(map, "%lx %zx py::compute:/srv/app/calc.py\n",
	    (unsigned long)mem, sizeof(code));
	fprintf(map, "%lx %zx py::Loop.run:/srv/app/main.py\n",
	    (unsigned long)(mem + 64), sizeof(code));
	fclose(map);
	printf("fakepy=%p\n", (void *)mem);
	fflush(stdout);
	end = seconds() + (double)ms / 1000.0;
	while (seconds() < end) {
		_PyEval_EvalFrameDefault((void (*)(void))(void *)mem);
		_PyEval_EvalFrameDefault((void (*)(void))(void *)(mem + 64));
	}
	return 0;
}
