/* openmp_reduce: an OpenMP program (gcc -fopenmp): parallel-for reductions,
 * a barrier-heavy loop, single and critical sections on 4 threads; the
 * results are integers, identical on every run.
 *
 * diff: build=-fopenmp
 * diff: env=OMP_NUM_THREADS=4
 * diff: expect-status=exit 0
 * diff: hostile=yes
 * diff: trace-check=--min-threads 4
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	long sum = 0;
	for (int step = 0; step < 50; step++) {
#pragma omp parallel for reduction(+ : sum) schedule(dynamic, 64)
		for (long i = 0; i < 200000; i++)
			sum += (i * step) % 7;
	}
	int counted = 0, singles = 0;
#pragma omp parallel
	{
		for (int k = 0; k < 100; k++) {
#pragma omp barrier
#pragma omp single
			singles++;
#pragma omp critical
			counted++;
		}
	}
	printf("sum %ld, singles %d, critical %d, threads %d\n", sum, singles, counted,
	       omp_get_max_threads());
	return 0;
}
