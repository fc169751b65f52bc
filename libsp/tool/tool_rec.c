/* SPDX-License-Identifier: MIT */
/* The recording options sp-record and sp-top share, parsed once, and the
 * advice printed as both tools print it.  What they mean (the rate of
 * -F max, the interval the header says) is the recorder's to resolve. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp/record/recorder.h"
#include "sp/spool/spool.h"
#include "sp/tool/tool.h"

void
spi_tool_rec_init(struct sp_tool_rec_opts *t)
{
	memset(t, 0, sizeof(*t));
	t->children = -1;
	t->ro.sz = sizeof(t->ro);
}

/* -F HZ or max. */
static unsigned
frequency(const char *arg)
{
	if (strcmp(arg, "max") == 0)
		return SP_FREQ_MAX;
	return (unsigned)spi_tool_int("-F", arg, 1, 10000000);
}

/* -s: what perf can copy, in whole words (perf_event_open(2):
 * sample_stack_user must be 8-byte aligned). */
static unsigned
stack_bytes(const char *arg)
{
	unsigned v = (unsigned)spi_tool_int("-s stack bytes", arg, 8,
	    SP_STACK_BYTES_MAX);

	if (v % 8)
		errx(2, "-s stack bytes must be a multiple of 8");
	return v;
}

/* -c PERIOD, perf's.  Before it was perf's, -c was --children: an -c
 * with no number after it is one of those. */
static unsigned long long
period(const char *arg)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0)
		errx(2, "-c %s: -c is the sampling period now, as perf's (-c "
		    "PERIOD: a sample every PERIOD events, nanoseconds of "
		    "cpu-clock); follow child processes with --children", arg);
	if (v == 0 || v > (1ull << 62))
		errx(2, "-c %s: a period from 1 to 2^62", arg);
	return v;
}

/* -e list: perf list's, for the events -e knows. */
static void
list_events(void)
{
	const char *name, *what;
	size_t i;

	for (i = 0; sp_event_info(i, &name, &what); i++)
		(void)printf("  %-18s %s\n", name, what);
	(void)printf("A name with :u samples user time only.\n");
	exit(0);
}

int
spi_tool_rec_option(struct sp_tool_rec_opts *t, int ch, const char *arg)
{
	switch (ch) {
	case 'a':
		t->system = 1;
		return 1;
	case SP_TOOL_OPT_CHILDREN:
	case SP_TOOL_OPT_NO_CHILDREN:
		t->children = ch == SP_TOOL_OPT_CHILDREN;
		return 1;
	case 'c':
		t->ro.period = period(arg);
		return 1;
	case 'e':
		if (strcmp(arg, "list") == 0)
			list_events();
		t->ro.event = arg;
		return 1;
	case 'd':
		t->duration = spi_tool_real("-d seconds", arg, 0, 1,
		    SP_TOOL_MAX_SECONDS);
		return 1;
	case 'F':
		t->ro.frequency = frequency(arg);
		return 1;
	case 'k':
		t->ro.kernel = 1;
		return 1;
	case 'm':
		t->ro.max_frames = (unsigned)spi_tool_int("--max-frames", arg, 1,
		    65536);
		return 1;
	case 'p':
		spi_tool_pids("-p", arg, t->pids, SP_TOOL_MAX_PIDS, &t->npids);
		return 1;
	case 's':
		t->ro.stack_bytes = stack_bytes(arg);
		return 1;
	default:
		return 0;
	}
}

/* The process of thread tid (/proc/TID/status's Tgid), or 0. */
static uint32_t
tgid_of(uint32_t tid)
{
	char path[64], line[128];
	unsigned long v = 0;
	FILE *f;

	(void)snprintf(path, sizeof(path), "/proc/%u/status", tid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Tgid:", 5) == 0) {
			v = strtoul(line + 5, NULL, 10);
			break;
		}
	(void)fclose(f);
	return v <= UINT32_MAX ? (uint32_t)v : 0;
}

void
spi_tool_rec_tids(struct sp_tool_rec_opts *t, uint32_t *tids, const char *arg)
{
	size_t i, k, before = t->ro.ntids;

	spi_tool_pids("-t", arg, tids, SP_TOOL_MAX_PIDS, &t->ro.ntids);
	t->ro.tids = tids;
	for (i = before; i < t->ro.ntids; i++) {
		uint32_t pid = tgid_of(tids[i]);

		if (pid == 0)
			errx(1, "-t %u: no such thread (/proc/%u/status)",
			    tids[i], tids[i]);
		for (k = 0; k < t->npids && t->pids[k] != pid; k++)
			;
		if (k == t->npids) {
			if (t->npids == SP_TOOL_MAX_PIDS)
				errx(2, "at most %d processes", SP_TOOL_MAX_PIDS);
			t->pids[t->npids++] = pid;
		}
	}
}

void
spi_tool_rec_args(struct sp_tool_rec_opts *t, int argc, char **argv)
{
	if (optind < argc)
		t->cmd = argv + optind;
	t->ro.children = t->children < 0 ? t->cmd != NULL : t->children;
}

void
spi_tool_rec_header(struct sp_header *h)
{
	if (sp_header_init_host(h) < 0)
		err(1, "reading host facts");
}

/*
 * The library names its options field (sp_recorder_opts.frequency); a
 * user of the tool knows -F, so the frequency's errors are said in the
 * tool's words.  The rest are the library's.
 */
void
spi_tool_rec_new(struct sp_writer *w, struct sp_tool_rec_opts *t,
    struct sp_recorder **r)
{
	struct sp_diag diag;
	unsigned hz;
	int rc;

	if (t->ro.frequency == SP_FREQ_MAX &&
	    (rc = sp_max_sample_rate(&hz)) < 0)
		errx(2, "-F max: cannot read /proc/sys/kernel/"
		    "perf_event_max_sample_rate: %s", sp_strerror(rc));
	memset(&diag, 0, sizeof(diag));
	rc = sp_recorder_new(w, &t->ro, r, &diag);
	if (rc == -SP_EFREQ)
		errx(2, "sampling rate %lu Hz is above the permitted %lu Hz "
		    "(/proc/sys/kernel/perf_event_max_sample_rate); use -F %lu "
		    "or lower, or -F max", diag.requested, diag.permitted,
		    diag.permitted);
	if (rc < 0)
		errx(sp_error_kind(rc) == SP_KIND_INVALID ||
		    sp_error_kind(rc) == SP_KIND_FREQUENCY ? 2 : 1, "%s",
		    diag.msg);
}

void
spi_tool_advice(struct sp_recorder *r, const char *tool,
    unsigned long long delay_ms, int notes)
{
	struct sp_advice a[SP_ADVICE_MAX];
	struct sp_advice_opts o = { .sz = sizeof(o), .tool = tool,
	    .delay_ms = delay_ms };
	size_t n = sp_recorder_advice(r, &o, a, SP_ADVICE_MAX), i;

	for (i = 0; i < n && i < SP_ADVICE_MAX; i++) {
		if (a[i].level == SP_ADVICE_WARNING)
			warnx("%s", a[i].text);
		else if (notes)
			(void)fprintf(stderr, "  %s\n", a[i].text);
	}
}
