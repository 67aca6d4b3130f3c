#!/usr/bin/env bash
# Installs the Debian packages millrace needs to build, test and run, and only those missing;
# packages given as arguments are installed too (scripts/install-notebook-deps.sh uses that).
# Run as root on Debian 12 (bookworm).
set -euo pipefail

packages=(
  g++ cmake make pkg-config
  libsqlite3-dev libeigen3-dev libboost-graph-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev libcpp-httplib-dev libcli11-dev libhiredis-dev
  zlib1g-dev libyaml-cpp-dev
  "$@"
)

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
