/* SPDX-License-Identifier: MIT */
/* sp-report: what is hot in a spool, and who calls it, in a terminal. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp/common/output.h"
#include "sp/report/browse.h"
#include "sp/report/demangle.h"
#include "sp/report/fold.h"
#include "sp/report/report.h"
#include "sp/spool/replay.h"
#include "sp/sym/sym.h"
#include "sp/tool/screen.h"
#include "sp/tool/tool.h"

struct opts {
	struct sp_fold_options fo;
	struct sp_report_options ro;
	const char *in, *out;
	int no_sym, no_demangle, quiet;
	int interactive, rows_given;
	const char *dirs[SP_DEBUG_DIRS_MAX];
	size_t ndirs;
	const char *bundle;
	char beside[4096];
};

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-report [--sort symbol|total|module|pid|tid|comm] [--children]\n"
	    "                 [--callers NAME | --callees NAME] [-i]\n"
	    "                 [--percent-limit PCT] [-n ROWS] [--width COLUMNS]\n"
	    "                 [--pid PID] [--tid TID] [--comm NAME] [--cpu CPU]\n"
	    "                 [--from SECONDS] [--to SECONDS]\n"
	    "                 [--on-cpu | --off-cpu | --preempted]\n"
	    "                 [--no-sym] [--debug-dir DIR] [-b DIR] [--no-demangle]\n"
	    "                 [-q] [-o FILE] [FILE | -]\n"
	    "What is hot in a spool, and who calls it: the recording's quality,\n"
	    "then its functions by self share (the samples they are the leaf\n"
	    "of) and total share (the samples they are in).  A spool sp-sym has\n"
	    "not named is named on the way, as sp-sym would.\n"
	    "      --sort KEY       symbol (functions by self, the default), total\n"
	    "                       (by total), module, pid, tid or comm\n"
	    "      --children       --sort total, as perf report's\n"
	    "      --callers NAME   the functions that call NAME and the paths\n"
	    "                       into it, with their shares\n"
	    "      --callees NAME   the functions NAME calls and the paths out\n"
	    "  -i, --interactive    browse it on the terminal: j/k or the arrows\n"
	    "                       move, Enter opens a function's callers and\n"
	    "                       callees, Esc (h, Backspace, left) goes back,\n"
	    "                       q quits\n"
	    "      --percent-limit PCT  leave out rows under PCT %% (default 0.5)\n"
	    "  -n, --max-rows N     at most N rows (default 40, with -i all;\n"
	    "                       0: all)\n"
	    "      --width COLUMNS  fit this width (default: the terminal's, else 80)\n"
	    "  -p, --pid PID        only samples of process PID\n"
	    "  -t, --tid TID        only samples of thread TID\n"
	    "      --comm NAME, --cpu CPU, -f, --from SECONDS, --to SECONDS\n"
	    "                       only those samples, as sp-fold's\n"
	    "      --on-cpu | --off-cpu | --preempted  the time to count (default:\n"
	    "                       on-CPU samples)\n"
	    "      --no-sym         use the names the spool has (sp-sym's), name\n"
	    "                       nothing\n"
	    "      --debug-dir DIR  also look for debug files there, as sp-sym's\n"
	    "  -b, --bundle DIR     a recorder's bundle, as sp-sym --bundle\n"
	    "      --no-demangle    C++ and Rust names as the spool has them\n"
	    "  -q, --quiet          no quality lines above the table\n"
	    "  -o, --output FILE    where to write (default: standard output)\n"
	    "  -h, --help           this text\n"
	    "      --version        version, spool format and build-id\n"
	    "FILE - (the default when standard input is not a terminal) reads\n"
	    "standard input.\n");
	exit(status);
}

static const struct option longopts[] = {
	{ "bundle", required_argument, NULL, 'b' },
	{ "callees", required_argument, NULL, 1000 + 'e' },
	{ "callers", required_argument, NULL, 1000 + 'r' },
	{ "children", no_argument, NULL, 1000 + 'C' },
	{ "comm", required_argument, NULL, 'c' },
	{ "cpu", required_argument, NULL, 1000 + 'u' },
	{ "debug-dir", required_argument, NULL, 'd' },
	{ "from", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "interactive", no_argument, NULL, 'i' },
	{ "max-rows", required_argument, NULL, 'n' },
	{ "no-demangle", no_argument, NULL, 1000 + 'D' },
	{ "no-sym", no_argument, NULL, 1000 + 'S' },
	{ "off-cpu", no_argument, NULL, 1000 + 'O' },
	{ "on-cpu", no_argument, NULL, 1000 + 'o' },
	{ "output", required_argument, NULL, 'o' },
	{ "percent-limit", required_argument, NULL, 1000 + 'P' },
	{ "pid", required_argument, NULL, 'p' },
	{ "preempted", no_argument, NULL, 1000 + 'E' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "sort", required_argument, NULL, 's' },
	{ "tid", required_argument, NULL, 't' },
	{ "to", required_argument, NULL, 'T' },
	{ "version", no_argument, NULL, 1000 + 'V' },
	{ "width", required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 },
};

static uint64_t
seconds(const char *what, const char *s)
{
	return (uint64_t)(spi_tool_real(what, s, 0, 0, 1e9) * 1e9 + 0.5);
}

static void
sort_key(struct opts *o, const char *s)
{
	static const struct {
		const char *name;
		enum sp_report_sort sort;
	} keys[] = {
		{ "symbol", SP_REPORT_SYMBOL }, { "sym", SP_REPORT_SYMBOL },
		{ "total", SP_REPORT_TOTAL }, { "module", SP_REPORT_MODULE },
		{ "dso", SP_REPORT_MODULE }, { "pid", SP_REPORT_PID },
		{ "process", SP_REPORT_PID }, { "tid", SP_REPORT_TID },
		{ "thread", SP_REPORT_TID }, { "comm", SP_REPORT_COMM },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(s, keys[i].name) == 0) {
			o->ro.sort = keys[i].sort;
			return;
		}
	errx(2, "--sort %s: not a key: symbol, total, module (dso), pid "
	    "(process), tid (thread) or comm", s);
}

static void
set_time(struct opts *o, enum sp_fold_time t)
{
	if (o->fo.time != SP_FOLD_TIME_AUTO && o->fo.time != t)
		errx(2, "--on-cpu, --off-cpu and --preempted exclude each "
		    "other");
	o->fo.time = t;
}

static void
option(struct opts *o, int ch, char **argv)
{
	switch (ch) {
	case 'b': o->bundle = optarg; break;
	case 'c': o->fo.comm = optarg; break;
	case 'd':
		if (o->ndirs == SP_DEBUG_DIRS_MAX)
			errx(2, "at most %d -d directories", SP_DEBUG_DIRS_MAX);
		o->dirs[o->ndirs++] = optarg;
		break;
	case 'f':
		o->fo.flags |= SP_FOLD_FROM;
		o->fo.from_ns = seconds("--from", optarg);
		break;
	case 'h': usage(0); break;
	case 'i': o->interactive = 1; break;
	case 'n':
		o->rows_given = 1;
		o->ro.max_rows = (unsigned)spi_tool_int("-n rows", optarg, 0,
		    1000000);
		break;
	case 'o': o->out = optarg; break;
	case 'p':
		o->fo.flags |= SP_FOLD_PID;
		o->fo.pid = (uint32_t)spi_tool_int("--pid", optarg, 0,
		    UINT32_MAX);
		break;
	case 'q': o->quiet = 1; break;
	case 's': sort_key(o, optarg); break;
	case 't':
		o->fo.flags |= SP_FOLD_TID;
		o->fo.tid = (uint32_t)spi_tool_int("--tid", optarg, 0,
		    UINT32_MAX);
		break;
	case 'T':
		o->fo.flags |= SP_FOLD_TO;
		o->fo.to_ns = seconds("--to", optarg);
		break;
	case 'w':
		o->ro.width = (unsigned)spi_tool_int("-w columns", optarg, 40,
		    1000);
		break;
	case 1000 + 'C': o->ro.sort = SP_REPORT_TOTAL; break;
	case 1000 + 'D': o->no_demangle = 1; break;
	case 1000 + 'E': set_time(o, SP_FOLD_TIME_PREEMPTED); break;
	case 1000 + 'O': set_time(o, SP_FOLD_TIME_OFF_CPU); break;
	case 1000 + 'o': set_time(o, SP_FOLD_TIME_ON_CPU); break;
	case 1000 + 'P':
		o->ro.percent_limit = spi_tool_real("--percent-limit", optarg,
		    0, 0, 100);
		break;
	case 1000 + 'S': o->no_sym = 1; break;
	case 1000 + 'V': spi_tool_version("sp-report"); break;
	case 1000 + 'e': o->ro.callees = optarg; break;
	case 1000 + 'r': o->ro.callers = optarg; break;
	case 1000 + 'u':
		o->fo.flags |= SP_FOLD_CPU;
		o->fo.cpu = (uint32_t)spi_tool_int("--cpu", optarg, 0,
		    UINT32_MAX);
		break;
	default:
		spi_tool_bad_option("sp-report", ch, argv);
	}
}

/* -i: the terminal is the output, and shows every row by default. */
static void
interactive_args(struct opts *o)
{
	if (!isatty(STDOUT_FILENO))
		errx(2, "-i needs a terminal: standard output is not one (drop "
		    "-i to write the report as text)");
	if (o->out != NULL)
		errx(2, "-i shows the report on the terminal: -o does not "
		    "apply (drop -o, or -i to write it to a file)");
	if (!o->rows_given)
		o->ro.max_rows = 0;
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	struct winsize ws;
	int ch;

	o->ro.percent_limit = 0.5;
	o->ro.max_rows = 40;
	o->fo.time = SP_FOLD_TIME_AUTO;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":b:f:hin:o:p:qt:",
	    longopts, NULL)) != -1)
		option(o, ch, argv);
	if (o->ro.callers != NULL && o->ro.callees != NULL)
		errx(2, "--callers and --callees exclude each other: one "
		    "function's neighbours at a time");
	if ((o->ro.callers != NULL || o->ro.callees != NULL) &&
	    o->ro.sort > SP_REPORT_TOTAL)
		errx(2, "--callers and --callees list functions: --sort %s "
		    "does not apply", o->ro.sort == SP_REPORT_MODULE ?
		    "module" : "with threads");
	if (argc - optind > 1)
		errx(2, "one spool at a time (%d given); to report on several, "
		    "merge them first: sp-merge A B | sp-report", argc - optind);
	o->in = optind < argc ? argv[optind] : "-";
	if (o->interactive)
		interactive_args(o);
	if (o->ro.width == 0 && isatty(STDOUT_FILENO) &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		o->ro.width = ws.ws_col;
	/* The fold the report reads: each frame's module, each sample's
	 * thread; CPU time unless asked (a CPU sample counts 1). */
	o->fo.flags |= SP_FOLD_MODULES;
	o->fo.root = SP_FOLD_ROOT_THREAD;
	if (o->fo.time == SP_FOLD_TIME_AUTO)
		o->fo.time = SP_FOLD_TIME_ON_CPU;
}

