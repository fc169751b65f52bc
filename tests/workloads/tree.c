/* SPDX-License-Identifier: MIT */
/*
 * A workload with a known call tree and time split, for the demo and the
 * recorder tests:
 *
 *   main -> run -> work_a -> leaf_a   60 % of the CPU time (3 units)
 *               -> work_b -> leaf_b   40 % (2 units)
 *
 * usage: tree [MILLISECONDS [cpu]] (default 2000): MILLISECONDS of the
 * clock, or with "cpu" of the process's CPU time, so that a loaded
 * machine still gets the samples it needs.  Every function is a real
 * call (noinline) so each appears as its own frame.  At exit it prints
 * "cpu_ms=N", its CPU time, on standard error, so tests can compare the
 * sample count with rate x CPU time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Loop iterations of one unit: a few ms, so one round of run() (5 units)
 * spans many sampling intervals.  With a round near 1 ms, sampling at
 * 1 kHz aliases with it and the measured split drifts far from 60/40.
 */
#define UNIT 2000000ul

/* After a function's last call: keeps -O2 from turning it into a tail
 * call, which would take the caller's frame off the stack. */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static volatile unsigned long sink;
static clockid_t clock_id = CLOCK_MONOTONIC;

__attribute__((noinline)) static void
spin(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void leaf_a(void);
__attribute__((noinline)) void leaf_b(void);
__attribute__((noinline)) void work_a(void);
__attribute__((noinline)) void work_b(void);
__attribute__((noinline)) void run(long ms);

void
leaf_a(void)
{
	spin(UNIT);
	NO_TAIL_CALL();
}

void
leaf_b(void)
{
	spin(UNIT);
	NO_TAIL_CALL();
}

void
work_a(void)
{
	leaf_a();
	leaf_a();
	leaf_a();
	NO_TAIL_CALL();
}

void
work_b(void)
{
	leaf_b();
	leaf_b();
	NO_TAIL_CALL();
}

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
run(long ms)
{
	double end = seconds() + (double)ms / 1000.0;

	while (seconds() < end) {
		work_a();
		work_b();
	}
}

int
main(int argc, char **argv)
{
	struct timespec cpu;

	if (argc > 2 && strcmp(argv[2], "cpu") == 0)
		clock_id = CLOCK_PROCESS_CPUTIME_ID;
	run(argc > 1 ? strtol(argv[1], NULL, 10) : 2000);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	fprintf(stderr, "cpu_ms=%ld\n",
	    (long)cpu.tv_sec * 1000 + cpu.tv_nsec / 1000000);
	return 0;
}
