/* SPDX-License-Identifier: MIT */
/*
 * gm_keyuse: the keys a run uses, and the refusal of those it does not
 * (see gm_keyuse.h). A rule refuses a key only where no part of the run
 * reads it; a key without a rule is used wherever the scenario's checks
 * accept it. The rules and what reads each key:
 *  - the component keys (gpu., nvlink., pcie., host., proxy., gdrcopy.,
 *    nic., wire., switch., caps.): the transport's stages, where a message
 *    crosses the network (gm_xport_uses_key);
 *  - transport.gin: transport.inter gin's back end;
 *  - transport.inter, sim.net_send, topology.nic.*, topology.nics_per_node,
 *    topology.fabric.* and, in NVSwitch nodes, topology.pcie.bandwidth and
 *    latency: a message between nodes (its route, gt_topo; its sending,
 *    gm_coll; sim.net_send: a two-sided send, under the flow fidelity,
 *    without a transport);
 *  - sim.packet, sim.hop_buffer: the packet fidelity (gm_pkt);
 *  - collective.enqueue: a host thread with more than one operation to
 *    enqueue (collective.iters or collective.gpus_per_thread above 1);
 *  - collective.nccl_proto: collective.protocol auto's choice;
 *  - collective.nccl_version: NCCL's tuner (collective.tuner nccl), and
 *    sendrecv through NCCL across nodes (its point-to-point channels);
 *  - topology.nic_path: NCCL's default for LL128 across nodes, consulted
 *    by collective.protocol auto (gm_run's ll128_default_refusal);
 *  - topology.fabric.sharp: nvls, collnet and collnetchain (and auto's
 *    candidates); topology.nvlink.nvls_efficiency: nvls and nvlstree;
 *  - topology.channel_bandwidth: rings and trees with simple or ll128
 *    (gm_proto_cap_channel); topology.gpu_arch: those channel figures, the
 *    LL ceiling, NCCL's tuner and its PXN rule for LL128; topology.cpu: the
 *    LL ceiling across nodes, the tuner, Intel's peer-to-peer cost in PCIe
 *    nodes (gt_topo_from_config);
 *  - collective.buffer: two-sided messages' credits (one-sided puts and
 *    signals, put's, pplx's and garden's, take none); collective.slice:
 *    every schedule but forward's, pplx's and garden's (whole tokens);
 *    collective.chunk: the schedules that cut chunks (ring, tree, alltoall,
 *    sendrecv) and, where collective.slice is not given, the slice it
 *    bounds (protocol auto; nvls, nvlstree, collnet, collnetchain);
 *  - seed: the routing dispatch and combine draw; moe.chunk: forward.
 * The rules that depend on the collective (its algorithms, protocols and
 * groups) judge a single collective only: a training step's phases differ
 * in them, and gm_keyuse_check_step judges the step's own keys.
 */
#include "gm_keyuse.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "../closed/gm_proto.h"
#include "../transport/gm_xport.h"
#include "../host/gm_host.h"

#define ALGO_BIT(a) (1u << (a))

typedef struct use {
	const gm_run *r;
	const gc_config *cfg;
	bool step;	     /* one phase of a training step */
	const char *no_net;  /* why no message crosses the network (NULL: one does) */
	unsigned algos;	     /* ALGO_BITs of the algorithms the run may time */
	unsigned protos;     /* GM_PROTO_BITs of the protocols it may time them with */
	char what[160];	     /* the algorithms and protocols, for messages */
	char buf[512];
} use;

/* the communication-type components (gm_tx_params.c) */
static const char *const component_prefixes[] = {"gpu.", "nvlink.",  "pcie.", "host.",
						 "proxy.", "gdrcopy.", "nic.", "wire.",
						 "switch.", "caps."};

static bool is_component(const char *key)
{
	for (size_t i = 0; i < G_N_ELEMENTS(component_prefixes); i++)
		if (g_str_has_prefix(key, component_prefixes[i]))
			return true;
	return false;
}

/* NCCL's Simple-only algorithms (gm_run's simple_only). */
static bool simple_only(gs_algo a)
{
	return a == GS_ALGO_NVLS || a == GS_ALGO_NVLS_TREE || a == GS_ALGO_COLLNET ||
	       a == GS_ALGO_COLLNET_CHAIN || a == GS_ALGO_PAT;
}

