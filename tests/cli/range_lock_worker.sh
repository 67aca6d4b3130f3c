#!/bin/sh
# A worker as operators write them, for the crash tests and bench/crash_resume_probe.sh:
#   range_lock_worker.sh DIR ID FIRST SECONDS
# The range's real work runs in a child (in a new session when FIRST/10 is odd), which the
# script waits for. The child holds an exclusive flock on DIR/locks/ID while it works (SECONDS),
# so a second process working on the same range at the same time finds it held: it appends
# "ID PID" to DIR/doubles. Finished work appends ID to DIR/done.
dir=$1; id=$2; first=$3; seconds=$4
if [ "${5:-}" = work ]; then
  exec 9>>"$dir/locks/$id"
  flock -n 9 || echo "$id $$" >> "$dir/doubles"
  sleep "$seconds"
  echo "$id" >> "$dir/done"
  exit 0
fi
if [ $((first / 10 % 2)) -eq 1 ]; then
  setsid sh "$0" "$dir" "$id" "$first" "$seconds" work &
else
  sh "$0" "$dir" "$id" "$first" "$seconds" work &
fi
wait
