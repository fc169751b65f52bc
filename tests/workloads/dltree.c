/* SPDX-License-Identifier: MIT */
/*
 * Runs the tree workload from a shared library loaded with dlopen: the
 * build compiles tree.c into libtree.so with its main renamed tree_main.
 *   main -> tree_main (libtree.so) -> run -> work_a / work_b
 * usage: dltree LIBRARY [MILLISECONDS [cpu]] (as tree's)
 */
#include <dlfcn.h>
#include <stdio.h>

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

int
main(int argc, char **argv)
{
	int (*tree_main)(int, char **);
	void *h;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: dltree LIBRARY [MILLISECONDS [cpu]]\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	*(void **)&tree_main = dlsym(h, "tree_main");
	if (tree_main == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	rc = tree_main(argc - 1, argv + 1);
	NO_TAIL_CALL();
	return rc;
}
