/* SPDX-License-Identifier: MIT */
/* Built twice, as liba.so and libb.so, for the dlopen churn workload. */
#include <time.h>

#define STR_(x) #x
#define STR(x) STR_(x)

void lib_spin(long ms);

/* Makes the two builds differ, so they have their own build-ids. */
const char lib_name[] = STR(LIBNAME);

static volatile unsigned long sink;

void
lib_spin(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
	    (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}
