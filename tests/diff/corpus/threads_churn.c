/* threads_churn: 2000 short threads (each a few microseconds to a few
 * milliseconds of work), four alive at a time, while sampled at 1 ms: threads
 * end while their samples are delivered.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: hostile=yes
 * diff: trace-check=--threads 2001
 */
#include <pthread.h>
#include <stdio.h>
#include "common.h"

static void *worker(void *arg)
{
	long i = (long)arg;
	return (void *)(uintptr_t)work_n(i % 7 == 0 ? 200000 : 2000);
}

int main(void)
{
	pthread_t t[4];
	uint64_t sum = 0;
	for (long i = 0; i < 2000; i += 4) {
		for (long j = 0; j < 4; j++)
			pthread_create(&t[j], NULL, worker, (void *)(i + j));
		for (int j = 0; j < 4; j++) {
			void *r;
			pthread_join(t[j], &r);
			sum += (uintptr_t)r != 0;
		}
	}
	printf("%llu threads done\n", (unsigned long long)sum);
	return 0;
}
