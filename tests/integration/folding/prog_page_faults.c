/* prog_page_faults.c: a region whose first phase touches 512 fresh pages
 * (512 page faults, a real kernel counter) and whose second phase computes
 * without faulting. The program times both phases itself and prints the
 * truth fold must find: "truth switch=S faults=F fault_rate=R" where S is
 * the median share of an instance spent faulting, F the page faults per
 * instance and R the median over instances of F / that instance's first
 * phase (faults per second). Medians, because fold folds the typical
 * instances and leaves out the ones the machine preempted.
 *
 * The truth measures exactly what fold measures: the first timestamp is
 * taken right after fold_enter, the last right before fold_exit, and nothing
 * of the region runs outside them (the pages are unmapped after fold_exit;
 * unmapping 512 pages is slow on some VMs and is no part of either phase).
 *
 * Usage: prog_page_faults [instances (default 300)]
 */
#define _GNU_SOURCE
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGES 512

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double sink;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t step = fold_region("step");
	if (n < 1)
		n = 1;
	double *ta = malloc((size_t)n * sizeof *ta), *share = malloc((size_t)n * sizeof *share);
	if (!ta || !share)
		return 1;
	for (long i = 0; i < n; i++) {
		fold_enter(step);
		double t0 = now_s();
		char *p = mmap(NULL, (size_t)(PAGES * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (long k = 0; k < PAGES; k++)
			p[k * page] = 1; /* one fault per page */
		double t1 = now_s();
		/* computing for about as long as the faults took */
		double x = 1.0;
		while (now_s() - t1 < (t1 - t0)) {
			for (int k = 0; k < 2000; k++) {
				x = x * 0.9999999 + 1e-7;
				__asm__ volatile("" : "+x"(x));
			}
		}
		sink = x;
		double t2 = now_s();
		fold_exit(step);
		munmap(p, (size_t)(PAGES * page));
		ta[i] = PAGES / (t1 - t0); /* this instance's fault rate */
		share[i] = (t1 - t0) / (t2 - t0);
	}
	printf("truth switch=%.4f faults=%d fault_rate=%.6g\n", median(share, n), PAGES, median(ta, n));
	free(ta);
	free(share);
	return 0;
}
