// SPDX-License-Identifier: MIT
/*
 * A known call tree in which one branch spends its time throwing C++
 * exceptions, for the unwinder's tests: samples taken while an exception
 * propagates land in libgcc_s's unwinder and libstdc++'s personality
 * routine, on top of the frames being unwound.
 *
 *   main -> run -> work_a -> leaf_a                    60 % of the CPU time
 *               -> work_b -> descend x 10 (throws)    40 %, caught in work_b
 *
 * The middle descend frame holds an object with a destructor: the second
 * phase of the unwinding lands there and resumes (Itanium C++ ABI,
 * exception handling §1.3.3, _Unwind_Resume), from a landing pad gcc
 * moves to descend.cold.
 * One such frame, not ten: while libgcc installs a landing frame's
 * registers (uw_install_context) the stack is in a state no CFI
 * describes, and each landing adds that window.  The split is by thread
 * CPU time, 3 ms then 2 ms a round, as a throw's cost is not known in
 * advance.  Functions have C names so nm shows them plainly.
 * usage: except [MILLISECONDS] (default 1000).  Prints "cpu_ms=N" at exit.
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static volatile unsigned long sink;

extern "C" {
__attribute__((noinline)) void leaf_a(long ns);
__attribute__((noinline)) void work_a(void);
__attribute__((noinline)) void descend(int n);
__attribute__((noinline)) void work_b(void);
__attribute__((noinline)) void run(long ms);
}

static long
cpu_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct guard {
	~guard() { sink++; }
};

void
leaf_a(long ns)
{
	long end = cpu_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
	NO_TAIL_CALL();
}

void
work_a(void)
{
	leaf_a(3000000);
	NO_TAIL_CALL();
}

#define DEPTH 9

void
descend(int n)
{
	if (n == DEPTH / 2) {
		guard g;

		descend(n - 1);
	} else if (n == 0) {
		throw n;
	} else {
		descend(n - 1);
	}
	NO_TAIL_CALL();
}

void
work_b(void)
{
	long end = cpu_ns(CLOCK_THREAD_CPUTIME_ID) + 2000000;

	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
		try {
			descend(DEPTH);
		} catch (int depth) {
			sink += (unsigned long)depth;
		}
	}
	NO_TAIL_CALL();
}

void
run(long ms)
{
	long end = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) + ms * 1000000;

	while (cpu_ns(CLOCK_PROCESS_CPUTIME_ID) < end) {
		work_a();
		work_b();
	}
	NO_TAIL_CALL();
}

int
main(int argc, char **argv)
{
	run(argc > 1 ? strtol(argv[1], nullptr, 10) : 1000);
	std::fprintf(stderr, "cpu_ms=%ld\n",
	    cpu_ns(CLOCK_PROCESS_CPUTIME_ID) / 1000000);
	return 0;
}
