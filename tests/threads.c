/* SPDX-License-Identifier: MIT */
/*
 * docs/api.md's thread rules, run under ThreadSanitizer (build/tsan/threads,
 * libsp built with -fsanitize=thread; tests/cli/all/threads.sh):
 *
 *   1. a recorder in the main thread writes SPOOL while another thread
 *      follows the file with a tail and resolves each sample with a
 *      symbolizer of its own, updated from the tail's events;
 *   2. then one snapshot of SPOOL is read by four threads at once: two
 *      walk its stacks and name frames with sp_format_frame, two resolve
 *      every sample with a symbolizer each over the snapshot's
 *      definitions.
 *
 * With --share-symbolizer, step 2's two resolving threads share one
 * symbolizer without a lock, which the rules forbid: ThreadSanitizer
 * must see that race (the test's proof that it is watching).
 *
 * usage: threads [--share-symbolizer] SPOOL CMD [ARG...]
 * prints "tail S samples F frames" and "reader I K" lines (K: frames
 * named); exit 0, 1 on an error of libsp's (ThreadSanitizer's own exit
 * status, 66, when it reported).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sp/common/error.h>
#include <sp/common/opts.h>
#include <sp/common/process.h>
#include <sp/record/recorder.h>
#include <sp/spool/format.h>
#include <sp/spool/snapshot.h>
#include <sp/spool/tail.h>
#include <sp/spool/writer.h>
#include <sp/sym/symbolizer.h>

#define READERS 4

static const char *spool;
static struct sp_snapshot *snap;
static struct sp_symbolizer *shared; /* --share-symbolizer's */
static int give_up;                  /* the recording failed: no END */

/* Step 1's thread: follows spool until its END, resolving as it goes. */
static void *
follow(void *unused)
{
	struct sp_tail *t = NULL;
	struct sp_symbolizer *sym = NULL;
	struct sp_invalidation inv;
	struct sp_resolved_stack rs;
	struct sp_sample b[256];
	unsigned long long samples = 0, frames = 0;
	size_t n, i;
	int rc, err = 0;

	(void)unused;
	if ((rc = sp_tail_open(spool, &t)) != 0) {
		fprintf(stderr, "threads: %s: %s\n", spool, strerror(-rc));
		return (void *)1;
	}
	for (;;) {
		if ((rc = sp_tail_poll(t, b, 256, &n)) < 0) {
			fprintf(stderr, "threads: tail: %s\n",
			    sp_tail_diag(t)->msg);
			break;
		}
		if (sym == NULL && sp_tail_header(t) != NULL &&
		    (err = sp_symbolizer_new(sp_tail_defs(t), sp_tail_header(t),
		    NULL, NULL, &sym)) != 0)
			break;
		if (sym != NULL && (err = sp_symbolizer_update(sym,
		    sp_tail_events(t), &inv)) != 0)
			break;
		for (i = 0; i < n; i++) {
			samples++;
			if (sym != NULL && sp_symbolizer_resolve(sym,
			    b[i].stack, &rs) == 0)
				frames += rs.n;
		}
		if (rc == 1)
			break;
		if (n == 0 && __atomic_load_n(&give_up, __ATOMIC_ACQUIRE))
			break;
		if (n == 0)
			(void)usleep(10000);
	}
	if (err != 0)
		fprintf(stderr, "threads: symbolizer: %s\n", sp_strerror(err));
	printf("tail %llu samples %llu frames\n", samples, frames);
	sp_symbolizer_free(sym);
	sp_tail_free(t);
	return (void *)(long)(rc < 0 || err != 0);
}

/* Step 2's thread i: odd ones resolve, even ones format. */
static void *
read_snapshot(void *arg)
{
	long i = (long)arg;
	const struct sp_defs *d = sp_snapshot_defs(snap);
	const struct sp_sample *s = sp_snapshot_samples(snap);
	size_t n = sp_snapshot_nsamples(snap), k, f, depth;
	struct sp_symbolizer *sym = shared;
	struct sp_resolved_stack rs;
	unsigned long long named = 0;
	uint32_t frames[512];
	char name[256];

	if (i % 2 == 1 && sym == NULL && sp_symbolizer_new(d,
	    sp_snapshot_header(snap), NULL, NULL, &sym) != 0)
		return (void *)1;
	for (k = 0; k < n; k++) {
		if (i % 2 == 1) {
			if (sp_symbolizer_resolve(sym, s[k].stack, &rs) == 0)
				named += rs.n;
			continue;
		}
		if (sp_defs_stack(d, s[k].stack, frames, 512, &depth) != 0)
			return (void *)1;
		for (f = 0; f < depth && f < 512; f++)
			named += sp_format_frame(d, frames[f], name,
			    sizeof(name)) > 0;
	}
	printf("reader %ld %llu\n", i, named);
	if (sym != shared)
		sp_symbolizer_free(sym);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct sp_recorder_opts o = SP_OPTS_INIT(sp_recorder_opts,
	    .frequency = 999);
	struct sp_diag diag = { 0 };
	struct sp_recorder *r = NULL;
	struct sp_writer *w = NULL;
	struct sp_header h;
	pthread_t tail, th[READERS];
	void *ret = NULL;
	pid_t child;
	int share = 0, started = 0, fd, ended = 0, err, failed = 0;
	long i;

	if (argc > 1 && strcmp(argv[1], "--share-symbolizer") == 0) {
		share = 1;
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: threads [--share-symbolizer] SPOOL "
		    "CMD [ARG...]\n");
		return 2;
	}
	spool = argv[1];
	fd = open(spool, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "threads: %s: %s\n", spool, strerror(errno));
		return 1;
	}
	err = sp_header_init_host(&h);
	if (err == 0)
		err = sp_writer_new(fd, &h, &w);
	if (err == 0)
		err = sp_recorder_new(w, &o, &r, &diag);
	/* The header goes out with the first flush: the tail waits. */
	if (err == 0 && (err = -pthread_create(&tail, NULL, follow, NULL)) == 0)
		started = 1;
	if (err == 0)
		err = sp_recorder_spawn(r, argv + 2, &child, &diag);
	while (err == 0 && (ended = sp_process_try_wait(child, NULL)) == 0)
		if ((err = sp_recorder_poll(r, 50)) == 0)
			err = sp_recorder_flush(r);
	if (err == 0 && ended < 0)
		err = ended;
	/* The END record too, which the tail waits for. */
	if (err == 0)
		err = sp_recorder_finish(r);
	/* Without an END the tail would wait for ever. */
	__atomic_store_n(&give_up, err != 0, __ATOMIC_RELEASE);
	if (started)
		(void)pthread_join(tail, &ret);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
	if (err != 0) {
		fprintf(stderr, "threads: recording %s: %s\n", argv[2],
		    diag.msg[0] != '\0' ? diag.msg : sp_strerror(err));
		return 1;
	}
	if (ret != NULL)
		return 1;
	if (sp_snapshot_open(spool, &snap, &diag) != 0) {
		fprintf(stderr, "threads: %s\n", diag.msg);
		return 1;
	}
	if (share && sp_symbolizer_new(sp_snapshot_defs(snap),
	    sp_snapshot_header(snap), NULL, NULL, &shared) != 0)
		return 1;
	for (i = 0; i < READERS; i++)
		if (pthread_create(&th[i], NULL, read_snapshot, (void *)i) != 0)
			return 1;
	for (i = 0; i < READERS; i++) {
		(void)pthread_join(th[i], &ret);
		failed |= ret != NULL;
	}
	sp_symbolizer_free(shared);
	sp_snapshot_free(snap);
	return failed;
}
