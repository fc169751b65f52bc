/* SPDX-License-Identifier: MIT */
/*
 * sp-top: records processes and shows their hottest functions live.  Built
 * on the public API alone: a recorder writes a spool, a tail follows it,
 * a symbolizer names the stacks and sp_top ranks them.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sp/common/output.h"
#include "sp/record/recorder.h"
#include "sp/report/top.h"
#include "sp/spool/tail.h"
#include "sp/spool/writer.h"
#include "sp/sym/symbolizer.h"
#include "sp/tool/screen.h"
#include "sp/tool/tool.h"

#define BATCH 1024

struct opts {
	struct sp_tool_rec_opts t; /* -F -s -m -k -c -d -p -a, the command */
	double interval;
	unsigned window;        /* seconds, 0: since the start */
	unsigned window_keyed;  /* what 'w' switches to */
	size_t rows;
	const char *out;        /* -o: keep the spool */
	int batch;              /* text snapshots, even on a terminal */
	int no_demangle;        /* names as the symbolizer gives them */
	uint32_t tids[SP_TOOL_MAX_PIDS]; /* -t, each once */
	enum sp_top_order order;
};

static struct sp_output_file out;

static void
usage(int status)
{
	(void)fprintf(status ? stderr : stdout,
	    "usage: sp-top [-F HZ|max] [-s STACK_BYTES] [-m MAX_FRAMES] [-k]\n"
	    "              [--children | --no-children] [-e EVENT [-c PERIOD]]\n"
	    "              [-d SECONDS] [-i SECONDS]\n"
	    "              [-w SECONDS] [-n ROWS] [--total | --threads]\n"
	    "              [--no-demangle] [--batch] [-o FILE]\n"
	    "              (-p PID[,PID...] | -t TID[,TID...] | -a |\n"
	    "               -- CMD [ARGS...])\n"
	    "Record processes and show their hottest functions, refreshed as\n"
	    "they run: each function's share of the samples as the leaf (self)\n"
	    "and anywhere in the stack (total), the sample rate, lost events\n"
	    "and the share of complete stacks.  On a terminal the keys are\n"
	    "  s  sort by self    t  sort by total    h  threads\n"
	    "  w  the last -w seconds or everything since the start    q  quit\n"
	    "Without a terminal (or with --batch) one snapshot is printed as text\n"
	    "per interval.\n"
	    "  -F, --freq HZ      samples per second per thread (default 1000;\n"
	    "                     max: the kernel's perf_event_max_sample_rate)\n"
	    "  -s, --stack BYTES  user stack bytes copied per sample, at most 65528\n"
	    "                     (default: 32768, then 4096 while the walks fit)\n"
	    "  -m, --max-frames N deepest stack kept (default 1024)\n"
	    "  -k, --kernel       add kernel callchains\n"
	    "  -e, --event EVENT  sample EVENT, as perf's -e (-e list: the events;\n"
	    "                     default cpu-clock); rows count its samples\n"
	    "  -c, --count PERIOD a sample every PERIOD events (ns of a clock)\n"
	    "      --children     follow child processes (default with a command)\n"
	    "      --no-children  the command's own process only\n"
	    "  -d, --duration S   stop after S seconds (default: until the targets\n"
	    "                     exit, q or Ctrl-C)\n"
	    "  -i, --interval S   seconds between refreshes (default 1)\n"
	    "  -w, --window S     show the last S seconds (default: since the start;\n"
	    "                     the w key switches, to 5 s if -w is not given)\n"
	    "  -n, --rows N       functions shown (default: what the terminal\n"
	    "                     holds; 20 without one)\n"
	    "      --total        sort by total at the start\n"
	    "      --threads      show threads at the start\n"
	    "      --no-demangle  C++ and Rust names as the binaries have them\n"
	    "      --batch        text snapshots even on a terminal\n"
	    "  -o, --output FILE  keep the spool in FILE (for sp-sym, sp-fold...)\n"
	    "  -p, --pid PID,...  attach to running processes\n"
	    "  -t, --tid TID,...  those threads only, as sp-record's -t and perf's\n"
	    "  -a, --all-cpus     every process on the machine (root or\n"
	    "                     CAP_PERFMON), as perf top\n"
	    "  -h, --help         this text\n"
	    "      --version      version, spool format and build-id\n");
	exit(status);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct option longopts[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "batch", no_argument, NULL, 'B' },
	{ "children", no_argument, NULL, SP_TOOL_OPT_CHILDREN },
	{ "no-children", no_argument, NULL, SP_TOOL_OPT_NO_CHILDREN },
	{ "count", required_argument, NULL, 'c' },
	{ "event", required_argument, NULL, 'e' },
	{ "duration", required_argument, NULL, 'd' },
	{ "freq", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ "interval", required_argument, NULL, 'i' },
	{ "kernel", no_argument, NULL, 'k' },
	{ "max-frames", required_argument, NULL, 'm' },
	{ "no-demangle", no_argument, NULL, 1000 + 'D' },
	{ "rows", required_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "stack", required_argument, NULL, 's' },
	{ "threads", no_argument, NULL, 'T' },
	{ "tid", required_argument, NULL, 't' },
	{ "total", no_argument, NULL, 1000 + 't' },
	{ "version", no_argument, NULL, 1000 + 'V' },
	{ "window", required_argument, NULL, 'w' },
	{ NULL, 0, NULL, 0 },
};

