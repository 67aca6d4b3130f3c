#!/usr/bin/env bash
# Installs the Debian packages of the peer comparison (bench/peers/, bench/compare_peers.py) and
# only those missing: SimGrid 3.32 for the C++ peer, SimPy 2.3 for the Python peer, GNU time for
# peak memory. Kept apart from install-deps.sh because SimGrid pulls in ns-3, GSL and Boost
# (about 60 MB installed) that nothing but this benchmark needs; bootstrap.sh test calls it so the
# peers' smoke test runs in CI. Run as root on Debian 12 (bookworm).
set -euo pipefail

packages=(libsimgrid-dev python3-simpy time)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-bench-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
