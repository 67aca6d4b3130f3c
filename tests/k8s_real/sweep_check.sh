#!/usr/bin/env bash
# A plan fanned out over a worker pool against the real kube-apiserver, its pods run for real by
# the fake kubelet: 4 pool pods per batch of the search, each running `millrace sweep-worker` (the
# pool template of deploy/sweep-pool-job-template.json, its command wrapped by pod_fault_shim.py).
# millrace runs as the user `millrace` with exactly the Role of deploy/rbac.yaml.
# - The plan's JSON equals the same plan run here, without --cluster, byte for byte.
# - Three pods act out a fault once (pod_fault_shim.py): a worker killed before its first
#   completion got out (its work lost: the lease is abandoned when it asks again), a worker
#   frozen past its lease (it expires; a live worker runs the retry, and the batch may end before
#   millrace replaces the frozen one: pool_worker_check.sh shows that), a bundle with a byte
#   flipped (its SHA-256 does not match: the worker refuses it and fails the shard). Every shard
#   of every batch still succeeds exactly once, with those three failures on record.
# - A plan's node search fanned out the same way (the faults acted out already): 3 recorded pods
#   replayed on a spot pool priced per node-hour, --minimize cost, its caps: equal to the node
#   plan here byte for byte (the shards carry the node pools each comparison has).
# Usage: sweep_check.sh STATE_DIR MILLRACE_BINARY (of a started control-plane.sh)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: sweep_check.sh STATE_DIR MILLRACE_BINARY" >&2; exit 2; }
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
source "$source_dir/tests/k8s_real/check_setup.sh"
begin_check sweep_check "$@"

# 1 s a unit on [0, 8000), 4 s a unit on [8000, 10000).
cat > "$work/model.json" <<'JSON'
{"format": "millrace-cost-model", "version": 1, "units": "units", "source": "synthetic",
 "bins": [{"first": 0, "count": 8000, "startup_micros": 0.0, "micros_per_unit": 1000000.0},
          {"first": 8000, "count": 2000, "startup_micros": 0.0, "micros_per_unit": 4000000.0}]}
JSON
mkdir "$work/claims"
jq --arg shim "$source_dir/tests/k8s_real/pod_fault_shim.py" --arg claims "$work/claims" --arg millrace "$millrace" \
  '.spec.template.spec.containers[0].command = ["python3", $shim, $claims, "--", $millrace, "sweep-worker"]' \
  "$source_dir/deploy/sweep-pool-job-template.json" > "$work/sweep-pool.json"

new_store() {  # a trace store holds a plan's comparison: a one-range local run makes one
  "$millrace" run --store "$1" --name seed --span 0:0 --partitioner uniform --range-count 1 --workers 1 \
    --command true >/dev/null
}
plan=(plan --model "$work/model.json" --partitioners uniform --range-count 60 --deadline 2h --max-workers 12
      --replicas 5 --fail-prob 0.2 --seed 3 --json --quiet)  # 5 one-replica shards a count, in 3 batches
new_store "$work/here.db"
"$millrace" "${plan[@]}" --store "$work/here.db" > "$work/here.json" || fail "the plan here failed"
new_store "$work/fanned.db"
"$millrace" "${plan[@]}" --store "$work/fanned.db" --cluster kubernetes --mode worker-pool \
  --kubeconfig "$state/millrace.kubeconfig" --namespace "$ns" --job-template "$work/sweep-pool.json" \
  --lease-address 127.0.0.1 --lease-port 0 --pool-workers 4 --shard-replicas 1 --lease-duration 4 --heartbeat 0.5 \
  > "$work/fanned.json" 2> "$work/fanned.err" || { cat "$work/fanned.err" >&2; fail "the fanned-out plan failed"; }
cmp -s "$work/here.json" "$work/fanned.json" \
  || { diff "$work/here.json" "$work/fanned.json" | head -20 >&2; fail "the fanned-out plan differs from the plan here"; }
echo "sweep_check: the plan over 4 pool workers is the plan here, byte for byte ($(wc -c < "$work/here.json") bytes)"

for fault in kill stall tamper; do
  [ -n "$(ls "$work/claims/$fault")" ] || fail "no pod acted out the fault $fault"
done
# Every batch's shards (the runs after the seed) succeeded exactly once (the attempts that did not
# fail are as many as the shards); the three faults are on record.
shown=$(for run in $("$millrace" runs --store "$work/fanned.db" | awk 'NF == 0 {exit} $1 ~ /^[0-9]+$/ && $1 > 1 {print $1}'); do
  "$millrace" show --store "$work/fanned.db" "$run"; done)
