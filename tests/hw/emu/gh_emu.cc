/* SPDX-License-Identifier: MIT */
/*
 * The CUDA emulation's runtime (see cuda_runtime.h beside this file):
 * memory with bounds and kinds, streams and events, deferred launches, and
 * the coroutine scheduler that runs a launch's threads.
 *
 * Scheduler: one coroutine per CUDA thread, on a stack of its own (kept
 * in a pool for the next launch). On x86-64 a coroutine switch saves the
 * callee-saved registers and swaps stack pointers (gh_emu_switch below);
 * elsewhere (or built with -DGH_EMU_UCONTEXT) it is swapcontext, which
 * also saves the signal mask with a system call on every switch: about
 * three times slower. A run covers a set of blocks: every block of every
 * pending cooperative launch together, or a wave of up to 8 blocks of one
 * ordinary launch. The scheduler visits its coroutines in a fixed order
 * (launch, block, thread) and resumes each runnable one until it gives
 * way: at a __syncthreads it cannot pass yet, at a read of the clock, or
 * at its end. A block's barrier opens when every live thread of the block
 * has arrived (a thread that returned no longer counts). When no coroutine
 * is runnable but some are left, every one of them waits at a barrier that
 * can never open -- a __syncthreads reached by some threads of a block and
 * not others -- and the emulation stops the program with that message.
 */
#include "cuda_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

#include <functional>
#include <map>
#include <vector>

#if defined(__x86_64__) && !defined(GH_EMU_UCONTEXT)
#define GH_EMU_FAST_SWITCH 1
/* gh_emu_switch(save, to): saves the callee-saved registers on the current
 * stack and the stack pointer in *save, then resumes the stack `to` (one
 * this function saved, or a new coroutine's, built to look like one). */
extern "C" void gh_emu_switch(void **save, void *to);
asm(".text\n"
    ".globl gh_emu_switch\n"
    ".type gh_emu_switch, @function\n"
    "gh_emu_switch:\n"
    "\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
    "\tmovq %rsp, (%rdi)\n"
    "\tmovq %rsi, %rsp\n"
    "\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
    "\tret\n"
    ".size gh_emu_switch, .-gh_emu_switch\n");
#else
#define GH_EMU_FAST_SWITCH 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define GH_EMU_ASAN 1
#else
#define GH_EMU_ASAN 0
#endif

namespace {

const int max_devices = 16;
const size_t shared_bytes = 48 * 1024; /* static shared memory per block */
const size_t stack_bytes = 256 * 1024;
const int threads_per_sm = 2048;

int ndevices = 2;
int nsms = 132;
int current_dev = 0;
uint64_t launches_run = 0;

[[noreturn]] void die(const char *what)
{
	fprintf(stderr, "CUDA emulation: %s\n", what);
	abort();
}

/* ---- memory ------------------------------------------------------------ */

struct alloc {
	size_t bytes;
	int dev;
};
std::map<uintptr_t, alloc> allocs;	   /* device allocations by start address */
std::map<uintptr_t, alloc> host_allocs; /* host-pinned ones (dev: -1 unmapped) */

/* The device allocation holding [p, p + n), or nullptr. */
const alloc *find_alloc(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	auto it = allocs.upper_bound(a);
	if (it == allocs.begin())
		return nullptr;
	--it;
	if (a - it->first > it->second.bytes || n > it->second.bytes - (a - it->first))
		return nullptr;
	return &it->second;
}

/* ---- launches, events --------------------------------------------------- */

struct kernel {
	size_t arg_bytes;
	gh_emu::invoker invoke;
};
std::map<const void *, kernel> &kernels()
{
	static std::map<const void *, kernel> k;
	return k;
}

struct grid_run {
	std::function<void()> call; /* one thread's run of the kernel */
	dim3 grid, block;
	int dev;
	cudaStream_t s;
	bool coop; /* every block resident at once */
};
std::vector<grid_run> pending; /* launched, not yet run */
/* gh_emu_set_lag: block lag_block of every cooperative launch starts only
 * after lag_sweeps sweeps of the scheduler (none when lag_sweeps is 0) */
unsigned lag_block, lag_sweeps;

} // namespace

