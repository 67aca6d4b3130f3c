// bench_reference_model: millrace's side of the peer comparison (bench/README.md). The reference
// model is a FIFO queue of ranges and W identical workers, each pulling the next range as soon as
// it is free; a range's duration is read from a trace file (one duration in integer microseconds
// per line, in queue order); no failures, no start-up latency. It runs through the real simulator
// (sim::simulate, fixed-pool policy on a SimCluster of W one-slot nodes), exactly as
// `millrace simulate` does, so the peers on SimGrid and SimPy are checked against the real path.
//
//   bench_reference_model run --trace FILE --workers W [--repeat K] [--policy job-per-item] [--node-pools]
//   (job-per-item: one Job per range, at most W at once on W one-slot nodes: the same makespan;
//   --node-pools: job-per-item with resource-aware placement, each range's pod requesting 1 CPU
//   on a node pool of W 1-CPU nodes, placed least-allocated: the same makespan again)
//   bench_reference_model generate --ranges N --seed S -o FILE
//   bench_reference_model export --store DB --run R -o FILE   (a recorded run's durations)
#include <ctime>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "data/error.h"
#include "data/time.h"
#include "data/trace_store.h"
#include "sim/replay.h"
#include "sim/simulation.h"

namespace millrace::sim {
namespace {

std::vector<data::Micros> read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw data::Error(path, "cannot open the trace file");
  std::vector<data::Micros> durations;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    std::size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(line, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used != line.size() || value < 0) {
      throw data::Error(path + ":" + std::to_string(number), "expected a duration in microseconds, got '" + line + "'");
    }
    durations.push_back(value);
  }
  if (durations.empty()) throw data::Error(path, "the trace file holds no duration");
  return durations;
}

void write_trace(const std::string& path, const std::vector<data::Micros>& durations) {
  std::ofstream out(path);
  for (data::Micros d : durations) out << d << '\n';
  if (!out) throw data::Error(path, "cannot write the trace file");
}

// Durations shaped like a chain history: log-normal noise around a base cost, with a costly era
// two thirds of the way along the sequence; a few ranges are 10x stragglers.
std::vector<data::Micros> generate(std::size_t ranges, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0.0, 0.5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<data::Micros> durations(ranges);
  for (std::size_t i = 0; i < ranges; ++i) {
    double x = static_cast<double>(i) / static_cast<double>(ranges);
    double era = 1.0 + 6.0 * std::exp(-std::pow((x - 0.66) / 0.08, 2));
    double straggler = unit(rng) < 0.002 ? 10.0 : 1.0;
    durations[i] = static_cast<data::Micros>(600.0 * data::kMicrosPerSecond * era * straggler * noise(rng));
  }
  return durations;
}

struct Timed {
  data::Micros makespan = 0;
  std::uint64_t events = 0;
  double seconds = 0;  // CPU time of the simulation alone, file reading excluded
};

Timed run_model(const std::vector<data::Micros>& durations, int workers, const std::string& policy,
                bool node_pools) {
  constexpr std::int64_t kOneCpu = 1000;  // milli-CPU
  // Range i is [i, i + 1), named by its END/COUNT form; its duration is the trace's line i.
  std::vector<data::Range> ranges(durations.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) ranges[i] = data::Range{static_cast<std::int64_t>(i), 1};
  std::vector<data::Quantities> requests;
  if (node_pools) requests.assign(ranges.size(), {{"cpu", kOneCpu}});
  SimulationConfig config;
  config.cluster.nodes = workers;
  config.scheduler.plan_name = "reference model";
  config.scheduler.policy = policy;
  config.scheduler.params.workers = workers;
  config.scheduler.params.max_in_flight = workers;
  config.keep_attempt_log = false;  // the peers keep no log either: only the makespan is compared
  if (node_pools) config.cluster.pools.pools = {NodePool{"pool", workers, workers, workers, 0, {{"cpu", kOneCpu}}}};
  std::clock_t begin = std::clock();
  auto plan = std::make_shared<const scheduler::PlannedWork>(std::move(ranges), std::vector<data::Micros>{},
                                                             requests, config.scheduler.plan_name);
  requests.clear();
  requests.shrink_to_fit();
  SimulationResult result = simulate(std::move(plan), durations, config);
  std::clock_t end = std::clock();
  if (result.succeeded != durations.size()) throw data::Error("reference model", "not every range succeeded");
  return Timed{result.makespan, result.events, static_cast<double>(end - begin) / CLOCKS_PER_SEC};
}