/* The view's options (spi_tool_rec_option has the recording's). */
static void
own_option(struct opts *o, int ch, char **argv)
{
	switch (ch) {
	case 'B':
		o->batch = 1;
		break;
	case 'h':
		usage(0);
		break;
	case 'i':
		o->interval = spi_tool_real("-i seconds", optarg, 0.1, 0, 3600);
		break;
	case 'n':
		o->rows = (size_t)spi_tool_int("-n rows", optarg, 1, 10000);
		break;
	case 'o':
		o->out = optarg;
		break;
	case 1000 + 't':
		o->order = SP_TOP_TOTAL;
		break;
	case 1000 + 'D':
		o->no_demangle = 1;
		break;
	case 'T':
		o->order = SP_TOP_THREADS;
		break;
	case 'w':
		o->window = (unsigned)spi_tool_int("-w seconds", optarg, 1,
		    SP_TOP_WINDOW_MAX);
		o->window_keyed = o->window;
		break;
	case 1000 + 'V':
		spi_tool_version("sp-top");
		break;
	default:
		spi_tool_bad_option("sp-top", ch, argv);
	}
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	const struct sp_tool_rec_opts *t = &o->t;
	int ch;

	spi_tool_rec_init(&o->t);
	o->interval = 1;
	o->window_keyed = 5;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:ac:d:e:F:hi:km:n:o:p:s:t:w:",
	    longopts, NULL)) != -1)
		if (ch == 't')
			spi_tool_rec_tids(&o->t, o->tids, optarg);
		else if (!spi_tool_rec_option(&o->t, ch, optarg))
			own_option(o, ch, argv);
	spi_tool_rec_args(&o->t, argc, argv);
	if (t->cmd != NULL && t->npids > 0)
		errx(2, "give either -p PID (or -t TID) or -- CMD, not both "
		    "(see sp-top --help)");
	if (t->system && (t->cmd != NULL || t->npids > 0))
		errx(2, "-a shows every process: give no -p, -t or command");
	if (t->cmd == NULL && t->npids == 0 && !t->system)
		errx(2, "give either -p PID, -t TID or -- CMD, or -a (see "
		    "sp-top --help)");
	if (o->out != NULL && strcmp(o->out, "-") == 0)
		errx(2, "-o -: the terminal shows the view; give a file name");
}

/* ------------------------------------------------------------- view */

struct live {
	struct opts *o;
	struct sp_recorder *r;
	struct sp_writer *w;
	struct sp_tail *tail;
	struct sp_symbolizer *sym;
	struct sp_top *top;
	const char *what;       /* "pid 123" or the command */
	uint32_t kthread;       /* a -p target that is a kernel thread, 0 none */
	int only_kthreads;      /* every -p target is one */
	double start;
	int ui;                 /* on a terminal */
	int ended;              /* the targets are gone */
	int quit;               /* q was pressed */
	int last;               /* the last view: the advice follows it on
	                         * standard error */
};

