#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive a (sanitizer) build of gcsim with random command lines: every
shipped scenario under random --set overrides (registered keys at malformed
and extreme values, and common keys at valid but unusual ones), and
`gcsim explain` with random paths, variants, platforms and sizes.

A run passes when it exits 0, or 2 with a message on stderr; it fails on
any other status, a sanitizer report or an assertion. Runs past --timeout
are counted, not failed. The draw is a function of --seed alone, so a
failure is replayed by the printed command line.

  python3 tests/fuzz/cli_overrides.py build/asan/gcsim [--runs N] [--seed S] [--jobs J]

`make fuzz-cli` builds the sanitizer binary and runs this. Exit status: 0
when every run passed, 1 otherwise.
"""
import argparse
import concurrent.futures
import glob
import os
import random
import subprocess
import sys

# values per kind of key (gcsim models --keys): malformed, zero, negative,
# tiny, huge, and ordinary
EDGE = {
    'time': ['0', '-1us', '1e-30s', '1e30s', '1ps', 'abc', 'nan', 'inf', '3us'],
    'bandwidth': ['0', '-1GB/s', '1e-30GB/s', '1e30GB/s', '1bps', 'xyz', 'nan', '7GB/s'],
    'integer': ['0', '-1', '1', '3', '65', '1.5', '2147483648', '99999999999999999999'],
    'number': ['0', '-1', 'nan', 'inf', '1e308', '1e-308', '0.5', '2'],
    'size': ['0', '-1', '1B', '7B', '17', '1e30', '16EiB', '3MiB'],
    'sizes': ['[0]', '[1B]', '[1GiB, 1B]', '[]', '[-1]', '[16EiB]', '3'],
    'bool': ['true', 'false', 'yes', '2', ''],
    'choice': ['bogus', '', 'auto', 'none'],
}
# keys most scenarios read, at values a user could give
COMMON = {
    'topology.nodes': ['1', '2', '3', '5', '7', '17', '64'],
    'collective.sizes': ['[1B]', '[7B]', '[1B, 3MiB, 1GiB]', '[4097B]', '[12345678B]', '[0B]'],
    'collective.algo': ['ring', 'tree', 'nvls', 'nvlstree', 'pat', 'auto', 'pairwise', 'bruck',
                        'hd', 'chain', 'put', 'collnet'],
    'collective.protocol': ['ll', 'll128', 'simple', 'auto'],
    'collective.op': ['allreduce', 'allgather', 'reducescatter', 'broadcast', 'reduce',
                      'alltoall', 'sendrecv'],
    'collective.channels': ['0', '1', '2', '3', '7', '31', '64'],
    'collective.chunk': ['1B', '7B', '4KiB', '3MiB'],
    'collective.slice': ['1B', '4KiB', '3MiB'],
    'collective.buffer': ['8B', '1KiB', '64MiB'],
    'sim.fidelity': ['flow', 'packet', 'analytical'],
    'sim.fold': ['true', 'false'],
    'topology.nic.latency': ['0', '1ps', '1ms'],
    'topology.nic.bandwidth': ['1Gbps', '1Tbps'],
    'transport.inter': ['none', 'nccl', 'ibrc', 'ibgda', 'gin', 'auto'],
    'collective.tuner': ['nccl', 'gcsim'],
    'collective.nccl_version': ['2.19.3', '2.26.2', '2.30.7'],
    'topology.fabric.oversubscription': ['1', '2', '4'],
}
EXPLAIN = {
    'path': ['intra:1', 'intra:2', 'intra:3', 'intra:4', 'inter:1', 'inter:2', 'inter:3',
             'inter:4', 'inter:5', 'roundtrip', 'inter:9', 'x'],
    'variant': ['cpu', 'proxy', 'ce', 'kernel', 'simple', 'll', 'put', 'signal', 'amo', 'bogus'],
    'platform': ['dgx-h100', 'dgx-a100', 'p5', 'p4d', 'bogus'],
    'bytes': ['0', '1B', '8B', '7', '4KiB', '1GiB', '16EiB', '-1', 'abc'],
    'set': ['proxy.flag_read=gdrcopy', 'proxy.batch=0', 'proxy.batch=1', 'nic.msg_rate=0',
            'gpu.fence=0', 'pcie.latency=0', 'host.mem_latency=1s', 'proxy.post=chained',
            'gpu.queues=3'],
}


def registered_keys(gcsim):
    """(key, kind) of every scenario key gcsim registers."""
    out = subprocess.run([gcsim, 'models', '--keys'], capture_output=True, text=True,
                         env=dict(os.environ, ASAN_OPTIONS='detect_leaks=0')).stdout
    keys = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and '.' in f[0] and f[1] in EDGE:
            keys.append((f[0], f[1]))
    return keys


def draw(rng, gcsim, timeout, scenarios, keys):
    """One command line."""
    cmd = ['timeout', str(timeout), gcsim]
    mode = rng.random()
    if mode < 0.4:
        cmd += ['run', rng.choice(scenarios)]
        for _ in range(rng.randint(1, 4)):
            k = rng.choice(sorted(COMMON))
            cmd += ['--set', '%s=%s' % (k, rng.choice(COMMON[k]))]
    elif mode < 0.7:
        cmd += ['run', rng.choice(scenarios)]
        for _ in range(rng.randint(1, 3)):
            k, kind = rng.choice(keys)
            cmd += ['--set', '%s=%s' % (k, rng.choice(EDGE[kind]))]
    else:
        cmd += ['explain']
        sub = rng.randint(0, 3)
        if sub == 0:
            cmd += ['--path', rng.choice(EXPLAIN['path'])]
            if rng.random() < 0.5:
                cmd += ['--variant', rng.choice(EXPLAIN['variant'])]
        elif sub == 1:
            cmd += ['--compare', rng.choice(['intra', 'inter', 'x'])]
            if rng.random() < 0.5:
                cmd += ['--messages', rng.choice(['0', '1', '20000', '-3'])]
        elif sub == 2:
            cmd += ['--collective', rng.choice(scenarios)]
        else:
            cmd += ['--transport', rng.choice(scenarios)]
        if rng.random() < 0.5:
            cmd += ['--platform', rng.choice(EXPLAIN['platform'])]
        if rng.random() < 0.6:
            cmd += ['--bytes', rng.choice(EXPLAIN['bytes'])]
        if rng.random() < 0.4:
            cmd += ['--set', rng.choice(EXPLAIN['set'])]
        return cmd
    cmd += rng.choice([[], ['--breakdown'], ['--links'], ['--fidelity', 'analytical'],
                       ['--fidelity', 'packet']])
    return cmd


def run_one(cmd):
    env = dict(os.environ, ASAN_OPTIONS='detect_leaks=0', UBSAN_OPTIONS='print_stacktrace=1')
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    err = p.stderr
    bad = (p.returncode not in (0, 2, 124) or 'runtime error' in err
           or 'AddressSanitizer' in err or 'ssertion' in err
           or (p.returncode == 2 and not err.strip()))
    return cmd, p.returncode, bad, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('gcsim', help='the gcsim binary (a sanitizer build: build/asan/gcsim)')
    ap.add_argument('--runs', type=int, default=200)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--timeout', type=int, default=30, help='seconds a run may take')
    a = ap.parse_args()
    if not os.access(a.gcsim, os.X_OK):
        sys.exit('cli_overrides: %s: not an executable (make fuzz-cli builds build/asan/gcsim)'
                 % a.gcsim)
    scenarios = sorted(glob.glob('scenarios/*.yaml'))
    if not scenarios:
        sys.exit('cli_overrides: no scenarios/*.yaml here: run from the repository root')
    keys = registered_keys(a.gcsim)
    if not keys:
        sys.exit('cli_overrides: %s models --keys listed no keys' % a.gcsim)
    rng = random.Random(a.seed)
    cmds = [draw(rng, a.gcsim, a.timeout, scenarios, keys) for _ in range(a.runs)]
    counts, failed = {}, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for cmd, rc, bad, err in pool.map(run_one, cmds):
            if not bad:
                counts[rc] = counts.get(rc, 0) + 1
            else:
                failed += 1
                print('FAIL (exit %d): %s\n%s' % (rc, ' '.join(cmd[2:]), err[-2000:]), flush=True)
    print('cli_overrides: %d runs (seed %d): %d ran, %d refused with a message, %d past %d s, '
          '%d failed' % (a.runs, a.seed, counts.get(0, 0), counts.get(2, 0), counts.get(124, 0),
                         a.timeout, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
