/* SPDX-License-Identifier: MIT */
/* Launching a command suspended, and watching a process exit. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp/common/process.h"

static void
child_exec(int go_fd, int err_fd, char *const argv[])
{
	char c;
	int e;

	/* Wait until the parent has opened the events. */
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	(void)close(go_fd);
	execvp(argv[0], argv);
	e = errno;
	(void)!write(err_fd, &e, sizeof(e));
	_exit(127);
}

int
sp_process_launch(char *const argv[], struct sp_launch *l,
    struct sp_diag *diag)
{
	int go[2], ex[2], err;

	l->pid = -1;
	l->go_fd = l->err_fd = -1;
	if (argv == NULL || argv[0] == NULL)
		return sp_diag_set(diag, 0, -SP_EUSAGE, "no command to run");
	if (pipe2(go, O_CLOEXEC) < 0)
		return sp_diag_set(diag, 0, -errno, "pipe: %s",
		    strerror(errno));
	if (pipe2(ex, O_CLOEXEC) < 0) {
		err = errno;
		(void)close(go[0]);
		(void)close(go[1]);
		return sp_diag_set(diag, 0, -err, "pipe: %s", strerror(err));
	}
	l->pid = fork();
	if (l->pid < 0) {
		err = errno;
		(void)close(go[0]);
		(void)close(go[1]);
		(void)close(ex[0]);
		(void)close(ex[1]);
		return sp_diag_set(diag, 0, -err, "fork: %s", strerror(err));
	}
	if (l->pid == 0) {
		(void)close(go[1]);
		(void)close(ex[0]);
		child_exec(go[0], ex[1], argv);
	}
	(void)close(go[0]);
	(void)close(ex[1]);
	l->go_fd = go[1];
	l->err_fd = ex[0];
	return 0;
}

int
sp_process_release(struct sp_launch *l, const char *argv0,
    struct sp_diag *diag)
{
	ssize_t n;
	int e;

	(void)close(l->go_fd); /* lets the child exec */
	l->go_fd = -1;
	/* The exec closes err_fd (O_CLOEXEC): 0 bytes; a failure, errno. */
	while ((n = read(l->err_fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	(void)close(l->err_fd);
	l->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		(void)waitpid(l->pid, NULL, 0);
		return sp_diag_set(diag, 0, -e, "cannot run %s: %s",
		    argv0 != NULL ? argv0 : "the command", strerror(e));
	}
	return 0;
}

void
sp_process_abandon(struct sp_launch *l)
{
	if (l->pid > 0) {
		(void)kill(l->pid, SIGKILL);
		(void)waitpid(l->pid, NULL, 0);
	}
	if (l->go_fd >= 0)
		(void)close(l->go_fd);
	if (l->err_fd >= 0)
		(void)close(l->err_fd);
	l->pid = -1;
	l->go_fd = l->err_fd = -1;
}

int
sp_process_exists(pid_t pid)
{
	if (pid <= 0)
		return 0;
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* waitpid(2) on one child; 1 when it was reaped, 0 when WNOHANG found
 * it running. */
static int
wait_child(pid_t pid, int *status, int flags)
{
	int st = 0;
	pid_t got;

	if (pid < 1)
		return -SP_EUSAGE;
	while ((got = waitpid(pid, &st, flags)) < 0 && errno == EINTR)
		;
	if (got < 0)
		return -errno;
	if (got == 0)
		return 0;
	if (status != NULL)
		*status = st;
	return 1;
}

int
sp_process_wait(pid_t pid, int *status)
{
	int err = wait_child(pid, status, 0);

	return err < 0 ? err : 0;
}

int
sp_process_try_wait(pid_t pid, int *status)
{
	return wait_child(pid, status, WNOHANG);
}

static int
signal_process(pid_t pid, int sig)
{
	if (pid < 1)
		return -SP_EUSAGE;
	return kill(pid, sig) == 0 ? 0 : -errno;
}

int
sp_process_interrupt(pid_t pid)
{
	return signal_process(pid, SIGINT);
}

int
sp_process_kill(pid_t pid)
{
	return signal_process(pid, SIGKILL);
}

struct sp_exit_watch {
	int fd;
};

int
sp_exit_watch_new(pid_t pid, struct sp_exit_watch **out)
{
	struct sp_exit_watch *w;
	long fd;

	*out = NULL;
	if (pid <= 0)
		return -ESRCH;
#ifdef SYS_pidfd_open
	fd = syscall(SYS_pidfd_open, pid, 0);
#else
	fd = syscall(434, pid, 0);     /* pidfd_open on every architecture */
#endif
	if (fd < 0)
		return -errno;
	w = malloc(sizeof(*w));
	if (w == NULL) {
		(void)close((int)fd);
		return -ENOMEM;
	}
	(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	w->fd = (int)fd;
	*out = w;
	return 0;
}

int
sp_exit_watch_fd(const struct sp_exit_watch *w)
{
	return w->fd;
}

int
sp_exit_watch_wait(struct sp_exit_watch *w, int timeout_ms)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	int n;

	while ((n = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	return n > 0 && (p.revents & (POLLIN | POLLHUP)) ? 1 : 0;
}

void
sp_exit_watch_free(struct sp_exit_watch *w)
{
	if (w == NULL)
		return;
	(void)close(w->fd);
	free(w);
}
