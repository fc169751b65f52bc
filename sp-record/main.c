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

#include "sp/recorder.h"
#include "sp/writer.h"
#include "sp/output.h"
#include "sp/tool.h"

#define MAX_PIDS 256
#define NICE_BOOST (-10)

static volatile sig_atomic_t stop_requests;

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-record [-F HZ|max] [-s STACK_BYTES] [--kernel] [--children]\n"
	    "                 [-d SECONDS] [-m MAX_FRAMES]\n"
	    "                 [--bundle DIR [--bundle-binaries]]\n"
	    "                 [--no-stop] [--raw-stacks] [-q] [-o FILE]\n"
	    "                 (-p PID[,PID...] | -- CMD [ARGS...])\n"
	    "Sample threads, unwind their stacks as they are recorded, and write\n"
	    "a spool (default sp.spl; - is standard output).\n"
	    "  -F, --freq HZ      samples per second per thread (default 1000;\n"
	    "                     max: the kernel's perf_event_max_sample_rate)\n"
	    "  -s, --stack BYTES  user stack bytes copied per sample (default 32768,\n"
	    "                     at most 65528)\n"
	    "  -k, --kernel       add kernel callchains\n"
	    "  -c, --children     follow processes forked after the start\n"
	    "  -d, --duration S   stop after S seconds\n"
	    "  -m, --max-frames N deepest stack kept (default 1024; deeper ones end\n"
	    "                     in a [truncated] frame)\n"
	    "  -b, --bundle DIR   keep what offline symbolization needs: perf maps,\n"
	    "                     kallsyms (and ELF files, --bundle-binaries)\n"
	    "      --bundle-binaries  also keep each module's ELF file by build-id\n"
	    "  -p, --pid PID,...  attach to running processes (may repeat)\n"
	    "      --no-stop      attach without briefly stopping the targets\n"
	    "      --raw-stacks   also store each sample's registers and stack\n"
	    "                     bytes (for replaying the unwinder; large)\n"
	    "  -o, --output FILE  where to write the spool\n"
	    "  -q, --quiet        no status line and no summary\n"
	    "  -h, --help         this text\n"
	    "      --version      version, spool format and build-id\n");
	exit(status);
}

static void
on_signal(int sig)
{
	(void)sig;
	/* A second request means now: the spool so far stays readable. */
	if (stop_requests++ > 0)
		_exit(130);
}

static long
parse_num(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < lo || v > hi)
		errx(2, "%s must be a number from %ld to %ld, not '%s'", what,
		    lo, hi, s);
	return v;
}

static size_t
parse_pids(char *list, pid_t *pids, size_t n)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_PIDS)
			errx(2, "at most %d processes", MAX_PIDS);
		pids[n++] = (pid_t)parse_num(tok, 1, 0x7fffffff, "a pid");
	}
	return n;
}

static void
log_warning(void *ctx, const char *msg)
{
	(void)ctx;
	warnx("%s", msg);
}

static double
now_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long long
counter(struct sp_recorder *r, const char *name)
{
	const struct sp_counter *c;
	size_t n = sp_recorder_counters(r, &c), i;

	for (i = 0; i < n; i++)
		if (strcmp(c[i].name.s, name) == 0)
			return (unsigned long long)c[i].value;
	return 0;
}

static void
status_line(struct sp_recorder *r, double elapsed)
{
	unsigned long long s = counter(r, "samples");

	(void)fprintf(stderr, "\r[sp-record] %.1f s, %llu samples, %llu lost, "
	    "%.0f/s   ", elapsed, s, counter(r, "lost_events"),
	    elapsed > 0 ? (double)s / elapsed : 0.0);
}

