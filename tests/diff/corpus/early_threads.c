/* early_threads: a constructor of the program starts three threads before
 * main (some runtimes and libraries do); they compute until main joins them:
 * they are measured and the program's results are its own.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: trace-check=--min-threads 4
 */
#include <pthread.h>
#include <stdio.h>
#include "common.h"

static pthread_t t[3];
static uint64_t result[3];

static void *worker(void *arg)
{
	long i = (long)arg;
	burn_ms(150);
	result[i] = work_n(1000 + (uint64_t)i) != 0;
	return NULL;
}

__attribute__((constructor)) static void start_early(void)
{
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("early threads: %llu %llu %llu\n", (unsigned long long)result[0],
	       (unsigned long long)result[1], (unsigned long long)result[2]);
	return 0;
}
