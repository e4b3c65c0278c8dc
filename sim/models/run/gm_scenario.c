/* SPDX-License-Identifier: MIT */
/*
 * gm_scenario: scenario schema tables and loading.
 *
 * Defaults carry their source (shared/reference/README.md unless noted).
 */
#include "gm_scenario.h"

#include <glib.h>
#include <string.h>

#include "../../sched/gs_sched.h"
#include "../../topologies/gt_topo.h"
#include "../closed/gm_ncclver.h"
#include "../train/gm_train.h"
#include "../transport/gm_tx.h"
#include "../transport/gm_xport.h"
#include "../host/gm_host.h"

static const gc_param doc_params[] = {
	{"schema_version", GC_P_INT, NULL, NULL, 1, 1,
	 "scenario format version; this gcsim reads version 1", NULL},
	{"name", GC_P_STRING, "", NULL, 1, 0, "short name shown in output headers", NULL},
	{"description", GC_P_STRING, "", NULL, 1, 0, "free text", NULL},
	{"seed", GC_P_INT, "1", NULL, 0, 9007199254740991.0,
	 "seed of every per-entity random stream (same seed, same output)", NULL},
};

static const gc_param coll_params[] = {
	{"collective.op", GC_P_ENUM, "allreduce",
	 "allreduce|allgather|reducescatter|sendrecv|alltoall|dispatch|combine|broadcast|reduce", 1, 0,
	 "the collective to time; dispatch and combine are MoE expert parallelism (moe.*), their "
	 "sizes one token-expert message; broadcast and reduce have root 0 (of each group)", NULL},
	{"collective.algo", GC_P_ENUM, "ring", "ring|tree|pairwise|put|nvls|nvlstree|bruck|collnet|forward|pat|collnetchain|pplx|garden|halving-doubling|auto", 1, 0,
	 "ring; tree (NCCL double binary tree, allreduce); pairwise (two-sided) or put "
	 "(one-sided, NVSHMEM style) for alltoall, whose default is pairwise; put (DeepEP's "
	 "low-latency kernels, the default), forward (DeepEP's normal kernels: once per node over "
	 "the network, on over NVLink) or pplx (pplx-kernels' internode kernels: every "
	 "token-expert message a put with its own signal from its own warp, per-expert token "
	 "counts and combine's sync flags as signals; collective.channels is the GPU's SMs, "
	 "132) or garden (pplx-garden: the tokens for each other rank packed into one range, "
	 "written by a CPU worker, transport.inter fabric) for dispatch and combine; nvls (allreduce "
	 "reduced and multicast in the switch, NVLink SHARP, one node or SHARP across nodes; "
	 "allgather multicast and reducescatter reduced in the switch, across nodes with SHARP); nvlstree (nvls in every "
	 "node, a double binary tree between nodes; NCCL's NVLS_TREE); bruck (allgather and "
	 "reducescatter in log2 n rounds); pat (allgather and reducescatter: NCCL's PAT, binomial "
	 "trees shifted for every rank, the farthest peer first with the least data; Simple only); "
	 "collnet (allreduce: NCCL's CollNet Direct, each "
	 "node's sums reduced in the network's switches, SHARP, without NVLS); collnetchain "
	 "(allreduce: NCCL's CollNet Chain, each channel reduced up a chain of the node's GPUs, "
	 "across nodes in the network's switches, and back down); auto (per size, "
	 "the one "
	 "this topology allows whose closed-form time is smallest, with protocol auto the "
	 "protocol too: a tuner's choice)", NULL},
	{"collective.sizes", GC_P_BYTES_LIST, "32MiB", NULL, 1, (double)GS_MAX_BYTES,
	 "message sizes, nccl-tests 'size' semantics", "nccl-tests default -b 32M -e 32M"},
	{"collective.dtype", GC_P_ENUM, "float", "float|int32|double|uint8", 1, 0,
	 "element type", "nccl-tests default -d float"},
	{"collective.redop", GC_P_ENUM, "sum", "sum", 1, 0, "reduction operator", NULL},
	{"collective.channels", GC_P_INT, "0", NULL, 0, 256,
	 "channels (concurrent rings/trees); 0 = the topology's default, which a ring or tree "
	 "reduces for small sizes as NCCL does (fewer channels while size < channels x threads x "
	 "the protocol's bytes per thread)",
	 "NVIDIA/nccl enqueue.cc channel tuning; comm.h thread thresholds"},
	{"collective.chunk", GC_P_BYTES, "2MiB", NULL, 4, 1099511627776.0,
	 "per-rank chunk of one pipeline loop",
	 "NCCL Simple ring allreduce chunk (shared/reference/README.md)"},
	{"collective.slice", GC_P_BYTES, "1MiB", NULL, 4, 1099511627776.0,
	 "one message of the pipeline", "NCCL Simple slice (shared/reference/README.md)"},
	{"collective.buffer", GC_P_BYTES, "4MiB", NULL, 4, 1099511627776.0,
	 "receive buffer per connection (credits); a send waits for space",
	 "NCCL Simple buffer 4 MiB in 8 slots (shared/reference/README.md)"},
	{"collective.compare", GC_P_ENUM, "none", "none|ring|tree|pairwise|put|nvls|nvlstree|bruck|collnet|forward|pat|collnetchain|pplx", 1, 0,
	 "also time this algorithm at every size and print which is faster and the crossover", NULL},
	{"collective.protocol", GC_P_ENUM, "simple", "simple|ll|ll128|auto", 1, 0,
	 "NCCL protocol: simple (fenced chunks), ll (8 B lines with flags: low latency, half "
	 "bandwidth), ll128 (128 B lines, 120 B data), or auto (per size, the one the closed form "
	 "finds fastest, as NCCL's tuner does); sets chunk, slice and buffer unless given",
	 "NVIDIA/nccl tuning.cc and device.h"},
	{"collective.nccl_proto", GC_P_STRING, "", NULL, 1, 0,
	 "the protocols a tuner may choose from, as NCCL_PROTO writes them: LL, LL128 and "
	 "Simple separated by commas, or ^ and those it may not use (^LL128); empty: all. "
	 "With protocol auto the choice is among them; a protocol given outright, or an "
	 "algorithm that runs Simple only, must be one of them",
	 "NVIDIA/nccl NCCL_PROTO (src/graph/tuning.cc)"},
	{"collective.tuner", GC_P_ENUM, "gcsim", "gcsim|nccl", 1, 0,
	 "who chooses, with algo or protocol auto: gcsim (the one its closed form finds fastest) "
	 "or nccl (the one NCCL's own cost model estimates fastest, as NCCL itself chooses, "
	 "fastest or not); either way gcsim then simulates the choice",
	 "NVIDIA/nccl src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime)"},
	{"collective.nccl_version", GC_P_STRING, GM_NCCL_DEFAULT_VERSION, NULL, 1, 0,
	 "the NCCL release whose cost model collective.tuner nccl chooses with, and whose "
	 "point-to-point channels sendrecv across nodes runs on: 2.M.P as NCCL "
	 "prints it, or 2.M (that series' newest); a patch gcsim does not list takes the model "
	 "of the release before it. The model's constants (latencies per hop, per-channel and LL "
	 "ceilings) and some of its rules (NVLS's bandwidth, ring LL's share, PAT; the channels "
	 "per network peer, by bandwidth from 2.29) changed between releases; the simulation's "
	 "own figures do not follow it",
	 "NVIDIA/nccl src/graph/tuning.cc of v2.19.1-1 .. v2.30.7-1 (docs/MODELS.md, \"NCCL's "
	 "releases\")"},
	{"collective.group.size", GC_P_INT, "0", NULL, 0, 1048576,
	 "ranks per communicator; the collective runs at once in every group (0 = the GPUs / "
	 "group.stride); sizes, busbw and the table's ranks are per communicator",
	 "Megatron-LM's tensor-, data- and expert-parallel process groups"},
	{"collective.group.stride", GC_P_INT, "1", NULL, 1, 1048576,
	 "distance between consecutive members of a group: 1 puts a group on consecutive GPUs "
	 "(tensor parallel), the GPUs per node puts one member on each node (data parallel)",
	 NULL},
	{"collective.group.block", GC_P_INT, "0", NULL, 0, 1048576,
	 "two-level groups: members in blocks of this many at group.stride, the blocks "
	 "group.block_stride apart (0: one level)",
	 "Megatron-LM's data-and-context-parallel groups under Llama 3's [TP, CP, PP, DP] order"},
	{"collective.group.block_stride", GC_P_INT, "0", NULL, 0, 1073741824,
	 "two-level groups: distance between consecutive blocks, a multiple of group.block x "
	 "group.stride", NULL},
	{"collective.iters", GC_P_INT, "1", NULL, 1, 1000000,
	 "back-to-back repetitions timed (the reported time is per operation); each pays the "
	 "launch latency, and a host thread enqueues them no faster than collective.enqueue per "
	 "GPU it drives",
	 "nccl-tests -n (default 20) times back-to-back operations"},
	{"collective.gpus_per_thread", GC_P_INT, "1", NULL, 1, 1024,
	 "GPUs one host thread drives (nccl-tests -g): it enqueues every operation on each of "
	 "them in turn, consecutive GPUs of a node, so the last starts (G - 1) x "
	 "collective.enqueue after the first and short operations run one per G x enqueue",
	 "nccl-tests -g (default 1: one process per GPU, as with mpirun -np; NVIDIA's "
	 "maintainers recommend it for the CUDA overheads of a single process driving many, "
	 "NVIDIA/nccl-tests#333)"},
	{"collective.enqueue", GC_P_TIME, "4us", NULL, 0, 1e15,
	 "host time to enqueue one GPU's part of an operation (NCCL's call and its kernel "
	 "launch); binds when a thread drives several GPUs (collective.gpus_per_thread)",
	 "estimate: a CUDA kernel launch's 2-5 us host cost, as gpu.launch_latency"},
};

