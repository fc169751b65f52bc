/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf_int.h"
#include "lines_int.h"
#include "procfs_int.h"
#include "sp/common/error.h"

int
spi_read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	/* /proc files say no size: no hint. */
	err = spi_read_fd(fd, max, 0, out, len);
	(void)close(fd);
	return err;
}

/* Parses a hex number; returns the text after it or NULL. */
static const char *
hex(const char *p, const char *end, uint64_t *v)
{
	const char *start = p;

	*v = 0;
	for (; p < end; p++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		if (*v >> 60)
			return NULL;
		*v = *v << 4 | (uint64_t)d;
	}
	return p > start ? p : NULL;
}

static const char *
dec(const char *p, const char *end, uint64_t *v)
{
	const char *start = p;

	*v = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return NULL;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	return p > start ? p : NULL;
}

static const char *
expect(const char *p, const char *end, char c)
{
	return p != NULL && p < end && *p == c ? p + 1 : NULL;
}

/* proc(5): "start-end perms offset major:minor inode   path" */
int
spi_parse_maps_line(const char *line, size_t len, struct sp_map *m)
{
	const char *p = line, *end = line + len;
	uint64_t maj, min;

	memset(m, 0, sizeof(*m));
	p = hex(p, end, &m->start);
	p = expect(p, end, '-');
	p = p ? hex(p, end, &m->end) : NULL;
	p = expect(p, end, ' ');
	if (p == NULL || end - p < 5 || m->end <= m->start)
		return -SP_EFORMAT;
	m->exec = p[2] == 'x';
	p = expect(p + 4, end, ' ');
	p = p ? hex(p, end, &m->offset) : NULL;
	p = expect(p, end, ' ');
	p = p ? hex(p, end, &maj) : NULL;
	p = expect(p, end, ':');
	p = p ? hex(p, end, &min) : NULL;
	p = expect(p, end, ' ');
	p = p ? dec(p, end, &m->inode) : NULL;
	if (p == NULL || maj > UINT32_MAX || min > UINT32_MAX)
		return -SP_EFORMAT;
	m->dev_major = (uint32_t)maj;
	m->dev_minor = (uint32_t)min;
	while (p < end && *p == ' ')
		p++;
	m->path = p;
	m->path_len = (size_t)(end - p);
	return 0;
}

size_t
spi_maps_path_unescape(char *path, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (path[i] == '\\' && len - i >= 4 &&
		    memcmp(path + i + 1, "012", 3) == 0) {
			path[o++] = '\n';
			i += 3;
		} else {
			path[o++] = path[i];
		}
	}
	return o;
}

/* The numeric entries of directory path (/proc, /proc/PID/task) into a
 * new array.  0, -ESRCH (no such directory) or -errno. */
static int
numeric_entries(const char *path, pid_t **out, size_t *n)
{
	DIR *d;
	struct dirent *e;
	size_t cap = 0;
	pid_t *v = NULL;

	*out = NULL;
	*n = 0;
	d = opendir(path);
	if (d == NULL)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((e = readdir(d)) != NULL) {
		long t = strtol(e->d_name, NULL, 10);

		if (t <= 0)
			continue;
		if (spi_grow_zeroed(&v, &cap, *n + 1, sizeof(*v)) != 0) {
			free(v);
			(void)closedir(d);
			*n = 0;
			return -ENOMEM;
		}
		v[(*n)++] = (pid_t)t;
	}
	(void)closedir(d);
	*out = v;
	return 0;
}

int
spi_proc_tasks(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];

	(void)snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return numeric_entries(path, tids, n);
}

int
spi_proc_pids(pid_t **pids, size_t *n)
{
	return numeric_entries("/proc", pids, n);
}

/* Appends pid to v unless it is there, or v is full.  0 or -ENOMEM. */
static int
add_pid(pid_t **v, size_t *cap, size_t *n, pid_t pid)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == pid)
			return 0;
	if (*n == SP_DESCENDANTS_MAX)
		return 0;
	if (spi_grow_zeroed(v, cap, *n + 1, sizeof(**v)) != 0)
		return -ENOMEM;
	(*v)[(*n)++] = pid;
	return 0;
}

/* The children of pid's threads from /proc/PID/task/TID/children into v:
 * 0, -ENOENT (no such files: the kernel lacks them), -ENOMEM. */
static int
children_files(pid_t pid, pid_t **v, size_t *cap, size_t *n)
{
	char path[96], *buf, *s, *end;
	pid_t *tids;
	size_t ntids, len, i;
	int err = spi_proc_tasks(pid, &tids, &ntids), any = 0;

	if (err)
		return 0; /* gone: no children to follow */
	for (i = 0; i < ntids && err != -ENOMEM; i++) {
		(void)snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
		    (int)pid, (int)tids[i]);
		err = spi_read_file(path, SP_PROC_FILE_MAX, &buf, &len);
		if (err == -ENOENT)
			continue;
		any = 1;
		if (err || buf == NULL)
			continue;
		for (s = buf; err == 0; s = end) {
			long c = strtol(s, &end, 10);

			if (end == s)
				break;
			if (c > 0)
				err = add_pid(v, cap, n, (pid_t)c);
		}
		free(buf);
	}
	free(tids);
	if (err == -ENOMEM)
		return err;
	return any || ntids == 0 ? 0 : -ENOENT;
}

