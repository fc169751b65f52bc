/* SPDX-License-Identifier: MIT */
/* sp_recorder_advice on counters set by hand (no events opened): the
 * verdicts sp-record and sp-top print, in order; the array's bounds;
 * a shorter options struct.  And the rate: -F max resolved before the
 * header, so the header's interval and the recorder's rate agree. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/recorder_int.h"

static struct sp_writer *w;
static int fd = -1;

/* A recorder writing to /dev/null, with ro's options. */
static struct sp_recorder *
recorder(const struct sp_recorder_opts *ro)
{
	struct sp_header h;
	struct sp_recorder *r;
	struct sp_diag diag;

	memset(&diag, 0, sizeof(diag));
	cr_assert_eq(sp_header_init_host(&h), 0);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	cr_assert_eq(sp_recorder_new(w, ro, &r, &diag), 0, "%s", diag.msg);
	return r;
}

static void
done(struct sp_recorder *r)
{
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
}

/* Sets the counter called name (as sp_recorder_counter names it). */
static void
set(struct sp_recorder *r, const char *name, uint64_t v)
{
	size_t i;

	for (i = 0; i < C_COUNT_ && strcmp(r->counters[i].name.s, name); i++)
		;
	cr_assert_lt(i, C_COUNT_, "no counter %s", name);
	r->ctx.c[i] = v;
}

/* The advice of kind k among n, or NULL. */
static const struct sp_advice *
find(const struct sp_advice *a, size_t n, enum sp_advice_kind k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].kind == k)
			return &a[i];
	return NULL;
}

static const struct sp_advice_opts top = { .sz = sizeof(top),
	.tool = "sp-top" };

Test(advice, an_idle_target_is_said_after_the_cost)
{
	struct sp_recorder_opts ro = { 0 };
	struct sp_recorder *r = recorder(&ro);
	struct sp_advice a[SP_ADVICE_MAX];
	size_t n;

	set(r, "kernel_enabled", 1);
	n = sp_recorder_advice(r, &top, a, SP_ADVICE_MAX);
	cr_assert_eq(n, 2);
	cr_assert_eq(a[0].kind, SP_ADVICE_COST);
	cr_assert_eq(a[0].level, SP_ADVICE_NOTE);
	cr_assert(strncmp(a[0].text, "sp-top used ", 12) == 0, "%s", a[0].text);
	cr_assert_eq(a[1].kind, SP_ADVICE_NO_SAMPLES);
	cr_assert_eq(a[1].level, SP_ADVICE_WARNING);
	cr_assert_str_eq(a[1].text, "no samples: the target was idle");
	set(r, "kernel_enabled", 0);
	n = sp_recorder_advice(r, &top, a, SP_ADVICE_MAX);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(a[1].text, "no samples: the target was idle or ran "
	    "only in the kernel");
	cr_assert_eq(a[2].kind, SP_ADVICE_NO_KERNEL);
	cr_assert(strstr(a[2].text, "perf_event_paranoid is ") != NULL);
	r->tg.system = 1;
	n = sp_recorder_advice(r, &top, a, SP_ADVICE_MAX);
	cr_assert_str_eq(find(a, n, SP_ADVICE_NO_SAMPLES)->text,
	    "no samples: every CPU was idle");
	done(r);
}

Test(advice, a_run_that_ended_before_its_delay)
{
	struct sp_recorder_opts ro = { 0 };
	struct sp_recorder *r = recorder(&ro);
	struct sp_advice_opts o = { .sz = sizeof(o), .delay_ms = 500 };
	struct sp_advice a[SP_ADVICE_MAX];
	size_t n;

	set(r, "kernel_enabled", 1);
	cr_assert_eq(sp_recorder_enable(r, 0), 0);
	n = sp_recorder_advice(r, &o, a, SP_ADVICE_MAX);
	cr_assert_str_eq(find(a, n, SP_ADVICE_NO_SAMPLES)->text, "no samples: "
	    "the recording ended before its --delay of 500 ms had passed");
	/* A caller that knows no delay field: it reads as 0. */
	o.sz = offsetof(struct sp_advice_opts, delay_ms);
	n = sp_recorder_advice(r, &o, a, SP_ADVICE_MAX);
	cr_assert_str_eq(find(a, n, SP_ADVICE_NO_SAMPLES)->text,
	    "no samples: sampling was off");
	cr_assert(strncmp(a[0].text, "the recorder used ", 18) == 0, "%s",
	    a[0].text);
	done(r);
}

