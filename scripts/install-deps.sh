#!/usr/bin/env bash
# Installs the Debian packages millrace needs to build, test and run, and only those missing.
# Run as root on Debian 12 (bookworm). Extra packages given as arguments (a test suite's own,
# such as the RealApiServer suite's etcd and Go) are installed the same way.
set -euo pipefail

packages=(
  g++ cmake make pkg-config
  libsqlite3-dev libeigen3-dev libboost-graph-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev libcpp-httplib-dev libcli11-dev libhiredis-dev
  libssl-dev openssl curl jq
  zlib1g-dev libyaml-cpp-dev
  redis-server redis-tools
  chromium   # the live page's browser tests (headless; -DMILLRACE_BROWSER_TESTS=OFF builds without them)
  "$@"
)

# The kubectl fidelity tests need a kubectl; Debian's kubernetes-client only where none is installed
# (some images ship a newer kubectl package that owns /usr/bin/kubectl).
command -v kubectl >/dev/null || packages+=(kubernetes-client)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
