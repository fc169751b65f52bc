/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf_int.h"
#include "common/cursor_int.h"
#include "common/lines_int.h"
#include "sym/perfmap_int.h"

/* A parsed line, before overlaps are resolved. */
struct raw {
	uint64_t start, end;
	size_t name;        /* offset into the names buffer */
	uint32_t name_len;
	uint32_t seq;       /* line order: a larger seq wins */
};

struct sp_perf_map {
	struct spi_perf_map_entry *v;
	size_t n, cap;
	size_t bad;
	char *names;
};

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Moves *i past a run of blanks; returns how many there were. */
static size_t
skip_blanks(const char *s, size_t len, size_t *i)
{
	size_t start = *i;

	while (*i < len && is_blank(s[*i]))
		(*i)++;
	return *i - start;
}

/* "START SIZE NAME" (see perfmap.h); *name_at: where NAME starts. */
static int
parse_line(const char *s, size_t len, struct raw *r, size_t *name_at)
{
	size_t i = 0;
	uint64_t size;

	if (memchr(s, '\0', len) != NULL ||
	    spi_parse_hex(s, len, &i, 1, &r->start) < 0 ||
	    skip_blanks(s, len, &i) == 0 ||
	    spi_parse_hex(s, len, &i, 1, &size) < 0 ||
	    skip_blanks(s, len, &i) == 0 || i == len)
		return -SP_EFORMAT;
	/* An empty range names nothing; one past 2^64 cannot be code. */
	if (size == 0 || size > UINT64_MAX - r->start)
		return -SP_EFORMAT;
	r->end = r->start + size;
	r->name_len = (uint32_t)(len - i);
	*name_at = i;
	return 0;
}

static int
is_blank_line(const char *s, size_t len)
{
	size_t i = 0;

	return skip_blanks(s, len, &i) == len;
}

/* Splits text into raw entries and a buffer of their NUL-terminated names. */
static int
read_lines(const char *text, size_t len, struct raw **out, size_t *nout,
    struct sp_buf *names, size_t *bad)
{
	struct sp_cur c = sp_cur_make(text, len);
	struct raw *v = NULL, r;
	size_t n = 0, cap = 0, linelen, at;
	const char *line;
	int rc;

	while ((rc = spi_next_line(&c, SP_PERF_MAP_LINE_MAX, &line,
	    &linelen)) != 0) {
		if (rc > 0 && is_blank_line(line, linelen))
			continue;
		if (rc < 0 || parse_line(line, linelen, &r, &at) < 0) {
			(*bad)++;
			continue;
		}
		if (n == SP_PERF_MAP_ENTRIES_MAX) {
			free(v);
			return -SP_ELIMIT;
		}
		if (spi_grow_zeroed(&v, &cap, n + 1, sizeof(*v)) != 0) {
			free(v);
			return -ENOMEM;
		}
		r.seq = (uint32_t)n;
		r.name = names->len;
		spi_buf_put(names, line + at, r.name_len);
		spi_buf_u8(names, 0);
		v[n++] = r;
	}
	if (names->err) {
		free(v);
		return names->err;
	}
	*out = v;
	*nout = n;
	return 0;
}

