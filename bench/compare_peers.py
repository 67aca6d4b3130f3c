#!/usr/bin/python3
"""Runs the reference model (bench/peers/) on millrace, SimGrid and SimPy over the same trace files,
checks that the three makespans agree to the microsecond, and prints CPU time and peak memory of
each with the ratios; then scaling curves of millrace alone (simulation time against ranges and
against workers, with the log-log least-squares growth exponent) and sweep throughput on 2 cores.
Debian's python3 and GNU time (/usr/bin/time) only. See bench/README.md.

    bench/compare_peers.py [--build build] [--out out/peers] [--smoke] [--largest N]
                           [--peer-max-ranges N] [--simpy-max-ranges N]

Exit status 1 when any makespans disagree (the CI smoke test, no timing asserted).
"""
import argparse
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STELLAR_LOG = os.path.join(ROOT, "data/sets/stellar-pcv2-2024-11/stellar-supercluster.log")


def run(cmd):
    """Runs cmd under GNU time; returns (key=value fields of its last line, process CPU s (user +
    sys), process wall s, peak RSS MiB)."""
    stats = subprocess.run(["/usr/bin/time", "-f", "%U %S %e %M"] + cmd, capture_output=True, text=True)
    if stats.returncode != 0:
        sys.exit("compare_peers: %s failed:\n%s" % (" ".join(cmd), stats.stderr))
    user, system, wall, rss_kb = stats.stderr.strip().splitlines()[-1].split()
    fields = dict(kv.split("=", 1) for kv in stats.stdout.strip().splitlines()[-1].split())
    return fields, float(user) + float(system), float(wall), int(rss_kb) / 1024.0


class Engines:
    def __init__(self, build):
        self.reference = os.path.join(build, "bench/bench_reference_model")
        self.simgrid = os.path.join(build, "bench/bench_peer_simgrid")
        self.floor = os.path.join(build, "bench/bench_floor_model")
        self.millrace = os.path.join(build, "cli/millrace")
        self.simpy = os.path.join(ROOT, "bench/peers/simpy_peer.py")

    def command(self, engine, trace, workers, repeat=1):
        if engine == "millrace":
            return [self.reference, "run", "--trace", trace, "--workers", str(workers), "--repeat", str(repeat)]
        if engine == "floor":
            return [self.floor, trace, str(workers), str(max(repeat, 5))]
        if engine == "simgrid":
            return [self.simgrid, trace, str(workers), "--log=root.thres:warning"]
        return ["/usr/bin/python3", self.simpy, trace, str(workers)]


def stellar_trace(engines, out):
    """Imports the bundled stellar recording into a fresh store and writes its durations."""
    store = os.path.join(out, "stellar.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    subprocess.run([engines.millrace, "import", "--store", store, "--format", "stellar-log", "--name", "pcv2",
                    STELLAR_LOG], check=True, capture_output=True)
    trace = os.path.join(out, "stellar.trace")
    subprocess.run([engines.reference, "export", "--store", store, "--run", "pcv2", "-o", trace], check=True)
    return store, trace


def simulate_command_makespan(engines, store, workers):
    """The makespan `millrace simulate` reports for the stored recording (the CLI path)."""
    import json
    proc = subprocess.run([engines.millrace, "simulate", "--store", store, "--run", "pcv2", "--policy", "fixed-pool",
                           "--workers", str(workers), "--json", "--no-record"], check=True, capture_output=True,
                          text=True)
    return json.loads(proc.stdout)["makespan_us"]


def generated_trace(engines, out, ranges, seed):
    trace = os.path.join(out, "gen-%d-seed%d.trace" % (ranges, seed))
    if not os.path.exists(trace):
        subprocess.run([engines.reference, "generate", "--ranges", str(ranges), "--seed", str(seed), "-o", trace],
                       check=True)
    return trace


def compare(engines, cases, peer_max_ranges, simpy_max_ranges, store):
    """Runs each engine on each (label, trace, ranges, workers); returns False on any disagreement and
    the floor's speed-ups over the peers, a row per case."""
    agree = True
    floor_rows = []
    print("| trace | ranges | workers | makespan (us) | millrace sim s | SimGrid sim s | SimPy sim s "
          "| x vs SimGrid | x vs SimPy | floor sim s | millrace / floor "
          "| millrace proc CPU s / wall s / MiB | SimGrid proc CPU s / wall s / MiB "
          "| SimPy proc CPU s / wall s / MiB | floor proc CPU s / wall s / MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|")
    for label, trace, ranges, workers in cases:
        results = {}
        for engine in ("millrace", "simgrid", "simpy", "floor"):
            if engine in ("simgrid", "simpy") and ranges > peer_max_ranges:
                continue
            if engine == "simpy" and ranges > simpy_max_ranges:
                continue
            results[engine] = run(engines.command(engine, trace, workers))
        makespans = {e: int(r[0]["makespan_us"]) for e, r in results.items()}
        if store is not None and label == "stellar":
            makespans["millrace simulate"] = simulate_command_makespan(engines, store, workers)
        same = len(set(makespans.values())) == 1
        agree = agree and same

        def sim_s(e):
            return "%.5f" % float(results[e][0]["sim_cpu_s"]) if e in results else "skipped"

        def speedup(e, over="millrace"):
            if e not in results:
                return "-"
            return "%.1f" % (float(results[e][0]["sim_cpu_s"]) / max(float(results[over][0]["sim_cpu_s"]), 1e-6))

        def usage(e):
            return "%.2f / %.2f / %.1f" % results[e][1:] if e in results else "skipped"

        makespan = str(makespans["millrace"]) if same else "DISAGREE " + repr(makespans)
        print("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, ranges, workers, makespan, sim_s("millrace"), sim_s("simgrid"), sim_s("simpy"),
            speedup("simgrid"), speedup("simpy"), sim_s("floor"), speedup("millrace", over="floor"),
            usage("millrace"), usage("simgrid"), usage("simpy"), usage("floor")))
        sys.stdout.flush()
        floor_rows.append((label, ranges, workers, speedup("simgrid", over="floor"), speedup("simpy", over="floor")))
    return agree, floor_rows