static bool switch_reduced(gs_algo a)
{
	return a == GS_ALGO_NVLS || a == GS_ALGO_NVLS_TREE || a == GS_ALGO_COLLNET ||
	       a == GS_ALGO_COLLNET_CHAIN;
}


/* Why no message of the run crosses the network, or NULL. A step's phases
 * differ in their groups: there, the topology decides. */
static const char *no_network(const gm_run *r, bool step, char *buf, size_t n)
{
	const gt_topo *t = &r->topo;
	if (t->kind != GT_DGX)
		return "a flat topology has no NICs (each GPU's link is its network); topology.kind "
		       "dgx or a preset has them";
	if (t->nodes < 2)
		return "the run has one node (topology.nodes 1), so no message crosses the network; "
		       "give topology.nodes 2 or more";
	if (step || gm_run_spans_nodes(&r->base, t))
		return NULL;
	snprintf(buf, n,
		 "every communicator is inside one node (groups of %d ranks at stride %d), so no "
		 "message crosses the network; give groups that span nodes (collective.group)",
		 gs_group_n(&r->base), gs_group_stride(&r->base));
	return buf;
}

static void algos_protos(use *u)
{
	const gm_run *r = u->r;
	if (r->algo_auto)
		for (int k = 0; k < r->ncand; k++)
			u->algos |= ALGO_BIT(r->cand[k].algo);
	if (!u->algos)
		u->algos = ALGO_BIT(r->base.algo);
	const char *cmp = gc_config_str(u->cfg, "collective.compare");
	for (int a = 0; a < GS_ALGO__COUNT && strcmp(cmp, "none") != 0; a++)
		if (!strcmp(cmp, gs_algo_name((gs_algo)a)))
			u->algos |= ALGO_BIT(a);
	u->protos = r->proto >= 0 ? GM_PROTO_BIT(r->proto) : r->proto_ok;
	GString *g = g_string_new(NULL);
	for (int a = 0; a < GS_ALGO__COUNT; a++)
		if (u->algos & ALGO_BIT(a))
			g_string_append_printf(g, "%s%s", g->len ? " and " : "", gs_algo_name((gs_algo)a));
	g_string_append(g, r->proto >= 0 ? ", protocol" : ", protocols");
	for (int q = 0; q < GM_PROTO__COUNT; q++)
		if (u->protos & GM_PROTO_BIT(q))
			g_string_append_printf(g, " %s", gm_proto_get((gm_proto)q)->name);
	g_strlcpy(u->what, g->str, sizeof(u->what));
	g_string_free(g, TRUE);
}

static bool algo_in(const use *u, unsigned bits)
{
	return (u->algos & bits) != 0;
}

/* LL may run: the protocol is among the run's and some algorithm runs
 * more than Simple. */
static bool ll_runs(const use *u)
{
	if (!(u->protos & GM_PROTO_BIT(GM_PROTO_LL)))
		return false;
	for (int a = 0; a < GS_ALGO__COUNT; a++)
		if ((u->algos & ALGO_BIT(a)) && !simple_only((gs_algo)a))
			return true;
	return false;
}

/* NCCL's per-channel ceiling holds some of the run's messages
 * (gm_proto_cap_channel: rings and trees with simple or ll128). */
static bool channel_caps(const use *u)
{
	return algo_in(u, ALGO_BIT(GS_ALGO_RING) | ALGO_BIT(GS_ALGO_TREE)) &&
	       (u->protos & (GM_PROTO_BIT(GM_PROTO_SIMPLE) | GM_PROTO_BIT(GM_PROTO_LL128)));
}

/* gm_run consults topology.nic_path for NCCL's default on LL128 (and
 * collective.protocol auto acts on it): NVSwitch nodes, a communicator
 * across nodes, collective.nccl_proto neither naming nor leaving out
 * LL128. */