batches=$(grep -c '^  items: ' <<< "$shown" || true)
[ "$batches" -ge 1 ] || fail "no batch of shards in the store: $("$millrace" runs --store "$work/fanned.db")"
once=$(awk '/^  items: / {items = $2; whole = ($3 == "(0")}
            /^  attempts: / {if (whole && $2 - substr($3, 2) == items) n++} END {print n + 0}' <<< "$shown")
[ "$once" = "$batches" ] || { echo "$shown" >&2; fail "$once of $batches batches have each shard succeeded exactly once"; }
grep -q 'lease-abandoned (exit -1) x 1' <<< "$shown" && grep -q 'lease-expired (exit -1) x 1' <<< "$shown" &&
  grep -q 'bundle [0-9a-f]\{8\}' <<< "$shown" \
  || { echo "$shown" >&2; fail "the store does not show the killed, frozen and refused-bundle attempts"; }
tampered=$(ls "$work/claims/tamper")
grep -q "refused: its bytes hash to" "$state/logs/pods/${ns}_${tampered}_sweep-worker.log" \
  || fail "the worker given a tampered bundle did not say it refused it: $(cat "$state/logs/pods/${ns}_${tampered}_sweep-worker.log")"
echo "sweep_check: $batches batches, every shard succeeded exactly once through a killed worker," \
  "an expired lease and a refused bundle"

# The node search: the first 3 pods of the bundled pod trace (all of one type: its counts in
# look-ahead batches, then its caps' searches side by side, keep this case to a few seconds).
head -n 4 "$source_dir/examples/pods.csv" > "$work/pods.csv"
cat > "$work/pools.csv" <<'CSV'
pool,count,min,max,provision_delay,capacity.cpu,capacity.memory,capacity_type,interruption_rate,price,billing
cheap,1,0,3,45s,4,16Gi,spot,0.05,0.06,per-minute
CSV
for db in here-nodes fanned-nodes; do
  "$millrace" import --store "$work/$db.db" --format csv --name pods "$work/pods.csv" >/dev/null
done
node_plan=(plan --run pods --node-pools "$work/pools.csv" --minimize cost --deadline 1h --max-nodes 2 --replicas 2
           --startup-latency 20s,30s --seed 4 --json --quiet)
"$millrace" "${node_plan[@]}" --store "$work/here-nodes.db" > "$work/here-nodes.json" || fail "the node plan here failed"
started=$(date +%s.%N)
"$millrace" "${node_plan[@]}" --store "$work/fanned-nodes.db" --cluster kubernetes --mode worker-pool \
  --kubeconfig "$state/millrace.kubeconfig" --namespace "$ns" --job-template "$work/sweep-pool.json" \
  --lease-address 127.0.0.1 --lease-port 0 --pool-workers 4 --shard-replicas 1 --lease-duration 4 --heartbeat 0.5 \
  > "$work/fanned-nodes.json" 2> "$work/fanned-nodes.err" \
  || { cat "$work/fanned-nodes.err" >&2; fail "the fanned-out node plan failed"; }
cmp -s "$work/here-nodes.json" "$work/fanned-nodes.json" \
  || { diff "$work/here-nodes.json" "$work/fanned-nodes.json" | head -20 >&2; fail "the fanned-out node plan differs"; }
# Each comparison is 2 one-replica shards: fewer batches than comparisons (the counts looked ahead,
# the caps' searches side by side, the spot risk's on-demand copy with the caps' first batch).
sweeps=$("$millrace" runs --store "$work/fanned-nodes.db" | grep '^[0-9]* *sweep-[0-9a-f]*-[0-9]* ' || true)
batches=$(grep -c . <<< "$sweeps" || true)
comparisons=$(awk '{shards += $5} END {print shards / 2}' <<< "$sweeps")
[ "$batches" -ge 1 ] && [ "$batches" -lt "$comparisons" ] \
  || fail "the node plan sent $comparisons comparisons in $batches batches: $("$millrace" runs --store "$work/fanned-nodes.db")"
echo "sweep_check: the node plan over 4 pool workers is the node plan here, byte for byte" \
  "($(wc -c < "$work/here-nodes.json") bytes, $comparisons comparisons in $batches batches," \
  "$(echo "$(date +%s.%N) - $started" | bc) s)"
