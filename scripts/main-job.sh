#!/usr/bin/env bash
# The main job on the bundled data (embedded default, no cluster): see README.md.
# On the recorded Stellar pubnet parallel catch-up (3,396 ranges, 192 workers, tip first):
#   1. import it into a fresh trace store and show it (worker-hours, busy time, straggler tail);
#   2. replay it as recorded (fixed pool of 192, tip-first order) and longest-first, and as one
#      Job per range under a cap of 192 with pod start-up latency and 1% failures;
#   3. fit the cost model at the recording's resolution (blocked cross-validation, apply time vs
#      the rest, fidelity against the recording);
#   4. compare queue orders, partitioners and worker counts on that model, and plan the fewest
#      workers for a 24 h deadline (with what they cost at an example price), both from the
#      experiment file examples/pcv2-experiment.yaml;
#   5. draw the report a person opens (millrace report: HTML and PNGs under out/report/): the
#      recorded run, the cost model along the sequence with the recorded ranges, the candidates
#      side by side, the plan's cost curve with its band and the deadline. Its last line says where.
set -euo pipefail
millrace=${1:?usage: main-job.sh PATH_TO_MILLRACE}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${MILLRACE_OUT:-$root/out}
mkdir -p "$work"
store=$work/main-job.db
model=$work/main-job-model.json
run=pcv2   # the name README.md imports it under, which examples/pcv2-experiment.yaml replays
rm -f "$store" "$store-wal" "$store-shm" "$model"

step() { printf '\n== %s\n' "$*"; }

step "import the recorded catch-up"
"$millrace" import --store "$store" --format stellar-log --name "$run" \
  "$root/data/sets/stellar-pcv2-2024-11/stellar-supercluster.log"
"$millrace" show --store "$store" "$run"

step "replay as recorded: fixed pool of 192 workers, tip-first (plan) order"
"$millrace" simulate --store "$store" --run "$run" --policy fixed-pool --workers 192 --order plan
step "replay longest-first (LPT) with the recorded durations known in advance: a best case"
"$millrace" simulate --store "$store" --run "$run" --policy fixed-pool --workers 192 --order lpt
step "one Job per range, at most 192 at once, 20-90 s pod start-up, 1% failures (seed 1)"
"$millrace" simulate --store "$store" --run "$run" --policy job-per-item --workers 192 \
  --startup-latency 20s,30s,90s --create-overhead 2s --fail-prob 0.01 --seed 1

step "fit the cost model"
"$millrace" fit --store "$store" --runs "$run" -o "$model"

# Both from the experiment file examples/pcv2-experiment.yaml (its comments say what each key
# is); the store and model options on the command line override its paths, for MILLRACE_OUT.
experiment=$root/examples/pcv2-experiment.yaml
step "compare queue orders, partitioners and worker counts on the fitted model (20 replicas drawing durations from its noise: mean, p50, p90, max)"
"$millrace" compare -f "$experiment" --store "$store" --model "$model"
step "plan: fewest workers for a 24 h deadline with confidence 0.9 over 20 replicas, and what they cost at an example 0.40 USD per worker-hour"
# Partitions of other range lengths than the recorded 16,320 ledgers lean on the start-up/work
# split: the recorded apply time pins it (the fit's separate method), durations alone could not.
"$millrace" plan -f "$experiment" --store "$store" --model "$model"
step "the stored comparisons, with the experiment file each ran (millrace show --experiment ID prints it back)"
"$millrace" runs --store "$store"

step "the report: the recorded run, the cost model, the candidates and the plan as pictures"
"$millrace" report --store "$store" --model "$model" --run "$run" -o "$work/report" >/dev/null
echo "the main job's report: file://$(cd "$work/report" && pwd)/index.html"
