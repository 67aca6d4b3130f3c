#!/usr/bin/env python3
"""Where a simulation's instructions go: callgrind's exclusive counts per function, summed by the
part of millrace they belong to (event engine, simulated cluster, scheduler core, policy, run
summary, set-up checks, library code), per range.

Library code inlined into a function counts for that function's part. Inside sim::simulate the
source file tells the event loop (engine.h, event_queue.h) from the summary's loops
(simulation.cc), so profile a build with line information: the same optimised code, e.g.
  cmake -S . -B build-g -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG -g"
Usage:
  valgrind --tool=callgrind --callgrind-out-file=fixed.cg \\
    --toggle-collect='millrace::sim::simulate(std::shared_ptr*' \\
    build-g/bench/bench_reference_model run --trace gen100000.txt --workers 256
  bench/callgrind_parts.py --ranges 100000 fixed.cg [jpi.cg ...]
"""
import argparse
import re
import subprocess

PARTS = ["engine", "cluster", "scheduler core", "policy", "summary", "set-up", "library"]


def part_of(source, function):
    host = function.split("(")[0].strip()
    if "event_queue.h" in source or "engine.h" in source:
        return "engine"
    if "EventQueue" in host or "VirtualClock" in host or host.endswith("SimCluster::handle"):
        return "engine"
    if host.startswith("millrace::sim::simulate"):
        return "summary" if "simulation.cc" in source else "engine"
    if any(k in host for k in ("check_placeable", "check_fits", "critical_path", "PoolNodes::PoolNodes",
                               "SimCluster::SimCluster")):
        return "set-up"
    if any(k in host for k in ("Scheduler::status", "summarize", "RunTally", "BusySweep", "straggler", "waits_of",
                               "pods_tail")):
        return "summary"
    if "SimCluster" in host or "PoolNodes" in host:
        return "cluster"
    if "WorkerPoolPolicy" in host or "JobPerItemPolicy" in host:
        return "policy"
    if "scheduler::" in host:
        return "scheduler core"
    return "library"


def parts(profile):
    listing = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=100", profile],
                             capture_output=True, text=True, check=True).stdout
    totals = dict.fromkeys(PARTS, 0)
    for line in listing.splitlines():
        found = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.+?):(.+)$", line)
        if not found or "PROGRAM TOTALS" in line:
            continue
        totals[part_of(found.group(2), found.group(3))] += int(found.group(1).replace(",", ""))
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranges", type=int, required=True, help="ranges the profiled run simulated")
    parser.add_argument("profiles", nargs="+", help="callgrind output files")
    args = parser.parse_args()
    columns = [parts(p) for p in args.profiles]
    print("| part | " + " | ".join(args.profiles) + " |")
    print("|---|" + "---:|" * len(columns))
    for part in PARTS + ["total"]:
        values = [sum(c.values()) if part == "total" else c[part] for c in columns]
        print(f"| {part} | " + " | ".join(f"{v / args.ranges:,.0f}" for v in values) + " |")


if __name__ == "__main__":
    main()