/*
 * The spool named: a memory file sp-sym's logic wrote from in (which it
 * reads to the end), read anew.  The problems that left frames unnamed
 * are sp-sym's to report: they are counted here.
 */
static struct sp_replay *
named(struct opts *o, struct sp_replay *in)
{
	struct sp_sym_options so;
	struct sp_debug_dirs env;
	struct sp_sym_report rep;
	struct sp_replay *r;
	struct sp_diag diag;
	struct stat st;
	char cache[4096];
	int fd, rc;
	size_t i;

	memset(&so, 0, sizeof(so));
	so.sz = sizeof(so);
	so.cache_dir = spi_tool_cache_dir(NULL, 0, cache, sizeof(cache));
	if (sp_debug_dirs_from_env(&env) < 0)
		errx(2, "%s: more than %d directories, or out of memory",
		    SP_DEBUG_DIRS_ENV, SP_DEBUG_DIRS_MAX);
	for (i = 0; i < env.n && o->ndirs < SP_DEBUG_DIRS_MAX; i++)
		o->dirs[o->ndirs++] = env.dirs[i];
	so.debug_dirs = o->dirs;
	so.ndebug_dirs = o->ndirs;
	so.bundle = o->bundle;
	if (so.bundle == NULL && strcmp(o->in, "-") != 0 &&
	    sp_bundle_beside(o->in, o->beside, sizeof(o->beside)) == 0 &&
	    stat(o->beside, &st) == 0 && S_ISDIR(st.st_mode))
		so.bundle = o->beside;
	if ((fd = memfd_create("sp-report", MFD_CLOEXEC)) < 0)
		err(1, "memfd_create");
	memset(&diag, 0, sizeof(diag));
	rc = sp_sym_spool(&so, in, fd, &rep, &diag);
	if (rc < 0) {
		if (rep.input_failed)
			spi_tool_fail(rc, SP_TOOL_INPUT, o->in, &diag);
		errx(1, "naming the frames: %s", sp_strerror(rc));
	}
	sp_sym_report_fini(&rep);
	sp_debug_dirs_fini(&env);
	if (lseek(fd, 0, SEEK_SET) < 0 || sp_replay_open_fd(fd, &r,
	    &diag) < 0)
		errx(1, "reading the named spool back: %s", diag.msg);
	return r;
}

