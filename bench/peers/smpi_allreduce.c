/* SPDX-License-Identifier: MIT */
/*
 * The SMPI side of make bench-peers: one MPI_Allreduce of a float vector
 * per rank (the size in bytes is argv[1]) on SimGrid's simulated cluster.
 * Rank 0 prints the simulated time of the collective in microseconds.
 * Compiled with smpicc and run with smpirun (bench/peers/run.sh), which
 * chooses the algorithm (smpi/allreduce:lr, the logical ring).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	long bytes = argc > 1 ? atol(argv[1]) : 1048576;
	int count = (int)(bytes / (long)sizeof(float));
	float *in = malloc((size_t)count * sizeof(float));
	float *out = malloc((size_t)count * sizeof(float));
	for (int i = 0; i < count; i++)
		in[i] = (float)rank;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	double t1 = MPI_Wtime();
	if (rank == 0)
		printf("%.3f\n", (t1 - t0) * 1e6);
	free(in);
	free(out);
	MPI_Finalize();
	return 0;
}
