#!/bin/sh
# A worker whose end the test decides, for the leftover tests (tests/cli/leftover_wait_test.cc):
#   gated_worker.sh DIR ID ATTEMPT FAILING_ID
# Appends "ID ATTEMPT begin NANOS" to DIR/log; a first attempt then waits until DIR/go-ID exists
# (later attempts do not wait); appends "ID ATTEMPT end NANOS CODE" and exits with CODE: 3 for
# the first attempt of FAILING_ID, else 0. NANOS: wall-clock nanoseconds since the epoch.
dir=$1; id=$2; attempt=$3; failing=$4
echo "$id $attempt begin $(date +%s%N)" >> "$dir/log"
code=0
if [ "$attempt" -eq 1 ]; then
  while [ ! -e "$dir/go-$id" ]; do sleep 0.02; done
  [ "$id" = "$failing" ] && code=3
fi
echo "$id $attempt end $(date +%s%N) $code" >> "$dir/log"
exit "$code"