void run(const std::string& trace, int workers, int repeat, const std::string& policy, bool node_pools) {
  std::vector<data::Micros> durations = read_trace(trace);
  if (workers < 1) throw data::Error("--workers", "needs at least one worker");
  if (node_pools && policy != "job-per-item") {
    throw data::Error("--node-pools", "runs one Job per range: needs --policy job-per-item");
  }
  Timed best;
  for (int i = 0; i < repeat; ++i) {
    Timed t = run_model(durations, workers, policy, node_pools);
    if (i == 0 || t.seconds < best.seconds) best = t;
  }
  std::printf("engine=millrace ranges=%zu workers=%d makespan_us=%lld events=%llu sim_cpu_s=%.6f\n",
              durations.size(), workers, static_cast<long long>(best.makespan),
              static_cast<unsigned long long>(best.events), best.seconds);
}

void export_run(const std::string& store_path, const std::string& run_name, const std::string& out) {
  data::TraceStore store = data::TraceStore::open(store_path);
  RecordedRun recorded = load_run(store, run_name);
  auto table = recorded_durations(recorded.items, recorded.attempts, store_path + " run " + run_name);
  std::vector<data::Micros> durations;
  durations.reserve(recorded.items.size());
  for (const data::WorkItem& item : recorded.items) durations.push_back(table.at(item.id));
  write_trace(out, durations);
}

}  // namespace
}  // namespace millrace::sim

int main(int argc, char** argv) {
  using namespace millrace;
  CLI::App app{"millrace's side of the reference model shared with the SimGrid and SimPy peers"};
  app.require_subcommand(1);
  std::string trace, out, store, run_name, policy = "fixed-pool";
  int workers = 16, repeat = 1;
  bool node_pools = false;
  std::size_t ranges = 1000;
  std::uint64_t seed = 1;
  CLI::App* run = app.add_subcommand("run", "Simulate the reference model on a trace file");
  run->add_option("--trace", trace, "Trace file: one duration in microseconds per line")->required();
  run->add_option("--workers", workers, "Identical workers pulling from the queue")->required();
  run->add_option("--repeat", repeat, "Simulate K times, report the fastest")->check(CLI::PositiveNumber);
  run->add_option("--policy", policy, "Concurrency policy")
      ->check(CLI::IsMember({"fixed-pool", "job-per-item"}))
      ->capture_default_str();
  run->add_flag("--node-pools", node_pools, "Place each range's pod (1 CPU) on a pool of W 1-CPU nodes");
  CLI::App* gen = app.add_subcommand("generate", "Write a seeded synthetic trace file");
  gen->add_option("--ranges", ranges, "Number of ranges")->required()->check(CLI::PositiveNumber);
  gen->add_option("--seed", seed, "Generator seed");
  gen->add_option("-o", out, "Output trace file")->required();
  CLI::App* exp = app.add_subcommand("export", "Write a recorded run's durations as a trace file");
  exp->add_option("--store", store, "Trace store")->required();
  exp->add_option("--run", run_name, "Run id or name")->required();
  exp->add_option("-o", out, "Output trace file")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    if (*run) sim::run(trace, workers, repeat, policy, node_pools);
    if (*gen) sim::write_trace(out, sim::generate(ranges, seed));
    if (*exp) sim::export_run(store, run_name, out);
  } catch (const data::Error& e) {
    std::cerr << "bench_reference_model: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
