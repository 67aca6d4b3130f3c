#!/usr/bin/env bash
# The main job on the bundled data (embedded default, no cluster): see README.md.
# Imports the recorded stellar parallel catch-up into a fresh trace store and shows it.
set -euo pipefail
millrace=${1:?usage: main-job.sh PATH_TO_MILLRACE}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${MILLRACE_OUT:-$root/out}
mkdir -p "$work"
store=$work/main-job.db
rm -f "$store" "$store-wal" "$store-shm"
"$millrace" import --store "$store" --format stellar-log --name pcv2-2024-11 \
  "$root/data/sets/stellar-pcv2-2024-11/stellar-supercluster.log"
"$millrace" show --store "$store" pcv2-2024-11
