/* runtime-threads.c: what a new thread costs, create to join.
 *
 *   bench_runtime_threads N [BATCH]
 *
 * Creates N threads that return at once, BATCH at a time (default 1: one
 * after the other), and prints the mean wall time per thread from
 * pthread_create to pthread_join. Under libfold.so the difference to a run
 * without it is the per-thread set-up and tear-down (bench/runtime-threads.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int batch = argc > 2 ? atoi(argv[2]) : 1;
	if (n <= 0 || batch <= 0 || batch > 1024) {
		fprintf(stderr, "usage: bench_runtime_threads N [BATCH<=1024]\n");
		return 2;
	}
	pthread_t th[1024];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int done = 0; done < n; done += batch) {
		int k = n - done < batch ? n - done : batch;
		for (int i = 0; i < k; i++)
			if (pthread_create(&th[i], NULL, nothing, NULL))
				return 1;
		for (int i = 0; i < k; i++)
			pthread_join(th[i], NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3;
	printf("%d threads, %d at a time: %.1f us per thread (create to join)\n", n, batch, us / n);
	return 0;
}