def print_floor(rows):
    """The floor's speed-up over each peer: a yardstick for what a simulator doing more per range can reach."""
    print("\nthe floor (one event per range in a bare binary heap, nothing else) against the peers: a simulator "
          "that also schedules, validates and records per range stays below these speed-ups")
    print("| trace | ranges | workers | floor x vs SimGrid | floor x vs SimPy |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        print("| %s | %d | %d | %s | %s |" % row)


def growth_exponent(xs, ys):
    """Least-squares slope of log y against log x."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def scaling(engines, out, sizes, workers_list, fixed_workers, fixed_ranges, seed):
    print("\nmillrace alone: simulation CPU time (best of 3) against ranges, %d workers" % fixed_workers)
    times = []
    for ranges in sizes:
        fields, _, _, rss = run(engines.command("millrace", generated_trace(engines, out, ranges, seed), fixed_workers, 3))
        times.append(float(fields["sim_cpu_s"]))
        print("  ranges %8d  %.5f s  %.2f M ranges/s  %s events  peak %.1f MiB" % (
            ranges, times[-1], ranges / times[-1] / 1e6, fields["events"], rss))
    print("  growth exponent (log-log least squares, %d to %d ranges): %.3f" % (
        sizes[0], sizes[-1], growth_exponent(sizes, times)))
    print("millrace alone: simulation CPU time (best of 3) against workers, %d ranges" % fixed_ranges)
    trace = generated_trace(engines, out, fixed_ranges, seed)
    wtimes = []
    for workers in workers_list:
        fields, _, _, rss = run(engines.command("millrace", trace, workers, 3))
        wtimes.append(float(fields["sim_cpu_s"]))
        print("  workers %5d  %.5f s  peak %.1f MiB" % (workers, wtimes[-1], rss))
    print("  growth exponent (log-log least squares, %d to %d workers): %.3f" % (
        workers_list[0], workers_list[-1], growth_exponent(workers_list, wtimes)))


def sweep_throughput(engines, trace, ranges, repeat):
    """Two processes (one per core), each simulating `repeat` times for its own worker counts."""
    print("\nsweep throughput on 2 cores: %d ranges (stellar recording), workers 16..4096, %d simulations per process"
          % (ranges, repeat))
    begin = time.perf_counter()
    procs = []
    for share in ((16, 64, 256), (1024, 4096)):
        cmds = [engines.command("millrace", trace, w, repeat) for w in share]
        script = " && ".join(" ".join(c) for c in cmds)
        procs.append((subprocess.Popen(["/bin/sh", "-c", script], stdout=subprocess.DEVNULL), len(cmds)))
    simulations = 0
    for proc, count in procs:
        if proc.wait() != 0:
            sys.exit("compare_peers: sweep process failed")
        simulations += count * repeat
    wall = time.perf_counter() - begin
    print("  %d simulations in %.2f s: %.0f simulations/s" % (simulations, wall, simulations / wall))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out/peers"))
    parser.add_argument("--smoke", action="store_true", help="small sizes only, no scaling curves (CI)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--largest", type=int, default=10 ** 7,
                        help="the largest generated trace (sizes are the powers of ten from 10^3 up to it)")
    parser.add_argument("--peer-max-ranges", type=int, default=10 ** 6,
                        help="run SimGrid and SimPy up to this many ranges; millrace and the floor run every size")
    parser.add_argument("--simpy-max-ranges", type=int, default=10 ** 6,
                        help="skip SimPy above this many ranges (it is the slowest)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    engines = Engines(args.build)
    for path in (engines.reference, engines.simgrid, engines.millrace, engines.floor):
        if not os.path.exists(path):
            sys.exit("compare_peers: %s is not built (SimGrid: scripts/install-bench-deps.sh)" % path)

    store, stellar = stellar_trace(engines, args.out)
    with open(stellar) as f:
        stellar_ranges = sum(1 for _ in f)
    if args.smoke:
        sizes, workers_list = [1000], [16, 64]
    else:
        sizes = [10 ** k for k in range(3, 20) if 10 ** k <= args.largest]
        workers_list = [16, 256, 4096]
    cases = [("stellar", stellar, stellar_ranges, w) for w in workers_list]
    for ranges in sizes:
        trace = generated_trace(engines, args.out, ranges, args.seed)
        cases += [("generated", trace, ranges, w) for w in workers_list]
    print("reference model: FIFO queue of ranges, W identical workers, durations from the trace file; "
          "sim s = CPU time of the simulation in-process (file reading excluded); proc s / MiB = CPU time "
          "(user + sys) and peak RSS of the whole process (GNU time); x = peer sim s / millrace sim s; floor = "
          "bench_floor_model, the least work an event-driven simulator of the model does (best of 5). "
          "CPU time, not wall time, because the machine may be shared.\n")
    agree, floor_rows = compare(engines, cases, args.peer_max_ranges, args.simpy_max_ranges, store)
    print("\nmakespans agree: %s" % ("yes" if agree else "NO"))
    print_floor(floor_rows)
    if not args.smoke:
        scaling(engines, args.out, sizes, [16, 64, 256, 1024, 4096], 256, 10 ** 5, args.seed)
        sweep_throughput(engines, stellar, stellar_ranges, 20)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
