#!/bin/bash
# A stand-in for a stellar parallel catch-up worker, following their protocol on the default
# key names: LMOVE ranges -> in_progress, register ownership and a heartbeat, "work" (sleep a
# scaled-down recorded duration), then in one MULTI move the range to succeeded and add its
# metrics line END/COUNT|worker|tx_apply_ms|duration_s (the recorded figures).
# Usage: stellar_worker.sh PORT WORKER TIMINGS [DIE_AFTER]
#   TIMINGS: lines "END/COUNT sleep_seconds tx_apply_ms duration_s"
#   DIE_AFTER: after this many ranges, take one more and kill itself mid-range (SIGKILL).
set -u
port=$1 worker=$2 timings=$3 die_after=${4:--1}
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
declare -A pause tx total
while read -r range p t d; do pause[$range]=$p; tx[$range]=$t; total[$range]=$d; done < "$timings"
done_count=0
while true; do
  range=$(cli LMOVE ranges in_progress LEFT LEFT)
  if [ -z "$range" ]; then
    [ "$(cli LLEN in_progress)" = "0" ] && exit 0
    sleep 0.05
    continue
  fi
  printf 'HSET job_owners %s %s\nSET heartbeat:%s 1 PX 3000\n' "$range" "$worker" "$worker" | cli > /dev/null
  [ "$done_count" = "$die_after" ] && kill -9 $$
  sleep "${pause[$range]}"
  printf 'MULTI\nLPUSH succeeded %s\nLREM in_progress -1 %s\nSADD metrics %s|%s|%s|%ss\nHDEL job_owners %s\nEXEC\n' \
    "$range" "$range" "$range" "$worker" "${tx[$range]}" "${total[$range]}" "$range" | cli > /dev/null
  done_count=$((done_count + 1))
done
