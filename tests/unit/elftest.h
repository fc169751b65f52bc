/* SPDX-License-Identifier: MIT */
#ifndef TESTS_ELFTEST_H
#define TESTS_ELFTEST_H

/* Helpers of the ELF tests: running nm and readelf, files and paths. */

#include <elf.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf_int.h"

/* What build.ninja makes from tests/workloads/syms.c. */
#define SYMS "build/tests/syms"

/* The whole output of a shell command, which must succeed; malloc'd. */
char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats a path into out[PATH_MAX]; fails the test if it is cut. */
void pathf(char *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void *slurp(const char *path, size_t *len);
void spit(const char *path, const void *p, size_t len);
void copy(const char *from, const char *to);
void mkdirs(const char *path);
/* An absolute path of a fresh directory under build/test-tmp. */
void tmpdir(char *out, const char *name);
void abspath(char *out, const char *rel);

/* The build-id readelf -n shows, as bytes; returns the length. */
size_t readelf_build_id(const char *path, uint8_t *id);

struct ids {
	uint8_t id[SP_ELF_BUILD_ID_MAX];
	size_t len;
	char hex[2 * SP_ELF_BUILD_ID_MAX + 1];
};

/* The build-id of SYMS, by readelf. */
void syms_id(struct ids *i);

/* The header of the first section named name in the ELF64 image img,
 * or the test fails. */
Elf64_Shdr *shdr_named(uint8_t *img, const char *name);

/* The address nm gives the symbol name of class cls in path. */
uint64_t nm_addr(const char *path, char cls, const char *name);

#endif