struct gh_emu_stream {
	int dev;
};
struct gh_emu_event {
	bool recorded, waits; /* waits: recorded behind launches not yet run */
	uint64_t ns;
};

namespace {

std::vector<gh_emu_event *> waiting_events;

uint64_t now_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the scheduler ------------------------------------------------------- */

enum state { RUNNABLE, AT_BARRIER, AT_WARP, DONE };

struct coro;
} // namespace

struct gh_emu::block {
	int live;	   /* threads not yet returned */
	int arrived;	   /* threads waiting at the barrier */
	unsigned gen;	   /* barriers opened so far */
	/* per warp of 32 threads: live threads, those waiting at __syncwarp,
	 * and its barriers opened so far */
	std::vector<int> wlive, warrived;
	std::vector<unsigned> wgen;
	std::vector<coro *> threads;
	alignas(16) unsigned char shared[shared_bytes];
};

namespace {

struct coro {
#if GH_EMU_FAST_SWITCH
	void *sp; /* its saved stack pointer while it is not running */
#else
	ucontext_t uc;
#endif
	void *stack;
	gh_emu::thread_ctx t;
	state st;
	unsigned gen; /* the barrier generation it waits for to pass */
	const grid_run *l;
#if GH_EMU_ASAN
	void *fake_stack;
#endif
};

#if GH_EMU_FAST_SWITCH
void *sched_sp;
#else
ucontext_t sched_uc;
#endif
coro *running;
std::vector<void *> stack_pool; /* stacks of finished coroutines */
#if GH_EMU_ASAN
const void *sched_stack_bottom;
size_t sched_stack_size;
#endif

/* From the running coroutine back to the scheduler. */
void to_scheduler(bool finished)
{
	coro *c = running;
#if GH_EMU_ASAN
	__sanitizer_start_switch_fiber(finished ? nullptr : &c->fake_stack, sched_stack_bottom,
				       sched_stack_size);
#else
	(void)finished;
#endif
#if GH_EMU_FAST_SWITCH
	gh_emu_switch(&c->sp, sched_sp);
#else
	if (swapcontext(&c->uc, &sched_uc) != 0)
		die("swapcontext failed");
#endif
#if GH_EMU_ASAN
	__sanitizer_finish_switch_fiber(c->fake_stack, &sched_stack_bottom, &sched_stack_size);
#endif
}

/* Every live thread of b has arrived at its barrier: those waiting there
 * go on. */
void open_barrier(gh_emu::block *b)
{
	b->arrived = 0;
	b->gen++;
	for (coro *o : b->threads)
		if (o->st == AT_BARRIER)
			o->st = RUNNABLE;
}

/* Threads of a warp whose __syncwarp just opened: the scheduler runs them
 * before any other thread, so what a warp does between two of its
 * barriers (a line of 128 bytes stored by eight threads at once, on a GPU
 * one instruction) is seen by other blocks whole, never half done. */
std::vector<coro *> urgent;

/* Every live thread of warp w of b has arrived at __syncwarp: they go on,
 * first. */
void open_warp(gh_emu::block *b, unsigned w)
{
	b->warrived[w] = 0;
	b->wgen[w]++;
	for (size_t i = (size_t)w * 32; i < b->threads.size() && i < (size_t)w * 32 + 32; i++)
		if (b->threads[i]->st == AT_WARP) {
			b->threads[i]->st = RUNNABLE;
			urgent.push_back(b->threads[i]);
		}
}

/* A coroutine's first frame; it never returns (its stack has nothing to
 * return to), it switches away for good. */
void coro_main()
{
	coro *c = running;
#if GH_EMU_ASAN
	__sanitizer_finish_switch_fiber(nullptr, &sched_stack_bottom, &sched_stack_size);
#endif
	c->l->call();
	c->st = DONE;
	gh_emu::block *b = c->t.blk;
	b->live--;
	/* the threads still waiting at a barrier may now be all that is live */
	if (b->live > 0 && b->arrived == b->live)
		open_barrier(b);
	const unsigned w = c->t.tid.x / 32;
	if (--b->wlive[w] > 0 && b->warrived[w] == b->wlive[w])
		open_warp(b, w);
	to_scheduler(true);
	die("a finished thread was resumed");
}

void resume(coro *c)
{
	running = c;
#if GH_EMU_ASAN
	void *fake = nullptr;
	__sanitizer_start_switch_fiber(&fake, c->stack, stack_bytes);
#endif
#if GH_EMU_FAST_SWITCH
	gh_emu_switch(&sched_sp, c->sp);
#else
	if (swapcontext(&sched_uc, &c->uc) != 0)
		die("swapcontext failed");
#endif
#if GH_EMU_ASAN
	__sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
	running = nullptr;
}

/* Thread ti of block bi of launch l, ready to start (a function of its
 * own: getcontext returns twice, so no loop variable may live across it). */
__attribute__((noinline)) coro *new_coro(const grid_run *l, gh_emu::block *b, unsigned bi,
					 unsigned ti)
{
	coro *c = new coro();
	c->l = l;
	c->t.tid = {ti, 0, 0};
	c->t.bid = {bi, 0, 0};
	c->t.bdim = l->block;
	c->t.gdim = l->grid;
	c->t.blk = b;
	c->st = RUNNABLE;
	if (!stack_pool.empty()) {
		c->stack = stack_pool.back();
		stack_pool.pop_back();
#if GH_EMU_ASAN
		/* its last coroutine never returned: the redzones of its frames
		 * are still marked */
		__asan_unpoison_memory_region(c->stack, stack_bytes);
#endif
	} else {
		c->stack = mmap(nullptr, stack_bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (c->stack == MAP_FAILED)
			die("no memory for a thread's stack");
	}
#if GH_EMU_FAST_SWITCH
	/* what gh_emu_switch pops: six registers, then the return address,
	 * coro_main's, entered with the stack as a call leaves it */
	void **top = (void **)((char *)c->stack + stack_bytes);
	top -= 2;
	top[0] = (void *)coro_main;
	top[1] = nullptr;
	top -= 6;
	memset(top, 0, 6 * sizeof(void *));
	c->sp = top;
#else
	if (getcontext(&c->uc) != 0)
		die("getcontext failed");
	c->uc.uc_stack.ss_sp = c->stack;
	c->uc.uc_stack.ss_size = stack_bytes;
	c->uc.uc_link = nullptr;
	makecontext(&c->uc, coro_main, 0);
#endif
	return c;
}

/* Runs the given blocks (launch, block index) to completion, together. */
void run_blocks(const std::vector<std::pair<const grid_run *, unsigned>> &which)
{
	std::vector<gh_emu::block *> blocks;
	std::vector<coro *> all;
	for (const auto &w : which) {
		const grid_run &l = *w.first;
		gh_emu::block *b = new gh_emu::block();
		b->live = (int)l.block.x;
		const unsigned nw = (l.block.x + 31) / 32;
		b->wlive.assign(nw, 32);
		b->wlive[nw - 1] = (int)(l.block.x - (nw - 1) * 32);
		b->warrived.assign(nw, 0);
		b->wgen.assign(nw, 0);
		memset(b->shared, 0xa5, sizeof(b->shared));
		blocks.push_back(b);
		for (unsigned ti = 0; ti < l.block.x; ti++) {
			coro *c = new_coro(&l, b, w.second, ti);
			b->threads.push_back(c);
			all.push_back(c);
		}
	}
	size_t left = all.size();
	auto step = [&](coro *c) {
		resume(c);
		if (c->st == DONE) {
			left--;
			stack_pool.push_back(c->stack);
			c->stack = nullptr;
		}
	};
	unsigned sweep = 0;
	while (left) {
		bool ran = false;
		const bool lagging = sweep++ < lag_sweeps;
		for (coro *c : all) {
			if (c->st != RUNNABLE)
				continue;
			if (lagging && c->l->coop && c->t.bid.x == lag_block) {
				ran = true; /* it will run: not a deadlock */
				continue;
			}
			ran = true;
			step(c);
			/* a warp that met runs on before anyone else */
			for (size_t u = 0; u < urgent.size(); u++)
				if (urgent[u]->st == RUNNABLE)
					step(urgent[u]);
			urgent.clear();
		}
		if (!ran)
			die("every thread left waits at a __syncthreads or __syncwarp that some "
			    "threads of its block or warp never reach");
	}
	for (coro *c : all)
		delete c;
	for (gh_emu::block *b : blocks)
		delete b;
}

/* Runs every pending launch to completion: cooperative launches (the
 * interpreter's, one per emulated GPU) all together, every block at once;
 * others one after the other in launch order, in waves of a few blocks. */
void run_pending()
{
	if (pending.empty())
		return;
	std::vector<grid_run> ls;
	ls.swap(pending);
	const unsigned wave = 8;
	std::vector<std::pair<const grid_run *, unsigned>> which;
	for (const grid_run &l : ls)
		if (l.coop)
			for (unsigned bi = 0; bi < l.grid.x; bi++)
				which.emplace_back(&l, bi);
	if (!which.empty())
		run_blocks(which);
	for (const grid_run &l : ls)
		for (unsigned b0 = 0; !l.coop && b0 < l.grid.x; b0 += wave) {
			which.clear();
			for (unsigned bi = b0; bi < l.grid.x && bi < b0 + wave; bi++)
				which.emplace_back(&l, bi);
			run_blocks(which);
		}
	uint64_t end = now_ns();
	for (gh_emu_event *e : waiting_events) {
		e->ns = end;
		e->waits = false;
	}
	waiting_events.clear();
	launches_run += ls.size();
}

/* A grid of blocks of threads in x alone, within CUDA's limits. */
bool shape_ok(dim3 grid, dim3 block, size_t shmem)
{
	return grid.x >= 1 && block.x >= 1 && block.x <= 1024 && grid.y == 1 && grid.z == 1 &&
	       block.y == 1 && block.z == 1 && shmem <= shared_bytes;
}

/* A launch checked and queued until something synchronizes. */
cudaError_t enqueue(dim3 grid, dim3 block, size_t shmem, cudaStream_t s, std::function<void()> call,
		    bool coop)
{
	if (!shape_ok(grid, block, shmem))
		return cudaErrorInvalidConfiguration;
	if (s && s->dev != current_dev)
		return cudaErrorInvalidResourceHandle;
	pending.push_back(grid_run{std::move(call), grid, block, current_dev, s, coop});
	return cudaSuccess;
}

/* cudaMalloc and cudaHostAlloc: `bytes` aligned to `align`, recorded in
 * `kind` with its device, filled with 0xa5 (never zeroed, as neither
 * is). */
cudaError_t acquire(std::map<uintptr_t, alloc> &kind, void **p, size_t bytes, size_t align, int dev)
{
	if (!p)
		return cudaErrorInvalidValue;
	size_t n = bytes ? (bytes + align - 1) / align * align : align;
	void *m = aligned_alloc(align, n);
	if (!m)
		return cudaErrorMemoryAllocation;
	memset(m, 0xa5, n);
	kind[(uintptr_t)m] = alloc{bytes, dev};
	*p = m;
	return cudaSuccess;
}

/* cudaFree and cudaFreeHost: p must start an allocation of that kind (or
 * be null); what was launched before runs first, as it may still use it. */
cudaError_t release(std::map<uintptr_t, alloc> &kind, void *p)
{
	run_pending();
	if (!p)
		return cudaSuccess;
	auto it = kind.find((uintptr_t)p);
	if (it == kind.end())
		return cudaErrorInvalidValue;
	kind.erase(it);
	free(p);
	return cudaSuccess;
}

const char *error_name(cudaError_t e)
{
	switch (e) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
	case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
	case cudaErrorNoDevice: return "cudaErrorNoDevice";
	case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
	case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
	case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
	case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
	case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
	}
	return "cudaErrorUnknown";
}

} // namespace

