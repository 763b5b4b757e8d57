#!/usr/bin/env python3
"""Markdown tables of the seeds' experiments for docs/PERFORMANCE.md: the
published figures beside ours from `clsort bench --experiment seed000|seed004`.

usage: bench/seed_tables.py seed000|seed004 [LABEL=FILE.jsonl ...]
                            [--todo LABEL ...] [--stat mean|median]

Each LABEL=FILE adds, for that run (say PoCL=docs/results/pocl-seed000.jsonl),
one column per libclsort algorithm and per peer found in the file: the mean
of the timed runs in ms (the papers report averages; --stat median for the
median). Each --todo LABEL adds a column "LABEL: to be measured". A cell
marked * had fewer timed runs than the experiment's 10 (the bench's
--max-case-seconds cap, or --runs).

The published figures below are copied from the papers' tables, in ms:
  seed000: A. Sinha, "Sorting on CUDA" (2010), average kernel execution time,
           32-bit integers, GPU not named (CUDA 3.0 era).
  seed004: S. M. Munavalli, "Efficient Algorithms for Sorting on GPUs"
           (2012), Tables 1-16, "average run time" of 10 runs on an NVIDIA
           GTX 480 (key type and timed span not stated).
"""
import argparse
import json
import sys

DISTS_000 = ['uniform', 'gaussian', 'bucket', 'sorted', 'zero']

# Sinha 2010: {algorithm: {n: [uniform, gaussian, bucket, sorted, zero]}}
SEED000 = {
    'quicksort': {
        512: ['5.2728000', '16.1874002', '5.4554000', '68.8643996', '67.8875992'],
        10000: ['356.177663', '5043.411133', '359.160003', '25606.53125', '25216.32161'],
    },
    'bitonic': {
        512: ['0.2730', '0.2460', '0.2356', '0.2384', '0.2326'],
        4194304: ['98.9497984', '86.9412000', '98.1599992', '76.0807982', '72.7174012'],
    },
    'radix': {
        512: ['7.0320', '7.0000', '6.9716', '6.9570', '6.9386'],
    },
}
SIZES_000 = [512, 10000, 4194304]

# Munavalli 2012: {distribution (ours): (paper's name, sample sort, FSS)},
# averages for 10M, 20M, ..., 100M keys.
SIZES_004 = [k * 10000000 for k in range(1, 11)]
SEED004 = {
    'uniform': ('uniform', [
        '47.11', '52.58', '1170.92', '5682.79', '8937.32',
        '10454.99', '10644.04', '10680.21', '10755.41', '10857.91'], [
        '73.99', '474.86', '1380.47', '2196.71', '3104.25',
        '4385.89', '4632.17', '5007.89', '5626.17', '5613.60']),
    'gaussian': ('normal', [
        '44.08', '91.66', '1577.11', '5821.72', '9151.11',
        '10120.05', '10625.68', '10670.36', '10736.88', '10809.11'], [
        '70.82', '427.78', '1394.71', '2196.87', '2603.67',
        '4534.18', '4807.00', '4850.64', '5211.65', '5466.61']),
    'poisson': ('Poisson', [
        '27.34', '47.48', '203.70', '790.55', '976.91',
        '1077.49', '1139.03', '1146.80', '1179.47', '1234.53'], [
        '50.39', '174.64', '296.59', '492.80', '539.32',
        '588.43', '661.18', '696.29', '840.33', '909.55']),
    'descending': ('descending', [
        '42.57', '93.33', '1270.10', '5584.34', '9893.66',
        '10266.16', '10454.49', '10690.66', '10746.84', '10780.17'], [
        '67.81', '484.07', '1182.48', '1986.69', '3024.01',
        '3670.23', '4179.30', '4820.64', '5083.54', '5581.87']),
}

EXPERIMENT_RUNS = 10
# Column order: libclsort's algorithms, then the peers.
ORDER = ['radix', 'bitonic', 'sample', 'merge', 'quick',
         'cub-radix', 'cub-merge', 'boost-compute', 'qsort', 'serial-radix']


