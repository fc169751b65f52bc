/* SPDX-License-Identifier: MIT */
/*
 * Streams a spool with a Replay, record by record, in memory bounded by its
 * definitions (not by its samples): the samples of each thread and the
 * processes' lifecycle events as they happened.
 *
 * usage: replay SPOOL
 */
#include <stdio.h>

#include <sp/stackpulse.h>	/* the whole API; the other examples include what they use */

int
main(int argc, char **argv)
{
	struct sp_diag diag = { 0 };
	struct sp_replay *r;
	struct sp_record rec;
	unsigned long long samples = 0, forks = 0, exits = 0;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: replay SPOOL\n");
		return 2;
	}
	if (sp_replay_open(argv[1], &r, &diag) != 0) {
		fprintf(stderr, "replay: %s\n", diag.msg);
		return 1;
	}
	while ((err = sp_replay_next(r, &rec)) == 1) {
		const struct sp_thread *t;

		switch (rec.kind) {
		case SP_REC_SAMPLE:
			samples++;
			break;
		case SP_REC_PROC:
			forks += rec.u.proc.event == SP_PROC_FORK;
			exits += rec.u.proc.event == SP_PROC_EXIT;
			break;
		case SP_REC_THREAD:
			t = &rec.u.thread;
			printf("thread %u: pid %u tid %u\n", rec.id, t->pid,
			    t->tid);
			break;
		default:
			break;
		}
	}
	if (err < 0) {
		fprintf(stderr, "replay: %s\n", sp_replay_diag(r)->msg);
		sp_replay_free(r);
		return 1;
	}
	printf("%llu samples, %llu forks, %llu exits; %s\n", samples, forks,
	    exits, sp_replay_status(r)->finished ? "finished" :
	    "no END record (cut short)");
	sp_replay_free(r);
	return 0;
}