static bool nic_path_consulted(use *u, const char **why)
{
	const gm_run *r = u->r;
	if (u->no_net) {
		*why = u->no_net;
		return false;
	}
	if (r->topo.intra == GT_INTRA_PCIE) {
		*why = "NCCL leaves LL128 off in PCIe nodes whatever the NIC's path, and nothing "
		       "else reads it; leave it out";
		return false;
	}
	if (r->proto >= 0) {
		snprintf(u->buf, sizeof(u->buf),
			 "it decides whether NCCL's defaults allow LL128 across nodes, which "
			 "collective.protocol auto alone acts on, and this run's protocol is %s; give "
			 "collective.protocol auto, or leave it out",
			 gm_proto_get((gm_proto)r->proto)->name);
		*why = u->buf;
		return false;
	}
	unsigned mask = 0, listed = 0;
	const char *bad = NULL, *set = gc_config_str(u->cfg, "collective.nccl_proto");
	if (gm_proto_parse_set(set, &mask, &listed, &bad) &&
	    (!(mask & GM_PROTO_BIT(GM_PROTO_LL128)) || (listed & GM_PROTO_BIT(GM_PROTO_LL128)))) {
		snprintf(u->buf, sizeof(u->buf),
			 "collective.nccl_proto '%s' decides LL128 itself, whatever the NIC's path; "
			 "leave it out",
			 set);
		*why = u->buf;
		return false;
	}
	return true;
}

/* Why the run does not use component key `key`, or NULL. */
static const char *component_unused(use *u, const char *key)
{
	const gm_xport *x = &u->r->xport;
	/* transport.inter auto: a step's one-sided phases and its others
	 * take different transports */
	if (u->step && !strcmp(gc_config_str(u->cfg, "transport.inter"), "auto"))
		return NULL;
	const char *why = NULL;
	if (!gm_xport_uses_key(x, key, &why)) {
		snprintf(u->buf, sizeof(u->buf), "%s", why ? why : "no stage of the transport pays it");
		return u->buf;
	}
	return u->no_net;
}

/* Whether collective.chunk shapes what algorithm a cuts (see the header
 * comment). */
static bool chunk_read(const use *u, gs_algo a)
{
	const gs_coll c = u->r->base.coll;
	if (gs_coll_is_moe(c))
		return a == GS_ALGO_PUT && u->r->proto < 0 &&
		       !gc_config_is_set(u->cfg, "collective.slice");
	const bool chain = c == GS_COLL_BROADCAST || c == GS_COLL_REDUCE;
	if ((a == GS_ALGO_RING && !chain) || a == GS_ALGO_TREE || a == GS_ALGO_PAIRWISE ||
	    a == GS_ALGO_PUT)
		return true;
	return !gc_config_is_set(u->cfg, "collective.slice") && (u->r->proto < 0 || switch_reduced(a));
}

