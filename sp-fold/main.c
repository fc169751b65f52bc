/* SPDX-License-Identifier: MIT */
/* sp-fold: a spool's samples as folded stacks, or as a pprof profile. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp/common/output.h"
#include "sp/report/demangle.h"
#include "sp/report/fold.h"
#include "sp/report/perf_script.h"
#include "sp/report/pprof.h"
#include "sp/report/speedscope.h"
#include "sp/spool/replay.h"
#include "sp/tool/tool.h"

struct opts {
	struct sp_fold_options fo;
	const char *in, *out;
	const char *from, *to;  /* as given, for messages */
	int pprof;
	int speedscope;
	int chrome;
	int perf_script;
	int no_demangle;
};

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-fold [--pid PID] [--tid TID] [--comm NAME] [--cpu CPU]\n"
	    "               [--from SECONDS] [--to SECONDS]\n"
	    "               [--per-process | --per-thread] [--show-hidden]\n"
	    "               [--lines] [--modules] [--no-inline]\n"
	    "               [--user-only | --kernel-only]\n"
	    "               [--max-depth N]\n"
	    "               [--pprof | --speedscope | --chrome-trace | --perf-script]\n"
	    "               [--on-cpu | --off-cpu | --preempted | --both]\n"
	    "               [--no-demangle]\n"
	    "               [-o FILE] [FILE | -]\n"
	    "Fold a spool's samples into stacks, one line per distinct stack,\n"
	    "root first, ';'-separated, then a space and the count (a ';' in\n"
	    "a name is written ':').\n"
	    "  -p, --pid PID       only samples of process PID\n"
	    "  -t, --tid TID       only samples of thread TID\n"
	    "      --comm NAME     only samples of threads named NAME\n"
	    "      --cpu CPU       only samples taken on CPU (a number)\n"
	    "  -f, --from SECONDS  only samples at or after SECONDS from the start\n"
	    "      --to SECONDS    only samples before SECONDS from the start\n"
	    "  -P, --per-process   root frame comm-PID\n"
	    "  -R, --per-thread    root frame comm-PID/TID\n"
	    "  -H, --show-hidden   keep frames hidden by default (interpreter\n"
	    "                      machinery)\n"
	    "  -l, --lines         append :file:line to named frames\n"
	    "  -M, --modules       module`function for named frames (for\n"
	    "                      sp-flame --colors module)\n"
	    "  -I, --no-inline     one frame per machine frame (no inline frames)\n"
	    "  -u, --user-only     drop kernel frames\n"
	    "      --kernel-only   drop user frames\n"
	    "      --max-depth N   keep the N frames nearest the root, then\n"
	    "                      [deeper]\n"
	    "      --on-cpu        only time on CPU, counted in samples (the\n"
	    "                      default for spools without off-CPU samples)\n"
	    "      --off-cpu       only time off CPU blocked (sp-record --off-cpu),\n"
	    "                      counted in nanoseconds, not preemption\n"
	    "      --preempted     only time preempted, waiting for a CPU\n"
	    "                      (sp-record --off-cpu), in nanoseconds\n"
	    "      --both          all three, in nanoseconds (a CPU sample counts\n"
	    "                      the sampling period), off-CPU stacks under\n"
	    "                      the root [off-cpu], preempted ones under\n"
	    "                      [preempted] (the default for spools with\n"
	    "                      off-CPU samples)\n"
	    "      --pprof         write a gzip'd pprof profile instead\n"
	    "  -S, --speedscope    write speedscope JSON instead: a profile per\n"
	    "                      thread, samples in time order (its Time Order\n"
	    "                      view), each weighing the sampling period\n"
	    "      --chrome-trace  write Chrome's trace event format instead (JSON,\n"
	    "                      for Perfetto, chrome://tracing or speedscope):\n"
	    "                      a track per thread, a span per frame in time\n"
	    "      --perf-script   write text in perf script's form instead, which\n"
	    "                      speedscope, the Firefox Profiler, FlameGraph's\n"
	    "                      stackcollapse-perf.pl and inferno import\n"
	    "      --no-demangle   C++ and Rust names as the spool has them\n"
	    "                      (mangled; by default they are demangled)\n"
	    "  -o, --output FILE   where to write (default: standard output)\n"
	    "  -h, --help          this text\n"
	    "      --version       version, spool format and build-id\n"
	    "FILE - (the default) reads standard input.\n");
	exit(status);
}

