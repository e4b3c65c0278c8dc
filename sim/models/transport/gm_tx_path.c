/* SPDX-License-Identifier: MIT */
/*
 * gm_tx_path: the recipes of the communication types of Unat et al. (arXiv
 * 2409.09874, Tables in shared/reference/README.md) over gcsim's components.
 *
 * Intra-node: 1 host native (cudaMemcpy with peer access off, staged through
 * a pinned host buffer), 2 host-controlled (copy engine or kernel, GPU to GPU
 * over NVLink), 3 device native (SM stores into peer memory), 4 host fallback
 * (device stores through host memory). Inter-node: 1 host native (two staging
 * copies), 2 pinned host native (one), 3 GPU RDMA (CPU-issued GPUDirect RDMA,
 * or the CPU proxy of NVSHMEM IBRC: GPU request into a FIFO, proxy polls up
 * to proxy.batch requests per turn and posts each on one RC QP with its own
 * doorbell, or with proxy.post chained one doorbell per turn), 4
 * GPU-triggered (CPU pre-built work request, GPU rings the doorbell), 5
 * device native (NVSHMEM IBGDA: the GPU builds the work request and rings the
 * doorbell). "roundtrip" is the GPU -> CPU proxy -> GPU flag ping-pong of
 * gdrcopy's pplat.
 *
 * Invariants: every step depends only on earlier steps; each recipe ends at
 * the moment the receiver (a GPU thread, or the receiving CPU for the
 * CPU-driven types) knows the payload is in place. On an unordered transport
 * (EFA SRD) a signal cannot ride behind the data, so the receiving side
 * counts completions on the CPU and sets the GPU's flag through GDRCopy.
 */
#include "gm_tx.h"
#include "../../ge_engine.h"

#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

static const gm_tx_type_info types[] = {
	{"intra:1", NULL, "host native",
	 "CPU calls cudaMemcpy with peer access off: GPU -> pinned host buffer -> GPU, two PCIe copies"},
	{"intra:2", "ce|kernel", "host-controlled",
	 "CPU calls the API; a copy engine (or a kernel) moves GPU -> GPU directly over NVLink"},
	{"intra:3", NULL, "device native",
	 "a running kernel's SMs store straight into peer GPU memory over NVLink (NVSHMEM device API)"},
	{"intra:4", NULL, "host fallback",
	 "a running kernel stores into host memory and the peer GPU loads from there (no P2P)"},
	{"inter:1", NULL, "host native",
	 "CPU stages GPU -> GPU-pinned host buffer -> memcpy -> NIC-pinned buffer -> NIC: two copies"},
	{"inter:2", NULL, "pinned host native",
	 "CPU stages GPU -> host buffer pinned for both GPU and NIC -> NIC: one copy"},
	{"inter:3", "cpu|proxy", "GPU RDMA",
	 "the CPU builds the work request and rings the doorbell; the NIC reads GPU memory (GPUDirect RDMA)"},
	{"inter:4", NULL, "GPU-triggered",
	 "the CPU pre-builds the work request; the GPU rings the doorbell when the data is ready"},
	{"inter:5", NULL, "device native",
	 "the GPU builds the work request and rings the doorbell itself (IBGDA); no CPU at all"},
	{"roundtrip", "", "GPU -> CPU proxy -> GPU",
	 "a GPU flag seen by the CPU proxy, answered with a flag the GPU sees (gdrcopy pplat)"},
};

size_t gm_tx_type_count(void)
{
	return G_N_ELEMENTS(types);
}

const gm_tx_type_info *gm_tx_type_at(size_t i)
{
	return i < G_N_ELEMENTS(types) ? &types[i] : NULL;
}

/* ---- recipe builder -------------------------------------------------------- */

static int64_t ps_of_bytes(double bytes, double Bps)
{
	return ge_ps_sat(bytes / Bps * 1e12);
}

