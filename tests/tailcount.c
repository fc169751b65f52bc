/* SPDX-License-Identifier: MIT */
/*
 * tailcount FILE: follows a spool with the Tail reader until its END
 * record, then prints "samples=N polls_with_samples=M threads=T".  The
 * record test runs it beside a live sp-record.  Gives up after 60 s.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sp/spool/tail.h"

int
main(int argc, char **argv)
{
	struct sp_sample batch[256];
	struct sp_tail *t = NULL;
	unsigned long samples = 0, busy = 0;
	size_t n;
	int st = 0, i;

	if (argc != 2) {
		fprintf(stderr, "usage: tailcount FILE\n");
		return 2;
	}
	for (i = 0; i < 600 && sp_tail_open(argv[1], &t) < 0; i++)
		usleep(100000); /* the recorder has not created it yet */
	if (t == NULL) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < 6000 && st == 0; i++) {
		st = sp_tail_poll(t, batch, 256, &n);
		samples += n;
		busy += n > 0;
		if (st == 0 && n < 256)
			usleep(10000);
	}
	if (st < 0) {
		fprintf(stderr, "tailcount: %s: offset %llu: %s\n", argv[1],
		    sp_tail_diag(t)->offset, sp_tail_diag(t)->msg);
		return 1;
	}
	printf("samples=%lu polls_with_samples=%lu threads=%u finished=%d\n",
	    samples, busy, sp_defs_count(sp_tail_defs(t), SP_REC_THREAD), st);
	sp_tail_free(t);
	return st == 1 ? 0 : 1;
}
