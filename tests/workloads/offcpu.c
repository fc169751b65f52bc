/* SPDX-License-Identifier: MIT */
/*
 * A workload whose main thread spends known shares of its wall time on
 * and off the CPU, each in a function of its own:
 *
 *   main -> run -> spin_a     4 ms of its CPU time a round
 *               -> spin_b     2 ms
 *               -> nap        nanosleep, 6 ms
 *               -> pipe_wait  read(2) of a pipe the helper writes 3 ms on
 *               -> lock_wait  a mutex the helper holds for 3 ms
 *
 * usage: offcpu [SECONDS [DIVISOR]] (default 10 and 1: DIVISOR divides
 * each time above, for more switches a second); SIGTERM ends it at the end of a
 * round.  At its end it prints what it measured itself, since the start
 * or since SIGUSR1 (which sets the sums to 0 at the next round), for the
 * test to compare with the recording:
 *
 *   offcpu wall_ns T spin_a W C spin_b W C nap W C pipe_wait W C
 *          lock_wait W C
 *
 * T is the main thread's wall time in run, W each function's wall time
 * and C its CPU time (CLOCK_THREAD_CPUTIME_ID), all in nanoseconds, on
 * one line.  The threads are named offcpu-main and offcpu-help.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

enum { SPIN_A, SPIN_B, NAP, PIPE_WAIT, LOCK_WAIT, PHASES };

static const char *const names[PHASES] = { "spin_a", "spin_b", "nap",
	"pipe_wait", "lock_wait" };
static long long wall[PHASES], cpu[PHASES];
static volatile unsigned long sink;
static int go[2], back[2], data[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop, restart;
static int divisor = 1;

static void
on_signal(int sig)
{
	if (sig == SIGTERM)
		stop = 1;
	else
		restart = 1;
}

static long long
ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L / divisor };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void
put(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		abort();
}

static char
get(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		abort();
	return c;
}

__attribute__((noinline)) void spin_a(void);
__attribute__((noinline)) void spin_b(void);
__attribute__((noinline)) void nap(void);
__attribute__((noinline)) void pipe_wait(void);
__attribute__((noinline)) void lock_wait(void);
__attribute__((noinline)) void run(long long seconds);

/* Spins for ms of the thread's CPU time (not the clock's: a preemption
 * is time off CPU, which the recording must show as such). */
static void
spin(int ms)
{
	long long end = ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000LL / divisor;
	unsigned long i;

	do {
		for (i = 0; i < 65536; i++)
			sink += i;
	} while (ns(CLOCK_THREAD_CPUTIME_ID) < end);
}

void
spin_a(void)
{
	spin(4);
	NO_TAIL_CALL();
}

void
spin_b(void)
{
	spin(2);
	NO_TAIL_CALL();
}

void
nap(void)
{
	sleep_ms(6);
	NO_TAIL_CALL();
}

/* The helper writes the byte 3 ms after it was asked. */
void
pipe_wait(void)
{
	put(go[1], 'p');
	(void)get(data[0]);
	NO_TAIL_CALL();
}

/* The helper takes the lock, says so, and holds it 3 ms. */
void
lock_wait(void)
{
	put(go[1], 'l');
	(void)get(back[0]);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	NO_TAIL_CALL();
}

static void *
helper(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "offcpu-help");
	for (;;) {
		switch (get(go[0])) {
		case 'p':
			sleep_ms(3);
			put(data[1], 'd');
			break;
		case 'l':
			pthread_mutex_lock(&lock);
			put(back[1], 'b');
			sleep_ms(3);
			pthread_mutex_unlock(&lock);
			break;
		default:
			return NULL;
		}
	}
}

#define TIMED(k, call) do { \
	long long w_ = ns(CLOCK_MONOTONIC), c_ = ns(CLOCK_THREAD_CPUTIME_ID); \
	call; \
	wall[k] += ns(CLOCK_MONOTONIC) - w_; \
	cpu[k] += ns(CLOCK_THREAD_CPUTIME_ID) - c_; \
} while (0)

static long long t0;

void
run(long long seconds)
{
	long long end = ns(CLOCK_MONOTONIC) + seconds * 1000000000LL;

	while (ns(CLOCK_MONOTONIC) < end && !stop) {
		if (restart) {
			restart = 0;
			memset(wall, 0, sizeof(wall));
			memset(cpu, 0, sizeof(cpu));
			t0 = ns(CLOCK_MONOTONIC);
		}
		TIMED(SPIN_A, spin_a());
		TIMED(SPIN_B, spin_b());
		TIMED(NAP, nap());
		TIMED(PIPE_WAIT, pipe_wait());
		TIMED(LOCK_WAIT, lock_wait());
	}
	NO_TAIL_CALL();
}

int
main(int argc, char **argv)
{
	long long seconds = argc > 1 ? atoll(argv[1]) : 10;
	pthread_t th;
	int k;

	divisor = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 1;
	prctl(PR_SET_NAME, "offcpu-main");
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
	if (pipe(go) != 0 || pipe(back) != 0 || pipe(data) != 0 ||
	    pthread_create(&th, NULL, helper, NULL) != 0)
		return 1;
	t0 = ns(CLOCK_MONOTONIC);
	run(seconds);
	put(go[1], 'q');
	pthread_join(th, NULL);
	printf("offcpu wall_ns %lld", ns(CLOCK_MONOTONIC) - t0);
	for (k = 0; k < PHASES; k++)
		printf(" %s %lld %lld", names[k], wall[k], cpu[k]);
	printf("\n");
	return 0;
}
