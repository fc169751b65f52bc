/* SPDX-License-Identifier: MIT */
/*
 * Known counts of events other than time, for sp-record -e
 * (tests/cli/record/events.sh): each round
 *
 *   touch_a  writes to 3 * PAGES fresh pages: 3 * PAGES page faults
 *   touch_b  writes to PAGES fresh pages:     PAGES page faults
 *   nap      sleeps 100 us:                   one context switch
 *   spin_c   computes for about 1 ms:         most of the CPU time
 *
 * so page faults split 75/25 between touch_a and touch_b, while the time
 * is spin_c's.  The pages are a fresh private anonymous mapping each time
 * (too small for a huge page), each written once.
 * usage: pagefaults [ROUNDS] (default 1000).  At exit it prints
 * "touched a=N b=M naps=K" on standard error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGES 16
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static volatile unsigned long sink;
static long page;

__attribute__((noinline)) static unsigned long
touch(unsigned long n)
{
	char *p = mmap(NULL, n * (unsigned long)page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long i;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (i = 0; i < n; i++)
		p[i * (unsigned long)page] = (char)i;
	(void)munmap(p, n * (unsigned long)page);
	return n;
}

__attribute__((noinline)) unsigned long
touch_a(void)
{
	unsigned long n = touch(3 * PAGES);

	NO_TAIL_CALL();
	return n;
}

__attribute__((noinline)) unsigned long
touch_b(void)
{
	unsigned long n = touch(PAGES);

	NO_TAIL_CALL();
	return n;
}

__attribute__((noinline)) void
nap(void)
{
	struct timespec ts = { 0, 100000 };

	(void)nanosleep(&ts, NULL);
	NO_TAIL_CALL();
}

__attribute__((noinline)) void
spin_c(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		sink += i;
	NO_TAIL_CALL();
}

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000, r;
	unsigned long a = 0, b = 0;

	page = sysconf(_SC_PAGESIZE);
	for (r = 0; r < rounds; r++) {
		a += touch_a();
		b += touch_b();
		nap();
		spin_c();
	}
	fprintf(stderr, "touched a=%lu b=%lu naps=%ld\n", a, b, rounds);
	return 0;
}
