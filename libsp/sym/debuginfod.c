/* SPDX-License-Identifier: MIT */
/* Debug files from debuginfod servers, through elfutils' client cache. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/hex_int.h"
#include "dwcache_int.h"
#include "elf/elf_int.h"
#include "http_int.h"
#include "sp/common/error.h"
#include "sp/sym/debuginfod.h"

#define REDIRECTS_MAX 4
/* elfutils' client: an empty file marks a miss for this long. */
#define MISS_SECONDS 600

/* One fetch: where it goes and what it says. */
struct fetch {
	int timeout_ms;
	int misses;     /* servers that answered 404 */
	struct sp_diag *diag; /* the notes so far */
	uint64_t bytes;
};

/* Appends "; " and a formatted note to the diagnostic (cut when full). */
__attribute__((format(printf, 2, 3))) static void
say(struct fetch *f, const char *fmt, ...)
{
	char was[sizeof(f->diag->msg)], note[sizeof(f->diag->msg)];
	va_list ap;

	va_start(ap, fmt);
	/* ap is started above; clang-tidy 14 misreports it. */
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	(void)vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	memcpy(was, f->diag->msg, sizeof(was));
	(void)sp_diag_set(f->diag, 0, f->diag->err, "%s%s%s", was,
	    was[0] != '\0' ? "; " : "", note);
}

/* The cache directory, as elfutils' client finds it; 0 or -ENOENT. */
static int
cache_dir(const struct sp_debuginfod *d, char *buf, size_t cap)
{
	/* The caller's environment, read; libsp never changes it. */
	/* NOLINTBEGIN(concurrency-mt-unsafe) */
	const char *c = getenv("DEBUGINFOD_CACHE_PATH");
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	/* NOLINTEND(concurrency-mt-unsafe) */
	int n;

	if (d->cache != NULL)
		n = snprintf(buf, cap, "%s", d->cache);
	else if (c != NULL && c[0] != '\0')
		n = snprintf(buf, cap, "%s", c);
	else if (x != NULL && x[0] != '\0')
		n = snprintf(buf, cap, "%s/debuginfod_client", x);
	else if (h != NULL && h[0] != '\0')
		n = snprintf(buf, cap, "%s/.cache/debuginfod_client", h);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* Whether path is an ELF file with build-id id: 1, or 0. */
static int
has_id(const char *path, const uint8_t *id, size_t id_len)
{
	struct sp_elf_file *f;
	const uint8_t *fid;
	size_t len;
	int ok;

	if (spi_elf_file_open(path, &f, NULL) != 0)
		return 0;
	ok = spi_elf_file_build_id(f, &fid, &len) == 0 && len == id_len &&
	    memcmp(fid, id, len) == 0;
	spi_elf_file_free(f);
	return ok;
}

/* Fetches from one http:// server into tmp; 0 got it, 1 not, 2 not
 * reachable (no answer: not to be asked again). */
static int
from_http(const char *server, const char *rel, int tmp, struct fetch *f)
{
	char loc[1024], cur[1024];
	struct spi_url u;
	int i, st;

	(void)snprintf(cur, sizeof(cur), "%s", server);
	loc[0] = '\0';
	for (i = 0; i <= REDIRECTS_MAX; i++) {
		if (spi_http_parse_url(cur, &u) != 0) {
			say(f, "%s: not a URL stackpulse can read", cur);
			return 1;
		}
		if (ftruncate(tmp, 0) < 0 || lseek(tmp, 0, SEEK_SET) < 0) {
			say(f, "%s: %s", server, strerror(errno));
			return 1;
		}
		f->bytes = 0;
		st = spi_http_get(&u, rel, tmp, f->timeout_ms, &f->bytes, loc,
		    sizeof(loc));
		if (st == 200)
			return 0;
		if ((st == 301 || st == 302 || st == 303 || st == 307 ||
		    st == 308) && strncmp(loc, "http://", 7) == 0) {
			/* The Location is the file's own URL. */
			(void)snprintf(cur, sizeof(cur), "%s", loc);
			rel = "";
			continue;
		}
		if (st == 404) {
			say(f, "%s: not there (404)", server);
			f->misses++;
		} else if (st > 0) {
			say(f, "%s: HTTP status %d%s%s", server, st,
			    loc[0] ? " to " : "", loc);
		} else if (st == -SP_EFORMAT) {
			say(f, "%s: the reply is not HTTP/1.x", server);
		} else if (st == -EFBIG) {
			say(f, "%s: the file is over %llu bytes; not taken",
			    server, (unsigned long long)SP_DEBUGINFOD_FILE_MAX);
		} else if (st == -EPIPE) {
			say(f, "%s: the connection ended after %llu bytes",
			    server, (unsigned long long)f->bytes);
		} else if (st == -ETIMEDOUT) {
			say(f, "%s: no progress for %d s", server,
			    f->timeout_ms / 1000);
			return 2;
		} else if (st == -ENOENT) {
			say(f, "%s: host not found", server);
			return 2;
		} else {
			say(f, "%s: %s", server, sp_strerror(st));
			return st == -ECONNREFUSED || st == -ENETUNREACH ||
			    st == -EHOSTUNREACH ? 2 : 1;
		}
		return 1;
	}
	say(f, "%s: more than %d redirects", server, REDIRECTS_MAX);
	return 1;
}

/*
 * Reads fds a and b until both end: a into abuf (up to acap bytes, *an
 * read), b into bbuf likewise; what does not fit is read and dropped.
 */
static void
drain_two(int a, char *abuf, size_t acap, size_t *an, int b, char *bbuf,
    size_t bcap, size_t *bn)
{
	struct pollfd pf[2] = { { a, POLLIN, 0 }, { b, POLLIN, 0 } };
	char sink[512];

	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		int i;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (i = 0; i < 2; i++) {
			char *buf = i == 0 ? abuf : bbuf;
			size_t cap = i == 0 ? acap : bcap, *got = i == 0 ?
			    an : bn;
			ssize_t r;

			if (pf[i].fd < 0 || pf[i].revents == 0)
				continue;
			r = *got < cap ? read(pf[i].fd, buf + *got, cap - *got) :
			    read(pf[i].fd, sink, sizeof(sink));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				pf[i].fd = -1;
			else if (*got < cap)
				*got += (size_t)r;
		}
	}
}