static unsigned long long
counter(const struct sp_defs *d, const char *name)
{
	const struct sp_counter *c;
	size_t i, n = sp_defs_counters(d, &c);

	for (i = 0; i < n; i++)
		if (c[i].name.len == strlen(name) &&
		    memcmp(c[i].name.s, name, c[i].name.len) == 0)
			return (unsigned long long)c[i].value;
	return 0;
}

/* The recording's quality, as sp-record's summary says it, and what the
 * table counts. */
static void
quality(const struct opts *o, const struct sp_fold *f,
    const struct sp_defs *d, FILE *out)
{
	const struct sp_recording *rec = sp_defs_recording(d);
	struct sp_fold_stats st;
	unsigned long long samples = counter(d, "samples");
	unsigned long long lost = counter(d, "lost_events");
	unsigned long long cut = counter(d, "truncated_stacks");

	const char *name = strrchr(o->in, '/');

	/* The file's name alone: a long path would pass the width. */
	name = strcmp(o->in, "-") == 0 ? "stdin" : name != NULL ? name + 1 :
	    o->in;
	sp_fold_get_stats(f, &st);
	(void)fprintf(out, "%.*s: %llu samples", (int)(o->ro.width > 0 ?
	    o->ro.width / 2 : 40), name, samples ? samples :
	    (unsigned long long)st.samples);
	if (rec != NULL && rec->event.len > 0)
		(void)fprintf(out, " of %.*s", (int)rec->event.len,
		    rec->event.s);
	if (rec != NULL && rec->period > 0)
		(void)fprintf(out, " every %llu%s", (unsigned long long)
		    rec->period, (rec->flags & SP_RECORDING_COUNTS) ? "" :
		    " ns");
	else if (rec != NULL && rec->frequency > 0)
		(void)fprintf(out, " at %u Hz", rec->frequency);
	if (st.counted > 0)
		(void)fprintf(out, " over %.1f s", (double)(st.last_ns -
		    st.first_ns) / 1e9);
	(void)fprintf(out, "\n%llu lost (%.1f %%)", lost, (samples + lost) ?
	    100.0 * (double)lost / (double)(samples + lost) : 0.0);
	if (samples > 0)
		(void)fprintf(out, ", %.1f %% of stacks complete",
		    100.0 - 100.0 * (double)cut / (double)samples);
	(void)fprintf(out, "\n");
	/* The table's shares are then of events, not of samples. */
	if (rec != NULL && (rec->flags & SP_RECORDING_COUNTS))
		(void)fprintf(out, "shares of %.*s: %llu counted in the samples "
		    "(each weighs the events since its last)\n",
		    (int)rec->event.len, rec->event.s, counter(d,
		    "event_count"));
	if (st.filtered > 0 || o->fo.comm != NULL || (o->fo.flags &
	    (SP_FOLD_PID | SP_FOLD_TID | SP_FOLD_CPU | SP_FOLD_FROM |
	    SP_FOLD_TO)))
		(void)fprintf(out, "counted: %" PRIu64 " of them (the others "
		    "filtered out)\n", st.counted);
	(void)fputc('\n', out);
}