/* Why the collective (not a step's phase) does not use `key`, or NULL. */
static const char *collective_unused(use *u, const char *key)
{
	const gm_run *r = u->r;
	const gs_coll c = r->base.coll;
	if (!strcmp(key, "seed") && !gs_coll_is_moe(c) && !*gc_config_str(u->cfg, "faults.loss")) {
		snprintf(u->buf, sizeof(u->buf),
			 "nothing in this %s is drawn at random (seed draws the routing of dispatch "
			 "and combine, and the packets faults.loss loses); leave it out",
			 gs_coll_name(c));
		return u->buf;
	}
	if (!strcmp(key, "moe.chunk") && !algo_in(u, ALGO_BIT(GS_ALGO_FORWARD))) {
		snprintf(u->buf, sizeof(u->buf),
			 "it applies to collective.algo forward (DeepEP's normal kernels), and this "
			 "run times %s; leave it out",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "collective.buffer") &&
	    !(u->algos & ~(ALGO_BIT(GS_ALGO_PUT) | ALGO_BIT(GS_ALGO_PPLX) | ALGO_BIT(GS_ALGO_GARDEN)))) {
		snprintf(u->buf, sizeof(u->buf),
			 "one-sided puts and signals (%s) take no receive credits: the receive buffer "
			 "applies to two-sided algorithms (collective.algo or collective.compare); "
			 "leave it out",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "collective.slice") &&
	    !(u->algos & ~(ALGO_BIT(GS_ALGO_FORWARD) | ALGO_BIT(GS_ALGO_PPLX) | ALGO_BIT(GS_ALGO_GARDEN)))) {
		snprintf(u->buf, sizeof(u->buf),
			 "this run's schedules (%s) move whole tokens, not slices; leave it out",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "collective.chunk")) {
		bool read = false;
		for (int a = 0; a < GS_ALGO__COUNT && !read; a++)
			read = (u->algos & ALGO_BIT(a)) && chunk_read(u, (gs_algo)a);
		if (!read) {
			snprintf(u->buf, sizeof(u->buf),
				 "this run's schedules (%s) cut their messages by collective.slice "
				 "alone, and the chunk bounds no slice here; leave it out (collective.slice "
				 "sizes the messages)",
				 u->what);
			return u->buf;
		}
	}
	if (!strcmp(key, "topology.fabric.sharp") && !r->algo_auto &&
	    !algo_in(u, ALGO_BIT(GS_ALGO_NVLS) | ALGO_BIT(GS_ALGO_COLLNET) |
				ALGO_BIT(GS_ALGO_COLLNET_CHAIN))) {
		snprintf(u->buf, sizeof(u->buf),
			 "only nvls, collnet and collnetchain reduce in the network's switches, and "
			 "this run times %s; leave it out, or give one of them (collective.algo or "
			 "collective.compare)",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "topology.nvlink.nvls_efficiency") && !r->algo_auto &&
	    !algo_in(u, ALGO_BIT(GS_ALGO_NVLS) | ALGO_BIT(GS_ALGO_NVLS_TREE))) {
		snprintf(u->buf, sizeof(u->buf),
			 "only nvls and nvlstree reduce in the NVSwitch, and this run times %s; leave "
			 "it out, or give one of them (collective.algo or collective.compare)",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "topology.channel_bandwidth") && !channel_caps(u)) {
		snprintf(u->buf, sizeof(u->buf),
			 "the per-channel ceiling holds rings and trees with the simple and ll128 "
			 "protocols, and this run times %s; leave it out",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "topology.gpu_arch") && !r->tuner_nccl && !ll_runs(u)) {
		const char *why = NULL;
		bool pxn = nic_path_consulted(u, &why) && r->topo.nic_path == GT_PATH_PXN;
		if (channel_caps(u) && gc_config_bw(u->cfg, "topology.channel_bandwidth") > 0 && !pxn)
			return "topology.channel_bandwidth replaces its per-channel figure, and this "
			       "run meets none of its others (the LL ceiling, NCCL's tuner); leave it "
			       "out";
		if (!channel_caps(u) && !pxn) {
			snprintf(u->buf, sizeof(u->buf),
				 "it gives NCCL's LL ceiling, its per-channel rates (rings and trees) "
				 "and its tuner's figures, and this run (%s, collective.tuner gcsim) "
				 "meets none of them; leave it out",
				 u->what);
			return u->buf;
		}
	}
	if (!strcmp(key, "topology.nic.declared_latency")) {
		if (u->no_net)
			return u->no_net;
		if (!r->tuner_nccl) {
			snprintf(u->buf, sizeof(u->buf),
				 "only NCCL's cost model reads it (collective.tuner nccl), and this "
				 "run's choices are gcsim's (%s); the simulated messages keep "
				 "topology.nic.latency; leave it out",
				 u->what);
			return u->buf;
		}
	}
	if (!strcmp(key, "collective.nccl_version") && !r->tuner_nccl &&
	    !(gm_run_nccl_p2p(r) && !u->no_net)) {
		snprintf(u->buf, sizeof(u->buf),
			 "it names the release of NCCL's cost model, which collective.tuner nccl "
			 "chooses with, and of NCCL's point-to-point channels across nodes "
			 "(sendrecv), and this run's choices are gcsim's (%s, collective.tuner "
			 "gcsim); leave it out, or give collective.tuner nccl",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "topology.cpu") && !r->tuner_nccl && !(ll_runs(u) && !u->no_net) &&
	    !(r->topo.intra == GT_INTRA_PCIE && r->topo.p2p)) {
		snprintf(u->buf, sizeof(u->buf),
			 "it gives NCCL's LL ceiling across nodes, its tuner's network overhead and "
			 "the peer-to-peer cost of PCIe nodes, and this run (%s, %s) meets none of "
			 "them; leave it out",
			 u->what, u->no_net ? "no message across nodes" : "collective.tuner gcsim");
		return u->buf;
	}
	return NULL;
}

