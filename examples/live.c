/* SPDX-License-Identifier: MIT */
/*
 * Follows a spool while a recorder writes it and prints each sample's
 * stack, symbolized as it arrives: the live half of a profiler UI.  A
 * tail gives the new samples every 100 ms, a symbolizer over the tail's
 * definitions names their frames (ELF, DWARF, perf maps, kallsyms), and
 * what the tail read besides samples (execs, Python runtimes, new
 * modules) goes to sp_symbolizer_update, which says which processes'
 * cached stacks to drop.
 *
 * usage: live SPOOL [SECONDS]   (gives up after SECONDS, default 60)
 * prints: "sample N: root;...;leaf" (folded order), then a last line
 * "N samples, N stacks resolved, N invalidations, finished".
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sp/spool/tail.h>
#include <sp/sym/symbolizer.h>

static void
print_stack(unsigned long long nth, const struct sp_resolved_stack *st)
{
	size_t i;

	printf("sample %llu: ", nth);
	for (i = st->n; i > 0; i--)
		printf("%s%s", st->frames[i - 1].name, i > 1 ? ";" : "");
	printf("%s\n", st->n == 0 ? "(empty stack)" : "");
}

int
main(int argc, char **argv)
{
	struct sp_sample batch[256];
	struct sp_tail *t;
	struct sp_symbolizer *sym = NULL;
	const struct timespec tick = { 0, 100000000 };
	unsigned long long total = 0, resolved = 0, invalidations = 0;
	long polls = (argc > 2 ? atol(argv[2]) : 60) * 10;
	size_t n, i;
	int rc = 0, err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: live SPOOL [SECONDS]\n");
		return 2;
	}
	while ((rc = sp_tail_open(argv[1], &t)) == -ENOENT && polls-- > 0)
		(void)nanosleep(&tick, NULL);
	if (rc != 0) {
		fprintf(stderr, "live: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	while (polls-- > 0 && (rc = sp_tail_poll(t, batch, 256, &n)) >= 0) {
		struct sp_invalidation inv;

		/* The symbolizer needs the header: it comes first. */
		if (sym == NULL && sp_tail_header(t) != NULL &&
		    (err = sp_symbolizer_new(sp_tail_defs(t), sp_tail_header(t),
		    NULL, NULL, &sym)) < 0)
			break;
		if (sym != NULL && (err = sp_symbolizer_update(sym,
		    sp_tail_events(t), &inv)) < 0)
			break;
		if (sym != NULL && (inv.all || inv.npids > 0))
			invalidations++;
		for (i = 0; i < n && err == 0; i++) {
			struct sp_resolved_stack st;

			err = sp_symbolizer_resolve(sym, batch[i].stack, &st);
			if (err == 0) {
				print_stack(total + i + 1, &st);
				resolved++;
			}
		}
		total += n;
		if (err < 0 || rc == 1)
			break;
		if (n < 256)
			(void)nanosleep(&tick, NULL);
	}
	if (err < 0)
		fprintf(stderr, "live: resolving: error %d\n", err);
	else if (rc < 0)
		fprintf(stderr, "live: %s\n", sp_tail_diag(t)->msg);
	else
		printf("%llu samples, %llu stacks resolved, %llu "
		    "invalidations, %s\n", total, resolved, invalidations,
		    rc == 1 ? "finished" : "gave up waiting");
	sp_symbolizer_free(sym);
	sp_tail_free(t);
	return rc < 0 || err < 0 ? 1 : 0;
}
