// bench_peer_simgrid: the reference model (bench/peers/reference_model.cc) on SimGrid's s4u API,
// for the peer comparison in bench/README.md. W worker actors on one host share a FIFO queue of
// ranges (actors run cooperatively, so a plain deque is safe) and each sleeps for its range's
// duration, read from the trace file (one duration in microseconds per line). There is no
// resource to share in this model, so sleep_for rather than execute: no CPU sharing to solve.
// The simulated clock counts microseconds, not seconds: integer durations then add up exactly
// in doubles (in seconds the sums drift and 10^6 ranges on 16 workers end 1 us early).
//
//   bench_peer_simgrid TRACE WORKERS [SimGrid --cfg/--log options]
#include <cmath>
#include <cstdio>
#include <ctime>
#include <deque>
#include <fstream>
#include <string>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace {

void worker(std::deque<double>* queue) {
  while (!queue->empty()) {
    double duration = queue->front();
    queue->pop_front();
    sg4::this_actor::sleep_for(duration);
  }
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TRACE WORKERS\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "bench_peer_simgrid: %s: cannot open the trace file\n", argv[1]);
    return 1;
  }
  std::deque<double> queue;
  for (long long us; in >> us;) queue.push_back(static_cast<double>(us));
  std::size_t ranges = queue.size();
  int workers = std::stoi(argv[2]);

  std::clock_t begin = std::clock();  // CPU time: the machine may be shared
  sg4::NetZone* zone = sg4::create_full_zone("cluster");
  sg4::Host* host = zone->create_host("node", 1e9);
  zone->seal();
  for (int w = 0; w < workers; ++w) sg4::Actor::create("worker-" + std::to_string(w), host, worker, &queue);
  engine.run();
  std::clock_t end = std::clock();

  std::printf("engine=simgrid ranges=%zu workers=%d makespan_us=%lld sim_cpu_s=%.6f\n", ranges, workers,
              std::llround(sg4::Engine::get_clock()), static_cast<double>(end - begin) / CLOCKS_PER_SEC);
  return 0;
}