/* Why the run does not use `key`, or NULL. */
static const char *why_unused(use *u, const char *key)
{
	const gm_run *r = u->r;
	const char *fid = gc_config_str(u->cfg, "sim.fidelity");
	if (r->host.kind != GM_BACKEND_NCCL || gm_host_key(key)) {
		/* collective.backend gloo or mpi, and their keys (gm_host) */
		const char *why = gm_host_key_unused(&r->host, key, u->buf, sizeof(u->buf));
		if (why)
			return why;
		if (!strcmp(key, "gloo.nic_bandwidth") || !strcmp(key, "mpi.latency"))
			return u->no_net;
		if (gm_host_key(key) || g_str_has_prefix(key, "host."))
			return NULL;
	}
	if (is_component(key))
		return component_unused(u, key);
	if ((!strcmp(key, "faults.degrade") || !strcmp(key, "faults.latency")) &&
	    !strcmp(fid, "analytical"))
		return "the closed form has no links to degrade; give sim.fidelity flow or packet";
	if ((!strcmp(key, "faults.loss") || !strcmp(key, "faults.down")) && strcmp(fid, "flow") != 0) {
		snprintf(u->buf, sizeof(u->buf),
			 "%s are followed under sim.fidelity flow, and this run's is %s; give "
			 "sim.fidelity flow",
			 !strcmp(key, "faults.loss") ? "lost packets" : "stopped links", fid);
		return u->buf;
	}
	if ((!strcmp(key, "faults.loss") || !strcmp(key, "faults.down")) && !u->step &&
	    !(u->algos & ~(ALGO_BIT(GS_ALGO_PUT) | ALGO_BIT(GS_ALGO_PPLX) | ALGO_BIT(GS_ALGO_GARDEN)))) {
		snprintf(u->buf, sizeof(u->buf),
			 "it follows two-sided messages (sends and receives), and this run's are "
			 "one-sided puts and signals (%s)",
			 u->what);
		return u->buf;
	}
	if (!strcmp(key, "faults.down") && gc_config_int(u->cfg, "collective.iters") > 1)
		return "a stopped link stalls one operation for good: give collective.iters 1";
	if (!strcmp(key, "faults.retransmit") && !*gc_config_str(u->cfg, "faults.loss"))
		return "it times the resends of lost packets; give faults.loss";
	if (!strcmp(key, "sim.packet") || !strcmp(key, "sim.hop_buffer")) {
		if (!strcmp(fid, "packet"))
			return NULL;
		snprintf(u->buf, sizeof(u->buf),
			 "it applies to sim.fidelity packet, and this run's is %s; give sim.fidelity "
			 "packet, or leave it out",
			 fid);
		return u->buf;
	}
	if (!strcmp(key, "sim.solve") && strcmp(fid, "flow") != 0) {
		snprintf(u->buf, sizeof(u->buf),
			 "it applies to sim.fidelity flow (max-min sharing), and this run's is %s; "
			 "leave it out",
			 fid);
		return u->buf;
	}
	if (!strcmp(key, "sim.fold") && !strcmp(fid, "analytical"))
		return "it applies to sim.fidelity flow and packet, and the closed form simulates no "
		       "rank; leave it out";
	if (!strcmp(key, "sim.net_send")) {
		if (strcmp(fid, "flow") != 0) {
			snprintf(u->buf, sizeof(u->buf),
				 "it applies to sim.fidelity flow, and this run's is %s; leave it out",
				 fid);
			return u->buf;
		}
		if (u->no_net)
			return u->no_net;
		if (r->xport.kind != GM_XPORT_NONE) {
			snprintf(u->buf, sizeof(u->buf),
				 "transport.inter %s sends network messages through its own control "
				 "path; leave it out",
				 r->xport.name);
			return u->buf;
		}
		if (!u->step && !(u->algos & ~(ALGO_BIT(GS_ALGO_PUT) | ALGO_BIT(GS_ALGO_PPLX) | ALGO_BIT(GS_ALGO_GARDEN)))) {
			snprintf(u->buf, sizeof(u->buf),
				 "one-sided puts and signals (%s) hold their strand until they land "
				 "whatever it says: it applies to two-sided sends; leave it out",
				 u->what);
			return u->buf;
		}
		return NULL;
	}
	if (!strcmp(key, "transport.inter") || !strcmp(key, "topology.nic.bandwidth") ||
	    !strcmp(key, "topology.nic.latency") || !strcmp(key, "topology.nics_per_node") ||
	    g_str_has_prefix(key, "topology.fabric.") ||
	    (r->topo.intra != GT_INTRA_PCIE &&
	     (!strcmp(key, "topology.pcie.bandwidth") || !strcmp(key, "topology.pcie.latency"))))
		if (u->no_net)
			return u->no_net;
	if (!strcmp(key, "transport.gin")) {
		if (u->no_net)
			return u->no_net;
		const char *why = NULL;
		return gm_xport_uses_key(&r->xport, key, &why) ? NULL : why;
	}
	if (!strcmp(key, "topology.nic_path")) {
		const char *why = NULL;
		return nic_path_consulted(u, &why) ? NULL : why;
	}
	if (!strcmp(key, "collective.nccl_proto") && r->proto >= 0) {
		snprintf(u->buf, sizeof(u->buf),
			 "it limits the protocols collective.protocol auto chooses from, and this "
			 "run's protocol is %s; give collective.protocol auto, or leave it out",
			 gm_proto_get((gm_proto)r->proto)->name);
		return u->buf;
	}
	if (!strcmp(key, "collective.enqueue") &&
	    gc_config_int(u->cfg, "collective.gpus_per_thread") == 1 &&
	    gc_config_int(u->cfg, "collective.iters") == 1)
		return "a host thread enqueues one operation on one GPU (collective.iters 1, "
		       "collective.gpus_per_thread 1) and nothing waits for it; it paces back-to-back "
		       "operations (collective.iters above 1) and a thread driving several GPUs "
		       "(collective.gpus_per_thread above 1); leave it out";
	return u->step ? NULL : collective_unused(u, key);
}

