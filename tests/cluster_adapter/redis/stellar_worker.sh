#!/bin/bash
# A stand-in for a stellar parallel catch-up worker, following their protocol on the default
# key names: take a range (LMOVE ranges -> in_progress) and register its owner and a heartbeat,
# "work" (wait a scaled-down recorded duration), then in one MULTI move the range to succeeded
# and add its metrics line END/COUNT|worker|tx_apply_ms|duration_s (the recorded figures).
# To stay fast on a loaded machine it starts one redis-cli per range: the MULTI of one range is
# sent together with the take of the next (a script: LMOVE, HSET job_owners, SET heartbeat).
# Usage: stellar_worker.sh PORT WORKER TIMINGS [DIE_AFTER]
#   TIMINGS: lines "END/COUNT pause_seconds tx_apply_ms duration_s"
#   DIE_AFTER: after this many ranges, take one more and kill itself mid-range (SIGKILL).
set -u
port=$1 worker=$2 timings=$3 die_after=${4:--1}
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
declare -A pause tx total
while read -r range p t d; do pause[$range]=$p; tx[$range]=$t; total[$range]=$d; done < "$timings"
exec {never}<> <(:)  # waits are `read -t` on a pipe nobody writes: no process per wait
take="local r = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'LEFT') if not r then return 'none' end"
take+=" redis.call('HSET', KEYS[3], r, ARGV[1]) redis.call('SET', KEYS[4], '1', 'PX', ARGV[2]) return r"
finish="" done_count=0
while true; do
  out=$({ [ -n "$finish" ] && printf '%s\n' "$finish"
          printf 'EVAL "%s" 4 ranges in_progress job_owners heartbeat:%s %s 3000\n' "$take" "$worker" "$worker"; } | cli)
  range=${out##*$'\n'} finish=""
  if [ "$range" = "none" ]; then
    [ "$(cli LLEN in_progress)" = "0" ] && exit 0
    read -t 0.05 -u "$never"
    continue
  fi
  [ "$done_count" = "$die_after" ] && kill -9 $$
  read -t "${pause[$range]}" -u "$never"
  printf -v finish 'MULTI\nLPUSH succeeded %s\nLREM in_progress -1 %s\nSADD metrics %s|%s|%s|%ss\nHDEL job_owners %s\nEXEC' \
    "$range" "$range" "$range" "$worker" "${tx[$range]}" "${total[$range]}" "$range"
  done_count=$((done_count + 1))
done
