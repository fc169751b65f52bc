/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf_int.h"
#include "procfs_int.h"
#include "sp/common/bundle.h"

struct sp_bundle {
	int dirfd;
	int binaries;
	struct sp_buf manifest; /* lines after the first */
};

static int
mkdir_at(int dirfd, const char *name)
{
	struct stat st;

	if (mkdirat(dirfd, name, 0700) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	/* An existing entry must be a real directory, not a link to one. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int
sp_bundle_open(const char *dir, int binaries, struct sp_bundle **out,
    struct sp_diag *diag)
{
	struct sp_bundle *b;
	int err;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	b->dirfd = -1;
	b->binaries = binaries;
	err = mkdir_at(AT_FDCWD, dir);
	if (err == 0) {
		b->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (b->dirfd < 0)
			err = -errno;
	}
	if (err == 0)
		err = mkdir_at(b->dirfd, "perf-maps");
	if (err == 0 && binaries)
		err = mkdir_at(b->dirfd, "binaries");
	if (err == 0 && binaries)
		err = mkdir_at(b->dirfd, "debug");
	if (err) {
		(void)sp_diag_set(diag, 0, err, "bundle %s: %s", dir,
		    sp_strerror(err));
		if (b->dirfd >= 0)
			(void)close(b->dirfd);
		free(b);
		return err;
	}
	*out = b;
	return 0;
}

/* Copies from fd to a new file name (replacing a regular file there). */
static int
copy_to(struct sp_bundle *b, int fd, const char *name)
{
	char buf[65536], tmp[300];
	uint64_t total = 0;
	struct stat st;
	ssize_t n;
	int out, err = 0;

	/* Known too large: refused before a byte is copied.  A file that
	 * grows while copied is caught by the count below. */
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > SP_BUNDLE_FILE_MAX)
		return -EFBIG;
	(void)snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	(void)unlinkat(b->dirfd, tmp, 0);
	out = openat(b->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (out < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		total += (uint64_t)n;
		if (total > SP_BUNDLE_FILE_MAX) {
			err = -EFBIG;
			break;
		}
		if (write(out, buf, (size_t)n) != n) {
			err = -errno;
			break;
		}
	}
	if (close(out) < 0 && err == 0)
		err = -errno;
	/* renameat replaces a file of that name, never following a link
	 * (a symlink at name is replaced, not written through). */
	if (err == 0 && renameat(b->dirfd, tmp, b->dirfd, name) < 0)
		err = -errno;
	if (err)
		(void)unlinkat(b->dirfd, tmp, 0);
	return err;
}

static void
note(struct sp_bundle *b, const char *kind, const char *key,
    const char *file, const char *origin)
{
	spi_buf_put(&b->manifest, kind, strlen(kind));
	spi_buf_put(&b->manifest, "\t", 1);
	spi_buf_put(&b->manifest, key, strlen(key));
	spi_buf_put(&b->manifest, "\t", 1);
	spi_buf_put(&b->manifest, file, strlen(file));
	if (origin != NULL) {
		spi_buf_put(&b->manifest, "\t", 1);
		/* One item per line: a newline in a path becomes a space. */
		for (; *origin != '\0'; origin++)
			spi_buf_u8(&b->manifest, *origin == '\n' ||
			    *origin == '\t' ? ' ' : (uint8_t)*origin);
	}
	spi_buf_put(&b->manifest, "\n", 1);
}

/* Was a note with these first fields (printf's format) kept already?
 * Copies of a pid's map replace earlier ones: it is noted once. */
static int noted(const struct sp_bundle *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
noted(const struct sp_bundle *b, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return b->manifest.len > 0 &&
	    memmem(b->manifest.p, b->manifest.len, line, strlen(line)) != NULL;
}

/* pid's pid in its innermost PID namespace (the last of /proc/PID/status's
 * NSpid), or pid itself. */
static pid_t
ns_pid(pid_t pid)
{
	char path[64], *buf, *line, *end;
	size_t len;
	long v = pid;

	(void)snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (spi_read_file(path, SP_PROC_FILE_MAX, &buf, &len) != 0)
		return pid;
	line = strstr(buf, "\nNSpid:");
	if (line != NULL) {
		for (line += 7; ; line = end) {
			long x = strtol(line, &end, 10);

			if (end == line)
				break;
			v = x;
		}
	}
	free(buf);
	return v > 0 ? (pid_t)v : pid;
}

int
sp_bundle_perf_map(struct sp_bundle *b, pid_t pid, uid_t uid)
{
	char src[96], name[64], key[16];
	struct stat st;
	pid_t nspid = ns_pid(pid);
	int fd, err;

	/* In a PID namespace the runtime names its map by the pid it sees
	 * there, in its own /tmp (node in a container: /tmp/perf-1.map);
	 * the host's /tmp/perf-PID.map is then another process's, an old
	 * one's that had this pid (pids wrap at 32768).  Once such a
	 * process is gone its map is out of reach: the copy kept while it
	 * lived stays. */
	if (nspid != pid)
		(void)snprintf(src, sizeof(src), "/proc/%d/root/tmp/perf-%d.map",
		    (int)pid, (int)nspid);
	else if (noted(b, "perf-map\t%d\tperf-maps/perf-%d.map\t/proc/",
	    (int)pid, (int)pid))
		return 0;
	else
		(void)snprintf(src, sizeof(src), "/tmp/perf-%d.map", (int)pid);
	fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return -EPERM;
	}
	if (st.st_uid != uid) {
		(void)close(fd);
		return -EPERM;
	}
	(void)snprintf(name, sizeof(name), "perf-maps/perf-%d.map", (int)pid);
	err = copy_to(b, fd, name);
	(void)close(fd);
	if (err == 0 && !noted(b, "perf-map\t%d\t", (int)pid)) {
		(void)snprintf(key, sizeof(key), "%d", (int)pid);
		note(b, "perf-map", key, name, src);
	}
	return err;
}

/*
 * Whether kallsyms text t[0..len) hides its addresses (kptr_restrict, or
 * a reader without CAP_SYSLOG: every address zeros), judged by the first
 * text symbol ("ADDR t NAME"): the first line may be a per-CPU symbol,
 * which is at 0 for real (Debian's 5.10 to 6.12: "0000000000000000 A
 * fixed_percpu_data").  No text symbol: nothing worth keeping either.
 */
static int
kallsyms_hidden(const char *t, size_t len)
{
	const char *l = t, *end = t + len, *nl, *sp;

	for (; l < end; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (nl == NULL)
			nl = end;
		sp = memchr(l, ' ', (size_t)(nl - l));
		if (sp == NULL || nl - sp < 3 || sp[2] != ' ' ||
		    (sp[1] != 't' && sp[1] != 'T'))
			continue;
		while (l < sp && *l == '0')
			l++;
		return l == sp;
	}
	return 1;
}

int
sp_bundle_kallsyms(struct sp_bundle *b)
{
	char *buf;
	size_t len;
	int fd, err = spi_read_file("/proc/kallsyms", SP_PROC_FILE_MAX, &buf,
	    &len);

	if (err)
		return err;
	err = kallsyms_hidden(buf, len) ? -EPERM : 0;
	free(buf);
	if (err)
		return err;
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = copy_to(b, fd, "kallsyms");
	(void)close(fd);
	if (err == 0)
		note(b, "kallsyms", "-", "kallsyms", "/proc/kallsyms");
	return err;
}

/* Keeps fd's file as DIR/BUILDID, noted as kind, once. */
static int
keep(struct sp_bundle *b, int fd, const uint8_t *build_id, size_t len,
    const char *origin, const char *dir, const char *kind)
{
	char hex[2 * 64 + 1], name[160];
	struct stat st;
	size_t i;
	int err;

	if (len == 0 || len > 64)
		return 0;
	/* A bundle opened without binaries gets its folder when the
	 * recorder keeps a file all the same (one only a namespace
	 * reaches). */
	err = mkdir_at(b->dirfd, dir);
	if (err)
		return err;
	for (i = 0; i < len; i++)
		(void)snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
	(void)snprintf(name, sizeof(name), "%s/%s", dir, hex);
	/* Kept already, by this run or an earlier one into the same
	 * directory.  Anything else there (a symlink planted to make
	 * sp-sym read another file) is replaced. */
	if (fstatat(b->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode))
		return 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	err = copy_to(b, fd, name);
	if (err == 0)
		note(b, kind, hex, name, origin);
	return err;
}

int
sp_bundle_binary(struct sp_bundle *b, int fd, const uint8_t *build_id,
    size_t len, const char *origin)
{
	return keep(b, fd, build_id, len, origin, "binaries", "binary");
}

int
sp_bundle_debug(struct sp_bundle *b, int fd, const uint8_t *build_id,
    size_t len, const char *origin)
{
	return keep(b, fd, build_id, len, origin, "debug", "debug");
}

int
sp_bundle_keeps_binaries(const struct sp_bundle *b)
{
	return b != NULL && b->binaries;
}

int
sp_bundle_beside(const char *spool, char *buf, size_t cap)
{
	int n;

	if (spool == NULL || strcmp(spool, "-") == 0)
		return -EINVAL;
	n = snprintf(buf, cap, "%s%s", spool, SP_BUNDLE_BESIDE_SUFFIX);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int
sp_bundle_finish(struct sp_bundle *b)
{
	static const char head[] = "stackpulse-bundle 1\n";
	int fd, err = 0;

	if (b->manifest.err)
		return b->manifest.err;
	(void)unlinkat(b->dirfd, "manifest", 0);
	fd = openat(b->dirfd, "manifest", O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, head, sizeof(head) - 1) != (ssize_t)sizeof(head) - 1 ||
	    (b->manifest.len > 0 && write(fd, b->manifest.p, b->manifest.len) !=
	    (ssize_t)b->manifest.len))
		err = -errno;
	if (close(fd) < 0 && err == 0)
		err = -errno;
	return err;
}

/* One step of sp_bundle_check: name below dirfd, a directory or the file. */
static int
check_at(int dirfd, const char *name, int last)
{
	struct stat st;

	if (name[0] == '\0' || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return -EINVAL;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (last ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode))
		return -EPERM;
	return 0;
}

int
sp_bundle_check(const char *dir, const char *rel)
{
	char name[256];
	const char *p = rel, *slash;
	int fd, next, err = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (err == 0) {
		slash = strchr(p, '/');
		if ((slash != NULL ? (size_t)(slash - p) : strlen(p)) >=
		    sizeof(name)) {
			err = -ENAMETOOLONG;
			break;
		}
		(void)snprintf(name, sizeof(name), "%.*s", slash != NULL ?
		    (int)(slash - p) : (int)strlen(p), p);
		err = check_at(fd, name, slash == NULL);
		if (err != 0 || slash == NULL)
			break;
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (next < 0)
			err = -errno;
		(void)close(fd);
		fd = next;
		p = slash + 1;
	}
	if (fd >= 0)
		(void)close(fd);
	return err;
}

void
sp_bundle_free(struct sp_bundle *b)
{
	if (b == NULL)
		return;
	if (b->dirfd >= 0)
		(void)close(b->dirfd);
	spi_buf_fini(&b->manifest);
	free(b);
}
