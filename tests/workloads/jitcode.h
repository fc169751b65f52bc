/* SPDX-License-Identifier: MIT */
/*
 * What the JIT-like workloads (jit.c, fakepy.c) share: a clock, and
 * anonymous executable memory holding copies of a small spin loop that
 * they then name in /tmp/perf-PID.map.
 */
#ifndef JITCODE_H
#define JITCODE_H

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* mov ecx, 1000000; 1: dec ecx; jnz 1b; ret */
static const unsigned char jit_code[] = {
	0xb9, 0x40, 0x42, 0x0f, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
};

/* Copies of jit_code are this far apart. */
#define JIT_STRIDE 64

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n (at most 64) copies of jit_code in a new executable page, or NULL. */
static unsigned char *
jit_page(int n)
{
	unsigned char *mem;
	int i;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	for (i = 0; i < n && i < 4096 / JIT_STRIDE; i++)
		memcpy(mem + i * JIT_STRIDE, jit_code, sizeof(jit_code));
	return mem;
}

/* This process's perf map, created for writing, or NULL. */
static FILE *
perf_map_create(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	/* A file an earlier process of this pid left (a test stopped half
	 * way: a symlink) is not written through: a new one is made. */
	unlink(path);
	return fopen(path, "wx");
}

#endif
