#!/usr/bin/env python3
"""Writes a per-range timing CSV of about SIZE megabytes (default 100) to stdout, in the columns
`millrace export --format csv` writes, for measuring `millrace import` on a large input (peak
memory with /usr/bin/time -v, write-lock hold with scripts/measure-write-lock.py).
Deterministic: the same size gives the same bytes."""
import sys

target = int(sys.argv[1] if len(sys.argv) > 1 else 100) * 1_000_000
out = sys.stdout
out.write("item,type,first,count,payload,priority,submit_s,depends_on,attempt,worker,start_s,end_s,"
          "duration_s,outcome,exit_code,failure_reason,work_ms\n")
written, i, free_at = 0, 0, [0.0] * 64
while written < target:
    worker = i % 64
    duration = 1 + (i * 7919) % 997 / 10.0
    start = free_at[worker]
    free_at[worker] = start + duration
    line = (f"r{i},range,{i * 16000},16000,,0,0,,1,w{worker},{start:.6f},{start + duration:.6f},"
            f"{duration:.6f},succeeded,0,,{duration * 700:.3f}\n")
    out.write(line)
    written += len(line)
    i += 1
