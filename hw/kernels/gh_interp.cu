/* SPDX-License-Identifier: MIT */
/*
 * gh_interp (device): executes a packed schedule (hw/gh_interp.h) for N
 * virtual ranks on one GPU. One thread block per (rank, strand); each rank
 * owns INPUT/OUTPUT/SCRATCH in one arena; each connection (src, dst,
 * channel) owns a mailbox of GH_NSLOTS slots with a head counter (written
 * only by the sender) and a tail counter (written only by the receiver).
 * The kernel never derives a mailbox from its own strand index: packing
 * (gh_interp.c) resolved every step's send and receive mailbox from the
 * channel (strand / strands_per_channel) into gh_step_aux, so a receiving
 * strand finds the mailbox its sender fills even when the two strands have
 * different indices (tree up/down groups, p2p send/receive groups), and
 * the one-sender / one-receiver rule of the schedule contract keeps head
 * and tail single-writer.
 *
 * A message is cut into pieces of at most one slot. Protocols, chosen by
 * the message size so both ends agree without talking:
 *  - LL (messages <= GH_LL_MAX bytes): the sender stores 8-byte lines
 *    {4 data bytes, 4 flag bytes} with flag = piece sequence number + 1; the
 *    receiver polls each line until its flag matches -- data and flag land
 *    in one store, so no fence is needed (NCCL's LL protocol).
 *  - Simple (larger): the sender writes the slot, __threadfence(), then
 *    bumps head; the receiver waits for head, reads the slot through L2
 *    (__ldcg, the slot may hold stale L1 lines from its previous use).
 * The receiver bumps tail after the whole block has consumed a piece; the
 * sender waits while head - tail == GH_NSLOTS (credits).
 *
 * One-sided ops bypass the mailboxes (all virtual ranks share the arena):
 *  - PUT: the block stores L straight into the peer's (dst_buf, dst_off);
 *    every thread then __threadfence()s its own stores and the block
 *    synchronizes, so the data is visible device-wide before the strand's
 *    next step -- in particular before the SIGNAL that follows the PUTs of
 *    its connection (one sending strand per connection: the same block).
 *  - SIGNAL: thread 0 __threadfence()s, then atomicAdd()s 1 to the peer's
 *    slot in the signal array (nranks * nsignals counters, zeroed before
 *    every launch).
 *  - WAIT: thread 0 spins on its own slot (volatile loads) until it reaches
 *    the threshold, with the same timeout as every other spin, then
 *    fences. Data that peers PUT may still sit stale in this SM's L1 if
 *    the block read those lines earlier, so after its first WAIT a strand
 *    reads its local operands through L2 (__ldcg).
 *
 * Progress needs every (rank, strand) block resident at once (a sender may
 * wait on a receiver that was never scheduled); the launch is cooperative,
 * which the runtime refuses when the blocks do not fit, and each spin gives
 * up after GH_SPIN_TIMEOUT_NS, so a broken schedule ends with an error.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "hw/gh_cuda.h"
#include "hw/gh_interp.h"
#include "hw/kernels/gh_common.cuh"

#define GH_NSLOTS 4
#define GH_SLOT_BYTES (128u * 1024u)
#define GH_LL_MAX (8u * 1024u)
#define GH_THREADS 512
#define GH_SPIN_TIMEOUT_NS 10000000000ull

struct gh_mailbox_ctl {
	unsigned long long head; /* pieces posted by the sender */
	unsigned long long pad0[15];
	unsigned long long tail; /* pieces consumed by the receiver */
	unsigned long long pad1[15];
};

struct gh_dev_plan {
	const gs_step *steps;
	const gh_step_aux *aux;
	const uint64_t *strand_off;
	char *arena;
	uint64_t rank_stride;
	uint64_t buf_off[GS_BUF__COUNT];
	gh_mailbox_ctl *ctl;
	char *slots; /* nconns * GH_NSLOTS * GH_SLOT_BYTES */
	unsigned long long *signals; /* nranks * nsignals slot counters */
	uint64_t nsignals;
	int nstrands;
	int dtype;
	int *err;
};

__device__ static inline unsigned long long vload(const unsigned long long *p)
{
	return *(const volatile unsigned long long *)p;
}