/* The last line of s with text in it, cut at its end; NULL: none. */
static char *
last_line(char *s)
{
	char *end = s + strlen(s), *start;

	while (end > s && (end[-1] == '\n' || end[-1] == '\r' ||
	    end[-1] == ' '))
		end--;
	if (end == s)
		return NULL;
	*end = '\0';
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	return start;
}

/* The variables the helper is given (the first HELPER_SET, in this
 * order) or, the rest, denied: the caller's are left out. */
static const char *const helper_vars[] = { "DEBUGINFOD_URLS",
    "DEBUGINFOD_CACHE_PATH", "DEBUGINFOD_TIMEOUT", "DEBUGINFOD_PROGRESS" };
#define HELPER_SET 3

/* Whether environment entry e is one of helper_vars. */
static int
helper_var(const char *e)
{
	size_t i, n;

	for (i = 0; i < sizeof(helper_vars) / sizeof(helper_vars[0]); i++) {
		n = strlen(helper_vars[i]);
		if (strncmp(e, helper_vars[i], n) == 0 && e[n] == '=')
			return 1;
	}
	return 0;
}

/*
 * The helper's environment: the caller's without helper_vars, then
 * ours.  Made before the fork, as a child of a program with threads may
 * not allocate.  Free with free(); NULL: no memory.
 */
