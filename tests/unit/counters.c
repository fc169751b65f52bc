/* SPDX-License-Identifier: MIT */
/*
 * The summary counters, written from docs/counters.md and docs/api.md:
 * the page names every counter a recorder gives, in its order, and no
 * other; struct sp_error_stats over a real recording's counters, as the
 * recorder gives them and as a spool's reader finds them; and over
 * counter arrays made by hand (sums, other names, bounds).  Public
 * headers only.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "livetest.h"
#include "sp/common/process.h"
#include "sp/record/recorder.h"
#include "sp/spool/snapshot.h"

#define DOC "docs/counters.md"
#define DOC_MAX 256

/* The names of DOC's table rows ("| `name` |"), in order, into names. */
static size_t
doc_names(char names[][SP_COUNTER_NAME_MAX + 1], size_t max)
{
	FILE *f = fopen(DOC, "r");
	char line[1024], *end;
	size_t n = 0, len;

	cr_assert_not_null(f, "%s: %s (run from the top of the checkout)",
	    DOC, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "| `", 3) != 0 ||
		    (end = strchr(line + 3, '`')) == NULL)
			continue;
		len = (size_t)(end - (line + 3));
		cr_assert(len > 0 && len <= SP_COUNTER_NAME_MAX && n < max,
		    "%s: a row's name: %s", DOC, line);
		memcpy(names[n], line + 3, len);
		names[n++][len] = '\0';
	}
	fclose(f);
	return n;
}

static int
in_doc(char names[][SP_COUNTER_NAME_MAX + 1], size_t n, const struct sp_str *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == s->len && memcmp(names[i], s->s,
		    s->len) == 0)
			return 1;
	return 0;
}

Test(counters, this_page_names_every_counter)
{
	static char doc[DOC_MAX][SP_COUNTER_NAME_MAX + 1];
	const struct sp_counter *c;
	struct sp_recorder_opts o = { 0 };
	struct sp_recorder *r;
	struct sp_writer *w;
	struct sp_header h;
	struct sp_diag diag = { 0 };
	size_t nc, nd, i, j;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), err, bad = 0;

	nd = doc_names(doc, DOC_MAX);
	cr_assert_geq(fd, 0);
	cr_assert_eq(sp_header_init_host(&h), 0);
	cr_assert_eq(sp_writer_new(fd, &h, &w), 0);
	err = sp_recorder_new(w, &o, &r, &diag);
	if (err < 0 && sp_error_kind(err) == SP_KIND_PERMISSION) {
		sp_writer_free(w);
		close(fd);
		cr_skip_test("perf events refused here: %s", diag.msg);
	}
	cr_assert_eq(err, 0, "%s", diag.msg);
	nc = sp_recorder_counters(r, &c);
	for (i = 0; i < nc; i++)
		if (!in_doc(doc, nd, &c[i].name)) {
			bad = 1;
			cr_expect_fail("counter %s is not in %s: add its row",
			    c[i].name.s, DOC);
		}
	for (i = 0; i < nd; i++) {
		for (j = 0; j < nc && !(strlen(doc[i]) == c[j].name.len &&
		    memcmp(doc[i], c[j].name.s, c[j].name.len) == 0); j++)
			;
		if (j == nc) {
			bad = 1;
			cr_expect_fail("%s names %s, which no recorder gives: "
			    "remove its row", DOC, doc[i]);
		} else if (j != i && !bad) {
			cr_assert_fail("%s: %s is row %zu, counter %zu: keep the "
			    "recorder's order", DOC, doc[i], i, j);
		}
	}
	cr_expect_eq(nd, nc, "%zu rows, %zu counters (a name twice?)", nd, nc);
	sp_recorder_free(r);
	sp_writer_free(w);
	close(fd);
}

/* st agrees with the counters c, kind by kind, by their names. */
static void
check_stats(const struct sp_error_stats *st, const struct sp_counter *c,
    size_t n)
{
	enum sp_sample_error nz[SP_SAMPLE_ERR_KINDS];
	unsigned long long sum = 0, want;
	size_t i, nnz = 0;
	int k;

	for (k = 0; k < SP_SAMPLE_ERR_KINDS; k++) {
		const char *name = sp_sample_error_name(k);

		cr_assert_not_null(name);
		for (want = 0, i = 0; i < n; i++)
			if (strlen(name) == c[i].name.len &&
			    memcmp(name, c[i].name.s, c[i].name.len) == 0)
				want += c[i].value;
		cr_assert_eq(sp_error_stats_count(st, k), want, "%s", name);
		sum += want;
		if (want > 0)
			nz[nnz++] = k;
	}
	cr_assert_eq(sp_error_stats_total(st), sum);
	{
		enum sp_sample_error got[SP_SAMPLE_ERR_KINDS];

		cr_assert_eq(sp_error_stats_nonzero(st, got,
		    SP_SAMPLE_ERR_KINDS), nnz);
		for (i = 0; i < nnz; i++)
			cr_assert_eq(got[i], nz[i], "non-zero kind %zu", i);
	}
}

