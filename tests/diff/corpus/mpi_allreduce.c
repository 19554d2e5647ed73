/* mpi_allreduce: an MPI program on 2 ranks (mpicc, mpirun): allreduce,
 * point-to-point ring and a barrier, each rank computing between them; the
 * output is sorted, one trace per rank.
 *
 * diff: cc=mpicc
 * diff: needs=mpicc,mpirun
 * diff: cmd=mpirun --allow-run-as-root --oversubscribe -np 2 {fold} {exe}
 * diff: normalize=sort
 * diff: probe=no
 * diff: expect-status=exit 0
 * diff: traces=2
 * diff: timeout=60
 * diff: runs=1
 */
#include <mpi.h>
#include <stdio.h>
#include "common.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long total = 0;
	for (int step = 0; step < 20; step++) {
		burn_ms(5);
		long mine = rank * 100 + step, sum = 0;
		MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		total += sum;
		int token = step, got = -1;
		MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT,
		             (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	printf("rank %d of %d: total %ld\n", rank, size, total);
	MPI_Finalize();
	return 0;
}
