#!/usr/bin/env bash
# Starts and stops a real Kubernetes control plane on loopback for the RealApiServer tests:
# Debian's etcd, kube-apiserver v1.20 (TLS from a CA made here, bearer tokens, RBAC), the
# kube-controller-manager with the Job, TTL-after-finished, garbage-collector, service-account
# and namespace controllers, and the project's fake kubelet (fake_kubelet.py). Every process
# listens on 127.0.0.1 only, on ports free at start, and is stopped by its recorded pid.
#
#   control-plane.sh start STATE_DIR BIN_DIR   start (BIN_DIR holds kube-apiserver and
#                                               kube-controller-manager); returns when ready
#   control-plane.sh stop STATE_DIR            stop what `start` started
#
# STATE_DIR then holds: admin.kubeconfig (user admin, group system:masters), millrace.kubeconfig
# (user millrace, no permissions until a test binds a Role to it), ca.crt, etcd.endpoint and a
# log per process under logs/. Watches of Jobs are served from etcd (no watch cache for them), so
# a test that compacts etcd (etcdctl --endpoints "$(cat etcd.endpoint)" compact REV) makes a
# watch from an older resourceVersion end with 410 Gone inside the stream.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until `curl ARGS` answers 200, or fails naming what did not come up (and its log).
wait_for() {
  local what=$1 log=$2 deadline=$((SECONDS + 180))
  shift 2
  until curl -fsS -o /dev/null "$@" 2>/dev/null; do
    if ((SECONDS > deadline)); then
      echo "control-plane: $what not ready after 180 s; last lines of $log:" >&2
      tail -n 30 "$log" >&2
      exit 1
    fi
    sleep 0.5
  done
}

spawn() {  # spawn NAME COMMAND...: runs in the background, logs and pid under STATE_DIR
  local name=$1
  shift
  setsid "$@" >"$state/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$state/pids/$name"
}