static uint32_t
parse_u32(const char *what, const char *s)
{
	return (uint32_t)spi_tool_int(what, s, 0, UINT32_MAX);
}

/* Seconds (a decimal fraction allowed) to nanoseconds. */
static uint64_t
parse_seconds(const char *what, const char *s)
{
	return (uint64_t)(spi_tool_real(what, s, 0, 0, 1e9) * 1e9 + 0.5);
}

static void
set_root(struct opts *o, enum sp_fold_root root)
{
	if (o->fo.root != SP_FOLD_ROOT_NONE && o->fo.root != root)
		errx(2, "--per-process and --per-thread exclude each other");
	o->fo.root = root;
}

static void
set_time(struct opts *o, enum sp_fold_time t)
{
	if (o->fo.time != SP_FOLD_TIME_AUTO && o->fo.time != t)
		errx(2, "--on-cpu, --off-cpu, --preempted and --both exclude "
		    "each other");
	o->fo.time = t;
}

static const struct option longopts[] = {
	{ "both", no_argument, NULL, 1000 + 'B' },
	{ "chrome-trace", no_argument, NULL, 1000 + 'T' },
	{ "perf-script", no_argument, NULL, 1000 + 'P' },
	{ "comm", required_argument, NULL, 'c' },
	{ "cpu", required_argument, NULL, 1000 + 'u' },
	{ "from", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "kernel-only", no_argument, NULL, 'k' },
	{ "lines", no_argument, NULL, 'l' },
	{ "max-depth", required_argument, NULL, 'd' },
	{ "modules", no_argument, NULL, 'M' },
	{ "no-demangle", no_argument, NULL, 1000 + 'D' },
	{ "no-inline", no_argument, NULL, 'I' },
	{ "off-cpu", no_argument, NULL, 1000 + 'F' },
	{ "on-cpu", no_argument, NULL, 1000 + 'N' },
	{ "output", required_argument, NULL, 'o' },
	{ "per-process", no_argument, NULL, 'P' },
	{ "per-thread", no_argument, NULL, 'R' },
	{ "pid", required_argument, NULL, 'p' },
	{ "pprof", no_argument, NULL, 'g' },
	{ "preempted", no_argument, NULL, 1000 + 'E' },
	{ "speedscope", no_argument, NULL, 'S' },
	{ "show-hidden", no_argument, NULL, 'H' },
	{ "tid", required_argument, NULL, 't' },
	{ "to", required_argument, NULL, 'T' },
	{ "user-only", no_argument, NULL, 'u' },
	{ "version", no_argument, NULL, 1000 + 'V' },
	{ NULL, 0, NULL, 0 },
};

/* The options that only set a flag of the fold. */
static const struct {
	int ch;
	unsigned flag;
} flag_opts[] = {
	{ 'H', SP_FOLD_SHOW_HIDDEN },
	{ 'I', SP_FOLD_NO_INLINE },
	{ 'M', SP_FOLD_MODULES },
	{ 'k', SP_FOLD_KERNEL_ONLY },
	{ 'l', SP_FOLD_LINES },
	{ 'u', SP_FOLD_USER_ONLY },
};

/* What to write, and the options that do not fold. */
static void
output_option(struct opts *o, int ch, char **argv)
{
	switch (ch) {
	case 'S':
		o->speedscope = 1;
		o->fo.flags |= SP_FOLD_ORDER;
		break;
	case 1000 + 'T':
		o->chrome = 1;
		o->fo.flags |= SP_FOLD_ORDER;
		break;
	case 1000 + 'P':
		o->perf_script = 1;
		o->fo.flags |= SP_FOLD_ORDER;
		break;
	case 'g':
		o->pprof = 1;
		break;
	case 'o':
		o->out = optarg;
		break;
	case 'h':
		usage(0);
		break;
	case 1000 + 'D':
		o->no_demangle = 1;
		break;
	case 1000 + 'B':
		set_time(o, SP_FOLD_TIME_BOTH);
		break;
	case 1000 + 'E':
		set_time(o, SP_FOLD_TIME_PREEMPTED);
		break;
	case 1000 + 'F':
		set_time(o, SP_FOLD_TIME_OFF_CPU);
		break;
	case 1000 + 'N':
		set_time(o, SP_FOLD_TIME_ON_CPU);
		break;
	case 1000 + 'V':
		spi_tool_version("sp-fold");
		break;
	default:
		spi_tool_bad_option("sp-fold", ch, argv);
	}
}

