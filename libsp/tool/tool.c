/* SPDX-License-Identifier: MIT */
/* What the tools share: --version, the refused-option message, numbers
 * and pid lists from the command line, the input that is a terminal, a
 * spool that cannot be opened, a run that failed charged to the right
 * file. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/json_int.h"
#include "sp/spool/replay.h"
#include "sp/tool/tool.h"
#include "sp/tool/version.h"

void
spi_tool_version(const char *tool)
{
	char text[512];

	if (sp_version_text(tool, text, sizeof(text)) < 0)
		exit(1);
	if (fputs(text, stdout) == EOF || fflush(stdout) != 0)
		exit(1);
	exit(0);
}

void
spi_tool_bad_option(const char *tool, int ch, char **argv)
{
	const char *what = ch == ':' ? "needs a value" : "is not known";
	const char *arg = optind > 0 ? argv[optind - 1] : NULL;

	/* A short option refused inside a cluster (-qZ): name the letter.
	 * A long one (optopt 0, or the whole word in argv): name the word
	 * up to any '='. */
	if (optopt != 0 && (arg == NULL || strncmp(arg, "--", 2) != 0))
		(void)fprintf(stderr, "%s: option '-%c' %s (see %s --help)\n",
		    tool, optopt, what, tool);
	else if (arg != NULL)
		(void)fprintf(stderr, "%s: option '%.*s' %s (see %s --help)\n",
		    tool, (int)strcspn(arg, "="), arg, what, tool);
	else
		(void)fprintf(stderr, "%s: bad option (see %s --help)\n", tool,
		    tool);
	exit(2);
}

long long
spi_tool_int(const char *what, const char *s, long long lo, long long hi)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		errx(2, "%s must be a number from %lld to %lld, not '%s'", what,
		    lo, hi, s);
	return v;
}

double
spi_tool_real(const char *what, const char *s, double lo, int lo_open,
    double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) ||
	    (lo_open ? !(v > lo) : !(v >= lo)) || !(v <= hi))
		errx(2, "%s must be a number %s %.15g %s %.15g (fractions too: "
		    "0.5), not '%s'", what, lo_open ? "above" : "from", lo,
		    lo_open ? "and at most" : "to", hi, s);
	return v;
}

void
spi_tool_pids(const char *what, const char *list, uint32_t *pids,
    size_t max, size_t *n)
{
	const char *p = list;
	char tok[32];

	while (*p != '\0') {
		size_t len = strcspn(p, ","), i;
		uint32_t pid;

		if (len >= sizeof(tok))	/* no pid is that long */
			errx(2, "%s must be a number from 1 to 2147483647, not "
			    "'%.*s'", what, (int)len, p);
		if (len > 0) {
			(void)snprintf(tok, sizeof(tok), "%.*s", (int)len, p);
			pid = (uint32_t)spi_tool_int(what, tok, 1, 0x7fffffff);
			for (i = 0; i < *n && pids[i] != pid; i++)
				;
			if (i == *n) {	/* -p 3152,3152 is one target */
				if (*n == max)
					errx(2, "at most %zu processes", max);
				pids[(*n)++] = pid;
			}
		}
		p += len + (p[len] == ',');
	}
}

void
spi_tool_demangle_failed(const char *why)
{
	warnx("names are not demangled: %s; --no-demangle silences this",
	    why);
}

void
spi_tool_input(const char *path, const char *what, const char *usage)
{
	if (strcmp(path, "-") == 0 && isatty(STDIN_FILENO))
		errx(2, "no %s given and standard input is a terminal; "
		    "usage: %s", what, usage);
}

void
spi_tool_fail(int err, enum sp_tool_side side, const char *name,
    const struct sp_diag *diag)
{
	if (err == -ENOMEM)
		errx(1, "out of memory");
	if (side == SP_TOOL_OUTPUT)
		errx(1, "output %s: %s", name, sp_strerror(err));
	if (diag != NULL)
		errx(1, "%s: offset 0x%llx: %s", name, diag->offset, diag->msg);
	errx(1, "%s: %s", name, sp_strerror(err));
}

struct sp_replay *
spi_tool_replay(const char *path)
{
	struct sp_replay *r;
	struct sp_diag diag = { 0 };
	int err = sp_replay_open(path, &r, &diag);

	/* Only a format error has an offset worth saying; a path that
	 * cannot be opened is said as the system says it. */
	if (err < 0)
		spi_tool_fail(err, SP_TOOL_INPUT, path, err == -SP_EMAGIC ||
		    err == -SP_EVERSION || err == -SP_EFORMAT ? &diag : NULL);
	return r;
}

void
spi_tool_json_str(FILE *out, const char *s, size_t len)
{
	spi_json_fput(out, s, len);
}

const char *
spi_tool_cache_dir(const char *arg, int off, char *buf, size_t cap)
{
	/* The caller's environment, read once at startup. */
	/* NOLINTBEGIN(concurrency-mt-unsafe) */
	const char *e = getenv("STACKPULSE_CACHE_DIR");
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	/* NOLINTEND(concurrency-mt-unsafe) */
	int n;

	if (off)
		return NULL;
	if (arg != NULL)
		n = snprintf(buf, cap, "%s", arg);
	else if (e != NULL)
		n = snprintf(buf, cap, "%s", e);
	else if (x != NULL && x[0] == '/')
		n = snprintf(buf, cap, "%s/stackpulse", x);
	else if (h != NULL && h[0] == '/')
		n = snprintf(buf, cap, "%s/.cache/stackpulse", h);
	else
		return NULL;
	return n <= 0 || (size_t)n >= cap ? NULL : buf;
}

double
spi_tool_now(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
spi_tool_warn(void *ctx, const char *msg)
{
	(void)ctx;
	warnx("%s", msg);
}
