/* SPDX-License-Identifier: MIT */
/*
 * Follows a spool while a recorder writes it (sp-record -o SPOOL in
 * another process), as a live view would: every 100 ms the samples that
 * came, with each one's leaf frame, until the END record.
 *
 * usage: tail SPOOL [SECONDS]   (gives up after SECONDS, default 60; the
 * file need not exist yet)
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include <sp/spool/format.h>
#include <sp/spool/tail.h>

int
main(int argc, char **argv)
{
	struct sp_sample batch[256];
	struct sp_tail *t;
	const struct timespec tick = { 0, 100000000 };
	unsigned long long total = 0;
	long polls = (argc > 2 ? atol(argv[2]) : 60) * 10;
	size_t n, i;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: tail SPOOL [SECONDS]\n");
		return 2;
	}
	/* The recorder may not have made the file yet. */
	while ((rc = sp_tail_open(argv[1], &t)) == -ENOENT && polls-- > 0)
		(void)nanosleep(&tick, NULL);
	if (rc != 0) {
		fprintf(stderr, "tail: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	while (polls-- > 0 && (rc = sp_tail_poll(t, batch, 256, &n)) >= 0) {
		const struct sp_defs *d = sp_tail_defs(t);

		for (i = 0; i < n; i++) {
			uint32_t leaf[1];
			size_t depth;
			char name[256] = "(empty stack)";

			/* The leaf: the first frame of the stack. */
			if (batch[i].stack != 0 && sp_defs_stack(d,
			    batch[i].stack, leaf, 1, &depth) != -SP_EREF)
				(void)sp_format_frame(d, leaf[0], name,
				    sizeof(name));
			printf("sample %llu: %s\n", total + i + 1, name);
		}
		total += n;
		if (rc == 1)
			break;
		if (n < 256)
			(void)nanosleep(&tick, NULL);
	}
	if (rc < 0)
		fprintf(stderr, "tail: %s\n", sp_tail_diag(t)->msg);
	else
		printf("%llu samples, %s\n", total, rc == 1 ? "finished" :
		    "gave up waiting");
	sp_tail_free(t);
	return rc < 0 ? 1 : 0;
}
