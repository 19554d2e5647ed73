/* exit_side_thread: exit(4) called from one of four threads while the others
 * (and main) keep computing and are sampled (libmonitor's side-exit test):
 * the process ends at once with status 4 and atexit handlers run once.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 4
 * diff: dump-has=thread_end
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

static void bye(void)
{
	printf("atexit handler\n");
}

static void *worker(void *arg)
{
	long i = (long)arg;
	burn_ms(50);
	if (i == 2) {
		printf("thread %ld exits the process\n", i);
		exit(4);
	}
	for (;;)
		work_n(10000);
	return NULL;
}

int main(void)
{
	atexit(bye);
	pthread_t t;
	for (long i = 1; i < 4; i++)
		pthread_create(&t, NULL, worker, (void *)i);
	for (;;)
		work_n(10000);
}
