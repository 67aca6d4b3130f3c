// Placement cost in the simulator: job-per-item pods with two resource requests (CPU, memory)
// placed on 2,000 nodes under least-allocated (node pools), against the same pods on 2,000
// nodes of 4 equal slots (no requests) measured in the same run: the ratio of the two per-pod
// times is what placement costs. Pods arrive at 0 under a cap of 8,000 in flight; durations
// 1-100 s, requests 250m-2 CPU and 512Mi-4Gi on 4-CPU/16Gi machines (seeded draws made once).
// Run with --benchmark_filter and Arg 1000000 for the 10^6-pod figure.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/simulation.h"

namespace millrace::sim {
namespace {

constexpr int kNodes = 2000;
constexpr int kCap = 8000;

std::vector<data::WorkItem> pods(std::size_t count, bool with_requests) {
  std::mt19937_64 rng(7);
  std::vector<data::WorkItem> items(count);
  for (std::size_t i = 0; i < count; ++i) {
    items[i].id = std::to_string(i);
    items[i].type = "job";
    items[i].predicted = static_cast<data::Micros>(1 + rng() % 100) * data::kMicrosPerSecond;
    const std::int64_t cpu = static_cast<std::int64_t>(1 + rng() % 8) * 250;
    const std::int64_t memory = static_cast<std::int64_t>(1 + rng() % 8) * 512 * 1024 * 1024 * 1000LL;
    if (with_requests) items[i].requests = {{"cpu", cpu}, {"memory", memory}};
  }
  return items;
}

SimulationConfig config(bool pools) {
  SimulationConfig c;
  c.keep_attempt_log = false;
  c.scheduler.policy = "job-per-item";
  c.scheduler.params.max_in_flight = kCap;
  if (pools) {
    c.cluster.pools.pools = {NodePool{"pool", kNodes, kNodes, kNodes, 0,
                                      {{"cpu", 4000}, {"memory", 16LL * 1024 * 1024 * 1024 * 1000}}}};
    c.cluster.pools.placement = Placement::kLeastAllocated;
  } else {
    c.cluster.nodes = kNodes;
    c.cluster.slots_per_node = 4;
  }
  return c;
}

DurationModel predicted() {
  return [](const data::WorkItem& item) { return item.predicted; };
}

void run(benchmark::State& state, bool pools) {
  const std::size_t count = static_cast<std::size_t>(state.range(0));
  const std::vector<data::WorkItem> items = pods(count, pools);
  const SimulationConfig c = config(pools);
  for (auto _ : state) {
    SimulationResult r = simulate(items, predicted(), c);
    benchmark::DoNotOptimize(r.makespan);
    state.counters["makespan_h"] = static_cast<double>(r.makespan) / data::kMicrosPerHour;
    state.counters["wait_p90_s"] = static_cast<double>(r.waits.p90) / data::kMicrosPerSecond;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
}

void BM_EqualSlotsJobPerItem(benchmark::State& state) { run(state, false); }
void BM_NodePoolsLeastAllocated(benchmark::State& state) { run(state, true); }

BENCHMARK(BM_EqualSlotsJobPerItem)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_NodePoolsLeastAllocated)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace millrace::sim

BENCHMARK_MAIN();
