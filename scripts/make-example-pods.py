#!/usr/bin/env python3
"""Writes examples/pods.csv: a small pod trace of a job-per-item deployment, as `import --format csv`
reads it (one row per attempt: submit, scheduled, start and end, node, requests).

Ground truth, so the README's `fit --runs pods` can be checked by eye: 4 nodes of 4 CPUs and
16 GiB; pods of two types (render: 1 CPU, 2 GiB, 4-12 min; encode: 2 CPUs, 6 GiB, 8-20 min)
arrive in bursts; each waits a placement delay the capacity does not explain (uniform 5-40 s),
then for room on a node (the first that fits, as pods become ready or leave), then starts up
(10-30 s); about 3% fail with exit 137 part way. Seeded, so the file is the same on every run.
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

# The scheduler, as kube-scheduler places pods: whenever a pod becomes ready (its placement delay
# over) or a pod ends, every ready pod in the order it became ready goes to the first node with
# room for its requests; one that fits nowhere waits without holding back the pods behind it.
drawn = []
for submit, kind in pods:
    cpu, memory, low, high = TYPES[kind]
    work = rng.uniform(low, high)
    failed = rng.random() < 0.03
    drawn.append(dict(submit=submit, kind=kind, cpu=cpu, memory=memory, ready=submit + rng.uniform(5, 40),
                      startup=rng.uniform(10, 30), work=work * rng.uniform(0.1, 0.9) if failed else work,
                      failed=failed))
free = [[CPUS, MEMORY_GI] for _ in range(NODES)]
running = []  # (end, node, index)
waiting = sorted(range(len(drawn)), key=lambda i: drawn[i]["ready"])
placed = {}
now = drawn[waiting[0]]["ready"]
while waiting:
    for end, node, i in sorted(r for r in running if r[0] <= now):
        free[node][0] += drawn[i]["cpu"]
        free[node][1] += drawn[i]["memory"]
        running.remove((end, node, i))
    for i in [i for i in waiting if drawn[i]["ready"] <= now]:
        pod = drawn[i]
        node = next((n for n in range(NODES) if free[n][0] >= pod["cpu"] and free[n][1] >= pod["memory"]), None)
        if node is None:
            continue
        free[node][0] -= pod["cpu"]
        free[node][1] -= pod["memory"]
        start = now + pod["startup"]
        placed[i] = (now, node, start, start + pod["work"])
        running.append((start + pod["work"], node, i))
        waiting.remove(i)
    if waiting:  # the next pod to become ready, or to leave
        now = min([drawn[i]["ready"] for i in waiting if drawn[i]["ready"] > now] + [end for end, _, _ in running])

with open("examples/pods.csv", "w") as out:
    out.write("item,type,submit_s,attempt,worker,submitted_s,scheduled_s,start_s,end_s,outcome,exit_code,"
              "node,request.cpu,request.memory\n")
    for index, pod in enumerate(drawn):
        at, node, start, end = placed[index]
        item = f"{pod['kind']}-{index:03d}"
        outcome, code = ("failed", 137) if pod["failed"] else ("succeeded", 0)
        out.write(f"{item},{pod['kind']},{pod['submit']:.3f},1,{item}-pod,{pod['submit']:.3f},{at:.3f},{start:.3f},"
                  f"{end:.3f},{outcome},{code},node-{node},{pod['cpu']},{pod['memory']}Gi\n")
