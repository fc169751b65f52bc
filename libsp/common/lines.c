/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lines_int.h"
#include "sp/common/error.h"

int
spi_read_fd(int fd, size_t max, size_t hint, char **out, size_t *len)
{
	size_t cap, n = 0;
	char *buf = NULL, *p;
	ssize_t r;

	*out = NULL;
	*len = 0;
	/* Room for max + 1 bytes at most: reading one byte more than max
	 * tells a file at the cap from a larger one (a perf map may grow
	 * while it is read). */
	cap = (hint < max ? hint : max) + 1;
	if (cap < 4096)
		cap = 4096;
	buf = malloc(cap + 1);
	if (buf == NULL)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				free(buf);
				return -SP_ELIMIT;
			}
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			p = realloc(buf, cap + 1);
			if (p == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(buf);
		return -SP_ELIMIT;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int
spi_next_line(struct sp_cur *c, size_t max, const char **line, size_t *len)
{
	size_t left = sp_cur_left(c), n;
	const uint8_t *s = c->p + c->pos, *nl;

	if (left == 0)
		return 0;
	nl = memchr(s, '\n', left);
	n = nl != NULL ? (size_t)(nl - s) : left;
	(void)sp_take(c, nl != NULL ? n + 1 : n);
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n > max)
		return -SP_ELIMIT;
	*line = (const char *)s;
	*len = n;
	return 1;
}

static int
hexdigit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int
spi_parse_hex(const char *s, size_t len, size_t *pos, int prefix,
    uint64_t *v)
{
	size_t i = *pos, start;
	int d;

	*v = 0;
	if (prefix && len - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' ||
	    s[i + 1] == 'X'))
		i += 2;
	for (start = i; i < len && (d = hexdigit(s[i])) >= 0; i++) {
		if (*v >> 60)
			return -SP_EFORMAT;
		*v = *v << 4 | (uint64_t)d;
	}
	if (i == start)
		return -SP_EFORMAT;
	*pos = i;
	return 0;
}

int
spi_path_fail(struct sp_diag *diag, const char *path, int err, const char *why)
{
	return sp_diag_set(diag, 0, err, "%s: %s", path,
	    why != NULL ? why : sp_strerror(err));
}
