/* SPDX-License-Identifier: MIT */
/*
 * The HTTP/1.x client of the debuginfod fetches: http:// URLs, a socket
 * with timeouts, a GET, and the response's status, headers and body
 * (Content-Length, chunked, or to the end), with the sizes capped.  It
 * knows nothing of debuginfod.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_int.h"
#include "sp/common/error.h"
#include "sp/sym/debuginfod.h"

int
spi_http_parse_url(const char *u, struct spi_url *out)
{
	const char *p = u + strlen("http://"), *end, *colon;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (*p == '[') { /* [IPv6] */
		end = strchr(p, ']');
		if (end == NULL || (size_t)(end - p - 1) >= sizeof(out->host))
			return -1;
		memcpy(out->host, p + 1, (size_t)(end - p - 1));
		p = end + 1;
	} else {
		n = strcspn(p, ":/");
		if (n == 0 || n >= sizeof(out->host))
			return -1;
		memcpy(out->host, p, n);
		p += n;
	}
	memcpy(out->port, "80", sizeof("80"));
	if (*p == ':') {
		colon = ++p;
		n = strspn(p, "0123456789");
		if (n == 0 || n > 5)
			return -1;
		memcpy(out->port, colon, n);
		out->port[n] = '\0';
		p += n;
	}
	if (*p != '\0' && *p != '/')
		return -1;
	n = strlen(p);
	while (n > 0 && p[n - 1] == '/')
		n--;
	if (n >= sizeof(out->path))
		return -1;
	memcpy(out->path, p, n);
	out->path[n] = '\0';
	return 0;
}

/* Waits for fd to be ready; 0, or -ETIMEDOUT. */
static int
wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { fd, events, 0 };
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

/* A connected socket to u, or -errno / -SP_EFORMAT (name not found). */
static int
connect_to(const struct spi_url *u, int timeout_ms, const char **what)
{
	struct addrinfo hints, *res, *a;
	int fd = -1, err = -ECONNREFUSED, soerr;
	socklen_t len = sizeof(soerr);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(u->host, u->port, &hints, &res) != 0) {
		*what = "host not found";
		return -ENOENT;
	}
	*what = NULL;
	for (a = res; a != NULL; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		err = -errno;
		if (err == -EINPROGRESS) {
			err = wait_fd(fd, POLLOUT, timeout_ms);
			if (err == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR,
			    &soerr, &len) == 0)
				err = -soerr;
			if (err == 0)
				break;
		}
		(void)close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : err;
}

static int
send_all(int fd, const char *p, size_t n, int timeout_ms)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			int err = wait_fd(fd, POLLOUT, timeout_ms);

			if (err)
				return err;
			continue;
		}
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A received response, read through a small buffer. */
struct conn {
	int fd, timeout_ms;
	char buf[SP_DEBUGINFOD_HEADER_MAX];
	size_t off, len;
};

