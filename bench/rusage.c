/* SPDX-License-Identifier: MIT */
/* bench/record.sh's run helper: see the comment there. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
cpu_s(const struct rusage *ru)
{
	return ru->ru_utime.tv_sec + ru->ru_stime.tv_sec +
	    (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long
vmhwm_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int
main(int argc, char **argv)
{
	int trace = argc > 1 && strcmp(argv[1], "-p") == 0, cmd, st, done = 0;
	struct rusage ru, self;
	long peak = -1;
	double t0, t1;
	FILE *out;
	pid_t pid;

	for (cmd = 2 + trace; cmd < argc && strchr(argv[cmd], '=') != NULL; cmd++)
		;
	if (cmd >= argc)
		return 2;
	t0 = now_s();
	if ((pid = fork()) == 0) {
		for (int i = 2 + trace; i < cmd; i++)
			putenv(argv[i]);
		if (trace)
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[cmd], argv + cmd);
		perror(argv[cmd]);
		_exit(127);
	}
	if (pid < 0)
		return 1;
	if (trace) {
		if (wait4(pid, &st, 0, &ru) < 0)
			return 1;
		done = !WIFSTOPPED(st);
		if (!done) {	/* at the exec */
			ptrace(PTRACE_SETOPTIONS, pid, NULL,
			    (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		}
	}
	while (!done) {
		if (wait4(pid, &st, 0, &ru) < 0)
			return 1;
		if (!WIFSTOPPED(st))
			done = 1;
		else if (st >> 8 == (SIGTRAP | PTRACE_EVENT_EXIT << 8)) {
			peak = vmhwm_kb(pid);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else	/* a signal for CMD: deliver it */
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(st));
	}
	t1 = now_s();
	getrusage(RUSAGE_SELF, &self);
	if ((out = fopen(argv[1 + trace], "w")) == NULL)
		return 1;
	fprintf(out, "%.6f %.6f %.6f ", t1 - t0, cpu_s(&ru), cpu_s(&self));
	if (!trace)
		fprintf(out, "-\n");
	else if (peak >= 0)
		fprintf(out, "%ld\n", peak);
	else
		fprintf(out, "?\n");
	fclose(out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