static const gc_param moe_params[] = {
	{"moe.tokens", GC_P_INT, "128", NULL, 1, 1048576, "dispatch/combine: tokens per GPU",
	 "DeepEP low-latency benchmark, 128 tokens per GPU (moe_published.csv)"},
	{"moe.topk", GC_P_INT, "8", NULL, 1, 1024, "dispatch/combine: experts each token goes to",
	 "DeepSeek-V3 routing, top-8 of 256 experts (moe_published.csv)"},
	{"moe.experts", GC_P_INT, "256", NULL, 1, 1048576,
	 "dispatch/combine: routed experts, a multiple of the GPUs, in equal groups per GPU",
	 "DeepSeek-V3, 256 routed experts (moe_published.csv)"},
	{"moe.max_nodes", GC_P_INT, "0", NULL, 0, 1048576,
	 "dispatch/combine: nodes a token may reach (node-limited routing: it draws this many "
	 "nodes, then its experts among theirs); 0: any",
	 "DeepSeek-V3 routes each token to at most 4 nodes; DeepEP's tests draw min(nodes, 4)"},
	{"moe.chunk", GC_P_INT, "16", NULL, 1, 65536,
	 "algo forward: tokens a GPU sends to a node's forwarder before it signals them "
	 "(dispatch), and how many tokens combine's forwarders run ahead of their home sums",
	 "DeepEP normal kernels: RDMA chunks of 16-20 tokens (Buffer.get_dispatch_config)"},
};