/* Refuse key (errmsg) or, with a list, append it and its refusal. */
static gc_status report(const gc_config *cfg, const char *key, GPtrArray *list, char **errmsg,
			const char *fmt, const char *why)
{
	char *err = NULL;
	gc_status st = gc_config_error(cfg, key, &err, fmt, why);
	if (!list) {
		*errmsg = err;
		return st;
	}
	g_ptr_array_add(list, g_strdup(key));
	g_ptr_array_add(list, err);
	return GC_OK;
}

/* Append list's pairs to *unused (a strv). */
static void keep(GPtrArray *list, char ***unused)
{
	if (!unused || !list->len) {
		g_ptr_array_free(list, TRUE);
		return;
	}
	GPtrArray *all = g_ptr_array_new();
	for (char **p = *unused; p && *p; p++)
		g_ptr_array_add(all, *p);
	for (guint i = 0; i < list->len; i++)
		g_ptr_array_add(all, g_ptr_array_index(list, i));
	g_ptr_array_add(all, NULL);
	g_free(*unused);
	*unused = (char **)g_ptr_array_free(all, FALSE);
	g_ptr_array_free(list, TRUE); /* its strings moved to *unused */
}

gc_status gm_keyuse_check(const gm_run *r, bool step_phase, char ***unused, char **errmsg)
{
	use *u = g_new0(use, 1);
	u->r = r;
	u->cfg = r->cfg;
	u->step = step_phase;
	char netbuf[256];
	u->no_net = no_network(r, step_phase, netbuf, sizeof(netbuf));
	algos_protos(u);
	GPtrArray *list = unused ? g_ptr_array_new() : NULL;
	gc_status st = GC_OK;
	const gc_param *p;
	for (size_t i = 0; st == GC_OK && (p = gc_config_param_at(r->cfg, i)); i++) {
		if (!gc_config_is_set(r->cfg, p->key))
			continue;
		const char *why = why_unused(u, p->key);
		if (why)
			st = report(r->cfg, p->key, list, errmsg, "not used by this run: %s", why);
	}
	g_free(u);
	if (list)
		keep(list, unused);
	return st;
}

