/* prog_idle_helper.c: a computing main thread beside a helper thread that
 * only waits in poll(), as an MPI library's progress thread does. Under a
 * wall-time sampler the helper takes as many samples as the main thread;
 * fold must class it idle and keep it out of "where the CPUs worked".
 * With a second argument "bursty", the main thread instead computes about
 * 1 ms (divide_chain) and sleeps 3 ms, each iteration: a sample in the
 * sleep carries the CPU time since the previous sample, which the
 * computation used, not the sleep.
 * Arguments: iterations of the compute loop (default 40), [bursty]. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int done;

static void *progress(void *arg)
{
	(void)arg;
	while (!atomic_load(&done))
		poll(NULL, 0, 2);
	return NULL;
}

static double __attribute__((noinline)) divide_chain(long n)
{
	double y = 1;
	for (long i = 0; i < n; i++)
		y = 1.0 + 1.0 / y;
	return y;
}

static double __attribute__((noinline)) multiply_chain(long n)
{
	double a = 0;
	for (long i = 0; i < n; i++)
		a = a * 0.999 + 1;
	return a;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 40;
	pthread_t t;
	if (pthread_create(&t, NULL, progress, NULL))
		return 1;
	double s = 0;
	int bursty = argc > 2 && !strcmp(argv[2], "bursty");
	for (int i = 0; i < iters; i++) {
		if (bursty) {
			s += divide_chain(250000 + i);
			nanosleep(&(struct timespec){0, 3000000}, NULL);
			continue;
		}
		s += divide_chain(3000000 + i);
		s += multiply_chain(1000000 + i);
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	printf("%f\n", s);
	return 0;
}
