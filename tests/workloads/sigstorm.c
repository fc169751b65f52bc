/* SPDX-License-Identifier: MIT */
/*
 * Raises SIGUSR1 at itself in a loop: much of its time is the kernel's
 * delivery of the signal and its rt_sigreturn, where the user registers
 * stand at the end of glibc's __restore_rt, after its syscall and so past
 * its CFI.  Samples there must unwind through the signal frame into storm
 * and main.
 * usage: sigstorm [MILLISECONDS] (of CPU time, default 1000)
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void storm(long ms);

static void
handler(int sig)
{
	(void)sig;
	sink++;
}

/* For ms of its CPU time (the process's: clock(3)). */
void
storm(long ms)
{
	clock_t end = clock() + (clock_t)(ms * (CLOCKS_PER_SEC / 1000));

	while (clock() < end)
		for (int i = 0; i < 100; i++)
			(void)raise(SIGUSR1);
	/* Keep storm's frame: no tail call. */
	__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = handler;
	(void)sigaction(SIGUSR1, &sa, NULL);
	storm(argc > 1 ? atol(argv[1]) : 1000);
	return 0;
}
