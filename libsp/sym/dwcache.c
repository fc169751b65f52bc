/* SPDX-License-Identifier: MIT */
/* The cache of inflated DWARF: see dwcache_int.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cursor_int.h"
#include "common/hex_int.h"
#include "dwcache_int.h"
#include "sp/common/error.h"

/*
 * An entry, little-endian:
 *   0   "SPDWARF\n"
 *   8   u32 version (1), u32 n: the sections, in the caller's order
 *   16  u8 build-id length, the build-id (64 bytes, zero-padded)
 *   88  n slots of four u64: the section's stored size, its inflated
 *       size, where its bytes start in the entry (16-aligned), and their
 *       length; all 0 for a section the source does not compress
 *   then the bytes.
 */
#define VERSION 1u
static const uint8_t magic[8] = { 'S', 'P', 'D', 'W', 'A', 'R', 'F', '\n' };
#define HEAD 88u
#define SLOT 32u
#define NSEC_MAX 16u
#define ID_MAX 64u
#define DAY 86400
/* Entries a prune looks at: a directory of more is pruned in parts. */
#define PRUNE_MAX 4096u

/* What the entry of a file must hold: each section's shape. */
struct spi_dwcache_plan {
	size_t n;                   /* sections */
	uint64_t stored[NSEC_MAX], size[NSEC_MAX];
	int compressed[NSEC_MAX];
	uint64_t total;             /* inflated bytes of the compressed */
	const uint8_t *id;          /* the file's: valid while it is open */
	size_t id_len;
	char path[PATH_MAX];        /* DIR/BUILDID.dwarf */
	size_t dir_len;             /* of DIR in path */
};

static int
plan_of(const char *dir, const struct sp_elf_file *f,
    const char *const *names, size_t n, struct spi_dwcache_plan *p)
{
	char hex[2 * ID_MAX + 1];
	size_t i;
	int err, len;

	if (dir == NULL || dir[0] == '\0' || n > NSEC_MAX ||
	    spi_elf_file_build_id(f, &p->id, &p->id_len) != 0 ||
	    p->id_len == 0 || p->id_len > ID_MAX)
		return -SP_ENOTFOUND;
	p->n = n;
	p->total = 0;
	for (i = 0; i < n; i++) {
		err = spi_elf_file_section_shape(f, names[i], &p->stored[i],
		    &p->size[i], &p->compressed[i]);
		if (err == -SP_ENOTFOUND) {
			p->stored[i] = p->size[i] = 0;
			p->compressed[i] = 0;
		} else if (err < 0) {
			return -SP_ENOTFOUND;   /* as it is read, not cached */
		}
		if (p->compressed[i])
			p->total += p->size[i];
	}
	if (p->total < SPI_DWCACHE_MIN)
		return -SP_ENOTFOUND;
	sp_hex(hex, p->id, p->id_len);
	p->dir_len = strlen(dir);
	len = snprintf(p->path, sizeof(p->path), "%s/%s.dwarf", dir, hex);
	return len < 0 || (size_t)len >= sizeof(p->path) ? -SP_ENOTFOUND : 0;
}

/* Whether the entry m[0..len) is f's, as p describes it: 1 or 0. */
static int
entry_ok(const uint8_t *m, size_t len, const struct spi_dwcache_plan *p)
{
	size_t i, n = p->n;

	if (len < HEAD + n * SLOT || memcmp(m, magic, sizeof(magic)) != 0 ||
	    sp_le32(m + 8) != VERSION || sp_le32(m + 12) != n ||
	    m[16] != p->id_len || memcmp(m + 17, p->id, p->id_len) != 0)
		return 0;
	for (i = 0; i < n; i++) {
		const uint8_t *s = m + HEAD + i * SLOT;
		uint64_t off = sp_le64(s + 16), l = sp_le64(s + 24);

		if (!p->compressed[i]) {
			if (sp_le64(s) != 0 || sp_le64(s + 8) != 0 ||
			    off != 0 || l != 0)
				return 0;
			continue;
		}
		if (sp_le64(s) != p->stored[i] || sp_le64(s + 8) != p->size[i] ||
		    l != p->size[i] || off > len || l > len - off)
			return 0;
	}
	return 1;
}

