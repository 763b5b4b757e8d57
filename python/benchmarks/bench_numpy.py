#!/usr/bin/env python3
"""bench_numpy.py: clsort.sort against numpy.sort in the same process, on the
same arrays (uniform random keys), as a Markdown table of median wall times.
clsort's times include the copies to and from the device (host arrays, as a
numpy user calls it); the first call per case is a warm-up (kernel builds).

usage: python python/benchmarks/bench_numpy.py [--device SPEC] [--sizes 16,20,22] [--types u32,f32,u64,f64]
                             [--runs 5]
"""
import argparse
import statistics
import time

import numpy as np

import clsort

TYPES = {"u32": np.uint32, "i32": np.int32, "f32": np.float32,
         "u64": np.uint64, "i64": np.int64, "f64": np.float64}


def keys(dtype, n, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def median_ms(fn, runs):
    fn()  # warm-up: kernel builds, page faults
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", default="16,20,22", help="exponents of 2")
    ap.add_argument("--types", default="u32,f32,u64,f64")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    with clsort.Context(device=args.device) as ctx:
        print("clsort %s on %s; numpy %s" % (clsort.library_version(), ctx.device_name.strip(),
                                               np.__version__))
        print()
        print("| type | n | numpy.sort ms | clsort.sort ms | numpy / clsort |")
        print("|---|---:|---:|---:|---:|")
        for t in args.types.split(","):
            for e in (int(x) for x in args.sizes.split(",")):
                a = keys(TYPES[t], 1 << e, rng)
                r = ctx.sort(a)
                assert np.array_equal(r, np.sort(a)), "clsort.sort disagrees with numpy.sort"
                np_ms = median_ms(lambda: np.sort(a), args.runs)
                cl_ms = median_ms(lambda: ctx.sort(a), args.runs)
                print("| %s | 2^%d | %.2f | %.2f | %.2f |" % (t, e, np_ms, cl_ms, np_ms / cl_ms))


if __name__ == "__main__":
    main()
