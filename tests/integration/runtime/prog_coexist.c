/* prog_coexist.c: ordinary POSIX behaviour that fold must not change.
 * coexist.sh runs each mode without and with fold and compares the output,
 * so everything printed is what the program observes.
 *
 *   closeall      closes 3..1023, then opens a pipe and a file and uses them
 *                 while sampled (fold's handler must not touch them)
 *   dup2          dup2 / F_DUPFD onto every number of the top of the table,
 *                 close of numbers the program never opened
 *   threads N     N threads each open a file and hold it: EMFILE count
 *   select N      N threads alive, then a listening socket used with select
 *   pthread_exit  main ends with pthread_exit (the process must still end)
 *   single        threads in the process and unshare(CLONE_NEWUSER)
 *   run SECONDS   regions "step" of 10 ms for SECONDS (printing "ready")
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sched.h>
#include <unistd.h>

#include "fold.h"
#include "prog_common.h"

static int closeall(void)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int p[2];
	if (pipe(p))
		return perror("pipe"), 1;
	printf("pipe %d %d\n", p[0], p[1]);
	char path[] = "/tmp/fold-coexist-XXXXXX";
	int f = mkstemp(path);
	if (f < 0)
		return perror("mkstemp"), 1;
	unlink(path);
	printf("file %d\n", f);
	/* Sampled work between every step: a handler that reads or writes
	 * these numbers would change what comes back. */
	for (int i = 0; i < 50; i++) {
		char msg[32], back[32] = "";
		int n = snprintf(msg, sizeof msg, "message %d\n", i);
		if (write(p[1], msg, (size_t)n) != n || write(f, msg, (size_t)n) != n)
			return perror("write"), 1;
		burn_ms(4);
		if (read(p[0], back, (size_t)n) != n || memcmp(msg, back, (size_t)n))
			return printf("pipe returned something else at %d\n", i), 1;
	}
	off_t size = lseek(f, 0, SEEK_END);
	printf("file size %lld\n", (long long)size);
	char buf[4096];
	lseek(f, 0, SEEK_SET);
	ssize_t n = read(f, buf, sizeof buf);
	printf("file read %zd starts \"%.9s\"\n", n, buf);
	return 0;
}

static int dup2_mode(void)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	int top = rl.rlim_cur > 1024 ? 1024 : (int)rl.rlim_cur; /* the test runs under ulimit -n 1024 */
	int p[2];
	if (pipe(p))
		return perror("pipe"), 1;
	int ok = 0, bad = 0;
	/* Numbers the program never opened: close says EBADF. */
	int ebadf = 0;
	for (int fd = top - 200; fd < top; fd++)
		ebadf += close(fd) == -1 && errno == EBADF;
	printf("close of unopened: %d EBADF of 200\n", ebadf);
	ebadf = 0;
	for (int fd = top - 200; fd < top; fd++)
		ebadf += fcntl(fd, F_GETFD) == -1 && errno == EBADF;
	printf("fcntl of unopened: %d EBADF of 200\n", ebadf);
	for (int fd = top - 200; fd < top; fd++) {
		if (dup2(p[1], fd) == fd)
			ok++;
		else
			bad++;
		burn_ms(0.5); /* sampled between the replacements */
	}
	printf("dup2 onto the top 200: %d ok, %d failed\n", ok, bad);
	/* The copies work: write through each, read from the pipe. */
	int good = 0;
	for (int fd = top - 200; fd < top; fd++) {
		char c = 'x', back = 0;
		good += write(fd, &c, 1) == 1 && read(p[0], &back, 1) == 1 && back == 'x';
	}
	printf("copies that reach the pipe: %d\n", good);
	int closed = 0;
	for (int fd = top - 200; fd < top; fd++)
		closed += close(fd) == 0;
	printf("closed %d\n", closed);
	int d = fcntl(p[0], F_DUPFD, top - 100);
	printf("F_DUPFD from %d: %s\n", top - 100, d == top - 100 ? "that number" : "another number");
	close(d);
	d = fcntl(p[0], F_DUPFD_CLOEXEC, top - 50);
	printf("F_DUPFD_CLOEXEC from %d: %s, cloexec %d\n", top - 50,
	       d == top - 50 ? "that number" : "another", (fcntl(d, F_GETFD) & FD_CLOEXEC) != 0);
	close(d);
	close_range(3, ~0u, 0);
	printf("after close_range(3, ~0): fd 3 %s\n", fcntl(3, F_GETFD) == -1 ? "closed" : "open");
	int q[2];
	if (pipe(q))
		return perror("pipe"), 1;
	printf("new pipe %d %d\n", q[0], q[1]);
	burn_ms(100);
	return 0;
}

static pthread_barrier_t barrier;
static _Atomic int emfile;

static void *opener(void *arg)
{
	(void)arg;
	int fd = open("/dev/null", O_RDONLY);
	if (fd < 0 && errno == EMFILE)
		emfile++;
	burn_ms(2);
	pthread_barrier_wait(&barrier);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *idler(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier);
	return NULL;
}

static int threads(int n, int sel)
{
	pthread_t *th = calloc((size_t)n, sizeof *th);
	pthread_barrier_init(&barrier, NULL, (unsigned)n + 1);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	int started = 0;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], &attr, sel ? idler : opener, NULL) == 0)
			started++;
	if (started != n)
		return printf("started %d of %d threads\n", started, n), 1;
	if (sel) {
		pthread_barrier_wait(&barrier); /* all alive */
		int s = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 8))
			return perror("socket"), 1;
		printf("listening socket %d, below FD_SETSIZE: %s\n", s, s < FD_SETSIZE ? "yes" : "no");
		fd_set set;
		FD_ZERO(&set);
		FD_SET(s, &set);
		struct timeval tv = {0, 1000};
		printf("select: %d\n", select(s + 1, &set, NULL, NULL, &tv));
		close(s);
	}
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (!sel)
		printf("%d threads opened a file, %d EMFILE\n", n, (int)emfile);
	free(th);
	return 0;
}

static void *exit_later(void *arg)
{
	(void)arg;
	burn_ms(50);
	printf("last thread done\n");
	fflush(stdout);
	return NULL;
}

static int count_threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "Threads:", 8))
			n = atoi(line + 8);
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "closeall"))
		return closeall();
	if (!strcmp(mode, "dup2"))
		return dup2_mode();
	if (!strcmp(mode, "threads"))
		return threads(n, 0);
	if (!strcmp(mode, "select"))
		return threads(n, 1);
	if (!strcmp(mode, "pthread_exit")) {
		burn_ms(30);
		pthread_t t;
		pthread_create(&t, NULL, exit_later, NULL);
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "single")) {
		burn_ms(30);
		printf("threads: %d\n", count_threads());
		if (unshare(CLONE_NEWUSER))
			printf("unshare(CLONE_NEWUSER): %s\n", strerror(errno));
		else
			printf("unshare(CLONE_NEWUSER): ok\n");
		return 0;
	}
	if (!strcmp(mode, "run")) {
		uint32_t step = fold_region("step");
		printf("ready\n");
		for (int i = 0; i < n * 100; i++) {
			fold_enter(step);
			burn_ms(10);
			fold_exit(step);
			if (i % 10 == 9)
				printf("steps %d\n", i + 1);
		}
		return 0;
	}
	fprintf(stderr, "usage: prog_coexist closeall|dup2|threads N|select N|pthread_exit|single|run S\n");
	return 2;
}
