#!/bin/sh
# Kill/resume probe: does a range ever run in two processes at once after millrace is SIGKILLed
# and resumed? RANGES ranges of a worker script on WORKERS local workers; millrace is SIGKILLed
# at KILLS random moments (each after 0.5 to 3 s of running), resumed each time, then resumed to
# the end; SERIES series. The worker runs its range's work in a child (in a new session for
# every other range) that holds an exclusive flock on the range's lock file while it works, so
# a second process working on the same range at the same time finds it held: a double run
# (tests/cli/range_lock_worker.sh, 2 s of work per range). LEFTOVERS is what the resumes do with
# the attempts a killed millrace left running (`run --resume --leftovers end|wait`).
#
#   bench/crash_resume_probe.sh MILLRACE [SERIES=3] [RANGES=200] [WORKERS=8] [KILLS=5] [SEED=1] [LEFTOVERS=end]
#
# Prints per series the double runs (events, distinct ranges) and the ranges that succeeded.
set -eu
millrace=$(realpath "$1")
series=${2:-3}; ranges=${3:-200}; workers=${4:-8}; kills=${5:-5}; seed=${6:-1}; leftovers=${7:-end}
work=$(mktemp -d /tmp/millrace-probe.XXXXXX)
trap 'rm -rf "$work"' EXIT
worker=$(dirname "$(realpath "$0")")/../tests/cli/range_lock_worker.sh
# Portable draws: an LCG on the seed, milliseconds in [500, 3000).
state=$seed
draw_ms() { state=$(( (state * 1103515245 + 12345) % 2147483648 )); echo $(( 500 + state / 65536 % 2500 )); }

total=0
for s in $(seq 1 "$series"); do
  dir="$work/series$s"; mkdir -p "$dir/locks"
  store="$dir/trace.db"
  "$millrace" run --cluster local --store "$store" --span "0:$((ranges * 10 - 1))" --partitioner uniform \
    --range-count "$ranges" --workers "$workers" --command "sh $worker $dir {id} {first} 2" \
    >"$dir/run.out" 2>"$dir/run.err" &
  pid=$!
  k=1
  while :; do
    ms=$(draw_ms)
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    [ "$k" -le "$kills" ] || break
    k=$((k + 1))
    "$millrace" run --store "$store" --resume 1 --leftovers "$leftovers" >>"$dir/run.out" 2>>"$dir/run.err" &
    pid=$!
  done
  "$millrace" run --store "$store" --resume 1 --leftovers "$leftovers" >>"$dir/run.out" 2>>"$dir/run.err" || true
  events=$(cat "$dir/doubles" 2>/dev/null | wc -l)
  distinct=$(cut -d" " -f1 "$dir/doubles" 2>/dev/null | sort -u | wc -l)
  done_ranges=$(sort -u "$dir/done" | wc -l)
  ran=$(wc -l <"$dir/done")
  echo "series $s: $events double runs ($distinct ranges), $done_ranges/$ranges ranges done, $ran range runs finished"
  total=$((total + distinct))
done
echo "total: $total ranges ran twice at once over $series series"
