# Sourced by the RealApiServer shell checks that run millrace as the user `millrace`:
#   real_pods_namespace STATE_DIR NAMESPACE
# creates NAMESPACE, whose pods the fake kubelet runs for real (rule run_command), binds the Role of
# deploy/rbac.yaml in it to the user millrace, and returns once the API server grants its verbs.
# Uses KUBECONFIG (the fixture's admin).
real_pods_namespace() {
  local state=$1 ns=$2 verb
  local rbac
  rbac="$(dirname "${BASH_SOURCE[0]}")/../../deploy/rbac.yaml"
  kubectl create namespace "$ns" >/dev/null
  kubectl annotate namespace "$ns" 'kubelet.millrace.io/rule={"run_command": true, "pending_ms": 20}' >/dev/null
  awk -v RS='\n---\n' '/\nkind: Role\n/' "$rbac" | kubectl -n "$ns" create -f - >/dev/null
  kubectl -n "$ns" create rolebinding millrace-user --role=millrace --user=millrace >/dev/null
  for verb in create list watch delete; do
    for _ in $(seq 100); do
      [ "$(kubectl --kubeconfig "$state/millrace.kubeconfig" -n "$ns" auth can-i "$verb" jobs.batch)" = yes ] && break
      sleep 0.1
    done
  done
}
