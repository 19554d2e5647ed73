/* prog_ab.c: a region whose first part runs function compute_a and whose
 * second part runs compute_b, sized to take 3 ms and 2 ms (calibrated once
 * at start), counting the app-defined counter "work" at 1 and 4 per µs of
 * nominal work. fold must find the switch at 0.6 of the instance and name
 * compute_a before it and compute_b after. Built twice: plain (samples
 * only) and with -finstrument-functions (exact function regions too), so the
 * sample-based and hook-based profiles can be compared.
 *
 * The phases do not read the clock: on some VMs timer samples skid to the
 * next rdtsc (a VM exit), which would put them all inside clock_gettime.
 * The switch is measured all the same, with three clock reads an instance
 * (right after fold_enter, between the two functions, right before
 * fold_exit, where the region hooks read the clock anyway): the calibration
 * holds only while the machine's speed does, so the program prints
 * "truth switch=S", the median over instances of compute_a's share.
 *
 * Usage: prog_ab [instances (default 400)]
 */
#define _GNU_SOURCE
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint32_t work;
static volatile double sink;
static long iters_per_us;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static inline __attribute__((always_inline)) double kernel(long n, double x)
{
	for (long k = 0; k < n; k++) {
		x = x * 0.9999999 + 1e-7;
		__asm__ volatile("" : "+x"(x)); /* keep every step, in order */
	}
	return x;
}

static void calibrate(void)
{
	struct timespec a, b;
	long n = 1 << 22;
	sink = kernel(n / 8, 1.0); /* warm up */
	clock_gettime(CLOCK_MONOTONIC, &a);
	double x = kernel(n, 1.0);
	__asm__ volatile("" : "+x"(x) :: "memory"); /* the work stays between the clock reads */
	clock_gettime(CLOCK_MONOTONIC, &b);
	sink = x;
	double us = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
	iters_per_us = (long)((double)n / us);
	if (iters_per_us < 1)
		iters_per_us = 1;
}

/* us microseconds of nominal work, counting per_us per microsecond. */
static inline __attribute__((always_inline)) void spin(long us, uint64_t per_us)
{
	double x = 1.0;
	for (long i = 0; i < us; i++) {
		x = kernel(iters_per_us, x);
		fold_count(work, per_us);
	}
	sink = x;
}

/* Global, not static: their symbols must survive for the hooks and names. */
void compute_a(void);
void compute_b(void);
__attribute__((noinline)) void compute_a(void) { spin(3000, 1); }
__attribute__((noinline)) void compute_b(void) { spin(2000, 4); }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400;
	calibrate();
	uint32_t step = fold_region("step");
	work = fold_counter("work");
	if (n < 1)
		n = 1;
	double *share = malloc((size_t)n * sizeof *share);
	if (!share)
		return 1;
	for (long i = 0; i < n; i++) {
		fold_enter(step);
		double t0 = now_s();
		compute_a();
		double t1 = now_s();
		compute_b();
		double t2 = now_s();
		fold_exit(step);
		share[i] = (t1 - t0) / (t2 - t0);
	}
	qsort(share, (size_t)n, sizeof *share, cmp_double);
	printf("truth switch=%.4f instances=%ld\n", share[n / 2], n);
	free(share);
	return 0;
}
