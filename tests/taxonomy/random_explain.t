#!/bin/sh
# SPDX-License-Identifier: MIT
# Random explain studies (fixed seed): a walk or a comparison of the
# communication types on a random platform, with one to three component
# parameters (gpu.*, pcie.*, host.*, proxy.*, gdrcopy.*, nic.*, wire.*,
# switch.*, caps.*, nvlink.*, as `gcsim models --keys` lists them) set to
# random values around their defaults. Every run must end with status 0 and
# its output, or with one clear input-error line (status 2): never an
# internal error (a stream of messages that does not complete, say) or a
# sanitizer report. A comparison of one message must give each type's rate
# as the inverse of its latency (the event-driven stream of one message is
# the walk); a put-bw loop's rate must be its puts over its time. GCSIM_RANDOM_SEED and GCSIM_RANDOM_N draw another or a longer
# series (e.g. under build/asan/gcsim).
cd "$(dirname "$0")/../.." || exit 1
. tests/python.sh
exec python3 - "$G" <<'PY'
import os, random, re, subprocess, sys
G = sys.argv[1]
rng = random.Random(int(os.environ.get("GCSIM_RANDOM_SEED", "20261202")))
N = int(os.environ.get("GCSIM_RANDOM_N", "60"))
SECTIONS = ("gpu", "pcie", "host", "proxy", "gdrcopy", "nic", "wire", "switch", "caps", "nvlink")
keys = []
for line in subprocess.run([G, "models", "--keys"], capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"^([a-z_0-9]+)\.([a-z_0-9.]+)\s+(\S+)\s+(\S+)\s+(.*)$", line)
    if m and m.group(1) in SECTIONS:
        ch = re.search(r"\{([a-z0-9_|-]+)\}", m.group(5))
        keys.append((m.group(1) + "." + m.group(2), m.group(3), m.group(4), ch.group(1).split("|") if ch else None))
print("1..%d" % (N + 1))
print("%s - models --keys lists the component parameters (%d)" % ("ok 1" if len(keys) >= 20 else "not ok 1", len(keys)))
fails = 0 if len(keys) >= 20 else 1
UNIT = re.compile(r"^([0-9.]+)([A-Za-z/]+)$")

def value(kind, dflt, choices):
    if choices:
        return rng.choice(choices)
    if kind == "boolean":
        return rng.choice(["true", "false"])
    if kind == "integer":
        d = int(dflt)
        return str(rng.choice([1, 2, 3, max(1, d // 2), d, 2 * d + 1, 0]))
    m = UNIT.match(dflt)
    if not m:
        return dflt
    f = rng.choice([0, 0.1, 0.5, 1, 2, 10]) if kind == "time" else rng.choice([0.01, 0.5, 1, 2, 8])
    v = float(m.group(1)) * f
    if kind == "time":  # whole picoseconds: print in ps
        scale = {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9, "s": 1e12}[m.group(2)]
        return "%dps" % round(v * scale)
    return "%.6g%s" % (v, m.group(2)) if v > 0 else "1" + m.group(2)

for i in range(N):
    plat = rng.choice(["dgx-h100", "dgx-a100", "p5", "p4d"])
    sets = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        k = rng.choice(keys)
        sets += ["--set", "%s=%s" % (k[0], value(k[1], k[2], k[3]))]
    size = rng.choice(["8", "512", "4KiB", "1MiB", "64MiB"])
    loop = None
    pick = rng.random()
    if pick < 0.2:
        msgs = None
        loop = (rng.choice([1, 2, 32, 108, 300]), rng.choice([1, 3, 10, 100]))
        args = ["explain", "--compare", "inter", "--bench", "put-bw", "--ctas", str(loop[0]), "--iters",
                str(loop[1]), "--bytes", size, "--platform", plat, "--format", "csv"] + sets
    elif pick < 0.6:
        msgs = rng.choice(["1", "1", "2", "7", "300"])
        args = ["explain", "--compare", rng.choice(["intra", "inter"]), "--bytes", size,
                "--platform", plat, "--messages", msgs, "--format", "csv"] + sets
    else:
        msgs = None
        args = ["explain", "--path", rng.choice(["intra:1", "intra:2", "intra:3", "intra:4", "inter:1", "inter:2",
                                                 "inter:3", "inter:4", "inter:5", "roundtrip"]),
                "--bytes", size, "--platform", plat] + sets
    r = subprocess.run([G] + args, capture_output=True, text=True, timeout=300)
    err = r.stderr.strip()
    why = ""
    good = r.returncode == 2 and r.stdout == "" and err.count("\n") == 0 and err.startswith("gcsim explain: ")
    if r.returncode == 0 and err == "":
        if loop:
            # a put loop: every row's rate is its ctas x iters puts over its time
            rows = [l.split(",") for l in r.stdout.splitlines()]
            good = rows[0][-3:] == ["time_us", "bw_GBps", "rate_Mops"] and len(rows) > 1
            for row in rows[1:]:
                t, rate = float(row[5]), float(row[7])
                want = loop[0] * loop[1] / t if t > 0 else -1
                if good and (t <= 0 or abs(rate - want) > 1e-3 + 1e-3 * want):
                    good, why = False, "type %s: rate %g, %d puts in %g us" % (row[0], rate, loop[0] * loop[1], t)
        elif msgs is None:
            good = "\ntotal: " in r.stdout
        else:
            rows = [l.split(",") for l in r.stdout.splitlines()]
            good = rows[0][-1] == "rate_Mops" and len(rows) > 2
            for row in rows[1:]:
                if not good or not row[2] or row[2].startswith("refused"):
                    continue
                lat, rate = float(row[2]), float(row[5])
                if msgs == "1" and abs(rate - 1 / lat) > 0.0005 + 1e-3 / lat:
                    good, why = False, "type %s: rate %g of one message is not 1/latency (%g us)" % (row[0], rate, lat)
                elif rate <= 0:
                    good, why = False, "type %s: rate %g" % (row[0], rate)
    if good:
        print("ok %d - %s" % (i + 2, " ".join(args)))
    else:
        fails += 1
        print("not ok %d - %s (status %d)" % (i + 2, " ".join(args), r.returncode))
        for l in (why + "\n" + err).strip().splitlines():
            print("# " + l)
sys.exit(1 if fails else 0)
PY
