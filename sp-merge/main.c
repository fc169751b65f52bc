/* SPDX-License-Identifier: MIT */
/* sp-merge: merge spools into one, samples of a host in time order. */
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
#include "sp/output.h"
#include "sp/tool.h"

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
	    "one spool, samples of one host in time order, hosts one after\n"
	    "another; each input keeps its host, so equal PIDs from\n"
	    "different hosts stay apart.\n"
	    "  -o, --output FILE  write FILE instead of standard output\n"
	    "  -s, --skip-bad     skip inputs that can't be read and go on\n"
	    "  -q, --quiet        no report on standard error\n"
	    "  -h, --help         this text\n"
	    "      --version      version, spool format and build-id\n"
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
		{ "version", no_argument, NULL, 1000 + 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	o->out = "-";
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":ho:qs", longopts, NULL)) != -1) {
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
		case 1000 + 'V':
			sp_tool_version("sp-merge");
			break;
		default:
			sp_tool_bad_option("sp-merge", ch, argv);
		}
	}
	if (optind >= argc)
		usage(2);
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

/* Opens path into *in; NULL for an input skipped with --skip-bad. */
static void
open_input(const struct opts *o, const char *path, struct sp_merge_input *in)
{
	struct sp_diag diag;
	int rc;

	memset(in, 0, sizeof(*in));
	memset(&diag, 0, sizeof(diag));
	rc = sp_replay_open(&in->replay, path, &diag);
	if (rc < 0)
		bad_input(o, path, o->skip_bad ? "skipped: " : "", &diag, rc);
}

/* Says what became of one merged input; returns its sample count. */
static uint64_t
report(const struct opts *o, const char *path, struct sp_merge_input *in)
{
	if (in->err < 0)
		bad_input(o, path, o->skip_bad ? "skipped the rest after "
		    "the records before the error: " : "", &in->diag, in->err);
	else if (in->st.truncated)
		warnx("%s: truncated at offset 0x%" PRIx64 ": merged the "
		    "intact prefix", path, in->st.end_offset);
	if (!o->quiet && in->st.dup_symbols)
		warnx("%s: %" PRIu64 " symbols of frames already symbolized "
		    "were dropped", path, in->st.dup_symbols);
	sp_replay_free(in->replay);
	return in->st.samples;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct sp_merge *m;
	struct sp_merge_input *in;
	uint64_t samples = 0;
	struct sp_diag diag;
	int fd, i, rc;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	if ((rc = sp_output_open(o.out, &fd, &diag)) < 0)
		errx(rc == -SP_EUSAGE ? 2 : 1, "%s", diag.msg);
	if (sp_merge_new(&m, fd) < 0)
		errx(1, "%s", sp_strerror(-ENOMEM));
	/* All at once: samples of one host are merged in time order. */
	in = calloc((size_t)(argc - optind), sizeof(*in));
	if (in == NULL)
		err(1, NULL);
	for (i = optind; i < argc; i++)
		open_input(&o, argv[i], &in[i - optind]);
	rc = sp_merge_inputs(m, in, (size_t)(argc - optind));
	if (rc < 0)
		errx(1, "%s: %s", strcmp(o.out, "-") ? o.out : "stdout",
		    sp_strerror(rc));
	for (i = optind; i < argc; i++)
		samples += report(&o, argv[i], &in[i - optind]);
	free(in);
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
