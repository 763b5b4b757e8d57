#!/usr/bin/env python3
"""plot.py: turns `clsort bench --json` lines into gnuplot data and scripts.

Called by plot.sh. One chart per device, key type and family: the
primitives on one, the sorts on one per key distribution. Each line is one
algorithm (libclsort's solid, peers' dashed): throughput in Mkeys/s against
n on a log2 axis. Writes DIR/data/*.dat and DIR/charts.gp, and prints the
PNG names.
"""
import json
import math
import os
import re
import sys
from collections import defaultdict


def slug(text):
    return re.sub(r'[^A-Za-z0-9]+', '-', text).strip('-').lower()[:60] or 'device'


def label(rec):
    alg, op = rec['algorithm'], rec['op']
    if rec.get('api') in ('host', 'pinned') and rec.get('impl') == 'libclsort':
        alg += '@' + rec['api']
    if op.startswith('sort'):
        return '%s %s' % (alg, 'pairs' if rec.get('pairs') else 'keys')
    # Primitives: libclsort's algorithm is the op itself; peers name both.
    return alg if alg.split('@')[0] == op else '%s (%s)' % (alg, op)


def load(paths):
    records = []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith('{'):
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get('status') in ('ok', 'failed') and rec.get('median_ms', 0) > 0:
                    records.append(rec)
    return records


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: plot.py OUTDIR FILE...')
    outdir, paths = sys.argv[1], sys.argv[2:]
    records = load(paths)
    if not records:
        sys.exit('plot.py: no measurements in %s' % ' '.join(paths))
    # Peers (CUB's CUDA name, for one) may spell the device differently:
    # charts follow the device libclsort ran on in the same run.
    run_device = {}
    for rec in records:
        if rec.get('impl') == 'libclsort' and rec.get('run'):
            run_device[rec['run']] = rec['device']
    charts = defaultdict(lambda: defaultdict(list))
    for rec in records:
        device = run_device.get(rec.get('run'), rec['device'])
        if rec['op'].startswith('sort'):
            family = '%s-%s' % (rec['op'], rec.get('distribution', 'uniform'))
        else:
            family = 'primitives'
        charts[(device, rec['type'], family)][label(rec)].append(rec)

    script = []
    pngs = []
    os.makedirs(os.path.join(outdir, 'data'), exist_ok=True)
    for (device, ktype, family), lines in sorted(charts.items()):
        name = '%s-%s-%s' % (slug(device), ktype, family)
        png = os.path.join(outdir, name + '.png')
        plots = []
        for i, (lab, recs) in enumerate(sorted(lines.items())):
            dat = os.path.join(outdir, 'data', '%s.%d.dat' % (name, i))
            # Repeated measurements of one size (several runs in the
            # inputs) are averaged into one point.
            by_n = defaultdict(list)
            for rec in recs:
                by_n[int(rec['n'])].append(rec['mkeys_per_s'])
            with open(dat, 'w') as f:
                for n in sorted(by_n):
                    if n > 0:
                        f.write('%.6f %.6g\n' % (math.log2(n), sum(by_n[n]) / len(by_n[n])))
            dashed = ' dt 2' if any(r.get('impl') == 'peer' for r in recs) else ''
            plots.append("'%s' using 1:2 with linespoints lw 2%s title '%s'"
                         % (dat, dashed, lab.replace("'", "")))
        title = '%s, %s, %s' % (device, ktype, family.replace('-', ' '))
        script += [
            "set output '%s'" % png,
            "set title '%s' noenhanced" % title.replace("'", ""),
            'plot ' + ', \\\n     '.join(plots),
        ]
        pngs.append(png)

    header = [
        "set terminal pngcairo size 1100,700 font 'sans,10'",
        "set xlabel 'n (log2 elements)'",
        "set ylabel 'Mkeys/s (log scale)'",
        'set logscale y',
        'set grid',
        'set key outside right top noenhanced',
        "set format x '2^{%g}'",
        'set xtics 2',
    ]
    with open(os.path.join(outdir, 'charts.gp'), 'w') as f:
        f.write('\n'.join(header + script) + '\n')
    for png in pngs:
        print(png)


if __name__ == '__main__':
    main()
