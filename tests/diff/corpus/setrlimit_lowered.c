/* setrlimit_lowered: the program lowers its own RLIMIT_NOFILE to 32 and
 * RLIMIT_CORE to 0, opens files until EMFILE, starts a thread (fold opens a
 * descriptor for each thread it measures) and opens again.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "common.h"

static int fill(int *fds, int max)
{
	int n = 0;
	while (n < max && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	return n;
}

static void *worker(void *arg)
{
	burn_ms(30);
	return arg;
}

int main(void)
{
	struct rlimit rl = {32, 32};
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return perror("setrlimit"), 1;
	struct rlimit core = {0, 0};
	setrlimit(RLIMIT_CORE, &core);
	burn_ms(30);
	int fds[64];
	int n = fill(fds, 64);
	printf("first fill: %d files (%s)\n", n, strerror(errno));
	close(fds[--n]);
	close(fds[--n]);
	pthread_t t;
	int rc = pthread_create(&t, NULL, worker, NULL);
	printf("thread: %s\n", rc ? strerror(rc) : "started");
	if (!rc)
		pthread_join(t, NULL);
	int m = fill(fds + n, 64 - n);
	printf("second fill: %d files\n", m);
	for (int i = 0; i < n + m; i++)
		close(fds[i]);
	return 0;
}