static double
pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Prints a line of the view; on a terminal cut to its width. */
static void __attribute__((format(printf, 3, 4)))
view_line(const struct live *l, int cols, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	spi_screen_vline(l->ui ? cols : 0, fmt, ap);
	va_end(ap);
}

/*
 * A view with no rows says why.  A kernel thread has no user stack to
 * show; a window after the samples stopped is idle (the recorder's
 * advice, of the whole run, says nothing then); else as sp-record's
 * summary would (sp_recorder_advice): its first warning, "the target
 * was idle", but not on the last view, which that advice on standard
 * error follows.
 */
static void
hint(const struct live *l, const struct sp_top_view *v, int cols)
{
	struct sp_advice a[SP_ADVICE_MAX];
	struct sp_advice_opts ao = { .sz = sizeof(ao), .tool = "sp-top" };
	size_t n, i;

	if (l->kthread != 0 && !l->o->t.ro.kernel) {
		view_line(l, cols, "  (pid %u is a kernel thread: it has no user "
		    "stack; -k shows its kernel stacks, -a every process's)",
		    l->kthread);
		return;
	}
	if (v->samples == 0 && l->o->window > 0 &&
	    sp_recorder_counter(l->r, "samples") > 0) {
		view_line(l, cols, "  (no samples in the last %u s: the target was "
		    "idle%s)", l->o->window, l->ui ? "; w shows all since the "
		    "start" : "");
		return;
	}
	if (l->last)
		return;
	n = sp_recorder_advice(l->r, &ao, a, SP_ADVICE_MAX);
	for (i = 0; i < n && i < SP_ADVICE_MAX; i++)
		if (a[i].level == SP_ADVICE_WARNING) {
			view_line(l, cols, "  (%s)", a[i].text);
			return;
		}
}

/* The keys, on a line of their own under the rows: 40 columns. */
#define KEYS "[s]elf [t]otal t[h]reads [w]indow [q]uit"

/* Prints one view; on a terminal from the top of a cleared screen, each
 * line cut to the terminal's width. */
static int
show(struct live *l)
{
	const struct opts *o = l->o;
	struct sp_top_view v;
	unsigned long long lost = sp_recorder_counter(l->r, "lost_events");
	unsigned long long all = sp_recorder_counter(l->r, "samples");
	int trows, cols, err;
	size_t max = o->rows, i;
	char win[64], rate[48];
	const char *order = o->order == SP_TOP_SELF ? "self" :
	    o->order == SP_TOP_TOTAL ? "total" : "threads";

	spi_screen_size(&trows, &cols);
	/* The title, the counts, the column heads, the keys, and the
	 * cursor's line. */
	if (max == 0)
		max = l->ui ? (trows > 7 ? (size_t)trows - 6 : 1) : 20;
	err = sp_top_view(l->top, now_ns(), o->window, o->order, max, &v);
	if (err < 0)
		return err;
	if (l->ui)
		(void)fputs("\033[H\033[2J", stdout);
	else
		(void)printf("--- sp-top at %.1f s\n", spi_tool_now() - l->start);
	if (o->window)
		(void)snprintf(win, sizeof(win), "the last %u s", o->window);
	else
		(void)snprintf(win, sizeof(win), "since the start");
	/* By a period (-c, or every event of a software count), not Hz. */
	if (sp_recorder_period(l->r) != 0)
		(void)snprintf(rate, sizeof(rate), "every %llu%s",
		    sp_recorder_period(l->r), sp_recorder_counts_time(l->r) ?
		    " ns" : "");
	else
		(void)snprintf(rate, sizeof(rate), "%u Hz",
		    sp_recorder_frequency(l->r));
	view_line(l, cols, "sp-top: %s, %s %s, %s, by %s%s", l->what,
	    sp_recorder_event(l->r) ? sp_recorder_event(l->r) : "-",
	    rate, win, order, l->ended ? " (the targets exited)" : "");
	view_line(l, cols, "samples %llu (%.0f/s), lost %llu (%.1f %%), complete "
	    "stacks %.1f %%", (unsigned long long)v.samples,
	    v.seconds > 0 ? (double)v.samples / v.seconds : 0.0, lost,
	    pct(lost, all + lost), pct(v.samples - v.empty - v.truncated,
	    v.samples));
	if (o->order == SP_TOP_THREADS)
		view_line(l, cols, "%7s %9s %8s  %-16s %s", "SHARE%", "SAMPLES",
		    "TID", "THREAD", "HOTTEST (SELF%)");
	else
		view_line(l, cols, "%7s %7s %9s  %s", "SELF%", "TOTAL%", "SAMPLES",
		    "FUNCTION");
	for (i = 0; i < v.nrows; i++) {
		const struct sp_top_row *r = &v.rows[i];

		if (o->order == SP_TOP_THREADS)
			view_line(l, cols, "%7.1f %9llu %8u  %-16s %s (%.1f)",
			    pct(r->total, v.samples),
			    (unsigned long long)r->total, r->tid, r->name,
			    r->module ? r->module : "-", pct(r->self,
			    r->total));
		else
			view_line(l, cols, "%7.1f %7.1f %9llu  %s%s%s%s",
			    pct(r->self, v.samples), pct(r->total, v.samples),
			    (unsigned long long)(o->order == SP_TOP_TOTAL ?
			    r->total : r->self), r->name, r->module ? "  [" :
			    "", r->module ? r->module : "", r->module ? "]" :
			    "");
	}
	if (v.nrows == 0)
		hint(l, &v, cols);
	if (l->ui)
		view_line(l, cols, "%s", KEYS);
	else
		(void)putchar('\n');
	(void)fflush(stdout);
	return 0;
}

