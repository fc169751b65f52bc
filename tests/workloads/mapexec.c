/* SPDX-License-Identifier: MIT */
/*
 * mapexec FILE MILLISECONDS: maps FILE whole, read and execute
 * (MAP_PRIVATE), then spends MILLISECONDS of its CPU time in its own
 * code.  A recorder of it meets FILE as an executable mapping (MMAP2,
 * /proc/PID/maps) and reads FILE's build-id and CFI, whatever FILE
 * holds: tests/cli/hostile-record.sh gives it damaged ELF files that
 * could not be run themselves.  The mapping is never touched.  Exits 1
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

int
main(int argc, char **argv)
{
	struct stat st;
	long end;
	int fd;

	if (argc != 3)
		errx(2, "usage: mapexec FILE MILLISECONDS");
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		err(1, "%s", argv[1]);
	if (mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE,
	    fd, 0) == MAP_FAILED)
		err(1, "%s: mmap PROT_READ|PROT_EXEC", argv[1]);
	end = cpu_ms() + strtol(argv[2], NULL, 10);
	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
	return 0;
}
