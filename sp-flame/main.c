/* SPDX-License-Identifier: MIT */
/* sp-flame: folded stacks to an interactive SVG flame graph. */
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
#include "sp/report/demangle.h"
#include "sp/report/flame.h"
#include "sp/tool/tool.h"

struct opts {
	struct sp_flame_svg_opts svg;
	const char *in, *diff, *out;
	int skip_bad;
	int no_demangle;
};

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-flame [--title TEXT] [--countname NAME] [--width PX] [--icicle]\n"
	    "                [--colors hot|module|lang] [--diff BEFORE]\n"
	    "                [--minwidth PX] [--skip-bad] [--no-demangle]\n"
	    "                [-o FILE] [FILE | -]\n"
	    "Draw folded stacks (\"root;...;leaf COUNT\" lines) as an\n"
	    "interactive SVG flame graph on standard output (or -o FILE).\n"
	    "      --title TEXT     the title (default: the input's \"# title:\"\n"
	    "                       line, which sp-fold writes for off-CPU time\n"
	    "                       and events; else \"Flame Graph\")\n"
	    "      --countname NAME what the counts are (default: the input's\n"
	    "                       \"# countname:\" line, \"ns\" for sp-fold's\n"
	    "                       off-CPU time, the event for -e; else\n"
	    "                       \"samples\")\n"
	    "      --width PX       image width in pixels (default 1200)\n"
	    "      --icicle         root at the top, callees below\n"
	    "      --colors SCHEME  hot (default), module, or lang (native,\n"
	    "                       Python, kernel and JIT in their own hues)\n"
	    "      --diff BEFORE    differential: red grew, blue shrank since\n"
	    "                       the folded stacks in BEFORE\n"
	    "      --minwidth PX    leave out frames narrower (default 0.1)\n"
	    "      --skip-bad       warn about bad lines and draw the rest\n"
	    "      --no-demangle    C++ and Rust names as the input has them\n"
	    "                       (by default they are demangled)\n"
	    "  -o, --output FILE    where to write (default: standard output)\n"
	    "  -h, --help           this text\n"
	    "      --version        version, spool format and build-id\n"
	    "FILE - (the default) reads standard input.\n");
	exit(status);
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "colors", required_argument, NULL, 'c' },
		{ "diff", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "countname", required_argument, NULL, 1000 + 'C' },
		{ "icicle", no_argument, NULL, 'i' },
		{ "minwidth", required_argument, NULL, 'm' },
		{ "no-demangle", no_argument, NULL, 1000 + 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "skip-bad", no_argument, NULL, 's' },
		{ "title", required_argument, NULL, 't' },
		{ "width", required_argument, NULL, 'w' },
		{ "version", no_argument, NULL, 1000 + 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	sp_flame_svg_defaults(&o->svg);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":ho:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			if (strcmp(optarg, "hot") == 0)
				o->svg.colors = SP_FLAME_HOT;
			else if (strcmp(optarg, "module") == 0)
				o->svg.colors = SP_FLAME_MODULE;
			else if (strcmp(optarg, "lang") == 0)
				o->svg.colors = SP_FLAME_LANG;
			else
				errx(2, "--colors takes hot, module or lang, "
				    "not '%s'", optarg);
			break;
		case 'd':
			o->diff = optarg;
			break;
		case 'h':
			usage(0);
			break;
		case 'i':
			o->svg.icicle = 1;
			break;
		case 'm':
			o->svg.minwidth = spi_tool_real("--minwidth", optarg, 0, 0,
			    1000);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 's':
			o->skip_bad = 1;
			break;
		case 't':
			o->svg.title = optarg;
			break;
		case 1000 + 'C':
			o->svg.countname = optarg;
			break;
		case 'w':
			o->svg.width = (unsigned)spi_tool_int("--width", optarg,
			    100, 100000);
			break;
		case 1000 + 'D':
			o->no_demangle = 1;
			break;
		case 1000 + 'V':
			spi_tool_version("sp-flame");
			break;
		default:
			spi_tool_bad_option("sp-flame", ch, argv);
		}
	}
	if (argc - optind > 1)
		usage(2);
	o->in = optind < argc ? argv[optind] : "-";
}


/* Input that is no folded text and no spool, known by its first bytes:
 * said at once, with what to run instead (a perf.data gave a line of
 * "NUL byte in the line" per line). */
static void
not_folded(const char *name, const char *buf, size_t n)
{
	if (n >= 8 && (memcmp(buf, "PERFILE2", 8) == 0 ||
	    memcmp(buf, "2ELIFREP", 8) == 0))
		errx(1, "%s: this is a perf recording (perf.data), not folded "
		    "stacks: perf script -i %s | stackcollapse-perf.pl | "
		    "sp-flame", name, name);
	if (n >= 2 && (unsigned char)buf[0] == 0x1f &&
	    (unsigned char)buf[1] == 0x8b)
		errx(1, "%s: gzip-compressed data, not folded stacks: zcat "
		    "%s | sp-flame (a pprof profile is read by pprof)", name,
		    name);
	if (n >= 4 && memcmp(buf, "\177ELF", 4) == 0)
		errx(1, "%s: an ELF file, not folded stacks: record it with "
		    "sp-record, then sp-sym | sp-fold | sp-flame", name);
}
/* Reads path ("-": standard input) into a new tree, reporting bad lines
 * as "FILE: line N: reason"; exits 1 on errors. */
