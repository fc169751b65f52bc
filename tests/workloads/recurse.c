/* SPDX-License-Identifier: MIT */
/*
 * Recurses DEPTH frames deep and spins at the bottom, for the unwinder's
 * deep-stack tests.  usage: recurse DEPTH [MILLISECONDS [DEPTH2 MS2]]
 * (default 200, 500); with DEPTH2, a second phase DEPTH2 frames deep.
 * Milliseconds of wall time, or with a trailing c ("700c") of the
 * process's CPU time: a phase that must hold so many samples whatever
 * else the machine runs.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static clockid_t clock_id = CLOCK_MONOTONIC;

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* MS or MSc: its milliseconds, the clock set by the suffix. */
static long
phase_ms(const char *arg)
{
	char *end;
	long ms = strtol(arg, &end, 10);

	clock_id = *end == 'c' ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
	return ms;
}

__attribute__((noinline)) void bottom(long ms);
__attribute__((noinline)) void down(int n, long ms);

void
bottom(long ms)
{
	long end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
}

void
down(int n, long ms)
{
	if (n <= 1)
		bottom(ms);
	else
		down(n - 1, ms);
	/* Keep a frame per level: no tail call. */
	__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	down(argc > 1 ? atoi(argv[1]) : 200, argc > 2 ? phase_ms(argv[2]) : 500);
	if (argc > 4)
		down(atoi(argv[3]), phase_ms(argv[4]));
	return 0;
}