extern "C" void gh_emu_set_devices(int n)
{
	ndevices = n < 1 ? 1 : n > max_devices ? max_devices : n;
	current_dev = 0;
}

extern "C" void gh_emu_set_sms(int n)
{
	nsms = n < 1 ? 1 : n;
}

extern "C" void gh_emu_set_lag(unsigned block, unsigned sweeps)
{
	lag_block = block;
	lag_sweeps = sweeps;
}

extern "C" size_t gh_emu_live_allocs(void)
{
	return allocs.size() + host_allocs.size();
}

extern "C" uint64_t gh_emu_launches(void)
{
	return launches_run;
}

namespace gh_emu {

thread_ctx *self()
{
	if (!running)
		die("threadIdx or blockIdx read outside a kernel");
	return &running->t;
}

void syncthreads()
{
	coro *c = running;
	if (!c)
		die("__syncthreads outside a kernel");
	block *b = c->t.blk;
	if (++b->arrived == b->live) {
		open_barrier(b);
		return;
	}
	c->st = AT_BARRIER;
	c->gen = b->gen;
	to_scheduler(false);
	if (b->gen == c->gen)
		die("a thread passed a barrier that had not opened");
}

void syncwarp()
{
	coro *c = running;
	if (!c)
		die("__syncwarp outside a kernel");
	block *b = c->t.blk;
	const unsigned w = c->t.tid.x / 32;
	if (++b->warrived[w] == b->wlive[w]) {
		open_warp(b, w);
		return;
	}
	c->st = AT_WARP;
	c->gen = b->wgen[w];
	to_scheduler(false);
	if (b->wgen[w] == c->gen)
		die("a thread passed a warp barrier that had not opened");
}

uint64_t gtime_ns()
{
	uint64_t t = now_ns();
	if (running)
		to_scheduler(false);
	return t;
}

void *block_shared(size_t bytes, size_t align)
{
	thread_ctx *t = self();
	size_t at = (t->shared_cursor + align - 1) / align * align;
	if (at + bytes > shared_bytes)
		die("a block declares more than 48 KiB of shared memory");
	t->shared_cursor = at + bytes;
	return t->blk->shared + at;
}

bool register_kernel(const void *fn, size_t arg_bytes, invoker invoke)
{
	kernels()[fn] = kernel{arg_bytes, invoke};
	return true;
}

cudaError_t cudaGetDeviceCount(int *n)
{
	*n = ndevices;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int d)
{
	if (d < 0 || d >= ndevices)
		return cudaErrorInvalidDevice;
	current_dev = d;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d)
{
	*d = current_dev;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int dev)
{
	if (dev < 0 || dev >= ndevices)
		return cudaErrorInvalidDevice;
	switch (a) {
	case cudaDevAttrMultiProcessorCount: *v = nsms; return cudaSuccess;
	case cudaDevAttrMemoryClockRate: *v = 2619000; return cudaSuccess;
	case cudaDevAttrCooperativeLaunch: *v = 1; return cudaSuccess;
	}
	return cudaErrorInvalidValue;
}

cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer)
{
	if (dev < 0 || dev >= ndevices || peer < 0 || peer >= ndevices)
		return cudaErrorInvalidDevice;
	*can = dev != peer;
	return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags)
{
	static bool enabled[max_devices][max_devices];
	if (peer < 0 || peer >= ndevices || peer == current_dev || flags)
		return cudaErrorInvalidDevice;
	if (enabled[current_dev][peer])
		return cudaErrorPeerAccessAlreadyEnabled;
	enabled[current_dev][peer] = true;
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize()
{
	run_pending();
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
	run_pending();
	/* 256-byte aligned, as cudaMalloc's */
	return acquire(allocs, p, bytes, 256, current_dev);
}

cudaError_t cudaFree(void *p)
{
	return release(allocs, p);
}

cudaError_t cudaMemset(void *p, int v, size_t bytes)
{
	run_pending();
	if (!find_alloc(p, bytes))
		return cudaErrorInvalidValue;
	memset(p, v, bytes);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind k)
{
	run_pending();
	bool dst_dev = k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice;
	bool src_dev = k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice;
	if ((dst_dev && !find_alloc(dst, bytes)) || (!dst_dev && find_alloc(dst, 1)) ||
	    (src_dev && !find_alloc(src, bytes)) || (!src_dev && find_alloc(src, 1)))
		return cudaErrorInvalidValue;
	if (bytes)
		memmove(dst, src, bytes);
	return cudaSuccess;
}

/* In stream order, which the emulation keeps by running what was launched
 * before it first. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind k,
			    cudaStream_t s)
{
	return cudaMemcpy(dst, src, bytes, k);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
				cudaStream_t s)
{
	run_pending();
	const alloc *d = find_alloc(dst, bytes), *a = find_alloc(src, bytes);
	if (!d || !a || d->dev != dst_dev || a->dev != src_dev)
		return cudaErrorInvalidValue;
	if (bytes)
		memmove(dst, src, bytes);
	return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags)
{
	if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped))
		return cudaErrorInvalidValue;
	/* page-aligned, as pinned pages are */
	return acquire(host_allocs, p, bytes, 4096, flags & cudaHostAllocMapped ? current_dev : -1);
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
	return cudaHostAlloc(p, bytes, 0);
}

