# Sourced by the RealApiServer shell checks that run millrace as the user `millrace`:
#   begin_check NAME STATE_DIR MILLRACE_BINARY
# sets `state` and `millrace` (absolute paths), `work` (a temporary folder) and `ns` (NAME-PID, `_`
# as `-`), beside the helpers `k` (kubectl in ns, as the fixture's admin) and `fail` (says why with
# ns's Jobs and pods, exits 1); creates ns, whose pods the fake kubelet runs for real (rule
# run_command), binds the Role of deploy/rbac.yaml in it to the user millrace, and returns once the
# API server grants its verbs. The namespace and the folder go when the check exits.
begin_check() {
  check_name=$1
  state=$(cd "$2" && pwd)
  millrace=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
  export KUBECONFIG=$state/admin.kubeconfig
  ns=${check_name//_/-}-$$
  work=$(mktemp -d)
  trap 'kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  local rbac verb
  rbac="$(dirname "${BASH_SOURCE[0]}")/../../deploy/rbac.yaml"
  k create namespace "$ns" >/dev/null
  k annotate namespace "$ns" 'kubelet.millrace.io/rule={"run_command": true, "pending_ms": 20}' >/dev/null
  awk -v RS='\n---\n' '/\nkind: Role\n/' "$rbac" | k create -f - >/dev/null
  k create rolebinding millrace-user --role=millrace --user=millrace >/dev/null
  for verb in create list watch delete; do
    for _ in $(seq 100); do
      [ "$(kubectl --kubeconfig "$state/millrace.kubeconfig" -n "$ns" auth can-i "$verb" jobs.batch)" = yes ] && break
      sleep 0.1
    done
  done
}
k() { kubectl --namespace "$ns" "$@"; }
fail() { echo "$check_name: $*" >&2; k get jobs,pods -o wide >&2 || true; exit 1; }
