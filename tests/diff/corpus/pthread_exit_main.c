/* pthread_exit_main: main ends with pthread_exit while three threads keep
 * computing; the last one to finish prints and the process exits 0 then
 * (fold must neither keep it alive nor end it early).
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: expect-stdout=^last thread done$
 * diff: trace-check=--threads 4
 * diff: timeout=20
 */
#include <pthread.h>
#include <stdio.h>
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int left = 3;

static void *worker(void *arg)
{
	burn_ms(100 + 50 * (long)arg);
	pthread_mutex_lock(&m);
	if (--left == 0) {
		printf("last thread done\n");
		fflush(stdout);
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	for (long i = 0; i < 3; i++)
		pthread_create(&t, NULL, worker, (void *)i);
	pthread_exit(NULL);
}
