/* SPDX-License-Identifier: MIT */
/*
 * Built twice, as libdla.so and libdlb.so, for the dlopen churn test of
 * tests/cli/record/faults.sh.  Each has a busy function and a decoy that never
 * runs, of the same size, in swapped order:
 *
 *	libdla.so: busy_a, decoy_a	libdlb.so: decoy_b, busy_b
 *
 * so the two libraries have the same layout and dlclose + dlopen puts
 * the other one in the hole, and a sample in one resolved through the
 * other's mapping would name a decoy: a misattribution cannot pass for a
 * right answer.  FIRST, SECOND and BUSY come from the build.
 */
#include <time.h>

void FIRST(long n);
void SECOND(long n);
void lib_spin_us(long us);

static volatile unsigned long sink;

void
FIRST(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
}

void
SECOND(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
}

/* Spins in BUSY for us microseconds of CLOCK_MONOTONIC. */
void
lib_spin_us(long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		BUSY(5000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000 +
	    (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}
