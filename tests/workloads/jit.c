/* SPDX-License-Identifier: MIT */
/*
 * A miniature JIT: writes a spin loop into anonymous executable memory,
 * announces it in /tmp/perf-PID.map as perf's JIT interface does
 * ("START SIZE NAME", hex), and runs it.
 * usage: jit [MILLISECONDS] (default 500), then 50 ms in plain code.
 * Prints "jit=0xADDR".
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

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 500;
	char path[64];
	unsigned char *mem;
	void (*fn)(void);
	double end;
	FILE *map;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (map == NULL)
		return 1;
	fprintf(map, "%lx %zx jit_spin_loop\n", (unsigned long)mem,
	    sizeof(code));
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