/* Live: the images the targets map now are read too (a deploy that
 * replaced a binary does not unname its frames). */
static const struct sp_sym_options live_opts = SP_OPTS_INIT(sp_sym_options,
    .live_images = 1);

/* Reads what the tail has: samples counted, definitions applied. */
static int
follow(struct live *l)
{
	static struct sp_sample batch[BATCH];
	struct sp_invalidation inv;
	size_t n;
	int rc, err;

	do {
		rc = sp_tail_poll(l->tail, batch, BATCH, &n);
		if (rc < 0)
			errx(1, "reading the spool back: %s",
			    sp_tail_diag(l->tail)->msg);
		if (l->sym == NULL) {
			if (sp_tail_header(l->tail) == NULL)
				return 0;
			err = sp_symbolizer_new(sp_tail_defs(l->tail),
			    sp_tail_header(l->tail), &live_opts, NULL, &l->sym);
			if (err == 0)
				err = sp_top_new(sp_tail_defs(l->tail), l->sym,
				    &l->top);
			if (err == 0 && l->o->no_demangle)
				sp_top_keep_mangled(l->top);
			if (err < 0)
				return err;
		}
		if ((err = sp_symbolizer_update(l->sym,
		    sp_tail_events(l->tail), &inv)) < 0)
			return err;
		sp_top_invalidate(l->top, &inv);
		if ((err = sp_top_add(l->top, batch, n)) < 0)
			return err;
	} while (n == BATCH && rc == 0);
	return 0;
}

static void
key(struct live *l, int c)
{
	struct opts *o = l->o;

	switch (c) {
	case 'q':
	case 'Q':
		l->quit = 1;
		break;
	case 's':
		o->order = SP_TOP_SELF;
		break;
	case 't':
		o->order = SP_TOP_TOTAL;
		break;
	case 'h':
	case 'T':
		o->order = o->order == SP_TOP_THREADS ? SP_TOP_SELF :
		    SP_TOP_THREADS;
		break;
	case 'w':
		o->window = o->window ? 0 : o->window_keyed;
		break;
	default:
		return;
	}
	(void)show(l);
}

