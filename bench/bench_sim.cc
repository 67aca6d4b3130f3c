// Benchmarks of the simulator: the engine's hold model (a steady number of pending events, each
// handled event scheduling one more: 10^5, and 16 to 4,096 as a simulation of that many workers
// holds) against a binary heap of the same plain events (std::priority_queue ordered by time
// and insertion) and a naive engine (std::priority_queue of std::function closures) measured in
// the same run, and a whole simulated run of 4,000 ranges on 256 workers with 1% failed attempts.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/engine.h"
#include "sim/sim_event.h"
#include "sim/simulation.h"

namespace millrace::sim {
namespace {

constexpr std::size_t kPending = 100'000;
constexpr std::uint64_t kBatch = 1'000'000;

// Hold-time increments, drawn once so the generator stays out of the measured loop.
const std::vector<data::Micros>& increments() {
  static const std::vector<data::Micros> table = [] {
    std::mt19937_64 rng(42);
    std::exponential_distribution<double> exp(1.0 / 1000);
    std::vector<data::Micros> t(1 << 16);
    for (auto& v : t) v = 1 + static_cast<data::Micros>(exp(rng));
    return t;
  }();
  return table;
}

struct Hold {
  SimEngine& engine;
  const std::vector<data::Micros>& inc;
  std::uint64_t handled = 0;
  void operator()(const SimEvent& e) {
    engine.after(inc[handled & 0xffff], SimEvent{SimEvent::Kind::kStart, e.index, e.value + 1});
    if (++handled == kBatch) engine.stop();
  }
};

// How many events a hold model keeps pending (the benchmark's argument).
std::size_t pending_of(const benchmark::State& state) { return static_cast<std::size_t>(state.range(0)); }

void BM_EngineHoldModel(benchmark::State& state) {
  const auto& inc = increments();
  const std::size_t pending = pending_of(state);
  SimEngine engine;
  engine.reserve(pending + 1);
  for (std::size_t i = 0; i < pending; ++i) {
    engine.at(inc[i & 0xffff] * 7, SimEvent{SimEvent::Kind::kStart, static_cast<std::uint32_t>(i), 0});
  }
  for (auto _ : state) {
    Hold hold{engine, inc};
    engine.run(hold);
    benchmark::DoNotOptimize(engine.now());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}
BENCHMARK(BM_EngineHoldModel)->Arg(16)->Arg(256)->Arg(4096)->Arg(kPending)->Unit(benchmark::kMillisecond);

// The alternative queue: a binary heap of the same plain events, ties by insertion order.
void BM_BinaryHeapHoldModel(benchmark::State& state) {
  struct Entry {
    data::Micros at;
    std::uint64_t seq;
    SimEvent event;
    bool operator>(const Entry& o) const { return at > o.at || (at == o.at && seq > o.seq); }
  };
  const auto& inc = increments();
  const std::size_t pending = pending_of(state);
  std::vector<Entry> storage;
  storage.reserve(pending + 1);
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue(std::greater<Entry>(), std::move(storage));
  std::uint64_t seq = 0;
  for (std::size_t i = 0; i < pending; ++i) {
    queue.push(Entry{inc[i & 0xffff] * 7, seq++, SimEvent{SimEvent::Kind::kStart, static_cast<std::uint32_t>(i), 0}});
  }
  std::uint64_t handled = 0;
  for (auto _ : state) {
    for (std::uint64_t n = 0; n < kBatch; ++n) {
      const Entry top = queue.top();
      queue.pop();
      queue.push(Entry{top.at + inc[handled++ & 0xffff], seq++,
                       SimEvent{SimEvent::Kind::kStart, top.event.index, top.event.value + 1}});
    }
    benchmark::DoNotOptimize(queue.top().at);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}
BENCHMARK(BM_BinaryHeapHoldModel)->Arg(16)->Arg(256)->Arg(4096)->Arg(kPending)->Unit(benchmark::kMillisecond);

// The naive engine: a binary heap of (time, sequence, closure), each event its own std::function
// capturing the engine and the event.
struct NaiveEngine {
  struct Entry {
    data::Micros at;
    std::uint64_t seq;
    std::function<void()> fire;
    bool operator>(const Entry& o) const { return at > o.at || (at == o.at && seq > o.seq); }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  data::Micros now = 0;
  std::uint64_t seq = 0;
  void at(data::Micros when, std::function<void()> fire) { queue.push(Entry{when, seq++, std::move(fire)}); }
};

void naive_hold(NaiveEngine& engine, const std::vector<data::Micros>& inc, std::uint64_t& handled, SimEvent e) {
  engine.at(engine.now + inc[handled & 0xffff], [&engine, &inc, &handled, e] {
    ++handled;
    naive_hold(engine, inc, handled, SimEvent{e.kind, e.index, e.value + 1});
  });
}

void BM_NaiveHoldModelBaseline(benchmark::State& state) {
  const auto& inc = increments();
  NaiveEngine engine;
  std::uint64_t handled = 0;
  for (std::size_t i = 0; i < kPending; ++i) {
    naive_hold(engine, inc, handled, SimEvent{SimEvent::Kind::kStart, static_cast<std::uint32_t>(i), 0});
  }
  for (auto _ : state) {
    for (std::uint64_t n = 0; n < kBatch; ++n) {
      NaiveEngine::Entry top = std::move(const_cast<NaiveEngine::Entry&>(engine.queue.top()));
      engine.queue.pop();
      engine.now = top.at;
      top.fire();
    }
    benchmark::DoNotOptimize(engine.now);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
}
BENCHMARK(BM_NaiveHoldModelBaseline)->Unit(benchmark::kMillisecond);

// 4,000 ranges with a skewed duration profile (a costly middle era, like real chain histories).
struct WholeRun {
  std::vector<data::WorkItem> items;
  DurationModel durations;
};

const WholeRun& whole_run() {
  static const WholeRun run = [] {
    WholeRun r;
    std::unordered_map<std::string, data::Micros> table;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 4000; ++i) {
      data::WorkItem item;
      item.id = "r";
      item.id += std::to_string(i);
      item.range = data::Range{static_cast<std::int64_t>(i) * 16000, 16320};
      double era = 1.0 + 8.0 * std::exp(-std::pow((i - 3000) / 400.0, 2));
      table[item.id] = static_cast<data::Micros>((600 + rng() % 1800) * era) * data::kMicrosPerSecond;
      r.items.push_back(std::move(item));
    }
    r.durations = table_model(std::move(table), "bench");
    return r;
  }();
  return run;
}

void BM_WholeSimulation4000On256(benchmark::State& state) {
  const WholeRun& run = whole_run();
  SimulationConfig config;
  config.cluster.nodes = 256;
  config.cluster.fail_prob = 0.01;
  config.cluster.startup.constant = 30 * data::kMicrosPerSecond;
  config.scheduler.policy = state.range(0) == 0 ? "fixed-pool" : "job-per-item";
  config.scheduler.params.workers = 256;
  config.scheduler.params.max_in_flight = 256;
  std::uint64_t seed = 1;
  std::size_t failures = 0;
  for (auto _ : state) {
    config.seed = seed++;
    SimulationResult result = simulate(run.items, run.durations, config);
    failures += result.summary.failed_attempts;
    benchmark::DoNotOptimize(result.makespan);
  }
  state.counters["failed_attempts_per_run"] =
      benchmark::Counter(static_cast<double>(failures) / static_cast<double>(state.iterations()));
  state.SetLabel(config.scheduler.policy);
}
BENCHMARK(BM_WholeSimulation4000On256)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace millrace::sim

BENCHMARK_MAIN();
