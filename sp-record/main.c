/* SPDX-License-Identifier: MIT */
/* sp-record: sample processes, unwind at record time, write a spool. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sp/common/output.h"
#include "sp/common/process.h"
#include "sp/record/recorder.h"
#include "sp/spool/writer.h"
#include "sp/tool/tool.h"

#define NICE_BOOST (-10)

static volatile sig_atomic_t stop_requests;
/* The spool: its new file is removed at any exit before it is in place. */
static struct sp_output_file out;
static int out_fd = -1;

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-record [-F HZ|max] [-e EVENT [-c PERIOD]] [-s STACK_BYTES]\n"
	    "                 [--kernel] [--children | --no-children]\n"
	    "                 [-d SECONDS] [-D MSECS] [-m MAX_FRAMES]\n"
	    "                 [--bundle DIR [--bundle-binaries]] [--keep-unreachable MIB]\n"
	    "                 [--off-cpu] [--no-jitter] [--stop] [--raw-stacks]\n"
	    "                 [-q] [-o FILE]\n"
	    "                 (-p PID[,PID...] | -- CMD [ARGS...] |\n"
	    "                  (-a | -G CGROUP) [-- CMD [ARGS...]])\n"
	    "Sample threads, unwind their stacks as they are recorded, and write\n"
	    "a spool (default sp.spl; - is standard output).  An existing FILE is\n"
	    "replaced only once the recording has started.\n"
	    "  -F, --freq HZ      samples per second per thread (default 1000;\n"
	    "                     max: the kernel's perf_event_max_sample_rate)\n"
	    "      --no-jitter    sample at fixed intervals, as perf does (on cycles\n"
	    "                     where there is a PMU); by default they are drawn,\n"
	    "                     on cpu-clock, so that a loop in step with the rate\n"
	    "                     is not seen at one phase\n"
	    "  -e, --event EVENT  what the samples count, as perf's -e (-e list:\n"
	    "                     the events): cpu-clock (default), task-clock,\n"
	    "                     page-faults, minor-faults, major-faults,\n"
	    "                     context-switches, cpu-migrations; with a PMU\n"
	    "                     cycles, instructions, cache-misses,\n"
	    "                     branch-misses; EVENT:u, user time only.  A\n"
	    "                     sample of an event that counts weighs its\n"
	    "                     events (a software one's: every event)\n"
	    "  -c, --count PERIOD a sample every PERIOD events (nanoseconds of\n"
	    "                     cpu-clock and task-clock), as perf's -c\n"
	    "  -s, --stack BYTES  user stack bytes copied per sample, at most 65528\n"
	    "                     (default: 32768, then 4096 once 1000 walks in a\n"
	    "                     row fit in it, back if they stop fitting)\n"
	    "  -k, --kernel       add kernel callchains\n"
	    "      --off-cpu      also sample each switch of a thread off the CPU,\n"
	    "                     weighed by the time until it runs again, blocked\n"
	    "                     and preempted apart; sp-fold --off-cpu (blocked),\n"
	    "                     --preempted or --both folds it\n"
	    "      --children     follow child processes: those forked after the\n"
	    "                     start and, with -p, those running already (the\n"
	    "                     default with a command)\n"
	    "      --no-children  record the command's own process only\n"
	    "  -d, --duration S   stop after S seconds (fractions too: 0.5)\n"
	    "  -D, --delay MSECS  sample only from MSECS ms after the command started\n"
	    "                     or the targets were attached (followed meanwhile)\n"
	    "  -m, --max-frames N deepest stack kept (default 1024; deeper ones end\n"
	    "                     in a [truncated] frame)\n"
	    "  -b, --bundle DIR   keep what offline symbolization needs: perf maps,\n"
	    "                     kallsyms (and ELF files, --bundle-binaries)\n"
	    "      --bundle-binaries  also keep each module's ELF file by build-id\n"
	    "      --keep-unreachable MIB  keep, by build-id, up to MIB MiB of the\n"
	    "                     files no path on this host leads to (a\n"
	    "                     container's binaries, files deleted since) and\n"
	    "                     their debug files, in the bundle or else in\n"
	    "                     FILE.bundle beside the spool, where sp-sym finds\n"
	    "                     them (default 256; 0: none)\n"
	    "  -a, --all-cpus     every process on every CPU, kernel threads too\n"
	    "                     (root or CAP_PERFMON); until -d, Ctrl-C, or a\n"
	    "                     command given after it exits\n"
	    "  -C, --cpu LIST     sample on these CPUs only (0,2-3): with -p or -G\n"
	    "                     while the targets run there, else every process\n"
	    "                     on them, as perf's -C\n"
	    "  -G, --cgroup PATH  every process of a cgroup v2 directory and its\n"
	    "                     descendants, those started later too (a\n"
	    "                     container, a systemd service); PATH relative\n"
	    "                     to /sys/fs/cgroup or absolute\n"
	    "  -p, --pid PID,...  attach to running processes, a comma-separated\n"
	    "                     list (may repeat; a repeated pid is one target)\n"
	    "  -t, --tid TID,...  those threads only, as perf's -t (and the threads\n"
	    "                     they start): their processes are attached\n"
	    "      --stop         stop the targets (SIGSTOP) while attaching; they\n"
	    "                     see it: a blocked system call fails with EINTR\n"
	    "      --raw-stacks   also store each sample's registers and stack\n"
	    "                     bytes (for replaying the unwinder; large)\n"
	    "  -o, --output FILE  where to write the spool\n"
	    "  -g, --call-graph dwarf[,SIZE]  perf's spellings, accepted: stacks\n"
	    "                     are always recorded, unwound by DWARF CFI as they\n"
	    "                     are taken (SIZE: the stack copy, as -s)\n"
	    "      --call-graph fp  the kernel's frame-pointer walks instead: no\n"
	    "                     stack copy, no unwinding, the cheapest; whole\n"
	    "                     only for code that keeps frame pointers\n"
	    "  -q, --quiet        no status line, no summary and no advice\n"
	    "  -h, --help         this text\n"
	    "      --version      version, spool format and build-id\n");
	exit(status);
}

