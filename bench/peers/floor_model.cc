// bench_floor_model: the least work any event-driven simulator of the reference model
// (bench/peers/reference_model.cc) can do, as a yardstick for the peer comparison in
// bench/README.md. One event per range and nothing else: a binary heap of the workers' finish
// times; the earliest finishing worker takes the next range from the FIFO queue. No scheduler,
// no cluster, no ids, no records, no result but the makespan. Workers are identical, so which
// one takes a range at a tie does not change the makespan: it must equal the other engines'.
//
//   bench_floor_model TRACE WORKERS [REPEAT]   (prints the best CPU time of REPEAT runs, default 5)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <queue>
#include <string>
#include <vector>

namespace {

std::int64_t makespan_of(const std::vector<std::int64_t>& durations, int workers) {
  std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> finishes;
  std::size_t next = 0;
  for (int w = 0; w < workers && next < durations.size(); ++w) finishes.push(durations[next++]);
  std::int64_t now = 0;
  while (!finishes.empty()) {
    now = finishes.top();
    finishes.pop();
    if (next < durations.size()) finishes.push(now + durations[next++]);
  }
  return now;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s TRACE WORKERS [REPEAT]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "bench_floor_model: %s: cannot open the trace file\n", argv[1]);
    return 1;
  }
  std::vector<std::int64_t> durations;
  for (long long us; in >> us;) durations.push_back(us);
  int workers = std::stoi(argv[2]);
  int repeat = argc == 4 ? std::stoi(argv[3]) : 5;
  if (durations.empty() || workers < 1 || repeat < 1) {
    std::fprintf(stderr, "bench_floor_model: needs durations, at least one worker and one repeat\n");
    return 1;
  }

  std::int64_t makespan = 0;
  double best = 0;
  for (int i = 0; i < repeat; ++i) {
    std::clock_t begin = std::clock();  // CPU time: the machine may be shared
    makespan = makespan_of(durations, workers);
    double seconds = static_cast<double>(std::clock() - begin) / CLOCKS_PER_SEC;
    best = i == 0 ? seconds : std::min(best, seconds);
  }
  std::printf("engine=floor ranges=%zu workers=%d makespan_us=%lld sim_cpu_s=%.6f\n", durations.size(), workers,
              static_cast<long long>(makespan), best);
  return 0;
}