int
spi_proc_stat(pid_t pid, char *state, pid_t *ppid)
{
	char path[64], *buf, *end;
	size_t len;
	int err;

	(void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((err = spi_read_file(path, 4096, &buf, &len)) != 0 || buf == NULL)
		return err == -ENOENT ? -ESRCH : err ? err : -SP_EFORMAT;
	/* "pid (comm) state ppid ...": comm may hold ')' and spaces. */
	end = strrchr(buf, ')');
	err = -SP_EFORMAT;
	if (end != NULL && end[1] == ' ' && end[2] != '\0' && end[3] == ' ') {
		*state = end[2];
		*ppid = (pid_t)strtol(end + 4, NULL, 10);
		err = 0;
	}
	free(buf);
	return err;
}

/* Every process's parent, from /proc/N/stat, into pairs (pid, ppid). */
static int
all_parents(pid_t **pairs, size_t *cap, size_t *n)
{
	pid_t *pids;
	size_t np, i;
	char state;
	int err = spi_proc_pids(&pids, &np);

	if (err)
		return err == -ENOMEM ? err : 0;
	for (i = 0; i < np; i++) {
		if (spi_grow_zeroed(pairs, cap, *n + 2, sizeof(**pairs)) != 0) {
			free(pids);
			return -ENOMEM;
		}
		(*pairs)[*n] = pids[i];
		if (spi_proc_stat(pids[i], &state, &(*pairs)[*n + 1]) == 0)
			*n += 2;
	}
	free(pids);
	return 0;
}

int
sp_process_descendants(pid_t pid, pid_t **pids, size_t *n)
{
	pid_t *v = NULL, *pairs = NULL;
	size_t cap = 0, pcap = 0, np = 0, i, k;
	int err = 0;

	*pids = NULL;
	*n = 0;
	/* Breadth first: v grows as each process's children are read. */
	err = children_files(pid, &v, &cap, n);
	for (i = 0; err == 0 && v != NULL && i < *n; i++)
		err = children_files(v[i], &v, &cap, n);
	if (err == -ENOENT) {
		*n = 0;
		err = all_parents(&pairs, &pcap, &np);
		for (i = 0; err == 0 && i <= *n; i++) {
			pid_t parent = i == 0 || v == NULL ? pid : v[i - 1];

			if (i > 0 && v == NULL)
				break;

			for (k = 0; err == 0 && k < np; k += 2)
				if (pairs[k + 1] == parent)
					err = add_pid(&v, &cap, n, pairs[k]);
		}
		free(pairs);
	}
	if (err) {
		free(v);
		*n = 0;
		return err;
	}
	*pids = v;
	return 0;
}

/* Up to cap - 1 bytes of the small file path into buf: how many, or
 * -errno. */
static ssize_t
read_small(const char *path, char *buf, size_t cap)
{
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, cap - 1);
	err = errno;
	(void)close(fd);
	return r < 0 ? -err : r;
}

int
spi_proc_comm(pid_t pid, pid_t tid, char *buf, size_t cap)
{
	char path[64];
	ssize_t r;

	(void)snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
	    (int)tid);
	buf[0] = '\0';
	r = read_small(path, buf, cap);
	if (r < 0)
		return (int)r;
	while (r > 0 && buf[r - 1] == '\n')
		r--;
	buf[r] = '\0';
	return 0;
}

int
spi_proc_exe_name(pid_t pid, char *buf, size_t cap)
{
	char path[64], target[PATH_MAX];
	const char *base;
	ssize_t r;

	buf[0] = '\0';
	(void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	r = readlink(path, target, sizeof(target) - 1);
	if (r < 0)
		return -errno;
	target[r] = '\0';
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	(void)snprintf(buf, cap, "%s", base);
	return 0;
}

int
spi_proc_args(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	ssize_t r, i;

	buf[0] = '\0';
	(void)snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	r = read_small(path, buf, cap);
	if (r < 0)
		return (int)r;
	for (i = 0; i < r; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[r] = '\0';
	return 0;
}

int
spi_read_long(const char *path, long *v)
{
	char buf[64];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	r = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (r <= 0)
		return r < 0 ? -errno : -SP_EFORMAT;
	buf[r] = '\0';
	*v = strtol(buf, NULL, 10);
	return 0;
}

/* Appends the pids of dir/cgroup.procs to *v; then each child
 * cgroup's, depth levels down at most.  0 or -errno. */
static int
cgroup_walk(int dirfd, int depth, pid_t **v, size_t *cap, size_t *n)
{
	char *buf, *line, *end;
	size_t len;
	DIR *d;
	struct dirent *e;
	int fd, sub, err;

	fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = spi_read_fd(fd, SP_PROC_FILE_MAX, 0, &buf, &len);
	(void)close(fd);
	if (err)
		return err;
	for (line = buf; err == 0 && line < buf + len; line = end + 1) {
		long p = strtol(line, &end, 10);

		if (end == line)
			break;
		if (p > 0 && *n < SP_CGROUP_PIDS_MAX) {
			if (spi_grow_zeroed(v, cap, *n + 1, sizeof(**v)) != 0)
				err = -ENOMEM;
			else
				(*v)[(*n)++] = (pid_t)p;
		}
	}
	free(buf);
	if (err || depth == 0)
		return err;
	if ((fd = dup(dirfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		err = -errno;
		if (fd >= 0)
			(void)close(fd);
		return err;
	}
	while (err == 0 && (e = readdir(d)) != NULL) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue; /* removed meanwhile */
		err = cgroup_walk(sub, depth - 1, v, cap, n);
		if (err == -ENOENT || err == -ENODEV)
			err = 0;
		(void)close(sub);
	}
	(void)closedir(d);
	return err;
}

int
spi_cgroup_pids(int dirfd, pid_t **pids, size_t *n)
{
	size_t cap = 0;
	int err;

	*pids = NULL;
	*n = 0;
	err = cgroup_walk(dirfd, SP_CGROUP_DEPTH_MAX, pids, &cap, n);
	if (err) {
		free(*pids);
		*pids = NULL;
		*n = 0;
	}
	return err;
}
