/* prog_mpi_imbalance.c: two or more ranks doing the same steps, where rank 1
 * computes 3x more per step than the others (a planted imbalance); every
 * step ends in an MPI_Allreduce, where the other ranks wait for rank 1.
 * Argument: steps (default 40). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double __attribute__((noinline)) work(long n)
{
	double y = 1;
	for (long i = 0; i < n; i++)
		y = 1.0 + 1.0 / y;
	return y;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int steps = argc > 1 ? atoi(argv[1]) : 40;
	double s = 0, g = 0;
	for (int i = 0; i < steps; i++) {
		s += work((rank == 1 ? 3 : 1) * 1000000L + i);
		MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%f\n", g);
	MPI_Finalize();
	return 0;
}