static void
on_signal(int sig)
{
	(void)sig;
	/* A second request means now: the spool so far stays readable
	 * (or, before it is in place, the old one stays as it was). */
	if (stop_requests++ > 0) {
		if (out.tmp != NULL)
			(void)unlink(out.tmp);
		_exit(130);
	}
}

static unsigned long long
counter(struct sp_recorder *r, const char *name)
{
	return sp_recorder_counter(r, name);
}

/* sampled: seconds since sampling started (< 0: waiting for --delay). */
static void
status_line(struct sp_recorder *r, double elapsed, double sampled,
    double delay)
{
	unsigned long long s = counter(r, "samples");

	if (sampled < 0)
		(void)fprintf(stderr, "\r[sp-record] %.1f s, sampling from %.1f "
		    "s (--delay)   ", elapsed, delay);
	else
		(void)fprintf(stderr, "\r[sp-record] %.1f s, %llu samples, %llu "
		    "lost, %.0f/s   ", elapsed, s, counter(r, "lost_events"),
		    sampled > 0 ? (double)s / sampled : 0.0);
}

struct opts {
	struct sp_tool_rec_opts t; /* -F -s -m -k -c -d -p -a, the command */
	const char *out;
	long long delay_ms;
	const char *bundle;
	int bundle_binaries;
	char keep_dir[4096]; /* FILE.bundle, for unreachable files */
	int quiet;
	const char *cgroup; /* -G: the processes of a cgroup; a command only
	                     * times it, as with -a */
	const char *perf_habit; /* -g or --call-graph dwarf: said once */
	int cpus[SP_TOOL_MAX_CPUS]; /* -C, each once */
	uint32_t tids[SP_TOOL_MAX_PIDS]; /* -t, each once */
};

static int
is_number(const char *s)
{
	return *s != '\0' && strspn(s, "0123456789") == strlen(s);
}

/*
 * -p with words after it: "-p 17004 17045" meant a list of pids, which
 * is comma-separated; anything else is a command, which -p excludes.
 */
static void
pids_and_args(const struct sp_tool_rec_opts *o, int after_dashes)
{
	char list[256];
	size_t i, len = 0;

	if (after_dashes || !is_number(o->cmd[0]))
		errx(2, "give either -p PID or -- CMD, not both (see sp-record "
		    "--help)");
	for (i = 0; i < o->npids && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
		    i ? "," : "", (int)o->pids[i]);
	for (i = 0; o->cmd[i] != NULL && is_number(o->cmd[i]) &&
	    len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, ",%s",
		    o->cmd[i]);
	errx(2, "unexpected argument '%s': a list of pids is comma-separated "
	    "(-p %s)", o->cmd[0], list);
}

