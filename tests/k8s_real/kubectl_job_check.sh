#!/usr/bin/env bash
# Proves the RealApiServer fixture with the real kubectl: a Job created with kubectl is run by the
# fake kubelet and marked Complete by the real Job controller; a Job whose pod the namespace's
# rule fails is marked Failed; DELETE with propagationPolicy Background removes the pods while
# orphan keeps them; and a watch from a resourceVersion older than an etcd compaction ends with
# an ERROR event carrying 410 inside an HTTP 200 stream (what the adapter's re-list relies on).
# Usage: kubectl_job_check.sh STATE_DIR (of a started control-plane.sh)
set -euo pipefail
state=$(cd "${1:?usage: kubectl_job_check.sh STATE_DIR}" && pwd)
export KUBECONFIG=$state/admin.kubeconfig
ns=kubectl-check
k() { kubectl --namespace "$ns" "$@"; }
fail() { echo "kubectl_job_check: $*" >&2; k get jobs,pods -o wide >&2 || true; exit 1; }
until_true() {  # until_true WHAT COMMAND...: retries for up to 120 s
  local what=$1 deadline=$((SECONDS + 120))
  shift
  until "$@" >/dev/null 2>&1; do ((SECONDS < deadline)) || fail "timed out waiting for $what"; sleep 0.5; done
}

kubectl delete namespace "$ns" --ignore-not-found --wait=true >/dev/null 2>&1
k create namespace "$ns"
k annotate namespace "$ns" \
  'kubelet.millrace.io/rule={"run_ms": 300, "fail": [{"outcome": "fail"}]}'
until_true "the default service account's token in $ns" \
  sh -c "kubectl -n $ns get secrets -o name 2>/dev/null | grep -q default-token-"

job() {  # job NAME OUTCOME
  cat <<JSON
{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "$1"},
 "spec": {"backoffLimit": 0, "template": {"metadata": {"labels": {"outcome": "$2"}},
   "spec": {"restartPolicy": "Never", "automountServiceAccountToken": false,
     "containers": [{"name": "worker", "image": "busybox", "command": ["true"]}]}}}}
JSON
}
job ok ok | k create -f -
job bad fail | k create -f -

k wait --for=condition=complete job/ok --timeout=120s
k wait --for=condition=failed job/bad --timeout=120s
[ "$(k get job ok -o jsonpath='{.status.succeeded}')" = 1 ] || fail "job ok: status.succeeded is not 1"
[ "$(k get job bad -o jsonpath='{.status.failed}')" = 1 ] || fail "job bad: status.failed is not 1"
[ "$(k get pods -l job-name=ok -o jsonpath='{.items[0].spec.nodeName}/{.items[0].status.phase}')" \
  = fake-node-0/Succeeded ] || fail "job ok's pod did not run on fake-node-0 to Succeeded"
[ "$(k get pods -l job-name=bad -o jsonpath='{.items[0].status.phase}')" = Failed ] \
  || fail "job bad's pod is not Failed"
echo "kubectl_job_check: job ok Complete, job bad Failed, pods run by the fake kubelet"

k delete job ok --cascade=background
until_true "job ok's pod to be collected" \
  sh -c "[ -z \"\$(kubectl -n $ns get pods -l job-name=ok -o name 2>/dev/null)\" ]"
k delete job bad --cascade=orphan
until_true "job bad's pod to lose its owner" \
  sh -c "[ -z \"\$(kubectl -n $ns get pods -l job-name=bad -o jsonpath='{.items[0].metadata.ownerReferences}')\" ]"
[ -n "$(k get pods -l job-name=bad -o name)" ] || fail "orphan delete removed job bad's pod"
echo "kubectl_job_check: Background delete collected the pod, orphan delete left it ownerless"

