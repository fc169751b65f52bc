/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "livetest.h"
#include "sp/common/process.h"

char *const spin_argv[] = { "/bin/sh", "-c",
	"ulimit -t 10; while :; do :; done", NULL };

void
live_start(struct live *l, const struct sp_recorder_opts *o)
{
	struct sp_recorder_opts zero;
	struct sp_header h;
	struct sp_diag diag = { 0 };

	memset(&zero, 0, sizeof(zero));
	memset(l, 0, sizeof(*l));
	(void)snprintf(l->path, sizeof(l->path), "/tmp/sp-unit-live-XXXXXX");
	l->fd = mkstemp(l->path);
	cr_assert_geq(l->fd, 0);
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(l->fd, &h, &l->w), 0);
	cr_assert_eq(sp_recorder_new(l->w, o != NULL ? o : &zero, &l->r,
	    &diag), 0, "%s", diag.msg);
	cr_assert_eq(sp_writer_flush(l->w), 0);
	cr_assert_eq(sp_tail_open(l->path, &l->t), 0);
	(void)unlink(l->path);
}

void
live_end(struct live *l)
{
	sp_tail_free(l->t);
	sp_recorder_free(l->r);
	sp_writer_free(l->w);
	(void)close(l->fd);
}

pid_t
live_launch(struct live *l, char *const argv[])
{
	struct sp_launch lc;
	struct sp_diag diag = { 0 };
	int err;

	cr_assert_eq(sp_process_launch(argv, &lc, &diag), 0, "%s", diag.msg);
	err = sp_recorder_attach_mode(l->r, lc.pid, SP_ATTACH_AT_EXEC, &diag);
	if (err == -EACCES || err == -EPERM || err == -ENOENT) {
		sp_process_abandon(&lc);
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, 0, "%s", diag.msg);
	cr_assert_eq(sp_process_release(&lc, argv[0], &diag), 0, "%s",
	    diag.msg);
	return lc.pid;
}

void
record_for(struct live *l, double secs)
{
	double end = now_s() + secs;

	while (now_s() < end)
		cr_assert_eq(sp_recorder_poll(l->r, 20), 0);
	cr_assert_eq(sp_recorder_flush(l->r), 0);
}

size_t
read_tail(struct live *l, struct sp_sample *s, size_t max)
{
	size_t n = 0, got;

	do {
		cr_assert_geq(sp_tail_poll(l->t, s + n, max - n, &got), 0);
		n += got;
		if (l->on_poll != NULL)
			l->on_poll(l->on_poll_arg, sp_tail_events(l->t));
	} while (got > 0 && n < max);
	return n;
}

size_t
record_samples(struct live *l, struct sp_sample *s, size_t max, size_t want)
{
	double end = now_s() + 20;
	size_t n = 0;

	while (n < want && now_s() < end) {
		record_for(l, 0.2);
		n += read_tail(l, s + n, max - n);
	}
	return n;
}

/* The stack of the first of the n samples s whose stack sym resolves to
 * one that is(), or 0. */
static uint32_t
first_stack(const struct sp_sample *s, size_t n, struct sp_symbolizer *sym,
    int (*is)(const struct sp_resolved_stack *))
{
	struct sp_resolved_stack st;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].stack != 0 &&
		    sp_symbolizer_resolve(sym, s[i].stack, &st) == 0 && is(&st))
			return s[i].stack;
	return 0;
}

static int
native_leaf(const struct sp_resolved_stack *st)
{
	return st->n > 2 && st->frames[0].kind == SP_RESOLVED_NATIVE;
}

static int
anon_leaf(const struct sp_resolved_stack *st)
{
	return st->n > 0 && st->frames[0].module != NULL &&
	    strcmp(st->frames[0].module, "[anon]") == 0;
}

uint32_t
native_stack(const struct sp_sample *s, size_t n, struct sp_symbolizer *sym)
{
	return first_stack(s, n, sym, native_leaf);
}

uint32_t
anon_stack(const struct sp_sample *s, size_t n, struct sp_symbolizer *sym)
{
	return first_stack(s, n, sym, anon_leaf);
}

size_t
live_spin_symbolized(struct live *l, struct sp_sample *s, size_t max,
    pid_t *pid, struct sp_symbolizer **sym)
{
	size_t n;

	live_start(l, NULL);
	*pid = live_launch(l, spin_argv);
	n = record_samples(l, s, max, 200);
	cr_assert_geq(n, 200, "samples of the spinner (%zu)", n);
	cr_assert_eq(sp_symbolizer_new(sp_tail_defs(l->t), sp_tail_header(l->t),
	    NULL, NULL, sym), 0);
	return n;
}
