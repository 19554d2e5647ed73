/* stalls.c: how often, and for how long, the machine stops this program
 * where nothing of the program runs: reads the TSC back to back for a
 * while and counts the gaps between two reads longer than 0.5 us, in log2
 * bins (0.5-1, 1-2, 2-4 ... >64 us). On the test VM these come some
 * 16,000-19,500 times a second, mostly 1-4 us each, 4.5-5.4% of the
 * time, with no interrupt
 * and no steal time the guest can see (docs/validation.md, "Stop 28"); a
 * timer right around a call holds those that fall outside fold's clocks.
 *
 * stalls [SECONDS [OVER_US]] prints one line:
 *   stalls N/s, S% of the time; 0.5-1us:n 1-2us:n ... >64us:n; over OVER_USus: L% of the time,
 *   H% hidden
 * (OVER_US, default 8: the share of the time in stops longer than that;
 * "hidden": those the guest's scheduler does not account, stops of the
 * whole virtual machine, as a share of this program's CPU time: the stops
 * longer than OVER_US less the time this thread was not running by its own
 * CPU clock. A test program that leaves out its steps longer than OVER_US
 * loses those and fold cannot: tests/tools/cpu_share.py --max-stalls.)
 * x86-64 only (elsewhere it prints "stalls unknown").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	double over_ns = argc > 2 ? atof(argv[2]) * 1e3 : 8e3;
	if (!(secs > 0) || secs > 60) {
		fprintf(stderr, "stalls: SECONDS must be in (0, 60], not %s\n", argv[1]);
		return 2;
	}
	/* the TSC's rate against the monotonic clock, over 50 ms */
	double w0 = now_ns(), w1;
	uint64_t r0 = __rdtsc();
	while ((w1 = now_ns()) - w0 < 5e7)
		;
	double per_ns = (double)(__rdtsc() - r0) / (w1 - w0);
	struct timespec c0, c1;
	double m0 = now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	static const char *const bin[] = {"0.5-1", "1-2", "2-4", "4-8", "8-16", "16-32", "32-64", ">64"};
	long n[8] = {0};
	double stalled = 0, stalled_over = 0;
	uint64_t prev = __rdtsc(), end = prev + (uint64_t)(secs * 1e9 * per_ns);
	for (;;) {
		uint64_t t = __rdtsc();
		double ns = (double)(t - prev) / per_ns;
		prev = t;
		if (ns > 500) {
			int b = 0;
			for (double x = ns / 1000; b < 7 && x >= 1; x /= 2)
				b++;
			n[b]++;
			stalled += ns;
			if (ns > over_ns)
				stalled_over += ns;
		}
		if (t > end)
			break;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	double wall = now_ns() - m0;
	double cpu = (double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec);
	double hidden = stalled_over - (wall - cpu);
	if (hidden < 0)
		hidden = 0;
	long all = 0;
	for (int b = 0; b < 8; b++)
		all += n[b];
	printf("stalls %.0f/s, %.2f%% of the time;", (double)all / secs, 100 * stalled / (secs * 1e9));
	for (int b = 0; b < 8; b++)
		printf(" %sus:%ld", bin[b], n[b]);
	printf("; over %.0fus: %.2f%% of the time, %.2f%% hidden\n", over_ns / 1e3,
	       100 * stalled_over / (secs * 1e9), cpu > 0 ? 100 * hidden / cpu : 0.0);
	return 0;
}
#else
int main(void)
{
	printf("stalls unknown\n");
	return 0;
}
#endif