static int
run(struct live *l, pid_t child)
{
	double next = spi_tool_now() + l->o->interval, flushed = 0;
	int err = 0, c;

	while (!l->quit && !spi_screen_stopped() && !l->ended) {
		err = sp_recorder_poll(l->r, 100);
		if (err == 0 && spi_tool_now() - flushed >= 0.1) {
			err = sp_writer_flush(l->w);
			flushed = spi_tool_now();
		}
		if (err == 0)
			err = follow(l);
		if (err)
			return err;
		while ((c = spi_screen_key(0)) >= 0)
			key(l, c);
		if (child > 0 ? waitpid(child, NULL, WNOHANG) == child :
		    sp_recorder_live(l->r) == 0)
			l->ended = 1;
		if (l->o->t.duration > 0 && spi_tool_now() - l->start >= l->o->t.duration)
			break;
		if (spi_tool_now() >= next && l->top != NULL) {
			next += l->o->interval;
			if ((err = show(l)) < 0)
				return err;
		}
	}
	if ((err = sp_recorder_flush(l->r)) == 0 && (err = follow(l)) == 0 &&
	    l->top != NULL) {
		/* The last view stays on the screen. */
		spi_screen_close();
		l->ui = 0;
		l->last = 1;
		err = show(l);
	}
	return err;
}

/* ------------------------------------------------------------ start */

/* Whether pid is a kernel thread: PF_KTHREAD (include/linux/sched.h) in
 * the flags of /proc/PID/stat, its ninth field (proc(5)), after the
 * comm in parentheses, which may hold anything. */
#define PF_KTHREAD 0x00200000u
static int
kernel_thread(uint32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long flags;
	ssize_t n;
	int fd, field;

	(void)snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* After the comm: state (field 3) and five more, then flags. */
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	for (field = 2; field < 9; field++)
		if ((p = strchr(p + 1, ' ')) == NULL)
			return 0;
	errno = 0;
	flags = strtoul(p + 1, &p, 10);
	return errno == 0 && *p == ' ' && (flags & PF_KTHREAD) != 0;
}

/* Which -p targets are kernel threads: sp-top then says so, not what
 * sp-record would advise. */
static void
find_kthreads(struct live *l)
{
	const struct opts *o = l->o;
	size_t i, n = 0;

	for (i = 0; i < o->t.npids; i++)
		if (kernel_thread(o->t.pids[i])) {
			if (l->kthread == 0)
				l->kthread = o->t.pids[i];
			n++;
		}
	l->only_kthreads = n > 0 && n == o->t.npids;
}

/*
 * What perf top shows in its warning box: why the view was empty or
 * short, and what to change: the recorder's warnings (spi_tool_advice's),
 * but for a kernel thread, which has no user stack, that is said
 * instead of "add --children": its children are kernel threads too.
 */
static void
advise(const struct live *l)
{
	struct sp_advice a[SP_ADVICE_MAX];
	struct sp_advice_opts ao = { .sz = sizeof(ao), .tool = "sp-top" };
	size_t n = sp_recorder_advice(l->r, &ao, a, SP_ADVICE_MAX), i;

	if (l->kthread != 0 && !l->o->t.ro.kernel)
		warnx("pid %u is a kernel thread: it has no user stack to "
		    "sample; -k (--kernel) samples its kernel stacks, -a "
		    "every process", l->kthread);
	for (i = 0; i < n && i < SP_ADVICE_MAX; i++)
		if (a[i].level == SP_ADVICE_WARNING && !(l->only_kthreads &&
		    (a[i].kind == SP_ADVICE_CHILDREN ||
		    a[i].kind == SP_ADVICE_CHILDREN_RUNNING)))
			warnx("%s", a[i].text);
}

/* The spool: -o's file (in place once the recording started), or an
 * unnamed one that the tail alone reads. */
