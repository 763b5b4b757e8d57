#!/usr/bin/env python3
"""Markdown tables for docs/PERFORMANCE.md from `clsort bench` JSON lines.

usage: bench/tables.py FILE.jsonl [--op OP] [--type T] [--pairs keys|pairs]
                       [--peer PEER] [--bound BYTES_PER_4_BYTE_ELEMENT]

For every (op, libclsort algorithm, type, keys/pairs, distribution) it
prints one table over n: libclsort's median, its rate, the peer's median
from the same run and the ratio peer time / libclsort time (above 1:
libclsort is faster). With --bound B it adds the time B bytes per element
take at 3.0 TB/s (the H100's device-to-device copy rate) and how far the
measured time is from it.
"""
import argparse
import json
from collections import defaultdict

COPY_RATE = 3.0e12  # bytes/s, measured device-to-device copy on the H100


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('{'):
                r = json.loads(line)
                if r.get('status', 'ok') == 'ok':
                    rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file')
    ap.add_argument('--op', default=None)
    ap.add_argument('--peer', default=None)
    ap.add_argument('--bound', type=float, default=None)
    ap.add_argument('--distribution', default='uniform')
    ap.add_argument('--type', default=None)
    ap.add_argument('--pairs', choices=['keys', 'pairs'], default=None)
    args = ap.parse_args()
    rows = load(args.file)
    lib = defaultdict(dict)
    peer = defaultdict(dict)
    for r in rows:
        if args.op and r['op'] != args.op:
            continue
        if args.type and r['type'] != args.type:
            continue
        if args.pairs and r.get('pairs', False) != (args.pairs == 'pairs'):
            continue
        if r.get('distribution', 'uniform') != args.distribution and r['op'] == 'sort':
            continue
        key = (r['op'], r['type'], r.get('pairs', False), r.get('distribution', '-'))
        if r.get('impl') == 'libclsort':
            lib[key + (r['algorithm'],)][r['n']] = r
        elif args.peer and r['algorithm'].startswith(args.peer):
            peer[key][r['n']] = r
    for key in sorted(lib):
        op, typ, pairs, dist, algo = key
        cells = lib[key]
        print(f"\n**{op} {algo} {typ} {'pairs' if pairs else 'keys'}"
              f"{' ' + dist if op == 'sort' else ''}**\n")
        head = '| n | median ms | G/s | verified |'
        sep = '| --- | --- | --- | --- |'
        if args.peer:
            head += f' {args.peer} ms | ratio |'
            sep += ' --- | --- |'
        if args.bound:
            head += ' bound ms | of bound |'
            sep += ' --- | --- |'
        print(head)
        print(sep)
        for n in sorted(cells):
            r = cells[n]
            line = (f"| 2^{r['log2n']} | {r['median_ms']:.4f} | {n / r['median_ms'] / 1e6:.2f} |"
                    f" {'yes' if r.get('verified') else 'no'} |")
            if args.peer:
                p = peer.get(key[:4], {}).get(n)
                line += (f" {p['median_ms']:.4f} | {p['median_ms'] / r['median_ms']:.2f} |"
                         if p else ' - | - |')
            if args.bound:
                size = 8 if typ.endswith('64') else 4
                bound_ms = n * args.bound * size / 4 / COPY_RATE * 1e3
                line += f" {bound_ms:.4f} | {bound_ms / r['median_ms']:.2f} |"
            print(line)


if __name__ == '__main__':
    main()