/* The options that take a value, or set more than a flag. */
static void
value_option(struct opts *o, int ch, char **argv)
{
	switch (ch) {
	case 'P':
		set_root(o, SP_FOLD_ROOT_PROCESS);
		break;
	case 'R':
		set_root(o, SP_FOLD_ROOT_THREAD);
		break;
	case 'T':
		o->fo.flags |= SP_FOLD_TO;
		o->fo.to_ns = parse_seconds("--to", optarg);
		o->to = optarg;
		break;
	case 'c':
		o->fo.comm = optarg;
		break;
	case 'd':
		o->fo.max_depth = parse_u32("--max-depth", optarg);
		if (o->fo.max_depth == 0)
			errx(2, "--max-depth: must be at least 1");
		break;
	case 'f':
		o->fo.flags |= SP_FOLD_FROM;
		o->fo.from_ns = parse_seconds("--from", optarg);
		o->from = optarg;
		break;
	case 'p':
		o->fo.flags |= SP_FOLD_PID;
		o->fo.pid = parse_u32("--pid", optarg);
		break;
	case 't':
		o->fo.flags |= SP_FOLD_TID;
		o->fo.tid = parse_u32("--tid", optarg);
		break;
	case 1000 + 'u':
		o->fo.flags |= SP_FOLD_CPU;
		o->fo.cpu = parse_u32("--cpu", optarg);
		break;
	default:
		output_option(o, ch, argv);
	}
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	size_t i;
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":HIMPRSf:hlo:p:t:u",
	    longopts, NULL)) != -1) {
		for (i = 0; i < sizeof(flag_opts) / sizeof(*flag_opts) &&
		    flag_opts[i].ch != ch; i++)
			;
		if (i < sizeof(flag_opts) / sizeof(*flag_opts))
			o->fo.flags |= flag_opts[i].flag;
		else
			value_option(o, ch, argv);
	}
	if ((o->fo.flags & SP_FOLD_USER_ONLY) &&
	    (o->fo.flags & SP_FOLD_KERNEL_ONLY))
		errx(2, "--user-only and --kernel-only exclude each other");
	if (o->pprof + o->speedscope + o->chrome + o->perf_script > 1)
		errx(2, "--pprof, --speedscope, --chrome-trace and --perf-script "
		    "exclude each other");
	if ((o->speedscope || o->chrome) && o->fo.root != SP_FOLD_ROOT_NONE)
		errx(2, "--%s writes a profile per thread: "
		    "--per-process and --per-thread do not apply",
		    o->chrome ? "chrome-trace" : "speedscope");
	if (o->perf_script && o->fo.root != SP_FOLD_ROOT_NONE)
		errx(2, "--perf-script writes each sample with its comm, pid "
		    "and tid: --per-process and --per-thread do not apply");
	/* --from is inclusive, --to exclusive. */
	if (o->from != NULL && o->to != NULL && o->fo.from_ns >= o->fo.to_ns)
		errx(2, "--from %s --to %s: the time range is empty (--from "
		    "must be before --to)", o->from, o->to);
	if (argc - optind > 1)
		errx(2, "one spool at a time (%d given); to fold several, "
		    "merge them first: sp-merge A B | sp-fold", argc - optind);
	o->in = optind < argc ? argv[optind] : "-";
}

/* The filters given, as "--pid 4 --comm x", into buf. */
static const char *
filters(const struct opts *o, char *buf, size_t cap)
{
	const struct sp_fold_options *fo = &o->fo;
	size_t n = 0;

	buf[0] = '\0';
	if (fo->flags & SP_FOLD_PID)
		n += (size_t)snprintf(buf + n, cap - n, " --pid %" PRIu32,
		    fo->pid);
	if ((fo->flags & SP_FOLD_TID) && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " --tid %" PRIu32,
		    fo->tid);
	if (fo->comm != NULL && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " --comm %s", fo->comm);
	if ((fo->flags & SP_FOLD_CPU) && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " --cpu %" PRIu32,
		    fo->cpu);
	if (o->from != NULL && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " --from %s", o->from);
	if (o->to != NULL && n < cap)
		(void)snprintf(buf + n, cap - n, " --to %s", o->to);
	return buf[0] != '\0' ? buf + 1 : buf;
}