static int
open_spool(const struct opts *o, char *path, size_t cap)
{
	struct sp_diag diag;
	const char *dir = getenv("TMPDIR");
	int fd;

	if (o->out != NULL) {
		if (sp_output_spool(&out, o->out, &fd, &diag) < 0)
			errx(1, "%s", diag.msg);
		(void)snprintf(path, cap, "%s", out.tmp != NULL ? out.tmp :
		    o->out);
		return fd;
	}
	(void)snprintf(path, cap, "%s/sp-top-XXXXXX", dir != NULL && *dir ?
	    dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		err(1, "%s", path);
	return fd;
}

static void
drop_output(void)
{
	sp_output_discard(&out);
}

static pid_t
start(struct live *l, int *fd)
{
	struct opts *o = l->o;
	struct sp_header h;
	struct sp_diag diag;
	char path[4096];
	pid_t child = -1;
	size_t i;

	if (atexit(drop_output) != 0)
		errx(1, "atexit failed");
	*fd = open_spool(o, path, sizeof(path));
	spi_tool_rec_header(&h);
	if (sp_writer_new(*fd, &h, &l->w) < 0)
		errx(1, "out of memory");
	if (o->out == NULL)
		(void)unlink(path);
	spi_tool_rec_new(l->w, &o->t, &l->r);
	/* Its own reader of the file, which has no name without -o. */
	if (sp_recorder_tail(l->r, &l->tail, &diag) < 0)
		errx(1, "%s: %s", path, diag.msg);
	for (i = 0; i < o->t.npids; i++)
		if (sp_recorder_attach(l->r, (pid_t)o->t.pids[i], &diag) != 0)
			errx(1, "%s", diag.msg);
	if (o->t.system && sp_recorder_attach_system(l->r, &diag) != 0)
		errx(1, "%s", diag.msg);
	if (o->t.cmd != NULL && sp_recorder_spawn(l->r, o->t.cmd, &child,
	    &diag) != 0)
		errx(1, "%s", diag.msg);
	if (o->out != NULL && sp_output_place(&out, &diag) < 0) {
		if (child > 0) {
			(void)kill(child, SIGKILL);
			(void)waitpid(child, NULL, 0);
		}
		errx(1, "%s", diag.msg);
	}
	return child;
}

int
main(int argc, char **argv)
{
	static struct opts o;
	static char what[256];
	struct live l;
	pid_t child;
	int fd, rc;

	parse_args(argc, argv, &o);
	o.t.ro.log = spi_tool_warn;
	o.t.ro.command = o.t.cmd != NULL ? o.t.cmd[0] : o.t.system ? "all-cpus" :
	    "attach";
	memset(&l, 0, sizeof(l));
	l.o = &o;
	/* Ctrl-C ends the run as q does; a second one at once. */
	spi_screen_signals();
	(void)signal(SIGPIPE, SIG_IGN);
	if (o.t.cmd != NULL)
		(void)snprintf(what, sizeof(what), "%s", o.t.cmd[0]);
	else if (o.t.system)
		(void)snprintf(what, sizeof(what), "all processes");
	else if (o.t.ro.ntids > 0)
		(void)snprintf(what, sizeof(what), "tid %u%s", o.tids[0],
		    o.t.ro.ntids > 1 ? " and more" : "");
	else
		(void)snprintf(what, sizeof(what), "pid %u%s", o.t.pids[0],
		    o.t.npids > 1 ? " and more" : "");
	l.what = what;
	find_kthreads(&l);
	child = start(&l, &fd);
	l.start = spi_tool_now();
	l.ui = !o.batch && isatty(STDOUT_FILENO);
	if (l.ui)
		spi_screen_open(0);
	rc = run(&l, child);
	spi_screen_close();
	if (child > 0 && waitpid(child, NULL, WNOHANG) == 0) {
		(void)kill(child, SIGTERM);
		(void)waitpid(child, NULL, 0);
	}
	if (rc == 0)
		rc = sp_recorder_finish(l.r);
	if (rc < 0)
		errx(1, "%s", sp_strerror(rc));
	advise(&l);
	if (o.out != NULL)
		(void)fprintf(stderr, "sp-top: the spool is in %s\n", o.out);
	sp_top_free(l.top);
	sp_symbolizer_free(l.sym);
	sp_tail_free(l.tail);
	sp_recorder_free(l.r);
	sp_writer_free(l.w);
	sp_output_discard(&out);
	if (close(fd) < 0 && o.out != NULL)
		err(1, "%s", o.out);
	return 0;
}
