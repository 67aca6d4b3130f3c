#!/usr/bin/env python3
"""Writes examples/pods.csv: a small pod trace of a job-per-item deployment, as `import --format csv`
reads it (one row per attempt: submit, scheduled, start and end, node, requests).

Ground truth, so the README's `fit --runs pods` can be checked by eye: 4 nodes of 4 CPUs and
16 GiB; pods of two types (render: 1 CPU, 2 GiB, 4-12 min; encode: 2 CPUs, 6 GiB, 8-20 min)
arrive in bursts; each waits for room on a node (first fit, in submit order), then for a
placement delay the capacity does not explain (uniform 5-40 s), then starts up (10-30 s);
about 3% fail with exit 137 part way. Seeded, so the file is the same on every run.
"""
import random

NODES, CPUS, MEMORY_GI = 4, 4, 16
TYPES = {"render": (1, 2, 240, 720), "encode": (2, 6, 480, 1200)}

rng = random.Random(29)
pods = []
t = 0.0
for burst in range(12):
    t = burst * 1200.0
    for _ in range(rng.randint(10, 20)):
        t += rng.uniform(0, 20)
        kind = "render" if rng.random() < 0.65 else "encode"
        pods.append((round(t, 3), kind))

running = {n: [] for n in range(NODES)}  # node -> [(end, cpu, memory)]


def free(node, at):
    held = [(c, m) for end, c, m in running[node] if end > at]
    return CPUS - sum(c for c, _ in held), MEMORY_GI - sum(m for _, m in held)


rows = []
queue_free_at = 0.0  # FIFO: a pod is not placed before the one submitted ahead of it
for index, (submit, kind) in enumerate(pods):
    cpu, memory, low, high = TYPES[kind]
    ready = max(submit + rng.uniform(5, 40), queue_free_at)
    candidates = sorted({ready} | {end for n in running for end, _, _ in running[n] if end > ready})
    placed, node = next((at, n) for at in candidates for n in range(NODES)
                        if free(n, at)[0] >= cpu and free(n, at)[1] >= memory)
    queue_free_at = placed
    start = placed + rng.uniform(10, 30)
    work = rng.uniform(low, high)
    failed = rng.random() < 0.03
    end = start + (work * rng.uniform(0.1, 0.9) if failed else work)
    running[node].append((end, cpu, memory))
    rows.append((f"{kind}-{index:03d}", kind, submit, 1, f"node-{node}", submit, placed, start, end,
                 "failed" if failed else "succeeded", 137 if failed else 0, cpu, memory))

with open("examples/pods.csv", "w") as out:
    out.write("item,type,submit_s,attempt,worker,submitted_s,scheduled_s,start_s,end_s,outcome,exit_code,"
              "node,request.cpu,request.memory\n")
    for item, kind, submit, attempt, node, submitted, placed, start, end, outcome, code, cpu, memory in rows:
        out.write(f"{item},{kind},{submit:.3f},{attempt},{node},{submitted:.3f},{placed:.3f},{start:.3f},"
                  f"{end:.3f},{outcome},{code},{node},{cpu},{memory}Gi\n")
