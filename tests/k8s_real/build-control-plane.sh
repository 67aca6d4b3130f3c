#!/usr/bin/env bash
# Makes sure the real control plane of the RealApiServer tests (kube-apiserver and
# kube-controller-manager v1.20.2) is built in CACHE_DIR/bin, and installs the packages the
# suite needs (etcd, Go, openssl). The cache lives outside the checkout (default
# ~/.cache/millrace-k8s), so a machine builds it once (about 10 minutes cold on 2 cores); a lock
# keeps two runs from building it at the same time.
#
# The build recipe is the workplace's shared/k8s/build-apiserver.sh (RECIPE), not a copy of it:
# shared/ travels with the project to every developer machine and CI lays a copy of it beside
# the clone, so one recipe serves all and cannot drift from a twin kept here.
# Usage: build-control-plane.sh CACHE_DIR RECIPE
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 CACHE_DIR RECIPE" >&2; exit 2; }
cache=$1 recipe=$2
root=$(cd "$(dirname "$0")/../.." && pwd)

bash "$root/scripts/install-deps.sh" etcd-server etcd-client openssl curl python3 \
  golang-go golang-github-modern-go-reflect2-dev rsync make

mkdir -p "$cache"
exec 9>"$cache/.build.lock"
flock 9
if [ -x "$cache/bin/kube-apiserver" ] && [ -x "$cache/bin/kube-controller-manager" ]; then
  echo "build-control-plane: cached in $cache/bin"
  exit 0
fi
[ -f "$recipe" ] || {
  echo "build-control-plane: no build recipe at $recipe and no control plane built in $cache/bin." >&2
  echo "  The recipe is shared/k8s/build-apiserver.sh, laid beside the checkout (../shared) on CI;" >&2
  echo "  configure with -DMILLRACE_K8S_BUILD_SCRIPT=PATH to point at it, or with" >&2
  echo "  -DMILLRACE_REAL_APISERVER_TESTS=OFF to leave the RealApiServer suite out." >&2
  exit 1
}
start=$SECONDS
bash "$recipe" "$cache"
echo "build-control-plane: built in $((SECONDS - start)) s into $cache/bin"
