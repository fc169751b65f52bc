/* SPDX-License-Identifier: MIT */
/*
 * A workload with a known split of its CPU time between three leaf
 * functions, each with its own loop (so each is the leaf of its samples):
 *
 *   main -> run -> hot_a   50 % (5 units a round)
 *               -> hot_b   30 % (3 units)
 *               -> hot_c   20 % (2 units)
 *
 * usage: split [SECONDS] (default 60): runs that long by the clock.  A
 * unit is 2 ms of its CPU time, a round 20 ms: many 1 kHz intervals.
 */
#include <stdlib.h>
#include <time.h>

#define UNIT_MS 2.0        /* a round: 10 units, 20 ms */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static volatile unsigned long sink;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This thread's CPU time, in seconds. */
static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Each spins for its share of the thread's CPU time, not a count of
 * iterations (the three loops are the same code at different addresses,
 * and one ran 30 % faster than another here: alignment), nor of the wall
 * clock (on a loaded machine a preemption then took its time from
 * whichever function ran, and the split moved by 8 points).  The CPU
 * clock is read every 262144 iterations: its samples are about 1 %.
 */
#define SPIN_FOR(ms) do { \
	double end_ = cpu() + (ms) / 1000; \
	unsigned long i_; \
	do { \
		for (i_ = 0; i_ < 262144; i_++) \
			sink += i_; \
	} while (cpu() < end_); \
} while (0)

__attribute__((noinline)) void hot_a(double ms);
__attribute__((noinline)) void hot_b(double ms);
__attribute__((noinline)) void hot_c(double ms);
__attribute__((noinline)) void run(double seconds);

void
hot_a(double ms)
{
	SPIN_FOR(ms);
	NO_TAIL_CALL();
}

void
hot_b(double ms)
{
	SPIN_FOR(ms);
	NO_TAIL_CALL();
}

void
hot_c(double ms)
{
	SPIN_FOR(ms);
	NO_TAIL_CALL();
}

void
run(double seconds)
{
	double end = now() + seconds;

	while (now() < end) {
		hot_a(5 * UNIT_MS);
		hot_b(3 * UNIT_MS);
		hot_c(2 * UNIT_MS);
	}
	NO_TAIL_CALL();
}

int
main(int argc, char **argv)
{
	run(argc > 1 ? atof(argv[1]) : 60);
	return 0;
}