/* More bytes into c->buf; >0 read, 0 at the end, -errno, -ETIMEDOUT. */
static ssize_t
fill(struct conn *c)
{
	ssize_t n;

	if (c->off > 0) {
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	if (c->len == sizeof(c->buf))
		return -E2BIG;
	for (;;) {
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		n = wait_fd(c->fd, POLLIN, c->timeout_ms);
		if (n < 0)
			return n;
	}
	c->len += (size_t)n;
	return n;
}

/* One line (CRLF or LF cut off) of at most cap - 1 bytes; 0, or -errno,
 * -E2BIG (too long), -EPIPE (the connection ended). */
static int
read_line(struct conn *c, char *line, size_t cap)
{
	for (;;) {
		char *nl = memchr(c->buf + c->off, '\n', c->len - c->off);
		ssize_t r;

		if (nl != NULL) {
			size_t n = (size_t)(nl - (c->buf + c->off));

			if (n > 0 && c->buf[c->off + n - 1] == '\r')
				n--;
			if (n >= cap)
				return -E2BIG;
			memcpy(line, c->buf + c->off, n);
			line[n] = '\0';
			c->off = (size_t)(nl - c->buf) + 1;
			return 0;
		}
		r = fill(c);
		if (r == 0)
			return -EPIPE;
		if (r < 0)
			return (int)r;
	}
}

/* Copies up to n body bytes (all to the end when n is UINT64_MAX) to
 * out; 0, -EPIPE short, -EFBIG over the limit, -errno. */
static int
copy_body(struct conn *c, int out, uint64_t n, uint64_t *bytes)
{
	while (n > 0) {
		size_t have = c->len - c->off, take;

		if (have == 0) {
			ssize_t r = fill(c);

			if (r == 0)
				return n == UINT64_MAX ? 0 : -EPIPE;
			if (r < 0)
				return (int)r;
			continue;
		}
		take = n < have ? (size_t)n : have;
		if (*bytes + take > SP_DEBUGINFOD_FILE_MAX)
			return -EFBIG;
		for (size_t done = 0; done < take;) {
			ssize_t w = write(out, c->buf + c->off + done,
			    take - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			done += (size_t)w;
		}
		c->off += take;
		*bytes += take;
		if (n != UINT64_MAX)
			n -= take;
	}
	return 0;
}

static int
copy_chunked(struct conn *c, int out, uint64_t *bytes)
{
	char line[128], *end;
	unsigned long long size;
	int err;

	for (;;) {
		if ((err = read_line(c, line, sizeof(line))) != 0)
			return err;
		errno = 0;
		size = strtoull(line, &end, 16);
		if (end == line || errno != 0 || size > SP_DEBUGINFOD_FILE_MAX)
			return -SP_EFORMAT;
		if (size == 0)
			return 0; /* trailers, if any, are not needed */
		if ((err = copy_body(c, out, size, bytes)) != 0 ||
		    (err = read_line(c, line, sizeof(line))) != 0)
			return err;
	}
}

int
sp_debuginfod_response(int fd, int out, int timeout_ms, uint64_t *bytes,
    char *loc, size_t loccap)
{
	struct conn *c;
	char line[1024] = "";
	uint64_t length = UINT64_MAX;
	int status = 0, chunked = 0, err;

	*bytes = 0;
	loc[0] = '\0';
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return -ENOMEM;
	c->fd = fd;
	c->timeout_ms = timeout_ms;
	err = read_line(c, line, sizeof(line));
	/* "HTTP/1.0 404 ..." or "HTTP/1.1 200 ...": three digits. */
	if (err == 0) {
		if (strlen(line) >= 12 && (strncmp(line, "HTTP/1.0 ", 9) == 0 ||
		    strncmp(line, "HTTP/1.1 ", 9) == 0) &&
		    line[9] >= '1' && line[9] <= '5' &&
		    line[10] >= '0' && line[10] <= '9' &&
		    line[11] >= '0' && line[11] <= '9' &&
		    (line[12] == ' ' || line[12] == '\0'))
			status = (line[9] - '0') * 100 + (line[10] - '0') * 10 +
			    (line[11] - '0');
		else
			err = -SP_EFORMAT;
	}
	while (err == 0 && (err = read_line(c, line, sizeof(line))) == 0 &&
	    line[0] != '\0') {
		char *v = strchr(line, ':');

		if (v == NULL)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		if (strcasecmp(line, "Content-Length") == 0) {
			char *end;

			errno = 0;
			length = strtoull(v, &end, 10);
			if (end == v || errno != 0)
				err = -SP_EFORMAT;
		} else if (strcasecmp(line, "Transfer-Encoding") == 0) {
			chunked = strcasecmp(v, "chunked") == 0;
		} else if (strcasecmp(line, "Location") == 0) {
			(void)snprintf(loc, loccap, "%s", v);
		}
	}
	if (err == 0 && status == 200) {
		if (!chunked && length != UINT64_MAX &&
		    length > SP_DEBUGINFOD_FILE_MAX)
			err = -EFBIG;
		else
			err = chunked ? copy_chunked(c, out, bytes) :
			    copy_body(c, out, length, bytes);
	}
	free(c);
	if (err == -E2BIG)
		err = -SP_EFORMAT; /* a head or line longer than HTTP's usual */
	return err ? err : status;
}

int
spi_http_get(const struct spi_url *u, const char *rel, int out,
    int timeout_ms, uint64_t *bytes, char *loc, size_t loccap)
{
	char req[2048];
	int fd, err, n;
	const char *what;

	fd = connect_to(u, timeout_ms, &what);
	if (fd < 0)
		return fd;
	n = snprintf(req, sizeof(req), "GET %s%s HTTP/1.1\r\nHost: %s%s%s:%s"
	    "\r\nUser-Agent: stackpulse\r\nAccept-Encoding: identity\r\n"
	    "Connection: close\r\n\r\n", u->path, rel,
	    strchr(u->host, ':') != NULL ? "[" : "", u->host,
	    strchr(u->host, ':') != NULL ? "]" : "", u->port);
	if (n < 0 || (size_t)n >= sizeof(req))
		err = -ENAMETOOLONG;
	else
		err = send_all(fd, req, (size_t)n, timeout_ms);
	if (err == 0)
		err = sp_debuginfod_response(fd, out, timeout_ms, bytes, loc,
		    loccap);
	(void)close(fd);
	return err;
}
