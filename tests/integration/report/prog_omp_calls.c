/* prog_omp_calls.c: one OpenMP parallel region per step in which every
 * thread calls first_part() then second_part(), each a dependent chain of
 * divisions of the same length, inside an API region "work" of its own.
 * Folded, both regions' routine timelines must start at the region's own
 * code (first_part, then second_part), on the main thread and the workers
 * alike, not at the threads' roots.
 * Argument: steps (default 60). */
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>

static double __attribute__((noinline)) first_part(double y, long n)
{
	for (long i = 0; i < n; i++)
		y = 1.0 + 1.0 / y;
	return y;
}

static double __attribute__((noinline)) second_part(double y, long n)
{
	for (long i = 0; i < n; i++)
		y = 1.0 + 1.0 / (y + 1e-9);
	return y;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 60;
	double total = 0;
	uint32_t work = fold_region("work");
	for (int s = 0; s < steps; s++) {
		double sum = 0;
#pragma omp parallel reduction(+ : sum)
		{
			fold_enter(work);
			double y = first_part(1.0 + s, 1500000);
			sum += second_part(y, 1500000);
			fold_exit(work);
		}
		total += sum;
	}
	printf("%f\n", total);
	return 0;
}
