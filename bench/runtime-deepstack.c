/* runtime-deepstack.c: a steady 20-frame call stack for runtime benchmarks.
 * Recurses 20 levels (noinline, no tail calls) and spins at the bottom for
 * the given number of seconds, so every sample sees the same stack.
 * Usage: runtime-deepstack [seconds (default 2)] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 2;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double level(int depth, double x)
{
	if (depth > 0) {
		double r = level(depth - 1, x + 1);
		__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
		return r + 1;
	}
	double t0 = now();
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 0.9999999 + 1e-7;
	} while (now() - t0 < seconds);
	return x;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	/* main + 20 levels + libc start frames: about 23 frames per sample. */
	printf("%g\n", level(19, 1));
	return 0;
}
