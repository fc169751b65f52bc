/* SPDX-License-Identifier: MIT */
/*
 * Time in the vDSO, for naming its frames: clock_gettime in a loop, as a
 * server timestamping each request does (perf shows
 * __vdso_clock_gettime).
 *
 * usage: clockloop [MILLISECONDS] (default 1000) of the clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

int
main(int argc, char **argv)
{
	struct timespec t, end;
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000;
	do {
		for (i = 0; i < 1000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			sink += t.tv_nsec;
		}
	} while (t.tv_sec < end.tv_sec + end.tv_nsec / 1000000000 ||
	    (t.tv_sec == end.tv_sec + end.tv_nsec / 1000000000 &&
	    t.tv_nsec < end.tv_nsec % 1000000000));
	return 0;
}