def load(path):
    """{(algorithm, distribution, n): record} of the verified ascending u32
    key sorts on device buffers (peers: as they run); later lines win."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith('{'):
                continue
            r = json.loads(line)
            if (r.get('status') != 'ok' or r.get('op') != 'sort' or r.get('type') != 'u32'
                    or r.get('pairs') or r.get('verified') is False):
                continue
            if r.get('impl') == 'libclsort' and r.get('api') != 'device':
                continue
            out[(r['algorithm'], r.get('distribution', 'uniform'), int(r['n']))] = r
    return out


def fmt(ms):
    if ms >= 100:
        return f'{ms:.1f}'
    if ms >= 1:
        return f'{ms:.2f}'
    return f'{ms:.4f}'


def cell(rec, stat):
    if rec is None:
        return '-'
    v = rec.get('mean_ms' if stat == 'mean' else 'median_ms')
    if v is None:  # runs from before mean_ms was recorded
        v = rec['median_ms']
    return fmt(v) + ('*' if rec.get('runs', EXPERIMENT_RUNS) < EXPERIMENT_RUNS else '')


def columns(runs):
    """[(header, label, algorithm)] for the algorithms each run holds."""
    cols = []
    for label, recs in runs:
        present = {k[0] for k in recs}
        for algo in sorted(present, key=lambda a: (ORDER.index(a) if a in ORDER else 99, a)):
            cols.append((f'{label} {algo}', label, algo))
    return cols


def print_table(head, rows):
    print('| ' + ' | '.join(head) + ' |')
    print('|' + ' --- |' * len(head))
    for r in rows:
        print('| ' + ' | '.join(r) + ' |')
    print()


def seed000(runs, todo, stat):
    cols = columns(runs)
    recs = dict(runs)
    for n in SIZES_000:
        print(f'**{n:,} keys** (Sinha: average kernel time; ours: {stat} ms)\n')
        head = ['distribution'] + [f'Sinha {a} (published)' for a in SEED000]
        head += [c[0] for c in cols] + [f'{t}: to be measured' for t in todo]
        rows = []
        for i, d in enumerate(DISTS_000):
            row = [d] + [SEED000[a][n][i] if n in SEED000[a] else '-' for a in SEED000]
            row += [cell(recs[label].get((algo, d, n)), stat) for _, label, algo in cols]
            row += ['to be measured' for _ in todo]
            rows.append(row)
        print_table(head, rows)


def seed004(runs, todo, stat):
    cols = columns(runs)
    recs = dict(runs)
    for d, (paper, sample, fss) in SEED004.items():
        print(f'**{paper} input** (published: average of 10 runs on a GTX 480; ours: {stat} ms)\n')
        head = ['n', 'sample sort (published)', 'Fine Sample Sort (published)']
        head += [c[0] for c in cols] + [f'{t}: to be measured' for t in todo]
        rows = []
        for i, n in enumerate(SIZES_004):
            row = [f'{n // 1000000}M', sample[i], fss[i]]
            row += [cell(recs[label].get((algo, d, n)), stat) for _, label, algo in cols]
            row += ['to be measured' for _ in todo]
            rows.append(row)
        print_table(head, rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('experiment', choices=['seed000', 'seed004'])
    ap.add_argument('runs', nargs='*', metavar='LABEL=FILE.jsonl')
    ap.add_argument('--todo', action='append', default=[], metavar='LABEL')
    ap.add_argument('--stat', choices=['mean', 'median'], default='mean')
    args = ap.parse_args()
    runs = []
    for spec in args.runs:
        label, sep, path = spec.partition('=')
        if not sep:
            sys.exit(f'seed_tables.py: expected LABEL=FILE, not {spec!r}')
        runs.append((label, load(path)))
    (seed000 if args.experiment == 'seed000' else seed004)(runs, args.todo, args.stat)


if __name__ == '__main__':
    main()
