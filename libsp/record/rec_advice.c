/* SPDX-License-Identifier: MIT */
/*
 * Advice from the recorder's counters: what a person would want to know,
 * or change before the next run, as lines of text (sp_recorder_advice).
 * Reads the counters and the options as the recorder resolved them; owns
 * nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "common/opts_int.h"
#include "common/procfs_int.h"
#include "recorder_int.h"

#define TRUNCATED_PERCENT 5 /* truncated stacks worth a word */

/* What one call gathers: the caller's options and array, what is found. */
struct advice {
	struct sp_recorder *r;
	struct sp_advice_opts o;
	const char *tool;
	struct sp_advice *out;
	size_t max, n;
	unsigned long long s;   /* samples */
};

static unsigned long long
counter(const struct advice *a, const char *name)
{
	return sp_recorder_counter(a->r, name);
}

static double
percent(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Adds an item (counted past max, written up to it). */
static void __attribute__((format(printf, 5, 6)))
add(struct advice *a, enum sp_advice_kind kind, enum sp_advice_level level,
    double pct, const char *fmt, ...)
{
	struct sp_advice *v;
	va_list ap;

	if (a->n++ >= a->max)
		return;
	v = &a->out[a->n - 1];
	v->kind = kind;
	v->level = level;
	v->percent = pct;
	va_start(ap, fmt);
	/* A false report of clang-tidy's, as in sp_diag_set. */
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	(void)vsnprintf(v->text, sizeof(v->text), fmt, ap);
	va_end(ap);
}

/* What recording cost the process: CPU time (per sample or switch),
 * peak resident memory. */
static void
cost(struct advice *a)
{
	unsigned long long n = a->s + counter(a, "off_cpu_samples");
	struct rusage ru;
	char per[64] = "";
	double cpu;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return;
	cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	if (n > 0)
		(void)snprintf(per, sizeof(per), " (%.0f us a sample%s)",
		    cpu * 1e6 / (double)n, a->r->o.off_cpu ? " or switch" : "");
	add(a, SP_ADVICE_COST, SP_ADVICE_NOTE, 0, "%s used %.2f s of CPU%s, "
	    "%.1f MiB at most", a->tool, cpu, per, (double)ru.ru_maxrss / 1024);
}

/* How much of the stack copy whole walks needed (99 % of them), next to
 * what was copied: every sample takes the whole copy in the ring. */
static void
stack_used(struct advice *a)
{
	static const char *const names[] = { "stack_used_4k", "stack_used_8k",
	    "stack_used_16k", "stack_used_32k", "stack_used_64k" };
	unsigned long long n[5], all = 0, sum = 0;
	unsigned long long switches = counter(a, "stack_switches");
	unsigned stack = a->r->o.stack_bytes;
	char copies[128];
	size_t k;

	for (k = 0; k < 5; k++)
		all += n[k] = counter(a, names[k]);
	if (all == 0)
		return;
	for (k = 0; k < 4 && (sum += n[k]) * 100 < all * 99; k++)
		;
	/* The size changes only without -s (rec_adapt.c). */
	if (switches == 0)
		(void)snprintf(copies, sizeof(copies), "-s copies %u bytes",
		    stack);
	else if (switches == 1)
		(void)snprintf(copies, sizeof(copies), "copies of %u bytes, "
		    "then %llu (they fit)", stack, counter(a, "stack_bytes"));
	else
		(void)snprintf(copies, sizeof(copies), "copies of %u bytes, %u "
		    "for a while, then %u again (deeper stacks came)", stack,
		    SP_STACK_BYTES_SMALL, stack);
	add(a, SP_ADVICE_STACK_USED, SP_ADVICE_NOTE, 0, "whole stacks used up "
	    "to %u KiB (99 %% of them); %s", 4u << k, copies);
}

/* Why nothing was sampled. */
static void
no_samples(struct advice *a)
{
	struct sp_recorder *r = a->r;

	if (a->s > 0 || counter(a, "lost_events") > 0)
		return;
	if (!r->ev.enabled && a->o.delay_ms > 0)
		add(a, SP_ADVICE_NO_SAMPLES, SP_ADVICE_WARNING, 0, "no samples: "
		    "the recording ended before its --delay of %llu ms had "
		    "passed", a->o.delay_ms);
	else if (!r->ev.enabled)
		add(a, SP_ADVICE_NO_SAMPLES, SP_ADVICE_WARNING, 0, "no samples: "
		    "sampling was off");
	else if (counter(a, "untracked_samples") > 0)
		return;
	else if (r->tg.system && r->ev.cgroup_fd < 0)
		add(a, SP_ADVICE_NO_SAMPLES, SP_ADVICE_WARNING, 0, "no samples: "
		    "every CPU was idle");
	else
		add(a, SP_ADVICE_NO_SAMPLES, SP_ADVICE_WARNING, 0, "%s",
		    counter(a, "kernel_enabled") ? "no samples: the target was "
		    "idle" : "no samples: the target was idle or ran only in "
		    "the kernel");
}

/* Why stacks were cut short, by the unwinder's most frequent reason. */
static void
unwinder_reason(const struct advice *a, char *buf, size_t cap)
{
	unsigned long long bounds = counter(a, "unwind_stack_bounds");
	unsigned long long depth = counter(a, "unwind_depth");
	unsigned long long regs = counter(a, "unwind_no_regs");
	/* A frame with no CFI whose frame-pointer chain is garbage, stands
	 * still or leads out of the code: the code has neither. */
	unsigned long long info = counter(a, "unwind_bad_fp") +
	    counter(a, "unwind_no_progress") + counter(a, "unwind_bad_ra");
	/* The kernel could not read the stack at all (a sample in a page
	 * fault): no option changes that. */
	unsigned long long none = counter(a, "unwind_no_stack");
	/* Go's stack switches no chain leads back from. */
	unsigned long long sw = counter(a, "unwind_stack_switch");
	unsigned stack = a->r->o.stack_bytes;
	/* By frame pointers (--call-graph fp): walks that ended where one
	 * was missing. */
	unsigned long long fp = counter(a, "unwind_fp_end");

	if (fp > 0 && fp >= depth)
		(void)snprintf(buf, cap, "frame-pointer walks (--call-graph "
		    "fp) are never counted whole: a function without a frame "
		    "record is skipped unseen; without it sp-record unwinds "
		    "by CFI");
	else if (sw > none && sw > info && sw > bounds && sw > depth && sw > regs)
		(void)snprintf(buf, cap, "at Go's stack switches (systemstack, "
		    "mcall), where no frame-pointer chain led back to the "
		    "goroutine (arm64's leave none; -a and -G record none)");
	else if (none > info && none > bounds && none > depth && none > regs)
		(void)snprintf(buf, cap, "the kernel copied no stack for them "
		    "(samples in page faults or with the stack unreadable)");
	else if (info > bounds && info > depth && info > regs)
		(void)snprintf(buf, cap, "code with neither CFI nor frame "
		    "pointers (build it with -fno-omit-frame-pointer, or keep "
		    "its .eh_frame)");
	else if (bounds >= depth && bounds >= regs && stack < SP_STACK_BYTES_MAX)
		(void)snprintf(buf, cap, "raise -s/--stack (now %u bytes, at "
		    "most %u)", stack, SP_STACK_BYTES_MAX);
	else if (bounds >= depth && bounds >= regs)
		(void)snprintf(buf, cap, "the stacks are deeper than the %u "
		    "bytes a sample can copy", SP_STACK_BYTES_MAX);
	else if (depth >= regs)
		(void)snprintf(buf, cap, "raise -m/--max-frames (now %u)",
		    a->r->o.max_frames);
	else
		(void)snprintf(buf, cap, "samples without user registers "
		    "(in the kernel: add --kernel)");
}

/*
 * Runtimes whose JIT code keeps no frame pointers unless told to: the
 * option as a user gives it, the arguments the runtime's process has
 * when it is on (erl passes +JPperf to beam.smp as -JPperf; OTP's "true"
 * turns on the perf map and frame pointers), and where walks end with it
 * on.  Advice must be true: with the option on, it says so.
 */
static const struct {
	const char *exe, *option;
	const char *on[2];
	const char *end;
} jit_options[] = {
	{ "java", "-XX:+PreserveFramePointer",
	    { "-XX:+PreserveFramePointer", NULL }, NULL },
	{ "beam.smp", "+JPperf true", { "-JPperf true", "-JPperf fp" },
	    "where an Erlang process's stack meets the scheduler's C stack "
	    "(a call into C), as perf's walks do" },
};

/* Whether args (words separated by single spaces) hold the words w. */
static int
has_words(const char *args, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = args; (p = strstr(p, w)) != NULL; p++)
		if ((p == args || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* Why the walks in runtime rt's JIT code were cut. */
static void
jit_reason(const struct sp_recorder *r, const char *rt, char *why,
    size_t cap)
{
	size_t i, k;
	int on = 0;

	for (i = 0; i < sizeof(jit_options) / sizeof(*jit_options) &&
	    strcmp(rt, jit_options[i].exe) != 0; i++)
		;
	if (i == sizeof(jit_options) / sizeof(*jit_options)) {
		(void)snprintf(why, cap, "%s's JIT code keeps no frame pointers "
		    "(if the runtime has an option to keep them, use it)", rt);
		return;
	}
	for (k = 0; k < 2 && jit_options[i].on[k] != NULL; k++)
		on |= has_words(r->jit_args, jit_options[i].on[k]);
	if (!on)
		(void)snprintf(why, cap, "%s's JIT code keeps no frame "
		    "pointers unless run with %s", rt, jit_options[i].option);
	else
		(void)snprintf(why, cap, "%s keeps frame pointers (%s), but its "
		    "walks end %s", rt, jit_options[i].option,
		    jit_options[i].end != NULL ? jit_options[i].end :
		    "in its JIT code all the same");
}

/* Why stacks were cut short: in a JIT's code, the runtime's option that
 * keeps frame pointers; else the unwinder's most frequent reason. */
static void
truncated(struct advice *a)
{
	unsigned long long trunc = counter(a, "truncated_stacks");
	unsigned long long jit = counter(a, "jit_truncated_stacks");
	const char *rt = sp_recorder_jit_runtime(a->r);
	double pct = percent(trunc, a->s);
	char why[200];

	if (a->s == 0 || pct < TRUNCATED_PERCENT)
		return;
	if (rt != NULL && jit * 2 >= trunc)
		jit_reason(a->r, rt, why, sizeof(why));
	else
		unwinder_reason(a, why, sizeof(why));
	add(a, SP_ADVICE_TRUNCATED, SP_ADVICE_WARNING, pct, "%.0f %% of stacks "
	    "truncated: %s", pct, why);
}

/* The processes the recording missed: children not followed, those gone
 * before their mappings were read. */
static void
missed(struct advice *a)
{
	unsigned long long untracked = counter(a, "untracked_samples");
	unsigned long long gone = counter(a, "gone_process_samples");
	unsigned long long running = counter(a, "children_not_followed");
	long paranoid = 2; /* the kernel's default */

	if (!counter(a, "kernel_enabled")) {
		(void)spi_read_long("/proc/sys/kernel/perf_event_paranoid",
		    &paranoid);
		add(a, SP_ADVICE_NO_KERNEL, SP_ADVICE_WARNING, 0, "kernel time "
		    "not sampled: perf_event_paranoid is %ld; run as root or "
		    "with CAP_PERFMON", paranoid);
	}
	if (untracked > 0 && !a->r->o.children)
		add(a, SP_ADVICE_CHILDREN, SP_ADVICE_WARNING, percent(untracked,
		    a->s + untracked), "%llu samples from child processes not "
		    "followed: add --children", untracked);
	if (percent(gone, a->s) >= 1)
		add(a, SP_ADVICE_GONE, SP_ADVICE_WARNING, percent(gone, a->s),
		    "%llu samples (%.0f %%) are not in the spool: their "
		    "processes started before the recording and exited before "
		    "%s read their mappings (a busy machine is slow to start "
		    "recording)", gone, percent(gone, a->s), a->tool);
	if (running > 0)
		add(a, SP_ADVICE_CHILDREN_RUNNING, SP_ADVICE_WARNING, 0, "%llu "
		    "child processes of the targets were running and not "
		    "followed: add --children", running);
}

size_t
sp_recorder_advice(struct sp_recorder *r, const struct sp_advice_opts *o,
    struct sp_advice *out, size_t max)
{
	struct advice a;
	unsigned long long lost;

	memset(&a, 0, sizeof(a));
	/* An older caller's shorter struct: the fields it lacks are 0; sz 0
	 * reads none.  This call cannot fail: options it cannot read (sz
	 * not a size, or a newer caller's field set) are all taken as 0. */
	(void)spi_opts_copy(&a.o, sizeof(a.o), o,
	    SPI_OPTS_END(struct sp_advice_opts, sz), "sp_advice_opts", NULL);
	a.r = r;
	a.tool = a.o.tool != NULL ? a.o.tool : "the recorder";
	a.out = out;
	a.max = out != NULL ? max : 0;
	a.s = counter(&a, "samples");
	lost = counter(&a, "lost_events");
	cost(&a);
	stack_used(&a);
	no_samples(&a);
	missed(&a);
	truncated(&a);
	if (percent(lost, a.s + lost) >= 1)
		add(&a, SP_ADVICE_LOST, SP_ADVICE_WARNING, percent(lost, a.s +
		    lost), "%.0f %% of samples lost (the rings overflowed): lower "
		    "-F, or leave %s a CPU of its own", percent(lost, a.s + lost),
		    a.tool);
	return a.n;
}