static void
print_summary(struct sp_recorder *r, const char *out)
{
	const struct sp_counter *c;
	size_t n = sp_recorder_counters(r, &c), i;

	(void)fprintf(stderr, "sp-record: wrote %s (event %s)\n", out,
	    sp_recorder_event(r) ? sp_recorder_event(r) : "none");
	for (i = 0; i < n; i++)
		if (c[i].value != 0 || strcmp(c[i].name.s, "lost_events") == 0)
			(void)fprintf(stderr, "  %-30s %llu\n", c[i].name.s,
			    (unsigned long long)c[i].value);
}

struct opts {
	struct sp_recorder_opts ro;
	const char *out;
	pid_t pids[MAX_PIDS];
	size_t npids;
	double duration;
	const char *bundle;
	int bundle_binaries;
	int quiet;
	char **cmd;
};

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ "bundle-binaries", no_argument, NULL, 'B' },
		{ "children", no_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "freq", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "max-frames", required_argument, NULL, 'm' },
		{ "no-stop", no_argument, NULL, 'N' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "raw-stacks", no_argument, NULL, 'R' },
		{ "stack", required_argument, NULL, 's' },
		{ "version", no_argument, NULL, 1000 + 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	o->out = "sp.spl";
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:b:cd:F:hkm:o:p:qs:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'b':
			o->bundle = optarg;
			break;
		case 'B':
			o->bundle_binaries = 1;
			break;
		case 'c':
			o->ro.children = 1;
			break;
		case 'd':
			o->duration = (double)parse_num(optarg, 1, 86400L * 365,
			    "-d seconds");
			break;
		case 'F':
			if (strcmp(optarg, "max") == 0) {
				o->ro.frequency = SP_FREQ_MAX;
			} else {
				o->ro.frequency = (unsigned)parse_num(optarg, 1,
				    10000000, "-F");
			}
			break;
		case 'h':
			usage(0);
			break;
		case 'k':
			o->ro.kernel = 1;
			break;
		case 'm':
			o->ro.max_frames = (unsigned)parse_num(optarg, 1, 65536,
			    "--max-frames");
			break;
		case 'N':
			o->ro.no_stop = 1;
			break;
		case 'R':
			o->ro.raw_stacks = 1;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'p':
			o->npids = parse_pids(optarg, o->pids, o->npids);
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 's':
			o->ro.stack_bytes = (unsigned)parse_num(optarg, 8,
			    SP_STACK_BYTES_MAX, "-s stack bytes");
			if (o->ro.stack_bytes % 8)
				errx(2, "-s stack bytes must be a multiple of 8");
			break;
		case 1000 + 'V':
			sp_tool_version("sp-record");
			break;
		default:
			sp_tool_bad_option("sp-record", ch, argv);
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->bundle_binaries && o->bundle == NULL)
		errx(2, "--bundle-binaries needs --bundle DIR");
	if ((o->cmd == NULL) == (o->npids == 0))
		errx(2, "give either -p PID or -- CMD (see sp-record --help)");
}

/*
 * The rings are drained only when the recorder runs: with 8 threads
 * spinning on 2 CPUs, at nice 0 it lost events at 1 kHz, at nice -10
 * none at 2 kHz.  Raised after the command is spawned, which keeps the
 * caller's priority; left alone when the caller chose one, and when
 * RLIMIT_NICE refuses (no CAP_SYS_NICE).
 */
static void
raise_priority(void)
{
	int cur;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && cur == 0)
		(void)setpriority(PRIO_PROCESS, 0, NICE_BOOST);
}

/* Records until the targets are gone, the time is up, or a signal. */
static int
record(struct sp_recorder *r, struct sp_writer *w, const struct opts *o,
    pid_t child, int *child_status)
{
	double start = now_s(), last = 0;
	int tty = !o->quiet && isatty(STDERR_FILENO), err = 0;

	while (stop_requests == 0) {
		double t;

		err = sp_recorder_poll(r, 100);
		if (err == 0)
			err = sp_writer_flush(w);
		if (err)
			break;
		if (child > 0 && waitpid(child, child_status, WNOHANG) == child)
			break;
		if (child <= 0 && sp_recorder_live(r) == 0)
			break;
		t = now_s() - start;
		if (o->duration > 0 && t >= o->duration)
			break;
		if (tty && t - last >= 0.5) {
			status_line(r, t);
			last = t;
		}
	}
	if (tty)
		(void)fputc('\n', stderr);
	return err;
}

