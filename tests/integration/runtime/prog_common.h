/* prog_common.h: helpers shared by the runtime test programs. */
#ifndef PROG_COMMON_H
#define PROG_COMMON_H

#include <time.h>

/* Burns about `ms` milliseconds of CPU in the calling thread. */
__attribute__((noinline)) static double burn_ms(double ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	double x = 1;
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 0.9999999 + 1e-7;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
	return x;
}

#endif
