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
 * the message size (and the plan's protocol, the same at both ends) so both
 * ends agree without talking:
 *  - LL (messages <= GH_LL_MAX bytes): the sender stores 8-byte lines
 *    {4 data bytes, 4 flag bytes} with flag = piece sequence number + 1; the
 *    receiver polls each line until its flag matches -- data and flag land
 *    in one store, so no fence is needed (NCCL's LL protocol).
 *  - Simple (larger, GH_PROTO_SIMPLE): the sender writes the slot,
 *    __threadfence(), then bumps head; the receiver waits for head, reads
 *    the slot through L2 (__ldcg, the slot may hold stale L1 lines from its
 *    previous use).
 *  - LL128 (larger, GH_PROTO_LL128): the slot is 128-byte lines of 120
 *    data bytes and an 8-byte flag (piece sequence number + 1); eight
 *    threads of one warp store a line with one 16-byte store each, the
 *    eighth carrying the flag, after the warp has met (__syncwarp) so that
 *    the line leaves as one warp instruction; the receiver waits for a
 *    line's flag, then reads its 16 bytes (NCCL's prims_ll128.h, which
 *    relies on the same: a line stored by one warp instruction arrives
 *    whole).
 *
 * Several blocks per strand (plan.blocks = K): block b of a strand moves
 * share b of every piece (gh_interp_part: whole 16-byte vectors, or whole
 * LL128 lines) through a mailbox counter pair of its own (ctl[c] + b) in
 * the connection's common slots, so a receiver's block b reads exactly what
 * its sender's block b wrote and the K blocks never wait for each other on
 * a mailbox. A PUT is cut the same way and each block signals for its
 * share, so a WAIT's threshold counts K signals per signalling strand. Where
 * a step reads or writes local bytes that an earlier step of the strand
 * moved over a different range (packing marks it GH_P_SYNC), the strand's
 * blocks meet first (a counter per strand, as a grid sync does).
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
/* A spin reads the clock (and, emulated, gives way) once every
 * GH_SPIN_POLLS + 1 polls; a power of two minus one. */
#ifndef GH_SPIN_POLLS
#define GH_SPIN_POLLS 1023u
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
	gh_mailbox_ctl *const *ctl;	     /* per connection: one per block of a strand */
	char *const *slots;		     /* per connection: nslots[c] * GH_SLOT_BYTES */
	const unsigned long long *nslots;   /* per connection: its slot count (the plan's conn_slots) */
	unsigned long long *const *signals; /* per rank: nsignals slot counters */
	int first_strand;		     /* strand of block 0 */
	int nstrands;
	int dtype;
	int sys; /* ranks on several GPUs: system-scope fences and atomics */
	int vec;  /* GH_KERNEL_VECTOR or PIPE: 16-byte loads and stores, unrolled */
	int pipe; /* GH_KERNEL_PIPE: loading and storing warps in a pipeline */
	int proto;  /* GH_PROTO_SIMPLE or GH_PROTO_LL128 above GH_LL_MAX */
	int blocks; /* blocks per strand: ctl[c] + b is block b's counters */
	unsigned long long *bars; /* per strand of this launch: its blocks' arrivals at meetings */
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

/* Checked every (GH_SPIN_POLLS + 1)th poll of a spin: whether this spin has waited more
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
		if ((++n & GH_SPIN_POLLS) == 0 && spin_expired(P, &since)) {
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

/* The warp-specialised pipeline (GH_KERNEL_PIPE): the block's first half
 * of warps load, the second half reduce and store. A round is
 * GH_PIPE_VEC vectors per loading thread; while the loaders bring round k
 * into one half of the block's staging memory, the storers reduce and
 * store round k - 1 from the other half, and the block's barrier ends
 * each phase. A loader issues only loads and never waits for a store; a
 * storer finds its operands in shared memory. */
#define GH_PIPE_VEC 2
#define GH_PIPE_SLOTS (GH_THREADS / 2 * GH_PIPE_VEC) /* vectors a round */

template <typename T>
__device__ static void compute_pipe(uint32_t props, const T *R, const T *L, T *D, T *S, uint64_t n,
				    bool r_l2, bool l_l2, uint4 *stage)
{
	const uint64_t V = 16 / sizeof(T), nv = n / V;
	const unsigned half = blockDim.x / 2;
	const bool loader = threadIdx.x < half;
	const unsigned t = loader ? threadIdx.x : threadIdx.x - half;
	const uint64_t C = (uint64_t)half * GH_PIPE_VEC, rounds = (nv + C - 1) / C;
	const uint4 *R4 = (const uint4 *)R, *L4 = (const uint4 *)L;
	uint4 *D4 = (uint4 *)D, *S4 = (uint4 *)S;
	const bool recv = props & GH_P_RECV, reduce = recv && (props & GH_P_REDUCE);
	/* stage[buffer][operand][slot]: operand 0 the received, 1 the local */
	for (uint64_t ph = 0; ph <= rounds; ph++) {
		if (loader && ph < rounds) {
			uint4 *st = stage + (ph % 2) * 2 * GH_PIPE_SLOTS;
			for (int j = 0; j < GH_PIPE_VEC; j++) {
				const uint64_t e = (uint64_t)j * half + t, i = ph * C + e;
				if (i >= nv)
					break;
				if (recv)
					st[e] = r_l2 ? __ldcg(R4 + i) : R4[i];
				if (!recv || reduce)
					st[GH_PIPE_SLOTS + e] = l_l2 ? __ldcg(L4 + i) : L4[i];
			}
		} else if (!loader && ph > 0) {
			const uint4 *st = stage + ((ph - 1) % 2) * 2 * GH_PIPE_SLOTS;
			for (int j = 0; j < GH_PIPE_VEC; j++) {
				const uint64_t e = (uint64_t)j * half + t, i = (ph - 1) * C + e;
				if (i >= nv)
					break;
				union {
					uint4 u;
					gh_vec<T> v;
				} a, b;
				a.u = recv ? st[e] : st[GH_PIPE_SLOTS + e];
				if (reduce) {
					b.u = st[GH_PIPE_SLOTS + e];
					for (uint64_t k = 0; k < V; k++)
						a.v.v[k] = a.v.v[k] + b.v.v[k];
				}
				if (props & GH_P_WRITES)
					vst<T>(D4 + i, a.v, false);
				if (S)
					vst<T>(S4 + i, a.v, r_l2);
			}
		}
		__syncthreads();
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

/* pipe: the block's staging memory when the pipeline may run (a Simple
 * piece, a PUT or a local copy under GH_KERNEL_PIPE), else nullptr. */
template <typename T>
__device__ static void compute_pick(bool vec, uint4 *pipe, uint32_t props, const T *R, const T *L, T *D,
				    T *S, uint64_t n, bool r_l2, bool l_l2)
{
	if (pipe && aligned16(R, L, D, S))
		compute_pipe<T>(props, R, L, D, S, n, r_l2, l_l2, pipe);
	else if (vec && aligned16(R, L, D, S))
		compute_vec<T>(props, R, L, D, S, n, r_l2, l_l2);
	else
		compute<T>(props, R, L, D, S, n, r_l2, l_l2);
}

__device__ static void compute_any(int dtype, uint32_t props, const void *R, const void *L, void *D,
				   void *S, uint64_t bytes, bool simple, bool l_l2, bool vec, uint4 *pipe)
{
	switch (dtype) {
	case GS_DT_F32:
		compute_pick<float>(vec, pipe, props, (const float *)R, (const float *)L, (float *)D,
				    (float *)S, bytes / 4, simple, l_l2);
		break;
	case GS_DT_I32:
		compute_pick<int>(vec, pipe, props, (const int *)R, (const int *)L, (int *)D, (int *)S,
				  bytes / 4, simple, l_l2);
		break;
	default:
		compute_pick<double>(vec, pipe, props, (const double *)R, (const double *)L, (double *)D,
				     (double *)S, bytes / 8, simple, l_l2);
		break;
	}
}

/* 16 bytes as one volatile access, as NCCL's load128/store128: the eight
 * threads of an LL128 line store it with one warp instruction, which is
 * what lets the line's flag vouch for the data beside it. The CPU
 * emulation has no PTX; its threads interleave only where they give way. */
__device__ static inline void vst128(volatile uint64_t *p, uint64_t a, uint64_t b)
{
#ifdef GH_CUDA_EMU
	p[0] = a;
	p[1] = b;
#else
	asm volatile("st.volatile.v2.u64 [%0], {%1,%2};" ::"l"(p), "l"(a), "l"(b) : "memory");
#endif
}

__device__ static inline void vld128(const volatile uint64_t *p, uint64_t *a, uint64_t *b)
{
#ifdef GH_CUDA_EMU
	*a = p[0];
	*b = p[1];
#else
	asm volatile("ld.volatile.v2.u64 {%0,%1}, [%2];" : "=l"(*a), "=l"(*b) : "l"(p) : "memory");
#endif
}

/* One thread's share of an LL128 line after the receive: the nb data bytes
 * in w (received, or none), reduced with or replaced by L's, written to D
 * where the step writes, left in w for the line it sends. */
template <typename T>
__device__ static void ll128_apply(uint32_t props, uint64_t *w, const char *L, char *D, uint64_t nb,
				   bool l_l2)
{
	union {
		uint64_t u[2];
		T t[16 / sizeof(T)];
	} x;
	x.u[0] = w[0];
	x.u[1] = w[1];
	const T *Lt = (const T *)L;
	for (uint64_t k = 0; k < nb / sizeof(T); k++) {
		T v;
		if (props & GH_P_RECV) {
			v = x.t[k];
			if (props & GH_P_REDUCE)
				v = v + (l_l2 ? __ldcg(Lt + k) : Lt[k]);
		} else {
			v = l_l2 ? __ldcg(Lt + k) : Lt[k];
		}
		if (props & GH_P_WRITES)
			((T *)D)[k] = v;
		x.t[k] = v;
	}
	w[0] = x.u[0];
	w[1] = x.u[1];
}

/* A block's pass over the LL128 lines [lo, hi) / GH_LL128_DATA of an n-byte
 * piece: thread p of each group of eight takes the line's words 2p and
 * 2p + 1 (data bytes 16p.. of the line; the eighth thread one data word and
 * the flag), GH_UNROLL such units a round, all loads of a round before its
 * stores (NCCL's loads in flight). A receiving thread waits for its line's
 * flag, in_flag, then reads its words; a sending thread stores its two
 * words (the eighth with out_flag) in one 16-byte store, whether or not
 * the piece's data reaches them, so every line of the piece carries its
 * flag. A wait that times out raises P.err and stops waiting; the
 * caller's barrier and check end the block. */
__device__ static void ll128_pass(const gh_dev_plan &P, uint32_t props, const char *in_slot,
				  const char *L, char *D, char *out_slot, uint64_t n, uint64_t lo,
				  uint64_t hi, uint64_t in_flag, uint64_t out_flag, bool l_l2)
{
	const uint64_t l0 = lo / GH_LL128_DATA, l1 = (hi + GH_LL128_DATA - 1) / GH_LL128_DATA;
	const uint64_t total = (l1 - l0) * 8, round = (uint64_t)blockDim.x * GH_UNROLL;
	bool failed = false;
	/* every thread runs every round (the warp meets before its stores) */
	for (uint64_t base = 0; base < total; base += round) {
		uint64_t w[GH_UNROLL][2];
		for (int u = 0; u < GH_UNROLL; u++) {
			const uint64_t idx = base + (uint64_t)u * blockDim.x + threadIdx.x;
			const uint64_t line = l0 + idx / 8, p = idx % 8, b0 = line * GH_LL128_DATA + p * 16;
			const uint64_t want = p == 7 ? 8 : 16;
			const uint64_t nb = idx >= total || b0 >= n ? 0 : b0 + want > n ? n - b0 : want;
			w[u][0] = w[u][1] = 0;
			if (in_slot && nb && !failed) {
				const volatile uint64_t *ln =
					(const volatile uint64_t *)(in_slot + line * GH_LL128_LINE);
				unsigned k = 0;
				uint64_t since = 0;
				while (ln[15] != in_flag) {
					if ((++k & GH_SPIN_POLLS) == 0 && spin_expired(P, &since)) {
						atomicExch(P.err, 1);
						failed = true;
						break;
					}
				}
				vld128(ln + 2 * p, &w[u][0], &w[u][1]);
			}
			if (nb) {
				switch (P.dtype) {
				case GS_DT_F32: ll128_apply<float>(props, w[u], L + b0, D + b0, nb, l_l2); break;
				case GS_DT_I32: ll128_apply<int>(props, w[u], L + b0, D + b0, nb, l_l2); break;
				default: ll128_apply<double>(props, w[u], L + b0, D + b0, nb, l_l2); break;
				}
			}
		}
		/* a line's eight threads store together, as one warp instruction:
		 * none may store its flag while another still waits for its data
		 * (threads of a warp diverge in the waits above) */
		__syncwarp();
		for (int u = 0; out_slot && u < GH_UNROLL; u++) {
			const uint64_t idx = base + (uint64_t)u * blockDim.x + threadIdx.x;
			if (idx >= total)
				break;
			const uint64_t line = l0 + idx / 8, p = idx % 8;
			volatile uint64_t *ln = (volatile uint64_t *)(out_slot + line * GH_LL128_LINE);
			vst128(ln + 2 * p, w[u][0], p == 7 ? out_flag : w[u][1]);
		}
	}
}

/* The strand's blocks meet (GH_P_SYNC): every thread's earlier stores are
 * made visible past the block (thread 0's fence after the block's barrier,
 * as a grid sync does), then thread 0 counts this block in and waits for
 * the `want`-th arrival. */
__device__ static bool meet(const gh_dev_plan &P, unsigned long long *bar, unsigned long long want,
			    int &ok)
{
	__syncthreads();
	if (threadIdx.x == 0) {
		fence(P);
		atomicAdd(bar, 1ull);
		ok = spin(P, [&] { return vload(bar) >= want; }) ? 1 : 0;
		fence(P);
	}
	__syncthreads();
	return ok;
}

/* A block's shared memory: an LL message staged in and out, and thread 0's
 * verdict on a wait, for the whole block. */
struct gh_stage {
	union {
		struct {
			__align__(16) char in[GH_LL_MAX];
			__align__(16) char out[GH_LL_MAX];
		} ll;
		/* GH_KERNEL_PIPE's two rounds of two operands (never during an
		 * LL piece, whose staging shares the bytes) */
		uint4 pipe[2 * 2 * GH_PIPE_SLOTS];
	} u;
	int ok;
};

__global__ void __launch_bounds__(GH_THREADS) gh_interp_kernel(gh_dev_plan P)
{
	GH_SHARED(gh_stage, sh);
	char *const in_stage = sh.u.ll.in, *const out_stage = sh.u.ll.out;
	uint4 *const pipe = P.pipe ? sh.u.pipe : nullptr;
	int &ok = sh.ok;
	const int K = P.blocks, ls = (int)blockIdx.x / K, sub = (int)blockIdx.x % K;
	const int strand = P.first_strand + ls;
	const int rank = strand / P.nstrands;
	char *base = P.arena[rank];
	bool after_wait = false; /* a WAIT passed: read local operands through L2 */
	unsigned long long met = 0; /* the strand's meetings so far */
	for (uint64_t si = P.strand_off[strand]; si < P.strand_off[strand + 1]; si++) {
		const gs_step st = P.steps[si];
		const gh_step_aux ax = P.aux[si];
		if (K > 1 && (ax.props & GH_P_SYNC) && !meet(P, P.bars + ls, ++met * (unsigned long long)K, ok))
			return;
		if (ax.props & (GH_P_PUT | GH_P_SIGNAL | GH_P_WAIT)) {
			if (ax.props & GH_P_PUT) {
				/* this block's share; each block signals for its own */
				uint64_t lo, hi;
				gh_interp_part(st.bytes, st.bytes, GH_PROTO_SIMPLE, K, sub, &lo, &hi);
				const char *src = base + P.buf_off[st.src_buf] + st.src_off + lo;
				char *dst = P.arena[st.send_peer] + P.buf_off[st.dst_buf] + st.dst_off + lo;
				compute_any(P.dtype, GH_P_READS | GH_P_WRITES, nullptr, src, dst, nullptr, hi - lo,
					    false, after_wait, P.vec, pipe);
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
					/* every block of each signalling strand adds one */
					const unsigned long long *slot = P.signals[rank] + st.src_off;
					const unsigned long long want = st.bytes * (unsigned long long)K;
					ok = spin(P, [&] { return vload(slot) >= want; }) ? 1 : 0;
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
		const bool l128 = !ll && P.proto == GH_PROTO_LL128;
		const uint64_t cap = gh_interp_piece_cap(st.bytes, P.proto);
		const char *L = base + P.buf_off[st.src_buf] + st.src_off;
		char *D = base + P.buf_off[st.dst_buf] + st.dst_off;
		gh_mailbox_ctl *in = ax.recv_conn >= 0 ? P.ctl[ax.recv_conn] + sub : nullptr;
		gh_mailbox_ctl *out = ax.send_conn >= 0 ? P.ctl[ax.send_conn] + sub : nullptr;
		const unsigned long long in_cap = in ? P.nslots[ax.recv_conn] : 1;
		const unsigned long long out_cap = out ? P.nslots[ax.send_conn] : 1;
		for (uint64_t off = 0; off < st.bytes || (off == 0 && st.bytes == 0); off += cap) {
			const uint64_t n = st.bytes - off < cap ? st.bytes - off : cap;
			uint64_t lo, hi; /* this block's bytes of the piece */
			gh_interp_part(n, st.bytes, P.proto, K, sub, &lo, &hi);
			if (threadIdx.x == 0) {
				ok = 1;
				if (out && !spin(P, [&] { return vload(&out->head) - vload(&out->tail) < out_cap; }))
					ok = 0;
				if (ok && in && !ll && !l128 &&
				    !spin(P, [&] { return vload(&in->head) > vload(&in->tail); }))
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
			if (l128) {
				/* flags name the piece: its sequence number + 1 */
				ll128_pass(P, ax.props, in_slot, L + off, D + off, out_slot, n, lo, hi, in_seq + 1,
					   out_seq + 1, after_wait);
			} else if (in && ll) {
				/* Poll every line until its flag shows this piece. */
				const uint32_t want = (uint32_t)in_seq + 1u;
				const volatile unsigned long long *lines = (const volatile unsigned long long *)in_slot;
				for (uint64_t w = lo / 4 + threadIdx.x; w < hi / 4; w += blockDim.x) {
					unsigned long long v = lines[w];
					unsigned k = 0;
					uint64_t since = 0;
					while ((uint32_t)(v >> 32) != want) {
						if ((++k & GH_SPIN_POLLS) == 0 && spin_expired(P, &since)) {
							atomicExch(P.err, 1);
							break;
						}
						v = lines[w];
					}
					((uint32_t *)in_stage)[w] = (uint32_t)v;
				}
				R = in_stage + lo;
			} else if (in) {
				fence(P);
				R = in_slot + lo;
			}
			__syncthreads();
			if (*(volatile int *)P.err)
				return;
			if (!l128) {
				/* LL: the staged words lo / 4.. sit at the same offsets */
				void *S = out ? (ll ? (void *)(out_stage + lo) : (void *)(out_slot + lo)) : nullptr;
				compute_any(P.dtype, ax.props, R, L + off + lo, D + off + lo, S, hi - lo, !ll,
					    after_wait, P.vec, ll ? nullptr : pipe);
			}
			if (out && ll) {
				__syncthreads();
				const uint32_t flag = (uint32_t)out_seq + 1u;
				volatile unsigned long long *lines = (volatile unsigned long long *)out_slot;
				for (uint64_t w = lo / 4 + threadIdx.x; w < hi / 4; w += blockDim.x)
					lines[w] = (unsigned long long)((const uint32_t *)out_stage)[w] |
						   ((unsigned long long)flag << 32);
			}
			if (out && !ll && !l128)
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
		cudaFree((void *)m->P[g].bars);
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
	const int K = plan->blocks > 0 ? plan->blocks : 1;
	const int strands_per_launch = multi ? plan->nstrands : nr * plan->nstrands;
	const int per_launch = strands_per_launch * K;
	for (int g = 0; g < ndevs; g++) {
		int per_sm = 0, nsm = 0, coop = 0;
		CK(cudaSetDevice(devs[g]));
		CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, devs[g]));
		CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, devs[g]));
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gh_interp_kernel, GH_THREADS, 0));
		if (!coop || per_launch > per_sm * nsm) {
			snprintf(why, GH_WHY,
				 "interpreter: %d ranks x %d strands x %d blocks = %d blocks per GPU, but only %d fit at once "
				 "on GPU %d (lower --ranks, the channel count or --blocks)",
				 multi ? 1 : nr, plan->nstrands, K, per_launch, per_sm * nsm, devs[g]);
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
			CK(cudaMalloc((void **)&M.ctl[c], sizeof(gh_mailbox_ctl) * (size_t)K));
			CK(cudaMalloc((void **)&M.slots[c], (size_t)plan->conn_slots[c] * GH_SLOT_BYTES));
		}
	} else {
		CK(cudaMalloc(&M.blocks[0], plan->rank_stride * (uint64_t)nr));
		CK(cudaMalloc(&M.blocks[1], sizeof(unsigned long long) * nsig * (uint64_t)nr));
		CK(cudaMalloc(&M.blocks[2], sizeof(gh_mailbox_ctl) * (size_t)(nc ? nc : 1) * (size_t)K));
		CK(cudaMalloc(&M.blocks[3], M.slots_total));
		for (int r = 0; r < nr; r++) {
			M.arena[r] = (char *)M.blocks[0] + (uint64_t)r * plan->rank_stride;
			M.signals[r] = (unsigned long long *)M.blocks[1] + (uint64_t)r * nsig;
		}
		size_t so = 0;
		for (int c = 0; c < nc; c++) {
			M.ctl[c] = (gh_mailbox_ctl *)M.blocks[2] + (size_t)c * (size_t)K;
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
		CK(cudaMalloc((void **)&P->bars, sizeof(unsigned long long) * (size_t)strands_per_launch));
		memcpy(P->buf_off, plan->buf_off, sizeof(P->buf_off));
		P->first_strand = multi ? g * plan->nstrands : 0;
		P->nstrands = plan->nstrands;
		P->dtype = plan->p.dtype;
		P->vec = plan->kernel == GH_KERNEL_VECTOR || plan->kernel == GH_KERNEL_PIPE;
		P->pipe = plan->kernel == GH_KERNEL_PIPE;
		P->proto = plan->proto;
		P->blocks = K;
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
			CK(cudaMemset(M.blocks[2], 0, sizeof(gh_mailbox_ctl) * (size_t)(nc ? nc : 1) * (size_t)K));
			CK(cudaMemset(M.blocks[3], 0, M.slots_total));
		}
		for (int r = 0; multi && r < nr; r++) {
			CK(cudaSetDevice(devs[r]));
			CK(cudaMemset(M.signals[r], 0, sizeof(unsigned long long) * nsig));
		}
		for (int c = 0; multi && c < nc; c++) {
			CK(cudaSetDevice(devs[plan->conn_dst[c]]));
			CK(cudaMemset(M.ctl[c], 0, sizeof(gh_mailbox_ctl) * (size_t)K));
			CK(cudaMemset(M.slots[c], 0, (size_t)plan->conn_slots[c] * GH_SLOT_BYTES));
		}
		for (int g = 0; g < ndevs; g++) {
			CK(cudaSetDevice(devs[g]));
			CK(cudaMemset(M.P[g].bars, 0, sizeof(unsigned long long) * (size_t)strands_per_launch));
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