cudaError_t cudaFreeHost(void *p)
{
	return release(host_allocs, p);
}

/* A mapped host allocation is reached by the kernel at its own address. */
cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned flags)
{
	auto it = host_allocs.find((uintptr_t)host);
	if (flags || it == host_allocs.end() || it->second.dev < 0)
		return cudaErrorInvalidValue;
	*dev = host;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
	if (dev < 0 || dev >= ndevices)
		return cudaErrorInvalidDevice;
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "CUDA emulation on the CPU");
	p->major = 9;
	p->minor = 0;
	p->multiProcessorCount = nsms;
	p->totalGlobalMem = 16ull << 30;
	p->memoryBusWidth = 5120;
	p->l2CacheSize = 50 << 20;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int dev)
{
	if (dev < 0 || dev >= ndevices || len < 13)
		return cudaErrorInvalidValue;
	snprintf(id, (size_t)len, "0000:%02x:00.0", 0x10 + dev);
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
	*v = 13000;
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
	*v = 13000;
	return cudaSuccess;
}

cudaError_t launch(dim3 grid, dim3 block, size_t shmem, cudaStream_t s, std::function<void()> call)
{
	return enqueue(grid, block, shmem, s, std::move(call), false);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
	*s = new gh_emu_stream{current_dev};
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	run_pending();
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	run_pending();
	delete s;
	return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	*e = new gh_emu_event{false, false, 0};
	return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	run_pending();
	delete e;
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	e->recorded = true;
	bool behind = false;
	for (const grid_run &l : pending)
		behind |= !s || l.dev == s->dev;
	if (behind) {
		waiting_events.push_back(e);
		e->waits = true;
	} else {
		e->ns = now_ns();
		e->waits = false;
	}
	return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
	run_pending();
	return e->recorded ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	if (!a->recorded || !b->recorded || a->waits || b->waits)
		return cudaErrorInvalidResourceHandle;
	*ms = (float)((double)(b->ns - a->ns) / 1e6);
	return cudaSuccess;
}