gc_status gm_keyuse_check_step(const gc_config *cfg, char ***unused, char **errmsg)
{
	static const char *const per_phase[] = {
		"collective.op",	 "collective.sizes",	  "collective.group.size",
		"collective.group.stride", "collective.group.block", "collective.group.block_stride",
	};
	static const char *const ep_keys[] = {"moe.tokens", "moe.topk", "moe.experts", "moe.max_nodes"};
	const bool ep = gc_config_int(cfg, "train.ep") > 1;
	GPtrArray *list = unused ? g_ptr_array_new() : NULL;
	gc_status st = GC_OK;
	const gc_param *p;
	for (size_t i = 0; st == GC_OK && (p = gc_config_param_at(cfg, i)); i++) {
		const char *k = p->key, *why = NULL;
		if (!gc_config_is_set(cfg, k))
			continue;
		for (size_t j = 0; j < G_N_ELEMENTS(per_phase); j++)
			if (!strcmp(k, per_phase[j]))
				why = "a training step sets it for each of its phases from train.*; leave it "
				      "out";
		for (size_t j = 0; j < G_N_ELEMENTS(ep_keys); j++)
			if (!strcmp(k, ep_keys[j]))
				why = "a training step's expert-parallel phases take their tokens and "
				      "experts from train.* (train.seq, train.micro_batch, train.topk, "
				      "train.experts, train.ep_max_nodes); leave it out";
		if (!strcmp(k, "collective.backend") || gm_host_key(k))
			why = "a training step's collectives run on NCCL; collective.backend and its "
			      "keys apply to workload: collective";
		if (!strcmp(k, "collective.compare"))
			why = "a training step times each phase with collective.algo alone; leave it out "
			      "(a sweep of collective.algo compares steps)";
		if (!strcmp(k, "seed") && !ep && gc_config_double(cfg, "resilience.node_mtbf") <= 0 &&
		    !*gc_config_str(cfg, "faults.loss"))
			why = "nothing in this step is drawn at random (seed draws the routing of "
			      "expert-parallel phases, train.ep above 1, the failures of "
			      "resilience.node_mtbf and the packets faults.loss loses); leave it out";
		if (!strcmp(k, "faults.retransmit") && !*gc_config_str(cfg, "faults.loss"))
			why = "it times the resends of lost packets; give faults.loss";
		if (!strcmp(k, "resilience.spares") && gc_config_double(cfg, "resilience.node_mtbf") > 0 &&
		    gc_config_time(cfg, "resilience.repair") == 0)
			why = "with resilience.repair 0 a failed node is replaced at once and no spare is "
			      "needed; give resilience.repair, how long a failed node is out";
		if (!strcmp(k, "faults.down"))
			why = "a stopped link stalls a collective for good; a training step's failures "
			      "are resilience.* (node MTBF, watchdog, restart, checkpoints)";
		if (g_str_has_prefix(k, "resilience.") && strcmp(k, "resilience.node_mtbf") != 0 &&
		    gc_config_double(cfg, "resilience.node_mtbf") <= 0)
			why = "resilience.node_mtbf 0 models no failures; give a node's MTBF (hours) to "
			      "simulate failures, checkpoints and restarts";
		if ((!strcmp(k, "train.gpu") || !strcmp(k, "train.gpu_flops") ||
		     !strcmp(k, "train.precision")) &&
		    gc_config_double(cfg, "train.mfu") <= 0)
			why = "it sets the compute estimate, and train.mfu 0 leaves compute out (the "
			      "step's communication only); give train.mfu";
		else if (!strcmp(k, "train.gpu") && gc_config_double(cfg, "train.gpu_flops") > 0)
			why = "train.gpu_flops gives the FLOP/s in its place; leave one out";
		if (!strcmp(k, "moe.chunk") &&
		    (!ep || strcmp(gc_config_str(cfg, "train.ep_algo"), "forward") != 0))
			why = "it applies to expert-parallel phases (train.ep above 1) with train.ep_algo "
			      "forward; leave it out";
		if (why)
			st = report(cfg, k, list, errmsg, "not used by this run: %s", why);
	}
	if (list)
		keep(list, unused);
	return st;
}

/* Whether pair list l holds key. */
static bool holds(char *const *l, const char *key)
{
	for (size_t i = 0; l && l[i] && l[i + 1]; i += 2)
		if (!strcmp(l[i], key))
			return true;
	return false;
}

char **gm_keyuse_common(char *const *const *lists, size_t n)
{
	if (n == 0 || !lists[0])
		return NULL;
	GPtrArray *out = g_ptr_array_new();
	for (size_t i = 0; lists[0][i] && lists[0][i + 1]; i += 2) {
		bool all = true;
		for (size_t k = 1; k < n && all; k++)
			all = holds(lists[k], lists[0][i]);
		if (all) {
			g_ptr_array_add(out, g_strdup(lists[0][i]));
			g_ptr_array_add(out, g_strdup(lists[0][i + 1]));
		}
	}
	if (!out->len) {
		g_ptr_array_free(out, TRUE);
		return NULL;
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

gc_status gm_keyuse_refuse(char *const *unused, const char *note, char **errmsg)
{
	if (!unused || !unused[0] || !unused[1])
		return GC_OK;
	*errmsg = note ? g_strdup_printf("%s %s", unused[1], note) : g_strdup(unused[1]);
	return GC_ERR_INPUT;
}
