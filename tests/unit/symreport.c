/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolizer_report's counts for an embedder's symbolizer (not
 * sp-sym's): a shell spinning, recorded through the kernel, its stacks
 * resolved; the report's frames and by_origin are the distinct frames
 * the stacks held, tallied by the origin each was named by.  Public
 * headers only.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "livetest.h"
#include "sp/spool/spool.h"
#include "sp/sym/symbolizer.h"

#define NORIGIN 5	/* struct sp_sym_report.by_origin's length */

Test(symreport, the_report_counts_the_frames_resolved_by_origin)
{
	static struct sp_sample s[4096];
	struct sp_symbolizer *sym;
	struct sp_resolved_stack st;
	const struct sp_sym_report *rep;
	uint64_t want[NORIGIN] = { 0 }, total = 0;
	uint8_t *seen;
	size_t n, nframes, i, k;
	pid_t a;
	struct live l;

	n = live_spin_symbolized(&l, s, 4096, &a, &sym);
	nframes = sp_defs_count(sp_tail_defs(l.t), SP_REC_FRAME) + 1;
	seen = calloc(nframes, 1);
	cr_assert_not_null(seen);
	for (i = 0; i < n; i++) {
		cr_assert_eq(sp_symbolizer_resolve(sym, s[i].stack, &st), 0);
		for (k = 0; k < st.n; k++) {
			uint32_t f = st.frames[k].frame;

			/* Each machine frame once, whatever its inlined
			 * lines; the marker of a cut stack is no frame. */
			if (f == 0 || f >= nframes || seen[f])
				continue;
			seen[f] = 1;
			cr_assert_lt(st.frames[k].origin, NORIGIN);
			want[st.frames[k].origin]++;
			total++;
		}
	}
	rep = sp_symbolizer_report(sym);
	cr_assert_not_null(rep);
	cr_assert_gt(total, 0);
	cr_assert_eq(rep->frames, total, "frames resolved: %llu, counted %llu",
	    (unsigned long long)total, (unsigned long long)rep->frames);
	for (k = 0; k < NORIGIN; k++)
		cr_assert_eq(rep->by_origin[k], want[k], "origin %zu: %llu frames, "
		    "counted %llu", k, (unsigned long long)want[k],
		    (unsigned long long)rep->by_origin[k]);
	cr_assert_gt(rep->by_origin[SP_ORIGIN_ELF], 0, "the shell's frames "
	    "are named from its ELF file");
	/* Resolved again from the cache: nothing more to count. */
	for (i = 0; i < n; i++)
		cr_assert_eq(sp_symbolizer_resolve(sym, s[i].stack, &st), 0);
	cr_assert_eq(rep->frames, total);
	free(seen);
	sp_symbolizer_free(sym);
	(void)kill(a, SIGKILL);
	(void)waitpid(a, NULL, 0);
	live_end(&l);
}
