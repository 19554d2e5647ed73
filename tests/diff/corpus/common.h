/* common.h: small helpers shared by the corpus programs (not a case). */
#ifndef DIFF_COMMON_H
#define DIFF_COMMON_H

#include <stdint.h>
#include <time.h>

static inline double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Burns about ms milliseconds of this thread's CPU time. */
static inline uint64_t burn_ms(double ms)
{
	volatile uint64_t x = 0;
	double end = cpu_s() + ms / 1000.0;
	while (cpu_s() < end)
		for (int i = 0; i < 20000; i++)
			x += (uint64_t)i * 2654435761u;
	return x;
}

/* Spins for about ms milliseconds of wall time. */
static inline uint64_t spin_ms(double ms)
{
	volatile uint64_t x = 0;
	double end = now_s() + ms / 1000.0;
	while (now_s() < end)
		for (int i = 0; i < 2000; i++)
			x += (uint64_t)i * 2654435761u;
	return x;
}

/* A fixed amount of work, with no system call: n iterations. */
static inline uint64_t work_n(uint64_t n)
{
	volatile uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}
#endif