static struct sp_flame *
load(const struct opts *o, const char *path)
{
	const char *name = strcmp(path, "-") == 0 ? "stdin" : path;
	const struct sp_flame_bad *bad;
	struct sp_flame *f;
	static char buf[1 << 16];
	ssize_t n;
	size_t i;
	int fd, rc;

	fd = strcmp(path, "-") == 0 ? STDIN_FILENO :
	    open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err(1, "%s", path);
	if ((rc = sp_flame_new(&f)) != 0)
		errx(1, "%s", sp_strerror(rc));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err(1, "%s", name);
		if (sp_flame_lines(f) == 0)
			not_folded(name, buf, (size_t)n);
		if ((rc = sp_flame_feed(f, buf, (size_t)n)) == -SP_EFORMAT)
			errx(1, "%s: this is a spool; run sp-fold first: "
			    "sp-fold %s | sp-flame", name, fd == STDIN_FILENO ?
			    "FILE" : path);
		if (rc != 0)
			errx(1, "%s: line %" PRIu64 ": %s", name,
			    sp_flame_lines(f) + 1, sp_strerror(rc));
	}
	if ((rc = sp_flame_end(f)) != 0)
		errx(1, "%s: line %" PRIu64 ": %s", name, sp_flame_lines(f),
		    sp_strerror(rc));
	if (fd != STDIN_FILENO)
		(void)close(fd);
	for (i = 0; (bad = sp_flame_bad(f, i)) != NULL; i++)
		warnx("%s: line %" PRIu64 ": %s", name, bad->line, bad->why);
	if (sp_flame_bad_count(f) > i)
		warnx("%s: %zu more bad lines", name, sp_flame_bad_count(f) - i);
	if (sp_flame_bad_count(f) > 0 && !o->skip_bad)
		exit(1);
	if (sp_flame_samples(f) == 0)
		errx(1, "%s: no samples in %" PRIu64 " lines", name,
		    sp_flame_lines(f));
	return f;
}

/* A demangler that has run on the frames of f and before (may be
 * NULL); it says so when it cannot. */
static struct sp_demangle *
demangle(const struct sp_flame *f, const struct sp_flame *before)
{
	struct sp_demangle *dm;
	struct sp_diag diag;

	if (sp_demangle_new(NULL, &dm) < 0 || sp_demangle_add_flame(dm, f) < 0 ||
	    (before != NULL && sp_demangle_add_flame(dm, before) < 0))
		errx(1, "%s", sp_strerror(-ENOMEM));
	if (sp_demangle_run(dm, 1, &diag) < 0)
		spi_tool_demangle_failed(diag.msg);
	return dm;
}

int
main(int argc, char **argv)
{
	struct sp_demangle *dm = NULL;
	struct sp_flame *f, *before = NULL;
	struct sp_output_file out;
	struct sp_diag diag;
	struct opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	spi_tool_input(o.in, "input", "sp-flame [options] FILE");
	if (o.diff != NULL && strcmp(o.diff, o.in) == 0 &&
	    strcmp(o.in, "-") == 0)
		errx(2, "--diff and the input cannot both be standard input");
	f = load(&o, o.in);
	if (o.diff != NULL)
		before = load(&o, o.diff);
	o.svg.before = before;
	/* What sp-fold's header says the counts are, unless told. */
	if (o.svg.countname == NULL && sp_flame_countname(f)[0] != '\0')
		o.svg.countname = sp_flame_countname(f);
	if (o.svg.title == NULL && sp_flame_title(f)[0] != '\0')
		o.svg.title = sp_flame_title(f);
	if (!o.no_demangle)
		o.svg.demangle = dm = demangle(f, before);
	if (o.svg.colors == SP_FLAME_MODULE && before == NULL &&
	    sp_flame_module_frames(f) == 0)
		warnx("%s: --colors module: no frame names its module "
		    "(\"module`function\"), named frames stay grey; fold with "
		    "sp-fold --modules", strcmp(o.in, "-") == 0 ? "stdin" : o.in);
	/* Only now, with the input known good: a failed run must not
	 * replace FILE. */
	if (sp_output_redirect(&out, o.out, &diag) < 0)
		errx(1, "%s", diag.msg);
	rc = sp_flame_svg(f, &o.svg, stdout);
	if (rc < 0 && rc != -EIO) {
		sp_output_discard(&out);
		errx(1, "%s", sp_strerror(rc));
	}
	/* A write error (-EIO) is sticky on stdout: the commit reports it
	 * with its errno. */
	if (sp_output_commit(&out, &diag) < 0)
		errx(1, "%s", diag.msg);
	sp_demangle_free(dm);
	sp_flame_free(f);
	sp_flame_free(before);
	return 0;
}
