/* SPDX-License-Identifier: MIT */
/*
 * N threads that spin for a while, then a thread that spawns and joins
 * many short threads.
 * usage: threads [THREADS] [MILLISECONDS] [SHORT_THREADS] (default 4, 500, 0)
 * With THREADS_CPU set, each spinner ends with a line "tid TID cpu_us N"
 * on stderr: its own CPU time, which a test compares with its samples.
 * With THREADS_CPU_SPIN set, each spins for MILLISECONDS of its own CPU
 * time instead of the clock's, so that a loaded machine still gives each
 * the CPU time a test needs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static long run_ms;

static int by_cpu; /* THREADS_CPU_SPIN: the spinners' own CPU time */

static long
elapsed_ms(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(by_cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	    (now.tv_nsec - t0->tv_nsec) / 1000000;
}

__attribute__((noinline)) static void *
spinner(void *arg)
{
	struct timespec t0, cpu;

	(void)arg;
	clock_gettime(by_cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t0);
	while (elapsed_ms(&t0) < run_ms)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
	if (getenv("THREADS_CPU") != NULL &&
	    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
		fprintf(stderr, "tid %ld cpu_us %ld\n", (long)syscall(SYS_gettid),
		    (long)cpu.tv_sec * 1000000 + cpu.tv_nsec / 1000);
	return NULL;
}

__attribute__((noinline)) static void *
short_thread(void *arg)
{
	for (int i = 0; i < 20000; i++)
		sink += (unsigned long)i;
	return arg;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	int shorts = argc > 3 ? atoi(argv[3]) : 0;
	pthread_t *t;

	run_ms = argc > 2 ? atol(argv[2]) : 500;
	by_cpu = getenv("THREADS_CPU_SPIN") != NULL;
	t = calloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	for (int i = 0; i < shorts; i++) {
		pthread_t s;

		pthread_create(&s, NULL, short_thread, NULL);
		pthread_join(s, NULL);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