/* The report as text, to -o's file or standard output: 0 or
 * sp_report_write's error (no output left then). */
static int
text(const struct opts *o, struct sp_fold *f, const struct sp_defs *d)
{
	struct sp_output_file out;
	struct sp_diag diag;
	int e;

	if (sp_output_redirect(&out, o->out, &diag) < 0)
		errx(1, "%s", diag.msg);
	if (!o->quiet)
		quality(o, f, d, stdout);
	e = sp_report_write(f, d, &o->ro, stdout);
	if (e < 0 && e != -EIO) {
		sp_output_discard(&out);
		return e;
	}
	if (sp_output_commit(&out, &diag) < 0)
		errx(1, "%s", diag.msg);
	return 0;
}

/* What a key does in the browser: perf report's and less's keys. */
static int
action(int key)
{
	switch (key) {
	case 'k': case SPI_KEY_UP: return SP_BROWSE_UP;
	case 'j': case SPI_KEY_DOWN: return SP_BROWSE_DOWN;
	case 'b': case SPI_KEY_PAGE_UP: return SP_BROWSE_PAGE_UP;
	case ' ': case SPI_KEY_PAGE_DOWN: return SP_BROWSE_PAGE_DOWN;
	case 'g': case SPI_KEY_HOME: return SP_BROWSE_FIRST;
	case 'G': case SPI_KEY_END: return SP_BROWSE_LAST;
	case '\r': case '\n': case 'l': case SPI_KEY_RIGHT:
		return SP_BROWSE_OPEN;
	case SPI_KEY_ESC: case SPI_KEY_LEFT: case 'h': case 127: case '\b':
		return SP_BROWSE_BACK;
	default: return -1;
	}
}

