/* SPDX-License-Identifier: MIT */
/*
 * gh_interp (device): executes a packed schedule (hw/gh_interp.h) for N
 * virtual ranks on one GPU. One thread block per (rank, strand); each rank
 * owns INPUT/OUTPUT/SCRATCH in one arena; each connection (src, dst,
 * channel) owns a mailbox of slots with a head counter (written only by the
 * sender) and a tail counter (written only by the receiver).
 *
 * A mailbox has a slot for every piece its connection carries in a launch
 * (at least GH_NSLOTS; the plan counts them, gh_interp_plan.conn_slots):
 * the schedule contract gives a sender unlimited
 * buffering (gs_validate proves deadlock freedom under it), and schedules
 * rely on it -- ring allreduce has every rank SEND a whole chunk (several
 * 1 MiB slices) before it receives anything, so a mailbox of a few slots
 * would leave every block waiting for credit from a receiver that is
 * itself still sending.
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
 * sender waits while head - tail == the mailbox's slot count (credits,
 * which by the sizing above never run out).
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
 *
 * On N GPUs (one rank per GPU, every pair with peer access) the same kernel
 * runs once per GPU with that rank's strands. The kernel only ever reaches
 * memory through pointer tables (each rank's arena and signal counters,
 * each connection's mailbox), so nothing changes in it but the placement:
 * a rank's arena and signals live on its GPU, a connection's mailbox on
 * the receiver's GPU (the sender writes the slots and head across NVLink,
 * the receiver reads them locally, as NCCL places its receive buffers).
 * Fences become system-scope and signal additions system-scope atomics so
 * that stores are ordered as seen from the other GPUs. The kernels run
 * concurrently on their own streams (each fits its GPU); the sample is the
 * slowest GPU's time.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/gh_cuda.h"
#include "hw/gh_interp.h"
#include "hw/kernels/gh_common.cuh"

/* Threads per block and how long a spin waits before it calls the
 * schedule deadlocked; the CPU emulation (tests/hw/emu) builds with fewer
 * threads and a shorter wait. */
#ifndef GH_THREADS
#define GH_THREADS 512
#endif
#ifndef GH_SPIN_TIMEOUT_NS
#define GH_SPIN_TIMEOUT_NS 10000000000ull
#endif

struct gh_mailbox_ctl {
	unsigned long long head; /* pieces posted by the sender */
	unsigned long long pad0[15];
	unsigned long long tail; /* pieces consumed by the receiver */
	unsigned long long pad1[15];
};

/* Everything the kernel touches, through tables valid on every GPU that
 * runs it (device arrays; peer pointers on N GPUs). */
struct gh_dev_plan {
	const gs_step *steps;
	const gh_step_aux *aux;
	const uint64_t *strand_off;
	char *const *arena;		     /* per rank: its buffers start here */
	uint64_t buf_off[GS_BUF__COUNT];
	gh_mailbox_ctl *const *ctl;	     /* per connection */
	char *const *slots;		     /* per connection: nslots[c] * GH_SLOT_BYTES */
	const unsigned long long *nslots;   /* per connection: its slot count (the plan's conn_slots) */
	unsigned long long *const *signals; /* per rank: nsignals slot counters */
	int first_strand;		     /* strand of block 0 */
	int nstrands;
	int dtype;
	int sys; /* ranks on several GPUs: system-scope fences and atomics */
	int vec; /* GH_KERNEL_VECTOR: 16-byte loads and stores, unrolled */
	int *err;
};

__device__ static inline void fence(const gh_dev_plan &P)
{
	if (P.sys)
		__threadfence_system();
	else
		__threadfence();
}

__device__ static inline unsigned long long vload(const unsigned long long *p)
{
	return *(const volatile unsigned long long *)p;
}

/* Checked every 1024th poll of a spin: whether this spin has waited more
 * than GH_SPIN_TIMEOUT_NS since its first check (*since, 0 before it), or
 * a peer gave up. The clock is read only here, off the fast path. */
__device__ static inline bool spin_expired(const gh_dev_plan &P, uint64_t *since)
{
	const uint64_t now = gh_gtime();
	if (!*since)
		*since = now;
	return now - *since > GH_SPIN_TIMEOUT_NS || *(volatile int *)P.err;
}

