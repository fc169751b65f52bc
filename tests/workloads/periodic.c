/* SPDX-License-Identifier: MIT */
/*
 * A periodic program, paced by the clock: each round of its main loop
 * takes PERIOD_US of wall time, half in one function, 30 % in a second
 * and 20 % in a third (issue 28 §7: aliasing).
 *
 *   main -> run -> phase_a   [0, 0.5) of each round
 *               -> phase_b   [0.5, 0.8)
 *               -> phase_c   [0.8, 1)
 *
 * Round k runs from start + k * PERIOD_US: a function spins until its
 * part of the round is over by the clock, so the program is in phase_a
 * whenever (now - start) mod PERIOD_US is in the first half, whatever
 * the load (a preemption takes its time from whichever part it covers).
 * A sampler whose period is PERIOD_US, or divides it, sees the same phase
 * every time.
 *
 * usage: periodic [CPU_SECONDS [PERIOD_US]] (default 4 s, 1000 us): runs
 * until it had that much CPU time (a sampler at a given rate then takes
 * about as many samples whatever the load), or ten times as long by the
 * clock.  At the end it prints on standard error the CPU time each
 * function really had, read from the thread's CPU clock around each call
 * (the truth a profile is compared with):
 * "split a=PCT b=PCT c=PCT cpu_ms=MS rounds=N".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static volatile unsigned long sink;
static uint64_t cpu_ns[3];

static uint64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Spins until the clock reaches until, in steps of a microsecond or
 * two (so that most samples are in the function's own loop,
 * not in the vDSO's clock), adding its CPU time to cpu_ns[which].
 * Inlined: each function is the leaf of its own samples.
 */
static inline __attribute__((always_inline)) void
spin_until(uint64_t until, int which)
{
	uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	unsigned i;

	while (clock_ns(CLOCK_MONOTONIC) < until)
		for (i = 0; i < 1024; i++)
			sink += i;
	cpu_ns[which] += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
}

__attribute__((noinline)) void phase_a(uint64_t until);
__attribute__((noinline)) void phase_b(uint64_t until);
__attribute__((noinline)) void phase_c(uint64_t until);
__attribute__((noinline)) uint64_t run(double seconds, uint64_t period);

void
phase_a(uint64_t until)
{
	spin_until(until, 0);
	NO_TAIL_CALL();
}

void
phase_b(uint64_t until)
{
	spin_until(until, 1);
	NO_TAIL_CALL();
}

void
phase_c(uint64_t until)
{
	spin_until(until, 2);
	NO_TAIL_CALL();
}

/* The rounds, by the clock, until seconds of CPU time; returns how many
 * ran. */
uint64_t
run(double seconds, uint64_t period)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), now, k, rounds = 0;
	uint64_t cpu = (uint64_t)(seconds * 1e9), end = start + 10 * cpu;

	while ((now = clock_ns(CLOCK_MONOTONIC)) < end &&
	    cpu_ns[0] + cpu_ns[1] + cpu_ns[2] < cpu) {
		k = start + (now - start) / period * period;
		phase_a(k + period * 5 / 10);
		phase_b(k + period * 8 / 10);
		phase_c(k + period);
		rounds++;
	}
	NO_TAIL_CALL();
	return rounds;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 4;
	long period_us = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
	uint64_t rounds, all;

	if (seconds <= 0 || period_us < 10 || period_us > 10000000) {
		fprintf(stderr, "usage: periodic [CPU_SECONDS [PERIOD_US]]\n");
		return 2;
	}
	rounds = run(seconds, (uint64_t)period_us * 1000);
	all = cpu_ns[0] + cpu_ns[1] + cpu_ns[2];
	if (all == 0)
		all = 1;
	fprintf(stderr, "split a=%.2f b=%.2f c=%.2f cpu_ms=%llu rounds=%llu\n",
	    100.0 * (double)cpu_ns[0] / (double)all,
	    100.0 * (double)cpu_ns[1] / (double)all,
	    100.0 * (double)cpu_ns[2] / (double)all,
	    (unsigned long long)(all / 1000000), (unsigned long long)rounds);
	return 0;
}