/*
 * -i: the report browsed on the terminal until q, a signal (exit 128 +
 * its number, the terminal given back either way), or the terminal's
 * end.  Returns
 * 0 or the browser's error.
 */
static int
browse(const struct opts *o, struct sp_fold *f, const struct sp_defs *d)
{
	struct sp_browse *b;
	char *head = NULL;
	size_t len = 0;
	FILE *ms;
	int rows, cols, key = SPI_KEY_NONE, a, e;

	if ((ms = open_memstream(&head, &len)) == NULL)
		errx(1, "out of memory");
	if (!o->quiet)
		quality(o, f, d, ms);
	if (fclose(ms) != 0)
		errx(1, "out of memory");
	e = sp_browse_new(f, d, &o->ro, head, &b);
	free(head);
	if (e < 0)
		return e;
	spi_screen_signals();
	spi_screen_open(1);
	for (;;) {
		if ((a = action(key)) >= 0)
			e = sp_browse_act(b, (enum sp_browse_action)a);
		spi_screen_size(&rows, &cols);
		if (e == 0)
			e = sp_browse_draw(b, (unsigned)rows, (unsigned)cols,
			    stdout);
		if (e < 0 || spi_screen_stopped())
			break;
		key = spi_screen_key(-1);
		if (key == 'q' || key == 'Q' || key == SPI_KEY_GONE)
			break;
	}
	spi_screen_close();
	sp_browse_free(b);
	/* Ended by a signal: the status a shell gives for it. */
	if (spi_screen_stopped())
		exit(128 + spi_screen_stopped());
	return e;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct sp_demangle *dm = NULL;
	struct sp_fold *f = NULL;
	struct sp_replay *in, *r;
	struct sp_diag diag;
	struct sp_fold_stats st;
	int e;

	memset(&o, 0, sizeof(o));
	o.fo.sz = sizeof(o.fo);
	o.ro.sz = sizeof(o.ro);
	parse_args(argc, argv, &o);
	spi_tool_input(o.in, "spool", "sp-report [OPTIONS] FILE");
	in = spi_tool_replay(o.in);
	r = o.no_sym ? in : named(&o, in);
	if (!o.no_demangle && sp_demangle_new(NULL, &dm) < 0)
		errx(1, "out of memory");
	o.fo.demangle = dm;
	if ((e = sp_fold_new(&o.fo, sp_replay_header(r), &f)) < 0 ||
	    (e = sp_fold_replay(f, r)) < 0)
		spi_tool_fail(e, SP_TOOL_INPUT, o.in, sp_replay_diag(r));
	if (dm != NULL) {
		if (sp_demangle_add_defs(dm, sp_replay_defs(r)) < 0)
			errx(1, "out of memory");
		if (sp_demangle_run(dm, 1, &diag) < 0)
			spi_tool_demangle_failed(diag.msg);
	}
	sp_fold_get_stats(f, &st);
	if (st.counted == 0)
		errx(1, "%s: no sample to report (%" PRIu64 " in the spool%s)",
		    strcmp(o.in, "-") == 0 ? "stdin" : o.in, st.samples,
		    st.filtered ? ", all filtered out" : "");
	if (o.interactive)
		e = browse(&o, f, sp_replay_defs(r));
	else
		e = text(&o, f, sp_replay_defs(r));
	if (e == -SP_ENOTFOUND)
		errx(1, "%s: no sampled function is named %s (names as the "
		    "table shows them, or module`name)", o.in, o.ro.callers ?
		    o.ro.callers : o.ro.callees);
	if (e < 0)
		spi_tool_fail(e, SP_TOOL_INPUT, o.in, NULL);
	sp_fold_free(f);
	sp_demangle_free(dm);
	if (r != in)
		sp_replay_free(r);
	sp_replay_free(in);
	return 0;
}
