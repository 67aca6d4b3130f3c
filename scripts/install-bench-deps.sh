#!/usr/bin/env bash
# Installs the Debian packages of the peer comparison (bench/peers/, bench/compare_peers.py) and
# only those missing: SimGrid 3.32 for the C++ peer, SimPy 2.3 for the Python peer, GNU time for
# peak memory. Kept apart from install-deps.sh's list because SimGrid pulls in ns-3, GSL and
# Boost.Context (about 60 MB installed) that nothing but this benchmark needs; bootstrap.sh test
# calls it so the peers' smoke test runs in CI. Run as root on Debian 12 (bookworm).
set -euo pipefail
exec bash "$(dirname "$0")/install-deps.sh" libsimgrid-dev python3-simpy time