static const gc_param sim_params[] = {
	{"sim.fidelity", GC_P_ENUM, "flow", "flow|packet|analytical", 1, 0,
	 "flow: event-driven max-min fair sharing; packet: store and forward of sim.packet-byte "
	 "packets, links taking flows in turn; analytical: closed form", NULL},
	{"sim.packet", GC_P_BYTES, "4KiB", NULL, 64, 1073741824.0,
	 "packet fidelity: packet size (the last packet of a message holds the rest)",
	 "InfiniBand's largest MTU, 4096 B (IBTA spec vol. 1)"},
	{"sim.hop_buffer", GC_P_INT, "8", NULL, 1, 1048576,
	 "packet fidelity: packets of one flow that may wait at a hop before the previous link "
	 "holds the flow back (lossless, credit-style)", NULL},
	{"sim.net_send", GC_P_ENUM, "gpu", "gpu|proxy", 1, 0,
	 "flow fidelity: gpu: a strand's network send holds it until the message is off the "
	 "wire; proxy: the strand hands the message to the connection's FIFO and goes on, and "
	 "the NIC sends each connection's messages in order (NCCL's proxy thread and RC queue "
	 "pair); buffer credits bound both",
	 "NVIDIA/nccl src/transport/net.cc (sendProxyProgress posts the send buffer's steps)"},
	{"sim.check", GC_P_BOOL, "false", NULL, 1, 0,
	 "assert engine invariants after every event", NULL},
	{"sim.solve", GC_P_ENUM, "auto", "auto|component|local", 1, 0,
	 "flow fidelity: how max-min sharing is recomputed when flows start or end: component "
	 "(progressive filling of every flow that shares a link with the change, transitively); "
	 "local (the flows of the changed links, grown by every flow whose bottleneck the new "
	 "rates put in question until each flow has one: the same rates within 1e-9, without "
	 "visiting the component); auto (component, until one of more than 4096 flows is met: "
	 "then local while more than 4096 flows are active)",
	 "Bertsekas and Gallager, Data Networks, 6.5.2 (max-min fairness and its bottleneck "
	 "condition)"},
	{"sim.fold", GC_P_BOOL, "true", NULL, 1, 0,
	 "flow and packet fidelity: where the schedule and the topology repeat every few ranks (a ring or "
	 "an all-to-all over identical nodes), simulate one block of them for all; flow fidelity: "
	 "where a tree's channels rotate with a node's GPUs (nodes behind a nonblocking fabric), "
	 "simulate on every rank the channels that stand for the others, and of nvlstree's, which "
	 "also repeat on the same links, one a tree: the same times (where flows end at one "
	 "instant, up to about 1 % in the order of those ties), fewer events; false simulates "
	 "every rank and channel",
	 NULL},
};