# 410 inside the stream: watch Jobs from a resourceVersion older than an etcd compaction. A watch
# from resourceVersion R starts at revision R+1, so the compaction must pass R+1: two writes.
# (The list's own resourceVersion: `kubectl get` builds its List client-side, without one.)
old=$(kubectl get --raw "/apis/batch/v1/namespaces/$ns/jobs" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
[ -n "$old" ] || fail "no resourceVersion in the list of Jobs"
job bump ok | k create -f - >/dev/null
rev=$(job bump2 ok | k create -f - -o jsonpath='{.metadata.resourceVersion}')
ETCDCTL_API=3 etcdctl --endpoints "$(cat "$state/etcd.endpoint")" compact "$rev" >/dev/null
server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
token=$(kubectl config view --minify --raw -o jsonpath='{.users[0].user.token}')
out=$(curl -sS -w '\nHTTP %{http_code}\n' --cacert "$state/ca.crt" -H "Authorization: Bearer $token" \
  "$server/apis/batch/v1/namespaces/$ns/jobs?watch=1&resourceVersion=$old&timeoutSeconds=5")
echo "$out" | grep -q '^HTTP 200$' || fail "watch from an old resourceVersion: not HTTP 200: $out"
echo "$out" | grep -q '"type":"ERROR".*"code":410' || fail "no ERROR event with 410 in the stream: $out"
echo "kubectl_job_check: watch from compacted resourceVersion $old: HTTP 200 with a 410 ERROR event"

kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1

# Pods run for real (the rule's run_command): the environment from the pod spec, the exit code,
# an environment the kubelet cannot give, and a graceful deletion that signals the process.
ns=kubectl-check-run
kubectl delete namespace "$ns" --ignore-not-found --wait=true >/dev/null 2>&1
rm -f "$state/logs/pods/${ns}"_* "$state/logs/pods/$ns.sleeper.term"  # of an earlier check
k create namespace "$ns" >/dev/null
k annotate namespace "$ns" 'kubelet.millrace.io/rule={"run_command": true, "pending_ms": 10}' >/dev/null
until_true "the default service account's token in $ns" \
  sh -c "kubectl -n $ns get secrets -o name 2>/dev/null | grep -q default-token-"
pod() {  # pod NAME SCRIPT [ENV JSON...]
  local name=$1 script=$2
  shift 2
  local env
  env=$(IFS=,; echo "$*")
  cat <<JSON | k create -f - >/dev/null
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "$name", "labels": {"tier": "check"}},
 "spec": {"restartPolicy": "Never", "automountServiceAccountToken": false, "terminationGracePeriodSeconds": 20,
   "containers": [{"name": "main", "image": "busybox", "command": ["/bin/sh", "-c", "$script"],
     "env": [$env]}]}}
JSON
}
phase() { k get pod "$1" -o jsonpath='{.status.phase}'; }
pod env 'echo \"$POD $NS $TIER $(GREETING)\"; exit 3' \
  '{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}' \
  '{"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}' \
  "{\"name\": \"TIER\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": \"metadata.labels['tier']\"}}}" \
  '{"name": "WORD", "value": "hello"}' '{"name": "GREETING", "value": "$(WORD) world"}'
pod secret 'true' '{"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}'
pod sleeper "trap 'echo TERM > $state/logs/pods/$ns.sleeper.term; exit 0' TERM; while :; do sleep 0.1; done"
until_true "pod env to fail" sh -c "[ \"\$(kubectl -n $ns get pod env -o jsonpath='{.status.phase}')\" = Failed ]"
[ "$(k get pod env -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}')" = 3 ] \
  || fail "pod env: exit code is not 3"
[ "$(cat "$state/logs/pods/${ns}_env_main.log")" = "env $ns check hello world" ] \
  || fail "pod env's output: $(cat "$state/logs/pods/${ns}_env_main.log")"
until_true "pod secret's CreateContainerConfigError" sh -c "kubectl -n $ns get pod secret \
  -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' | grep -q CreateContainerConfigError"
[ "$(phase secret)" = Pending ] || fail "pod secret is not Pending"
until_true "pod sleeper to run" sh -c "[ \"\$(kubectl -n $ns get pod sleeper -o jsonpath='{.status.phase}')\" = Running ]"
k delete pod sleeper --wait=true --timeout=15s >/dev/null || fail "pod sleeper not deleted within its grace period"
[ -f "$state/logs/pods/$ns.sleeper.term" ] || fail "pod sleeper's process got no SIGTERM"
echo "kubectl_job_check: pods run for real: env from fieldRefs and \$(VAR), exit code 3 Failed," \
  "secretKeyRef Pending with CreateContainerConfigError, deletion SIGTERMed the process"
kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1
