/* SPDX-License-Identifier: MIT */
/*
 * Replays files through a fuzz target without libFuzzer, so `ninja test`
 * runs every corpus under ASan with plain gcc.  Arguments are files or
 * directories (not recursive).  Prints one line per directory and
 * "regress: N files" at the end; any crash aborts the run.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		perror(path);
		if (f != NULL)
			(void)fclose(f);
		return -1;
	}
	p = malloc((size_t)len + 1);
	if (p == NULL || fread(p, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		free(p);
		(void)fclose(f);
		return -1;
	}
	(void)fclose(f);
	(void)LLVMFuzzerTestOneInput(p, (size_t)len);
	free(p);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, files = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;
		char path[4096];

		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			bad++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad += run_file(argv[i]) != 0;
			files++;
			continue;
		}
		d = opendir(argv[i]);
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			(void)snprintf(path, sizeof(path), "%s/%s", argv[i],
			    e->d_name);
			bad += run_file(path) != 0;
			files++;
		}
		if (d != NULL)
			(void)closedir(d);
	}
	printf("regress: %d files, %d unreadable\n", files, bad);
	return bad != 0;
}