int
spi_dwcache_get(const char *dir, const struct sp_elf_file *f,
    const char *const *names, size_t n, struct sp_dwarf_bytes *const *bytes,
    struct spi_dwcache *c)
{
	struct spi_dwcache_plan *p;
	struct stat st;
	void *m = MAP_FAILED;
	size_t i;
	int fd;

	memset(c, 0, sizeof(*c));
	if ((p = malloc(sizeof(*p))) == NULL)
		return -ENOMEM;
	if (plan_of(dir, f, names, n, p) != 0) {
		free(p);
		return -SP_ENOTFOUND;
	}
	/* Kept for spi_dwcache_put unless the entry serves. */
	c->plan = p;
	fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -SP_ENOTFOUND;
	/* Another user's entry is not read: only its owner writes it. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && st.st_size >= (off_t)HEAD &&
	    (uint64_t)st.st_size <= SIZE_MAX)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
		    0);
	if (m != MAP_FAILED && !entry_ok(m, (size_t)st.st_size, p)) {
		(void)munmap(m, (size_t)st.st_size);
		m = MAP_FAILED;
	}
	/* Used: its time moves on, once a day at most (prune's order). */
	if (m != MAP_FAILED && st.st_mtime < time(NULL) - DAY)
		(void)futimens(fd, NULL);
	(void)close(fd);
	if (m == MAP_FAILED)
		return -SP_ENOTFOUND;
	for (i = 0; i < n; i++) {
		const uint8_t *s = (const uint8_t *)m + HEAD + i * SLOT;

		if (!p->compressed[i])
			continue;
		bytes[i]->p = (const uint8_t *)m + sp_le64(s + 16);
		bytes[i]->len = (size_t)sp_le64(s + 24);
	}
	c->map = m;
	c->len = (size_t)st.st_size;
	c->plan = NULL;
	free(p);
	return 0;
}