/* Spins (thread 0) until cond(); returns false on timeout or a peer's error. */
template <typename C> __device__ static bool spin(const gh_dev_plan &P, C cond)
{
	unsigned n = 0;
	uint64_t since = 0;
	while (!cond()) {
		if ((++n & 1023) == 0 && spin_expired(P, &since)) {
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

/* One 16-byte vector of T's. */
template <typename T> struct gh_vec {
	T v[16 / sizeof(T)];
};

template <typename T> __device__ static inline gh_vec<T> vld(const uint4 *p, bool l2)
{
	union {
		uint4 u;
		gh_vec<T> t;
	} x;
	x.u = l2 ? __ldcg(p) : *p;
	return x.t;
}

template <typename T> __device__ static inline void vst(uint4 *p, const gh_vec<T> &t, bool l2)
{
	union {
		uint4 u;
		gh_vec<T> t;
	} x;
	x.t = t;
	if (l2)
		__stcg(p, x.u);
	else
		*p = x.u;
}

/* compute's 16-byte way: each thread keeps GH_UNROLL vectors in flight
 * (loads of a pass issued before any store), the block's threads covering
 * consecutive vectors so a warp's loads coalesce, as NCCL's primitives do
 * (prims_simple.h, reduceCopy with 16-byte packs); the elements past the
 * last whole vector go the scalar way. Every operand 16-byte aligned. */
template <typename T>
__device__ static void compute_vec(uint32_t props, const T *R, const T *L, T *D, T *S, uint64_t n,
				   bool r_l2, bool l_l2)
{
	const uint64_t V = 16 / sizeof(T), nv = n / V, step = (uint64_t)blockDim.x * GH_UNROLL;
	const uint4 *R4 = (const uint4 *)R, *L4 = (const uint4 *)L;
	uint4 *D4 = (uint4 *)D, *S4 = (uint4 *)S;
	for (uint64_t base = threadIdx.x; base < nv; base += step) {
		gh_vec<T> a[GH_UNROLL], b[GH_UNROLL];
		for (int u = 0; u < GH_UNROLL; u++) {
			uint64_t i = base + (uint64_t)u * blockDim.x;
			if (i >= nv)
				break;
			if (props & GH_P_RECV) {
				a[u] = vld<T>(R4 + i, r_l2);
				if (props & GH_P_REDUCE)
					b[u] = vld<T>(L4 + i, l_l2);
			} else {
				a[u] = vld<T>(L4 + i, l_l2);
			}
		}
		for (int u = 0; u < GH_UNROLL; u++) {
			uint64_t i = base + (uint64_t)u * blockDim.x;
			if (i >= nv)
				break;
			if ((props & GH_P_RECV) && (props & GH_P_REDUCE))
				for (uint64_t e = 0; e < V; e++)
					a[u].v[e] = a[u].v[e] + b[u].v[e];
			if (props & GH_P_WRITES)
				vst<T>(D4 + i, a[u], false);
			if (S)
				vst<T>(S4 + i, a[u], r_l2);
		}
	}
	const uint64_t done = nv * V;
	if (done < n)
		compute<T>(props, R ? R + done : R, L ? L + done : L, D ? D + done : D, S ? S + done : S,
			   n - done, r_l2, l_l2);
}

/* Whether every operand the step touches is 16-byte aligned. */
__device__ static inline bool aligned16(const void *R, const void *L, const void *D, const void *S)
{
	return (((uintptr_t)R | (uintptr_t)L | (uintptr_t)D | (uintptr_t)S) & 15) == 0;
}

template <typename T>
__device__ static void compute_pick(bool vec, uint32_t props, const T *R, const T *L, T *D, T *S,
				    uint64_t n, bool r_l2, bool l_l2)
{
	if (vec && aligned16(R, L, D, S))
		compute_vec<T>(props, R, L, D, S, n, r_l2, l_l2);
	else
		compute<T>(props, R, L, D, S, n, r_l2, l_l2);
}

__device__ static void compute_any(int dtype, uint32_t props, const void *R, const void *L, void *D,
				   void *S, uint64_t bytes, bool simple, bool l_l2, bool vec)
{
	switch (dtype) {
	case GS_DT_F32:
		compute_pick<float>(vec, props, (const float *)R, (const float *)L, (float *)D,
				    (float *)S, bytes / 4, simple, l_l2);
		break;
	case GS_DT_I32:
		compute_pick<int>(vec, props, (const int *)R, (const int *)L, (int *)D, (int *)S,
				  bytes / 4, simple, l_l2);
		break;
	default:
		compute_pick<double>(vec, props, (const double *)R, (const double *)L, (double *)D,
				     (double *)S, bytes / 8, simple, l_l2);
		break;
	}
}

/* A block's shared memory: an LL message staged in and out, and thread 0's
 * verdict on a wait, for the whole block. */
struct gh_stage {
	__align__(16) char in[GH_LL_MAX];
	__align__(16) char out[GH_LL_MAX];
	int ok;
};

__global__ void __launch_bounds__(GH_THREADS) gh_interp_kernel(gh_dev_plan P)
{
	GH_SHARED(gh_stage, sh);
	char *const in_stage = sh.in, *const out_stage = sh.out;
	int &ok = sh.ok;
	const int strand = P.first_strand + (int)blockIdx.x;
	const int rank = strand / P.nstrands;
	char *base = P.arena[rank];
	bool after_wait = false; /* a WAIT passed: read local operands through L2 */
	for (uint64_t si = P.strand_off[strand]; si < P.strand_off[strand + 1]; si++) {
		const gs_step st = P.steps[si];
		const gh_step_aux ax = P.aux[si];
		if (ax.props & (GH_P_PUT | GH_P_SIGNAL | GH_P_WAIT)) {
			if (ax.props & GH_P_PUT) {
				const char *src = base + P.buf_off[st.src_buf] + st.src_off;
				char *dst = P.arena[st.send_peer] + P.buf_off[st.dst_buf] + st.dst_off;
				compute_any(P.dtype, GH_P_READS | GH_P_WRITES, nullptr, src, dst, nullptr, st.bytes,
					    false, after_wait, P.vec);
				fence(P); /* this thread's stores, before the block moves on */
				__syncthreads();
			} else if (ax.props & GH_P_SIGNAL) {
				if (threadIdx.x == 0) {
					fence(P);
					unsigned long long *slot = P.signals[st.send_peer] + st.dst_off;
					if (P.sys)
						atomicAdd_system(slot, 1ull);
					else
						atomicAdd(slot, 1ull);
				}
			} else {
				if (threadIdx.x == 0) {
					const unsigned long long *slot = P.signals[rank] + st.src_off;
					ok = spin(P, [&] { return vload(slot) >= st.bytes; }) ? 1 : 0;
					fence(P);
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
		gh_mailbox_ctl *in = ax.recv_conn >= 0 ? P.ctl[ax.recv_conn] : nullptr;
		gh_mailbox_ctl *out = ax.send_conn >= 0 ? P.ctl[ax.send_conn] : nullptr;
		const unsigned long long in_cap = in ? P.nslots[ax.recv_conn] : 1;
		const unsigned long long out_cap = out ? P.nslots[ax.send_conn] : 1;
		for (uint64_t off = 0; off < st.bytes || (off == 0 && st.bytes == 0); off += cap) {
			const uint64_t n = st.bytes - off < cap ? st.bytes - off : cap;
			if (threadIdx.x == 0) {
				ok = 1;
				if (out && !spin(P, [&] { return vload(&out->head) - vload(&out->tail) < out_cap; }))
					ok = 0;
				if (ok && in && !ll && !spin(P, [&] { return vload(&in->head) > vload(&in->tail); }))
					ok = 0;
			}
			__syncthreads();
			if (!ok)
				return;
			const unsigned long long in_seq = in ? vload(&in->tail) : 0;
			const unsigned long long out_seq = out ? vload(&out->head) : 0;
			char *in_slot = in ? P.slots[ax.recv_conn] + (in_seq % in_cap) * GH_SLOT_BYTES : nullptr;
			char *out_slot = out ? P.slots[ax.send_conn] + (out_seq % out_cap) * GH_SLOT_BYTES : nullptr;
			const void *R = nullptr;
			if (in && ll) {
				/* Poll every line until its flag shows this piece. */
				const uint32_t want = (uint32_t)in_seq + 1u;
				const volatile unsigned long long *lines = (const volatile unsigned long long *)in_slot;
				for (uint64_t w = threadIdx.x; w < n / 4; w += blockDim.x) {
					unsigned long long v = lines[w];
					unsigned k = 0;
					uint64_t since = 0;
					while ((uint32_t)(v >> 32) != want) {
						if ((++k & 1023) == 0 && spin_expired(P, &since)) {
							atomicExch(P.err, 1);
							break;
						}
						v = lines[w];
					}
					((uint32_t *)in_stage)[w] = (uint32_t)v;
				}
				R = in_stage;
			} else if (in) {
				fence(P);
				R = in_slot;
			}
			__syncthreads();
			if (*(volatile int *)P.err)
				return;
			void *S = out ? (ll ? (void *)out_stage : (void *)out_slot) : nullptr;
			compute_any(P.dtype, ax.props, R, L + off, D + off, S, n, !ll, after_wait, P.vec);
			if (out && ll) {
				__syncthreads();
				const uint32_t flag = (uint32_t)out_seq + 1u;
				volatile unsigned long long *lines = (volatile unsigned long long *)out_slot;
				for (uint64_t w = threadIdx.x; w < n / 4; w += blockDim.x)
					lines[w] = (unsigned long long)((const uint32_t *)out_stage)[w] |
						   ((unsigned long long)flag << 32);
			}
			if (out && !ll)
				fence(P);
			__syncthreads();
			if (threadIdx.x == 0) {
				if (out)
					*(volatile unsigned long long *)&out->head = out_seq + 1;
				if (in) {
					fence(P);
					*(volatile unsigned long long *)&in->tail = in_seq + 1;
				}
			}
			if (st.bytes == 0)
				break;
		}
	}
}

#define CK(call) GH_CK("interpreter: ", call)

/* Device memory of one launch: what each GPU needs, and what each rank and
 * connection owns (on the GPU that holds it). */
struct gh_run_mem {
	int ndevs;
	int devs[GH_MAX_GPUS];
	cudaStream_t s[GH_MAX_GPUS];
	cudaEvent_t a[GH_MAX_GPUS], b[GH_MAX_GPUS];
	gh_dev_plan P[GH_MAX_GPUS]; /* per GPU: its copies of the tables */
	char **arena;		    /* host copies of the tables */
	gh_mailbox_ctl **ctl;
	char **slots;
	size_t slots_total;	    /* bytes of every connection's slots together */
	unsigned long long **signals;
	void *blocks[4]; /* one GPU: the four shared blocks behind the tables */
	int *err;
};

static void run_mem_free(gh_run_mem *m, const gh_interp_plan *plan)
{
	const bool multi = m->ndevs > 1;
	for (int g = 0; g < m->ndevs; g++) {
		cudaSetDevice(m->devs[g]);
		cudaFree((void *)m->P[g].steps);
		cudaFree((void *)m->P[g].aux);
		cudaFree((void *)m->P[g].strand_off);
		cudaFree((void *)m->P[g].arena);
		cudaFree((void *)m->P[g].ctl);
		cudaFree((void *)m->P[g].slots);
		cudaFree((void *)m->P[g].signals);
		cudaFree((void *)m->P[g].nslots);
		if (m->a[g])
			cudaEventDestroy(m->a[g]);
		if (m->b[g])
			cudaEventDestroy(m->b[g]);
		if (m->s[g])
			cudaStreamDestroy(m->s[g]);
	}
	if (multi) {
		for (int r = 0; m->arena && m->signals && r < plan->nranks; r++) {
			cudaFree(m->arena[r]);
			cudaFree(m->signals[r]);
		}
		for (int c = 0; m->ctl && m->slots && c < plan->nconns; c++) {
			cudaFree(m->ctl[c]);
			cudaFree(m->slots[c]);
		}
	} else {
		for (int i = 0; i < 4; i++)
			cudaFree(m->blocks[i]);
	}
	cudaFree(m->err);
	free(m->arena);
	free(m->ctl);
	free(m->slots);
	free(m->signals);
}

/* A device copy of a host table of n pointers (at least one entry). */
template <typename T> static cudaError_t table_to_device(T *const *host, size_t n, T *const **dev)
{
	size_t bytes = sizeof(T *) * (n ? n : 1);
	cudaError_t e = cudaMalloc((void **)dev, bytes);
	if (e == cudaSuccess && n)
		e = cudaMemcpy((void *)*dev, host, sizeof(T *) * n, cudaMemcpyHostToDevice);
	return e;
}

extern "C" gc_status gh_cuda_interp_run(const int *devs, int ndevs, const gh_interp_plan *plan,
					const void *inputs, void *outputs, int warmup, int iters, double *us,
					char *why)
{
	gc_status st = GC_OK;
	gh_run_mem M;
	memset(&M, 0, sizeof(M));
	const bool multi = ndevs > 1;
	const int nr = plan->nranks, nc = plan->nconns;
	const uint64_t nsig = plan->nsignals ? plan->nsignals : 1;
	int herr = 0;
	if (ndevs < 1 || ndevs > GH_MAX_GPUS || (multi && ndevs != nr)) {
		snprintf(why, GH_WHY, "interpreter: %d GPUs for %d ranks (one GPU for all ranks, or one per rank, at most %d)",
			 ndevs, nr, GH_MAX_GPUS);
		return GC_ERR_INPUT;
	}
	M.ndevs = ndevs;
	memcpy(M.devs, devs, sizeof(int) * (size_t)ndevs);
	/* every block of a launch must be resident: all ranks' strands on one
	 * GPU, or one rank's on each */
	const int per_launch = multi ? plan->nstrands : nr * plan->nstrands;
	for (int g = 0; g < ndevs; g++) {
		int per_sm = 0, nsm = 0, coop = 0;
		CK(cudaSetDevice(devs[g]));
		CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, devs[g]));
		CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, devs[g]));
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gh_interp_kernel, GH_THREADS, 0));
		if (!coop || per_launch > per_sm * nsm) {
			snprintf(why, GH_WHY,
				 "interpreter: %d ranks x %d strands = %d blocks per GPU, but only %d fit at once on GPU %d "
				 "(lower --ranks or the channel count)",
				 multi ? 1 : nr, plan->nstrands, per_launch, per_sm * nsm, devs[g]);
			return GC_ERR_UNSUPPORTED;
		}
		for (int h = 0; multi && h < ndevs; h++) {
			int can = 0;
			if (h == g)
				continue;
			CK(cudaDeviceCanAccessPeer(&can, devs[g], devs[h]));
			if (!can) {
				snprintf(why, GH_WHY, "interpreter: GPU %d cannot access GPU %d as a peer (one rank per GPU needs peer access between every pair)",
					 devs[g], devs[h]);
				return GC_ERR_UNSUPPORTED;
			}
			cudaError_t e = cudaDeviceEnablePeerAccess(devs[h], 0);
			if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
				CK(e);
			cudaGetLastError(); /* clear "already enabled" */
		}
	}
	M.arena = (char **)calloc((size_t)nr, sizeof(char *));
	M.signals = (unsigned long long **)calloc((size_t)nr, sizeof(unsigned long long *));
	M.ctl = (gh_mailbox_ctl **)calloc((size_t)(nc ? nc : 1), sizeof(gh_mailbox_ctl *));
	M.slots = (char **)calloc((size_t)(nc ? nc : 1), sizeof(char *));
	if (!M.arena || !M.signals || !M.ctl || !M.slots) {
		snprintf(why, GH_WHY, "interpreter: out of host memory");
		st = GC_ERR_IO;
		goto out;
	}
	/* the plan's mailbox sizes (gh_interp_plan.conn_slots) */
	for (int c = 0; c < nc; c++)
		M.slots_total += (size_t)plan->conn_slots[c] * GH_SLOT_BYTES;
	if (!nc)
		M.slots_total = (size_t)GH_NSLOTS * GH_SLOT_BYTES;
	CK(cudaSetDevice(devs[0]));
	CK(cudaMalloc((void **)&M.err, sizeof(int)));
	if (multi) {
		/* a rank's arena and signals on its GPU, a mailbox on its receiver's */
		for (int r = 0; r < nr; r++) {
			CK(cudaSetDevice(devs[r]));
			CK(cudaMalloc((void **)&M.arena[r], plan->rank_stride));
			CK(cudaMalloc((void **)&M.signals[r], sizeof(unsigned long long) * nsig));
		}
		for (int c = 0; c < nc; c++) {
			CK(cudaSetDevice(devs[plan->conn_dst[c]]));
			CK(cudaMalloc((void **)&M.ctl[c], sizeof(gh_mailbox_ctl)));
			CK(cudaMalloc((void **)&M.slots[c], (size_t)plan->conn_slots[c] * GH_SLOT_BYTES));
		}
	} else {
		CK(cudaMalloc(&M.blocks[0], plan->rank_stride * (uint64_t)nr));
		CK(cudaMalloc(&M.blocks[1], sizeof(unsigned long long) * nsig * (uint64_t)nr));
		CK(cudaMalloc(&M.blocks[2], sizeof(gh_mailbox_ctl) * (size_t)(nc ? nc : 1)));
		CK(cudaMalloc(&M.blocks[3], M.slots_total));
		for (int r = 0; r < nr; r++) {
			M.arena[r] = (char *)M.blocks[0] + (uint64_t)r * plan->rank_stride;
			M.signals[r] = (unsigned long long *)M.blocks[1] + (uint64_t)r * nsig;
		}
		size_t so = 0;
		for (int c = 0; c < nc; c++) {
			M.ctl[c] = (gh_mailbox_ctl *)M.blocks[2] + c;
			M.slots[c] = (char *)M.blocks[3] + so;
			so += (size_t)plan->conn_slots[c] * GH_SLOT_BYTES;
		}
	}
	for (int g = 0; g < ndevs; g++) {
		gh_dev_plan *P = &M.P[g];
		CK(cudaSetDevice(devs[g]));
		CK(cudaStreamCreateWithFlags(&M.s[g], cudaStreamNonBlocking));
		CK(cudaEventCreate(&M.a[g]));
		CK(cudaEventCreate(&M.b[g]));
		CK(cudaMalloc((void **)&P->steps, sizeof(gs_step) * (plan->nsteps ? plan->nsteps : 1)));
		CK(cudaMalloc((void **)&P->aux, sizeof(gh_step_aux) * (plan->nsteps ? plan->nsteps : 1)));
		CK(cudaMalloc((void **)&P->strand_off, sizeof(uint64_t) * (size_t)(nr * plan->nstrands + 1)));
		CK(cudaMemcpy((void *)P->steps, plan->steps, sizeof(gs_step) * plan->nsteps, cudaMemcpyHostToDevice));
		CK(cudaMemcpy((void *)P->aux, plan->aux, sizeof(gh_step_aux) * plan->nsteps, cudaMemcpyHostToDevice));
		CK(cudaMemcpy((void *)P->strand_off, plan->strand_off,
			      sizeof(uint64_t) * (size_t)(nr * plan->nstrands + 1), cudaMemcpyHostToDevice));
		CK(table_to_device(M.arena, (size_t)nr, &P->arena));
		CK(table_to_device(M.signals, (size_t)nr, &P->signals));
		CK(table_to_device(M.ctl, (size_t)nc, &P->ctl));
		CK(table_to_device(M.slots, (size_t)nc, &P->slots));
		CK(cudaMalloc((void **)&P->nslots, sizeof(unsigned long long) * (size_t)(nc ? nc : 1)));
		static_assert(sizeof(unsigned long long) == sizeof(*plan->conn_slots), "slot counts");
		CK(cudaMemcpy((void *)P->nslots, plan->conn_slots, sizeof(unsigned long long) * (size_t)(nc ? nc : 1),
			      cudaMemcpyHostToDevice));
		memcpy(P->buf_off, plan->buf_off, sizeof(P->buf_off));
		P->first_strand = multi ? g * plan->nstrands : 0;
		P->nstrands = plan->nstrands;
		P->dtype = plan->p.dtype;
		P->vec = plan->kernel == GH_KERNEL_VECTOR;
		P->sys = multi;
		P->err = M.err;
	}
	for (int r = 0; r < nr; r++) {
		CK(cudaSetDevice(devs[multi ? r : 0]));
		CK(cudaMemset(M.arena[r], 0, plan->rank_stride));
		CK(cudaMemcpy(M.arena[r] + plan->buf_off[GS_BUF_INPUT],
			      (const char *)inputs + (uint64_t)r * plan->buf_bytes[GS_BUF_INPUT],
			      plan->buf_bytes[GS_BUF_INPUT], cudaMemcpyHostToDevice));
	}
	CK(cudaSetDevice(devs[0]));
	CK(cudaMemset(M.err, 0, sizeof(int)));
	for (int it = -warmup; it < iters; it++) {
		/* fresh mailboxes and signals, everywhere, before any kernel runs */
		if (!multi) {
			CK(cudaMemset(M.blocks[1], 0, sizeof(unsigned long long) * nsig * (uint64_t)nr));
			CK(cudaMemset(M.blocks[2], 0, sizeof(gh_mailbox_ctl) * (size_t)(nc ? nc : 1)));
			CK(cudaMemset(M.blocks[3], 0, M.slots_total));
		}
		for (int r = 0; multi && r < nr; r++) {
			CK(cudaSetDevice(devs[r]));
			CK(cudaMemset(M.signals[r], 0, sizeof(unsigned long long) * nsig));
		}
		for (int c = 0; multi && c < nc; c++) {
			CK(cudaSetDevice(devs[plan->conn_dst[c]]));
			CK(cudaMemset(M.ctl[c], 0, sizeof(gh_mailbox_ctl)));
			CK(cudaMemset(M.slots[c], 0, (size_t)plan->conn_slots[c] * GH_SLOT_BYTES));
		}
		for (int g = 0; g < ndevs; g++) {
			CK(cudaSetDevice(devs[g]));
			CK(cudaDeviceSynchronize());
		}
		for (int g = 0; g < ndevs; g++) {
			void *args[] = {&M.P[g]};
			CK(cudaSetDevice(devs[g]));
			CK(cudaEventRecord(M.a[g], M.s[g]));
			CK(cudaLaunchCooperativeKernel((const void *)gh_interp_kernel, dim3(per_launch),
						       dim3(GH_THREADS), args, 0, M.s[g]));
			CK(cudaEventRecord(M.b[g], M.s[g]));
		}
		float worst = 0;
		for (int g = 0; g < ndevs; g++) {
			float ms = 0;
			CK(cudaSetDevice(devs[g]));
			CK(cudaEventSynchronize(M.b[g]));
			CK(cudaEventElapsedTime(&ms, M.a[g], M.b[g]));
			worst = ms > worst ? ms : worst;
		}
		CK(cudaSetDevice(devs[0]));
		CK(cudaMemcpy(&herr, M.err, sizeof(int), cudaMemcpyDeviceToHost));
		if (herr) {
			snprintf(why, GH_WHY, "interpreter: a block waited more than %.3g s for a peer (schedule deadlock or lost flag)",
				 GH_SPIN_TIMEOUT_NS / 1e9);
			st = GC_ERR_DEADLOCK;
			goto out;
		}
		if (it >= 0)
			us[it] = (double)worst * 1e3;
	}
	for (int r = 0; r < nr; r++) {
		CK(cudaSetDevice(devs[multi ? r : 0]));
		CK(cudaMemcpy((char *)outputs + (uint64_t)r * plan->buf_bytes[GS_BUF_OUTPUT],
			      M.arena[r] + plan->buf_off[GS_BUF_OUTPUT], plan->buf_bytes[GS_BUF_OUTPUT],
			      cudaMemcpyDeviceToHost));
	}
out:
	run_mem_free(&M, plan);
	return st;
}
