#!/bin/sh
# A worker of a millrace worker pool (`millrace run --cluster kubernetes --mode worker-pool`):
# the container command of the pool's pods. It asks the scheduler for a range, runs the command
# given as its arguments with the range in the environment (MILLRACE_ITEM, MILLRACE_ATTEMPT,
# MILLRACE_FIRST, MILLRACE_COUNT, MILLRACE_LAST, MILLRACE_END (exclusive), MILLRACE_END_COUNT,
# MILLRACE_TYPE, MILLRACE_PAYLOAD, MILLRACE_RUN), heartbeats while it runs, reports its exit code,
# and asks again; it exits 0 when the scheduler has no more work for it. If its lease is lost
# (expired or cancelled) it stops the command and asks for new work.
#   pool-worker.sh catchup --from-env
# Needs curl and jq. Reads MILLRACE_LEASE_URL and MILLRACE_LEASE_TOKEN (set by millrace) and
# POD_NAME (else the host name: a pod's name, or JOB-INDEX in an Indexed Job's pod, which millrace
# knows its pod by too). The token goes to curl on its
# standard input, never on a command line other processes could read.
set -u
url=${MILLRACE_LEASE_URL:?MILLRACE_LEASE_URL is not set}
token=${MILLRACE_LEASE_TOKEN:-}
worker=${POD_NAME:-$(hostname)}

# A POST to the lease API: api PATH BODY [curl options...]
api() {
  api_path=$1 api_body=$2
  shift 2
  if [ -n "$token" ]; then printf 'Authorization: Bearer %s\n' "$token"; fi |
    curl -H @- -X POST -H 'Content-Type: application/json' -d "$api_body" "$@" "$url$api_path"
}

while :; do
  body=$(api /v1/lease "{\"worker\": \"$worker\"}" -sS --fail) || { sleep 2; continue; }  # not reachable yet
  case $(printf '%s' "$body" | jq -r .action) in
    exit) exit 0 ;;
    work) ;;
    *) continue ;;  # wait: the scheduler already held the request; ask again
  esac
  lease=$(printf '%s' "$body" | jq -r .lease.id)
  every=$(printf '%s' "$body" | jq -r '.lease.heartbeat_every_ms / 1000')
  eval "$(printf '%s' "$body" | jq -r '.item | to_entries[]
    | (if .key == "id" then "ITEM" else (.key | ascii_upcase) end) as $name
    | "export MILLRACE_\($name)=\(.value | tostring | @sh)"')"

  started=$(date +%s)
  "$@" &
  work=$!
  (
    while sleep "$every"; do
      code=$(api "/v1/leases/$lease/heartbeat" '{}' -s -o /dev/null -w '%{http_code}')
      case $code in 404|409|410) kill "$work" 2>/dev/null; exit 0 ;; esac
    done
  ) &
  beat=$!
  wait "$work"
  exit_code=$?
  kill "$beat" 2>/dev/null
  work_ms=$(( ($(date +%s) - started) * 1000 ))
  api "/v1/leases/$lease/complete" "{\"exit_code\": $exit_code, \"work_time_ms\": $work_ms}" -s -o /dev/null
done