/*
 * Off-CPU time: none to fold, the unit, and whether preemption is in it
 * (a recording that could not tell it apart).
 */
static void
report_time(const struct opts *o, const struct sp_fold *f,
    const struct sp_defs *d, const struct sp_fold_stats *st)
{
	const struct sp_recording *r = sp_defs_recording(d);
	int taken = r != NULL && (r->flags & SP_RECORDING_OFF_CPU);
	int apart = r != NULL && (r->flags & SP_RECORDING_PREEMPTED);
	enum sp_fold_time unit;
	uint64_t period;
	char pre[128] = "";

	if (o->fo.time == SP_FOLD_TIME_OFF_CPU && st->off_cpu == 0)
		warnx("%s: no off-CPU samples (they are recorded with "
		    "sp-record --off-cpu)", o->in);
	if (o->fo.time == SP_FOLD_TIME_PREEMPTED && st->preempted == 0)
		warnx("%s: no preempted samples (%s)", o->in, !taken ?
		    "they are recorded with sp-record --off-cpu" : !apart ?
		    "this recording counts preemption as off-CPU time: its "
		    "kernel, before Linux 4.17, or its sp-record did not tell "
		    "them apart" : "no recorded thread was preempted");
	unit = sp_fold_unit(f, d, &period);
	if (apart || st->preempted > 0)
		(void)snprintf(pre, sizeof(pre), ", preempted ones under "
		    "[preempted] (%.3f s in %" PRIu64 ")",
		    (double)st->preempted_ns / 1e9, st->preempted);
	if (st->off_cpu + st->preempted > 0 && unit == SP_FOLD_TIME_BOTH)
		warnx("%s: counts are nanoseconds: on CPU a sample counts "
		    "%" PRIu64 " ns, off-CPU stacks are under [off-cpu] (%.3f s "
		    "in %" PRIu64 " samples)%s", o->in, period,
		    (double)st->off_cpu_ns / 1e9, st->off_cpu, pre);
	if (st->off_cpu > 0 && taken && !apart &&
	    (unit == SP_FOLD_TIME_BOTH || unit == SP_FOLD_TIME_OFF_CPU))
		warnx("%s: its off-CPU time includes preemption (waiting for "
		    "a CPU): its kernel, before Linux 4.17, or its sp-record "
		    "did not tell them apart", o->in);
}

/*
 * What a user needs to hear once the output is written: a filter that
 * matched nothing (the output is empty, and silence would look like a
 * bug), frames left unnamed, samples that had no frames left.
 */
static void
report(const struct opts *o, const struct sp_fold *f, const struct sp_defs *d)
{
	struct sp_fold_stats st;
	char buf[512];

	sp_fold_get_stats(f, &st);
	if (st.samples > 0 && st.counted == 0 && st.filtered > 0 &&
	    (o->from != NULL || o->to != NULL))
		warnx("%s: no sample matched %s (of %" PRIu64 " samples, taken "
		    "from %.3f to %.3f s)", o->in, filters(o, buf, sizeof(buf)),
		    st.samples, (double)st.span_first_ns / 1e9,
		    (double)st.span_last_ns / 1e9);
	/* (Without filters, the time chosen left them out: report_time.) */
	else if (st.samples > 0 && st.counted == 0 && st.filtered > 0 &&
	    *filters(o, buf, sizeof(buf)) != '\0')
		warnx("%s: no sample matched %s (of %" PRIu64 " samples)",
		    o->in, filters(o, buf, sizeof(buf)), st.samples);
	report_time(o, f, d, &st);
	if (st.counted > 0 && sp_defs_count(d, SP_REC_SYMBOL) == 0)
		warnx("%s: no frame is symbolized (they print as "
		    "module+0xOFFSET); name them first: sp-sym %s | sp-fold",
		    o->in, strcmp(o->in, "-") == 0 ? "FILE" : o->in);
	if (st.empty != 0)
		warnx("%s: %" PRIu64 " samples had no %s frames", o->in,
		    st.empty, (o->fo.flags & SP_FOLD_USER_ONLY) ? "user" :
		    "kernel");
}