/* Spins (thread 0) until cond(); returns false on timeout or a peer's error. */
template <typename C> __device__ static bool spin(const gh_dev_plan &P, uint64_t t0, C cond)
{
	unsigned n = 0;
	while (!cond()) {
		if ((++n & 1023) == 0 && (gh_gtime() - t0 > GH_SPIN_TIMEOUT_NS || *(volatile int *)P.err)) {
			atomicExch(P.err, 1);
			return false;
		}
	}
	return true;
}

/* r_l2: R (a Simple slot) is read and S written through L2; l_l2: L is read
 * through L2 (it may hold data a peer PUT there). */
template <typename T>
__device__ static void compute(uint32_t props, const T *R, const T *L, T *D, T *S, uint64_t n,
			       bool r_l2, bool l_l2)
{
	for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
		T v;
		if (props & GH_P_RECV) {
			v = r_l2 ? __ldcg(R + i) : R[i];
			if (props & GH_P_REDUCE)
				v = v + (l_l2 ? __ldcg(L + i) : L[i]);
		} else {
			v = l_l2 ? __ldcg(L + i) : L[i];
		}
		if (props & GH_P_WRITES)
			D[i] = v;
		if (S) {
			if (r_l2)
				__stcg(S + i, v);
			else
				S[i] = v;
		}
	}
}

__device__ static void compute_any(int dtype, uint32_t props, const void *R, const void *L, void *D,
				   void *S, uint64_t bytes, bool simple, bool l_l2)
{
	switch (dtype) {
	case GS_DT_F32:
		compute<float>(props, (const float *)R, (const float *)L, (float *)D, (float *)S, bytes / 4,
			       simple, l_l2);
		break;
	case GS_DT_I32:
		compute<int>(props, (const int *)R, (const int *)L, (int *)D, (int *)S, bytes / 4, simple,
			     l_l2);
		break;
	default:
		compute<double>(props, (const double *)R, (const double *)L, (double *)D, (double *)S,
				bytes / 8, simple, l_l2);
		break;
	}
}