static int add(gm_tx_recipe *r, const char *actor, gm_tx_res res, int64_t fixed, const char *rule,
	       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int add(gm_tx_recipe *r, const char *actor, gm_tx_res res, int64_t fixed, const char *rule,
	       const char *fmt, ...)
{
	g_assert(r->nsteps < GM_TX_MAX_STEPS);
	int i = r->nsteps++;
	gm_tx_step *s = &r->steps[i];
	memset(s, 0, sizeof(*s));
	s->actor = actor;
	s->res = res;
	s->fixed_ps = fixed;
	g_strlcpy(s->rule, rule, sizeof(s->rule));
	va_list ap;
	va_start(ap, fmt);
	g_vsnprintf(s->action, sizeof(s->action), fmt, ap);
	va_end(ap);
	if (i > 0) {
		s->deps[0] = i - 1;
		s->ndeps = 1;
	}
	s->cpu = res == GM_TX_R_CPU || res == GM_TX_R_PROXY_POLL || res == GM_TX_R_PROXY_WORK ||
		 res == GM_TX_R_PROXY_DB || !strncmp(actor, "CPU", 3) ||
		 !strncmp(actor, "remote CPU", 10);
	return i;
}

static void route(gm_tx_recipe *r, int i, double bytes, int n, ...)
{
	gm_tx_step *s = &r->steps[i];
	va_list ap;
	va_start(ap, n);
	for (int h = 0; h < n; h++)
		s->route[h] = (uint8_t)va_arg(ap, int);
	va_end(ap);
	s->nhops = n;
	s->bytes = bytes;
}

static void deps(gm_tx_recipe *r, int i, int n, ...)
{
	gm_tx_step *s = &r->steps[i];
	va_list ap;
	va_start(ap, n);
	for (int k = 0; k < n; k++)
		s->deps[k] = va_arg(ap, int);
	va_end(ap);
	s->ndeps = n;
}

/* the cost of one read of a GPU-written flag by the proxy, by method */
static int64_t flag_read_ps(const gm_tx_params *p, double bytes, const char **rule, const char **how)
{
	switch (p->flag_read) {
	case GM_TX_FLAG_CUDAMEMCPY:
		*rule = "host.cudamemcpy_call + pcie.latency + bytes / pcie.bandwidth";
		*how = "a cudaMemcpy device-to-host";
		return p->cudamemcpy_ps + p->pcie_lat_ps + ps_of_bytes(bytes, p->pcie_Bps);
	case GM_TX_FLAG_GDRCOPY:
		*rule = "gdrcopy.read_8B + (bytes - 8) / gdrcopy.read_bw";
		*how = "a GDRCopy read of the GPU's BAR";
		return p->gdr_read_ps + ps_of_bytes(bytes > 8 ? bytes - 8 : 0, p->gdr_read_Bps);
	default:
		*rule = "host.mem_latency";
		*how = "a load from the host-pinned FIFO";
		return p->mem_lat_ps;
	}
}

static int nic_stage(gm_tx_recipe *r, const gm_tx_params *p, const char *what)
{
	return add(r, "NIC", GM_TX_R_NIC_TX, ps_of_bytes(1.0, p->nic_msg_rate), "1 / nic.msg_rate",
		   "processes the %s (message-rate stage)", what);
}

/* a thread of `gpu` ("GPU B", the receiver; "GPU A" when the answer comes
 * back to the issuer, as in the roundtrip) spins on a flag and sees it */
static int gpu_poll_on(gm_tx_recipe *r, const gm_tx_params *p, const char *gpu, const char *what)
{
	int i = add(r, !strcmp(gpu, "GPU A") ? "SM (GPU A)" : "SM (GPU B)", GM_TX_R_POLL, p->poll_ps,
		    "next poll + gpu.poll_interval", "a thread of %s spinning on %s sees it", gpu, what);
	r->steps[i].period_ps = p->poll_ps;
	r->steps[i].receiver_side = true;
	return i;
}

static int gpu_poll(gm_tx_recipe *r, const gm_tx_params *p, const char *what)
{
	return gpu_poll_on(r, p, "GPU B", what);
}

/* The receiver learns that the payload landed: on an ordered transport the
 * signal write lands behind the data and a GPU thread polls it; on SRD the
 * remote CPU counts the completion and sets the flag through GDRCopy. `sig`
 * is the step that posted the signal (or -1), `data` the data step. */
static void inter_tail(gm_tx_recipe *r, const gm_tx_params *p, int nic, int data)
{
	int first = r->nsteps;
	if (p->nic_kind != GM_TX_NIC_EFA) {
		int s = add(r, "NIC", GM_TX_R_NIC_TX, ps_of_bytes(1.0, p->nic_msg_rate), "1 / nic.msg_rate",
			    "processes the 8 B signal write queued behind the data");
		deps(r, s, 1, nic);
		int l = add(r, "remote NIC", GM_TX_R_NONE, ps_of_bytes(8, p->nic_Bps), "8 B / nic.bandwidth",
			    "writes the signal into GPU B's memory right behind the data (RC delivers in order)");
		deps(r, l, 2, s, data);
		gpu_poll(r, p, "the signal");
	} else {
		add(r, "remote NIC", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
		    "writes a completion (write with immediate) into host memory; SRD is unordered, so no signal can follow the data");
		int c = add(r, "remote CPU", GM_TX_R_POLL, p->cq_poll_ps, "next poll + host.cq_poll",
			    "the receiving proxy polls the completion queue and counts the completion");
		r->steps[c].period_ps = p->cq_poll_ps;
		add(r, "remote CPU", GM_TX_R_NONE, p->gdr_write_ps + p->pcie_lat_ps, "gdrcopy.write_8B + pcie.latency",
		    "sets GPU B's flag through a GDRCopy mapping (posted write across PCIe)");
		gpu_poll(r, p, "the flag");
	}
	for (int i = first; i < r->nsteps; i++) {
		r->steps[i].latency_only = true;
		r->steps[i].receiver_side = true;
	}
}

/* NIC: doorbell crossing, work-request fetch, processing, DMA read + send. */
static int inter_nic(gm_tx_recipe *r, const gm_tx_params *p, bool wqe_in_gpu, bool payload_in_gpu,
		     double bytes, int *nic_out)
{
	add(r, "PCIe", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
	    "the doorbell write crosses PCIe to the NIC");
	/* the read request crosses to the memory, the 64 B completion comes
	 * back over the same links as the payload and shares them */
	int f = add(r, "NIC", GM_TX_R_NET, p->pcie_lat_ps, "2 x pcie.latency + 64 B / pcie.bandwidth",
		    "fetches the 64 B work request from %s memory (a PCIe read round trip)",
		    wqe_in_gpu ? "GPU" : "host");
	route(r, f, 64, 2, wqe_in_gpu ? GM_TX_L_GPU_UP : GM_TX_L_HOST_DOWN, GM_TX_L_NIC_DOWN);
	int nic = nic_stage(r, p, "work request");
	int d = add(r, "NIC -> wire -> remote NIC", GM_TX_R_NET, p->pcie_lat_ps,
		    "pcie.latency + route latency + bytes / bottleneck bandwidth",
		    "reads the payload from %s memory by DMA%s, sends it at line rate over the wire and "
		    "switch; the remote NIC writes it into %s",
		    payload_in_gpu ? "GPU A's" : "host", payload_in_gpu ? " (GPUDirect RDMA)" : "",
		    payload_in_gpu ? "GPU B's memory" : "the receiver's pinned host buffer");
	if (payload_in_gpu)
		route(r, d, bytes, 6, GM_TX_L_GPU_UP, GM_TX_L_NIC_DOWN, GM_TX_L_LINE, GM_TX_L_WIRE,
		      GM_TX_L_RNIC_UP, GM_TX_L_RGPU_DOWN);
	else
		route(r, d, bytes, 6, GM_TX_L_HOST_DOWN, GM_TX_L_NIC_DOWN, GM_TX_L_LINE, GM_TX_L_WIRE,
		      GM_TX_L_RNIC_UP, GM_TX_L_RHOST_UP);
	*nic_out = nic;
	return d;
}

/* receiving side of the host-staged types: the CPU sees the completion and
 * copies the payload up into GPU B (mirror of the sender's staging) */
static void host_receiver(gm_tx_recipe *r, const gm_tx_params *p, double bytes, bool memcpy_too)
{
	int first = r->nsteps;
	add(r, "remote NIC", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
	    "writes the completion entry into host memory");
	int c = add(r, "remote CPU", GM_TX_R_POLL, p->cq_poll_ps, "next poll + host.cq_poll",
		    "polls the completion queue and sees the completion");
	r->steps[c].period_ps = p->cq_poll_ps;
	if (memcpy_too) {
		int m = add(r, "remote CPU", GM_TX_R_NET, p->mem_lat_ps, "host.mem_latency + bytes / host.memcpy_bw",
			    "memcpy from the NIC-pinned buffer into the GPU-pinned buffer (mirror copy)");
		route(r, m, bytes, 1, GM_TX_L_RMEMCPY);
	}
	add(r, "remote CPU", GM_TX_R_NONE, p->cudamemcpy_ps, "host.cudamemcpy_call",
	    "calls cudaMemcpy host-to-device");
	int h = add(r, "copy engine (GPU B)", GM_TX_R_NET, 0, "route latency + bytes / pcie.bandwidth",
		    "copies the payload over PCIe into GPU B's memory (mirror copy)");
	route(r, h, bytes, 2, GM_TX_L_RHOST_DOWN, GM_TX_L_RGPU_DOWN);
	for (int i = first; i < r->nsteps; i++)
		r->steps[i].receiver_side = true;
}

/* A CPU-driven transfer of data a kernel produced: the kernel ends, the GPU
 * writes its completion semaphore into host memory, and the CPU, spinning in
 * cudaStreamSynchronize, sees it. GPU-initiated types skip this boundary. */
static void kernel_boundary_send(gm_tx_recipe *r, const gm_tx_params *p)
{
	add(r, "GPU A", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
	    "the producing kernel ends; the GPU writes its completion into host memory");
	int q = add(r, "CPU", GM_TX_R_POLL, p->mem_lat_ps, "next poll + host.mem_latency",
		    "spinning in cudaStreamSynchronize, sees the kernel finished");
	r->steps[q].period_ps = p->mem_lat_ps;
}

/* ... and on the receiving side the CPU launches the kernel that uses it */
static void kernel_boundary_recv(gm_tx_recipe *r, const gm_tx_params *p, const char *actor)
{
	int i = add(r, actor, GM_TX_R_NONE, p->launch_ps, "gpu.launch_latency",
		    "launches the kernel that consumes the payload on GPU B");
	r->steps[i].receiver_side = true;
}

static gc_status refuse(char **errmsg, const gm_tx_params *p, const char *path, const char *why,
			const char *alt)
{
	*errmsg = g_strdup_printf("%s on %s: %s; %s", path, p->platform ? p->platform : "this platform",
				  why, alt);
	return GC_ERR_INPUT;
}

static void finish(gm_tx_recipe *r)
{
	r->copies = 0;
	r->cpu_critical = false;
	for (int i = 0; i < r->nsteps; i++) {
		if (r->steps[i].copy && !r->steps[i].receiver_side)
			r->copies++;
		if (r->steps[i].cpu && r->steps[i].fixed_ps + r->steps[i].period_ps > 0)
			r->cpu_critical = true;
		if (r->steps[i].res == GM_TX_R_PROXY_POLL)
			r->uses_proxy = true;
	}
}

gc_status gm_tx_recipe_build(const gm_tx_params *p, const char *path, const char *variant,
			     uint64_t nbytes, gm_tx_recipe *r, char **errmsg)
{
	const gm_tx_type_info *t = NULL;
	for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
		if (!strcmp(types[i].id, path))
			t = &types[i];
	if (!t) {
		GString *s = g_string_new(NULL);
		g_string_printf(s, "unknown path '%s'; expected one of:", path);
		for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
			g_string_append_printf(s, " %s", types[i].id);
		*errmsg = g_string_free(s, FALSE);
		return GC_ERR_INPUT;
	}
	if (variant && *variant) {
		bool ok = false;
		if (t->variants && *t->variants) {
			char **v = g_strsplit(t->variants, "|", -1);
			for (char **q = v; *q; q++)
				ok = ok || !strcmp(*q, variant);
			g_strfreev(v);
		}
		if (!ok) {
			*errmsg = t->variants && *t->variants
					  ? g_strdup_printf("%s: unknown variant '%s'; expected %s", path,
							    variant, t->variants)
					  : g_strdup_printf("%s has no variants (got '%s')", path, variant);
			return GC_ERR_INPUT;
		}
	} else if (t->variants && *t->variants) {
		static char first[16];
		g_strlcpy(first, t->variants, sizeof(first));
		*strchr(first, '|') = 0;
		variant = first;
	} else {
		variant = NULL;
	}
	memset(r, 0, sizeof(*r));
	g_snprintf(r->id, sizeof(r->id), "%s%s%s", path, variant ? "/" : "", variant ? variant : "");
	g_snprintf(r->name, sizeof(r->name), "%s%s%s%s", t->name, variant ? " (" : "",
		   variant ? variant : "", variant ? ")" : "");
	const double B = (double)nbytes;
	r->issuers = 1;
	r->issuer_kind = "CPU thread";
	int nic = 0, data = 0;

	if (!strcmp(path, "intra:1")) {
		kernel_boundary_send(r, p);
		add(r, "CPU", GM_TX_R_CPU, p->cudamemcpy_ps, "host.cudamemcpy_call",
		    "calls cudaMemcpy; with peer access off the runtime stages through a pinned host "
		    "buffer and starts the device-to-host copy");
		int c = add(r, "copy engine (GPU A)", GM_TX_R_NET, 0, "route latency + bytes / pcie.bandwidth",
			    "copies the payload over PCIe into the pinned host buffer");
		route(r, c, B, 2, GM_TX_L_GPU_UP, GM_TX_L_HOST_UP);
		r->steps[c].copy = true;
		add(r, "CPU", GM_TX_R_CPU, p->cudamemcpy_ps, "host.cudamemcpy_call",
		    "the runtime starts the host-to-device copy");
		c = add(r, "copy engine (GPU B)", GM_TX_R_NET, 0, "route latency + bytes / pcie.bandwidth",
			"copies the payload over PCIe from the host buffer into GPU B's memory");
		route(r, c, B, 2, GM_TX_L_HOST_DOWN, GM_TX_L_DGPU_DOWN);
		r->steps[c].copy = true;
		r->release = r->nsteps - 1;
		kernel_boundary_recv(r, p, "CPU");
	} else if (!strcmp(path, "intra:2")) {
		if (!p->has_p2p)
			return refuse(errmsg, p, path, "no peer access between GPUs (caps.p2p=false)",
				      "use type 1 (host native) or 4 (host fallback)");
		int c;
		kernel_boundary_send(r, p);
		if (!strcmp(variant, "ce")) {
			add(r, "CPU", GM_TX_R_CPU, p->cudamemcpy_ps, "host.cudamemcpy_call",
			    "calls cudaMemcpy (peer access on): the runtime starts GPU A's copy engine");
			c = add(r, "copy engine (GPU A)", GM_TX_R_NET, 0, "nvlink.latency + bytes / nvlink.bandwidth",
				"copies the payload GPU A -> GPU B directly over NVLink");
			route(r, c, B, 2, GM_TX_L_NVL_TX, GM_TX_L_NVL_RX);
		} else {
			add(r, "CPU", GM_TX_R_CPU, p->launch_ps, "gpu.launch_latency",
			    "launches a copy kernel (as NCCL's host API does)");
			c = add(r, "SM (GPU A)", GM_TX_R_NET, p->store_issue_ps,
				"gpu.store_issue + nvlink.latency + bytes / bottleneck",
				"the kernel's threads store the payload into GPU B's memory over NVLink");
			route(r, c, B, 3, GM_TX_L_SM, GM_TX_L_NVL_TX, GM_TX_L_NVL_RX);
		}
		r->steps[c].copy = true;
		r->release = r->nsteps - 1;
		if (!strcmp(variant, "ce"))
			kernel_boundary_recv(r, p, "CPU");
	} else if (!strcmp(path, "intra:3") || !strcmp(path, "intra:4")) {
		bool native = !strcmp(path, "intra:3");
		if (native && !p->has_p2p)
			return refuse(errmsg, p, path, "no peer access between GPUs (caps.p2p=false)",
				      "use type 4 (host fallback)");
		r->issuers = p->sms;
		r->issuer_kind = "CTA";
		add(r, "SM (GPU A)", GM_TX_R_NONE, p->store_issue_ps, "gpu.store_issue",
		    "a thread of the running kernel issues stores of the payload%s",
		    native ? " into GPU B's memory (a put)" : " into a pinned host buffer (no P2P)");
		int c = add(r, native ? "NVLink" : "PCIe", GM_TX_R_NET, 0,
			    native ? "nvlink.latency + bytes / bottleneck" : "route latency + bytes / bottleneck",
			    native ? "the stores cross NVLink into GPU B's memory"
				   : "the stores cross PCIe into host memory");
		if (native)
			route(r, c, B, 3, GM_TX_L_SM, GM_TX_L_NVL_TX, GM_TX_L_NVL_RX);
		else
			route(r, c, B, 3, GM_TX_L_SM, GM_TX_L_GPU_UP, GM_TX_L_HOST_UP);
		r->steps[c].copy = true;
		add(r, "SM (GPU A)", GM_TX_R_NONE, p->fence_ps, "gpu.fence",
		    "fences (system scope) so the payload is visible before the flag");
		r->release = r->nsteps - 1;
		int f = add(r, native ? "NVLink" : "PCIe", GM_TX_R_NET, p->store_issue_ps,
			    "gpu.store_issue + route latency",
			    native ? "stores the 8 B flag into GPU B's memory" : "stores the 8 B flag into host memory");
		if (native)
			route(r, f, 8, 2, GM_TX_L_NVL_TX, GM_TX_L_NVL_RX);
		else
			route(r, f, 8, 2, GM_TX_L_GPU_UP, GM_TX_L_HOST_UP);
		if (native) {
			gpu_poll(r, p, "the flag");
		} else {
			int q = add(r, "SM (GPU B)", GM_TX_R_POLL, 2 * p->pcie_lat_ps,
				    "next poll + 2 x pcie.latency",
				    "a thread of GPU B polls the flag in host memory (each poll a PCIe read round trip) and sees it");
			r->steps[q].period_ps = 2 * p->pcie_lat_ps;
			r->steps[q].receiver_side = true;
			int l = add(r, "SM (GPU B)", GM_TX_R_NET, p->pcie_lat_ps,
				    "pcie.latency + route latency + bytes / pcie.bandwidth",
				    "loads the payload from host memory over PCIe (read requests, then data)");
			route(r, l, B, 2, GM_TX_L_HOST_DOWN, GM_TX_L_DGPU_DOWN);
			r->steps[l].copy = true;
		}
	} else if (!strcmp(path, "inter:1") || !strcmp(path, "inter:2")) {
		bool two = !strcmp(path, "inter:1");
		kernel_boundary_send(r, p);
		add(r, "CPU", GM_TX_R_CPU, p->cudamemcpy_ps, "host.cudamemcpy_call",
		    "calls cudaMemcpy device-to-host into a %s host buffer",
		    two ? "GPU-pinned" : "shared (GPU- and NIC-pinned)");
		int c = add(r, "copy engine (GPU A)", GM_TX_R_NET, 0, "route latency + bytes / pcie.bandwidth",
			    "copies the payload over PCIe into that host buffer");
		route(r, c, B, 2, GM_TX_L_GPU_UP, GM_TX_L_HOST_UP);
		r->steps[c].copy = true;
		if (two) {
			int m = add(r, "CPU", GM_TX_R_NET, p->mem_lat_ps, "host.mem_latency + bytes / host.memcpy_bw",
				    "memcpy into the NIC-pinned (registered) buffer");
			route(r, m, B, 1, GM_TX_L_MEMCPY);
			r->steps[m].copy = true;
		}
		add(r, "CPU", GM_TX_R_CPU, p->post_send_ps, "host.post_send",
		    "builds the RDMA work request and posts it to the send queue");
		add(r, "CPU", GM_TX_R_CPU, p->mmio_write_ps, "pcie.mmio_write", "rings the NIC doorbell (MMIO write)");
		r->release = r->nsteps - 1;
		inter_nic(r, p, false, false, B, &nic);
		host_receiver(r, p, B, two);
		kernel_boundary_recv(r, p, "remote CPU");
	} else if (!strcmp(path, "inter:3")) {
		if (!p->has_gdr)
			return refuse(errmsg, p, path, "the NIC cannot reach GPU memory (caps.gdr=false)",
				      "use type 1 or 2");
		if (!strcmp(variant, "cpu")) {
			kernel_boundary_send(r, p);
			add(r, "CPU", GM_TX_R_CPU, p->post_send_ps, "host.post_send",
			    "builds the RDMA-write work request (source: GPU A's memory) and posts it");
			add(r, "CPU", GM_TX_R_CPU, p->mmio_write_ps, "pcie.mmio_write",
			    "rings the NIC doorbell (MMIO write)");
			r->release = r->nsteps - 1;
			data = inter_nic(r, p, false, true, B, &nic);
			int first = r->nsteps;
			add(r, "remote NIC", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
			    "writes the completion entry into host memory");
			int q = add(r, "remote CPU", GM_TX_R_POLL, p->cq_poll_ps, "next poll + host.cq_poll",
				    "polls the completion queue and sees the completion");
			r->steps[q].period_ps = p->cq_poll_ps;
			kernel_boundary_recv(r, p, "remote CPU");
			for (int i = first; i < r->nsteps; i++)
				r->steps[i].receiver_side = true;
		} else {
			r->issuers = p->sms;
			r->issuer_kind = "CTA";
			const char *rule, *how;
			int64_t rd = flag_read_ps(p, 8, &rule, &how);
			bool host = p->flag_read == GM_TX_FLAG_HOSTPINNED;
			add(r, "SM (GPU A)", GM_TX_R_NONE, p->store_issue_ps, "gpu.store_issue",
			    "a GPU thread writes a put request into the proxy's FIFO in %s memory",
			    host ? "host-pinned" : "GPU");
			if (host)
				add(r, "PCIe", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
				    "the request crosses PCIe into host memory (posted write)");
			r->release = r->nsteps - 1;
			int q = add(r, "CPU proxy", GM_TX_R_PROXY_POLL, rd, rule,
				    "the proxy thread polls and finds the request (%s)", how);
			r->steps[q].period_ps = rd + p->proxy_poll_ps;
			bool single = p->proxy_post == GM_TX_POST_SINGLE;
			int w = single ? add(r, "CPU proxy", GM_TX_R_PROXY_WORK,
					     p->proxy_req_ps + p->post_send_ps + p->mmio_write_ps,
					     "proxy.request_cost + host.post_send + pcie.mmio_write",
					     "dequeues the request, builds the RDMA-write work request, posts it "
					     "on its one RC QP and rings the NIC doorbell (one ibv_post_send)")
				       : add(r, "CPU proxy", GM_TX_R_PROXY_WORK, p->proxy_req_ps + p->post_send_ps,
					     "proxy.request_cost + host.post_send",
					     "dequeues the request, builds the RDMA-write work request and posts "
					     "it on its one RC QP");
			r->steps[w].posts = true;
			int s = -1;
			if (p->nic_kind != GM_TX_NIC_EFA) {
				s = single ? add(r, "CPU proxy", GM_TX_R_PROXY_WORK, p->post_send_ps + p->mmio_write_ps,
						 "host.post_send + pcie.mmio_write",
						 "posts the signal write behind it on the same QP and rings the "
						 "doorbell again")
					   : add(r, "CPU proxy", GM_TX_R_PROXY_WORK, p->post_send_ps, "host.post_send",
						 "posts the signal write behind it on the same QP");
				r->steps[s].latency_only = true;
				r->steps[s].posts = true;
			}
			int ring = w;
			if (!single) {
				ring = add(r, "CPU proxy", GM_TX_R_PROXY_DB, p->mmio_write_ps, "pcie.mmio_write",
					   "rings the NIC doorbell once for its batch (up to proxy.batch requests)");
				if (s >= 0)
					deps(r, ring, 2, w, s);
			}
			int first_nic = r->nsteps;
			data = inter_nic(r, p, false, true, B, &nic);
			/* one post per write: the data's doorbell leaves before the
			 * signal is posted, and the NIC starts on it at once */
			deps(r, first_nic, 1, ring);
		}
		if (!strcmp(variant, "proxy"))
			inter_tail(r, p, nic, data);
	} else if (!strcmp(path, "inter:4") || !strcmp(path, "inter:5")) {
		bool five = !strcmp(path, "inter:5");
		if (five && !p->has_gpudirect_async)
			return refuse(errmsg, p, path,
				      p->nic_kind == GM_TX_NIC_EFA
					      ? "EFA provides no GPUDirect Async"
					      : "the NIC provides no GPUDirect Async (caps.gpudirect_async=false)",
				      "use type 3 (CPU proxy) or 4");
		if (!p->has_gdr)
			return refuse(errmsg, p, path, "the NIC cannot reach GPU memory (caps.gdr=false)",
				      "use type 1 or 2");
		r->issuers = p->sms;
		r->issuer_kind = "CTA";
		if (five) {
			add(r, "SM (GPU A)", GM_TX_R_NONE, p->wqe_build_ps, "gpu.wqe_build",
			    "a GPU thread builds the RDMA-write work request in GPU memory");
			int s = add(r, "SM (GPU A)", GM_TX_R_NONE, p->wqe_build_ps, "gpu.wqe_build",
				    "builds the signal write's work request behind it");
			r->steps[s].latency_only = true;
		} else {
			add(r, "CPU", GM_TX_R_NONE, 0, "(before the kernel: off the critical path)",
			    "the CPU built and posted the work request earlier, in host memory");
		}
		add(r, "SM (GPU A)", GM_TX_R_NONE, p->fence_ps, "gpu.fence",
		    "fences so the payload and the work request are visible to the NIC");
		if (five && p->queues > 0)
			add(r, "SM (GPU A)", GM_TX_R_GPU_SQ, p->publish_ps,
			    "gpu.publish, one post at a time per shared queue",
			    "publishes the entry in order on its send queue, one of gpu.queues = %d the "
			    "CTAs share",
			    p->queues);
		add(r, "SM (GPU A)", GM_TX_R_NONE, p->store_issue_ps, "gpu.store_issue",
		    "rings the NIC doorbell (an MMIO store from the GPU)");
		r->release = r->nsteps - 1;
		data = inter_nic(r, p, five, true, B, &nic);
		inter_tail(r, p, nic, data);
	} else { /* roundtrip */
		const char *rule, *how;
		int64_t rd = flag_read_ps(p, 8, &rule, &how);
		bool host = p->flag_read == GM_TX_FLAG_HOSTPINNED;
		add(r, "SM (GPU A)", GM_TX_R_NONE, p->store_issue_ps, "gpu.store_issue",
		    "a GPU thread writes an 8 B flag into %s memory", host ? "host-pinned" : "its own");
		if (host)
			add(r, "PCIe", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
			    "the flag crosses PCIe into host memory (posted write)");
		r->release = 0;
		int q = add(r, "CPU proxy", GM_TX_R_PROXY_POLL, rd, rule, "the proxy polls and sees the flag (%s)", how);
		r->steps[q].period_ps = rd + p->proxy_poll_ps;
		if (p->flag_read == GM_TX_FLAG_CUDAMEMCPY)
			add(r, "CPU proxy", GM_TX_R_PROXY_WORK, p->cudamemcpy_ps, "host.cudamemcpy_call",
			    "answers with a cudaMemcpy host-to-device of an 8 B flag");
		else
			add(r, "CPU proxy", GM_TX_R_PROXY_WORK, p->gdr_write_ps, "gdrcopy.write_8B",
			    "answers by writing an 8 B flag into GPU memory through a GDRCopy mapping");
		add(r, "PCIe", GM_TX_R_NONE, p->pcie_lat_ps, "pcie.latency",
		    "the answer crosses PCIe into GPU memory");
		gpu_poll_on(r, p, "GPU A", "the answer");
	}
	finish(r);
	return GC_OK;
}

/* ---- single components ------------------------------------------------------ */

static const char *const comp_names[] = {
	"gpu (SM stores over NVLink)", "gpu (flag poll)", "pcie (DMA)", "host (memcpy)",
	"host (cudaMemcpy call)", "proxy (poll, work, doorbell)", "nic (message stage + line rate)",
	"wire (cable + switch)",
};

size_t gm_tx_component_count(void)
{
	return G_N_ELEMENTS(comp_names);
}

const char *gm_tx_component_name(size_t i)
{
	return i < G_N_ELEMENTS(comp_names) ? comp_names[i] : NULL;
}

void gm_tx_component_recipe(const gm_tx_params *p, size_t i, uint64_t nbytes, gm_tx_recipe *r)
{
	memset(r, 0, sizeof(*r));
	g_strlcpy(r->id, "component", sizeof(r->id));
	g_strlcpy(r->name, comp_names[i], sizeof(r->name));
	r->issuers = 1;
	r->issuer_kind = "issuer";
	double B = (double)nbytes;
	int s;
	switch (i) {
	case 0:
		s = add(r, "SM", GM_TX_R_NET, p->store_issue_ps, "", "stores over NVLink");
		route(r, s, B, 3, GM_TX_L_SM, GM_TX_L_NVL_TX, GM_TX_L_NVL_RX);
		break;
	case 1:
		add(r, "SM", GM_TX_R_NONE, p->store_issue_ps, "", "writes a flag");
		gpu_poll(r, p, "the flag");
		break;
	case 2:
		s = add(r, "PCIe", GM_TX_R_NET, 0, "", "DMA to host");
		route(r, s, B, 2, GM_TX_L_GPU_UP, GM_TX_L_HOST_UP);
		break;
	case 3:
		s = add(r, "CPU", GM_TX_R_NET, p->mem_lat_ps, "", "memcpy");
		route(r, s, B, 1, GM_TX_L_MEMCPY);
		break;
	case 4:
		add(r, "CPU", GM_TX_R_CPU, p->cudamemcpy_ps, "", "cudaMemcpy call");
		break;
	case 5: {
		const char *rule, *how;
		int64_t rd = flag_read_ps(p, 8, &rule, &how);
		add(r, "SM", GM_TX_R_NONE, p->store_issue_ps, "", "request");
		s = add(r, "CPU proxy", GM_TX_R_PROXY_POLL, rd, rule, "poll");
		r->steps[s].period_ps = rd + p->proxy_poll_ps;
		if (p->proxy_post == GM_TX_POST_SINGLE) {
			s = add(r, "CPU proxy", GM_TX_R_PROXY_WORK,
				p->proxy_req_ps + p->post_send_ps + p->mmio_write_ps, "", "work and doorbell");
			r->steps[s].posts = true;
		} else {
			s = add(r, "CPU proxy", GM_TX_R_PROXY_WORK, p->proxy_req_ps + p->post_send_ps, "", "work");
			r->steps[s].posts = true;
			add(r, "CPU proxy", GM_TX_R_PROXY_DB, p->mmio_write_ps, "", "doorbell");
		}
		break;
	}
	case 6:
		nic_stage(r, p, "message");
		s = add(r, "NIC", GM_TX_R_NET, 0, "", "line rate");
		route(r, s, B, 1, GM_TX_L_LINE);
		break;
	default:
		s = add(r, "wire", GM_TX_R_NET, 0, "", "wire and switch");
		route(r, s, B, 1, GM_TX_L_WIRE);
		break;
	}
	finish(r);
}
