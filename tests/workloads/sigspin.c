/* SPDX-License-Identifier: MIT */
/*
 * Spends its time inside a signal handler: main -> wait_loop is
 * interrupted by SIGALRM every 20 ms, and handler -> handler_spin spins
 * for 15 ms.  Samples in the handler must unwind through the signal
 * frame (glibc's __restore_rt) back into wait_loop and main.
 * usage: sigspin [MILLISECONDS] (default 1000)
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static volatile unsigned long sink;
static volatile sig_atomic_t done;

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) void handler_spin(void);
__attribute__((noinline)) void wait_loop(long ms);

void
handler_spin(void)
{
	long end = now_ms() + 15;

	while (now_ms() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
	NO_TAIL_CALL();
}

static void
handler(int sig)
{
	(void)sig;
	handler_spin();
	NO_TAIL_CALL();
}

void
wait_loop(long ms)
{
	long end = now_ms() + ms;

	sigset_t alrm;

	while (now_ms() < end)
		sink++;
	/* No handler may run once this returns, where main alone is below
	 * it (a last SIGALRM in main's setitimer below gave 14 samples of
	 * main;__restore_rt;handler in a guest): held from here on. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	NO_TAIL_CALL();
}

int
main(int argc, char **argv)
{
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	struct sigaction sa = { 0 };

	sa.sa_handler = handler;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	wait_loop(argc > 1 ? atol(argv[1]) : 1000);
	/* Stopped, for a clean exit (SIGALRM is held: wait_loop). */
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	return done;
}