__global__ void __launch_bounds__(GH_THREADS) gh_interp_kernel(gh_dev_plan P)
{
	__shared__ __align__(16) char in_stage[GH_LL_MAX];
	__shared__ __align__(16) char out_stage[GH_LL_MAX];
	__shared__ int ok;
	const int strand = blockIdx.x;
	const int rank = strand / P.nstrands;
	char *base = P.arena + (uint64_t)rank * P.rank_stride;
	const uint64_t t0 = gh_gtime();
	bool after_wait = false; /* a WAIT passed: read local operands through L2 */
	for (uint64_t si = P.strand_off[strand]; si < P.strand_off[strand + 1]; si++) {
		const gs_step st = P.steps[si];
		const gh_step_aux ax = P.aux[si];
		if (ax.props & (GH_P_PUT | GH_P_SIGNAL | GH_P_WAIT)) {
			if (ax.props & GH_P_PUT) {
				const char *src = base + P.buf_off[st.src_buf] + st.src_off;
				char *dst = P.arena + (uint64_t)st.send_peer * P.rank_stride + P.buf_off[st.dst_buf] +
					    st.dst_off;
				compute_any(P.dtype, GH_P_READS | GH_P_WRITES, nullptr, src, dst, nullptr, st.bytes,
					    false, after_wait);
				__threadfence(); /* this thread's stores, before the block moves on */
				__syncthreads();
			} else if (ax.props & GH_P_SIGNAL) {
				if (threadIdx.x == 0) {
					__threadfence();
					atomicAdd(&P.signals[(uint64_t)st.send_peer * P.nsignals + st.dst_off], 1ull);
				}
			} else {
				if (threadIdx.x == 0) {
					const unsigned long long *slot = &P.signals[(uint64_t)rank * P.nsignals + st.src_off];
					ok = spin(P, t0, [&] { return vload(slot) >= st.bytes; }) ? 1 : 0;
					__threadfence();
				}
				__syncthreads();
				if (!ok)
					return;
				after_wait = true;
			}
			continue;
		}
		const bool ll = st.bytes <= GH_LL_MAX;
		const uint64_t cap = ll ? GH_LL_MAX : GH_SLOT_BYTES;
		const char *L = base + P.buf_off[st.src_buf] + st.src_off;
		char *D = base + P.buf_off[st.dst_buf] + st.dst_off;
		gh_mailbox_ctl *in = ax.recv_conn >= 0 ? &P.ctl[ax.recv_conn] : nullptr;
		gh_mailbox_ctl *out = ax.send_conn >= 0 ? &P.ctl[ax.send_conn] : nullptr;
		for (uint64_t off = 0; off < st.bytes || (off == 0 && st.bytes == 0); off += cap) {
			const uint64_t n = st.bytes - off < cap ? st.bytes - off : cap;
			if (threadIdx.x == 0) {
				ok = 1;
				if (out && !spin(P, t0, [&] { return vload(&out->head) - vload(&out->tail) < GH_NSLOTS; }))
					ok = 0;
				if (ok && in && !ll && !spin(P, t0, [&] { return vload(&in->head) > vload(&in->tail); }))
					ok = 0;
			}
			__syncthreads();
			if (!ok)
				return;
			const unsigned long long in_seq = in ? vload(&in->tail) : 0;
			const unsigned long long out_seq = out ? vload(&out->head) : 0;
			char *in_slot = in ? P.slots + ((uint64_t)ax.recv_conn * GH_NSLOTS + in_seq % GH_NSLOTS) * GH_SLOT_BYTES : nullptr;
			char *out_slot = out ? P.slots + ((uint64_t)ax.send_conn * GH_NSLOTS + out_seq % GH_NSLOTS) * GH_SLOT_BYTES : nullptr;
			const void *R = nullptr;
			if (in && ll) {
				/* Poll every line until its flag shows this piece. */
				const uint32_t want = (uint32_t)in_seq + 1u;
				const volatile unsigned long long *lines = (const volatile unsigned long long *)in_slot;
				for (uint64_t w = threadIdx.x; w < n / 4; w += blockDim.x) {
					unsigned long long v = lines[w];
					unsigned k = 0;
					while ((uint32_t)(v >> 32) != want) {
						if ((++k & 1023) == 0 && (gh_gtime() - t0 > GH_SPIN_TIMEOUT_NS || *(volatile int *)P.err)) {
							atomicExch(P.err, 1);
							break;
						}
						v = lines[w];
					}
					((uint32_t *)in_stage)[w] = (uint32_t)v;
				}
				R = in_stage;
			} else if (in) {
				__threadfence();
				R = in_slot;
			}
			__syncthreads();
			if (*(volatile int *)P.err)
				return;
			void *S = out ? (ll ? (void *)out_stage : (void *)out_slot) : nullptr;
			compute_any(P.dtype, ax.props, R, L + off, D + off, S, n, !ll, after_wait);
			if (out && ll) {
				__syncthreads();
				const uint32_t flag = (uint32_t)out_seq + 1u;
				volatile unsigned long long *lines = (volatile unsigned long long *)out_slot;
				for (uint64_t w = threadIdx.x; w < n / 4; w += blockDim.x)
					lines[w] = (unsigned long long)((const uint32_t *)out_stage)[w] |
						   ((unsigned long long)flag << 32);
			}
			if (out && !ll)
				__threadfence();
			__syncthreads();
			if (threadIdx.x == 0) {
				if (out)
					*(volatile unsigned long long *)&out->head = out_seq + 1;
				if (in) {
					__threadfence();
					*(volatile unsigned long long *)&in->tail = in_seq + 1;
				}
			}
			if (st.bytes == 0)
				break;
		}
	}
}

#define CK(call) GH_CK("interpreter: ", call)

