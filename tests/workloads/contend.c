/* SPDX-License-Identifier: MIT */
/*
 * A program whose only sleeper is one thread, among threads that never
 * block: on a machine with fewer CPUs than spinners, the spinners are
 * preempted (runnable, waiting for a CPU) and only the sleeper blocks.
 *
 *   main -> sleeper -> doze    nanosleep of 1 ms, again and again
 *   spinner threads -> spin    a busy loop, never blocking
 *
 * usage: contend [SECONDS [SPINNERS]] (default 3 and 3).  At its end it
 * prints what it measured itself, for a test to compare with a
 * recording:
 *
 *   contend sleeper W C spinners W C
 *
 * the sleeper's wall and CPU time in sleeper, the spinners' summed wall
 * and CPU time in spin (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID), in
 * nanoseconds.  A spinner's wall time less its CPU time is the time it
 * waited for a CPU.  The threads are named contend-sleep and
 * contend-spin.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")
#define SPINNERS_MAX 64

static volatile int stop;
static volatile unsigned long sink;
static long long spin_wall, spin_cpu;
static pthread_mutex_t sums = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void doze(void);
__attribute__((noinline)) void sleeper(long long seconds);
__attribute__((noinline)) void spin(void);

static long long
ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
doze(void)
{
	struct timespec ts = { 0, 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
	NO_TAIL_CALL();
}

void
sleeper(long long seconds)
{
	long long end = ns(CLOCK_MONOTONIC) + seconds * 1000000000LL;

	while (ns(CLOCK_MONOTONIC) < end)
		doze();
	NO_TAIL_CALL();
}

/* No system call: nothing to block in. */
void
spin(void)
{
	unsigned long i;

	while (!stop)
		for (i = 0; i < 65536; i++)
			sink += i;
	NO_TAIL_CALL();
}

static void *
spinner(void *arg)
{
	long long w, c;

	(void)arg;
	prctl(PR_SET_NAME, "contend-spin");
	w = ns(CLOCK_MONOTONIC);
	c = ns(CLOCK_THREAD_CPUTIME_ID);
	spin();
	w = ns(CLOCK_MONOTONIC) - w;
	c = ns(CLOCK_THREAD_CPUTIME_ID) - c;
	pthread_mutex_lock(&sums);
	spin_wall += w;
	spin_cpu += c;
	pthread_mutex_unlock(&sums);
	return NULL;
}

int
main(int argc, char **argv)
{
	long long seconds = argc > 1 ? atoll(argv[1]) : 3, w, c;
	int n = argc > 2 ? atoi(argv[2]) : 3, i;
	pthread_t th[SPINNERS_MAX];

	if (seconds < 1 || n < 1 || n > SPINNERS_MAX) {
		fprintf(stderr, "usage: contend [SECONDS [SPINNERS (1..%d)]]\n",
		    SPINNERS_MAX);
		return 2;
	}
	prctl(PR_SET_NAME, "contend-sleep");
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, spinner, NULL) != 0)
			return 1;
	w = ns(CLOCK_MONOTONIC);
	c = ns(CLOCK_THREAD_CPUTIME_ID);
	sleeper(seconds);
	w = ns(CLOCK_MONOTONIC) - w;
	c = ns(CLOCK_THREAD_CPUTIME_ID) - c;
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("contend sleeper %lld %lld spinners %lld %lld\n", w, c,
	    spin_wall, spin_cpu);
	return 0;
}
