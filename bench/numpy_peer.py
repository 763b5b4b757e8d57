#!/usr/bin/env python3
"""numpy_peer.py: the numpy.sort peer of `clsort bench --peers numpy`.

clsort bench runs it with the python of a virtual environment holding
numpy >= 2 from PyPI (x86-simd-sort inside; scripts/install-deps --numpy
makes one), once per case, and writes the case's keys (the very keys
libclsort sorted) to its standard input as raw bytes. It prints one JSON
line in clsort bench's record format: the median wall time of
`a.sort()` (numpy's default kind, one thread) on a fresh copy each run.

numpy picks its sort's SIMD code by the CPU's features when it is
imported. On some CPUs its AVX-512 code is the slow one: on the 2-core
AMD EPYC developers' machine (Zen 4, whose compress-store instructions are
microcoded) numpy 2.4.6 sorted 2^24 u32 keys in 0.69 s with it and in 0.10
s without it (NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL"). So where
numpy found AVX-512 targets, the script measures again in a child
process with them disabled and reports the faster of the two, saying so
in the note: the peer is numpy at its best on this machine.

usage: PYTHON numpy_peer.py --type T --n N [--distribution D] [--runs R]
       [--warmup W] [--max-case-seconds S] [--device NAME] [--no-verify]
       [--as-is]   (measure numpy's dispatch as it stands only: the child)
Without numpy >= 2 it prints a record with status "skipped" and a note.
"""
import argparse
import json
import os
import subprocess
import sys
import time

TYPES = {'u32': 'uint32', 'i32': 'int32', 'f32': 'float32',
         'u64': 'uint64', 'i64': 'int64', 'f64': 'float64',
         'u8': 'uint8', 'i8': 'int8', 'u16': 'uint16', 'i16': 'int16'}


def record(args, **fields):
    r = {'device': args.device, 'op': 'sort', 'algorithm': 'numpy-sort', 'impl': 'peer',
         'type': args.type, 'pairs': False, 'distribution': args.distribution, 'api': 'host',
         'status': 'ok', 'n': args.n}
    r.update(fields)
    return r


def order_bits(np, a):
    """The unsigned integers whose order is libclsort's order of a's keys
    (total order by bits for floats), for the check."""
    kind = a.dtype.kind
    bits = a.dtype.itemsize * 8
    u = np.dtype('uint%d' % bits)
    raw = a.view(u)
    sign = u.type(1) << u.type(bits - 1)
    if kind == 'u':
        return raw
    if kind == 'i':
        return raw ^ sign
    neg = (raw & sign) != 0
    return np.where(neg, ~raw, raw ^ sign)


def main():
    p = argparse.ArgumentParser(description='numpy.sort peer of clsort bench')
    p.add_argument('--type', required=True, choices=sorted(TYPES))
    p.add_argument('--n', type=int, required=True)
    p.add_argument('--distribution', default='uniform')
    p.add_argument('--runs', type=int, default=10)
    p.add_argument('--warmup', type=int, default=2)
    p.add_argument('--max-case-seconds', type=float, default=30.0)
    p.add_argument('--device', default='host CPU')
    p.add_argument('--no-verify', action='store_true')
    p.add_argument('--as-is', action='store_true')
    args = p.parse_args()

    data = sys.stdin.buffer.read()
    try:
        import numpy as np
    except ImportError:
        print(json.dumps(record(args, status='skipped', note='numpy is not installed')))
        return 0
    if int(np.__version__.split('.')[0]) < 2:
        print(json.dumps(record(args, status='skipped',
                                note='numpy %s: needs >= 2 (x86-simd-sort)' % np.__version__)))
        return 0
    a = np.frombuffer(data, dtype=TYPES[args.type])
    if a.size != args.n:
        print('numpy_peer: got %d keys on stdin, expected %d' % (a.size, args.n), file=sys.stderr)
        return 1

    times = []
    first = None
    begin = time.perf_counter()
    run = 0
    while len(times) < args.runs:
        work = a.copy()
        t0 = time.perf_counter()
        work.sort()
        ms = (time.perf_counter() - t0) * 1e3
        if run == 0:
            first = ms
        if run < args.warmup:
            begin = time.perf_counter()
        else:
            times.append(ms)
            if len(times) >= 3 and time.perf_counter() - begin > args.max_case_seconds:
                break
        run += 1
    times.sort()
    median = times[len(times) // 2] if len(times) % 2 else 0.5 * (times[len(times) // 2 - 1] +
                                                                 times[len(times) // 2])
    r = record(args, timing='wall', runs=len(times), warmup=args.warmup, median_ms=median,
               min_ms=times[0], max_ms=times[-1], mean_ms=sum(times) / len(times),
               wall_median_ms=median, first_ms=first,
               mkeys_per_s=args.n / median / 1e3 if median > 0 else 0.0,
               note='numpy %s' % np.__version__)
    if args.no_verify:
        r['verified'] = None
    else:
        got = order_bits(np, work)
        ok = bool(np.all(got[1:] >= got[:-1])) and np.array_equal(got, np.sort(order_bits(np, a)))
        r['verified'] = ok
        if not ok:
            r['status'] = 'failed'
            r['note'] = 'numpy.sort output is not the sorted input'
    if not args.as_is and r['status'] == 'ok':
        r = without_avx512(np, data, r)
    print(json.dumps(r))
    return 0


def avx512_targets(np):
    """numpy's AVX-512 dispatch targets that this CPU has."""
    try:
        from numpy._core import _multiarray_umath as m
    except ImportError:
        return []
    found = getattr(m, '__cpu_features__', {})
    targets = getattr(m, '__cpu_dispatch__', [])
    return [t for t in targets if found.get(t) and (t.startswith('AVX512') or t == 'X86_V4')]


def without_avx512(np, data, r):
    """r, or the record of a child that measured the same keys with
    numpy's AVX-512 targets disabled, whichever is faster."""
    off = avx512_targets(np)
    if not off:
        return r
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=' '.join(off))
    child = subprocess.run([sys.executable, os.path.abspath(__file__)] + sys.argv[1:] +
                           ['--as-is'], input=data, env=env, capture_output=True)
    try:
        other = json.loads(child.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        r['note'] += '; with %s disabled it did not run' % ' '.join(off)
        return r
    if other.get('status') != 'ok' or other['median_ms'] >= r['median_ms']:
        r['note'] += '; with %s disabled %.4g ms' % (' '.join(off), other.get('median_ms', 0))
        return r
    other['note'] = ('numpy %s with NPY_DISABLE_CPU_FEATURES="%s" (its AVX-512 code took %.4g ms)'
                     % (np.__version__, ' '.join(off), r['median_ms']))
    return other


if __name__ == '__main__':
    sys.exit(main())
