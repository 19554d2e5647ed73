/* openmp_stencil.c: an OpenMP code whose threads and parallel regions fold.
 *
 * Each timestep runs two parallel regions: a stencil sweep (a parallel for,
 * balanced) and a "relax" region whose work grows with the thread number
 * (imbalanced on purpose). Under libfold.so each thread's execution of each
 * parallel region is a region of its own thread, named after the outlined
 * function (main._omp_fn.0, ...) with GCC, so fold shows per-thread times
 * and the imbalance of the second region.
 *
 *   gcc -O2 -g -fopenmp openmp_stencil.c -o openmp_stencil
 *   OMP_NUM_THREADS=2 foldrun ./openmp_stencil
 *   fold fold.openmp_stencil.*.trace -o report.html
 *
 * Argument: timesteps (default 100).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 18)

static double u[N], v[N];

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 100;
	for (int i = 0; i < N; i++)
		u[i] = i % 7;
	double relax = 0;
	for (int s = 0; s < steps; s++) {
#pragma omp parallel for
		for (int i = 1; i < N - 1; i++)
			v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
#pragma omp parallel reduction(+ : relax)
		{
			int me = omp_get_thread_num();
			double y = 1 + me;
			for (long k = 0; k < 20000L * (me + 1); k++)
				y = 1.0 + 1.0 / y;
			relax += y;
		}
		for (int i = 1; i < N - 1; i++)
			u[i] = v[i];
	}
	printf("%d threads, %d steps, u[N/2] %.6f, relax %.6f\n", omp_get_max_threads(), steps, u[N / 2],
	       relax);
	return 0;
}
