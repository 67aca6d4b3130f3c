#!/bin/sh
# Instructions per range of the real simulation path (issue 18's yardstick), counted by callgrind:
# `sim::simulate` on the shared plan (the simulation, its cluster and scheduler core and the run's
# summary; not the plan's construction) for a fixed pool, job per item and job per item on node
# pools, at 16, 256 and 4,096 workers, beside the floor (one heap operation per range:
# bench_floor_model's count for 2 repeats minus 1, as its loop is inlined into main). Counts are
# stable where times drift, so two builds compare in one run: give each its build directory.
# Usage: bench/instructions_per_range.sh BUILD_DIR [BUILD_DIR...]   (RANGES=100000 by default)
#   e.g. bench/instructions_per_range.sh ../base/build build
set -eu
ranges=${RANGES:-100000}
trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
first=$1
"$first/bench/bench_reference_model" generate --ranges "$ranges" --seed 1 -o "$trace" > /dev/null

# Prints the instructions callgrind collected running "$@" (from the toggle function down, if given).
collected() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

printf '%-14s %7s %7s' policy workers floor
for build in "$@"; do printf ' %12s' "$build"; done
printf '\n'
for policy in fixed-pool job-per-item node-pools; do
  case $policy in
    fixed-pool) extra='' ;;
    job-per-item) extra='--policy job-per-item' ;;
    node-pools) extra='--policy job-per-item --node-pools' ;;
  esac
  for workers in 16 256 4096; do
    one=$(collected "$first/bench/bench_floor_model" "$trace" "$workers" 1)
    two=$(collected "$first/bench/bench_floor_model" "$trace" "$workers" 2)
    printf '%-14s %7s %7s' "$policy" "$workers" "$(((two - one) / ranges))"
    for build in "$@"; do
      # shellcheck disable=SC2086  # $extra is a list of options
      count=$(collected --toggle-collect='millrace::sim::simulate(std::shared_ptr*' \
        "$build/bench/bench_reference_model" run --trace "$trace" --workers "$workers" $extra)
      printf ' %12s' "$((count / ranges))"
    done
    printf '\n'
  done
done