/* Reads and counts; returns the reader (the caller frees it). */
static struct sp_replay *
count(const struct opts *o, struct sp_fold **f)
{
	struct sp_replay *r;
	const struct sp_status *st;
	int e;

	r = spi_tool_replay(o->in);
	/* The options were checked: only memory can fail here. */
	if ((e = sp_fold_new(&o->fo, sp_replay_header(r), f)) < 0)
		spi_tool_fail(e, SP_TOOL_INPUT, o->in, NULL);
	if ((e = sp_fold_replay(*f, r)) < 0)
		spi_tool_fail(e, SP_TOOL_INPUT, o->in, sp_replay_diag(r));
	st = sp_replay_status(r);
	if (st->truncated)
		warnx("%s: truncated at offset 0x%" PRIx64 ": folded the intact "
		    "prefix, %" PRIu64 " samples", o->in, st->end_offset,
		    st->samples);
	return r;
}

/* Demangles the names of d (the whole spool's) with dm, which the
 * fold's options name; says so when it cannot. */
static void
demangle(struct sp_demangle *dm, const struct sp_defs *d)
{
	struct sp_diag diag;

	if (sp_demangle_add_defs(dm, d) < 0)
		errx(1, "out of memory");
	if (sp_demangle_run(dm, 1, &diag) < 0)
		spi_tool_demangle_failed(diag.msg);
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct sp_demangle *dm = NULL;
	struct sp_fold *f = NULL;
	struct sp_replay *r;
	struct sp_output_file out;
	struct sp_diag diag;
	int e;

	memset(&o, 0, sizeof(o));
	o.fo.sz = sizeof(o.fo);
	parse_args(argc, argv, &o);
	spi_tool_input(o.in, "spool", "sp-fold [OPTIONS] FILE");
	if (o.pprof && (o.out == NULL || strcmp(o.out, "-") == 0) &&
	    isatty(STDOUT_FILENO))
		errx(2, "--pprof writes binary data: use -o FILE or a pipe");
	if (!o.no_demangle && sp_demangle_new(NULL, &dm) < 0)
		errx(1, "out of memory");
	o.fo.demangle = dm;
	r = count(&o, &f);
	if (dm != NULL)
		demangle(dm, sp_replay_defs(r));
	/* Only now, with the spool read: a failed run must not replace
	 * FILE. */
	if (sp_output_redirect(&out, o.out, &diag) < 0)
		errx(1, "%s", diag.msg);
	if (o.pprof)
		e = sp_pprof_write(f, sp_replay_defs(r), sp_replay_header(r),
		    stdout);
	else if (o.speedscope)
		e = sp_speedscope_write(f, sp_replay_defs(r),
		    sp_replay_header(r), strcmp(o.in, "-") == 0 ? NULL : o.in,
		    stdout);
	else if (o.chrome)
		e = sp_chrome_trace_write(f, sp_replay_defs(r),
		    sp_replay_header(r), stdout);
	else if (o.perf_script)
		e = sp_perf_script_write(f, sp_replay_defs(r),
		    sp_replay_header(r), stdout);
	else if ((e = sp_fold_write_header(f, sp_replay_defs(r), stdout)) == 0)
		e = sp_fold_write(f, sp_replay_defs(r), stdout);
	/* Memory, or a stack the spool does not define (-SP_EREF). */
	if (e < 0 && e != -EIO) {
		sp_output_discard(&out);
		spi_tool_fail(e, SP_TOOL_INPUT, o.in, NULL);
	}
	/* A write error (-EIO) is sticky on stdout: the commit reports it
	 * with its errno. */
	if (sp_output_commit(&out, &diag) < 0)
		errx(1, "%s", diag.msg);
	report(&o, f, sp_replay_defs(r));
	sp_fold_free(f);
	sp_demangle_free(dm);
	sp_replay_free(r);
	return 0;
}
