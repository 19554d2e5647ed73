/* prog_page_faults.c: a region whose first phase touches 512 fresh pages
 * (512 page faults, a real kernel counter) and whose second phase computes
 * without faulting. The program times both phases itself and prints the
 * truth fold must find: "truth switch=S faults=F fault_rate=R" where S is
 * the median share of an instance spent faulting, F the page faults per
 * instance and R the median over instances of F / that instance's first
 * phase (faults per second); then lost_us, the time an instance lost to
 * interruptions, and instance_us, its length without them (diagnostics).
 * Medians, because fold folds the typical instances and leaves out the
 * ones the machine preempted.
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
/* Interruptions: a step of the program's work that took longer than GAP_S
 * (for a page's fault: or four times its measured median) lost the time
 * over its typical length (that median for a fault, STEP_S for a step of
 * the computation) to something else, fold's samples most often. */
#define GAP_S 8e-6
#define STEP_S 0.3e-6

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
	double *ta = malloc((size_t)n * sizeof *ta), *share = malloc((size_t)n * sizeof *share),
	       *lost = malloc((size_t)n * sizeof *lost), *dur = malloc((size_t)n * sizeof *dur);
	if (!ta || !share || !lost || !dur)
		return 1;
	/* One mapping for the whole run, its pages dropped after every instance:
	 * each instance's faults then cost the same (the page tables stay, and
	 * no huge page folds 512 faults into one), so the faulting phase is
	 * steady and its rate is one number. */
	char *p =
	    mmap(NULL, (size_t)(PAGES * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(p, (size_t)(PAGES * page), MADV_NOHUGEPAGE);
	/* A page's fault takes what the machine makes it take (about 1 us on
	 * bare metal, 10-15 us on some VMs): measured outside any region, its
	 * median is what a fault costs and a step over four times that, or
	 * over GAP_S, was interrupted. */
	double *steps = malloc(PAGES * sizeof *steps);
	if (!steps)
		return 1;
	double last = now_s();
	for (long k = 0; k < PAGES; k++) {
		p[k * page] = 1;
		double t = now_s();
		steps[k] = t - last;
		last = t;
	}
	madvise(p, (size_t)(PAGES * page), MADV_DONTNEED);
	double fault_s = median(steps, PAGES);
	double gap_s = 4 * fault_s > GAP_S ? 4 * fault_s : GAP_S;
	free(steps);
	for (long i = 0; i < n; i++) {
		fold_enter(step);
		double t0 = now_s(), prev = t0, lost_a = 0, lost_b = 0;
		for (long k = 0; k < PAGES; k++) {
			p[k * page] = 1; /* one fault per page */
			double t = now_s();
			if (t - prev > gap_s)
				lost_a += t - prev - fault_s;
			prev = t;
		}
		double t1 = prev;
		/* computing for as long as the faults took, both without the time
		 * the program lost to interruptions */
		double x = 1.0;
		while (prev - t1 - lost_b < (t1 - t0 - lost_a)) {
			for (int k = 0; k < 100; k++) {
				x = x * 0.9999999 + 1e-7;
				__asm__ volatile("" : "+x"(x));
			}
			double t = now_s();
			if (t - prev > GAP_S)
				lost_b += t - prev - STEP_S;
			prev = t;
		}
		sink = x;
		double t2 = prev;
		fold_exit(step);
		madvise(p, (size_t)(PAGES * page), MADV_DONTNEED);
		double a = t1 - t0 - lost_a, all = t2 - t0 - lost_a - lost_b;
		ta[i] = PAGES / a; /* this instance's fault rate */
		share[i] = a / all;
		lost[i] = lost_a + lost_b;
		dur[i] = all;
	}
	printf("truth switch=%.4f faults=%d fault_rate=%.6g lost_us=%.3g instance_us=%.4g fault_us=%.3g\n",
	       median(share, n), PAGES, median(ta, n), 1e6 * median(lost, n), 1e6 * median(dur, n),
	       1e6 * fault_s);
	munmap(p, (size_t)(PAGES * page));
	free(ta);
	free(share);
	free(lost);
	free(dur);
	return 0;
}