static const gc_param sweep_params[] = {
	{"sweep.key", GC_P_STRING, "", NULL, 1, 0,
	 "run the scenario once per value of this key (gcsim run prints one row per value and size)",
	 NULL},
	{"sweep.values", GC_P_STRING, "", NULL, 1, 0,
	 "the values of sweep.key, comma-separated, e.g. 1,8,64,512,2048", NULL},
	{"sweep.key2", GC_P_STRING, "", NULL, 1, 0,
	 "a second key to sweep: one run per pair of values (sweep.key's x sweep.key2's), the "
	 "pair in the first column", NULL},
	{"sweep.values2", GC_P_STRING, "", NULL, 1, 0,
	 "the values of sweep.key2, comma-separated", NULL},
};

static const gc_param fault_params[] = {
	{"faults.degrade", GC_P_STRING, "", NULL, 1, 0,
	 "links that keep only a share of their bandwidth, NAME=SHARE entries separated by commas: "
	 "n0.gpu3.nvlink=50% (GPU 3's NVLink port, both ways: a name is its link and every link "
	 "under it, as --links names them: n0.gpu3 a whole GPU, n1.nic2.tx one direction); flow "
	 "and packet fidelity",
	 "a straggler sets the pace of a synchronous collective (a degraded NVLink or a NIC that "
	 "trained down; Llama 3, arXiv 2407.21783, section 3.3.4)"},
	{"faults.latency", GC_P_STRING, "", NULL, 1, 0,
	 "links that add latency to every message crossing them, NAME=TIME entries separated by "
	 "commas: n1.nic2=5us (a congested or rerouted port; names as faults.degrade's); flow and "
	 "packet fidelity",
	 NULL},
	{"faults.loss", GC_P_STRING, "", NULL, 1, 0,
	 "links that lose packets (a flapping cable, bit errors), NAME=RATE entries separated by "
	 "commas: n0.nic0=1e-6, a 4 KiB packet's loss probability (names as faults.degrade's): a "
	 "lost packet inside a message costs a round trip (the receiver's NAK), a message's lost "
	 "last packet the sender's ACK timeout (faults.retransmit), and the connection's later "
	 "messages wait behind it; drawn from seed; flow fidelity",
	 "InfiniBand RC: in-order delivery, a sequence error NAKed, a lost tail recovered by the "
	 "local ACK timeout"},
	{"faults.down", GC_P_STRING, "", NULL, 1, 0,
	 "links that stop for good, NAME@TIME entries separated by commas: n3@200us (a node, a "
	 "GPU, a NIC or a link failing that long after the operation starts; names as "
	 "faults.degrade's): a message not through it by then is lost, the collective stalls, and "
	 "the process group's watchdog (resilience.timeout) aborts it; one operation "
	 "(collective.iters 1), flow fidelity",
	 NULL},
	{"faults.retransmit", GC_P_TIME, "4294967296ns", NULL, 1, 1e15,
	 "how long a sender waits for the acknowledgement of a message's last packet before it "
	 "resends it (faults.loss)",
	 "InfiniBand local ACK timeout 4.096 us x 2^timeout; NCCL sets timeout 20 "
	 "(NVIDIA/nccl src/transport/net_ib/connect.cc NCCL_PARAM(IbTimeout, \"IB_TIMEOUT\", 20)): "
	 "4.29 s"},
};

