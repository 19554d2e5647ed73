/* prog_known_phases.c: a region with two phases of known length and known
 * rates of an app-defined counter, defined by wall time so they stay exact on
 * a loaded machine: each instance of "step" counts "work" at 1 per µs for
 * 3 ms, then at 4 per µs for 2 ms. The phase switch is at 0.6 of the
 * instance; the rates are 1e6/s and 4e6/s.
 *
 * The rates are exact by construction, per microsecond of the program's
 * own, uninterrupted work (phase()). The switch is measured, because each
 * phase ends at the first clock read past its length: the program prints
 * "truth switch=S" with S the median over instances of the first phase's
 * share of the instance, timed right after fold_enter and right before
 * fold_exit, both without the time lost to interruptions, which fold takes
 * out for its own samples.
 *
 * Usage: prog_known_phases [instances (default 400)]
 */
#define _GNU_SOURCE
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A step of the loop (one clock read, tens of ns) that took longer than
 * this was interrupted: a sample of fold's (its delivery and handler, tens
 * of us on a VM) or another job. */
#define GAP_NS 8000

/* Counts `per_us` events per microsecond of its own, uninterrupted work for
 * `ns` nanoseconds of it. Time lost to an interruption counts no events and
 * does not make the phase shorter: the counter measures work, as a real one
 * (instructions) does, and fold takes its samples' time out of the
 * instances (a counter that caught up on the lost time, as this one did,
 * read 2.5% high once fold took the samples' whole stop out). */
static uint64_t phase(uint32_t counter, uint64_t ns, uint64_t per_us, uint64_t *credit_ns)
{
	uint64_t last = now_ns(), worked = 0, lost = 0;
	while (worked < ns) {
		uint64_t t = now_ns(), dt = t - last;
		last = t;
		if (dt > GAP_NS) {
			lost += dt;
			continue;
		}
		worked += dt;
		uint64_t elapsed = dt + *credit_ns, us = elapsed / 1000;
		*credit_ns = elapsed - us * 1000;
		if (us)
			fold_count(counter, us * per_us);
	}
	return lost;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400;
	uint32_t step = fold_region("step");
	uint32_t work = fold_counter("work");
	uint64_t credit = 0;
	if (n < 1)
		n = 1;
	double *share = malloc((size_t)n * sizeof *share);
	if (!share)
		return 1;
	for (long i = 0; i < n; i++) {
		fold_enter(step);
		uint64_t t0 = now_ns();
		uint64_t lost_a = phase(work, 3000000, 1, &credit);
		uint64_t t1 = now_ns();
		uint64_t lost_b = phase(work, 2000000, 4, &credit);
		uint64_t t2 = now_ns();
		fold_exit(step);
		share[i] = (double)(t1 - t0 - lost_a) / (double)(t2 - t0 - lost_a - lost_b);
	}
	qsort(share, (size_t)n, sizeof *share, cmp_double);
	printf("truth switch=%.4f instances=%ld\n", share[n / 2], n);
	free(share);
	return 0;
}