make_certificates() {
  local pki=$state/pki
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=millrace-test-ca \
    -keyout "$pki/ca.key" -out "$state/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes.default.svc\n' \
    >"$pki/apiserver.ext"
  openssl x509 -req -days 2 -in "$pki/apiserver.csr" -CA "$state/ca.crt" -CAkey "$pki/ca.key" \
    -CAcreateserial -extfile "$pki/apiserver.ext" -out "$pki/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

write_kubeconfig() {  # write_kubeconfig USER TOKEN
  cat >"$state/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: real-apiserver
  cluster:
    server: $server
    certificate-authority: $state/ca.crt
users:
- name: $1
  user:
    token: $2
contexts:
- name: $1
  context:
    cluster: real-apiserver
    user: $1
    namespace: default
current-context: $1
EOF
}

start() {
  local bin=$3
  for b in kube-apiserver kube-controller-manager; do
    [ -x "$bin/$b" ] || { echo "control-plane: no $bin/$b (run build-control-plane.sh)" >&2; exit 1; }
  done
  stop
  rm -rf "$state/etcd" "$state/pki" "$state/logs" "$state/pids"
  mkdir -p "$state/logs" "$state/pids" "$state/etcd"
  make_certificates

  local admin_token millrace_token
  admin_token=$(openssl rand -hex 16)
  millrace_token=$(openssl rand -hex 16)
  printf '%s,admin,1,"system:masters"\n%s,millrace,2\n' "$admin_token" "$millrace_token" \
    >"$state/pki/tokens.csv"
  printf '%s\n' "$admin_token" >"$state/pki/admin.token"

  local etcd_port etcd_peer api_port
  etcd_port=$(free_port)
  etcd_peer=$(free_port)
  api_port=$(free_port)
  server=https://127.0.0.1:$api_port
  echo "http://127.0.0.1:$etcd_port" >"$state/etcd.endpoint"
  write_kubeconfig admin "$admin_token"
  write_kubeconfig millrace "$millrace_token"

  spawn etcd etcd --name millrace-test --data-dir "$state/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" \
    --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "millrace-test=http://127.0.0.1:$etcd_peer"
  wait_for etcd "$state/logs/etcd.log" "http://127.0.0.1:$etcd_port/health"

  spawn kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
    --secure-port "$api_port" --insecure-port 0 \
    --tls-cert-file "$state/pki/apiserver.crt" --tls-private-key-file "$state/pki/apiserver.key" \
    --client-ca-file "$state/ca.crt" \
    --token-auth-file "$state/pki/tokens.csv" \
    --authorization-mode RBAC \
    --service-account-key-file "$state/pki/sa.pub" \
    --service-account-signing-key-file "$state/pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc \
    --service-cluster-ip-range 10.0.0.0/24 \
    --endpoint-reconciler-type none \
    --feature-gates TTLAfterFinished=true \
    --watch-cache-sizes jobs.batch#0 \
    --etcd-compaction-interval 0 \
    --profiling=false
  wait_for kube-apiserver "$state/logs/kube-apiserver.log" \
    --cacert "$state/ca.crt" -H "Authorization: Bearer $admin_token" "$server/readyz"

  spawn kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig "$state/admin.kubeconfig" \
    --controllers job,ttl-after-finished,garbagecollector,serviceaccount,serviceaccount-token,namespace \
    --leader-elect=false \
    --service-account-private-key-file "$state/pki/sa.key" \
    --root-ca-file "$state/ca.crt" \
    --feature-gates TTLAfterFinished=true \
    --port 0 --secure-port 0 \
    --profiling=false
  spawn fake-kubelet python3 "$here/fake_kubelet.py" --server "$server" --ca "$state/ca.crt" \
    --token-file "$state/pki/admin.token" --log-dir "$state/logs/pods"

  # Ready when the service-account controllers have given the default namespace its account
  # and token: only then can pods be admitted.
  local deadline=$((SECONDS + 180))
  until curl -fsS --cacert "$state/ca.crt" -H "Authorization: Bearer $admin_token" \
      "$server/api/v1/namespaces/default/secrets?fieldSelector=type%3Dkubernetes.io%2Fservice-account-token" \
      | grep -q 'default-token-'; do
    ((SECONDS < deadline)) || { echo "control-plane: no default service account token" >&2; exit 1; }
    sleep 0.5
  done
  wait_for "fake kubelet node" "$state/logs/fake-kubelet.log" \
    --cacert "$state/ca.crt" -H "Authorization: Bearer $admin_token" "$server/api/v1/nodes/fake-node-0"
  echo "control-plane: ready at $server (state in $state)"
}

# True while PID runs one of this state folder's processes (every one names the folder in its
# arguments), so a stale pid file never gets an unrelated process killed; an exited process
# not yet reaped (a zombie) no longer counts.
ours() {
  local status
  status=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $status != Z* ]] &&
    ps -o args= -p "$1" 2>/dev/null | grep -qF "$state"
}

stop() {
  [ -d "$state/pids" ] || return 0
  local name pid
  for name in fake-kubelet kube-controller-manager kube-apiserver etcd; do
    [ -f "$state/pids/$name" ] || continue
    pid=$(cat "$state/pids/$name")
    if ours "$pid"; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 100); do ours "$pid" || break; sleep 0.1; done
      ! ours "$pid" || kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$state/pids/$name"
  done
}

case "${1:-}" in
  start) [ $# -eq 3 ] || { echo "usage: $0 start STATE_DIR BIN_DIR" >&2; exit 2; }
         state=$(mkdir -p "$2" && cd "$2" && pwd); start "$@" ;;
  stop) [ $# -eq 2 ] || { echo "usage: $0 stop STATE_DIR" >&2; exit 2; }
        state=$(cd "$2" 2>/dev/null && pwd) || exit 0; stop ;;
  *) echo "usage: $0 start STATE_DIR BIN_DIR | stop STATE_DIR" >&2; exit 2 ;;
esac
