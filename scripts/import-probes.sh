#!/bin/sh
# The importer fault matrix of issue 21 (items 2 and 6): feeds `millrace import` each malformed
# input and prints, per probe, the exit code, the output's size and its first line of stderr (or stdout), cut to
# 160 characters. Usage: scripts/import-probes.sh [MILLRACE_BINARY] (default build/cli/millrace).
M=${1:-build/cli/millrace}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
BOM=$(printf '\357\273\277')
LOG_LINE="[12:06:41 INF] job monitor query 'http://m/metrics', got response: {\"metrics\": [\"38463/16320|7|11.9441ms|46s\", \"54463/16320|8|1.5e+03ms|42s\"]}"
SWF_JOB="1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1"

printf '%sitem,worker,duration_s\na,w,1\n' "$BOM" > "$D/bom.csv"
printf '%send_ledger,ledger_count,first_ledger,worker_id,tx_apply_ms,total_s\n38463,16320,22144,7,11.9,46\n' "$BOM" > "$D/bom-stellar.csv"
printf '%s38463/16320|7|11.9|46s\n' "$BOM" > "$D/bom-metrics.txt"
printf '%s; Version: 2.2\n%s\n' "$BOM" "$SWF_JOB" > "$D/bom.swf"
printf 'item,worker,duration_s\r\na,w,1\r\n' > "$D/crlf.csv"
printf '; Computer: Caf\351\n%s\n' "$SWF_JOB" > "$D/latin1.swf"
printf '[{"item": "a", "duration_s": 1e400}]\n' > "$D/overflow.json"
printf 'item,attempt,worker,duration_s\na,1,w,1\na,1,w,1\n' > "$D/dup.csv"
{ printf 'item,worker,duration_s\na,w,'; head -c 10000000 /dev/zero | tr '\0' x; printf '\n'; } > "$D/huge.csv"
printf '[x] start\n%s\n[12:06:41 INF] Cleaning up res' "$LOG_LINE" > "$D/truncated.log"
printf -- '-9223372036854775808/16320|3|9.2|44s\n' > "$D/wrap.txt"
printf 'item,worker,duration_s\na,w,1e300\n' > "$D/1e300.csv"
printf 'item,attempt,worker,duration_s\na,4294967297,w,1\n' > "$D/attempt.csv"
printf 'item,worker,duration_s,exit_code\na,w,1,99999999999\n' > "$D/exit.csv"

probe() {
  label=$1; shift
  "$M" import --store "$D/s.db" "$@" > "$D/out" 2>&1
  code=$?
  out=$(head -1 "$D/out" | cut -c1-160 | sed "s|$D/||g")
  printf '| %s | `import --format %s` | %s | %s | %s |\n' "$label" "$2 $(basename "$3")" "$code" "$(wc -c < "$D/out")" "$out"
}
echo "| probe | command | exit | output bytes | first line of output (160 chars) |"
echo "|---|---|---|---|---|"
probe "BOM csv" --format csv "$D/bom.csv"
probe "BOM stellar-csv" --format stellar-csv "$D/bom-stellar.csv"
probe "BOM stellar-metrics" --format stellar-metrics "$D/bom-metrics.txt"
probe "BOM swf" --format swf "$D/bom.swf"
probe "CRLF csv" --format csv "$D/crlf.csv"
probe "Latin-1 byte in SWF header" --format swf "$D/latin1.swf"
probe "JSON number overflow" --format json "$D/overflow.json"
probe "duplicated CSV row" --format csv "$D/dup.csv"
probe "10 MB bad field" --format csv "$D/huge.csv"
probe "stellar log cut after /metrics" --format stellar-log "$D/truncated.log"
probe "END/COUNT below int64" --format stellar-metrics "$D/wrap.txt"
probe "1e300 s duration" --format csv "$D/1e300.csv"
probe "attempt 2^32+1" --format csv "$D/attempt.csv"
probe "exit code 99999999999" --format csv "$D/exit.csv"
