#!/bin/sh
# Benchmark of `millrace compare` on the bundled real recording's fitted model: 4 partitioners x
# 8 worker counts x 32 replicas (1% failed attempts, 30 s start-up), timed with the default thread
# pool (hardware concurrency) and, as the baseline of the speedup, with one thread. Both runs must
# print the same table (checked). Target: under 10 s on 2 cores.
# Usage: bench/bench_compare.sh [path/to/millrace]   (default: build/cli/millrace)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
millrace=${1:-$here/build/cli/millrace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$millrace" import --store "$work/s.db" --format stellar-csv --name pcv2 \
  "$here/data/sets/stellar-pcv2-2024-11/pcv2_run_2024-11_per_range_timings.csv" > /dev/null
"$millrace" fit --store "$work/s.db" --runs pcv2 --bins 64 -o "$work/model.json" > /dev/null
args="compare --store $work/s.db --model $work/model.json --span -9856:54326463 --no-record
  --partitioners uniform,logarithmic,cost-balanced,optimal --workers 24,48,96,144,192,288,384,512
  --replicas 32 --seed 1 --fail-prob 0.01 --startup-latency 30s --range-length 16000 --overlap 320"
timed() {
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$millrace" $args "$@" > "$work/out.$#"
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
all=$(timed)
one=$(timed --threads 1)
cmp -s "$work/out.0" "$work/out.2" || { echo "thread count changed the output" >&2; exit 1; }
echo "compare 4 partitioners x 8 worker counts x 32 replicas: $(grep -c . "$work/out.0") lines"
echo "threads=$(nproc): ${all} s"
echo "threads=1: ${one} s"
echo "speedup: $(echo "scale=2; $one / $all" | bc)"
