/* SPDX-License-Identifier: MIT */
/*
 * dlopen/dlclose churn: loads liba.so and libb.so in turn, spins in each
 * while it is mapped, unloads it.  For every cycle it prints
 * "LIB OPEN CLOSE" (CLOCK_MONOTONIC ns, before dlopen and after dlclose)
 * so a test can check that each sample in a library was taken while that
 * library was mapped (its constructors and destructors run inside).
 * usage: dlchurn DIR [CYCLES] [MS_PER_CYCLE] (default 40, 10)
 *
 * dlchurn DIR CYCLES US_PER_CYCLE PREFIX loads DIR/PREFIXa.so and
 * DIR/PREFIXb.so instead (tests/workloads/dlchurn_lib.c), spins in their
 * lib_spin_us for US_PER_CYCLE microseconds, and adds to each line the
 * address the library was loaded at (dladdr), to show the holes reused.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	    (unsigned long long)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	int cycles = argc > 2 ? atoi(argv[2]) : 40;
	long ms = argc > 3 ? atol(argv[3]) : 10;
	const char *prefix = argc > 4 ? argv[4] : NULL;
	char path[4096];

	if (argc < 2)
		return 2;
	for (int i = 0; i < cycles; i++) {
		const char *lib = i % 2 ? "b" : "a";
		void (*spin)(long);
		unsigned long long start, end;
		void *h;
		Dl_info info;

		snprintf(path, sizeof(path), "%s/%s%s.so", argv[1],
		    prefix != NULL ? prefix : "lib", lib);
		start = now_ns();
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (h == NULL) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		*(void **)&spin = dlsym(h, prefix != NULL ? "lib_spin_us" :
		    "lib_spin");
		if (spin == NULL || dladdr(*(void **)&spin, &info) == 0) {
			fprintf(stderr, "%s: no spin function\n", path);
			return 1;
		}
		spin(ms);
		dlclose(h);
		end = now_ns();
		if (prefix != NULL)
			printf("%s %llu %llu %p\n", lib, start, end,
			    info.dli_fbase);
		else
			printf("%s %llu %llu\n", lib, start, end);
	}
	return 0;
}
