/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elftest.h"

char *
run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX], *out = NULL;
	size_t len = 0, cap = 0, n;
	va_list ap;
	FILE *p;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(w > 0 && (size_t)w < sizeof(cmd));
	p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			out = realloc(out, cap);
			cr_assert_not_null(out);
		}
		n = fread(out + len, 1, 4096, p);
		len += n;
	} while (n > 0);
	out[len] = '\0';
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	return out;
}

void
pathf(char *out, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	cr_assert(w > 0 && w < PATH_MAX);
}

void *
slurp(const char *path, size_t *len)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY);

	cr_assert(fd >= 0 && fstat(fd, &st) == 0, "%s", path);
	*len = (size_t)st.st_size;
	p = malloc(*len + 1);
	cr_assert_not_null(p);
	cr_assert_eq(read(fd, p, *len), (ssize_t)*len);
	close(fd);
	return p;
}

void
spit(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, p, len), (ssize_t)len);
	close(fd);
}

void
copy(const char *from, const char *to)
{
	size_t len;
	void *p = slurp(from, &len);

	spit(to, p, len);
	free(p);
}

void
mkdirs(const char *path)
{
	char b[PATH_MAX], *s;

	pathf(b, "%s", path);
	for (s = b + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			(void)mkdir(b, 0755);
			*s = '/';
		}
	cr_assert(mkdir(b, 0755) == 0 || errno == EEXIST, "%s", b);
}

void
tmpdir(char *out, const char *name)
{
	char cwd[PATH_MAX];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	pathf(out, "%s/build/test-tmp/elfsym-%s-%d", cwd, name, (int)getpid());
	mkdirs(out);
}

void
abspath(char *out, const char *rel)
{
	char cwd[PATH_MAX];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	pathf(out, "%s/%s", cwd, rel);
}

size_t
readelf_build_id(const char *path, uint8_t *id)
{
	char *out = run("readelf -n %s 2>/dev/null", path), *s = strstr(out, "Build ID: ");
	size_t n = 0;
	unsigned b;

	cr_assert_not_null(s, "%s has no build-id", path);
	for (s += 10; n < SP_ELF_BUILD_ID_MAX && isxdigit((unsigned char)s[0])
	    && sscanf(s, "%2x", &b) == 1; s += 2)
		id[n++] = (uint8_t)b;
	free(out);
	cr_assert_gt(n, 0);
	return n;
}

void
syms_id(struct ids *i)
{
	size_t k;

	i->len = readelf_build_id(SYMS, i->id);
	for (k = 0; k < i->len; k++)
		(void)snprintf(i->hex + 2 * k, 3, "%02x", i->id[k]);
}

uint64_t
nm_addr(const char *path, char cls, const char *name)
{
	char *nm = run("nm %s", path), pat[160], *s;
	unsigned long long a;

	(void)snprintf(pat, sizeof(pat), " %c %s\n", cls, name);
	s = strstr(nm, pat);
	cr_assert_not_null(s, "%s: no%s", path, pat);
	while (s > nm && s[-1] != '\n')
		s--;
	cr_assert_eq(sscanf(s, "%llx", &a), 1);
	free(nm);
	return a;
}

Elf64_Shdr *
shdr_named(uint8_t *img, const char *name)
{
	Elf64_Ehdr *e = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + e->e_shoff);
	const char *names = (const char *)img + sh[e->e_shstrndx].sh_offset;
	int i;

	for (i = 0; i < e->e_shnum; i++)
		if (strcmp(names + sh[i].sh_name, name) == 0)
			return &sh[i];
	cr_assert_fail("no section %s", name);
	return NULL;
}
