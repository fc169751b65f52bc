/* SPDX-License-Identifier: MIT */
#ifndef SP_PROCESS_H
#define SP_PROCESS_H

/*
 * Processes to record: a command started suspended before its execve (so
 * that events opened on it see its whole run, sp_recorder_attach_exec),
 * the descendants of a process, whether one exists, and a watcher that
 * says when one exits (a pidfd: no polling of /proc, no race with a pid
 * reused).
 */

#include <stddef.h>
#include <sys/types.h>

#include "sp/common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A command started by sp_process_launch and not released yet. */
struct sp_launch {
	pid_t pid;
	int go_fd;      /* closing it lets the child exec */
	int err_fd;     /* the child writes its execvp errno here */
};

/*
 * Forks a child that waits before execvp(argv[0], argv) (searched in
 * PATH) until sp_process_release.  Returns 0 with *l filled, or -errno
 * with diag saying which call failed.  The caller reaps the child.
 */
int sp_process_launch(char *const argv[], struct sp_launch *l,
    struct sp_diag *diag);

/*
 * Lets a launched child exec and waits until it has (or could not).
 * Returns 0, or -errno of a failed exec (the child is reaped then, diag
 * says "cannot run ARGV0: ..."; argv0 may be NULL).  Closes l's fds.
 */
int sp_process_release(struct sp_launch *l, const char *argv0,
    struct sp_diag *diag);

/* Kills a launched child that was not released, reaps it, closes l's fds. */
void sp_process_abandon(struct sp_launch *l);

/*
 * Waiting for and signalling a process: the caller's own children for the
 * waits (waitpid(2): a child of another process is -ECHILD).  A pid below
 * 1 is -SP_EUSAGE for all four (kill(2) would take 0 and -1 for a group
 * or every process).  status, which may be NULL, gets waitpid's status
 * (WIFEXITED, WEXITSTATUS, WIFSIGNALED, WTERMSIG of <sys/wait.h>).
 */

/* Waits until child pid ends and reaps it.  0, or -errno (-ECHILD: not
 * the caller's child, or reaped already).  Interrupted waits resume. */
int sp_process_wait(pid_t pid, int *status);

/* Reaps child pid if it has ended, without waiting: 1 (ended, reaped,
 * *status set), 0 (still running), or -errno as sp_process_wait. */
int sp_process_try_wait(pid_t pid, int *status);

/* Sends SIGINT (the process may catch it and end in its own time) or
 * SIGKILL to pid.  0, or -errno: -ESRCH gone (a zombie is still there:
 * 0), -EPERM another user's process. */
int sp_process_interrupt(pid_t pid);
int sp_process_kill(pid_t pid);

/* Most descendants sp_process_descendants lists. */
#define SP_DESCENDANTS_MAX 4096

/*
 * Lists the processes descended from pid (children, their children...),
 * into a new array (*pids, to free), parents before their children: from
 * /proc/PID/task/TID/children, or where the kernel has no such file
 * (CONFIG_PROC_CHILDREN), from the parent pid of every /proc/N/stat.
 * At most SP_DESCENDANTS_MAX.  Returns 0 (none: *n 0) or -ENOMEM.
 */
int sp_process_descendants(pid_t pid, pid_t **pids, size_t *n);

/* 1 when process pid exists (a zombie too), 0 when not. */
int sp_process_exists(pid_t pid);

struct sp_exit_watch;

/*
 * Watches process pid for its exit through a pidfd.  Returns 0, -ESRCH
 * (no such process), -ENOSYS (a kernel before 5.3), -ENOMEM.
 */
int sp_exit_watch_new(pid_t pid, struct sp_exit_watch **out);

/* The descriptor to poll(2) for POLLIN: readable once pid has exited. */
int sp_exit_watch_fd(const struct sp_exit_watch *w);

/*
 * Waits up to timeout_ms (-1: for ever, 0: not at all) for the exit.
 * Returns 1 when pid has exited, 0 when not yet, or -errno.
 */
int sp_exit_watch_wait(struct sp_exit_watch *w, int timeout_ms);

void sp_exit_watch_free(struct sp_exit_watch *w);

#ifdef __cplusplus
}
#endif

#endif
