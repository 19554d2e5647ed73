/* threads.c: worker threads, each running its own repetitive region.
 *
 * Every worker registers nothing itself: region and counter ids are shared by
 * the process (fold_region/fold_counter are idempotent and thread-safe), and
 * fold_count adds to the calling thread's own counter. Each thread becomes
 * its own stream in the trace.
 *
 *   cc threads.c -o threads -pthread $(pkg-config --cflags --libs fold)
 *   foldrun ./threads 4 100
 *
 * Arguments: [threads (default 4)] [iterations per thread (default 100)].
 */
#include <fold.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t region_work, counter_items;
static long iterations = 100;

static void *worker(void *arg)
{
	long id = (long)arg;
	double x = (double)id;
	for (long it = 0; it < iterations; it++) {
		fold_enter(region_work);
		for (int k = 0; k < 200000; k++)
			x = x * 0.9999999 + 1e-3;
		fold_count(counter_items, 1);
		fold_exit(region_work);
	}
	return (void *)(long)(x > 1e300); /* keeps x alive */
}

int main(int argc, char **argv)
{
	long nthreads = argc > 1 ? atol(argv[1]) : 4;
	if (argc > 2)
		iterations = atol(argv[2]);
	if (nthreads <= 0 || nthreads > 1024 || iterations <= 0) {
		fprintf(stderr, "usage: %s [threads 1..1024] [iterations > 0]\n", argv[0]);
		return 2;
	}
	region_work = fold_region("work");
	counter_items = fold_counter("items");
	pthread_t *th = calloc((size_t)nthreads, sizeof *th);
	if (!th)
		return 1;
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (long i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	free(th);
	printf("%ld threads x %ld iterations\n", nthreads, iterations);
	return 0;
}
