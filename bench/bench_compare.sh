#!/bin/sh
# Sweeps on 1 and 2 threads: `millrace compare` and `millrace plan` as the main job runs them
# (scripts/main-job.sh: the bundled recording, its fitted model, 4 partitioners, 20 replicas),
# each timed by wall clock with --threads 1 and --threads 2, best of ROUNDS runs (the two thread
# counts alternate, so a change of load hits both). The outputs of 1 and 2 threads must be the
# same byte for byte (checked: the script fails otherwise). Run it on an idle machine: the
# speed-up of 2 threads cannot show while other processes hold the cores.
# Usage: bench/bench_compare.sh [path/to/millrace] [ROUNDS]   (default: build/cli/millrace, 3)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
millrace=${1:-$here/build/cli/millrace}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store=$work/s.db
model=$work/model.json
"$millrace" import --store "$store" --format stellar-log --name pcv2 \
  "$here/data/sets/stellar-pcv2-2024-11/stellar-supercluster.log" > /dev/null
"$millrace" fit --store "$store" --runs pcv2 -o "$model" > /dev/null

compare="compare --store $store --model $model --run pcv2 --workers 96,192,384
  --partitioners uniform,logarithmic,cost-balanced,optimal --order plan,lpt
  --range-length 16000 --overlap 320 --align 64 --replicas 20 --no-record"
plan="plan --store $store --model $model --run pcv2 --deadline 24h --max-workers 512 --replicas 20
  --partitioners uniform,logarithmic,cost-balanced,optimal --range-length 16000 --overlap 320 --align 64 --no-record"

# Runs `millrace ARGS --threads N` once, output to $work/NAME.N; prints the wall seconds.
timed() {
  name=$1 threads=$2
  shift 2
  start=$(date +%s.%N)
  # shellcheck disable=SC2068
  "$millrace" $@ --threads "$threads" > "$work/$name.$threads"
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

min() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }

for name in compare plan; do
  eval "args=\$$name"
  best1='' best2=''
  i=0
  while [ "$i" -lt "$rounds" ]; do
    # shellcheck disable=SC2086
    best1=$(min "$best1" "$(timed "$name" 1 $args)")
    # shellcheck disable=SC2086
    best2=$(min "$best2" "$(timed "$name" 2 $args)")
    cmp -s "$work/$name.1" "$work/$name.2" || {
      echo "$name: 2 threads printed something else than 1 thread:" >&2
      diff "$work/$name.1" "$work/$name.2" >&2 || true
      exit 1
    }
    i=$((i + 1))
  done
  echo "$name: 1 thread ${best1} s, 2 threads ${best2} s (best of $rounds), speed-up $(echo "scale=2; $best1 / $best2" | bc), outputs identical ($(wc -l < "$work/$name.1") lines)"
done
