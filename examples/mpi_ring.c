/* mpi_ring.c: an iterative MPI code folded without any source change.
 *
 * Each iteration computes (a dense phase, then a division-bound phase),
 * reduces a residual over all ranks and exchanges a value with the next rank
 * in a ring. Run under libfold.so, every MPI call is a region and the
 * computation between two calls is a "burst" region ("burst after
 * MPI_Sendrecv" is the compute phase here), which fold folds like any other
 * repetitive region.
 *
 *   mpicc -O2 -g mpi_ring.c -o mpi_ring
 *   mpirun -np 2 foldrun ./mpi_ring
 *   fold fold.mpi_ring.*.trace -o report.html      (all ranks together)
 *
 * Argument: iterations (default 200).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double compute(double x, long n)
{
	double a = x, y = x + 1;
	for (long i = 0; i < n; i++)
		a = a * 0.999999 + 0.5; /* fast: multiply-add chain */
	for (long i = 0; i < n / 4; i++)
		y = 1.0 + 1.0 / y; /* slow: dependent divisions */
	return a + y;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	double x = rank, residual = 0;
	for (int it = 0; it < iters; it++) {
		double local = compute(x, 200000), global;
		MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		double from;
		MPI_Sendrecv(&global, 1, MPI_DOUBLE, (rank + 1) % size, 0, &from, 1, MPI_DOUBLE,
		             (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		x = from * 1e-9;
		residual += global;
	}
	if (rank == 0)
		printf("%d ranks, %d iterations, residual %.6e\n", size, iters, residual);
	MPI_Finalize();
	return 0;
}