extern "C" gc_status gh_cuda_interp_run(int dev, const gh_interp_plan *plan, const void *inputs,
					void *outputs, int warmup, int iters, double *us, char *why)
{
	gc_status st = GC_OK;
	gh_dev_plan P;
	memset(&P, 0, sizeof(P));
	cudaStream_t s = NULL;
	cudaEvent_t a = NULL, b = NULL;
	const int nblocks = plan->nranks * plan->nstrands;
	const size_t ctl_bytes = sizeof(gh_mailbox_ctl) * (size_t)(plan->nconns ? plan->nconns : 1);
	const size_t slot_bytes = (size_t)(plan->nconns ? plan->nconns : 1) * GH_NSLOTS * GH_SLOT_BYTES;
	const uint64_t nsig_all = (uint64_t)plan->nranks * plan->nsignals;
	const size_t sig_bytes = sizeof(unsigned long long) * (size_t)(nsig_all ? nsig_all : 1);
	int per_sm = 0, nsm = 0, coop = 0, herr = 0;
	CK(cudaSetDevice(dev));
	CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gh_interp_kernel, GH_THREADS, 0));
	if (!coop || nblocks > per_sm * nsm) {
		snprintf(why, GH_WHY,
			 "interpreter: %d ranks x %d strands = %d blocks, but only %d fit at once on this GPU "
			 "(lower --ranks or the channel count)",
			 plan->nranks, plan->nstrands, nblocks, per_sm * nsm);
		return GC_ERR_UNSUPPORTED;
	}
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaMalloc((void **)&P.steps, sizeof(gs_step) * (plan->nsteps ? plan->nsteps : 1)));
	CK(cudaMalloc((void **)&P.aux, sizeof(gh_step_aux) * (plan->nsteps ? plan->nsteps : 1)));
	CK(cudaMalloc((void **)&P.strand_off, sizeof(uint64_t) * (size_t)(nblocks + 1)));
	CK(cudaMalloc((void **)&P.arena, plan->rank_stride * (uint64_t)plan->nranks));
	CK(cudaMalloc((void **)&P.ctl, ctl_bytes));
	CK(cudaMalloc((void **)&P.slots, slot_bytes));
	CK(cudaMalloc((void **)&P.signals, sig_bytes));
	CK(cudaMalloc((void **)&P.err, sizeof(int)));
	CK(cudaMemcpy((void *)P.steps, plan->steps, sizeof(gs_step) * plan->nsteps, cudaMemcpyHostToDevice));
	CK(cudaMemcpy((void *)P.aux, plan->aux, sizeof(gh_step_aux) * plan->nsteps, cudaMemcpyHostToDevice));
	CK(cudaMemcpy((void *)P.strand_off, plan->strand_off, sizeof(uint64_t) * (size_t)(nblocks + 1),
		      cudaMemcpyHostToDevice));
	CK(cudaMemset(P.arena, 0, plan->rank_stride * (uint64_t)plan->nranks));
	for (int r = 0; r < plan->nranks; r++)
		CK(cudaMemcpy(P.arena + (uint64_t)r * plan->rank_stride + plan->buf_off[GS_BUF_INPUT],
			      (const char *)inputs + (uint64_t)r * plan->buf_bytes[GS_BUF_INPUT],
			      plan->buf_bytes[GS_BUF_INPUT], cudaMemcpyHostToDevice));
	P.rank_stride = plan->rank_stride;
	memcpy(P.buf_off, plan->buf_off, sizeof(P.buf_off));
	P.nstrands = plan->nstrands;
	P.nsignals = plan->nsignals;
	P.dtype = plan->p.dtype;
	CK(cudaMemset(P.err, 0, sizeof(int)));
	for (int it = -warmup; it < iters; it++) {
		CK(cudaMemsetAsync(P.ctl, 0, ctl_bytes, s));
		CK(cudaMemsetAsync(P.slots, 0, slot_bytes, s));
		CK(cudaMemsetAsync(P.signals, 0, sig_bytes, s));
		void *args[] = {&P};
		CK(cudaEventRecord(a, s));
		CK(cudaLaunchCooperativeKernel((const void *)gh_interp_kernel, dim3(nblocks), dim3(GH_THREADS),
					       args, 0, s));
		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		CK(cudaMemcpy(&herr, P.err, sizeof(int), cudaMemcpyDeviceToHost));
		if (herr) {
			snprintf(why, GH_WHY, "interpreter: a block waited more than %.0f s for a peer (schedule deadlock or lost flag)",
				 GH_SPIN_TIMEOUT_NS / 1e9);
			st = GC_ERR_DEADLOCK;
			goto out;
		}
		float ms = 0;
		CK(cudaEventElapsedTime(&ms, a, b));
		if (it >= 0)
			us[it] = (double)ms * 1e3;
	}
	for (int r = 0; r < plan->nranks; r++)
		CK(cudaMemcpy((char *)outputs + (uint64_t)r * plan->buf_bytes[GS_BUF_OUTPUT],
			      P.arena + (uint64_t)r * plan->rank_stride + plan->buf_off[GS_BUF_OUTPUT],
			      plan->buf_bytes[GS_BUF_OUTPUT], cudaMemcpyDeviceToHost));
out:
	cudaFree((void *)P.steps);
	cudaFree((void *)P.aux);
	cudaFree((void *)P.strand_off);
	cudaFree(P.arena);
	cudaFree(P.ctl);
	cudaFree(P.slots);
	cudaFree(P.signals);
	cudaFree(P.err);
	if (a)
		cudaEventDestroy(a);
	if (b)
		cudaEventDestroy(b);
	if (s)
		cudaStreamDestroy(s);
	return st;
}
