#!/usr/bin/python3
"""bench/peers/simpy_peer.py: the reference model (bench/peers/reference_model.cc) on SimPy 2.3,
Debian's python3-simpy, for the peer comparison in bench/README.md. W worker processes share a
FIFO queue of ranges and each holds for its range's duration, read from the trace file (one
duration in integer microseconds per line; SimPy's time unit here is the microsecond, so the
arithmetic stays exact).

    simpy_peer.py TRACE WORKERS
"""
import collections
import sys
import time

from SimPy.Simulation import Process, Simulation, hold


class Worker(Process):
    def run(self, queue, finished):
        while queue:
            yield hold, self, queue.popleft()
        finished.append(self.sim.now())


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: simpy_peer.py TRACE WORKERS")
    with open(sys.argv[1]) as f:
        durations = [int(line) for line in f if line.strip()]
    workers = int(sys.argv[2])

    begin = time.process_time()
    sim = Simulation()
    sim.initialize()
    queue = collections.deque(durations)
    finished = []
    for w in range(workers):
        worker = Worker(name="worker-%d" % w, sim=sim)
        sim.activate(worker, worker.run(queue, finished))
    sim.simulate(until=sum(durations) + 1)
    seconds = time.process_time() - begin

    print("engine=simpy ranges=%d workers=%d makespan_us=%d sim_cpu_s=%.6f"
          % (len(durations), workers, max(finished), seconds))


if __name__ == "__main__":
    main()
