/* prog_idle.c: idle threads cost nothing under fold at the defaults.
 *
 *   prog_idle idle N MS   N threads blocked in a condition wait for MS ms;
 *                         prints the process's CPU time over that window
 *                         ("cpu_ms X" on stderr)
 *   prog_idle region MS   one thread sleeps MS ms inside region "wait",
 *                         then a second sleeps MS ms outside any region:
 *                         the first is sampled (wall time inside regions),
 *                         the second is not woken (CPU time outside)
 *   prog_idle short N     a thread runs N regions of 0.3 ms (busy) with
 *                         0.05 ms between them: regions shorter than the
 *                         sampling period are sampled at its rate
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fold.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go;
static long ms;

static void *idler(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void sleep_ms(long n)
{
	struct timespec ts = {n / 1000, (n % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void *in_region(void *arg)
{
	(void)arg;
	uint32_t r = fold_region("wait");
	fold_enter(r);
	sleep_ms(ms);
	fold_exit(r);
	return NULL;
}

static void *outside(void *arg)
{
	(void)arg;
	sleep_ms(ms);
	return NULL;
}

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static volatile double sink;
static void spin_ms(double d)
{
	double t0 = mono_ms();
	while (mono_ms() - t0 < d)
		sink = sink * 0.999 + 1;
}

static long nshort;
static void *short_regions(void *arg)
{
	(void)arg;
	uint32_t r = fold_region("short");
	for (long i = 0; i < nshort; i++) {
		fold_enter(r);
		spin_ms(0.3);
		fold_exit(r);
		spin_ms(0.05);
	}
	return NULL;
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "idle")) {
		int n = atoi(argv[2]);
		ms = atol(argv[3]);
		pthread_t *th = calloc((size_t)n, sizeof *th);
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, idler, NULL);
		sleep_ms(50); /* every thread has started and blocked */
		double c0 = cpu_ms();
		sleep_ms(ms);
		double c1 = cpu_ms();
		pthread_mutex_lock(&lock);
		go = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		free(th);
		printf("idle: done\n");
		fprintf(stderr, "cpu_ms %.0f\n", c1 - c0);
	} else if (argc > 2 && !strcmp(argv[1], "region")) {
		ms = atol(argv[2]);
		pthread_t a, b;
		pthread_create(&a, NULL, in_region, NULL);
		pthread_join(a, NULL);
		pthread_create(&b, NULL, outside, NULL);
		pthread_join(b, NULL);
		printf("region: done\n");
	} else if (argc > 2 && !strcmp(argv[1], "short")) {
		nshort = atol(argv[2]);
		pthread_t a;
		pthread_create(&a, NULL, short_regions, NULL);
		pthread_join(a, NULL);
		printf("short: done\n");
	} else {
		fprintf(stderr, "usage: prog_idle idle N MS | region MS | short N\n");
		return 2;
	}
	return 0;
}
