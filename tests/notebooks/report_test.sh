#!/usr/bin/env bash
# `millrace report` on the fixture store (make_store.sh): writes every figure as a non-empty PNG
# and an index.html showing them, leaves the store unchanged, and fails clearly (exit 1, message
# naming the input) for a missing store, a missing python3 and a python3 without matplotlib.
#   report_test.sh MILLRACE WORK
set -euo pipefail
m=${1:?millrace}; work=${2:?work dir}
store=$work/store.db; out=$work/report
rm -rf "$out"
failed=0; passed=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}
expect_error() {  # expect_error NAME PATTERN COMMAND...: exit status 1 and PATTERN on stderr
  local name=$1 pattern=$2; shift 2
  local status=0
  "$@" >"$work/err.out" 2>"$work/err.txt" || status=$?
  check "$name (exit $status: $(tail -1 "$work/err.txt"))" \
    bash -c "[ $status -eq 1 ] && grep -q -- \"\$1\" \"\$2\"" _ "$pattern" "$work/err.txt"
}

before=$(md5sum <"$store")
"$m" report --store "$store" -o "$out" --model "$work/model.json" >"$work/report.out"
figures=(run_durations run_gantt run_tail model_coefficients model_fit real_vs_simulated compare plan)
for figure in "${figures[@]}"; do
  check "report writes $figure.png" test -s "$out/$figure.png"
  check "index.html shows $figure.png" grep -q "src=\"$figure.png\"" "$out/index.html"
done
check "report leaves the store unchanged" test "$before" = "$(md5sum <"$store")"

expect_error "missing store is named" "$work/none.db: no such trace store" \
  "$m" report --store "$work/none.db" -o "$work/report-none"
expect_error "missing python3 is reported" "python3 not found" \
  env MILLRACE_PYTHON="$work/no-such-python3" "$m" report --store "$store" -o "$work/report-nopy"
printf '#!/bin/sh\nexit 1\n' >"$work/python-without-matplotlib"; chmod +x "$work/python-without-matplotlib"
expect_error "python3 without matplotlib is reported" "cannot import matplotlib" \
  env MILLRACE_PYTHON="$work/python-without-matplotlib" "$m" report --store "$store" -o "$work/report-nompl"
expect_error "missing run is named" "no run 'nope'" \
  "$m" report --store "$store" -o "$work/report-norun" --run nope
# Which comparisons are drawn: the latest made with --model and on --run unless one is chosen; a
# caption names the comparison, its model and run. On a copy, with a second compare of another run.
copy=$work/choices.db; cp "$store" "$copy"
"$m" compare --store "$copy" --model "$work/model.json" --run sleep-run --workers 2 --partitioners uniform \
  --replicas 1 >/dev/null 2>&1
latest=$(sqlite3 "$copy" "SELECT max(id) FROM comparisons WHERE kind = 'compare'")
"$m" report --store "$copy" -o "$work/report-latest" >/dev/null
check "the latest compare by default" grep -q "(comparison $latest: \`millrace compare\`, model $work/model.json, run sleep-run)" \
  "$work/report-latest/index.html"
"$m" report --store "$copy" -o "$work/report-pcv2" --model "$work/model.json" --run pcv2 >/dev/null
check "the latest compare of --run pcv2" grep -q "(comparison 1: \`millrace compare\`, model $work/model.json, run pcv2)" \
  "$work/report-pcv2/index.html"
"$m" report --store "$copy" -o "$work/report-chosen" --run sleep-run --compare 1 --plan 2 >/dev/null
check "the compare chosen" grep -q "(comparison 1: \`millrace compare\`" "$work/report-chosen/index.html"
check "the plan chosen" grep -q "(comparison 2: \`millrace plan\`" "$work/report-chosen/index.html"
"$m" report --store "$copy" -o "$work/report-unmatched" --run sleep-run >/dev/null
check "a plan of no such run says so" grep -q "none was made with --run sleep-run, so the latest" \
  "$work/report-unmatched/index.html"
expect_error "a plan given as the compare is named" "comparison 2 is a plan, not a compare: give it as --plan 2" \
  "$m" report --store "$copy" -o "$work/report-wrong" --compare 2
expect_error "a missing comparison is named" "comparison 99: no such comparison in the store" \
  "$m" report --store "$copy" -o "$work/report-missing" --plan 99
# A store made before run names were unique, with two runs named pcv2 (1, and the real run 3): a
# lookup by that name names both runs.
python3 - "$store" "$work/duplicate-names.db" <<'PY'
import sqlite3, sys
copy = sqlite3.connect(sys.argv[2])
sqlite3.connect(sys.argv[1]).backup(copy)
copy.execute("UPDATE runs SET name = 'pcv2' WHERE name = 'sleep-run'")
copy.commit()
PY
expect_error "a name two runs share names both" "run name 'pcv2' matches runs 1 and 3; name the run by its id" \
  "$m" report --store "$work/duplicate-names.db" -o "$work/report-duplicate" --run pcv2
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
