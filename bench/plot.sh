#!/usr/bin/env bash
# plot.sh: PNG charts of `clsort bench --json` results: throughput (Mkeys/s)
# against n on a log2 axis, one chart per device, key type and family.
#
# usage: bench/plot.sh [-o DIR] RESULTS.jsonl...   (default DIR: ./plots)
# Needs python3 and gnuplot (Debian/Ubuntu: gnuplot-nox).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=plots
if [[ ${1:-} == -o ]]; then
  out=${2:?plot.sh: -o needs a directory}
  shift 2
fi
if [[ $# -eq 0 || ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  [[ $# -eq 0 ]] && exit 2 || exit 0
fi
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found (apt install gnuplot-nox)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "plot.sh: python3 not found" >&2; exit 1; }

mkdir -p "$out"
python3 "$here/plot.py" "$out" "$@" > "$out/charts.list"
gnuplot "$out/charts.gp"
# The .dat files and the script stay next to the charts for reuse.
echo "plot.sh: $(wc -l < "$out/charts.list") chart(s) in $out:" >&2
cat "$out/charts.list"
