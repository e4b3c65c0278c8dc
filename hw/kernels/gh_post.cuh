/* SPDX-License-Identifier: MIT */
/*
 * gh_post.cuh: one GPU-initiated post the NVSHMEM IBGDA way, shared by the
 * posting benchmark (gh_post.cu) and shmem_put_bw's loop (gh_barrier.cu's
 * put_loop), so both time the same device code.
 *
 * A post, by one thread: reserve a send-queue slot with an atomic on the
 * queue's reservation counter, write the 64-byte work-queue entry into the
 * queue (GPU memory), fence, publish the slot in order with a
 * compare-and-swap on the queue's ready counter, and when asked make the
 * entries visible system-wide, update the doorbell record and ring the
 * doorbell (an 8-byte store into host-mapped memory standing in for the
 * NIC's doorbell page).
 *
 * Invariants: everything here is static or inline (each .cu includes it
 * once); a publish that spins past GH_POST_TIMEOUT_NS raises *err and the
 * post reports failure; the queue's counters start at zero (the caller
 * clears the queues before each launch).
 */
#ifndef GH_POST_CUH
#define GH_POST_CUH

#include "hw/kernels/gh_common.cuh"

#ifndef GH_POST_TIMEOUT_NS
#define GH_POST_TIMEOUT_NS 5000000000ull
#endif
#define GH_SQ_DEPTH 1024 /* NVSHMEM_QP_DEPTH default */

/* One emulated send queue; counters on their own 128-byte lines. */
struct gh_sq {
	unsigned long long resv_head;
	unsigned long long pad0[15];
	unsigned long long ready_head;
	unsigned long long pad1[15];
	unsigned long long dbr;
	unsigned long long pad2[15];
	uint4 wqe[GH_SQ_DEPTH * 4];
};

/* Posts one RDMA-write entry (the caller's i-th) on queue q, whose doorbell
 * is uar[qi * 16]; rings the doorbell when the entry completes a batch of
 * `batch` or `last` is set. False when the in-order publish spun past the
 * timeout (*err raised then). The clock is read every 1024 failed
 * publishes only, the first read starting the timeout, so a publish that
 * succeeds at once (a queue of its own) reads no clock. */
__device__ static inline bool gh_ibgda_post(gh_sq *q, unsigned qi, volatile unsigned long long *uar,
					    int i, int batch, bool last, int *err)
{
	unsigned long long idx = atomicAdd(&q->resv_head, 1ull);
	uint4 *w = &q->wqe[(idx % GH_SQ_DEPTH) * 4];
	/* control, remote address, local data segments: what an RDMA write's
	 * entry carries */
	w[0] = make_uint4((unsigned)idx, 0x08u, blockIdx.x, 0u);
	w[1] = make_uint4(0x1000u, 0u, 0x2au, (unsigned)i);
	w[2] = make_uint4(512u, 0x2bu, 0x3000u, 0u);
	w[3] = make_uint4(0u, 0u, 0u, 0u);
	__threadfence();
	unsigned n = 0;
	uint64_t t0 = 0;
	while (atomicCAS(&q->ready_head, idx, idx + 1) != idx) {
		if (gh_spin_expired(&n, &t0, GH_POST_TIMEOUT_NS)) {
			atomicExch(err, 1);
			return false;
		}
	}
	if ((idx + 1) % (unsigned long long)batch == 0 || last) {
		__threadfence_system();
		*(volatile unsigned long long *)&q->dbr = idx + 1;
		__threadfence_system();
		uar[(size_t)qi * 16] = idx + 1;
	}
	return true;
}

#endif