gc_config *gm_scenario_config_new(void)
{
	gc_config *cfg = gc_config_new();
	gc_config_add_params(cfg, doc_params, G_N_ELEMENTS(doc_params));
	gt_topo_register_params(cfg);
	gc_config_add_params(cfg, coll_params, G_N_ELEMENTS(coll_params));
	gc_config_add_params(cfg, sim_params, G_N_ELEMENTS(sim_params));
	gc_config_add_params(cfg, moe_params, G_N_ELEMENTS(moe_params));
	gc_config_add_params(cfg, sweep_params, G_N_ELEMENTS(sweep_params));
	gc_config_add_params(cfg, fault_params, G_N_ELEMENTS(fault_params));
	gm_tx_register_params(cfg);
	gm_xport_register_params(cfg);
	gm_host_register_params(cfg);
	gm_train_register_params(cfg);
	/* explain.* is registered by gcsim explain alone (gm_tx_register_study_params) */
	gc_config_add_hint(cfg, "explain",
			   "explain.* keys describe an explain study of the communication types, "
			   "which 'gcsim explain --scenario FILE' runs; run and sweep take collective "
			   "and training-step scenarios");
	return cfg;
}

/* Sweep key kname names another known key and comes with values (vname),
 * or neither is given. */
static gc_status check_sweep_key(const gc_config *cfg, const char *kname, const char *vname,
				 char **errmsg)
{
	const char *key = gc_config_str(cfg, kname), *vals = gc_config_str(cfg, vname);
	if (!key[0] && !vals[0])
		return GC_OK;
	if (!key[0])
		return gc_config_error(cfg, vname, errmsg, "given without %s", kname);
	bool known = false;
	for (size_t i = 0; !known; i++) {
		const gc_param *p = gc_config_param_at(cfg, i);
		if (!p)
			break;
		known = !strcmp(p->key, key);
	}
	if (!known || g_str_has_prefix(key, "sweep."))
		return gc_config_error(cfg, kname, errmsg,
				       "'%s' is not a scenario key to sweep (gcsim models --keys lists them)",
				       key);
	if (!vals[0])
		return gc_config_error(cfg, kname, errmsg, "needs %s, e.g. %s: 1,8,64", vname,
				       vname + strlen("sweep."));
	return GC_OK;
}

/* Every value of sweep key kname (vname) is one the swept key takes:
 * checked when the scenario is read, before any run, and a bad one is
 * reported where it stands (in the file, or --set). */
