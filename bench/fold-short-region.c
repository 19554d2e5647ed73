/* fold-short-region.c: a 50 us region at 1 ms sampling (issue 13): a sample
 * costs the program tens of microseconds, as much as the region itself.
 * Each instance of "short" does a fixed amount of work in two phases: A,
 * counting "work" once per iteration for 40% of the iterations' time, then
 * B, a heavier iteration counting once per 4 iterations' worth. The phases
 * are defined by work, not by time, so a sample makes its instance longer
 * (as in a real code).
 *
 * The program times both phases of every instance with its own clock and
 * prints the truth as the medians over instances (an instance that carries
 * a sample is a small minority at this sampling rate, so the medians are
 * the unperturbed values): "truth dur_ns=D switch=S rate_a=RA rate_b=RB".
 *
 * Usage: bench_fold_short_region [instances (default 20000)]; run by
 * bench/fold-short-region.sh, which folds it and compares.
 */
#define _GNU_SOURCE
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static volatile double sink;

/* n iterations of a small floating-point kernel. */
static void spin(long n)
{
	double x = sink;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	if (n < 10)
		n = 10;
	/* iterations per microsecond, measured (best of a few runs) */
	double ipu = 0;
	for (int r = 0; r < 5; r++) {
		uint64_t t0 = now_ns();
		spin(200000);
		double v = 200000.0 / ((double)(now_ns() - t0) / 1e3);
		ipu = v > ipu ? v : ipu;
	}
	long it_a = (long)(20 * ipu), it_b = (long)(30 * ipu); /* ~20 us then ~30 us */
	long chunk = it_a / 50 > 0 ? it_a / 50 : 1;
	uint32_t reg = fold_region("short");
	uint32_t work = fold_counter("work");
	double *da = malloc((size_t)n * sizeof *da), *db = malloc((size_t)n * sizeof *db);
	double *sw = malloc((size_t)n * sizeof *sw);
	if (!da || !db || !sw)
		return 1;
	for (long i = 0; i < n; i++) {
		fold_enter(reg);
		uint64_t t0 = now_ns();
		for (long k = 0; k < it_a; k += chunk) {
			spin(chunk);
			fold_count(work, 4 * (uint64_t)chunk);
		}
		uint64_t t1 = now_ns();
		for (long k = 0; k < it_b; k += chunk) {
			spin(chunk);
			fold_count(work, (uint64_t)chunk);
		}
		uint64_t t2 = now_ns();
		fold_exit(reg);
		da[i] = (double)(t1 - t0);
		db[i] = (double)(t2 - t1);
		sw[i] = da[i] / (da[i] + db[i]);
		spin(it_a / 2); /* ~10 us between instances */
	}
	qsort(da, (size_t)n, sizeof *da, cmp_double);
	qsort(db, (size_t)n, sizeof *db, cmp_double);
	qsort(sw, (size_t)n, sizeof *sw, cmp_double);
	double a = da[n / 2], b = db[n / 2];
	long ca = (it_a + chunk - 1) / chunk * chunk * 4, cb = (it_b + chunk - 1) / chunk * chunk;
	printf("truth dur_ns=%.0f switch=%.4f rate_a=%.6g rate_b=%.6g\n", a + b, sw[n / 2], ca / a * 1e9,
	       cb / b * 1e9);
	free(da);
	free(db);
	free(sw);
	return 0;
}