Test(advice, truncated_stacks_name_the_option_and_its_value)
{
	struct sp_recorder_opts ro = { .stack_bytes = 512, .max_frames = 3 };
	struct sp_recorder *r = recorder(&ro);
	struct sp_advice a[SP_ADVICE_MAX];
	const struct sp_advice *t;
	size_t n;

	set(r, "kernel_enabled", 1);
	set(r, "samples", 100);
	set(r, "truncated_stacks", 50);
	set(r, "unwind_stack_bounds", 40);
	set(r, "unwind_depth", 10);
	set(r, "stack_used_4k", 100);
	n = sp_recorder_advice(r, NULL, a, SP_ADVICE_MAX);
	cr_assert_eq(n, 3);
	cr_assert_eq(a[1].kind, SP_ADVICE_STACK_USED);
	cr_assert_str_eq(a[1].text, "whole stacks used up to 4 KiB (99 % of "
	    "them); -s copies 512 bytes");
	t = find(a, n, SP_ADVICE_TRUNCATED);
	cr_assert_not_null(t);
	cr_assert_float_eq(t->percent, 50.0, 1e-9);
	cr_assert_str_eq(t->text, "50 % of stacks truncated: raise -s/--stack "
	    "(now 512 bytes, at most 65528)");
	set(r, "unwind_depth", 45);
	n = sp_recorder_advice(r, NULL, a, SP_ADVICE_MAX);
	cr_assert_str_eq(find(a, n, SP_ADVICE_TRUNCATED)->text, "50 % of "
	    "stacks truncated: raise -m/--max-frames (now 3)");
	/* Under 5 %: not worth a word. */
	set(r, "truncated_stacks", 4);
	n = sp_recorder_advice(r, NULL, a, SP_ADVICE_MAX);
	cr_assert_null(find(a, n, SP_ADVICE_TRUNCATED));
	done(r);
}

Test(advice, lost_samples_and_children_name_the_tool_and_the_flag)
{
	struct sp_recorder_opts ro = { 0 };
	struct sp_recorder *r = recorder(&ro);
	struct sp_advice a[SP_ADVICE_MAX];
	size_t n;

	set(r, "kernel_enabled", 1);
	set(r, "samples", 90);
	set(r, "lost_events", 10);
	set(r, "untracked_samples", 7);
	set(r, "children_not_followed", 2);
	n = sp_recorder_advice(r, &top, a, SP_ADVICE_MAX);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(a[1].text, "7 samples from child processes not "
	    "followed: add --children");
	cr_assert_str_eq(a[2].text, "2 child processes of the targets were "
	    "running and not followed: add --children");
	cr_assert_eq(a[3].kind, SP_ADVICE_LOST);
	cr_assert_str_eq(a[3].text, "10 % of samples lost (the rings "
	    "overflowed): lower -F, or leave sp-top a CPU of its own");
	done(r);
}

Test(advice, writes_at_most_max_and_counts_them_all)
{
	struct sp_recorder_opts ro = { 0 };
	struct sp_recorder *r = recorder(&ro);
	struct sp_advice a[2];

	set(r, "kernel_enabled", 0);
	memset(a, 0, sizeof(a));
	cr_assert_eq(sp_recorder_advice(r, NULL, NULL, 0), 3);
	cr_assert_eq(sp_recorder_advice(r, NULL, a, 1), 3);
	cr_assert_eq(a[0].kind, SP_ADVICE_COST);
	cr_assert_eq(a[1].kind, 0, "past max nothing is written");
	done(r);
}

/* A JIT's cut walks: the runtime's option when it is off; when its
 * process runs with it on, where the walks end instead (issue 28.6:
 * Erlang's +JPperf true was advised while given). */
Test(advice, a_jit_option_already_given_is_not_advised)
{
	static const struct {
		const char *exe, *args, *want;
	} cases[] = {
		{ "beam.smp", "/usr/lib/erlang/bin/beam.smp -- -root /x",
		    "beam.smp's JIT code keeps no frame pointers unless run "
		    "with +JPperf true" },
		{ "beam.smp", "/usr/lib/erlang/bin/beam.smp -JPperf true -- -x",
		    "beam.smp keeps frame pointers (+JPperf true), but its walks "
		    "end where an Erlang process's stack meets the scheduler's "
		    "C stack" },
		{ "beam.smp", "beam.smp -JPperf map -JPperf fp",
		    "beam.smp keeps frame pointers" },
		{ "beam.smp", "beam.smp -JPperf truely",
		    "beam.smp's JIT code keeps no frame pointers unless" },
		{ "java", "java -XX:+PreserveFramePointer -cp . Bench",
		    "java keeps frame pointers (-XX:+PreserveFramePointer), but "
		    "its walks end in its JIT code all the same" },
		{ "node", "node x.js", "node's JIT code keeps no frame pointers "
		    "(if the runtime has an option to keep them, use it)" },
	};
	struct sp_recorder_opts ro = { 0 };
	struct sp_advice a[SP_ADVICE_MAX];
	const struct sp_advice *t;
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sp_recorder *r = recorder(&ro);

		set(r, "kernel_enabled", 1);
		set(r, "samples", 1000);
		set(r, "truncated_stacks", 100);
		set(r, "jit_truncated_stacks", 100);
		r->jit_top = 100;
		(void)snprintf(r->jit_runtime, sizeof(r->jit_runtime), "%s",
		    cases[i].exe);
		(void)snprintf(r->jit_args, sizeof(r->jit_args), "%s",
		    cases[i].args);
		n = sp_recorder_advice(r, &top, a, SP_ADVICE_MAX);
		t = find(a, n, SP_ADVICE_TRUNCATED);
		cr_assert_not_null(t, "%s", cases[i].args);
		cr_assert(strstr(t->text, cases[i].want) != NULL, "%s: %s",
		    cases[i].args, t->text);
		done(r);
	}
}
