/* runtime-idle.c: what a program's idle or waiting threads cost under
 * libfold.so (bench/runtime-idle.sh drives it).
 *
 *   bench_runtime_idle idle N SECS      N threads blocked in a condition
 *                                       wait for SECS; prints the process's
 *                                       CPU time
 *   bench_runtime_idle barrier N ROUNDS N threads meet ROUNDS times at one
 *                                       barrier; prints wall time and max RSS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go;
static pthread_barrier_t barrier;
static int rounds;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *idler(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *meeter(void *arg)
{
	volatile double x = (double)(size_t)arg;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 2000; i++)
			x = x * 0.9999999 + 1e-7;
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_runtime_idle idle N SECS | barrier N ROUNDS\n");
		return 2;
	}
	int n = atoi(argv[2]);
	pthread_t *th = calloc((size_t)n, sizeof *th);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	double t0 = now_s();
	if (!strcmp(argv[1], "idle")) {
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], &attr, idler, NULL);
		struct rusage r0, r1;
		getrusage(RUSAGE_SELF, &r0);
		struct timespec ts = {atoi(argv[3]), 0};
		nanosleep(&ts, NULL);
		getrusage(RUSAGE_SELF, &r1);
		pthread_mutex_lock(&lock);
		go = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec -
		                      r0.ru_stime.tv_sec) +
		             (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
		                      r0.ru_stime.tv_usec) /
		                 1e6;
		printf("idle: %d threads, %s s: %.1f ms CPU while idle (%.2f%% of one core)\n", n, argv[3],
		       cpu * 1e3, 100.0 * cpu / atof(argv[3]));
	} else if (!strcmp(argv[1], "barrier")) {
		rounds = atoi(argv[3]);
		pthread_barrier_init(&barrier, NULL, (unsigned)n);
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], &attr, meeter, (void *)(size_t)i);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		struct rusage r;
		getrusage(RUSAGE_SELF, &r);
		printf("barrier: %d threads, %d rounds: %.3f s wall, %ld MiB max RSS\n", n, rounds,
		       now_s() - t0, r.ru_maxrss / 1024);
	} else {
		return 2;
	}
	free(th);
	return 0;
}