static char **
helper_env(const char *server, const char *cache, const char *secs)
{
	const char *val[HELPER_SET] = { server, cache, secs };
	size_t n = 0, k = 0, i, bytes = 0, len[HELPER_SET];
	char **env, *at;

	while (environ != NULL && environ[n] != NULL)
		n++;
	for (i = 0; i < HELPER_SET; i++)
		bytes += len[i] = strlen(helper_vars[i]) + strlen(val[i]) + 2;
	env = malloc((n + HELPER_SET + 1) * sizeof(*env) + bytes);
	if (env == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (!helper_var(environ[i]))
			env[k++] = environ[i];
	at = (char *)(env + n + HELPER_SET + 1);
	for (i = 0; i < HELPER_SET; i++) {
		(void)snprintf(at, len[i], "%s=%s", helper_vars[i], val[i]);
		env[k++] = at;
		at += len[i];
	}
	env[k] = NULL;
	return env;
}

/*
 * An https:// server through elfutils' debuginfod-find, which puts the
 * file in the same cache and prints its path: 0 with path, 1 not, 2
 * there is no debuginfod-find.
 */
static int
from_helper(const char *server, const char *cache, const char *idhex,
    char *path, size_t cap, struct fetch *f)
{
	static char prog[] = "debuginfod-find", what[] = "debuginfo";
	int p[2], e[2], status;
	char out[PATH_MAX + 1], err[512], secs[16], *why, **env;
	char *argv[] = { prog, what, (char *)idhex, NULL };
	size_t n = 0, ne = 0;
	pid_t pid;

	(void)snprintf(secs, sizeof(secs), "%d", f->timeout_ms / 1000);
	env = helper_env(server, cache, secs);
	if (env == NULL) {
		say(f, "%s: %s", server, strerror(ENOMEM));
		return 1;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		say(f, "%s: %s", server, strerror(errno));
		free(env);
		return 1;
	}
	if (pipe2(e, O_CLOEXEC) < 0) {
		say(f, "%s: %s", server, strerror(errno));
		(void)close(p[0]);
		(void)close(p[1]);
		free(env);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (dup2(p[1], 1) < 0 || dup2(e[1], 2) < 0 ||
		    (null >= 0 && dup2(null, 0) < 0))
			_exit(126);
		execvpe(prog, argv, env);
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(env);
	(void)close(p[1]);
	(void)close(e[1]);
	if (pid < 0) {
		(void)close(p[0]);
		(void)close(e[0]);
		say(f, "%s: %s", server, strerror(errno));
		return 1;
	}
	/* Both until they end: its path on one, why it found none on the
	 * other ("Server query failed: No route to host"), either of which
	 * could fill while the other is read. */
	drain_two(p[0], out, sizeof(out) - 1, &n, e[0], err, sizeof(err) - 1,
	    &ne);
	(void)close(p[0]);
	(void)close(e[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	err[ne] = '\0';
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		say(f, "%s: https needs elfutils' debuginfod-find on the PATH "
		    "(Debian package debuginfod); stackpulse speaks plain "
		    "http only", server);
		return 2;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out[0] == '\0' ||
	    strlen(out) >= cap) {
		why = last_line(err);
		if (why != NULL)
			say(f, "%s: debuginfod-find found none: %s", server, why);
		else
			say(f, "%s: debuginfod-find found none", server);
		return 1;
	}
	memcpy(path, out, strlen(out) + 1);
	return 0;
}

/* The cache's file: 1 usable, -1 a recent miss, 0 nothing. */
static int
cached(const char *file, const uint8_t *id, size_t id_len)
{
	struct stat st;

	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (st.st_size == 0)
		return time(NULL) - st.st_mtime < MISS_SECONDS ? -1 : 0;
	return has_id(file, id, id_len) ? 1 : 0;
}

int
sp_debuginfod_find(struct sp_debuginfod *d, const uint8_t *id,
    size_t id_len, char *path, size_t cap, uint64_t *fetched,
    struct sp_diag *diag)
{
	char idhex[2 * SP_ELF_BUILD_ID_MAX + 1], cache[PATH_MAX];
	char dir[PATH_MAX], file[PATH_MAX], tmp[PATH_MAX];
	char rel[sizeof("/buildid//debuginfo") + sizeof(idhex)];
	char *list, *save = NULL, *server;
	struct sp_diag scratch = { 0 }; /* the notes when none are wanted */
	struct fetch f;
	int fd, got = 0, k, servers = 0;

	*fetched = 0;
	f.diag = diag != NULL ? diag : &scratch;
	(void)sp_diag_set(f.diag, 0, 0, "%s", "");
	f.bytes = 0;
	f.misses = 0;
	f.timeout_ms = 1000 * (d->timeout_s > 0 ? d->timeout_s :
	    SP_DEBUGINFOD_TIMEOUT);
	if (d->urls == NULL || d->urls[strspn(d->urls, " ")] == '\0' ||
	    id_len == 0 || id_len > SP_ELF_BUILD_ID_MAX)
		return 1;
	sp_hex(idhex, id, id_len);
	if (cache_dir(d, cache, sizeof(cache)) != 0) {
		say(&f, "debuginfod: no cache directory (set "
		    "DEBUGINFOD_CACHE_PATH or HOME)");
		return 1;
	}
	if (snprintf(dir, sizeof(dir), "%s/%s", cache, idhex) >=
	    (int)sizeof(dir) || snprintf(file, sizeof(file), "%s/debuginfo",
	    dir) >= (int)sizeof(file) || snprintf(tmp, sizeof(tmp),
	    "%s/.debuginfo.XXXXXX", dir) >= (int)sizeof(tmp) ||
	    strlen(file) >= cap)
		return 1;
	k = cached(file, id, id_len);
	if (k > 0) {
		memcpy(path, file, strlen(file) + 1);
		say(&f, "in the cache (%s)", file);
		return 0;
	}
	if (k < 0) {
		say(&f, "%s: a recent miss (empty file)", file);
		return 1;
	}
	if ((list = strdup(d->urls)) == NULL)
		return sp_diag_set(f.diag, 0, -ENOMEM, "%s", sp_strerror(-ENOMEM));
	(void)snprintf(rel, sizeof(rel), "/buildid/%s/debuginfo", idhex);
	for (server = strtok_r(list, " ", &save); server != NULL && !got;
	    server = strtok_r(NULL, " ", &save)) {
		uint32_t bit;

		if (servers == SP_DEBUGINFOD_URLS_MAX) {
			say(&f, "more than %d servers: the rest not asked",
			    SP_DEBUGINFOD_URLS_MAX);
			break;
		}
		bit = 1u << servers++;
		if (d->unreachable & bit) {
			say(&f, "%s: not reachable earlier in this run", server);
			continue;
		}
		if (strncmp(server, "https://", 8) == 0) {
			k = from_helper(server, cache, idhex, path, cap, &f);
			if (k == 2)
				d->unreachable |= bit;
			got = k == 0 && has_id(path, id, id_len);
			if (got)
				say(&f, "fetched from %s by debuginfod-find",
				    server);
			continue;
		}
		if (strncmp(server, "http://", 7) != 0) {
			say(&f, "%s: not an http:// or https:// URL", server);
			continue;
		}
		if (spi_make_dirs(dir) != 0 || (fd = mkstemp(tmp)) < 0) {
			say(&f, "%s: %s", dir, strerror(errno));
			break;
		}
		k = from_http(server, rel, fd, &f);
		if (k == 2)
			d->unreachable |= bit;
		if (k == 0) {
			if (close(fd) == 0 && has_id(tmp, id, id_len) &&
			    rename(tmp, file) == 0) {
				memcpy(path, file, strlen(file) + 1);
				*fetched = f.bytes;
				got = 1;
				say(&f, "fetched %.1f KiB from %s",
				    (double)f.bytes / 1024, server);
			} else {
				say(&f, "%s: what it sent is not an ELF file "
				    "with build-id %s", server, idhex);
			}
		} else {
			(void)close(fd);
		}
		if (!got)
			(void)unlink(tmp);
		memcpy(tmp + strlen(tmp) - 6, "XXXXXX", 6);
	}
	free(list);
	/* Every server said 404: an empty file marks the miss, as
	 * elfutils' client does, so that the next runs do not ask again
	 * for MISS_SECONDS. */
	if (!got && f.misses > 0 && f.misses == servers &&
	    (fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) >= 0)
		(void)close(fd);
	return got ? 0 : 1;
}
