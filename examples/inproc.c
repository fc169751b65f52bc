/* SPDX-License-Identifier: MIT */
/*
 * Records a command into a file with no name and reads the samples back
 * in the same process, as docs/api.md says: the recorder's own tail
 * (sp_recorder_tail) needs no path, and sp_tail_discard_consumed gives
 * back the disk blocks of what it has read, so a live view that runs for
 * hours holds on disk only what it has not read yet.
 *
 * usage: inproc DIR CMD [ARG...]   (the file is made in DIR, O_TMPFILE)
 * prints: "N samples read in process, N KiB on disk at the end".
 */
#define _GNU_SOURCE /* O_TMPFILE */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sp/common/opts.h>
#include <sp/common/process.h>
#include <sp/record/recorder.h>
#include <sp/spool/tail.h>
#include <sp/spool/writer.h>

/* Reads what the recorder flushed, then lets the blocks go. */
static int
read_some(struct sp_recorder *r, struct sp_tail *t, unsigned long long *total)
{
	struct sp_sample batch[256];
	size_t n;
	int rc, err = sp_recorder_flush(r);

	while (err == 0 && (rc = sp_tail_poll(t, batch, 256, &n)) >= 0) {
		*total += n;
		if (n < 256 || rc == 1)
			break;
	}
	if (err == 0 && rc < 0) {
		fprintf(stderr, "inproc: %s\n", sp_tail_diag(t)->msg);
		return rc;
	}
	/* Not every file system can: then the file just keeps them. */
	if (err == 0 && (rc = sp_tail_discard_consumed(t)) < 0 &&
	    rc != -EOPNOTSUPP)
		err = rc;
	return err;
}

int
main(int argc, char **argv)
{
	/* SP_OPTS_INIT sets sz: the struct this program was built with,
	 * which a newer libstackpulse reads as such. */
	struct sp_recorder_opts o = SP_OPTS_INIT(sp_recorder_opts,
	    .frequency = SP_FREQ_DEFAULT);
	struct sp_diag diag = { 0 };
	struct sp_recorder *r = NULL;
	struct sp_writer *w = NULL;
	struct sp_tail *t = NULL;
	struct sp_header h;
	struct stat st;
	unsigned long long total = 0;
	pid_t child;
	int fd, ended = 0, err = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: inproc DIR CMD [ARG...]\n");
		return 2;
	}
	fd = open(argv[1], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "inproc: %s: O_TMPFILE: %s\n", argv[1],
		    strerror(errno));
		return 1;
	}
	/* Writer, recorder, then the tail: the recorder sets the header's
	 * interval before the tail's flush writes it. */
	if (sp_header_init_host(&h) != 0 || sp_writer_new(fd, &h, &w) != 0 ||
	    sp_recorder_new(w, &o, &r, &diag) != 0 ||
	    sp_recorder_tail(r, &t, &diag) != 0 ||
	    sp_recorder_spawn(r, argv + 2, &child, &diag) != 0) {
		fprintf(stderr, "inproc: %s\n", diag.msg[0] ? diag.msg :
		    "out of memory");
		sp_tail_free(t);
		sp_recorder_free(r);
		sp_writer_free(w);
		(void)close(fd);
		return 1;
	}
	/* Until the command ends (1: reaped), or an error. */
	while (err == 0 && (ended = sp_process_try_wait(child, NULL)) == 0)
		if ((err = sp_recorder_poll(r, 100)) == 0)
			err = read_some(r, t, &total);
	if (ended < 0)
		err = ended;
	else if (ended == 0) {
		(void)sp_process_kill(child);
		(void)sp_process_wait(child, NULL);
	}
	if (err == 0)
		err = sp_recorder_finish(r);
	if (err == 0)
		err = read_some(r, t, &total);
	if (err == 0 && fstat(fd, &st) == 0)
		printf("%llu samples read in process, %lld KiB on disk at the "
		    "end\n", total, (long long)st.st_blocks / 2);
	else
		fprintf(stderr, "inproc: error %d\n", err);
	sp_tail_free(t);
	sp_recorder_free(r);
	sp_writer_free(w);
	(void)close(fd);
	return err == 0 ? 0 : 1;
}
