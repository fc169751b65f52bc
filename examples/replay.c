/* SPDX-License-Identifier: MIT */
/*
 * Streams a spool with a Replay, record by record, in memory bounded by its
 * definitions (not by its samples): the samples of each thread and the
 * processes' lifecycle events as they happened; how many samples there
 * are before reading them, the first one's time on the profile's
 * timeline, and the walks the recorder's unwinder could not finish, by
 * kind (the spool's summary counters).
 *
 * usage: replay SPOOL
 */
#include <stdio.h>

#include <sp/stackpulse.h>	/* the whole API; the other examples include what they use */

/* The unwind errors among the spool's summary counters. */
static void
print_errors(const struct sp_defs *d)
{
	const struct sp_counter *c;
	struct sp_error_stats st;
	enum sp_sample_error kinds[SP_SAMPLE_ERR_KINDS];
	size_t n, i;

	n = sp_defs_counters(d, &c);
	sp_error_stats_from_counters(&st, c, n);
	printf("walks cut short: %llu", sp_error_stats_total(&st));
	n = sp_error_stats_nonzero(&st, kinds, SP_SAMPLE_ERR_KINDS);
	for (i = 0; i < n; i++)
		printf("%s %s %llu", i == 0 ? ":" : ",",
		    sp_sample_error_name(kinds[i]),
		    sp_error_stats_count(&st, kinds[i]));
	printf("\n");
}

int
main(int argc, char **argv)
{
	struct sp_diag diag = { 0 };
	struct sp_replay *r;
	struct sp_record rec;
	unsigned long long samples = 0, forks = 0, exits = 0;
	uint64_t total;
	int64_t us;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: replay SPOOL\n");
		return 2;
	}
	if (sp_replay_open(argv[1], &r, &diag) != 0) {
		fprintf(stderr, "replay: %s\n", diag.msg);
		return 1;
	}
	/* Before the first record: a pass of its own over the file. */
	if (sp_replay_sample_count(r, &total) == 0)
		printf("%llu samples to read\n", (unsigned long long)total);
	while ((err = sp_replay_next(r, &rec)) == 1) {
		const struct sp_thread *t;

		switch (rec.kind) {
		case SP_REC_SAMPLE:
			if (samples++ == 0 &&
			    sp_replay_timestamp_us(r, &rec.u.sample, &us))
				printf("first sample at %lld us (unix time)\n",
				    (long long)us);
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
	print_errors(sp_replay_defs(r));
	sp_replay_free(r);
	return 0;
}
