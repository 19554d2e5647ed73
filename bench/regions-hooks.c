/* regions-hooks.c: cost of the compiler hooks per event.
 *
 * Built with -finstrument-functions. fib() is instrumented, fib_ref() is the
 * same code without hooks; both run in this process, so the difference per
 * call is what the hooks cost, whatever libfold.so does with them (record,
 * throttle, filter) or glibc's empty hooks when it is not preloaded. Thread
 * CPU time, best of several repetitions (the VM is shared).
 *
 * Usage: bench_regions_hooks [N [REPS]]   (run by bench/regions-hooks.sh)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline, no_instrument_function)) static int fib_ref(int n)
{
	return n < 2 ? n : fib_ref(n - 1) + fib_ref(n - 2);
}

__attribute__((no_instrument_function)) static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 27;
	int reps = argc > 2 ? atoi(argv[2]) : 7;
	double best_ref = 1e300, best = 1e300;
	long sink = 0;
	for (int r = 0; r < reps; r++) {
		double t0 = cpu_ns();
		sink += fib_ref(n);
		double t1 = cpu_ns();
		sink += fib(n);
		double t2 = cpu_ns();
		if (t1 - t0 < best_ref)
			best_ref = t1 - t0;
		if (t2 - t1 < best)
			best = t2 - t1;
	}
	/* fib(n) makes 2*fib(n+1)-1 calls. */
	double a = 0, b = 1;
	for (int i = 0; i < n + 1; i++) {
		double c = a + b;
		a = b;
		b = c;
	}
	double calls = 2 * a - 1;
	printf("fib(%d): %.0f calls, %.2f ns/call without hooks, %.2f ns/call with, %.2f ns per event "
	       "(checksum %ld)\n",
	       n, calls, best_ref / calls, best / calls, (best - best_ref) / calls / 2, sink);
	return 0;
}
