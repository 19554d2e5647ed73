/* cancel_at_start: 500 threads cancelled as soon as they are created (a
 * pool shutting down while it starts, a timeout hitting a new worker): the
 * cancellation may reach the thread before its start routine runs, inside
 * whatever sets the thread up. Each is joined as cancelled; afterwards the
 * program's descriptor table is what it was.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: expect-stdout=^descriptors leaked: 0$
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "common.h"

static void *worker(void *arg)
{
	for (;;) {
		pthread_testcancel();
		work_n(1000);
	}
	return arg;
}

static int open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 65536; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

int main(void)
{
	int before = open_fds();
	int canceled = 0;
	for (int i = 0; i < 500; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, NULL))
			return 1;
		pthread_cancel(t);
		void *r;
		pthread_join(t, &r);
		canceled += r == PTHREAD_CANCELED;
	}
	burn_ms(20);
	printf("canceled: %d\n", canceled);
	printf("descriptors leaked: %d\n", open_fds() - before);
	return 0;
}
