#!/bin/sh
# Files a command writes over are written whole or not at all (issue 38, item 1). Each writer
# (fit -o, export -o as CSV and as JSON, export --nodes, partition -o, report -o) first runs once
# unkilled over an old file, which gives the new file's bytes and how long the command takes;
# then KILLS times it runs over the old file again and is SIGKILLed at a seeded random moment
# between its start and a little past its usual end. After each kill the file must be the old
# one byte for byte or the new one whole. A kill between naming the temporary file
# (.NAME.millrace-PID-N) and its rename leaves that file beside the target (counted under "left
# by a kill": report's PNG files, written by Python through named temporary files, leave them
# most often); the next write of the same target removes them, so after the kills the writer runs
# once more unkilled and nothing may be left then ("left after a later write").
# Prints one table row per writer;
# exits 1 when any file was found broken or anything was left after the later write.
# Usage: scripts/output-kill-probe.sh [MILLRACE_BINARY] [KILLS] [SEED]   (defaults:
# build/cli/millrace, 40, 1). Needs python3 (the generated trace); report is probed where
# $MILLRACE_PYTHON (default /usr/bin/python3, as report runs) has matplotlib and pandas.
M=$(realpath "${1:-build/cli/millrace}")
KILLS=${2:-40}
SEED=${3:-1}
SCRIPTS=$(dirname "$(realpath "$0")")
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

# A recording of about 23,000 ranges (3 MB of CSV) with as many node arrivals.
python3 "$SCRIPTS/make-timing-csv.py" 3 > "$D/trace.csv"
awk 'BEGIN { print "node,pool,created_s,ready_s"; for (i = 0; i < 23000; i++) printf "node-%d,pool-%d,%d,%d\n", i, i % 7, i, i + 30 }' > "$D/nodes.csv"
"$M" import --store "$D/s.db" --format csv --name big --nodes "$D/nodes.csv" "$D/trace.csv" > /dev/null 2>&1 || {
  echo "cannot import the generated trace" >&2
  exit 2
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
failed=0
writer=0
echo "| writer | usual time | kills | old file whole | new file whole | broken | left by a kill | left after a later write |"
echo "|---|---|---|---|---|---|---|---|"
# probe LABEL TARGET COMMAND...: TARGET is the file the command writes over (report: a directory,
# whose index.html is checked).
probe() {
  label=$1 target=$2
  shift 2
  out="$D/out"
  rm -rf "$out" && mkdir "$out"
  checked="$out/$target"
  case $target in */) checked="$out/${target}index.html" && mkdir -p "$out/$target" ;; esac
  printf 'the old file, which must survive\n' > "$D/old"
  cp "$D/old" "$checked"
  start=$(now_ms)
  (cd "$out" && "$@" > /dev/null 2>&1) || { echo "| $label | failed unkilled: $* | | | | | | |"; failed=1; return; }
  usual=$(( $(now_ms) - start ))
  cp "$checked" "$D/new"
  beside=$(dirname "$checked")
  ls -A "$beside" > "$D/listing"
  cp "$D/listing" "$D/unkilled"
  writer=$((writer + 1))
  old=0 new=0 broken=0 left=0
  for delay in $(awk -v n="$KILLS" -v seed=$((SEED * 100 + writer)) -v usual="$usual" \
                   'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%.4f\n", rand() * usual * 1.1 / 1000 }'); do
    cp "$D/old" "$checked"
    (cd "$out" && exec "$@" > /dev/null 2>&1) &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    if cmp -s "$checked" "$D/old"; then
      old=$((old + 1))
    elif cmp -s "$checked" "$D/new"; then
      new=$((new + 1))
    else
      broken=$((broken + 1))
      failed=1
    fi
    ls -A "$beside" | grep -vxFf "$D/listing" > "$D/extra" && left=$((left + 1))
    # Kept (the later write must remove them), but each kill is counted on what it added.
    cat "$D/extra" >> "$D/listing"
  done
  (cd "$out" && "$@" > /dev/null 2>&1) || { echo "| $label | the later write failed: $* | | | | | | |"; failed=1; return; }
  after=$(ls -A "$beside" | grep -cvxFf "$D/unkilled")
  [ "$after" -eq 0 ] || failed=1
  echo "| $label | ${usual} ms | $KILLS | $old | $new | $broken | $left | $after |"
}

probe "fit -o" model.json "$M" fit --store "$D/s.db" --runs big -o model.json
probe "export -o (csv)" export.csv "$M" export --store "$D/s.db" big -o export.csv
probe "export -o (json)" export.json "$M" export --store "$D/s.db" big --format json -o export.json
probe "export --nodes" nodes.csv "$M" export --store "$D/s.db" big -o /dev/null --nodes nodes.csv
probe "partition -o" ranges.csv "$M" partition --span 0:99999999 --partitioner uniform --range-count 200000 -o ranges.csv
if ${MILLRACE_PYTHON:-/usr/bin/python3} -c "import matplotlib, pandas" 2> /dev/null; then
  probe "report -o" report/ "$M" report --store "$D/s.db" -o report
fi
exit $failed
