/* prog_omp_calls.c: one OpenMP parallel region per step in which every
 * thread calls first_part() then second_part(), each a dependent chain of
 * divisions of the same length, inside an API region "work" of its own.
 * Folded, both regions' routine timelines must start at the region's own
 * code (first_part, then second_part), on the main thread and the workers
 * alike, not at the threads' roots.
 * With a second argument "serial", each step is instead an API region
 * "serial" on the main thread: a short first_part() (2% of it), then
 * both_parts(), which calls first_part() and second_part() and holds the
 * rest. Its timeline must start at first_part, then both_parts: a callee
 * that holds most of a region's time is not the region's own code.
 * Arguments: steps (default 60), [serial]. */
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static double __attribute__((noinline)) both_parts(double y, long n)
{
	/* no tail call: both_parts stays on the stack in second_part */
	return second_part(first_part(y, n), n) + 1e-12 * y;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 60;
	double total = 0;
	if (argc > 2 && !strcmp(argv[2], "serial")) {
		uint32_t serial = fold_region("serial");
		for (int s = 0; s < steps; s++) {
			fold_enter(serial);
			double y = first_part(1.0 + s, 60000);
			total += both_parts(y, 1500000);
			fold_exit(serial);
		}
		printf("%f\n", total);
		return 0;
	}
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