static const struct option longopts[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "bundle", required_argument, NULL, 'b' },
	{ "bundle-binaries", no_argument, NULL, 'B' },
	{ "call-graph", required_argument, NULL, 1000 + 'g' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "children", no_argument, NULL, SP_TOOL_OPT_CHILDREN },
	{ "cpu", required_argument, NULL, 'C' },
	{ "no-children", no_argument, NULL, SP_TOOL_OPT_NO_CHILDREN },
	{ "count", required_argument, NULL, 'c' },
	{ "event", required_argument, NULL, 'e' },
	{ "delay", required_argument, NULL, 'D' },
	{ "duration", required_argument, NULL, 'd' },
	{ "freq", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ "keep-unreachable", required_argument, NULL, 1000 + 'U' },
	{ "kernel", no_argument, NULL, 'k' },
	{ "max-frames", required_argument, NULL, 'm' },
	/* The default now; kept so that scripts that asked for it keep
	 * working. */
	{ "jitter", no_argument, NULL, 1000 + 'j' },
	{ "no-jitter", no_argument, NULL, 1000 + 'J' },
	/* The default since attaching stopped no more; kept so that
	 * scripts that asked for it keep working. */
	{ "no-stop", no_argument, NULL, 'N' },
	{ "off-cpu", no_argument, NULL, 1000 + 'O' },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "raw-stacks", no_argument, NULL, 'R' },
	{ "stack", required_argument, NULL, 's' },
	{ "stop", no_argument, NULL, 'S' },
	{ "tid", required_argument, NULL, 't' },
	{ "version", no_argument, NULL, 1000 + 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * -C LIST: CPU numbers and ranges, perf's "0,2-3"; each kept once, in
 * o->t.ro.cpus.
 */
static void
cpu_list(struct opts *o, const char *arg)
{
	const char *p = arg;

	while (*p != '\0') {
		char *end = NULL;
		long lo = -1, hi, c;
		size_t i;

		if (*p >= '0' && *p <= '9')
			lo = strtol(p, &end, 10);
		hi = lo;
		if (end != NULL && *end == '-' && end[1] >= '0' && end[1] <= '9')
			hi = strtol(end + 1, &end, 10);
		if (end == NULL || lo < 0 || hi < lo || hi >= 4096 ||
		    (*end != ',' && *end != '\0'))
			errx(2, "-C %s: not a list of CPUs (numbers and ranges "
			    "below 4096: 0,2-3)", arg);
		for (c = lo; c <= hi; c++) {
			for (i = 0; i < o->t.ro.ncpus && o->cpus[i] != c; i++)
				;
			if (i < o->t.ro.ncpus)
				continue;
			if (o->t.ro.ncpus == SP_TOOL_MAX_CPUS)
				errx(2, "-C %s: more than %d CPUs", arg,
				    SP_TOOL_MAX_CPUS);
			o->cpus[o->t.ro.ncpus++] = (int)c;
		}
		p = *end == ',' ? end + 1 : end;
	}
	o->t.ro.cpus = o->cpus;
}

/*
 * perf record's --call-graph MODE: dwarf (with the stack copy's size) is
 * what sp-record does by default, at record time; fp is the kernel's
 * frame-pointer walk; lbr is perf's alone.
 */
static void
call_graph(struct opts *o, const char *arg)
{
	const char *size;

	if (strcmp(arg, "fp") == 0) {
		o->t.ro.fp_chains = 1;
		return;
	}
	if (strncmp(arg, "dwarf", 5) != 0 || (arg[5] != '\0' &&
	    arg[5] != ','))
		errx(2, "--call-graph %s: sp-record walks stacks two ways: by "
		    "DWARF CFI as they are taken (the default, perf's "
		    "\"dwarf\" without the copies in the file), or by frame "
		    "pointers in the kernel (fp, the cheapest, whole only for "
		    "code that keeps them): use --call-graph dwarf[,SIZE] or "
		    "--call-graph fp", arg);
	size = arg[5] == ',' ? arg + 6 : NULL;
	if (size != NULL)
		o->t.ro.stack_bytes = (unsigned)spi_tool_int(
		    "--call-graph dwarf,SIZE", size, 8, SP_STACK_BYTES_MAX) &
		    ~7u;
	o->perf_habit = "--call-graph dwarf";
}

/* The options sp-top has not (spi_tool_rec_option has the others). */
static void
own_option(struct opts *o, int ch, char **argv)
{
	switch (ch) {
	case 'g':
		o->perf_habit = "-g";
		break;
	case 1000 + 'g':
		call_graph(o, optarg);
		break;
	case 'G':
		o->cgroup = optarg;
		break;
	case 'b':
		o->bundle = optarg;
		break;
	case 'B':
		o->bundle_binaries = 1;
		break;
	case 'D':
		o->delay_ms = spi_tool_int("-D milliseconds", optarg, 0,
		    SP_TOOL_MAX_SECONDS * 1000);
		break;
	case 'h':
		usage(0);
		break;
	case 'N':
	case 'S':
		o->t.ro.stop = ch == 'S';
		break;
	case 'R':
		o->t.ro.raw_stacks = 1;
		break;
	case 'o':
		o->out = optarg;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 1000 + 'J':
		o->t.ro.fixed_intervals = 1;
		break;
	case 1000 + 'j':
		o->t.ro.fixed_intervals = 0;
		break;
	case 1000 + 'O':
		o->t.ro.off_cpu = 1;
		break;
	case 1000 + 'U':
		o->t.ro.keep_unreachable = (unsigned long long)spi_tool_int(
		    "--keep-unreachable MiB", optarg, 0, 1 << 20) << 20;
		break;
	case 1000 + 'V':
		spi_tool_version("sp-record");
		break;
	default:
		spi_tool_bad_option("sp-record", ch, argv);
	}
}

/* The options that exclude each other, and a target at least. */
static void
check_targets(const struct opts *o, char **argv)
{
	const struct sp_tool_rec_opts *t = &o->t;

	if (o->bundle_binaries && o->bundle == NULL)
		errx(2, "--bundle-binaries needs --bundle DIR");
	if (t->system && o->cgroup != NULL)
		errx(2, "give -a (every process) or -G CGROUP (its processes), "
		    "not both");
	if ((t->system || o->cgroup != NULL) && t->npids > 0)
		errx(2, "%s records every process%s: -p is not needed (sp-fold "
		    "--pid PID picks one out of the spool)", t->system ? "-a" :
		    "-G", t->system ? "" : " of the cgroup");
	if (t->cmd != NULL && t->npids > 0)
		pids_and_args(t, strcmp(argv[optind - 1], "--") == 0);
	if (t->cmd == NULL && t->npids == 0 && !t->system && o->cgroup == NULL &&
	    t->ro.ncpus == 0)
		errx(2, "give -p PID, -a, -G CGROUP or -- CMD (see sp-record "
		    "--help)");
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	int ch;

	spi_tool_rec_init(&o->t);
	o->out = "sp.spl";
	o->t.ro.keep_unreachable = SP_KEEP_UNREACHABLE_DEFAULT;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:ab:c:C:d:D:e:F:gG:hkm:o:p:qs:t:", longopts,
	    NULL)) != -1)
		if (ch == 'C')
			cpu_list(o, optarg);
		else if (ch == 't')
			spi_tool_rec_tids(&o->t, o->tids, optarg);
		else if (!spi_tool_rec_option(&o->t, ch, optarg))
			own_option(o, ch, argv);
	spi_tool_rec_args(&o->t, argc, argv);
	check_targets(o, argv);
	/* -C without -p or -G is perf's: every process on those CPUs, a
	 * command only timing it. */
	if (o->t.ro.ncpus > 0 && o->t.npids == 0 && o->cgroup == NULL)
		o->t.system = 1;
	if (o->perf_habit != NULL && !o->quiet)
		warnx("%s: stacks are always recorded, unwound by DWARF CFI as "
		    "they are taken; nothing to turn on", o->perf_habit);
	/* -o -: no place beside it; the recorder says so if it matters. */
	if (o->bundle == NULL && sp_bundle_beside(o->out, o->keep_dir,
	    sizeof(o->keep_dir)) == 0)
		o->t.ro.keep_dir = o->keep_dir;
}

