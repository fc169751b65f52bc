/* SPDX-License-Identifier: MIT */
/*
 * An embedder's attach calls with a pid that names no process to record
 * (0, a negative pid, pid 1 or the caller itself at exec) or one that
 * cannot be attached (a zombie): each fails with an error of the right
 * kind, and the recorder is left with no live target, so that a
 * `while (sp_recorder_live(r))` loop ends.  Public headers only.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "livetest.h"
#include "sp/common/error.h"
#include "sp/record/recorder.h"

/* The recorder after a failed call: nothing alive, nothing else either. */
static void
nothing_live(struct live *l)
{
	cr_assert_eq(sp_recorder_live(l->r), 0, "no live target after a "
	    "failed attach");
	cr_assert_eq(sp_recorder_other_alive(l->r, 1), 0);
	cr_assert_eq(sp_recorder_other_alive(l->r, 0), 0);
}

/* attach in mode fails with -SP_EUSAGE, an invalid argument, and a
 * message that names the pid as given. */
static void
invalid(struct live *l, pid_t pid, enum sp_attach_mode mode)
{
	struct sp_diag diag = { 0 };
	char want[32];
	int err = sp_recorder_attach_mode(l->r, pid, mode, &diag);

	cr_assert_eq(err, -SP_EUSAGE, "pid %d, mode %d: %d (%s)", (int)pid,
	    (int)mode, err, diag.msg);
	cr_assert_eq(sp_error_kind(err), SP_KIND_INVALID);
	(void)snprintf(want, sizeof(want), "pid %d ", (int)pid);
	cr_assert_not_null(strstr(diag.msg, want), "%s", diag.msg);
	cr_assert_null(strstr(diag.msg, "sp-record"), "the library speaks "
	    "as no tool: %s", diag.msg);
	nothing_live(l);
}

Test(misattach, pid_0_and_negative_pids_are_invalid_arguments)
{
	struct live l;

	live_start(&l, NULL);
	invalid(&l, 0, SP_ATTACH_RUNNING);
	invalid(&l, -5, SP_ATTACH_RUNNING);
	invalid(&l, 0, SP_ATTACH_STOPPED);
	invalid(&l, 0, SP_ATTACH_AT_EXEC);
	invalid(&l, -5, SP_ATTACH_AT_EXEC);
	cr_assert_eq(sp_recorder_finish(l.r), 0);
	live_end(&l);
}

Test(misattach, at_exec_takes_only_a_child_of_the_caller)
{
	struct live l;

	live_start(&l, NULL);
	invalid(&l, 1, SP_ATTACH_AT_EXEC);
	invalid(&l, getpid(), SP_ATTACH_AT_EXEC);
	live_end(&l);
}

Test(misattach, a_zombie_fails_to_attach_and_is_not_left_live)
{
	struct sp_diag diag = { 0 };
	struct live l;
	siginfo_t si;
	pid_t pid;
	int err;

	live_start(&l, NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Exited and not reaped: a zombie, which kill(pid, 0) still finds. */
	cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	err = sp_recorder_attach(l.r, pid, &diag);
	cr_assert_neq(err, 0, "a zombie has no thread to sample");
	cr_assert_null(strstr(diag.msg, "sp-record"), "%s", diag.msg);
	nothing_live(&l);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	live_end(&l);
}
