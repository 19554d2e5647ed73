/* prog_mpi_regions.c: program regions that contain MPI calls, as in a CG
 * solver (miniFE's timestep, dot, matvec).
 *
 * Each iteration is an API region "timestep"; inside it the instrumented
 * function dot() ends in an MPI_Allreduce, then two loops of different
 * lengths (work 3 units, then 1 unit) each end in the same wrapper allsum(),
 * whose MPI_Allreduce is therefore one call site reached by two call paths.
 * Built with -finstrument-functions and linked to the API stub.
 *
 * Argument: iterations (default 20). Every rank prints nothing.
 */
#include <mpi.h>
#include <stdlib.h>

#include "fold.h"

static volatile double sink;

__attribute__((noinline)) static double work(long units)
{
	double a = 1.0;
	for (long i = 0; i < units * 200000; i++)
		a = a * 0.999999 + 0.5;
	return a;
}

__attribute__((noinline)) static double dot(double x)
{
	double g = 0;
	MPI_Allreduce(&x, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

__attribute__((noinline)) static double allsum(double x)
{
	double g = 0;
	MPI_Allreduce(&x, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int iters = argc > 1 ? atoi(argv[1]) : 20;
	uint32_t step = fold_region("timestep");
	double acc = 0;
	for (int it = 0; it < iters; it++) {
		fold_enter(step);
		acc += dot(acc * 1e-9);
		acc += allsum(work(3)); /* loop A: the burst after it is loop B */
		acc += allsum(work(1)); /* loop B: the burst after it is the step's end */
		fold_exit(step);
	}
	sink = acc;
	MPI_Finalize();
	return 0;
}
