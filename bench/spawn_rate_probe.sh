#!/bin/sh
# Attempts per second of `millrace run --cluster local` against the size of the plan: RANGES
# ranges of `true` on WORKERS workers, stopped (SIGINT) after SECONDS of running attempts; the
# rate is the attempts recorded divided by the time from the first start to the last end, read
# from the trace store (python3's sqlite3), so planning and recording the plan are not counted.
#
#   bench/spawn_rate_probe.sh MILLRACE RANGES [SECONDS=20] [WORKERS=4]
set -eu
millrace=$(realpath "$1"); ranges=$2; seconds=${3:-20}; workers=${4:-4}
work=$(mktemp -d /tmp/millrace-rate.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$millrace" run --cluster local --store "$work/t.db" --span "0:$((ranges - 1))" --partitioner uniform \
  --range-count "$ranges" --workers "$workers" --command true >"$work/out" 2>"$work/err" &
pid=$!
# Wait for the first attempt to be recorded, then let it run.
python3 - "$work/t.db" <<'PY'
import sqlite3, sys, time
while True:
    try:
        if sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM attempts").fetchone()[0] > 0: break
    except sqlite3.Error: pass
    time.sleep(0.2)
PY
sleep "$seconds"
kill -INT "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
python3 - "$work/t.db" "$ranges" <<'PY'
import sqlite3, sys
n, first, last = sqlite3.connect(sys.argv[1]).execute(
    "SELECT count(*), min(start_us), max(end_us) FROM attempts WHERE outcome = 'succeeded'").fetchone()
print(f"{sys.argv[2]} ranges planned: {n} attempts in {(last - first) / 1e6:.1f} s = {n / ((last - first) / 1e6):.0f} attempts/s")
PY
