/* SPDX-License-Identifier: MIT */
/*
 * Lifecycle churn for the recorder's fault and load tests
 * (tests/cli/record/faults.sh, tests/soak.sh).
 *
 *   churn threads N BATCH   N short threads, started BATCH at a time and
 *                           joined before the next batch
 *   churn forks N           N fork/exit cycles, one child at a time
 *   churn live N MS         N threads alive together, each spinning about
 *                           MS ms of CPU in short bursts; prints "live=N"
 *                           once all are running, and waits for a line on
 *                           standard input first if it is not a terminal
 *                           and MS is negative (the spin is then -MS)
 *   churn busy N MS         N threads spinning MS ms of wall time each
 *   churn mixed DIR SECONDS threads, fork/exit and dlopen/dlclose of
 *                           DIR/liba.so and DIR/libb.so for SECONDS
 *   churn zombie SECONDS    a child that exits at once and stays a zombie
 *                           (unreaped) for SECONDS; prints "zombie=PID"
 *   churn spawn RATE SECONDS PROG [ARGS...]
 *                           runs PROG RATE times a second (fork and exec,
 *                           reaped as they end) for SECONDS; prints
 *                           "spawned=N"
 *
 * Each mode ends by printing what it did ("threads=N", "forks=N", ...)
 * and "cpu_ms=" its CPU time and "user_ms=" the user part of it (children's
 * included) on standard error.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static long spin_ms;
static pthread_barrier_t all_up;
static pthread_barrier_t go;

static long
now_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static void
burn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) static void *
short_thread(void *arg)
{
	burn(20000);
	return arg;
}

static int
threads(int n, int batch, int say)
{
	pthread_t *t = calloc((size_t)batch, sizeof(*t));
	int done = 0;

	while (done < n) {
		int k = n - done < batch ? n - done : batch, i;

		for (i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, short_thread, NULL))
				return 1;
		for (i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		done += k;
	}
	if (say)
		printf("threads=%d\n", done);
	free(t);
	return 0;
}

static int
forks(int n, int say)
{
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			/* About 1 ms of CPU, however fast the machine: at
			 * 1 kHz most children are sampled about once. */
			long t0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);

			while (now_ms(CLOCK_PROCESS_CPUTIME_ID) - t0 < 1)
				burn(10000);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	if (say)
		printf("forks=%d\n", i);
	return 0;
}

/* Spins spin_ms of this thread's CPU time in bursts of about 1 ms with a
 * yield between, so that every thread gets the CPU many times. */
__attribute__((noinline)) static void *
live_thread(void *arg)
{
	long t0;

	pthread_barrier_wait(&all_up);
	pthread_barrier_wait(&go);
	t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
	while (now_ms(CLOCK_THREAD_CPUTIME_ID) - t0 < spin_ms) {
		burn(100000);
		sched_yield();
	}
	return arg;
}

static int
live(int n, long ms)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t a;
	int i;

	spin_ms = ms < 0 ? -ms : ms;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	pthread_barrier_init(&all_up, NULL, (unsigned)n + 1);
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, live_thread, NULL))
			return 1;
	pthread_barrier_wait(&all_up);
	printf("live=%d\n", n);
	fflush(stdout);
	if (ms < 0) {	/* the test attaches now, then says go */
		char line[16];

		if (fgets(line, sizeof(line), stdin) == NULL)
			return 1;
	}
	pthread_barrier_wait(&go);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}

__attribute__((noinline)) static void *
busy_thread(void *arg)
{
	long t0 = now_ms(CLOCK_MONOTONIC);

	while (now_ms(CLOCK_MONOTONIC) - t0 < spin_ms)
		burn(10000);
	return arg;
}

static int
busy(int n, long ms)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	int i;

	spin_ms = ms;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, busy_thread, NULL))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("busy=%d\n", n);
	free(t);
	return 0;
}

/* One round of everything: 20 threads, 2 forks, a dlopen of each library. */
static int
mixed_round(const char *dir)
{
	char path[4096];
	int i;

	if (threads(20, 10, 0) || forks(2, 0))
		return 1;
	for (i = 0; i < 2; i++) {
		void *h;
		void (*spin)(long);

		snprintf(path, sizeof(path), "%s/lib%c.so", dir, "ab"[i]);
		if ((h = dlopen(path, RTLD_NOW)) == NULL) {
			fprintf(stderr, "churn: %s\n", dlerror());
			return 1;
		}
		*(void **)&spin = dlsym(h, "lib_spin");
		if (spin != NULL)
			spin(2);
		dlclose(h);
	}
	return 0;
}

static int
mixed(const char *dir, long seconds)
{
	long t0 = now_ms(CLOCK_MONOTONIC), rounds = 0;

	while (now_ms(CLOCK_MONOTONIC) - t0 < seconds * 1000) {
		if (mixed_round(dir))
			return 1;
		rounds++;
		usleep(20000);
	}
	printf("rounds=%ld\n", rounds);
	return 0;
}

static int
zombie(int seconds)
{
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(0);
	printf("zombie=%d\n", (int)pid);
	sleep((unsigned)seconds);
	waitpid(pid, NULL, 0);
	return 0;
}

/* Starts argv[0] rate times a second for seconds, as a service whose
 * requests run a program (CGI, a shell script, a compiler per file). */
static int
spawn(long rate, long seconds, char **argv)
{
	long t0 = now_ms(CLOCK_MONOTONIC), n = 0, t;
	pid_t pid;

	while ((t = now_ms(CLOCK_MONOTONIC) - t0) < seconds * 1000) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (n * 1000 > t * rate) {
			usleep(500);
			continue;
		}
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			execv(argv[0], argv);
			_exit(127);
		}
		n++;
	}
	while (wait(NULL) > 0)
		;
	printf("spawned=%ld\n", n);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rusage self, kids;
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "threads") == 0)
		rc = threads(atoi(argv[2]), atoi(argv[3]), 1);
	else if (argc == 3 && strcmp(argv[1], "forks") == 0)
		rc = forks(atoi(argv[2]), 1);
	else if (argc == 4 && strcmp(argv[1], "live") == 0)
		rc = live(atoi(argv[2]), atol(argv[3]));
	else if (argc == 4 && strcmp(argv[1], "busy") == 0)
		rc = busy(atoi(argv[2]), atol(argv[3]));
	else if (argc == 4 && strcmp(argv[1], "mixed") == 0)
		rc = mixed(argv[2], atol(argv[3]));
	else if (argc == 3 && strcmp(argv[1], "zombie") == 0)
		rc = zombie(atoi(argv[2]));
	else if (argc >= 5 && strcmp(argv[1], "spawn") == 0)
		rc = spawn(atol(argv[2]), atol(argv[3]), argv + 4);
	else
		fprintf(stderr, "usage: churn threads N BATCH | forks N | "
		    "live N MS | busy N MS | mixed DIR SECONDS | "
		    "zombie SECONDS | spawn RATE SECONDS PROG [ARGS...]\n");
	if (rc == 2)
		return rc;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	fprintf(stderr, "cpu_ms=%ld user_ms=%ld\n",
	    (self.ru_utime.tv_sec + self.ru_stime.tv_sec +
	    kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) * 1000 +
	    (self.ru_utime.tv_usec + self.ru_stime.tv_usec +
	    kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1000,
	    (self.ru_utime.tv_sec + kids.ru_utime.tv_sec) * 1000 +
	    (self.ru_utime.tv_usec + kids.ru_utime.tv_usec) / 1000);
	return rc;
}