static void
put_le64(uint8_t *b, uint64_t v)
{
	sp_put_le32(b, (uint32_t)v);
	sp_put_le32(b + 4, (uint32_t)(v >> 32));
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The head and slots of f's entry, its bytes laid out 16-aligned. */
static void
head_of(uint8_t *h, const struct spi_dwcache_plan *p)
{
	size_t i, n = p->n;
	uint64_t at = HEAD + n * SLOT;

	memset(h, 0, HEAD + n * SLOT);
	memcpy(h, magic, sizeof(magic));
	sp_put_le32(h + 8, VERSION);
	sp_put_le32(h + 12, (uint32_t)n);
	h[16] = (uint8_t)p->id_len;
	memcpy(h + 17, p->id, p->id_len);
	for (i = 0; i < n; i++) {
		uint8_t *s = h + HEAD + i * SLOT;

		if (!p->compressed[i])
			continue;
		at = (at + 15) & ~(uint64_t)15;
		put_le64(s, p->stored[i]);
		put_le64(s + 8, p->size[i]);
		put_le64(s + 16, at);
		put_le64(s + 24, p->size[i]);
		at += p->size[i];
	}
}

static int
write_entry(int fd, const struct spi_dwcache_plan *p,
    const struct sp_dwarf_bytes *const *bytes)
{
	static const uint8_t zeros[16];
	uint8_t h[HEAD + NSEC_MAX * SLOT];
	uint64_t at = HEAD + p->n * SLOT;
	size_t i;
	int err;

	head_of(h, p);
	if ((err = write_all(fd, h, (size_t)at)) < 0)
		return err;
	for (i = 0; i < p->n; i++) {
		size_t pad = (size_t)(((at + 15) & ~(uint64_t)15) - at);

		if (!p->compressed[i])
			continue;
		/* Only bytes inflated to the size the header states. */
		if (bytes[i]->len != p->size[i] ||
		    (bytes[i]->p == NULL && bytes[i]->len > 0))
			return -SP_ENOTFOUND;
		if ((err = write_all(fd, zeros, pad)) < 0 ||
		    (err = write_all(fd, bytes[i]->p, bytes[i]->len)) < 0)
			return err;
		at += pad + bytes[i]->len;
	}
	return 0;
}

/* Whether name is HEX.dwarf (1), HEX.dwarf.XXXXXX, a temporary one
 * (2), or neither (0): nothing else in the directory is touched. */
static int
entry_name(const char *name)
{
	size_t n = strspn(name, "0123456789abcdef");

	if (n == 0 || strncmp(name + n, ".dwarf", 6) != 0)
		return 0;
	if (name[n + 6] == '\0')
		return 1;
	return name[n + 6] == '.' && strlen(name + n + 7) == 6 ? 2 : 0;
}

struct old {
	int64_t mtime;
	uint64_t size;
	char name[NAME_MAX + 1];
};

static int
by_age(const void *x, const void *y)
{
	const struct old *a = x, *b = y;

	if (a->mtime != b->mtime)
		return a->mtime < b->mtime ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * After keep was written in dir: removes the user's entries not used
 * for SPI_DWCACHE_AGE, temporary files a day old (a run that died while
 * writing), then the least recently used entries while all take more
 * than SPI_DWCACHE_MAX bytes.  Best effort, as the cache is.
 */
static void
prune(const char *dir, const char *keep)
{
	time_t now = time(NULL);
	uint64_t total = 0;
	struct dirent *de;
	struct old *v;
	struct stat st;
	size_t n = 0, i;
	DIR *d;
	int kind;

	if ((v = malloc(PRUNE_MAX * sizeof(*v))) == NULL)
		return;
	if ((d = opendir(dir)) == NULL) {
		free(v);
		return;
	}
	while (n < PRUNE_MAX && (de = readdir(d)) != NULL) {
		if ((kind = entry_name(de->d_name)) == 0 ||
		    fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		if (kind == 2) {
			if (st.st_mtime < now - DAY)
				(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (strcmp(de->d_name, keep) == 0) {
			total += (uint64_t)st.st_size;
			continue;
		}
		if (st.st_mtime < now - SPI_DWCACHE_AGE) {
			(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		total += (uint64_t)st.st_size;
		v[n].mtime = (int64_t)st.st_mtime;
		v[n].size = (uint64_t)st.st_size;
		(void)snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		n++;
	}
	qsort(v, n, sizeof(*v), by_age);
	for (i = 0; i < n && total > SPI_DWCACHE_MAX; i++)
		if (unlinkat(dirfd(d), v[i].name, 0) == 0)
			total -= v[i].size;
	(void)closedir(d);
	free(v);
}

int
spi_dwcache_put(struct spi_dwcache *c,
    const struct sp_dwarf_bytes *const *bytes)
{
	static const char suffix[] = ".XXXXXX";
	struct spi_dwcache_plan *p = c->plan;
	char tmp[PATH_MAX];
	size_t len;
	int fd, err;

	if (p == NULL)
		return -SP_ENOTFOUND;
	c->plan = NULL;
	/* The directory, then the temporary name, from the entry's path. */
	memcpy(tmp, p->path, p->dir_len);
	tmp[p->dir_len] = '\0';
	err = spi_make_dirs(tmp);
	len = strlen(p->path);
	if (err == 0 && len + sizeof(suffix) > sizeof(tmp))
		err = -ENAMETOOLONG;
	if (err < 0) {
		free(p);
		return err;
	}
	memcpy(tmp, p->path, len);
	memcpy(tmp + len, suffix, sizeof(suffix));
	/* mkstemp makes it 0600; renamed into place whole, or removed. */
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
	} else {
		err = write_entry(fd, p, bytes);
		if (close(fd) < 0 && err == 0)
			err = -errno;
		if (err == 0 && rename(tmp, p->path) < 0)
			err = -errno;
		if (err < 0)
			(void)unlink(tmp);
	}
	if (err == 0) {
		p->path[p->dir_len] = '\0';
		prune(p->path, p->path + p->dir_len + 1);
	}
	free(p);
	return err;
}

void
spi_dwcache_fini(struct spi_dwcache *c)
{
	if (c->map != NULL)
		(void)munmap(c->map, c->len);
	free(c->plan);
	memset(c, 0, sizeof(*c));
}

int
spi_make_dirs(const char *path)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++)
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];

			buf[i] = '\0';
			if (mkdir(buf, 0700) < 0 && errno != EEXIST)
				return -errno;
			buf[i] = c;
		}
	return 0;
}
