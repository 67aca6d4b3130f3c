#!/usr/bin/env bash
# A worker-pool `millrace run` against the real kube-apiserver, its pods run for real by the fake
# kubelet (rule run_command): each pod runs deploy/pool-worker.sh, which leases ranges from the
# run over HTTP and runs a command per range that leaves a file named after the range and its
# attempt. One range's first attempt kills its worker (the pod's first process) mid-range: the
# kubelet restarts the container (restartPolicy OnFailure), the restarted worker asks again and
# the range's lease is abandoned and retried. The last range's first two attempts freeze their pod
# (SIGSTOP to its processes: no heartbeat), the second once the other workers were told to exit:
# each lease expires; millrace deletes the first frozen pod, the Job makes a new one, and that
# worker is there for the third attempt (without it the run would wait forever; the second frozen
# pod is deleted too if the run lasts two heartbeats past its lease). millrace runs as the user `millrace` with exactly
# the Role of deploy/rbac.yaml, and first meets a finished pool Job of the same name, which it
# replaces.
# v1.20 has no Indexed Jobs: it drops the pool Job's completionMode (unknown fields are pruned)
# and runs it as a Job of N completions, which serves a pool of interchangeable workers as well;
# this checks that the run says so in its status.
# Usage: pool_worker_check.sh STATE_DIR MILLRACE_BINARY (of a started control-plane.sh)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: pool_worker_check.sh STATE_DIR MILLRACE_BINARY" >&2; exit 2; }
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
source "$source_dir/tests/k8s_real/check_setup.sh"
begin_check pool_worker_check "$@"

# A finished pool Job of an earlier session under the name the run's pool takes: the run finds it
# by a list (the Role grants no get), deletes it and makes its own.
cat <<JSON | k create --validate=false -f - >/dev/null
{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pool-1-pool"},
 "spec": {"template": {"spec": {"restartPolicy": "Never", "automountServiceAccountToken": false,
   "containers": [{"name": "worker", "image": "millrace-check", "command": ["true"]}]}}}}
JSON
k wait --for=condition=complete job/pool-1-pool --timeout=60s >/dev/null

# Range 0-49's first attempt kills the worker that runs it (its parent, the pod's first process);
# range 950-999's first two attempts stop every process of their pod (its process group).
mkdir "$work/done"
cat > "$work/pool.json" <<JSON
{"apiVersion": "batch/v1", "kind": "Job",
 "spec": {"template": {"spec": {"automountServiceAccountToken": false, "containers": [{
   "name": "worker", "image": "millrace-check",
   "command": ["/bin/sh", "$source_dir/deploy/pool-worker.sh", "/bin/sh", "-c",
     "if [ \$MILLRACE_FIRST = 0 ] && [ \$MILLRACE_ATTEMPT = 1 ]; then kill -9 \$PPID; sleep 30; fi; if [ \$MILLRACE_FIRST = 950 ] && [ \$MILLRACE_ATTEMPT -lt 3 ]; then echo \$POD_NAME > \$(DONE)/frozen.\$MILLRACE_ATTEMPT; kill -STOP 0; fi; echo \$POD_NAME > \$(DONE)/\$MILLRACE_FIRST-\$MILLRACE_COUNT.\$MILLRACE_ATTEMPT"],
   "env": [{"name": "DONE", "value": "$work/done"},
           {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}]}}}}
JSON

"$millrace" run --cluster kubernetes --mode worker-pool --kubeconfig "$state/millrace.kubeconfig" \
  --namespace "$ns" --job-template "$work/pool.json" --store "$work/runs.db" --name pool \
  --span 0:999 --partitioner uniform --range-count 20 --workers 4 --max-attempts 3 \
  --lease-address 127.0.0.1 --lease-port 0 --lease-duration 4 --heartbeat 1 \
  > "$work/run.out" 2>&1 || { cat "$work/run.out" >&2; fail "the run failed"; }

# Every range ran in a pod, once, except the one whose worker was killed (done at its second
# attempt) and the one whose pods froze twice (done at its third).
frozen1=$(cat "$work/done/frozen.1") frozen2=$(cat "$work/done/frozen.2")
rm "$work/done/frozen.1" "$work/done/frozen.2"
expected=$(for first in $(seq 0 50 950); do
  case $first in 0) echo "$first-50.2";; 950) echo "$first-50.3";; *) echo "$first-50.1";; esac; done | sort)
[ "$(ls "$work/done" | sort)" = "$expected" ] \
  || fail "ranges done in pods: $(ls "$work/done" | tr '\n' ' '), expected $(echo $expected)"
pods=$(cat "$work/done"/* | sort -u)
for pod in $pods; do
  case $pod in pool-1-pool-*) ;; *) fail "a range was run by $pod, not by a pod of the pool Job";; esac
done
echo "pool_worker_check: 20 ranges run by $(echo "$pods" | wc -l) pool pods, the killed one retried"
grep -qE "^millrace: replaced [12] lost pool workers? \(pods deleted so that the Job makes new ones\): $frozen1 \(its lease expired\)(, $frozen2 \(its lease expired\))?\$" "$work/run.out" \
  || { cat "$work/run.out" >&2; fail "the run did not say it replaced the first frozen pod $frozen1"; }
echo "pool_worker_check: the frozen pod $frozen1 was deleted and the Job made a new one; 950-999 ran third"

grep -qF "the API server dropped the pool Job's completionMode" "$work/run.out" \
  || fail "the run did not say the API server ran its pool as a Job without completion indexes"
echo "pool_worker_check: the run said v1.20 dropped completionMode (a Job of 4 completions)"

"$millrace" show --store "$work/runs.db" pool > "$work/show.txt"
grep -q '^  items: *20 (0 without a successful attempt)' "$work/show.txt" &&
  grep -q '^  attempts: *23 (3 failed or cancelled)' "$work/show.txt" &&
  grep -q 'lease-expired (exit -1) x 2, lease-abandoned (exit -1) x 1; last: 950-999 attempt 2' "$work/show.txt" \
  || { cat "$work/show.txt" >&2; fail "the store does not record 20 ranges, the killed and frozen ones retried"; }
echo "pool_worker_check: the store records 20 ranges in 23 attempts, 0-49's first lease abandoned," \
  "950-999's first two expired"
