/* SPDX-License-Identifier: MIT */
/*
 * mapexec FILE MILLISECONDS: maps FILE whole, read and execute
 * (MAP_PRIVATE), then spends MILLISECONDS of its CPU time in its own
 * code, in a function whose return address is in the mapping.  A
 * recorder of it meets FILE as an executable mapping (MMAP2,
 * /proc/PID/maps) and reads FILE's build-id, and its CFI when a walk
 * reaches that return address, whatever FILE holds:
 * tests/cli/record/hostile.sh gives it damaged ELF files that could not
 * be run themselves.  The mapping's bytes are never run: the function
 * exits instead of returning.  Exits 1
 * when FILE cannot be opened or mapped (a noexec mount, an empty file),
 * so that a test cannot pass without the mapping.
 */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

static volatile unsigned long sink;

static long
cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Spins until end, then exits: its return address is no code. */
__attribute__((noreturn, noinline, used)) void spin_then_exit(long end);

void
spin_then_exit(long end)
{
	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
	exit(0);
}

int
main(int argc, char **argv)
{
	struct stat st;
	unsigned char *base;
	long end;
	int fd;

	if (argc != 3)
		errx(2, "usage: mapexec FILE MILLISECONDS");
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		err(1, "%s", argv[1]);
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC,
	    MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		err(1, "%s: mmap PROT_READ|PROT_EXEC", argv[1]);
	end = cpu_ms() + strtol(argv[2], NULL, 10);
	/* As if called from the mapping's middle: a 16-byte aligned stack,
	 * the return address pushed, then a jump. */
	__asm__ volatile("and $-16, %%rsp\n\t"
	    "push %1\n\t"
	    "jmp spin_then_exit"
	    :: "D"(end), "r"(base + st.st_size / 2) : "memory");
	__builtin_unreachable();
}
