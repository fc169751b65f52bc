/* SPDX-License-Identifier: MIT */
/*
 * A process blocked in a system call, for the tests of attaching: it
 * waits in epoll_wait on an empty epoll for SECONDS, then prints
 * "timeout"; if the call fails (EINTR: a stop and continue interrupts it,
 * as a server would notice), it prints "epoll_wait: " and the error.
 *
 * usage: waiter SECONDS
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct epoll_event ev;
	int ep = epoll_create1(0), n;

	if (ep < 0 || argc != 2) {
		(void)fprintf(stderr, "usage: waiter SECONDS\n");
		return 2;
	}
	n = epoll_wait(ep, &ev, 1, atoi(argv[1]) * 1000);
	if (n < 0) {
		(void)printf("epoll_wait: %s\n", strerror(errno));
		return 1;
	}
	(void)printf("timeout\n");
	return 0;
}
