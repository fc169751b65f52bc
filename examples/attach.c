/* SPDX-License-Identifier: MIT */
/*
 * Records a command with the process helpers by hand, the three steps
 * that sp_recorder_spawn does at once, for a program that wants to set
 * up more between them (its own pipes, a cgroup, other targets): the
 * command is started suspended before its execve, its events opened to
 * start at that exec, then it is let go.  Its exit is watched through a
 * pidfd, a descriptor that fits in the program's own poll(2) loop beside
 * the others (no polling of /proc, no race with its pid being reused).
 *
 * usage: attach OUT CMD [ARG...]
 * prints: "attach: pid N, exit status S, N samples into OUT"
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sp/common/process.h>
#include <sp/record/recorder.h>
#include <sp/spool/writer.h>

/* Starts argv suspended, opens its events, lets it exec: its pid, or -1. */
static pid_t
start(struct sp_recorder *r, char *const argv[], struct sp_diag *diag)
{
	struct sp_launch l;

	if (sp_process_launch(argv, &l, diag) != 0)
		return -1;
	/* Nothing of it runs before this returns: its events begin at the
	 * exec, so the recording sees the command's whole run. */
	if (sp_recorder_attach_mode(r, l.pid, SP_ATTACH_AT_EXEC, diag) != 0) {
		sp_process_abandon(&l);
		return -1;
	}
	/* The exec happens here; a command that cannot run is reaped and
	 * the diagnostic says "cannot run CMD: ...". */
	if (sp_process_release(&l, argv[0], diag) != 0)
		return -1;
	return l.pid;
}

int
main(int argc, char **argv)
{
	struct sp_recorder_opts o = SP_OPTS_INIT(sp_recorder_opts,
	    .frequency = SP_FREQ_DEFAULT);  /* sz set: see record.c */
	struct sp_diag diag = { 0 };
	struct sp_recorder *r = NULL;
	struct sp_writer *w = NULL;
	struct sp_exit_watch *watch = NULL;
	struct sp_header h;
	struct pollfd p;
	pid_t pid;
	int fd, status = 0, err = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: attach OUT CMD [ARG...]\n");
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
	    (pid = start(r, argv + 2, &diag)) < 0) {
		fprintf(stderr, "attach: %s\n", diag.msg[0] ? diag.msg :
		    "out of memory");
		/* A constructor that failed left its object NULL. */
		sp_recorder_free(r);
		sp_writer_free(w);
		(void)close(fd);
		return 1;
	}
	/* Our child, not reaped yet: its pid cannot name another process. */
	if ((err = sp_exit_watch_new(pid, &watch)) != 0) {
		fprintf(stderr, "attach: watching pid %d: %s\n", (int)pid,
		    sp_strerror(err));
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, &status, 0);
		sp_recorder_free(r);
		sp_writer_free(w);
		(void)close(fd);
		return 1;
	}
	/* The program's own loop: the pidfd (and whatever else it waits
	 * for), the recorder drained between. */
	p.fd = sp_exit_watch_fd(watch);
	p.events = POLLIN;
	while (poll(&p, 1, 0) == 0)
		if ((err = sp_recorder_poll(r, 100)) != 0) {
			fprintf(stderr, "attach: writing %s failed (%d)\n",
			    argv[1], err);
			break;
		}
	sp_exit_watch_free(watch);
	if (err != 0)
		(void)kill(pid, SIGKILL);
	else
		err = sp_recorder_finish(r);
	(void)waitpid(pid, &status, 0);
	if (err == 0)
		printf("attach: pid %d, exit status %d, %llu samples into %s\n",
		    (int)pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		    sp_recorder_counter(r, "samples"), argv[1]);
	sp_recorder_free(r);
	sp_writer_free(w);
	if (close(fd) != 0)
		err = -1;
	return err == 0 ? 0 : 1;
}