static gc_status check_sweep_values(const gc_config *cfg, const char *kname, const char *vname,
				    char **errmsg)
{
	const char *key = gc_config_str(cfg, kname), *vals = gc_config_str(cfg, vname);
	if (!key[0])
		return GC_OK;
	char **parts = g_strsplit(vals, ",", -1);
	gc_status st = GC_OK;
	size_t off = 0;
	for (guint i = 0; parts[i] && st == GC_OK; off += strlen(parts[i]) + 1, i++) {
		size_t lead = 0;
		while (g_ascii_isspace(parts[i][lead]))
			lead++;
		char *v = g_strstrip(g_strdup(parts[i])), *body = NULL, where[512];
		if (!v[0])
			body = g_strdup("is empty");
		else if (!gc_config_check_value(cfg, key, v, &body)) {
			char *why = body; /* it quotes the value */
			body = g_strdup_printf("for %s: %s", key, why);
			g_free(why);
		}
		if (body) {
			gc_config_where_at(cfg, vname, off + lead, where, sizeof(where));
			if (errmsg)
				*errmsg = g_strdup_printf("%s: %s: value %u %s", where, vname, i + 1,
							  body);
			st = GC_ERR_INPUT;
		}
		g_free(body);
		g_free(v);
	}
	g_strfreev(parts);
	return st;
}

/* sweep.key and, optionally, a second key sweep.key2 (not without the
 * first, not the same key twice). */
static gc_status check_sweep(const gc_config *cfg, char **errmsg)
{
	gc_status st = check_sweep_key(cfg, "sweep.key", "sweep.values", errmsg);
	if (st == GC_OK)
		st = check_sweep_key(cfg, "sweep.key2", "sweep.values2", errmsg);
	const char *k1 = gc_config_str(cfg, "sweep.key"), *k2 = gc_config_str(cfg, "sweep.key2");
	if (st == GC_OK && k2[0] && !k1[0])
		return gc_config_error(cfg, "sweep.key2", errmsg, "given without sweep.key");
	if (st == GC_OK && k2[0] && !strcmp(k1, k2))
		return gc_config_error(cfg, "sweep.key2", errmsg, "sweeps '%s', which sweep.key "
				       "sweeps already", k2);
	if (st == GC_OK)
		st = check_sweep_values(cfg, "sweep.key", "sweep.values", errmsg);
	if (st == GC_OK)
		st = check_sweep_values(cfg, "sweep.key2", "sweep.values2", errmsg);
	return st;
}

static gc_status finish(gc_config *cfg, gc_config **out, char **errmsg)
{
	gc_status st = gc_config_require(cfg, "schema_version", errmsg);
	if (st == GC_OK)
		st = gt_topo_check(cfg, errmsg);
	if (st == GC_OK)
		st = check_sweep(cfg, errmsg);
	if (st != GC_OK) {
		gc_config_free(cfg);
		return st;
	}
	*out = cfg;
	return GC_OK;
}

gc_status gm_scenario_load(const char *path, const char *const *sets, gc_config **out,
			   char **errmsg)
{
	return gm_scenario_load_at(path, sets, NULL, out, errmsg);
}

gc_status gm_scenario_load_at(const char *path, const char *const *sets,
			      const char *const *where, gc_config **out, char **errmsg)
{
	gc_config *cfg = gm_scenario_config_new();
	gc_status st = gc_config_load_file(cfg, path, errmsg);
	/* a scenario that cannot be read is the user's input error (status 2),
	 * like one that cannot be parsed */
	if (st == GC_ERR_IO)
		st = GC_ERR_INPUT;
	for (size_t i = 0; st == GC_OK && sets && sets[i]; i++)
		st = gc_config_set_at(cfg, sets[i], where ? where[i] : NULL, errmsg);
	if (st != GC_OK) {
		gc_config_free(cfg);
		return st;
	}
	return finish(cfg, out, errmsg);
}

gc_status gm_scenario_load_string(const char *name, const char *text, size_t len,
				  gc_config **out, char **errmsg)
{
	gc_config *cfg = gm_scenario_config_new();
	gc_status st = gc_config_load_string(cfg, name, text, len, errmsg);
	if (st != GC_OK) {
		gc_config_free(cfg);
		return st;
	}
	return finish(cfg, out, errmsg);
}

char **gm_scenario_sweep_where(const gc_config *cfg, const char *vname)
{
	if (!gc_config_str(cfg, vname)[0] || !gc_config_from_file(cfg, vname))
		return NULL;
	return gc_config_where_split(cfg, vname, ',');
}
