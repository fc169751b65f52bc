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

#include "sp/common/output.h"
#include "sp/spool/merge.h"
#include "sp/tool/tool.h"

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
	    "      --skip-bad     skip inputs that can't be read and go on\n"
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
	while ((ch = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
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
			spi_tool_version("sp-merge");
			break;
		default:
			spi_tool_bad_option("sp-merge", ch, argv);
		}
	}
	if (optind >= argc)
		usage(2);
}

/*
 * Says why an input can't be read (fatal, unless --skip-bad skips it);
 * returns 1 when sp-merge must fail.
 */
static int
bad_input(const struct opts *o, const char *path, const char *what,
    const struct sp_diag *d, int rc)
{
	if (rc == -ENOMEM)
		errx(1, "out of memory");
	/* A format error names its offset, 0 too (a bad magic), as sp-dump;
	 * so does a read that failed in the middle (EIO). */
	if (d->msg[0] != '\0' && rc != -SP_ETRUNC &&
	    (rc <= -SP_EFORMAT || d->offset > 0))
		warnx("%s: %soffset 0x%llx: %s", path, what, d->offset,
		    d->msg);
	else
		warnx("%s: %s%s", path, what,
		    d->msg[0] != '\0' ? d->msg : sp_strerror(rc));
	return !o->skip_bad;
}

static void
free_inputs(struct sp_merge_input *in, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sp_replay_free(in[i].replay);
	free(in);
}

/*
 * Opens every input before the output, so that one that is not a spool
 * leaves no output behind.  Returns how many opened, or -1 at the first
 * that does not, unless --skip-bad.
 */
static int
open_inputs(const struct opts *o, char **paths, int n,
    struct sp_merge_input *in)
{
	struct sp_diag diag;
	int i, rc, opened = 0;

	for (i = 0; i < n; i++) {
		memset(&diag, 0, sizeof(diag));
		rc = sp_replay_open(paths[i], &in[i].replay, &diag);
		if (rc == 0)
			opened++;
		else if (bad_input(o, paths[i], o->skip_bad ? "skipped: " :
		    "", &diag, rc))
			return -1;
	}
	return opened;
}

/*
 * Says what became of one merged input and adds its samples; returns 1
 * when its error fails sp-merge (without --skip-bad).
 */
static int
report(const struct opts *o, const char *path, struct sp_merge_input *in,
    uint64_t *samples)
{
	int failed = 0;

	if (in->err < 0)
		failed = bad_input(o, path, o->skip_bad ? "skipped the rest "
		    "after the records before the error: " : "", &in->diag,
		    in->err);
	else if (in->st.truncated)
		warnx("%s: truncated at offset 0x%" PRIx64 ": merged the "
		    "intact prefix", path, in->st.end_offset);
	if (!o->quiet && in->st.dup_symbols)
		warnx("%s: %" PRIu64 " frames are named otherwise than in an "
		    "earlier input, whose names are kept (for one naming, "
		    "merge the raw spools and run sp-sym on the result)", path,
		    in->st.dup_symbols);
	sp_replay_free(in->replay);
	in->replay = NULL;
	*samples += in->st.samples;
	return failed;
}

/* The merger or the output failed: nothing of the output is kept. */
static void
output_failed(struct sp_output_file *out, int fd, int rc)
{
	sp_output_abandon(out, fd);
	spi_tool_fail(rc, SP_TOOL_OUTPUT, out->name, NULL);
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct sp_merge *m;
	struct sp_merge_input *in;
	uint64_t samples = 0;
	struct sp_output_file out;
	struct sp_diag diag;
	int fd, i, n, rc, failed = 0;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	n = argc - optind;
	for (i = 0; i < n; i++)
		spi_tool_input(argv[optind + i], "spool",
		    "sp-merge [-o FILE] [--skip-bad] [-q] FILE...");
	/* All at once: samples of one host are merged in time order. */
	in = calloc((size_t)n, sizeof(*in));
	if (in == NULL)
		errx(1, "out of memory");
	rc = open_inputs(&o, argv + optind, n, in);
	if (rc <= 0)
		free_inputs(in, n);
	if (rc < 0)
		return 1;
	if (rc == 0)
		errx(1, "no input left to merge: all %d skipped", n);
	memset(&diag, 0, sizeof(diag));
	if ((rc = sp_output_spool(&out, o.out, &fd, &diag)) < 0) {
		free_inputs(in, n);
		errx(rc == -SP_EUSAGE ? 2 : 1, "%s", diag.msg);
	}
	if ((rc = sp_merge_new(fd, &m)) == 0 &&
	    (rc = sp_merge_inputs(m, in, (size_t)n)) < 0)
		sp_merge_free(m);
	if (rc < 0) {
		free_inputs(in, n);
		output_failed(&out, fd, rc);
	}
	for (i = 0; i < n; i++)
		failed |= report(&o, argv[optind + i], &in[i], &samples);
	free(in);
	/* An unreadable input fails the merge: no output file is left,
	 * and standard output gets no END. */
	if (failed) {
		sp_merge_free(m);
		sp_output_abandon(&out, fd);
		return 1;
	}
	rc = sp_merge_finish(m);
	sp_merge_free(m);
	if (rc < 0)
		output_failed(&out, fd, rc);
	if (sp_output_finish(&out, fd, &diag) < 0)
		errx(1, "%s", diag.msg);
	if (!o.quiet)
		(void)fprintf(stderr, "sp-merge: %d inputs, %" PRIu64
		    " samples\n", n, samples);
	return 0;
}
