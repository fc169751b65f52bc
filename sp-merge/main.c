/* SPDX-License-Identifier: MIT */
/* sp-merge: merge spools, one input after another, into one spool. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp/merge.h"

struct opts {
	const char *out;
	int skip_bad;
	int quiet;
};

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-merge [-o FILE] [--skip-bad] [-q] FILE...\n"
	    "Merge spools (raw or symbolized, from one or many hosts) into\n"
	    "one spool, the inputs one after another; each input keeps its\n"
	    "host, so equal PIDs from different hosts stay apart.\n"
	    "  -o, --output FILE  write FILE instead of standard output\n"
	    "  -s, --skip-bad     skip inputs that can't be read and go on\n"
	    "  -q, --quiet        no report on standard error\n"
	    "  -h, --help         this text\n"
	    "FILE - reads standard input.\n");
	exit(status);
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "skip-bad", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	o->out = "-";
	while ((ch = getopt_long(argc, argv, "ho:qs", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 's':
			o->skip_bad = 1;
			break;
		default:
			usage(2);
		}
	}
	if (optind >= argc)
		usage(2);
}

static int
open_output(const char *path)
{
	int fd;

	if (strcmp(path, "-") == 0) {
		if (isatty(STDOUT_FILENO))
			errx(2, "refusing to write a binary spool to a "
			    "terminal; use -o FILE or a pipe");
		return STDOUT_FILENO;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		err(1, "%s", path);
	return fd;
}

/* An input that can't be read: fatal, or skipped with --skip-bad. */
static void
bad_input(const struct opts *o, const char *path, const char *what,
    const struct sp_diag *d, int rc)
{
	/* A format error names its offset, 0 too (a bad magic), as sp-dump. */
	if (d->msg[0] != '\0' && rc != -SP_ETRUNC && rc <= -SP_EFORMAT)
		warnx("%s: %soffset 0x%llx: %s", path, what, d->offset,
		    d->msg);
	else
		warnx("%s: %s%s", path, what,
		    d->msg[0] != '\0' ? d->msg : sp_strerror(rc));
	if (!o->skip_bad)
		exit(1);
}

/* Merges one input; returns its sample count. */
static uint64_t
merge_one(const struct opts *o, struct sp_merge *m, const char *path)
{
	struct sp_merge_stats st;
	struct sp_replay *in = NULL;
	struct sp_diag diag;
	int rc;

	memset(&diag, 0, sizeof(diag));
	rc = sp_replay_open(&in, path, &diag);
	if (rc < 0) {
		bad_input(o, path, o->skip_bad ? "skipped: " : "", &diag, rc);
		return 0;
	}
	memset(&diag, 0, sizeof(diag));
	rc = sp_merge_add(m, in, &st, &diag);
	sp_replay_free(in);
	if (rc < 0 && sp_merge_failed(m))
		errx(1, "%s: %s", strcmp(o->out, "-") ? o->out : "stdout",
		    sp_strerror(rc));
	if (rc < 0)
		bad_input(o, path, o->skip_bad ? "skipped the rest after "
		    "the records before the error: " : "", &diag, rc);
	else if (st.truncated)
		warnx("%s: truncated at offset 0x%" PRIx64 ": merged the "
		    "intact prefix", path, st.end_offset);
	if (!o->quiet && st.dup_symbols)
		warnx("%s: %" PRIu64 " symbols of frames already symbolized "
		    "were dropped", path, st.dup_symbols);
	return st.samples;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct sp_merge *m;
	uint64_t samples = 0;
	int fd, i, rc;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	fd = open_output(o.out);
	if (sp_merge_new(&m, fd) < 0)
		errx(1, "%s", sp_strerror(-ENOMEM));
	for (i = optind; i < argc; i++)
		samples += merge_one(&o, m, argv[i]);
	rc = sp_merge_finish(m);
	if (rc < 0)
		errx(1, "%s: %s", strcmp(o.out, "-") ? o.out : "stdout",
		    sp_strerror(rc));
	sp_merge_free(m);
	if (fd != STDOUT_FILENO && close(fd) < 0)
		err(1, "%s", o.out);
	if (!o.quiet)
		(void)fprintf(stderr, "sp-merge: %d inputs, %" PRIu64
		    " samples\n", argc - optind, samples);
	return 0;
}