cudaError_t occupancy(int *blocks, const void *fn, int block_size, size_t shmem)
{
	if (!kernels().count(fn))
		return cudaErrorInvalidDeviceFunction;
	if (block_size < 1 || block_size > 1024)
		return cudaErrorInvalidValue;
	int n = threads_per_sm / block_size;
	*blocks = n > 32 ? 32 : n;
	return cudaSuccess;
}

cudaError_t cudaLaunchCooperativeKernel(const void *fn, dim3 grid, dim3 block, void **args,
					size_t shmem, cudaStream_t s)
{
	auto it = kernels().find(fn);
	if (it == kernels().end())
		return cudaErrorInvalidDeviceFunction;
	if (!shape_ok(grid, block, shmem))
		return cudaErrorInvalidConfiguration;
	int per_sm = 0;
	occupancy(&per_sm, fn, (int)block.x, shmem);
	if ((uint64_t)grid.x > (uint64_t)per_sm * (uint64_t)nsms)
		return cudaErrorCooperativeLaunchTooLarge;
	std::vector<unsigned char> arg((const unsigned char *)args[0],
				       (const unsigned char *)args[0] + it->second.arg_bytes);
	invoker inv = it->second.invoke;
	return enqueue(grid, block, shmem, s, [arg, inv] { inv(arg.data()); }, true);
}

cudaError_t cudaGetLastError()
{
	return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t e)
{
	return e == cudaSuccess ? "no error" : error_name(e);
}

const char *cudaGetErrorName(cudaError_t e)
{
	return error_name(e);
}

} // namespace gh_emu