int
main(int argc, char **argv)
{
	static struct opts o;
	struct sp_header h;
	struct sp_writer *w;
	struct sp_recorder *r;
	struct sp_diag diag;
	struct sigaction sa;
	pid_t child = -1;
	int fd, rc, status = 0, we_stopped = 0;
	size_t i;

	parse_args(argc, argv, &o);
	o.ro.log = log_warning;
	o.ro.command = o.cmd != NULL ? o.cmd[0] : "attach";
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)signal(SIGPIPE, SIG_IGN);
	if (sp_header_init_host(&h) < 0)
		err(1, "reading host facts");
	/* With -F max the RECORDING record carries the rate the library
	 * resolved; the header's interval stays 0, "unknown". */
	if (o.ro.frequency != SP_FREQ_MAX)
		h.sample_interval_us = 1000000u /
		    (o.ro.frequency ? o.ro.frequency : 1000u);
	if ((rc = sp_output_open(o.out, &fd, &diag)) < 0)
		errx(rc == -SP_EUSAGE ? 2 : 1, "%s", diag.msg);
	/* The header at once: a file shorter than one is not a spool, and a
	 * recorder killed from here on leaves a spool that reads back. */
	if (sp_writer_new(&w, fd, &h) < 0)
		errx(1, "out of memory");
	if ((rc = sp_writer_flush(w)) < 0)
		errx(1, "%s: writing the spool failed: %s",
		    strcmp(o.out, "-") == 0 ? "standard output" : o.out,
		    sp_strerror(rc));
	if (o.bundle != NULL && sp_bundle_open(&o.ro.bundle, o.bundle,
	    o.bundle_binaries, &diag) < 0)
		errx(1, "%s", diag.msg);
	memset(&diag, 0, sizeof(diag));
	rc = sp_recorder_new(&r, w, &o.ro, &diag);
	if (rc)
		errx(rc == -SP_EUSAGE ? 2 : 1, "%s", diag.msg);
	for (i = 0; i < o.npids; i++)
		if (sp_recorder_attach(r, o.pids[i], &diag) != 0)
			errx(1, "%s", diag.msg);
	if (o.cmd != NULL && sp_recorder_spawn(r, o.cmd, &child, &diag) != 0)
		errx(1, "%s", diag.msg);
	raise_priority();
	rc = record(r, w, &o, child, &status);
	if (child > 0 && waitpid(child, &status, WNOHANG) == 0) {
		/* Stopped by -d or a signal while the command runs on. */
		(void)kill(child, SIGTERM);
		(void)waitpid(child, &status, 0);
		we_stopped = 1;
	}
	if (rc == 0)
		rc = sp_recorder_finish(r);
	if (rc == 0 && o.ro.bundle != NULL &&
	    sp_bundle_finish(o.ro.bundle) < 0)
		err(1, "%s/manifest", o.bundle);
	sp_bundle_free(o.ro.bundle);
	if (rc)
		errx(1, "%s: writing the spool failed: %s; what was written "
		    "before reads back with sp-dump --check",
		    strcmp(o.out, "-") == 0 ? "standard output" : o.out,
		    sp_strerror(rc));
	if (!o.quiet)
		print_summary(r, o.out);
	sp_recorder_free(r);
	sp_writer_free(w);
	if (fd != STDOUT_FILENO && close(fd) < 0)
		err(1, "%s", o.out);
	if (child > 0) {
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status)) {
			if (!we_stopped)
				warnx("%s (pid %d) was killed by signal %d "
				    "(%s); the recording ends there", o.cmd[0],
				    (int)child, WTERMSIG(status),
				    strsignal(WTERMSIG(status)));
			return 128 + WTERMSIG(status);
		}
	}
	return 0;
}