Test(counters, error_stats_of_a_recording_cut_by_a_small_stack_copy)
{
	/* 64 bytes of stack hold no whole walk of a shell: every CPU
	 * sample's walk ends early (unwind_stack_bounds, mostly). */
	struct sp_recorder_opts o = { .stack_bytes = 64 };
	struct sp_sample s[4096];
	struct sp_error_stats st, spool;
	struct sp_snapshot *snap;
	const struct sp_counter *c;
	struct live l;
	char path[64];
	size_t n;
	pid_t pid;

	live_start(&l, &o);
	pid = live_launch(&l, spin_argv);
	n = record_samples(&l, s, 4096, 50);
	cr_assert_geq(n, 50, "samples of the spinner (%zu)", n);
	n = sp_recorder_counters(l.r, &c);
	sp_error_stats_from_counters(&st, c, n);
	check_stats(&st, c, n);
	cr_assert_gt(sp_error_stats_total(&st), 0, "walks cut short");
	cr_assert_eq(sp_process_kill(pid), 0);
	cr_assert_eq(sp_process_wait(pid, NULL), 0);

	/* The spool's SUMMARY, as a reader sees it: the final counts. */
	cr_assert_eq(sp_recorder_finish(l.r), 0);
	n = sp_recorder_counters(l.r, &c);
	sp_error_stats_from_counters(&st, c, n);
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", l.fd);
	cr_assert_eq(sp_snapshot_open(path, &snap, NULL), 0);
	n = sp_defs_counters(sp_snapshot_defs(snap), &c);
	sp_error_stats_from_counters(&spool, c, n);
	check_stats(&spool, c, n);
	cr_assert_eq(memcmp(&spool, &st, sizeof(st)), 0,
	    "the spool's counts are the recorder's");
	sp_snapshot_free(snap);
	live_end(&l);

	sp_error_stats_reset(&st);
	cr_assert_eq(sp_error_stats_total(&st), 0);
	cr_assert_eq(sp_error_stats_nonzero(&st, NULL, 0), 0);
}

Test(counters, error_stats_sum_names_and_ignore_the_rest)
{
	struct sp_counter c[] = {
		{ { "unwind_depth", 12 }, 3 },
		{ { "samples", 7 }, 100 },
		{ { "unwind_depth_x", 14 }, 5 },    /* not a kind's name */
		{ { "unwind_bad_fp", 13 }, 2 },
		{ { "unwind_depth", 12 }, 4 },      /* a second SUMMARY's */
		{ { "unwind_fp_end", 13 }, ULLONG_MAX },
	};
	struct sp_error_stats st;
	enum sp_sample_error one;

	sp_error_stats_from_counters(&st, c, 6);
	cr_assert_eq(sp_error_stats_count(&st, SP_SAMPLE_ERR_DEPTH), 7);
	cr_assert_eq(sp_error_stats_count(&st, SP_SAMPLE_ERR_BAD_FP), 2);
	cr_assert_eq(sp_error_stats_count(&st, SP_SAMPLE_ERR_STACK_BOUNDS), 0);
	cr_assert_eq(sp_error_stats_total(&st), ULLONG_MAX, "saturates");
	cr_assert_eq(sp_error_stats_nonzero(&st, &one, 1), 3, "all counted");
	cr_assert_eq(one, SP_SAMPLE_ERR_BAD_FP, "the first in enum order");
	cr_assert_eq(sp_error_stats_count(&st, SP_SAMPLE_ERR_KINDS), 0);
	cr_assert_null(sp_sample_error_name(SP_SAMPLE_ERR_KINDS));
	cr_assert_str_eq(sp_sample_error_name(SP_SAMPLE_ERR_STACK_SWITCH),
	    "unwind_stack_switch");
	sp_error_stats_from_counters(&st, NULL, 0);
	cr_assert_eq(sp_error_stats_total(&st), 0, "set, not added to");
}

/* The room past the kinds is a newer library's: this one's functions
 * neither write nor read it (a program built with fewer kinds has its
 * own data there, as far as this library knows). */
Test(counters, error_stats_touch_no_count_past_the_kinds)
{
	struct sp_counter c = { { "unwind_bad_ra", 13 }, 5 };
	struct sp_error_stats st;
	int k;

	cr_assert_leq(SP_SAMPLE_ERR_KINDS, SP_SAMPLE_ERR_ROOM);
	for (k = 0; k < SP_SAMPLE_ERR_ROOM; k++)
		st.count[k] = 0x5a5a5a5a5a5a5a5aull;
	sp_error_stats_from_counters(&st, &c, 1);
	cr_assert_eq(sp_error_stats_total(&st), 5, "the room is not summed");
	cr_assert_eq(sp_error_stats_nonzero(&st, NULL, 0), 1);
	sp_error_stats_reset(&st);
	cr_assert_eq(sp_error_stats_total(&st), 0);
	for (k = SP_SAMPLE_ERR_KINDS; k < SP_SAMPLE_ERR_ROOM; k++)
		cr_assert_eq(st.count[k], 0x5a5a5a5a5a5a5a5aull, "count[%d] "
		    "past the kinds was written", k);
}
