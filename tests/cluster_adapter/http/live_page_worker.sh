#!/bin/sh
# The worker of the live page's test run (live_page_browser_test.cc):
#   live_page_worker.sh DIR ID
# Fails (exit 3, a line on stderr) when DIR/fail-ID exists; waits until DIR/go exists when
# DIR/hold-ID exists; otherwise works for 0.2 s and succeeds.
dir=$1; id=$2
if [ -e "$dir/fail-$id" ]; then
  echo "ledger hash mismatch in $id" >&2
  exit 3
fi
if [ -e "$dir/hold-$id" ]; then
  while [ ! -e "$dir/go" ]; do sleep 0.05; done
fi
sleep 0.2
