/* SPDX-License-Identifier: MIT */
/*
 * A sweep's cells across the ranks of an MPI job (sweep_exec.h): rank 0
 * hands one cell index at a time to each other rank and stores the record
 * each sends back, as the parent of --jobs does with its worker processes,
 * so rank 0's results file is the only one written and holds every cell.
 * A rank that dies takes the job down (MPI's default error handler); every
 * cell stored before that is in the file, and the same command resumes.
 *
 * Built only where Open MPI's headers are (make MPI=auto or MPI=1:
 * GCSIM_MPI); without them a launch by mpirun with several ranks is
 * refused, since each rank would run the whole grid on its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_exec.h"

/* Whether a process manager started this process as one rank of several
 * (Open MPI's, or a PMI one's as Slurm's srun sets). */
static int launched_size(void)
{
	const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return atoi(v);
	}
	return 1;
}

#ifdef GCSIM_MPI
#include <mpi.h>

enum { TAG_TASK = 1, TAG_HEAD, TAG_BODY };

static bool mpi_on;

bool sweep_mpi_built(void)
{
	return true;
}

gc_status sweep_mpi_init(int *rank, int *size, char **err)
{
	*rank = 0;
	*size = 1;
	if (launched_size() <= 1)
		return GC_OK;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		*err = g_strdup("gcsim sweep: MPI_Init failed");
		return GC_ERR_IO;
	}
	mpi_on = true;
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	return GC_OK;
}

void sweep_mpi_finish(void)
{
	if (mpi_on)
		MPI_Finalize();
	mpi_on = false;
}

void sweep_mpi_release(int size)
{
	int32_t stop = -1;
	for (int r = 1; r < size; r++)
		MPI_Send(&stop, 1, MPI_INT32_T, r, TAG_TASK, MPI_COMM_WORLD);
}

void sweep_mpi_serve(const sweep_exec *x)
{
	for (;;) {
		int32_t k;
		MPI_Recv(&k, 1, MPI_INT32_T, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (k < 0)
			return;
		gc_status st;
		size_t len = 0;
		void *buf = sweep_exec_answer(x, (guint)k, &st, &len);
		int64_t head[3] = {k, (int64_t)st, (int64_t)len};
		MPI_Send(head, 3, MPI_INT64_T, 0, TAG_HEAD, MPI_COMM_WORLD);
		MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_BODY, MPI_COMM_WORLD);
		g_free(buf);
	}
}

gc_status sweep_mpi_coordinate(const sweep_exec *x, const guint *todo, guint ntodo, int size,
			       guint *ran, guint *fail_k, char **err)
{
	*ran = 0;
	gc_status fst = GC_OK;
	guint next = 0, finished = 0;
	int running = 0;
	gint64 t0 = g_get_monotonic_time();
	/* every rank its first cell, or its stop */
	for (int r = 1; r < size; r++) {
		int32_t k = next < ntodo ? (int32_t)todo[next++] : -1;
		MPI_Send(&k, 1, MPI_INT32_T, r, TAG_TASK, MPI_COMM_WORLD);
		running += k >= 0;
	}
	while (running > 0) {
		if (x->tty)
			sweep_exec_progress(x, finished, ntodo, running, t0);
		int64_t head[3];
		MPI_Status ms;
		MPI_Recv(head, 3, MPI_INT64_T, MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &ms);
		int from = ms.MPI_SOURCE;
		size_t len = (size_t)head[2];
		char *buf = g_malloc(len + 1);
		MPI_Recv(buf, (int)len, MPI_BYTE, from, TAG_BODY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		buf[len] = 0;
		running--;
		finished++;
		sweep_exec_take(x, (guint)head[0], (gc_status)head[1], buf, len, ran, fail_k, &fst, err);
		int32_t k = fst == GC_OK && next < ntodo ? (int32_t)todo[next++] : -1;
		MPI_Send(&k, 1, MPI_INT32_T, from, TAG_TASK, MPI_COMM_WORLD);
		running += k >= 0;
	}
	if (x->tty)
		fputs("\r\033[K", stderr);
	return fst;
}

#else /* without Open MPI */

bool sweep_mpi_built(void)
{
	return false;
}

gc_status sweep_mpi_init(int *rank, int *size, char **err)
{
	*rank = 0;
	*size = 1;
	int n = launched_size();
	if (n > 1) {
		*err = g_strdup_printf(
			"gcsim sweep: started as one of %d MPI ranks, but this gcsim was built without "
			"Open MPI, so every rank would run the whole grid; install libopenmpi-dev and "
			"rebuild (make MPI=1), or give each process --shard I/%d",
			n, n);
		return GC_ERR_INPUT;
	}
	return GC_OK;
}

void sweep_mpi_finish(void)
{
}

void sweep_mpi_release(int size)
{
	(void)size;
}

void sweep_mpi_serve(const sweep_exec *x)
{
	(void)x;
}

gc_status sweep_mpi_coordinate(const sweep_exec *x, const guint *todo, guint ntodo, int size,
			       guint *ran, guint *fail_k, char **err)
{
	(void)size;
	return sweep_exec_cells(x, todo, ntodo, 1, ran, fail_k, err);
}

#endif
