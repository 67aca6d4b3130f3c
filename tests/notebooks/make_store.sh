#!/usr/bin/env bash
# Test fixture of the notebook tests: a trace store made by the CLI on the bundled data.
#   make_store.sh MILLRACE SOURCE_DIR WORK
# WORK/store.db gets the recorded stellar catch-up (imported), its simulation, a cost model fitted
# from it (WORK/model.json), a small real run of a sleep worker and its simulation, and the
# compare and plan results.
set -euo pipefail
m=${1:?millrace}; src=${2:?source dir}; work=${3:?work dir}
rm -rf "$work"; mkdir -p "$work"
store=$work/store.db

"$m" import --store "$store" --format stellar-log --name pcv2 \
  "$src/data/sets/stellar-pcv2-2024-11/stellar-supercluster.log"
"$m" fit --store "$store" --runs pcv2 -o "$work/model.json" >/dev/null
"$m" simulate --store "$store" --run pcv2 --workers 192 >/dev/null
# A real run: 8 ranges of 50 units on 3 local workers, each sleeping (end / 400) s.
"$m" run --cluster local --store "$store" --name sleep-run --span 0:399 --partitioner uniform \
  --range-count 8 --workers 3 --command 'sleep $(awk "BEGIN {{ print {end} / 400 }}")' >/dev/null 2>&1
"$m" simulate --store "$store" --run sleep-run --workers 3 >/dev/null

"$m" compare --store "$store" --model "$work/model.json" --run pcv2 --workers 64,128,192 \
  --partitioners uniform,logarithmic,cost-balanced,optimal >/dev/null
"$m" plan --store "$store" --model "$work/model.json" --run pcv2 --deadline 36h --max-workers 256 >/dev/null
echo "store ready: $store"
