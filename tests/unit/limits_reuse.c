/* SPDX-License-Identifier: MIT */
/* PID reuse after a lost exit record: the start time tells two processes
 * of one pid apart (libsp/record/rec_reuse.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/recorder_int.h"

/* Field 22 of /proc/PID/stat, counted from the end by awk (52 fields
 * since Linux 5.x), so a comm with spaces cannot shift it. */
static unsigned long long
awk_start_time(pid_t pid)
{
	char cmd[128];
	unsigned long long v = 0;
	FILE *f;

	(void)snprintf(cmd, sizeof(cmd),
	    "awk 'NF >= 52 { print $(NF - 30) }' /proc/%d/stat", (int)pid);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%llu", &v), 1, "awk read no start time");
	pclose(f);
	return v;
}

Test(reuse, start_time_is_field_22_even_after_an_odd_comm)
{
	int fds[2];
	char c;
	pid_t child;
	uint64_t t;

	cr_assert_eq(spi_rec_start_time((uint32_t)getpid(), 0, &t), 0);
	cr_assert_eq(t, awk_start_time(getpid()));
	/* The main thread's, through /proc/PID/task/TID, is the same. */
	cr_assert_eq(spi_rec_start_time((uint32_t)getpid(),
	    (uint32_t)getpid(), &t), 0);
	cr_assert_eq(t, awk_start_time(getpid()));
	cr_assert_eq(pipe(fds), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		/* ')' and spaces in the name: fields are counted from
		 * the last ')'. */
		(void)prctl(PR_SET_NAME, "a) b ) c 1 2 3");
		(void)write(fds[1], "x", 1);
		pause();
		_exit(0);
	}
	cr_assert_eq(read(fds[0], &c, 1), 1);
	cr_assert_eq(spi_rec_start_time((uint32_t)child, 0, &t), 0);
	cr_assert_eq(t, awk_start_time(child));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	cr_assert_eq(spi_rec_start_time((uint32_t)child, 0, &t), -ENOENT,
	    "a reaped process has no stat");
}

Test(reuse, a_new_start_time_drops_the_old_mappings)
{
	struct rec_ctx *r = calloc(1, sizeof(*r));
	struct rec_proc p;
	struct rec_range nr;
	uint64_t now;
	int reused = -1;

	cr_assert_not_null(r);
	memset(&p, 0, sizeof(p));
	p.pid = (uint32_t)getpid();
	cr_assert_eq(spi_rec_start_time(p.pid, 0, &now), 0);
	memset(&nr, 0, sizeof(nr));
	nr.start = 0x1000;
	nr.end = 0x2000;
	nr.module = 7;
	cr_assert_eq(spi_rec_insert_range(r, &p, &nr), 0);
	/* Unknown so far: learnt, nothing dropped. */
	cr_assert_eq(spi_rec_check_reuse(r, &p, &reused), 0);
	cr_assert_eq(reused, 0);
	cr_assert_eq(p.start_time, now);
	cr_assert_eq(p.nmaps, 1);
	/* The same process: kept. */
	cr_assert_eq(spi_rec_check_reuse(r, &p, &reused), 0);
	cr_assert_eq(reused, 0);
	cr_assert_eq(p.nmaps, 1);
	/* Known under another start time: the pid's exit was lost and
	 * this is another process. */
	p.start_time = now + 1;
	cr_assert_eq(spi_rec_check_reuse(r, &p, &reused), 0);
	cr_assert_eq(reused, 1);
	cr_assert_eq(p.nmaps, 0, "the old image's mappings are gone");
	cr_assert_eq(p.start_time, now);
	cr_assert_eq(r->c[C_PID_REUSES], 1);
	cr_assert_null(spi_rec_find_range(&p, 0x1800));
	free(p.maps);
	free(r);
}
