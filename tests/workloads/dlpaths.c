/* SPDX-License-Identifier: MIT */
/*
 * Loads shared libraries from awkward paths and spins in each in turn,
 * for the path tests of the recorder and sp-sym (tests/cli/record/paths.sh).
 * usage: dlpaths MS [-]PATH...: each library's lib_spin runs MS ms in
 * all, in slices of 10 ms; a PATH behind '-' is unlinked once loaded,
 * so /proc/PID/maps shows it " (deleted)".  When all are loaded it
 * prints "ready" and copies /proc/self/maps to standard output (where
 * the kernel says each library is), and "done" at the end.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SLICE_MS 10
#define LIBS_MAX 16

int
main(int argc, char **argv)
{
	void (*spin[LIBS_MAX])(long);
	long ms, done;
	int i, c, n = 0;
	FILE *maps;

	if (argc < 3 || argc - 2 > LIBS_MAX) {
		fprintf(stderr, "usage: dlpaths MS [-]PATH...\n");
		return 2;
	}
	ms = atol(argv[1]);
	for (i = 2; i < argc; i++) {
		const char *path = argv[i][0] == '-' ? argv[i] + 1 : argv[i];
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

		if (h == NULL || (*(void **)&spin[n] = dlsym(h, "lib_spin")) ==
		    NULL) {
			fprintf(stderr, "dlpaths: %s\n", dlerror());
			return 1;
		}
		n++;
		if (argv[i][0] == '-' && unlink(path) != 0) {
			perror(path);
			return 1;
		}
	}
	printf("ready\n");
	if ((maps = fopen("/proc/self/maps", "r")) != NULL) {
		while ((c = getc(maps)) != EOF)
			putchar(c);
		fclose(maps);
	}
	fflush(stdout);
	for (done = 0; done < ms; done += SLICE_MS)
		for (i = 0; i < n; i++)
			spin[i](SLICE_MS);
	printf("done\n");
	return 0;
}
