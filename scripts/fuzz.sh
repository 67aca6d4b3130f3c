#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan+UBSan, its own build folder) and runs each
# for a bounded time, NPROC at a time, from the committed seeds (fuzz/corpus/) plus seeds cut
# from the bundled data at run time. Prints per target the executions and libFuzzer's coverage
# (cov: edges, ft: features) and fails when any target crashed, keeping the crashing input
# under BUILD/crashes/ (see fuzz/README.md to turn it into a regression test).
#   scripts/fuzz.sh [TARGET...]          all targets when none is named
# Environment: MILLRACE_FUZZ_SECONDS (per target, default 10: 16 targets 2 at a time are 80 s
# of runs after a build of about 170 s on 2 cores, so the stage stays under 5 minutes),
# MILLRACE_FUZZ_BUILD_DIR (default build-fuzz), MILLRACE_FUZZ_JOBS (default nproc),
# MILLRACE_FUZZ_SEED (default 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MILLRACE_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${MILLRACE_FUZZ_SECONDS:-10}
jobs=${MILLRACE_FUZZ_JOBS:-$(nproc)}
seed=${MILLRACE_FUZZ_SEED:-1}  # fixed, so CI explores the same inputs first on every run
started=$SECONDS

bash "$root/scripts/install-deps.sh" clang-14 libclang-rt-14-dev
cmake -S "$root" -B "$build" -DMILLRACE_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DMILLRACE_BUILD_TESTS=OFF -DMILLRACE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target fuzz
echo "fuzz: built in $((SECONDS - started)) s" >&2

targets=("$@")
if ((${#targets[@]} == 0)); then
  for t in "$build"/fuzz/fuzz_*; do targets+=("$(basename "$t" | sed 's/^fuzz_//')"); done
fi

# Seeds: the committed ones and small cuts of the bundled data (never the whole files).
work="$build/fuzz-work"
rm -rf "$work"
mkdir -p "$work" "$build/crashes"
data="$root/data/sets"
seed() {  # seed TARGET NAME: stdin -> the target's seed NAME
  mkdir -p "$work/corpus/$1"
  cat >"$work/corpus/$1/$2"
}
for dir in "$root"/fuzz/corpus/*/; do
  mkdir -p "$work/corpus/$(basename "$dir")"
  cp "$dir"* "$work/corpus/$(basename "$dir")/"
done
pcv2="$data/stellar-pcv2-2024-11"
head -n 40 "$pcv2/pcv2_run_2024-11_per_range_timings.csv" | seed import_stellar_csv head.csv
{
  sed -n 1p "$pcv2/stellar-supercluster.log"
  sed -n 2p "$pcv2/stellar-supercluster.log" | grep -o '^.*"metrics": \[\("[^"]*", \)\{6\}' | sed 's/, $/]}/'
  sed -n '3,12p' "$pcv2/stellar-supercluster.log"
} | seed import_stellar_log head.log
zcat "$data/pwa-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz" | sed -n 1,60p | seed import_swf head.swf
zcat "$data/pwa-nasa-ipsc/NASA-iPSC-1993-3.1-cln.swf.gz" | sed -n 1,60p | gzip -c | seed import_swf head.swf.gz
eth="$data/ethereum-daily-2015-2018"
for series in BlockSize GasUsed; do
  { head -n 20 "$eth/export-BlockCountRewards.csv"; printf '\0'; head -n 20 "$eth/export-$series.csv"; } |
    seed import_ethereum "$series"
done
for manifest in "$root"/deploy/*.json; do seed job_template "$(basename "$manifest")" <"$manifest"; done

run_one() {  # run_one TARGET: fuzzes it for $seconds; its log in $work/TARGET.log
  local t=$1
  mkdir -p "$work/corpus/$t"
  (cd "$work" && "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -seed="$seed" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536 -artifact_prefix="$build/crashes/$t-" \
    "$work/corpus/$t" </dev/null >"$work/$t.log" 2>&1) && echo 0 >"$work/$t.rc" || echo $? >"$work/$t.rc"
}

running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  run_one "$t" &
  running=$((running + 1))
done
wait || true

failed=()
printf '%-24s %12s %8s %8s %8s  %s\n' target executions exec/s cov ft result
for t in "${targets[@]}"; do
  log="$work/$t.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  result=ok
  if [ "$(cat "$work/$t.rc")" != 0 ]; then
    result="FAILED (exit $(cat "$work/$t.rc")): $(awk '/Test unit written to/ {sub(/.*Test unit written to /, ""); print; exit}' "$log")"
    failed+=("$t")
  fi
  printf '%-24s %12s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, $((SECONDS - started)) s in all" >&2
if ((${#failed[@]})); then
  for t in "${failed[@]}"; do
    echo "---- $t ($work/$t.log)" >&2
    grep -E -A 30 '^==[0-9]+==ERROR|^millrace fuzz: |runtime error' "$work/$t.log" | head -n 40 >&2 || true
  done
  echo "fuzz: crashes in ${failed[*]}; inputs kept in $build/crashes/" >&2
  exit 1
fi