static int
by_start(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A max-heap of indices into r, by seq: the newest active entry on top. */
static void
heap_push(uint32_t *h, size_t *n, const struct raw *r, uint32_t idx)
{
	size_t i = (*n)++, up;

	for (; i > 0; i = up) {
		up = (i - 1) / 2;
		if (r[h[up]].seq >= r[idx].seq)
			break;
		h[i] = h[up];
	}
	h[i] = idx;
}

static void
heap_pop(uint32_t *h, size_t *n, const struct raw *r)
{
	uint32_t last = h[--(*n)];
	size_t i = 0, kid;

	while ((kid = 2 * i + 1) < *n) {
		if (kid + 1 < *n && r[h[kid + 1]].seq > r[h[kid]].seq)
			kid++;
		if (r[h[kid]].seq <= r[last].seq)
			break;
		h[i] = h[kid];
		i = kid;
	}
	if (*n > 0)
		h[i] = last;
}

/* Appends [from, to) of r, extending the last entry when it is the
 * same line's range continued. */
static int
emit(struct sp_perf_map *m, const struct raw *r, uint64_t from, uint64_t to,
    uint32_t *last_seq)
{
	struct spi_perf_map_entry *e;

	if (m->n > 0 && *last_seq == r->seq &&
	    m->v[m->n - 1].start + m->v[m->n - 1].size == from) {
		m->v[m->n - 1].size += to - from;
		return 0;
	}
	if (spi_grow_zeroed(&m->v, &m->cap, m->n + 1, sizeof(*m->v)) != 0)
		return -ENOMEM;
	e = &m->v[m->n++];
	e->start = from;
	e->size = to - from;
	e->name = m->names + r->name;
	e->name_len = r->name_len;
	*last_seq = r->seq;
	return 0;
}

/*
 * Paints the ranges in line order, later over earlier, by sweeping their
 * starts and ends in address order: between two consecutive boundaries
 * the visible entry is the newest one still open.  O(n log n), where
 * inserting each line into a sorted array would be O(n^2).
 */
static int
resolve(struct sp_perf_map *m, struct raw *r, size_t n)
{
	uint64_t *ends, x, next;
	uint32_t *heap, last_seq = 0;
	size_t i = 0, j = 0, hn = 0, k;
	int err = 0;

	if (n == 0)
		return 0;
	ends = malloc(n * sizeof(*ends));
	heap = malloc(n * sizeof(*heap));
	if (ends == NULL || heap == NULL) {
		free(ends);
		free(heap);
		return -ENOMEM;
	}
	qsort(r, n, sizeof(*r), by_start);
	for (k = 0; k < n; k++)
		ends[k] = r[k].end;
	qsort(ends, n, sizeof(*ends), by_value);
	/* Every end lies above its start, so ends remain while starts do. */
	while (err == 0 && j < n) {
		x = i < n && r[i].start < ends[j] ? r[i].start : ends[j];
		while (i < n && r[i].start == x)
			heap_push(heap, &hn, r, (uint32_t)i++);
		while (j < n && ends[j] == x)
			j++;
		while (hn > 0 && r[heap[0]].end <= x)
			heap_pop(heap, &hn, r);
		if (hn == 0)
			continue;
		/* The top's end is still ahead, so j < n. */
		next = i < n && r[i].start < ends[j] ? r[i].start : ends[j];
		err = emit(m, &r[heap[0]], x, next, &last_seq);
	}
	free(ends);
	free(heap);
	return err;
}

int
spi_perf_map_parse(const char *text, size_t len, struct sp_perf_map **out)
{
	struct sp_perf_map *m;
	struct sp_buf names = { NULL, 0, 0, 0 };
	struct raw *r = NULL;
	size_t n = 0;
	int err;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	err = read_lines(text, len, &r, &n, &names, &m->bad);
	m->names = (char *)names.p;
	if (err == 0)
		err = resolve(m, r, n);
	free(r);
	if (err) {
		spi_perf_map_free(m);
		return err;
	}
	*out = m;
	return 0;
}

/* Whether the file open on fd may be read as uid's perf map. */
static int
check_file(int fd, const char *path, uid_t uid, size_t *size,
    struct sp_diag *diag)
{
	char why[96];
	struct stat st;

	if (fstat(fd, &st) < 0)
		return spi_path_fail(diag, path, -errno, NULL);
	if (!S_ISREG(st.st_mode))
		return spi_path_fail(diag, path, -EPERM,
		    "not a regular file (refused)");
	if (uid != (uid_t)-1 && st.st_uid != uid) {
		(void)snprintf(why, sizeof(why), "owned by uid %u, not %u "
		    "(refused)", (unsigned)st.st_uid, (unsigned)uid);
		return spi_path_fail(diag, path, -EPERM, why);
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > SP_PERF_MAP_MAX) {
		(void)snprintf(why, sizeof(why), "%lld bytes, more than the "
		    "limit of %zu", (long long)st.st_size, SP_PERF_MAP_MAX);
		return spi_path_fail(diag, path, -SP_ELIMIT, why);
	}
	*size = (size_t)st.st_size;
	return 0;
}

int
spi_perf_map_open(const char *path, uid_t uid, struct sp_perf_map **out,
    struct sp_diag *diag)
{
	char *text;
	size_t size = 0, len;
	int fd, err;

	*out = NULL;
	/* O_NOFOLLOW: the file is in a world-writable directory and named
	 * by another process; O_NONBLOCK: a FIFO there must not hang us. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		return spi_path_fail(diag, path, err, err == -ELOOP ?
		    "is a symbolic link (refused)" : NULL);
	}
	err = check_file(fd, path, uid, &size, diag);
	if (err == 0) {
		err = spi_read_fd(fd, SP_PERF_MAP_MAX, size, &text, &len);
		if (err)
			(void)spi_path_fail(diag, path, err, err == -SP_ELIMIT ?
			    "grew past the size limit while read" : NULL);
	}
	(void)close(fd);
	if (err)
		return err;
	err = spi_perf_map_parse(text, len, out);
	free(text);
	if (err)
		return spi_path_fail(diag, path, err, err == -SP_ELIMIT ?
		    "more entries than the limit" : NULL);
	return 0;
}

void
spi_perf_map_free(struct sp_perf_map *m)
{
	if (m == NULL)
		return;
	free(m->v);
	free(m->names);
	free(m);
}

const struct spi_perf_map_entry *
spi_perf_map_find(const struct sp_perf_map *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n, mid;

	/* The last entry starting at or below addr. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr - m->v[lo - 1].start >= m->v[lo - 1].size)
		return NULL;
	return &m->v[lo - 1];
}

size_t
spi_perf_map_count(const struct sp_perf_map *m)
{
	return m->n;
}

const struct spi_perf_map_entry *
spi_perf_map_entry(const struct sp_perf_map *m, size_t i)
{
	return i < m->n ? &m->v[i] : NULL;
}

size_t
spi_perf_map_bad_lines(const struct sp_perf_map *m)
{
	return m->bad;
}

int
spi_perf_map_python(const char *name, size_t len, const char **func,
    size_t *func_len, const char **file, size_t *file_len)
{
	const char *colon;

	if (len < 4 || memcmp(name, "py::", 4) != 0)
		return 0;
	colon = memchr(name + 4, ':', len - 4);
	if (colon == NULL)
		return 0;
	*func = name + 4;
	*func_len = (size_t)(colon - *func);
	*file = colon + 1;
	*file_len = len - 4 - *func_len - 1;
	return 1;
}
