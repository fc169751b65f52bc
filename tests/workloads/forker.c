/* SPDX-License-Identifier: MIT */
/*
 * Forks children that each spin: for --children.  Prints "child=PID" for
 * each child on standard output.
 * usage: forker [CHILDREN] [MILLISECONDS per child] (default 2, 300)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void
child_work(long ms)
{
	struct timespec ts, now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	do {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - ts.tv_sec) * 1000 +
	    (now.tv_nsec - ts.tv_nsec) / 1000000 < ms);
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	long ms = argc > 2 ? atol(argv[2]) : 300;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			child_work(ms);
			_exit(0);
		}
		printf("child=%d\n", (int)pid);
		fflush(stdout);
		waitpid(pid, NULL, 0);
	}
	child_work(ms / 2);
	return 0;
}