static void
out_size(char *buf, size_t cap, unsigned long long bytes)
{
	if (bytes < 10240)
		(void)snprintf(buf, cap, "%llu bytes", bytes);
	else if (bytes < 10485760)
		(void)snprintf(buf, cap, "%.1f KiB", (double)bytes / 1024);
	else
		(void)snprintf(buf, cap, "%.1f MiB", (double)bytes / 1048576);
}

static double
percent(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *
out_name(const struct opts *o)
{
	return strcmp(o->out, "-") == 0 ? "standard output" : o->out;
}

/* The files no path on this host leads to: where they were kept, and
 * what the budget left out. */
static void
print_kept(struct sp_recorder *r, const struct opts *o)
{
	unsigned long long kept = counter(r, "unreachable_files_kept");
	unsigned long long skipped = counter(r, "unreachable_files_skipped");
	char size[32];

	if (kept > 0) {
		out_size(size, sizeof(size), counter(r,
		    "unreachable_bytes_kept"));
		(void)fprintf(stderr, "  kept %llu file%s (%s) no path on this "
		    "host leads to (a container's, or deleted) in %s, for "
		    "sp-sym\n", kept, kept == 1 ? "" : "s", size,
		    o->bundle != NULL ? o->bundle : o->keep_dir);
	}
	if (skipped > 0) {
		out_size(size, sizeof(size), counter(r,
		    "unreachable_bytes_skipped"));
		if (o->bundle == NULL && o->t.ro.keep_dir == NULL)
			(void)fprintf(stderr, "  skipped %llu file%s (%s) no "
			    "path on this host leads to: no bundle beside "
			    "standard output (--bundle DIR keeps them)\n",
			    skipped, skipped == 1 ? "" : "s", size);
		else
			(void)fprintf(stderr, "  skipped %llu file%s (%s) no "
			    "path on this host leads to, past the %llu MiB "
			    "limit: their frames stay addresses "
			    "(--keep-unreachable MIB)\n", skipped, skipped == 1 ?
			    "" : "s", size, o->t.ro.keep_unreachable >> 20);
	}
}

/* The sampling intervals, when they were drawn: how, and the samples
 * dropped to keep the rate (fixed ones, --no-jitter's, go without a
 * word). */
static void
jitter_line(struct sp_recorder *r)
{
	unsigned long long pct = counter(r, "jitter_percent");
	unsigned long long dropped = counter(r, "jitter_dropped");
	/* Of every sample the kernel took: idle ones (-a) included. */
	unsigned long long all = counter(r, "sample_events");

	if (pct > 0)
		(void)fprintf(stderr, "  intervals jittered: each event's drawn "
		    "from %llu %% below 1/rate up to it; %llu samples (%.1f %%) "
		    "dropped to keep the rate\n", pct, dropped, all > 0 ?
		    100.0 * (double)dropped / (double)all : 0.0);
}

/* What a person asks first, then the advice (sp_recorder_advice); every
 * counter is in sp-dump --stats.  The rate is over the sampled seconds
 * (after --delay; < 0: none). */
static void
print_summary(struct sp_recorder *r, struct sp_writer *w, const struct opts *o,
    double secs, double sampled)
{
	unsigned long long s = counter(r, "samples");
	unsigned long long lost = counter(r, "lost_events");
	unsigned long long procs = counter(r, "processes");
	unsigned long long threads = counter(r, "threads");
	unsigned long long bytes = sp_writer_bytes(w), off, pre;
	char size[32];

	(void)fprintf(stderr, "sp-record: wrote %s (event %s): %.1f s, %llu "
	    "process%s, %llu thread%s\n", out_name(o), sp_recorder_event(r) ?
	    sp_recorder_event(r) : "none", secs, procs, procs == 1 ? "" : "es",
	    threads, threads == 1 ? "" : "s");
	(void)fprintf(stderr, "  %llu sample%s (%.0f/s), %llu lost (%.1f %%)",
	    s, s == 1 ? "" : "s", sampled > 0 ? (double)s / sampled : 0.0, lost,
	    percent(lost, s + lost));
	if (s > 0)
		(void)fprintf(stderr, ", %.1f %% of stacks complete",
		    percent(s - counter(r, "truncated_stacks"), s));
	/* perf -a shows the idle task (swapper); here it is a number. */
	if (o->t.system)
		(void)fprintf(stderr, ", CPUs %.0f %% idle", percent(
		    counter(r, "idle_samples"), s + counter(r, "idle_samples")));
	if (counter(r, "event_count") > 0)
		(void)fprintf(stderr, "\n  %llu %s in the samples (each weighs "
		    "the events since its last)", counter(r, "event_count"),
		    sp_recorder_event(r));
	out_size(size, sizeof(size), bytes);
	(void)fprintf(stderr, "\n  spool %s", size);
	if (s > 0)
		(void)fprintf(stderr, ", %.1f bytes per sample",
		    (double)bytes / (double)s);
	(void)fputc('\n', stderr);
	jitter_line(r);
	off = counter(r, "off_cpu_samples");
	pre = counter(r, "off_cpu_preempted");
	if (o->t.ro.off_cpu)
		(void)fprintf(stderr, "  %llu switch%s off CPU (%.0f/s), %llu "
		    "lost: ", off, off == 1 ? "" : "es",
		    sampled > 0 ? (double)off / sampled : 0.0,
		    counter(r, "off_cpu_unmatched"));
	/* A kernel before 4.17 does not say which switches are preemptions. */
	if (o->t.ro.off_cpu && counter(r, "off_cpu_preempted_apart"))
		(void)fprintf(stderr, "%llu blocked, %.2f s; %llu preempted, "
		    "%.2f s waiting for a CPU\n", off - pre, (double)(
		    counter(r, "off_cpu_ns") - counter(r, "off_cpu_preempted_ns")) /
		    1e9, pre, (double)counter(r, "off_cpu_preempted_ns") / 1e9);
	else if (o->t.ro.off_cpu)
		(void)fprintf(stderr, "%.2f s off CPU, blocked or preempted (the "
		    "kernel tells them apart from Linux 4.17 on)\n",
		    (double)counter(r, "off_cpu_ns") / 1e9);
	print_kept(r, o);
	spi_tool_advice(r, "sp-record", (unsigned long long)o->delay_ms, 1);
}

/*
 * The rings are drained only when the recorder runs: with 8 threads
 * spinning on 2 CPUs, at nice 0 it lost events at 1 kHz, at nice -10
 * none at 2 kHz.  Raised after the command is spawned, which keeps the
 * caller's priority; left alone when the caller chose one, and when
 * RLIMIT_NICE refuses (no CAP_SYS_NICE).
 */
static int raised; /* by raise_priority, from 0 */

static void
raise_priority(void)
{
	int cur;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && cur == 0 && !raised &&
	    setpriority(PRIO_PROCESS, 0, NICE_BOOST) == 0)
		raised = 1;
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* --delay is over: sampling starts, or the run ends here. */
static void
delay_over(struct sp_recorder *r, pid_t child)
{
	int err = sp_recorder_enable(r, 1);

	if (err == 0)
		return;
	if (child > 0) {
		(void)kill(child, SIGKILL);
		(void)waitpid(child, NULL, 0);
	}
	errx(1, "--delay: turning sampling on failed: %s; the spool ends "
	    "before it", sp_strerror(err));
}

/*
 * Records until the targets are gone, the time is up, or a signal.  With
 * --delay the targets are followed from the start and sampled once the
 * delay has passed.  secs: the whole run; sampled: the seconds after the
 * delay, -1 when the run ended first.
 */
static int
record(struct sp_recorder *r, struct sp_writer *w, const struct opts *o,
    pid_t child, int *child_status, double *secs, double *sampled)
{
	double start = spi_tool_now(), last = 0, t = 0, on_at = -1, flushed = 0;
	double delay = (double)o->delay_ms / 1000;
	int tty = !o->quiet && isatty(STDERR_FILENO), err = 0;

	if (o->delay_ms == 0)
		on_at = 0;
	while (stop_requests == 0) {
		int wait_ms = 100;

		/* Not later than the delay's end (rounded up: not earlier). */
		if (on_at < 0 && delay - t < 0.1)
			wait_ms = (int)((delay - t) * 1000) + 1;
		err = sp_recorder_poll(r, wait_ms);
		/* The writer writes each 64 KiB it has; the rest at least
		 * every 100 ms, for a reader following the spool (a write
		 * per wakeup was a tenth of the recorder's CPU at 10 kHz). */
		if (err == 0 && spi_tool_now() - flushed >= 0.1) {
			err = sp_writer_flush(w);
			flushed = spi_tool_now();
		}
		if (err)
			break;
		if (child > 0 && waitpid(child, child_status, WNOHANG) == child)
			break;
		if (child <= 0 && sp_recorder_live(r) == 0)
			break;
		t = spi_tool_now() - start;
		if (o->t.duration > 0 && t >= o->t.duration)
			break;
		if (on_at < 0 && t >= delay) {
			delay_over(r, child);
			on_at = t;
		}
		if (tty && t - last >= 0.5) {
			status_line(r, t, on_at < 0 ? -1 : t - on_at, delay);
			last = t;
		}
	}
	*secs = spi_tool_now() - start;
	*sampled = on_at < 0 ? -1 : *secs - on_at;
	if (tty)
		(void)fputc('\n', stderr);
	return err;
}

/* atexit: a run that ends before its spool is in place leaves no file. */
static void
drop_output(void)
{
	sp_output_discard(&out);
}

/* A write before the start failed: the spool is not put in place. */
static void
start_failed(const struct opts *o, int rc)
{
	errx(1, "%s: writing the spool failed: %s%s", out_name(o),
	    sp_strerror(rc), out.tmp != NULL ? "; nothing was written, an "
	    "existing file is left as it was" : "");
}

/*
 * The recording has started: what it wrote so far goes out and the new
 * spool takes the place of the old one now, not at the end, so that a
 * kill from here on leaves a readable prefix under the name given.
 */
static void
commit_output(struct sp_writer *w, const struct opts *o, pid_t child)
{
	struct sp_diag diag;
	int rc = sp_writer_flush(w), flushed = rc == 0;

	if (rc == 0)
		rc = sp_output_place(&out, &diag);
	if (rc == 0)
		return;
	if (child > 0) {
		(void)kill(child, SIGKILL);
		(void)waitpid(child, NULL, 0);
	}
	if (flushed)
		errx(1, "%s", diag.msg);
	start_failed(o, rc);
}

/* -G NAME: a path as given when absolute or ./relative, else under the
 * cgroup v2 mount (perf record -G names them so): /sys/fs/cgroup, or
 * where /proc/mounts has it (/sys/fs/cgroup/unified on hybrid systems). */
static const char *
cgroup_path(const char *name, char *buf, size_t cap)
{
	char line[4096], dir[4096] = "/sys/fs/cgroup", type[64] = "";
	FILE *f;

	if (name[0] == '/' || strncmp(name, "./", 2) == 0)
		return name;
	if ((f = fopen("/proc/mounts", "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 &&
			    strcmp(type, "cgroup2") == 0)
				break;
		if (strcmp(type, "cgroup2") != 0)
			(void)snprintf(dir, sizeof(dir), "/sys/fs/cgroup");
		(void)fclose(f);
	}
	if ((size_t)snprintf(buf, cap, "%s/%s", dir, name) >= cap)
		errx(2, "-G %s: too long", name);
	return buf;
}

/* -a -- CMD: the command runs as any process (everything is recorded);
 * its exit ends the recording (perf record -a -- sleep 5). */
static void
run_command(const struct opts *o, pid_t *child)
{
	struct sp_launch l;
	struct sp_diag diag;

	if (sp_process_launch(o->t.cmd, &l, &diag) < 0)
		errx(1, "%s", diag.msg);
	/* At the caller's priority, not the recorder's raised one. */
	if (raised)
		(void)setpriority(PRIO_PROCESS, (id_t)l.pid, 0);
	if (sp_process_release(&l, o->t.cmd[0], &diag) < 0)
		errx(1, "%s", diag.msg);
	*child = l.pid;
}

/*
 * Opens the output, then attaches or spawns; an error exits with the
 * output as it was.  Returns the recorder and the writer.
 */
static void
start_recording(struct opts *o, struct sp_recorder **r, struct sp_writer **w,
    pid_t *child)
{
	struct sp_header h;
	struct sp_diag diag;
	char path[4096];
	size_t i;
	int rc;

	spi_tool_rec_header(&h);
	if (atexit(drop_output) != 0)
		errx(1, "atexit failed");
	if ((rc = sp_output_spool(&out, o->out, &out_fd, &diag)) < 0)
		errx(rc == -SP_EUSAGE ? 2 : 1, "%s", diag.msg);
	if (sp_writer_new(out_fd, &h, w) < 0)
		errx(1, "out of memory");
	if (o->bundle != NULL && sp_bundle_open(o->bundle, o->bundle_binaries,
	    &o->t.ro.bundle, &diag) < 0)
		errx(1, "%s", diag.msg);
	spi_tool_rec_new(*w, &o->t, r);
	/* The header at once: a full disk or a closed pipe is found before
	 * any target is stopped. */
	if ((rc = sp_writer_flush(*w)) < 0)
		start_failed(o, rc);
	/* --delay: the events open disabled; record() turns them on. */
	if (o->delay_ms > 0)
		(void)sp_recorder_enable(*r, 0); /* none open yet: 0 */
	/* An event per thread and CPU (three without -s): the hard limit
	 * on descriptors, not the soft one.  Not for a command, which would
	 * inherit it. */
	if ((o->t.npids > 0 || o->t.system || o->cgroup != NULL) &&
	    o->t.cmd == NULL)
		raise_nofile();
	for (i = 0; i < o->t.npids; i++)
		if (sp_recorder_attach(*r, (pid_t)o->t.pids[i], &diag) != 0)
			errx(1, "%s", diag.msg);
	if (o->t.system && sp_recorder_attach_system(*r, &diag) != 0)
		errx(1, "%s", diag.msg);
	if (o->cgroup != NULL && sp_recorder_attach_cgroup(*r,
	    cgroup_path(o->cgroup, path, sizeof(path)), &diag) != 0)
		errx(diag.err == -SP_EUSAGE ? 2 : 1, "%s", diag.msg);
	if ((o->t.system || o->cgroup != NULL) && o->t.cmd != NULL)
		run_command(o, child);
	else if (o->t.cmd != NULL &&
	    sp_recorder_spawn(*r, o->t.cmd, child, &diag) != 0)
		errx(1, "%s", diag.msg);
	commit_output(*w, o, *child);
}

/* The command's status as sp-record's: its exit code, or 128 + signal. */
static int
child_exit(const struct opts *o, pid_t child, int status, int we_stopped)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (!WIFSIGNALED(status))
		return 0;
	if (!we_stopped)
		warnx("%s (pid %d) was killed by signal %d (%s); the recording "
		    "ends there", o->t.cmd[0], (int)child, WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	return 128 + WTERMSIG(status);
}

int
main(int argc, char **argv)
{
	static struct opts o;
	struct sp_writer *w;
	struct sp_recorder *r;
	struct sigaction sa;
	pid_t child = -1;
	int rc, status = 0, we_stopped = 0;
	double secs, sampled;

	parse_args(argc, argv, &o);
	o.t.ro.log = spi_tool_warn;
	o.t.ro.command = o.t.cmd != NULL ? o.t.cmd[0] : o.t.system ? "all-cpus" :
	    o.cgroup != NULL ? o.cgroup : "attach";
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)signal(SIGPIPE, SIG_IGN);
	/* -a reads every process's mappings after its events open: what
	 * exits before its turn loses its samples, so it starts at the
	 * raised priority (its command, if any, is started at the caller's:
	 * run_command). */
	if (o.t.system || o.cgroup != NULL)
		raise_priority();
	start_recording(&o, &r, &w, &child);
	raise_priority();
	rc = record(r, w, &o, child, &status, &secs, &sampled);
	if (child > 0 && waitpid(child, &status, WNOHANG) == 0) {
		/* Stopped by -d or a signal while the command runs on. */
		(void)kill(child, SIGTERM);
		(void)waitpid(child, &status, 0);
		we_stopped = 1;
	}
	if (rc == 0)
		rc = sp_recorder_finish(r);
	if (rc == 0 && o.t.ro.bundle != NULL &&
	    sp_bundle_finish(o.t.ro.bundle) < 0)
		err(1, "%s/manifest", o.bundle);
	sp_bundle_free(o.t.ro.bundle);
	if (rc)
		errx(1, "%s: writing the spool failed: %s; what was written "
		    "before reads back with sp-dump --check", out_name(&o),
		    sp_strerror(rc));
	if (!o.quiet)
		print_summary(r, w, &o, secs, sampled);
	sp_recorder_free(r);
	sp_writer_free(w);
	sp_output_discard(&out); /* in place: frees what is left */
	if (out_fd != STDOUT_FILENO && close(out_fd) < 0)
		err(1, "%s", o.out);
	return child > 0 ? child_exit(&o, child, status, we_stopped) : 0;
}
