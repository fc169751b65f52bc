/* SPDX-License-Identifier: MIT */
/*
 * Records a command into a spool, as sp-record -o OUT -- CMD does, with
 * the library: a writer on a file, a recorder on the writer, the command
 * started suspended and let go once its events are open, the rings
 * drained until it exits, then the summary and the END record.
 *
 * usage: record OUT CMD [ARG...]
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sp/record/recorder.h>
#include <sp/spool/writer.h>
#include <sp/tool/version.h>

int
main(int argc, char **argv)
{
	/* 1 kHz, stack size as it goes; the fields not named are 0, their
	 * defaults.  SP_OPTS_INIT sets sz: the struct this program was
	 * built with, which a newer libstackpulse reads as such. */
	struct sp_recorder_opts o = SP_OPTS_INIT(sp_recorder_opts,
	    .frequency = SP_FREQ_DEFAULT);
	struct sp_diag diag = { 0 };
	struct sp_recorder *r = NULL;
	struct sp_writer *w = NULL;
	struct sp_header h;
	const struct sp_counter *c;
	size_t n, i;
	pid_t child;
	int fd, status, err;

	if (argc < 3) {
		fprintf(stderr, "usage: record OUT CMD [ARG...]\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	o.command = argv[2];
	if (sp_header_init_host(&h) != 0 || sp_writer_new(fd, &h, &w) != 0 ||
	    sp_recorder_new(w, &o, &r, &diag) != 0 ||
	    sp_recorder_spawn(r, argv + 2, &child, &diag) != 0) {
		fprintf(stderr, "record: %s\n", diag.msg[0] ? diag.msg :
		    "out of memory");
		/* A constructor that failed left its object NULL. */
		sp_recorder_free(r);
		sp_writer_free(w);
		(void)close(fd);
		return 1;
	}
	/* Drain until the command is gone. */
	while (waitpid(child, &status, WNOHANG) == 0)
		if ((err = sp_recorder_poll(r, 100)) != 0) {
			fprintf(stderr, "record: writing %s failed (%d)\n",
			    argv[1], err);
			(void)kill(child, SIGKILL);
			(void)waitpid(child, &status, 0);
			break;
		}
	err = sp_recorder_finish(r);
	n = sp_recorder_counters(r, &c);
	for (i = 0; i < n; i++)
		if (strcmp(c[i].name.s, "samples") == 0)
			printf("libstackpulse %s: %llu samples into %s\n",
			    sp_version(), (unsigned long long)c[i].value,
			    argv[1]);
	sp_recorder_free(r);
	sp_writer_free(w);
	if (close(fd) != 0)
		err = -1;
	return err == 0 ? 0 : 1;
}
