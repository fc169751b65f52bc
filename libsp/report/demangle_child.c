/* SPDX-License-Identifier: MIT */
/*
 * c++filt as a child process: started once, fed batches of names through
 * one socket (its standard input and output), a line each way per name.
 * Writes and reads are interleaved by poll(2), so neither side waits on
 * a full buffer the other is not emptying; a socket, not pipes, so that
 * a child gone early is an EPIPE (send's MSG_NOSIGNAL), never a SIGPIPE
 * that would kill the tool.
 */
#include <errno.h>
#include <poll.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demangle_int.h"

extern char **environ;

/* Starts dm->prog with our socket as its standard input and output. */
static int
start(struct sp_demangle *dm, struct sp_diag *diag)
{
	char *argv[] = { dm->prog, NULL };
	posix_spawn_file_actions_t fa;
	int sv[2], err;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return sp_diag_set(diag, 0, -errno, "%s: socketpair: %s",
		    dm->prog, strerror(errno));
	err = posix_spawn_file_actions_init(&fa);
	/* dup2 clears FD_CLOEXEC on the copies the child keeps. */
	if (err == 0 && (err = posix_spawn_file_actions_adddup2(&fa, sv[1],
	    STDIN_FILENO)) == 0)
		err = posix_spawn_file_actions_adddup2(&fa, sv[1],
		    STDOUT_FILENO);
	if (err == 0)
		err = posix_spawnp(&pid, dm->prog, &fa, NULL, argv, environ);
	(void)posix_spawn_file_actions_destroy(&fa);
	(void)close(sv[1]);
	if (err != 0) {
		(void)close(sv[0]);
		if (err == ENOENT && strcmp(dm->prog, "c++filt") == 0)
			return sp_diag_set(diag, 0, -ENOENT, "c++filt not found "
			    "(install binutils)");
		return sp_diag_set(diag, 0, -err, "%s: %s", dm->prog,
		    strerror(err));
	}
	dm->pid = pid;
	dm->fd = sv[0];
	return 0;
}

void
spi_demangle_stop(struct sp_demangle *dm)
{
	int status;

	if (dm->fd >= 0)
		(void)close(dm->fd);
	dm->fd = -1;
	/* Its input closed, c++filt reads its end and exits. */
	while (dm->pid > 0 && waitpid(dm->pid, &status, 0) < 0 &&
	    errno == EINTR)
		;
	dm->pid = 0;
}

/* The batch: each queued name and a newline, into dm->out. */
static int
batch_text(struct sp_demangle *dm)
{
	const struct sp_intern_entry *ie;
	size_t i;

	dm->out.len = 0;
	for (i = 0; i < dm->nq; i++) {
		ie = &dm->names.entries[dm->queue[i] - 1];
		spi_buf_put(&dm->out, spi_buf_at(&dm->names.keys, ie->off), ie->len);
		spi_buf_u8(&dm->out, '\n');
		dm->sent += ie->len;
	}
	return dm->out.err;
}

/* Takes the bytes read, p[0..n): each newline ends the answer to the
 * next queued name. */
static int
take(struct sp_demangle *dm, const char *p, size_t n)
{
	struct dm_answer *a;
	const char *nl;
	size_t part;

	while (n > 0) {
		if (dm->nans == dm->nq)
			return -SP_EFORMAT; /* more lines than names */
		a = &dm->ansv[dm->nans];
		nl = memchr(p, '\n', n);
		part = nl != NULL ? (size_t)(nl - p) : n;
		if (dm->ans.len - a->off + part > SP_DEMANGLE_NAME_MAX)
			dm->overlong = 1;
		else
			spi_buf_put(&dm->ans, p, part);
		if (dm->ans.err)
			return dm->ans.err;
		if (nl == NULL)
			return 0;
		a->len = dm->overlong ? SIZE_MAX : dm->ans.len - a->off;
		dm->overlong = 0;
		if (++dm->nans < dm->nq)
			dm->ansv[dm->nans].off = dm->ans.len;
		p += part + 1;
		n -= part + 1;
	}
	return 0;
}

/*
 * Sends dm->out and reads an answer per queued name; after the last
 * batch, on to the end of the child's output, which must hold nothing
 * more.
 */
static int
exchange(struct sp_demangle *dm, int last, struct sp_diag *diag)
{
	size_t sent = 0;
	struct pollfd pfd;
	char buf[16384];
	ssize_t r;
	int err;

	pfd.fd = dm->fd;
	while (dm->nans < dm->nq || last) {
		pfd.events = POLLIN | (sent < dm->out.len ? POLLOUT : 0);
		pfd.revents = 0;
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return sp_diag_set(diag, 0, -errno, "%s: poll: %s",
			    dm->prog, strerror(errno));
		}
		if ((pfd.revents & POLLOUT) && sent < dm->out.len) {
			r = send(dm->fd, spi_buf_at(&dm->out, sent), dm->out.len - sent,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			/* Gone: what it said before is still to be read. */
			if (r < 0 && (errno == EPIPE || errno == ECONNRESET))
				r = (ssize_t)(dm->out.len - sent);
			else if (r < 0 && errno != EAGAIN && errno != EINTR)
				return sp_diag_set(diag, 0, -errno, "%s: %s",
				    dm->prog, strerror(errno));
			sent += r > 0 ? (size_t)r : 0;
			if (last && sent == dm->out.len)
				(void)shutdown(dm->fd, SHUT_WR);
		}
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = recv(dm->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		/* Linux: the child exited leaving names unread. */
		if (r < 0 && errno == ECONNRESET)
			r = 0;
		if (r < 0)
			return sp_diag_set(diag, 0, -errno, "%s: %s", dm->prog,
			    strerror(errno));
		if (r == 0 && dm->nans == dm->nq)
			break;
		if (r == 0)
			return sp_diag_set(diag, 0, -SP_EFORMAT, "%s stopped "
			    "after %zu of %zu names", dm->prog, dm->nans, dm->nq);
		if ((err = take(dm, buf, (size_t)r)) == -SP_EFORMAT)
			return sp_diag_set(diag, 0, err, "%s answered more "
			    "lines than it was given names", dm->prog);
		if (err)
			return sp_diag_set(diag, 0, err, "%s", sp_strerror(err));
	}
	return 0;
}

int
spi_demangle_exchange(struct sp_demangle *dm, int last,
    struct sp_diag *diag)
{
	int err = 0;

	if (dm->pid == 0)
		err = start(dm, diag);
	dm->ans.len = 0;
	dm->nans = 0;
	dm->overlong = 0;
	if (err == 0 && (spi_grow_zeroed(&dm->ansv, &dm->capans, dm->nq,
	    sizeof(*dm->ansv)) != 0 || batch_text(dm) != 0))
		err = sp_diag_set(diag, 0, -ENOMEM, "%s", sp_strerror(-ENOMEM));
	if (err == 0) {
		dm->ansv[0].off = 0;
		err = exchange(dm, last, diag);
	}
	return err;
}
