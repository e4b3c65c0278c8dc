#!/bin/sh
# Random valid scenarios (fixed seed) through `gcsim run` with --check: every
# run must end with status 0 or with one clear input-error line (status 2),
# never an internal error, an invariant violation or a sanitizer report.
# Sizes stay small so the whole script takes seconds. GCSIM_RANDOM_SEED and
# GCSIM_RANDOM_N draw another or a longer series (e.g. under build/asan/gcsim).
cd "$(dirname "$0")/../.." || exit 1
. tests/python.sh
exec python3 - "$G" <<'PY'
import random, re, subprocess, sys, tempfile, os
G = sys.argv[1]
rng = random.Random(int(os.environ.get("GCSIM_RANDOM_SEED", "20261129")))
N = int(os.environ.get("GCSIM_RANDOM_N", "40"))
print("1..%d" % N)
fails = 0
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "s.yaml")
    for i in range(N):
        op = rng.choice(["allreduce", "allgather", "reducescatter", "sendrecv", "alltoall", "dispatch", "combine", "broadcast", "reduce"])
        algo = {"allreduce": rng.choice(["ring", "tree", "nvls", "nvlstree", "collnet", "collnetchain"]), "alltoall": rng.choice(["pairwise", "put"]),
                "dispatch": rng.choice(["put", "forward"]), "combine": rng.choice(["put", "forward"]),
                "allgather": rng.choice(["ring", "bruck", "pat", "nvls"]),
                "reducescatter": rng.choice(["ring", "bruck", "pat", "nvls"])}.get(op, "ring")
        if rng.random() < 0.5:
            topo = "{kind: flat, gpus: %d, link: {bandwidth: %dGB/s, latency: %dns}, launch_latency: %dns}" % (
                rng.randint(1, 12), rng.randint(1, 400), rng.randint(0, 5000), rng.randint(0, 9000))
        else:
            gpn = rng.choice([1, 2, 3, 4, 8])
            fab = rng.choice(["", "", "fat-tree", "rail"])
            fabric = "" if not fab else ", fabric: {kind: %s, leaf_nics: %d, oversubscription: %g, routing: %s%s}" % (
                fab, gpn * rng.choice([1, 2]) if fab == "fat-tree" else rng.randint(1, 3), rng.choice([1, 1.5, 3]),
                rng.choice(["adaptive", "ecmp"]), ", pxn: false" if fab == "rail" and rng.random() < 0.5 else "")
            if fabric and rng.random() < 0.4:  # pods under a core: some split a leaf (refused)
                fabric = fabric[:-1] + ", pod_nodes: %d, pod_oversubscription: %g}" % (
                    rng.choice([1, 2]), rng.choice([1, 2.5, 7]))
            if rng.random() < 0.3:  # in-network reduction: nvls across nodes
                fabric = fabric[:-1] + ", sharp: true}" if fabric else ", fabric: {sharp: true}"
            arch = "" if rng.random() < 0.7 else ", gpu_arch: %s" % rng.choice(["none", "volta", "ampere", "blackwell"])
            if rng.random() < 0.2:  # a ring channel's own rate
                arch += ", channel_bandwidth: %s" % rng.choice(["0B/s", "1GB/s", "40GB/s", "1TB/s"])
            if rng.random() < 0.25:  # shared NICs: some do not divide the node (refused)
                arch += ", nics_per_node: %d" % rng.choice([0, 1, 2, 3, 4])
            base = "preset: dgx-h100"
            if rng.random() < 0.3:  # a PCIe node: some layouts split unevenly (refused)
                base = "kind: dgx, intra: pcie, pcie: {switch_gpus: %d, sockets: %d, p2p: %s%s}" % (
                    rng.choice([1, 2, 4]), rng.choice([1, 2]), rng.choice(["true", "false"]),
                    (", socket_bandwidth: 9GB/s" if rng.random() < 0.5 else "") +
                    (", nvlink_bridge: 100GB/s" if rng.random() < 0.3 else ""))
                fabric = fabric.replace(", pxn: false", "")
            topo = "{%s, nodes: %d, gpus_per_node: %d%s%s}" % (base, rng.randint(1, 4), gpn, fabric, arch)
        sizes = ", ".join("%dB" % rng.choice([1, 4, 8, 100, 4096, 65536, 262147]) for _ in range(3))
        chunk = rng.choice([64, 4096, 65536, 2097152])
        slc = min(chunk, rng.choice([64, 4096, 1048576]))
        buf = max(chunk, rng.choice([4096, 4194304]))
        fid = rng.choice(["flow", "flow", "analytical", "packet"])
        y = ("schema_version: 1\ntopology: %s\ncollective: {op: %s, algo: %s, sizes: [%s], channels: %d, "
             "chunk: %dB, slice: %dB, buffer: %dB, protocol: %s, iters: %d}\nsim: {check: true, fidelity: %s%s}\n") % (
            topo, op, algo, sizes, rng.randint(0, 5), chunk, slc, buf,
            rng.choice(["simple", "ll", "ll128", "auto"]), rng.randint(1, 3), fid,
            ", packet: %dB, hop_buffer: %d" % (rng.choice([64, 1000, 4096, 65536]), rng.randint(1, 16))
            if fid == "packet" else "")
        if rng.random() < 0.15:  # NCCL's own tuner: refused for ops it does not tune or without gpu_arch
            y = y.replace(", iters:", ", tuner: nccl, iters:", 1)
            if "preset: dgx-h100" in y and rng.random() < 0.5:
                y = y.replace("preset: dgx-h100,", "preset: dgx-h100, cpu: %s," % rng.choice(["intel", "amd", "arm"]), 1)
        if rng.random() < 0.2:  # one host thread driving several GPUs: some divide a node, some not (refused)
            y = y.replace(", iters:", ", gpus_per_thread: %d, enqueue: %dns, iters:" % (
                rng.choice([1, 2, 3, 4, 8]), rng.choice([0, 4000, 50000])), 1)
        if rng.random() < 0.15:  # a host backend (gloo, mpi), without NCCL's keys; refused for
            # MoE, flat topologies and fidelities other than flow
            y = re.sub(r"channels: \d+, chunk: \d+B, slice: \d+B, buffer: \d+B, protocol: \w+, ", "", y)
            y = y.replace(", iters:", ", backend: %s, iters:" % rng.choice(["gloo", "mpi"]), 1)
            if rng.random() < 0.8:
                y = re.sub(r"fidelity: \w+(, packet: \d+B, hop_buffer: \d+)?", "fidelity: flow", y)
            if rng.random() < 0.5:
                y = y.replace("algo: ring,", "algo: halving-doubling,", 1)
            if rng.random() < 0.3:
                y += "mpi: {cuda_aware: true}\n" if "backend: mpi" in y else "gloo: {segment: %dB}\n" % rng.choice([64, 4096])
        if rng.random() < 0.1:  # lossy and failing links; some names match no link (refused)
            y += "faults: {%s: \"%s\"}\n" % rng.choice([("loss", "n0=0.01"), ("loss", "n0.nic0=0.2"), ("loss", "gpu0=0.3"),
                                                    ("down", "n0@1us"), ("down", "n1.gpu0@0us"), ("down", "gpu1@2us")])
        if rng.random() < 0.3:  # communicators: some layouts tile the GPUs, some do not (refused)
            blk = "" if rng.random() < 0.6 else ", block: %d, block_stride: %d" % (
                rng.choice([1, 2, 3]), rng.choice([2, 4, 6, 8, 16]))
            y = y.replace(", iters:", ", group: {size: %d, stride: %d%s}, iters:" % (
                rng.choice([0, 1, 2, 3, 4, 8]), rng.choice([1, 1, 2, 4, 8]), blk), 1)
        if op in ("dispatch", "combine"):
            # experts: often a multiple of the GPUs, sometimes not (refused)
            # node limits that leave a token its experts, some that do not (refused)
            y += "moe: {tokens: %d, topk: %d, experts: %d, max_nodes: %d, chunk: %d}\n" % (
                rng.randint(1, 40), rng.randint(1, 9), rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 48]) * rng.choice([1, 1, 2]),
                rng.choice([0, 0, 1, 2, 3]), rng.choice([1, 2, 16]))
        if rng.random() < 0.1:  # a training step: shapes that divide the GPUs, some that do not
            y = ("schema_version: 1\nworkload: step\ntopology: {preset: dgx-h100, nodes: %d, gpus_per_node: %d}\n"
                 "train: {tp: %d, pp: %d, ep: %d, layers: %d, hidden: %d, seq: %d, micro_batches: %d, params: %g, "
                 "experts: %d, topk: %d, expert_fraction: %g, bucket: %dB, sequence_parallel: %s, "
                 "distributed_optimizer: %s, order: %s, virtual_stages: %d, mfu: %g, sharding: %s, ep_algo: %s%s%s}\n"
                 "sim: {check: true, fidelity: %s}\n") % (
                rng.randint(1, 3), rng.choice([1, 2, 4]), rng.choice([1, 2, 3, 4]), rng.choice([1, 2]),
                rng.choice([1, 1, 2, 4]), rng.choice([2, 3, 4]), rng.choice([8, 64, 256]), rng.choice([4, 16, 64]),
                rng.randint(1, 3), rng.choice([1e3, 1e5, 3e6]), rng.choice([4, 6, 8]), rng.choice([1, 2, 9]),
                rng.choice([0, 0.5, 1]), rng.choice([4096, 65536, 1048576]), rng.choice(["true", "false"]),
                rng.choice(["true", "false"]), rng.choice(["tp-dp-pp", "tp-pp-dp"]),
                rng.choice([1, 1, 2, 3]), rng.choice([0, 0.4]), rng.choice(["none", "none", "zero2", "zero3"]),
                rng.choice(["put", "forward"]),
                rng.choice(["", "", ", shard_group: 2", ", shard_group: 3"]),
                # context parallel: sizes that split the sequence and the GPUs, some that do not
                ("" if rng.random() < 0.6 else ", cp: %d, cp_comm: %s, heads: %d, kv_heads: %d" % (
                    rng.choice([2, 2, 3, 4]), rng.choice(["p2p", "allgather"]), rng.choice([4, 8, 5]),
                    rng.choice([1, 2, 4, 3]))) + ("" if rng.random() < 0.7 else ", tp_overlap: true"),
                rng.choice(["flow", "analytical", "packet"]))
        with open(path, "w") as f:
            f.write(y)
        # every other collective also with its critical path, whose
        # categories (the CSV columns from launch_us on) must sum to the time
        bd = i % 2 == 1 and "workload: step" not in y
        r = subprocess.run([G, "run", path, "--format", "csv"] + (["--breakdown"] if bd else []),
                           capture_output=True, text=True, timeout=300)
        err = r.stderr.strip()
        good = (r.returncode == 0 and err == "" and (r.stdout.startswith("size_bytes,") or r.stdout.startswith("phase,"))) or \
               (r.returncode == 2 and r.stdout == "" and err.count("\n") == 0 and err.startswith(path))
        if good and bd and r.returncode == 0:
            rows = [l.split(",") for l in r.stdout.splitlines()]
            k = rows[0].index("launch_us") if "launch_us" in rows[0] else len(rows[0])
            good = rows[0][-1] == "other_us" and all(
                abs(sum(float(v) for v in row[k:]) - float(row[5])) <= 1e-5 * max(1.0, float(row[5]))
                and float(row[-1]) == 0 for row in rows[1:])
        # every collective that ran is also walked step by step (its
        # first size): every step's instants in order, each strand's steps
        # consecutive and without gaps
        if good and r.returncode == 0 and "workload: step" not in y and "analytical" not in y:
            w = subprocess.run([G, "explain", "--collective", path, "--format", "csv"],
                               capture_output=True, text=True, timeout=300)
            werr = w.stderr.strip()
            if w.returncode == 2 and w.stdout == "" and "more than the" in werr and werr.count("\n") == 0:
                pass
            elif w.returncode != 0 or werr != "" or not w.stdout.startswith("rank,strand,channel,step,op,"):
                good = False
                err += "\nexplain --collective: status %d: %s" % (w.returncode, werr)
            else:
                last = {}
                for l in w.stdout.splitlines()[1:]:
                    f = l.split(",")
                    key, step = (f[0], f[1]), int(f[3])
                    t = [float(v) for v in f[11:15]]
                    prev = last.get(key)
                    ok_row = t[0] <= t[1] <= t[2] <= t[3] and (
                        step == 1 if prev is None else (step == prev[0] + 1 and abs(t[0] - prev[1]) < 1e-6))
                    if not ok_row:
                        good = False
                        err += "\nexplain --collective: bad row " + l
                        break
                    last[key] = (step, t[3])
        if good:
            print("ok %d - %s (status %d)" % (i + 1, "training step" if "workload: step" in y else op + " " + algo, r.returncode))
        else:
            fails += 1
            print("not ok %d - %s %s (status %d)" % (i + 1, op, algo, r.returncode))
            for line in (y + err).splitlines():
                print("# " + line)
sys.exit(1 if fails else 0)
PY
