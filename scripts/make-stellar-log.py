#!/usr/bin/env python3
"""Writes a stellar-supercluster log of about SIZE megabytes (default 100) to stdout: the job
monitor's /metrics line, {"metrics": ["END/COUNT|worker|tx_applyms|totals", ...]}, listing ranges
in no particular order (as a Redis set is dumped), every 50th range tried twice, then the
"Finished mission" line. For measuring `millrace import --format stellar-log` on a large input
(peak memory with /usr/bin/time -v). Deterministic: the same size gives the same bytes."""
import sys

target = int(sys.argv[1] if len(sys.argv) > 1 else 100) * 1_000_000
out = sys.stdout
out.write("[12:06:41 INF] No job left and all workers are down.\n")
prefix = ("[12:06:41 INF] job monitor query 'http://ssc-job-monitor.services.stellar-ops.com/"
          "stellar-supercluster/metrics', got response: {\"metrics\": [")
out.write(prefix)
written, i, first = len(prefix), 0, True
ranges = target // 35
while written < target:
    k = (i * 7919) % ranges  # a permutation of the ranges when ranges is not a multiple of 7919
    end = 6463 + 16000 * k
    tries = 2 if k % 50 == 0 else 1
    for t in range(tries):
        worker = (k * 31 + t * 17) % 128
        apply_ms = 1000 + (k * 7919 + t) % 99991
        total_s = 1 + apply_ms // 700 + t
        entry = f'{"" if first else ", "}"{end}/16320|{worker}|{apply_ms}ms|{total_s}s"'
        first = False
        out.write(entry)
        written += len(entry)
    i += 1
    if i == ranges:
        break
out.write("]}\n")
out.write("[12:06:41 INF] Cleaning up resources...\n"
          "[12:06:41 INF] -----------------------------------\n"
          "[12:06:41 INF] Finished mission: HistoryPubnetParallelCatchupV2\n"
          "[12:06:41 INF] -----------------------------------\n")
